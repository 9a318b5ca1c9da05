"""The FFT interpreter against its floor, its peers, and N log N.

Every figure is a ratio of times (or of bytes) measured in this one run:

* ``layer / FFT floor``: one BaseConv layer (dense W, full-length filter,
  per-channel biases) at B=1, N=2^20, d=64, float64, on the channel-major
  state, against the bare forward + inverse real FFT of the same shapes with
  the same library and threads.  Target ≤ 1.3.
* ``layer / torch``: the same layer through :func:`symconv.numeric.run`
  (input and output in (B, N, d)) against a zoology-style ``torch.fft``
  BaseConv of the same shapes (float64, same thread count; skipped when
  torch is absent).  Target ≤ 1.
* ``100-layer peak / activation``: a 100-layer stack at N=2^18, d=32 (short
  filters, per-channel biases), peak bytes of numpy allocations during
  ``run`` as traced by :mod:`tracemalloc` (numpy reports every array buffer
  to it; pocketfft's per-thread scratch of a few rows is not seen), over the
  bytes of one (N, d) float64 activation.  The prepared stack (parameters and
  cached spectra) exists before the measurement and is reported apart.
  Target ≤ 4.
* FFT library: floors of numpy.fft, scipy.fft (threads) and pyFFTW, as
  ratios to the library the interpreter uses.
* Scaling: one layer (d=16) for N = 2^10 … 2^20 (``--max-log-n 22`` for
  more); time/(N log2 N) relative to the largest N, and the fitted exponent
  of time against N log2 N for N ≥ 2^14 (target 0.8–1.25).
* Error: max |float − exact| of one integer-valued layer (exact result from
  :mod:`symconv.exact`) over its a-priori bound, float64 and float32, for
  N up to 2^18.  Target ≤ 1.

``--plot FILE.png`` draws time against N per backend and floor, and error
against N (needs matplotlib, extra ``plot``).  ``--quick`` shrinks every
size by 2^4 for a fast look (figures are then not the issue's).
"""
from __future__ import annotations

import argparse
import gc
import math
import time
import tracemalloc
from typing import Any, Callable

import numpy as np

from . import Record
from .. import exact, numeric
from ..model import Layer, Stack

DESCRIPTION = "FFT interpreter vs the bare FFT floor, torch, memory, N log N scaling, errors"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plot", metavar="FILE.png", help="draw time and error against N (matplotlib)")
    parser.add_argument("--max-log-n", type=int, default=20, help="largest N = 2^k of the scaling table")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats of the large figures (min taken)")
    parser.add_argument("--quick", action="store_true", help="every size / 2^4 (a fast look, not the targets)")
    parser.add_argument("--only", choices=("layer", "torch", "memory", "fft", "scaling", "error"),
                        action="append", help="run only these figures (repeatable)")


def _min_time(fns: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    """Best time of each function, runs interleaved so background load hits all alike."""
    best = {k: math.inf for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            gc.collect()
            t0 = time.perf_counter()
            f()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def dense_layer(N: int, d: int, K: int | None = None, seed: int = 0) -> Layer:
    """A BaseConv layer as in a model: dense W, filter of length K (N), biases per channel.

    >>> dense_layer(8, 2).h.shape
    (8, 2)
    """
    rng = np.random.default_rng(seed)
    K = N if K is None else K
    return Layer(W=rng.standard_normal((d, d)) / math.sqrt(d), h=rng.standard_normal((K, d)) / math.sqrt(K),
                 b1=rng.standard_normal((1, d)), b2=rng.standard_normal((1, d)))


def floor_fn(prep: numeric.Prepared, z: np.ndarray) -> Callable[[], Any]:
    """The bare rfft + irfft of the state at the prepared layer's FFT length, same library and threads."""
    F = prep.layers[0].fft_len

    def f() -> None:
        prep.fft.irfft(prep.fft.rfft(z, F, prep.workers), F, prep.workers)
    return f


def layer_fn(prep: numeric.Prepared, z: np.ndarray) -> Callable[[], Any]:
    """One prepared layer on the channel-major state (the interpreter's CPU path)."""
    def f() -> None:
        with numeric._Runner(prep) as r:
            r.layer(prep.layers[0], z)
    return f


def _state(stack: Stack, seed: int = 1) -> np.ndarray:
    u = np.random.default_rng(seed).standard_normal((1, stack.N, stack.d))
    return numeric.to_internal(stack, u, np, np.float64)[0]


def fig_layer(N: int, d: int, repeats: int) -> list[Record]:
    stack = Stack(N, d, (dense_layer(N, d),))
    prep = numeric.prepare(stack)
    z = _state(stack)
    t = _min_time({"floor": floor_fn(prep, z), "layer": layer_fn(prep, z)}, repeats)
    ratio = t["layer"] / t["floor"]
    return [Record(f"layer / FFT floor (N=2^{int(math.log2(N))}, d={d})", ratio, "<= 1.3", ratio <= 1.3, "x",
                   f"{prep.fft.library}.fft, {prep.workers} threads, F={prep.layers[0].fft_len}; "
                   f"min of {repeats}: layer {t['layer']:.3f} s, floor {t['floor']:.3f} s")]


def torch_layer(N: int, d: int, layer: Layer, threads: int) -> Callable[[Any], Any] | None:
    """A zoology-style BaseConv forward in torch (float64): projection ⊙ fft_conv(u, k).

    Follows zoology's ``fft_conv``: the filter spectrum is taken on every call,
    FFT size 2N, ``irfft(..., norm="forward")`` after scaling k_f by 1/(2N).
    Returns None when torch is not installed.
    """
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    W = torch.tensor(np.asarray(layer.W, dtype=np.float64))
    k = torch.tensor(np.asarray(layer.h, dtype=np.float64).T.copy())  # (d, N)
    b1 = torch.tensor(np.asarray(layer.b1, dtype=np.float64))
    b2 = torch.tensor(np.asarray(layer.b2, dtype=np.float64).T.copy())  # (d, 1)

    def forward(u: Any) -> Any:
        with torch.no_grad():
            x = u.transpose(1, 2)  # (B, d, N)
            fft_size = 2 * N
            k_f = torch.fft.rfft(k, n=fft_size) / fft_size
            u_f = torch.fft.rfft(x, n=fft_size)
            y = torch.fft.irfft(u_f * k_f, n=fft_size, norm="forward")[..., :N]
            conv = (y + b2).transpose(1, 2)
            proj = u @ W + b1
            return proj * conv
    return forward


def fig_torch(N: int, d: int, repeats: int) -> list[Record]:
    layer = dense_layer(N, d)
    stack = Stack(N, d, (layer,))
    prep = numeric.prepare(stack)
    fwd = torch_layer(N, d, layer, prep.workers)
    name = f"layer / torch.fft zoology layer (N=2^{int(math.log2(N))}, d={d})"
    if fwd is None:
        return [Record(name, float("nan"), "<= 1", None, "x", "torch not installed: skipped")]
    import torch

    u = np.random.default_rng(2).standard_normal((1, N, d))
    ut = torch.from_numpy(u)
    ours = numeric.run(prep, u)
    theirs = fwd(ut).numpy()
    agree = float(np.max(np.abs(ours - theirs)) / max(1e-300, float(np.max(np.abs(theirs)))))
    t = _min_time({"torch": lambda: fwd(ut), "ours": lambda: numeric.run(prep, u)}, repeats)
    ratio = t["ours"] / t["torch"]
    return [Record(name, ratio, "<= 1", ratio <= 1.0, "x",
                   f"torch {torch.__version__} {prep.workers} threads; min of {repeats}: ours {t['ours']:.3f} s, "
                   f"torch {t['torch']:.3f} s; outputs agree to {agree:.1e} (relative)")]


def deep_stack(N: int, d: int, L: int, K: int = 16, seed: int = 0) -> Stack:
    """L layers b1 ⊙ (h * z + b2) with filters of length K, gates ±1 per channel.

    Each layer is close to an isometry (h = e_0 plus small taps), so values
    stay bounded through any depth.

    >>> deep_stack(16, 2, 3).L
    3
    """
    rng = np.random.default_rng(seed)
    layers = []
    for _ in range(L):
        h = np.zeros((K, d))
        h[0] = 1.0
        h[1:] = rng.standard_normal((K - 1, d)) / (16 * K)
        layers.append(Layer(W=np.zeros((d, d)), h=h, b1=rng.choice([-1.0, 1.0], size=(1, d)),
                            b2=rng.standard_normal((1, d)) / 16))
    return Stack(N, d, tuple(layers))


def fig_memory(N: int, d: int, L: int) -> list[Record]:
    stack = deep_stack(N, d, L)
    u = np.random.default_rng(3).standard_normal((1, N, d))
    activation = u.nbytes
    tracemalloc.start()
    try:
        prep = numeric.prepare(stack)
        prepared = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        t0 = time.perf_counter()
        out = numeric.run(prep, u)
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    ok = bool(np.all(np.isfinite(out)))
    ratio = peak / activation
    return [Record(f"{L}-layer peak / activation (N=2^{int(math.log2(N))}, d={d})", ratio, "<= 4",
                   ratio <= 4 and ok, "x",
                   f"tracemalloc peak during run {peak / 2**20:.0f} MiB, activation {activation / 2**20:.0f} MiB, "
                   f"prepared stack {prepared / 2**20:.0f} MiB ({prep.cached_bytes / 2**20:.0f} MiB spectra "
                   f"cached); run {seconds:.1f} s")]


def fig_fft_libraries(N: int, d: int, repeats: int) -> list[Record]:
    stack = Stack(N, d, (dense_layer(N, d, K=1),))
    F = numeric.fast_length(2 * N - 1)
    z = _state(stack)
    used = numeric.CpuFFT("auto")
    fns, libs = {}, {}
    for lib in ("numpy", "scipy", "pyfftw"):
        try:
            f = numeric.CpuFFT(lib)
        except Exception:  # noqa: BLE001 - library absent
            continue
        libs[lib] = f
        fns[lib] = (lambda f=f: f.irfft(f.rfft(z, F, numeric.default_workers()), F, numeric.default_workers()))
    t = _min_time(fns, repeats)
    out = []
    for lib, v in t.items():
        if lib == used.library:
            continue
        r = v / t[used.library]
        out.append(Record(f"FFT floor {lib} / {used.library} (N=2^{int(math.log2(N))}, d={d})", r, "-", None, "x",
                          f"{numeric.default_workers()} threads where the library takes them; min of {repeats}"))
    return out


def scaling(max_log_n: int, d: int = 16, min_log_n: int = 10) -> tuple[list[Record], dict]:
    """One layer for N = 2^min … 2^max: times per library and the floor; records and plot series."""
    series: dict[str, list] = {"ours (scipy.fft)": [], "ours (numpy.fft)": [], "floor (scipy.fft)": []}
    have_scipy = numeric.CpuFFT("auto").library == "scipy"
    norm = []
    for k in range(min_log_n, max_log_n + 1):
        N = 1 << k
        stack = Stack(N, d, (dense_layer(N, d),))
        z = _state(stack)
        fns = {"ours (numpy.fft)": layer_fn(numeric.prepare(stack, fft="numpy"), z)}
        if have_scipy:
            prep = numeric.prepare(stack, fft="scipy")
            fns["ours (scipy.fft)"] = layer_fn(prep, z)
            fns["floor (scipy.fft)"] = floor_fn(prep, z)
        reps = max(3, min(30, (1 << 24) // (N * d)))
        t = _min_time(fns, reps)
        for key, v in t.items():
            series[key].append((N, v))
        main = "ours (scipy.fft)" if have_scipy else "ours (numpy.fft)"
        norm.append((N, t[main] / (N * math.log2(N))))
    series = {k: v for k, v in series.items() if v}
    main = "ours (scipy.fft)" if have_scipy else "ours (numpy.fft)"
    ref = norm[-1][1]
    recs = [Record(f"scaling: time/(N log2 N) at N=2^{int(math.log2(N))}, rel. to N=2^{max_log_n}", v / ref,
                   "-", None, "x", main) for N, v in norm]
    pts = [(N, t) for N, t in series[main] if N >= 1 << 14]
    if len(pts) >= 2:
        x = np.log([N * math.log2(N) for N, _ in pts])
        y = np.log([t for _, t in pts])
        slope = float(np.polyfit(x, y, 1)[0])
        recs.append(Record(f"scaling exponent vs N log2 N (N=2^14..2^{max_log_n})", slope, "0.8..1.25",
                           0.8 <= slope <= 1.25, "", f"least squares on log time; {main}"))
    return recs, series


def integer_layer(N: int, d: int, seed: int = 0) -> Layer:
    """A full-length layer with small integer parameters (exact results stay integers)."""
    rng = np.random.default_rng(seed)
    return Layer(W=rng.integers(-2, 3, (d, d)), h=rng.integers(-2, 3, (N, d)),
                 b1=rng.integers(-2, 3, (1, d)), b2=rng.integers(-2, 3, (1, d)))


def errors(max_log_n: int, d: int = 4, min_log_n: int = 10) -> tuple[list[Record], dict]:
    """Float errors of an integer layer against its exact value (mod p, lifted) and the bound."""
    series: dict[str, list] = {"float64": [], "float64 bound": [], "float32": [], "float32 bound": []}
    worst = {"float64": 0.0, "float32": 0.0}
    for k in range(min_log_n, max_log_n + 1, 2):
        N = 1 << k
        stack = Stack(N, d, (integer_layer(N, d, seed=k),))
        u = np.random.default_rng(k).integers(-2, 3, (1, N, d))
        r = exact.run_mod(stack, u, exact.PRIME)
        truth = np.where(r > exact.PRIME // 2, r - exact.PRIME, r).astype(np.float64)
        for dt in ("float64", "float32"):
            out, bound = numeric.run_bounded(stack, u.astype(np.float64), dtype=dt)
            err = float(np.max(np.abs(out.astype(np.float64) - truth)))
            series[dt].append((N, err))
            series[dt + " bound"].append((N, bound))
            worst[dt] = max(worst[dt], err / bound)
    recs = [Record(f"error / a-priori bound, {dt} (worst over N=2^{min_log_n}..2^{max_log_n})", v, "<= 1", v <= 1,
                   "x", "one integer-valued full-length layer, d=4; exact value from symconv.exact")
            for dt, v in worst.items()]
    return recs, series


def run(args: argparse.Namespace) -> list[Record]:
    quick = getattr(args, "quick", False)
    s = 4 if quick else 0
    only = set(getattr(args, "only", None) or ("layer", "torch", "memory", "fft", "scaling", "error"))
    repeats = max(1, getattr(args, "repeats", 3))
    max_log_n = getattr(args, "max_log_n", 20) - s
    records: list[Record] = []
    series: dict = {}
    if "layer" in only:
        records += fig_layer(1 << (20 - s), 64, repeats)
    if "torch" in only:
        records += fig_torch(1 << (20 - s), 64, repeats)
    if "memory" in only:
        records += fig_memory(1 << (18 - s), 32, 100)
    if "fft" in only:
        records += fig_fft_libraries(1 << (20 - s), 16, repeats)
    if "scaling" in only:
        recs, series["time"] = scaling(max_log_n, min_log_n=10 - s // 2)
        records += recs
    if "error" in only:
        recs, series["error"] = errors(min(max_log_n, 18 - s), min_log_n=10 - s // 2)
        records += recs
    if getattr(args, "plot", None):
        from ..plot import plot_numeric

        plot_numeric(series, args.plot)
    return records
