"""FFT interpreter over an array namespace (numpy by default, CuPy on a GPU).

The same :class:`~symconv.model.Stack` the symbolic interpreter reads is run
here in floating point.  Causal convolutions use real FFTs zero-padded to a
fast length ≥ N' + K − 1 (K the filter length, so no wrap-around reaches the
kept coefficients); circular ones use length N'.  :func:`prepare` caches the
long filters' spectra when their total fits the cache budget (all or none);
otherwise each is recomputed block by block as the layer runs, so a deep stack
never holds more than a few activations.

Two code paths share the layer algebra:

* the **namespace path** (any ``xp`` other than numpy itself: CuPy, or a
  wrapper in tests) keeps the state channel-major, (B, d', N'), and uses only
  array-API operations: ``xp.asarray``, ``xp.zeros``, ``xp.fft.rfft``/``irfft``,
  ``xp.matmul``, arithmetic operators, slicing, reductions.  No numpy call is
  made on it.  Spectra are computed in float64, then rounded.
* the **CPU path** (``xp`` is numpy) keeps the state as the input is laid out,
  (B, N', d'), so ``run`` does no transposes: blocks of channels are copied
  into reused zero-padded FFT buffers (one set per thread), and the result is
  multiplied in place into the gate u·W + b1 (one GEMM); two state buffers
  alternate across layers.  Filters of at most :data:`DIRECT_TAPS` taps are
  applied directly.  Spectra are computed in the run's precision.  The FFT
  library is the fastest installed one, measured once per process
  (:func:`fastest_library`; ``SYMCONV_FFT`` overrides).

:func:`run_bounded` also returns an a-priori bound on the rounding error,
derived in :func:`error_bound_doc`.

Example:
    >>> import numpy as np
    >>> from symconv.constructions.shifts import shift_down
    >>> run(shift_down(4, 1, 1), np.arange(4.0).reshape(4, 1))[:, 0].round(12).tolist()
    [0.0, 0.0, 1.0, 2.0]
"""
from __future__ import annotations

import math
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from .model import HypothesisError, Layer, Stack

DTYPES = {"float64": (np.float64, np.complex128), "float32": (np.float32, np.complex64)}
EPS = {"float64": 2.0 ** -53, "float32": 2.0 ** -24}
#: Higham's constant for the normwise relative error of one FFT of length F,
#: η = FFT_C · ε · log2 F (Accuracy and Stability, Thm 24.2: ≈ μ + γ4(√2 + μ)).
FFT_C = 7.0
#: Default memory budget for cached filter spectra (bytes).
CACHE_BYTES = 1 << 30
#: Target size of one block of the CPU path (bytes of one padded real block).
BLOCK_BYTES = 16 << 20
#: Least number of rows (batch × channels) in one block of the namespace path's estimates.
BLOCK_ROWS = 1
#: Channels per tile of the CPU path: one tile is transposed at a time (8 float64 = one cache line).
CHANNEL_BLOCK = 8
#: Rows per piece when a tile of channels is transposed (the piece stays in cache).
TRANSPOSE_ROWS = 1024
#: A tile of CHANNEL_BLOCK padded rows up to this size is transformed by one multi-row plan (fewer calls);
#: larger tiles row by row (their buffers would not stay in cache).
SMALL_TILE_BYTES = 4 << 20


def fast_length(n: int) -> int:
    """Smallest 2^a·3^b·5^c ≥ n (lengths pocketfft and cuFFT handle fastest).

    >>> fast_length(1000), fast_length(1025)
    (1000, 1080)
    """
    best = 1 << max(0, (n - 1).bit_length())
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            p = p35
            while p < n:
                p *= 2
            best = min(best, p)
            p35 *= 3
        p5 *= 5
    return best


def default_workers() -> int:
    """CPU threads the CPU path uses: the cores this process may run on.

    >>> default_workers() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


# --------------------------------------------------------------------------- FFT libraries


LIBRARIES = ("numpy", "scipy", "pyfftw", "mkl_fft", "torch")
_MEASURED: dict = {}


class _Plan:
    """Reused buffers of one (rows, F, dtype) real FFT pair: ``inp`` (zero tail), ``forward()``, ``backward(spec)``."""

    def __init__(self, fft: "CpuFFT", rows: int, F: int, real: Any) -> None:
        self.rows, self.F = rows, F
        cplx = np.complex64 if np.dtype(real) == np.float32 else np.complex128
        if fft.library == "pyfftw":
            import pyfftw

            self.inp = pyfftw.zeros_aligned((rows, F), dtype=real)
            self.spec = pyfftw.empty_aligned((rows, F // 2 + 1), dtype=cplx)
            self.out = pyfftw.empty_aligned((rows, F), dtype=real)
            self._f = pyfftw.FFTW(self.inp, self.spec, axes=(-1,), flags=("FFTW_ESTIMATE",), threads=1)
            self._b = pyfftw.FFTW(self.spec, self.out, axes=(-1,), direction="FFTW_BACKWARD",
                                  flags=("FFTW_ESTIMATE", "FFTW_DESTROY_INPUT"), threads=1)
        else:
            self.inp = np.zeros((rows, F), dtype=real)
            self._f = self._b = None
        self.fft = fft

    def forward(self) -> Any:
        if self._f is not None:
            self._f()
            return self.spec
        return self.fft.rfft(self.inp, self.F, 1)

    def forward_into(self, dst: Any) -> Any:
        """rfft of ``inp`` written into ``dst`` (shape of :attr:`spec`; from :meth:`spectrum_buffer`), no copy on pyFFTW."""
        if self._f is not None:
            self._f.update_arrays(self.inp, dst)
            try:
                self._f.execute()
            finally:
                self._f.update_arrays(self.inp, self.spec)
        else:
            dst[...] = self.fft.rfft(self.inp, self.F, 1)
        return dst

    def spectrum_buffer(self) -> Any:
        """A new array the forward transform can write into (aligned for pyFFTW)."""
        shape, cplx = (self.rows, self.F // 2 + 1), np.complex64 if self.inp.dtype == np.float32 else np.complex128
        if self._f is not None:
            import pyfftw

            return pyfftw.empty_aligned(shape, dtype=cplx)
        return np.empty(shape, dtype=cplx)

    @property
    def raw_inverse(self) -> bool:
        """Whether :meth:`backward` with ``scaled=False`` skips a pass (pyFFTW: FFTW's own unnormalised inverse)."""
        return self._b is not None

    def backward(self, spec: Any, scaled: bool = True) -> Any:
        """irfft of ``spec``; with ``scaled=False`` F times it (the caller folded 1/F into the spectrum)."""
        if self._b is not None:
            if spec is not self.spec:
                self.spec[...] = spec
            if scaled:
                self._b()
            else:
                self._b.execute()
            return self.out
        out = self.fft.irfft(spec, self.F, 1)
        if not scaled:
            out *= self.F
        return out


def _import_library(library: str) -> tuple[Any, bool]:
    """(module with rfft/irfft, whether it takes ``workers``) or a HypothesisError naming the extra."""
    try:
        if library == "numpy":
            return np.fft, False
        if library == "scipy":
            import scipy.fft as mod
            return mod, True
        if library == "pyfftw":
            import pyfftw.interfaces.cache as cache
            import pyfftw.interfaces.scipy_fft as mod
            cache.enable()
            return mod, True
        if library == "mkl_fft":
            from mkl_fft.interfaces import numpy_fft as mod
            return mod, False
        if library == "torch":
            import torch  # noqa: F401
            return _TorchFFT(), False
    except ImportError as exc:
        raise HypothesisError(f"fft: {library} is not installed (pip install {library})") from exc
    raise HypothesisError(f"fft: unknown library {library!r}; expected auto or one of {LIBRARIES}")


class _TorchFFT:
    """torch.fft on CPU tensors sharing memory with numpy arrays."""

    def rfft(self, x: Any, n: int, axis: int = -1) -> Any:
        import torch
        return torch.fft.rfft(torch.from_numpy(np.ascontiguousarray(x)), n=n, dim=axis).numpy()

    def irfft(self, x: Any, n: int, axis: int = -1) -> Any:
        import torch
        return torch.fft.irfft(torch.from_numpy(np.ascontiguousarray(x)), n=n, dim=axis).numpy()


def installed_libraries() -> list[str]:
    """The CPU FFT libraries importable here, numpy first.

    >>> installed_libraries()[0]
    'numpy'
    """
    import importlib.util

    out = []
    for lib in LIBRARIES:
        if lib == "torch":  # importing torch costs seconds: its presence is enough here
            if importlib.util.find_spec("torch") is not None:
                out.append(lib)
            continue
        try:
            _import_library(lib)
        except HypothesisError:
            continue
        out.append(lib)
    return out


def measure_libraries(rows: int = 8, F: int = 1 << 15, repeats: int = 3) -> dict[str, float]:
    """Seconds of rfft + irfft of a (rows, F) float64 block, row by row with reused buffers, per library."""
    import time

    x = np.random.default_rng(0).standard_normal((rows, F // 2))
    times = {}
    for lib in installed_libraries():
        if lib == "torch":  # importing torch costs seconds; it is measured by the bench, not here
            continue
        fft = CpuFFT(lib)
        plan = fft.plan(1, F, np.float64)
        plan.backward(plan.forward())  # warm up (plans, twiddles)
        best = math.inf
        for _ in range(repeats):
            t0 = time.perf_counter()
            for r in range(rows):
                plan.inp[0, : F // 2] = x[r]
                plan.backward(plan.forward())
            best = min(best, time.perf_counter() - t0)
        times[lib] = best
    return times


def fastest_library() -> str:
    """The CPU FFT library to use: ``SYMCONV_FFT`` if set, else the fastest installed one, measured once.

    >>> fastest_library() in LIBRARIES
    True
    """
    env = os.environ.get("SYMCONV_FFT")
    if env and env != "auto":
        _import_library(env)
        return env
    if "choice" not in _MEASURED:
        times = measure_libraries()
        _MEASURED["times"] = times
        _MEASURED["choice"] = min(times, key=times.get)
    return _MEASURED["choice"]


class CpuFFT:
    """Real FFTs on numpy arrays from one CPU library (numpy, scipy, pyfftw, mkl_fft, torch).

    ``library="auto"`` takes :func:`fastest_library` (measured here once per
    process; ``SYMCONV_FFT`` overrides).  :meth:`plan` gives reused buffers.

    >>> f = CpuFFT("numpy")
    >>> f.irfft(f.rfft(np.ones((1, 3)), 4), 4).round(6).tolist()
    [[1.0, 1.0, 1.0, 0.0]]
    """

    def __init__(self, library: str = "auto") -> None:
        if library == "auto":
            library = fastest_library()
        self._mod, self._workers_kw = _import_library(library)
        self.library = library

    def rfft(self, x: Any, n: int, workers: int = 1) -> Any:
        if self._workers_kw:
            return self._mod.rfft(x, n=n, axis=-1, workers=workers)
        return self._mod.rfft(x, n=n, axis=-1)

    def irfft(self, x: Any, n: int, workers: int = 1) -> Any:
        if self._workers_kw:
            return self._mod.irfft(x, n=n, axis=-1, workers=workers, overwrite_x=True)
        return self._mod.irfft(x, n=n, axis=-1)

    def plan(self, rows: int, F: int, real: Any = np.float64) -> _Plan:
        """Buffers and (for pyFFTW) plans for repeated rfft/irfft of ``rows`` rows of length F."""
        return _Plan(self, rows, F, real)


# --------------------------------------------------------------------------- namespace helpers


def _namespace(xp: Any) -> Any:
    return np if xp is None else xp


def _permute(xp: Any, a: Any, axes: tuple) -> Any:
    f = getattr(xp, "permute_dims", None) or xp.transpose
    return f(a, axes)


def _astype(xp: Any, a: Any, dtype: Any) -> Any:
    f = getattr(xp, "astype", None)
    return f(a, dtype) if f is not None else a.astype(dtype)


def _dtypes(xp: Any, dtype: str) -> tuple[Any, Any]:
    if dtype not in DTYPES:
        raise HypothesisError(f"dtype: expected one of {sorted(DTYPES)}, got {dtype!r}")
    if xp is np:
        return DTYPES[dtype]
    cname = {"float64": "complex128", "float32": "complex64"}[dtype]
    return getattr(xp, dtype), getattr(xp, cname)


# --------------------------------------------------------------------------- prepared stacks

#: Filters of at most this many taps are applied directly (K multiply-adds per entry), never by FFT.
DIRECT_TAPS = 32


@dataclass(frozen=True, eq=False)
class PreparedLayer:
    """A layer's arrays on the target namespace.

    ``spectrum`` is None when it was not cached (over the memory budget, or a
    short filter); it is then computed from ``hT`` block by block, or the
    filter is applied directly (``direct``, at most :data:`DIRECT_TAPS`
    taps).  ``W``, ``W_diag``, ``b1``, ``b2`` and ``hT`` are channel-major; the
    CPU path reads their transposes (views).  ``norms`` holds per-channel
    host-side norms for the error bound.
    """

    W: Any  # (d', d') transposed for matmul, or None when W = 0 or diagonal
    W_diag: Any  # (d', 1) when W is diagonal (and nonzero), else None
    b1: Any  # (d' or 1, N' or 1)
    b2: Any  # (d' or 1, N' or 1), or None when zero
    spectrum: Any  # (d', F//2+1) or None
    hT: Any  # (d', K) filter, channel-major, in the run's precision on the CPU path
    fft_len: int
    conv: str
    norms: dict
    direct: bool = False
    folded: bool = False  # the spectrum includes the inverse FFT's 1/F (CPU path, pyFFTW)


@dataclass(frozen=True, eq=False)
class Prepared:
    """A stack ready to run: its layers' spectra and parameters on ``xp``."""

    stack: Stack
    layers: tuple
    xp: Any
    real: Any
    complex: Any
    dtype: str = "float64"
    fft: Any = None  # CpuFFT on the CPU path, None on the namespace path
    workers: int = 1

    @property
    def cached_bytes(self) -> int:
        """Bytes held by cached filter spectra."""
        return sum(int(p.spectrum.size) * int(p.spectrum.dtype.itemsize)
                   for p in self.layers if p.spectrum is not None)


def _numeric(a: np.ndarray, where: str) -> np.ndarray:
    if a.dtype == object:
        for v in a.flat:
            if getattr(v, "free_symbols", None):
                raise HypothesisError(
                    f"{where}: has symbolic entries ({v}); substitute numbers first (Stack.subs)"
                )
        try:
            return a.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise HypothesisError(f"{where}: entries are not real numbers ({exc})") from exc
    if a.dtype.kind not in "biuf":
        raise HypothesisError(f"{where}: dtype {a.dtype} is not real")
    return np.asarray(a, dtype=np.float64)  # no copy when already float64: nothing here writes to it


def _fft_len(layer: Layer, N_int: int) -> int:
    return fast_length(N_int + layer.h.shape[0] - 1) if layer.conv == "causal" else N_int


def _taps(layer: Layer) -> int:
    """Number of filter rows up to the last nonzero one."""
    h = layer.h
    if h.dtype != object and h.shape[0] and np.any(h[-1]):  # a full-length filter: one row read
        return int(h.shape[0])
    nz = np.flatnonzero(np.any(h != 0, axis=1)) if h.dtype != object else np.flatnonzero(
        [any(v != 0 for v in row) for row in h])
    return int(nz[-1]) + 1 if nz.size else 0


def _channel_vec(a: np.ndarray, d: int) -> np.ndarray:
    """Per-channel max |entry| of a broadcastable (rows, d or 1) array, as (d,)."""
    m = np.max(np.abs(a), axis=0) if a.size else np.zeros(a.shape[1])
    return np.broadcast_to(m, (d,)).astype(np.float64)


def _spectrum_bytes(layer: Layer, N_int: int, d_int: int, itemsize: int) -> int:
    return d_int * (_fft_len(layer, N_int) // 2 + 1) * itemsize


def _is_direct(layer: Layer, cpu: bool) -> bool:
    return cpu and _taps(layer) <= DIRECT_TAPS


def _transposed(a: np.ndarray, dtype: Any) -> np.ndarray:
    """A contiguous transpose of a 2-D array, copied in cache-sized tiles (a plain copy strides across memory).

    >>> _transposed(np.arange(6.0).reshape(3, 2), np.float64).tolist()
    [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    """
    n, m = a.shape
    out = np.empty((m, n), dtype=dtype)
    for c0 in range(0, m, CHANNEL_BLOCK):
        c1 = min(m, c0 + CHANNEL_BLOCK)
        for i0 in range(0, n, TRANSPOSE_ROWS):
            i1 = min(n, i0 + TRANSPOSE_ROWS)
            out[c0:c1, i0:i1] = a[i0:i1, c0:c1].T
    return out


def _cpu_spectra(cpu: "CpuFFT", hT: np.ndarray, F: int, real: Any, cplx: Any, workers: int,
                 fold: bool = False) -> np.ndarray:
    """rfft of every filter row at length F (times 1/F with ``fold``), row by row into reused buffers,
    ``workers`` threads."""
    d, K = hT.shape
    spec = np.empty((d, F // 2 + 1), dtype=cplx)

    def part(c0: int, c1: int) -> None:
        plan = cpu.plan(1, F, real)
        for c in range(c0, c1):
            plan.inp[0, :K] = hT[c]
            if fold:  # scaled while copied out: one pass
                np.multiply(plan.forward()[0], 1.0 / F, out=spec[c])
            else:
                spec[c] = plan.forward()[0]
    step = max(1, -(-d // max(1, workers)))
    parts = [(c0, min(d, c0 + step)) for c0 in range(0, d, step)]
    if len(parts) == 1:
        part(*parts[0])
    else:
        with ThreadPoolExecutor(len(parts)) as pool:
            for f in [pool.submit(part, *q) for q in parts]:
                f.result()
    return spec


def prepare_layer(layer: Layer, N_int: int, xp: Any, real: Any, where: str,
                  cplx: Any = None, spectrum: bool = True, cpu: "CpuFFT | None" = None,
                  workers: int = 1) -> PreparedLayer:
    """One layer's parameters on ``xp``.

    On the CPU path the spectrum is computed in the run's precision, block by
    block; on the namespace path in float64, then rounded.  Short filters on
    the CPU path are kept as taps (``direct``).
    """
    xp = _namespace(xp)
    W = _numeric(layer.W, f"{where}.W")
    h = _numeric(layer.h, f"{where}.h")
    b1 = _numeric(layer.b1, f"{where}.b1")
    b2 = _numeric(layer.b2, f"{where}.b2")
    d = W.shape[0]
    F = _fft_len(layer, N_int)
    direct = cpu is not None and _taps(layer) <= DIRECT_TAPS
    if direct:
        h = h[: max(1, _taps(layer))]
    f64 = np.float64 if xp is np else getattr(xp, "float64")
    spec = None
    fold = cpu is not None and cpu.library == "pyfftw"  # 1/F folded into the spectrum: one pass less per row
    if cpu is not None:
        hT = _transposed(h, real)
        if spectrum and not direct:
            spec = _cpu_spectra(cpu, hT, F, real, cplx, workers, fold)
    else:
        hT = xp.asarray(np.ascontiguousarray(h.T), dtype=f64)
        if spectrum:
            spec = xp.fft.rfft(hT, n=F, axis=-1)
            if cplx is not None:
                spec = _astype(xp, spec, cplx)
    off_diag = W - np.diag(np.diag(W))
    W_full = W_diag = None
    if np.any(off_diag):
        W_full = xp.asarray(np.ascontiguousarray(W.T), dtype=real)
    elif np.any(W):
        W_diag = xp.asarray(np.diag(W).reshape(-1, 1), dtype=real)
    norms = {
        "h1": np.add.reduce(np.abs(h), axis=0),
        "h2": np.sqrt(np.einsum("ij,ij->j", h, h)),
        "Wcol1": np.sum(np.abs(W), axis=0),
        "b1": _channel_vec(b1, d),
        "b2": _channel_vec(b2, d),
    }
    return PreparedLayer(
        W=W_full,
        W_diag=W_diag,
        b1=xp.asarray(np.ascontiguousarray(b1.T), dtype=real),
        b2=xp.asarray(np.ascontiguousarray(b2.T), dtype=real) if np.any(b2) else None,
        spectrum=spec,
        hT=hT,
        fft_len=F,
        conv=layer.conv,
        norms=norms,
        direct=direct,
        folded=fold,
    )


def estimate_run_bytes(stack: Stack, batch: int = 1, dtype: str = "float64", cached: int = 0,
                       workers: int = 1) -> int:
    """Bytes one run needs: input copy, two state buffers, the output, FFT blocks per worker, spectra.

    >>> from symconv.constructions.shifts import shift_down
    >>> estimate_run_bytes(shift_down(1024, 1), 1) > 3 * 1024 * 8
    True
    """
    r = {"float64": 8, "float32": 4}[dtype]
    act = batch * stack.N_int * stack.d_int * r
    F = max([_fft_len(l, stack.N_int) for l in stack.layers] or [1])
    blocks = workers * 3 * min(max(BLOCK_BYTES, F * r), max(1, stack.d_int * batch) * F * r)
    return 3 * act + blocks + cached


def prepare(stack: Stack, xp: Any = None, dtype: str = "float64", *, fft: str = "auto",
            workers: int | None = None, cache_bytes: int | None = None,
            budget: Any = None) -> Prepared:
    """Compute every layer's filter spectrum once, on namespace ``xp``.

    The spectra of the layers with long filters are cached when their total
    fits ``cache_bytes`` (default: the larger of :data:`CACHE_BYTES` and a
    quarter of the memory budget), all or none: a stack whose spectra do not
    all fit recomputes each one block by block as it runs.  Filters of at most
    :data:`DIRECT_TAPS` taps are applied directly and hold no spectrum.
    ``fft`` (numpy only) picks the CPU FFT library (``auto``: the fastest
    installed, measured); ``workers`` the CPU threads; ``budget`` the memory
    budget the cache must fit in (see :mod:`symconv.budget`).

    >>> from symconv.constructions.shifts import shift_down
    >>> p = prepare(shift_down(8, 2), fft="numpy")
    >>> p.layers[0].fft_len, p.dtype
    (10, 'float64')
    """
    from .budget import current_budget, require

    xp = _namespace(xp)
    real, cplx = _dtypes(xp, dtype)
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise HypothesisError(f"workers: must be a positive integer, got {workers!r}")
    itemsize = 16 if dtype == "float64" else 8
    cpu = CpuFFT(fft) if xp is np else None
    workers = workers or default_workers()
    limit = current_budget(budget)
    if cache_bytes is None:
        cache_bytes = max(CACHE_BYTES, limit // 4)
    need = sum(_spectrum_bytes(l, stack.N_int, stack.d_int, itemsize) for l in stack.layers
               if not _is_direct(l, cpu is not None))
    keep = 0 < need <= cache_bytes
    params = sum(int(getattr(l, k).size) for l in stack.layers for k in ("W", "h", "b1", "b2")) * (itemsize // 2)
    require(params + (need if keep else 0),
            f"stack: parameters{' and cached spectra' if keep else ''} of {stack.L} layers at "
            f"N' = {stack.N_int}, d' = {stack.d_int}, {dtype}", budget)
    layers = []
    for i, l in enumerate(stack.layers):
        layers.append(prepare_layer(l, stack.N_int, xp, real, f"layers[{i}]", cplx, spectrum=keep,
                                    cpu=cpu, workers=workers))
    return Prepared(stack, tuple(layers), xp, real, cplx, dtype, cpu, workers)


# --------------------------------------------------------------------------- running


def _spectrum(p: PreparedLayer, xp: Any, cplx: Any, c0: int | None = None, c1: int | None = None) -> Any:
    if p.spectrum is not None:
        spec = p.spectrum if c0 is None else p.spectrum[c0:c1]
        return spec * p.fft_len if p.folded else spec  # a CPU-prepared spectrum carries the inverse's 1/F
    hT = p.hT if c0 is None else p.hT[c0:c1]
    return _astype(xp, xp.fft.rfft(hT, n=p.fft_len, axis=-1), cplx)


def _rows(b: Any, c0: int, c1: int) -> Any:
    """Rows c0:c1 of a channel-major bias (rows broadcast when there is one)."""
    return b if b.shape[0] == 1 else b[c0:c1]


def apply_prepared_layer(p: PreparedLayer, z: Any, xp: Any, cplx: Any = None) -> Any:
    """One layer on a channel-major state z of shape (B, d', N'), on the namespace path.

    Uses only array-API operations, so it runs unchanged on CuPy.
    """
    N_int = z.shape[-1]
    spec = xp.fft.rfft(z, n=p.fft_len, axis=-1)
    spec *= _spectrum(p, xp, cplx if cplx is not None else spec.dtype)
    conv = xp.fft.irfft(spec, n=p.fft_len, axis=-1)
    if p.fft_len != N_int:
        conv = conv[..., :N_int]
    if p.b2 is not None:
        conv = conv + p.b2
    if p.W is not None:
        gate = xp.matmul(p.W, z) + p.b1
    elif p.W_diag is not None:
        gate = z * p.W_diag + p.b1
    else:
        gate = p.b1
    return conv * gate


def _blocks(B: int, d: int, F: int, itemsize: int, workers: int) -> list[tuple[int, int]]:
    """Channel blocks of about BLOCK_BYTES each (≥ BLOCK_ROWS rows), at least one per worker."""
    per = max(1, BLOCK_BYTES // max(1, F * itemsize), BLOCK_ROWS)
    per = min(per, max(1, -(-d // workers)))
    return [(c0, min(d, c0 + per)) for c0 in range(0, d, per)]


def _gate_rows(p: PreparedLayer, z: np.ndarray, out: np.ndarray) -> None:
    """out = z·W + b1 on a (B, N', d') state (W stored transposed: its transpose is a view)."""
    b1 = p.b1.T  # (N' or 1, d' or 1)
    if p.W is not None:
        np.matmul(z, p.W.T, out=out)
        out += b1
    elif p.W_diag is not None:
        np.multiply(z, p.W_diag.T, out=out)
        out += b1
    else:
        out[...] = b1


#: Multiply-adds per GEMM call of the dense gate: calls this small stay in cache and run on the calling
#: thread (OpenBLAS threads only larger ones; its threads and ours contend on a loaded machine).
GATE_CALL = 1 << 18


def _gate_rows_per_call(d: int) -> int:
    """Rows of z per GEMM call of the dense gate (16 to 1024)."""
    return max(16, min(1024, GATE_CALL // max(1, d * d)))


def _dense_gate(p: PreparedLayer, z: np.ndarray, out: np.ndarray, r0: int, r1: int, g: np.ndarray) -> None:
    """out[:, r0:r1] ⊙= z[:, r0:r1]·W + b1, ``len(g)`` rows per GEMM (``g`` a scratch (rows, d') buffer)."""
    B, N, d = z.shape
    WT = p.W.T  # W itself (p.W is stored transposed)
    b1 = p.b1.T  # (N' or 1, d' or 1)
    step = g.shape[0]
    for b in range(B):
        for i0 in range(r0, r1, step):
            i1 = min(r1, i0 + step)
            gi = g[: i1 - i0]
            np.matmul(z[b, i0:i1], WT, out=gi)
            gi += b1[i0:i1] if b1.shape[0] > 1 else b1
            o = out[b, i0:i1]
            o *= gi


def _direct_rows(p: PreparedLayer, z: np.ndarray, out: np.ndarray, r0: int, r1: int, acc: np.ndarray,
                 prod: np.ndarray) -> None:
    """out[:, r0:r1] *= (h * z + b2)[:, r0:r1] with the K taps applied directly (circular folds).

    ``acc`` and ``prod`` are scratch buffers of at least r1 − r0 rows (no other allocation).
    """
    N = z.shape[1]
    h = p.hT.T  # (K, d')
    n = r1 - r0
    acc = acc[:, :n]
    if p.b2 is None:
        acc[...] = 0
    else:
        acc[...] = p.b2.T[r0:r1] if p.b2.shape[1] > 1 else p.b2.T
    for k in range(h.shape[0]):
        hk = h[k]
        if not np.any(hk):
            continue
        lo = max(r0, k)  # rows i with i - k >= 0
        if lo < r1:
            m = r1 - lo
            np.multiply(z[:, lo - k:r1 - k], hk, out=prod[:, :m])
            acc[:, lo - r0:] += prod[:, :m]
        if p.conv == "circular" and r0 < k:  # rows i < k read row i - k + N
            hi = min(r1, k)
            m = hi - r0
            np.multiply(z[:, r0 - k + N:hi - k + N], hk, out=prod[:, :m])
            acc[:, :m] += prod[:, :m]
    out[:, r0:r1] *= acc


class _Runner:
    """Applies layers of a prepared stack; on the CPU path with a thread pool and reused buffers."""

    def __init__(self, prep: Prepared) -> None:
        self.prep = prep
        self.pool = None
        self._plans: dict = {}
        if prep.fft is not None and prep.workers > 1:
            self.pool = ThreadPoolExecutor(prep.workers)

    def __enter__(self) -> "_Runner":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def _map(self, fn: Any, items: list) -> None:
        if self.pool is None or len(items) == 1:
            for it in items:
                fn(*it)
        else:
            for f in [self.pool.submit(fn, *it) for it in items]:
                f.result()

    def _plan(self, rows: int, F: int) -> _Plan:
        key = (threading.get_ident(), rows, F)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self.prep.fft.plan(rows, F, self.prep.real)
        return plan

    def layer(self, p: PreparedLayer, z: Any) -> Any:
        """One layer on a channel-major state (B, d', N') (the namespace layout)."""
        if self.prep.fft is not None:
            zr = np.ascontiguousarray(np.transpose(z, (0, 2, 1)))
            return np.ascontiguousarray(np.transpose(self.rows(p, zr), (0, 2, 1)))
        return apply_prepared_layer(p, z, self.prep.xp, self.prep.complex)

    def buffer(self, name: str, shape: tuple, dtype: Any) -> np.ndarray:
        """A scratch array of this thread, reused across calls and layers."""
        key = (threading.get_ident(), name, shape, np.dtype(dtype).str)
        buf = self._plans.get(key)
        if buf is None:
            buf = self._plans[key] = np.empty(shape, dtype=dtype)
        return buf

    def rows(self, p: PreparedLayer, z: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """One layer on a (B, N', d') state on the CPU path, into ``out`` (a new array if None)."""
        B, N, d = z.shape
        out = np.empty_like(z) if out is None else out
        if p.direct:
            _gate_rows(p, z, out)
            chunk = min(N, max(64, BLOCK_BYTES // (16 * max(1, B * d * z.dtype.itemsize))))
            spans = [(r0, min(N, r0 + chunk)) for r0 in range(0, N, chunk)]

            def run_span(r0: int, r1: int) -> None:
                acc = self.buffer("acc", (B, chunk, d), z.dtype)
                prod = self.buffer("prod", (B, chunk, d), z.dtype)
                _direct_rows(p, z, out, r0, r1, acc, prod)
            self._map(run_span, spans)
            return out
        F = p.fft_len
        width = CHANNEL_BLOCK
        blocks = [(c0, min(d, c0 + width)) for c0 in range(0, d, width)]
        b1, b2 = p.b1, p.b2  # (d' or 1, N' or 1); b2 may be None
        cplx = self.prep.complex
        dense = p.W is not None

        def small_block(c0: int, c1: int) -> None:
            """A tile of channels transformed together (one multi-row plan): few calls when F is small."""
            rows = c1 - c0
            plan = self._plan(rows, F)
            inp = plan.inp  # (rows, F); the tail past N stays zero
            if p.spectrum is not None:
                H = p.spectrum[c0:c1]
            else:
                H = self.buffer("H", (rows, F // 2 + 1), cplx)
                K = p.hT.shape[1]
                inp[:, :K] = p.hT[c0:c1]
                inp[:, K:N] = 0
                if p.folded:
                    np.multiply(plan.forward(), 1.0 / F, out=H)
                else:
                    H[...] = plan.forward()
            g = self.buffer("g", (rows, N), z.dtype) if p.W_diag is not None else None
            bb1 = _rows(b1, c0, c1)
            bb2 = None if b2 is None else _rows(b2, c0, c1)
            piece = max(TRANSPOSE_ROWS, (1 << 17) // rows)  # rows of z per transposed piece (≤ 1 MiB)
            for b in range(B):
                for i0 in range(0, N, piece):
                    i1 = min(N, i0 + piece)
                    inp[:, i0:i1] = z[b, i0:i1, c0:c1].T
                if g is not None:
                    np.multiply(inp[:, :N], p.W_diag[c0:c1], out=g)
                    g += bb1
                spec = plan.forward()
                spec *= H
                conv = plan.backward(spec, scaled=not p.folded)[:, :N]
                if bb2 is not None:
                    conv += bb2
                if g is not None:
                    conv *= g
                elif not dense:
                    conv *= bb1
                for i0 in range(0, N, piece):
                    i1 = min(N, i0 + piece)
                    out[b, i0:i1, c0:c1] = conv[:, i0:i1].T

        def block(c0: int, c1: int) -> None:
            rows = c1 - c0
            plan = self._plan(1, F)
            tile = self.buffer("tile", (rows, N), z.dtype)
            grow = self.buffer("grow", (N,), z.dtype) if p.W_diag is not None else None
            if p.spectrum is not None:
                H = p.spectrum[c0:c1]
            else:  # not cached: the filter's spectrum for this block, in the run's precision
                H = self.buffer("H", (rows, F // 2 + 1), cplx)
                K = p.hT.shape[1]
                for r in range(rows):
                    plan.inp[0, :K] = p.hT[c0 + r]
                    plan.inp[0, K:N] = 0
                    if p.folded:
                        np.multiply(plan.forward()[0], 1.0 / F, out=H[r])
                    else:
                        H[r] = plan.forward()[0]
            for b in range(B):
                for i0 in range(0, N, TRANSPOSE_ROWS):  # transposed in cache-sized pieces
                    i1 = min(N, i0 + TRANSPOSE_ROWS)
                    tile[:, i0:i1] = z[b, i0:i1, c0:c1].T
                for r in range(rows):
                    c = c0 + r
                    row = tile[r]
                    plan.inp[0, :N] = row
                    if grow is not None:  # diagonal gate z_c·W_cc + b1_c, from the input row
                        np.multiply(row, p.W_diag[c, 0], out=grow)
                        grow += b1[c if b1.shape[0] > 1 else 0]
                    spec = plan.forward()
                    spec *= H[r]
                    conv = plan.backward(spec, scaled=not p.folded)[0, :N]
                    if b2 is not None:
                        np.add(conv, b2[c if b2.shape[0] > 1 else 0], out=row)
                    else:
                        row[...] = conv
                    if grow is not None:
                        row *= grow
                    elif not dense:  # W = 0: the gate is b1
                        row *= b1[c if b1.shape[0] > 1 else 0]
                for i0 in range(0, N, TRANSPOSE_ROWS):  # back into the (B, N', d') layout
                    i1 = min(N, i0 + TRANSPOSE_ROWS)
                    out[b, i0:i1, c0:c1] = tile[:, i0:i1].T
        small = CHANNEL_BLOCK * F * z.dtype.itemsize <= SMALL_TILE_BYTES
        if small:  # as many channels per multi-row plan as fit SMALL_TILE_BYTES (one call per step, not per row)
            wide = max(CHANNEL_BLOCK, min(d, SMALL_TILE_BYTES // (F * z.dtype.itemsize)))
            blocks = [(c0, min(d, c0 + wide)) for c0 in range(0, d, wide)]
        self._map(small_block if small else block, blocks)
        if dense:  # out ⊙= z·W + b1, in row chunks small enough to stay in cache
            step = _gate_rows_per_call(d)
            self._map(lambda r0, r1: _dense_gate(p, z, out, r0, r1, self.buffer("g", (step, d), z.dtype)),
                      [(r0, min(N, r0 + 64 * step)) for r0 in range(0, N, 64 * step)])
        return out


def _batched(stack: Stack, u: Any) -> tuple[Any, bool]:
    """(u as (B, N, d), whether it came as (N, d)); a HypothesisError naming ``u`` for any other shape."""
    squeeze = u.ndim == 2
    if squeeze:
        u = u[None]
    if u.ndim != 3 or tuple(u.shape[1:]) != (stack.N, stack.d):
        raise HypothesisError(
            f"u: expected shape (B, N, d) or (N, d) with N×d = {(stack.N, stack.d)}, "
            f"got {tuple(u.shape) if not squeeze else tuple(u.shape[1:])}"
        )
    return u, squeeze


def to_internal(stack: Stack, u: Any, xp: Any, real: Any) -> tuple[Any, bool]:
    """(B, N, d) or (N, d) input → zero-padded channel-major state (B, d', N')."""
    u, squeeze = _batched(stack, xp.asarray(u, dtype=real))
    B = u.shape[0]
    z = xp.zeros((B, stack.d_int, stack.N_int), dtype=real)
    z[:, : stack.d, : stack.N] = _permute(xp, u, (0, 2, 1))
    return z, squeeze


def from_internal(stack: Stack, z: Any, squeeze: bool, xp: Any) -> Any:
    """The top-left N×d block of a channel-major state, as (B, N, d) (or (N, d))."""
    out = _permute(xp, z[:, : stack.d, : stack.N], (0, 2, 1))
    if xp is np:
        out = np.ascontiguousarray(out)
    return out[0] if squeeze else out


def _input_rows(stack: Stack, u: Any, real: Any) -> tuple[np.ndarray, bool]:
    """(B, N, d) or (N, d) input → the (B, N', d') state of the CPU path (a copy, zero-padded)."""
    a, squeeze = _batched(stack, np.asarray(u))
    if (stack.N_int, stack.d_int) == (stack.N, stack.d):
        return np.array(a, dtype=real, order="C", copy=True), squeeze
    z = np.zeros((a.shape[0], stack.N_int, stack.d_int), dtype=real)
    z[:, : stack.N, : stack.d] = a
    return z, squeeze


def _output_rows(stack: Stack, z: np.ndarray, squeeze: bool) -> np.ndarray:
    out = z if (stack.N_int, stack.d_int) == (stack.N, stack.d) else np.ascontiguousarray(
        z[:, : stack.N, : stack.d])
    return out[0] if squeeze else out


def _prepared(stack: Stack | Prepared, xp: Any, dtype: str, budget: Any = None) -> Prepared:
    if isinstance(stack, Prepared):
        return stack
    if not isinstance(stack, Stack):
        raise HypothesisError(f"stack: expected a Stack or Prepared, got {type(stack).__name__}")
    # one run uses each spectrum once (for the whole batch): caching them would only cost memory
    return prepare(stack, xp, dtype, budget=budget, cache_bytes=0)


def _require_run(prep: Prepared, u: Any, budget: Any) -> None:
    from .budget import require

    shape = getattr(u, "shape", None)
    if shape is None:
        shape = np.shape(u)
    B = int(shape[0]) if len(shape) == 3 else 1
    st = prep.stack
    need = estimate_run_bytes(st, B, prep.dtype, 0, prep.workers)
    require(need, f"u: run at B = {B}, N' = {st.N_int}, d' = {st.d_int}, {prep.dtype}", budget)


def _run_rows(prep: Prepared, u: Any, progress: Any = None, bound: bool = False) -> tuple[np.ndarray, float]:
    """The CPU path: (B, N', d') states in two reused buffers, no transposes."""
    z, squeeze = _input_rows(prep.stack, u, prep.real)
    E = EPS[prep.dtype] * float(np.max(np.abs(z))) if (bound and prep.dtype != "float64" and z.size) else 0.0
    spare = None
    with _Runner(prep) as r:
        for i, p in enumerate(prep.layers, start=1):
            if bound:
                with warnings.catch_warnings():  # a bound may overflow: it is then inf
                    warnings.simplefilter("ignore", RuntimeWarning)
                    E = _layer_bound(p, z, E, np, prep.dtype, prep.real, axis=1)
                if not math.isfinite(E):
                    E = math.inf
            new = r.rows(p, z, spare)
            spare, z = z, new
            if progress is not None:
                progress(i, len(prep.layers))
    return _output_rows(prep.stack, z, squeeze), E


def run(stack: Stack | Prepared, u: Any, xp: Any = None, dtype: str = "float64", *,
        budget: Any = None) -> Any:
    """Run a stack on a numeric input of shape (B, N, d) or (N, d); same shape out.

    ``stack`` may be a :class:`Prepared` stack, to reuse its spectra;
    ``budget`` is the memory budget (see :mod:`symconv.budget`), checked
    before anything is allocated.

    >>> from symconv.constructions.sums import add_n
    >>> run(add_n(1, 3), np.array([[2.0], [5.0], [0.0]]))[:, 0].round(9).tolist()
    [1.0, 7.0, 0.0]
    """
    prep = _prepared(stack, xp, dtype, budget)
    _require_run(prep, u, budget)
    xp = prep.xp
    if prep.fft is not None:
        return _run_rows(prep, u)[0]
    z, squeeze = to_internal(prep.stack, u, xp, prep.real)
    with _Runner(prep) as r:
        for p in prep.layers:
            z = r.layer(p, z)
    return from_internal(prep.stack, z, squeeze, xp)


# --------------------------------------------------------------------------- error bound


def error_bound_doc() -> str:
    """How :func:`run_bounded` bounds the rounding error (printed by ``crosscheck``).

    >>> "log2" in error_bound_doc()
    True
    """
    return (
        "Bound (per layer, per channel j, max over the batch; ε the unit roundoff of the run's dtype,\n"
        "ε64 = 2^-53, F the FFT length, η = 7·ε·log2 F, η64 = 7·ε64·log2 F, after Higham Thm 24.2):\n"
        "  FFT convolution of x with h (filter spectrum computed in float64 and rounded, or in the run's\n"
        "  precision on the CPU path; one ε of the 4ε for the spectrum scaled by 1/F there):\n"
        "    |conv error| ≤ (2η + 4ε)·‖x‖₂‖h‖₁ + (η64 + ε)·‖x‖₁‖h‖₂   (‖X·e‖₂ ≤ ‖X‖∞‖e‖₂, ‖X‖∞ ≤ ‖x‖₁,\n"
        "    ‖H‖∞ ≤ ‖h‖₁, Parseval), plus E·‖h‖₁ for an input already off by E (Young);\n"
        "  gate u·W + b1: E·Σ_i|W_ij| + γ_{d'+1}·(‖x‖∞·Σ_i|W_ij| + ‖b1‖∞);\n"
        "  product: |Δ(g·c)| ≤ |g|·Δc + |c|·Δg + Δg·Δc + ε·|g||c|, with |c| ≤ ‖x‖∞‖h‖₁ + ‖b2‖∞;\n"
        "  the norms are those of the computed states, widened by the running bound E.\n"
        "Input rounding to the run's dtype contributes ε·‖u‖∞; the float64 reference is allowed\n"
        "4·ε64·N'·max|reference| for its own rounding (sums of up to N' terms)."
    )


def _state_norms(z: Any, xp: Any, axis: int = -1) -> tuple[Any, Any, Any]:
    """Per-channel max over the batch of ‖·‖₁, ‖·‖₂, ‖·‖∞ of a state (in float64).

    ``axis`` is the sequence axis: -1 for the channel-major (B, d', N'), 1 for (B, N', d')."""
    f64 = np.float64 if xp is np else getattr(xp, "float64")
    a = xp.abs(z)
    s1 = xp.max(xp.sum(a, axis=axis, dtype=f64), axis=0)
    s2 = xp.sqrt(xp.max(xp.sum(a * a, axis=axis, dtype=f64), axis=0))
    si = _astype(xp, xp.max(xp.max(a, axis=axis), axis=0), f64)
    return s1, s2, si


def _layer_bound(p: PreparedLayer, z: Any, E: float, xp: Any, dtype: str, real: Any, axis: int = -1) -> float:
    """The bound after one layer, from the state before it (see :func:`error_bound_doc`).

    A filter applied directly (at most DIRECT_TAPS taps) has error at most
    γ_K·‖x‖∞‖h‖₁ ≤ 2η·‖x‖₂‖h‖₁, so the FFT convolution term covers it.
    """
    eps, e64 = EPS[dtype], EPS["float64"]
    N = z.shape[axis]
    d = z.shape[2 if axis == 1 else 1]
    lg = math.log2(max(2, p.fft_len))
    eta = FFT_C * eps * lg
    # the filter's spectrum: computed in the run's precision on the CPU path, in float64 elsewhere
    eta_h = eta if (xp is np and dtype != "float64") else FFT_C * e64 * lg
    gam = (d + 1) * eps / (1 - (d + 1) * eps)
    s1, s2, si = _state_norms(z, xp, axis)
    s1, s2, si = s1 + N * E, s2 + math.sqrt(N) * E, si + E
    f64 = np.float64 if xp is np else getattr(xp, "float64")
    nm = {k: xp.asarray(v, dtype=f64) for k, v in p.norms.items()}
    h1, h2 = nm["h1"], nm["h2"]
    Mc = si * h1 + nm["b2"]
    Ec = E * h1 + (2 * eta + 4 * eps) * s2 * h1 + (eta_h + eps) * s1 * h2 + eps * Mc
    x_inf = xp.max(si)
    Mg = x_inf * nm["Wcol1"] + nm["b1"]
    Eg = E * nm["Wcol1"] + gam * Mg
    out = Mg * Ec + Mc * Eg + Eg * Ec + eps * Mg * Mc
    return float(xp.max(out))


def run_bounded(stack: Stack | Prepared, u: Any, xp: Any = None, dtype: str = "float64",
                progress: Any = None, *, budget: Any = None) -> tuple[Any, float]:
    """:func:`run`, and an a-priori bound on max |computed − exact| over the output.

    The bound follows the formula of :func:`error_bound_doc`, evaluated with
    the norms of the states as they are computed.  ``progress(i, L)``, when
    given, is called after each layer; ``budget`` as in :func:`run`.

    >>> from symconv.constructions.shifts import shift_down
    >>> out, bound = run_bounded(shift_down(8, 1), np.ones((8, 1)))
    >>> out[1:, 0].round(12).tolist() == [1.0] * 7, 0 < bound < 1e-12
    (True, True)
    """
    prep = _prepared(stack, xp, dtype, budget)
    _require_run(prep, u, budget)
    xp = prep.xp
    if prep.fft is not None:
        return _run_rows(prep, u, progress, bound=True)
    z, squeeze = to_internal(prep.stack, u, xp, prep.real)
    E = EPS[prep.dtype] * float(xp.max(xp.abs(z))) if prep.dtype != "float64" else 0.0
    with _Runner(prep) as r:
        for i, p in enumerate(prep.layers, start=1):
            with warnings.catch_warnings():  # a bound may overflow: it is then inf
                warnings.simplefilter("ignore", RuntimeWarning)
                E = _layer_bound(p, z, E, xp, prep.dtype, prep.real)
            if not math.isfinite(E):
                E = math.inf
            z = r.layer(p, z)
            if progress is not None:
                progress(i, len(prep.layers))
    return from_internal(prep.stack, z, squeeze, xp), E
