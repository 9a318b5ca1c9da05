"""FFT interpreter over an array namespace (numpy by default, CuPy on a GPU).

The same :class:`~symconv.model.Stack` the symbolic interpreter reads is run
here in floating point.  The state is kept channel-major, shape (B, d', N'),
so every FFT runs over the contiguous last axis.  Causal convolutions use real
FFTs zero-padded to a fast length ≥ N' + K − 1 (K the filter length, so no
wrap-around reaches the kept coefficients); circular ones use length N'.
Filter spectra are computed once per stack by :func:`prepare` (in float64,
then rounded to the run's precision), up to a memory budget beyond which
they are recomputed per run, block by block, so a deep stack never holds
more than a few activations.

Two code paths share the layer algebra:

* the **namespace path** (any ``xp`` other than numpy itself: CuPy, or a
  wrapper in tests) uses only array-API operations: ``xp.asarray``,
  ``xp.zeros``, ``xp.fft.rfft``/``irfft``, ``xp.matmul``, arithmetic
  operators, slicing, reductions.  No numpy call is made on it.
* the **CPU path** (``xp`` is numpy) runs the same algebra over blocks of
  channels in a thread pool, with in-place updates, and uses ``scipy.fft``
  when it is installed (faster than ``numpy.fft`` here; see
  :mod:`symconv.bench.numeric`), else ``numpy.fft``.

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
#: Least number of rows (batch × channels) in one block of the CPU path.
BLOCK_ROWS = 1


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


class CpuFFT:
    """Real FFTs on numpy arrays from ``numpy.fft``, ``scipy.fft`` or ``pyfftw``.

    ``library="auto"`` picks scipy.fft when importable (measured faster than
    numpy.fft here, and it takes ``workers``), else numpy.fft.

    >>> f = CpuFFT("numpy")
    >>> f.irfft(f.rfft(np.ones((1, 3)), 4), 4).round(6).tolist()
    [[1.0, 1.0, 1.0, 0.0]]
    """

    def __init__(self, library: str = "auto") -> None:
        if library == "auto":
            try:
                import scipy.fft  # noqa: F401

                library = "scipy"
            except ImportError:
                library = "numpy"
        if library == "numpy":
            self._mod, self._workers_kw = np.fft, False
        elif library == "scipy":
            try:
                import scipy.fft as mod
            except ImportError as exc:
                raise HypothesisError("fft: scipy is not installed (pip install scipy)") from exc
            self._mod, self._workers_kw = mod, True
        elif library == "pyfftw":
            try:
                import pyfftw.interfaces.cache as cache
                import pyfftw.interfaces.scipy_fft as mod
            except ImportError as exc:
                raise HypothesisError("fft: pyfftw is not installed (pip install pyfftw)") from exc
            cache.enable()
            self._mod, self._workers_kw = mod, True
        else:
            raise HypothesisError(f"fft: unknown library {library!r}; expected auto, numpy, scipy or pyfftw")
        self.library = library

    def rfft(self, x: Any, n: int, workers: int = 1) -> Any:
        if self._workers_kw:
            return self._mod.rfft(x, n=n, axis=-1, workers=workers)
        return self._mod.rfft(x, n=n, axis=-1)

    def irfft(self, x: Any, n: int, workers: int = 1) -> Any:
        if self._workers_kw:
            return self._mod.irfft(x, n=n, axis=-1, workers=workers, overwrite_x=True)
        return self._mod.irfft(x, n=n, axis=-1)


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


@dataclass(frozen=True, eq=False)
class PreparedLayer:
    """A layer's arrays on the target namespace, channel-major.

    ``spectrum`` is None when it was not cached (over the memory budget); it
    is then recomputed from ``hT`` when the layer runs.  ``norms`` holds
    per-channel host-side norms for the error bound.
    """

    W: Any  # (d', d') transposed for matmul, or None when W = 0 or diagonal
    W_diag: Any  # (d', 1) when W is diagonal (and nonzero), else None
    b1: Any  # (d' or 1, N' or 1)
    b2: Any  # (d' or 1, N' or 1), or None when zero
    spectrum: Any  # (d', F//2+1) or None
    hT: Any  # (d', K) filter, channel-major, float64 on the namespace
    fft_len: int
    conv: str
    norms: dict


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
    return a.astype(np.float64)


def _fft_len(layer: Layer, N_int: int) -> int:
    return fast_length(N_int + layer.h.shape[0] - 1) if layer.conv == "causal" else N_int


def _channel_vec(a: np.ndarray, d: int) -> np.ndarray:
    """Per-channel max |entry| of a broadcastable (rows, d or 1) array, as (d,)."""
    m = np.max(np.abs(a), axis=0) if a.size else np.zeros(a.shape[1])
    return np.broadcast_to(m, (d,)).astype(np.float64)


def prepare_layer(layer: Layer, N_int: int, xp: Any, real: Any, where: str,
                  cplx: Any = None, spectrum: bool = True, cpu: "CpuFFT | None" = None,
                  workers: int = 1) -> PreparedLayer:
    """One layer's parameters on ``xp`` (spectrum computed in float64 unless ``spectrum=False``)."""
    xp = _namespace(xp)
    W = _numeric(layer.W, f"{where}.W")
    h = _numeric(layer.h, f"{where}.h")
    b1 = _numeric(layer.b1, f"{where}.b1")
    b2 = _numeric(layer.b2, f"{where}.b2")
    d = W.shape[0]
    F = _fft_len(layer, N_int)
    f64 = np.float64 if xp is np else getattr(xp, "float64")
    hT = xp.asarray(np.ascontiguousarray(h.T), dtype=f64)
    spec = None
    if spectrum:
        spec = cpu.rfft(hT, F, workers) if cpu is not None else xp.fft.rfft(hT, n=F, axis=-1)
        if cplx is not None:
            spec = _astype(xp, spec, cplx)
    off_diag = W - np.diag(np.diag(W))
    W_full = W_diag = None
    if np.any(off_diag):
        W_full = xp.asarray(np.ascontiguousarray(W.T), dtype=real)
    elif np.any(W):
        W_diag = xp.asarray(np.diag(W).reshape(-1, 1), dtype=real)
    norms = {
        "h1": np.sum(np.abs(h), axis=0),
        "h2": np.sqrt(np.sum(h * h, axis=0)),
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
    )


def prepare(stack: Stack, xp: Any = None, dtype: str = "float64", *, fft: str = "auto",
            workers: int | None = None, cache_bytes: int = CACHE_BYTES) -> Prepared:
    """Compute every layer's filter spectrum once, on namespace ``xp``.

    Spectra are computed in float64 and rounded to ``dtype``.  They are cached
    while their total size stays within ``cache_bytes``; layers past the budget
    recompute theirs block by block when they run.  ``fft`` (numpy namespace
    only) picks the CPU FFT library; ``workers`` the CPU threads.

    >>> from symconv.constructions.shifts import shift_down
    >>> p = prepare(shift_down(8, 2), fft="numpy")
    >>> p.layers[0].fft_len, p.dtype
    (10, 'float64')
    """
    xp = _namespace(xp)
    real, cplx = _dtypes(xp, dtype)
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise HypothesisError(f"workers: must be a positive integer, got {workers!r}")
    itemsize = 16 if dtype == "float64" else 8
    budget = cache_bytes
    cpu = CpuFFT(fft) if xp is np else None
    workers = workers or default_workers()
    layers = []
    for i, l in enumerate(stack.layers):
        F = _fft_len(l, stack.N_int)
        size = stack.d_int * (F // 2 + 1) * itemsize
        keep = size <= budget
        if keep:
            budget -= size
        layers.append(prepare_layer(l, stack.N_int, xp, real, f"layers[{i}]", cplx, spectrum=keep,
                                    cpu=cpu, workers=workers))
    return Prepared(stack, tuple(layers), xp, real, cplx, dtype, cpu, workers)


# --------------------------------------------------------------------------- running


def _spectrum(p: PreparedLayer, xp: Any, cplx: Any, c0: int | None = None, c1: int | None = None) -> Any:
    if p.spectrum is not None:
        return p.spectrum if c0 is None else p.spectrum[c0:c1]
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
    """Channel blocks of about BLOCK_BYTES each (≥ BLOCK_ROWS rows), at least one per worker.

    Blocks at or below glibc's largest mmap threshold (32 MiB) are recycled
    from the heap instead of being mapped and zero-filled afresh: measured
    here, one 2^21-point row per block runs faster than 8 rows per block and
    than one call over all rows."""
    per = max(1, BLOCK_BYTES // max(1, B * F * itemsize), -(-BLOCK_ROWS // B))
    per = min(per, max(1, -(-d // workers)))
    return [(c0, min(d, c0 + per)) for c0 in range(0, d, per)]


def _apply_cpu(prep: Prepared, p: PreparedLayer, z: np.ndarray, pool: ThreadPoolExecutor | None) -> np.ndarray:
    """One layer on the CPU path: blocks of channels, in place, in a thread pool."""
    B, d, N = z.shape
    out = np.empty_like(z)
    fft, F = prep.fft, p.fft_len
    blocks = _blocks(B, d, F, z.dtype.itemsize, prep.workers)
    fft_workers = 1 if pool is not None else prep.workers

    if p.W is not None:  # one GEMM over all channels: a block of rows would re-read all of z
        np.matmul(p.W, z, out=out)

    def block(c0: int, c1: int) -> None:
        o = out[:, c0:c1]
        if p.W is not None:
            o += _rows(p.b1, c0, c1)
        elif p.W_diag is not None:
            np.multiply(z[:, c0:c1], p.W_diag[c0:c1], out=o)
            o += _rows(p.b1, c0, c1)
        else:
            o[...] = _rows(p.b1, c0, c1)
        spec = fft.rfft(z[:, c0:c1], F, fft_workers)
        if p.spectrum is not None:
            spec *= p.spectrum[c0:c1]
        else:
            spec *= fft.rfft(p.hT[c0:c1], F, fft_workers).astype(prep.complex, copy=False)
        conv = fft.irfft(spec, F, fft_workers)
        del spec
        cv = conv[..., :N]
        if p.b2 is not None:
            cv += _rows(p.b2, c0, c1)
        o *= cv

    if pool is None or len(blocks) == 1:
        for c0, c1 in blocks:
            block(c0, c1)
    else:
        for f in [pool.submit(block, c0, c1) for c0, c1 in blocks]:
            f.result()
    return out


def to_internal(stack: Stack, u: Any, xp: Any, real: Any) -> tuple[Any, bool]:
    """(B, N, d) or (N, d) input → zero-padded channel-major state (B, d', N')."""
    u = xp.asarray(u, dtype=real)
    squeeze = u.ndim == 2
    if squeeze:
        u = u[None]
    if u.ndim != 3 or tuple(u.shape[1:]) != (stack.N, stack.d):
        raise HypothesisError(
            f"u: expected shape (B, N, d) or (N, d) with N×d = {(stack.N, stack.d)}, "
            f"got {tuple(u.shape) if not squeeze else tuple(u.shape[1:])}"
        )
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


class _Runner:
    """Applies layers of a prepared stack, with a thread pool on the CPU path."""

    def __init__(self, prep: Prepared) -> None:
        self.prep = prep
        self.pool = None
        if prep.fft is not None and prep.workers > 1:
            self.pool = ThreadPoolExecutor(prep.workers)

    def __enter__(self) -> "_Runner":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def layer(self, p: PreparedLayer, z: Any) -> Any:
        if self.prep.fft is not None:
            return _apply_cpu(self.prep, p, z, self.pool)
        return apply_prepared_layer(p, z, self.prep.xp, self.prep.complex)


def _prepared(stack: Stack | Prepared, xp: Any, dtype: str) -> Prepared:
    if isinstance(stack, Prepared):
        return stack
    if not isinstance(stack, Stack):
        raise HypothesisError(f"stack: expected a Stack or Prepared, got {type(stack).__name__}")
    return prepare(stack, xp, dtype)


def run(stack: Stack | Prepared, u: Any, xp: Any = None, dtype: str = "float64") -> Any:
    """Run a stack on a numeric input of shape (B, N, d) or (N, d); same shape out.

    ``stack`` may be a :class:`Prepared` stack, to reuse its spectra.

    >>> from symconv.constructions.sums import add_n
    >>> run(add_n(1, 3), np.array([[2.0], [5.0], [0.0]]))[:, 0].round(9).tolist()
    [1.0, 7.0, 0.0]
    """
    prep = _prepared(stack, xp, dtype)
    xp = prep.xp
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
        "  FFT convolution of x with h (filter spectrum computed in float64, then rounded):\n"
        "    |conv error| ≤ (2η + 3ε)·‖x‖₂‖h‖₁ + (η64 + ε)·‖x‖₁‖h‖₂   (‖X·e‖₂ ≤ ‖X‖∞‖e‖₂, ‖X‖∞ ≤ ‖x‖₁,\n"
        "    ‖H‖∞ ≤ ‖h‖₁, Parseval), plus E·‖h‖₁ for an input already off by E (Young);\n"
        "  gate u·W + b1: E·Σ_i|W_ij| + γ_{d'+1}·(‖x‖∞·Σ_i|W_ij| + ‖b1‖∞);\n"
        "  product: |Δ(g·c)| ≤ |g|·Δc + |c|·Δg + Δg·Δc + ε·|g||c|, with |c| ≤ ‖x‖∞‖h‖₁ + ‖b2‖∞;\n"
        "  the norms are those of the computed states, widened by the running bound E.\n"
        "Input rounding to the run's dtype contributes ε·‖u‖∞; the float64 reference is allowed\n"
        "4·ε64·N'·max|reference| for its own rounding (sums of up to N' terms)."
    )


def _state_norms(z: Any, xp: Any) -> tuple[Any, Any, Any]:
    """Per-channel max over the batch of ‖·‖₁, ‖·‖₂, ‖·‖∞ of a (B, d', N') state (in float64)."""
    f64 = np.float64 if xp is np else getattr(xp, "float64")
    a = xp.abs(z)
    s1 = xp.max(xp.sum(a, axis=-1, dtype=f64), axis=0)
    s2 = xp.sqrt(xp.max(xp.sum(a * a, axis=-1, dtype=f64), axis=0))
    si = _astype(xp, xp.max(xp.max(a, axis=-1), axis=0), f64)
    return s1, s2, si


def _layer_bound(p: PreparedLayer, z: Any, E: float, xp: Any, dtype: str, real: Any) -> float:
    eps, e64 = EPS[dtype], EPS["float64"]
    N = z.shape[-1]
    d = z.shape[1]
    lg = math.log2(max(2, p.fft_len))
    eta, eta64 = FFT_C * eps * lg, FFT_C * e64 * lg
    gam = (d + 1) * eps / (1 - (d + 1) * eps)
    s1, s2, si = _state_norms(z, xp)
    s1, s2, si = s1 + N * E, s2 + math.sqrt(N) * E, si + E
    f64 = np.float64 if xp is np else getattr(xp, "float64")
    nm = {k: xp.asarray(v, dtype=f64) for k, v in p.norms.items()}
    h1, h2 = nm["h1"], nm["h2"]
    Mc = si * h1 + nm["b2"]
    Ec = E * h1 + (2 * eta + 3 * eps) * s2 * h1 + (eta64 + eps) * s1 * h2 + eps * Mc
    x_inf = xp.max(si)
    Mg = x_inf * nm["Wcol1"] + nm["b1"]
    Eg = E * nm["Wcol1"] + gam * Mg
    out = Mg * Ec + Mc * Eg + Eg * Ec + eps * Mg * Mc
    return float(xp.max(out))


def run_bounded(stack: Stack | Prepared, u: Any, xp: Any = None, dtype: str = "float64",
                progress: Any = None) -> tuple[Any, float]:
    """:func:`run`, and an a-priori bound on max |computed − exact| over the output.

    The bound follows the formula of :func:`error_bound_doc`, evaluated with
    the norms of the states as they are computed.  ``progress(i, L)``, when
    given, is called after each layer.

    >>> from symconv.constructions.shifts import shift_down
    >>> out, bound = run_bounded(shift_down(8, 1), np.ones((8, 1)))
    >>> out[1:, 0].round(12).tolist() == [1.0] * 7, 0 < bound < 1e-12
    (True, True)
    """
    prep = _prepared(stack, xp, dtype)
    xp = prep.xp
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
