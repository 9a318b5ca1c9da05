"""FFT interpreter over an array namespace (numpy by default, CuPy on a GPU).

The same :class:`~symconv.model.Stack` the symbolic interpreter reads is run
here in floating point.  The state is kept channel-major, shape (B, d', N'),
so every FFT runs over the contiguous last axis.  Causal convolutions use real
FFTs zero-padded to a fast length ≥ N' + K − 1 (K the filter length, so no
wrap-around reaches the kept coefficients); circular ones use length N'.
Filter spectra are computed once per stack by :func:`prepare`.

Example:
    >>> import numpy as np
    >>> from symconv.constructions.shifts import shift_down
    >>> run(shift_down(4, 1, 1), np.arange(4.0).reshape(4, 1))[:, 0].round(12).tolist()
    [0.0, 0.0, 1.0, 2.0]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .model import HypothesisError, Layer, Stack

DTYPES = {"float64": (np.float64, np.complex128), "float32": (np.float32, np.complex64)}


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


def _namespace(xp: Any) -> Any:
    return np if xp is None else xp


@dataclass(frozen=True, eq=False)
class PreparedLayer:
    """A layer's arrays on the target namespace, channel-major."""

    W: Any  # (d', d') transposed for matmul, or None when W = 0
    W_diag: Any  # (d', 1) when W is diagonal, else None
    b1: Any  # (d' or 1, N' or 1)
    b2: Any  # (d' or 1, N' or 1), or None when zero
    spectrum: Any  # (d', F//2+1)
    fft_len: int
    conv: str


@dataclass(frozen=True, eq=False)
class Prepared:
    """A stack ready to run: its layers' spectra and parameters on ``xp``."""

    stack: Stack
    layers: tuple
    xp: Any
    real: Any
    complex: Any


def _numeric(a: np.ndarray, where: str) -> np.ndarray:
    if a.dtype == object:
        for v in a.flat:
            if getattr(v, "free_symbols", None):
                raise HypothesisError(
                    f"{where}: has symbolic entries ({v}); substitute numbers first (Stack.subs)"
                )
        return a.astype(np.float64)
    if a.dtype.kind not in "biuf":
        raise HypothesisError(f"{where}: dtype {a.dtype} is not real")
    return a.astype(np.float64)


def prepare_layer(layer: Layer, N_int: int, xp: Any, real: Any, where: str) -> PreparedLayer:
    W = _numeric(layer.W, f"{where}.W")
    h = _numeric(layer.h, f"{where}.h")
    b1 = _numeric(layer.b1, f"{where}.b1")
    b2 = _numeric(layer.b2, f"{where}.b2")
    K = h.shape[0]
    if layer.conv == "causal":
        F = fast_length(N_int + K - 1)
    else:
        F = N_int
    hT = xp.asarray(np.ascontiguousarray(h.T), dtype=real)
    spectrum = xp.fft.rfft(hT, n=F, axis=-1)
    off_diag = W - np.diag(np.diag(W))
    W_full = W_diag = None
    if np.any(off_diag):
        W_full = xp.asarray(np.ascontiguousarray(W.T), dtype=real)
    elif np.any(W):
        W_diag = xp.asarray(np.diag(W).reshape(-1, 1), dtype=real)
    return PreparedLayer(
        W=W_full,
        W_diag=W_diag,
        b1=xp.asarray(np.ascontiguousarray(b1.T), dtype=real),
        b2=xp.asarray(np.ascontiguousarray(b2.T), dtype=real) if np.any(b2) else None,
        spectrum=spectrum,
        fft_len=F,
        conv=layer.conv,
    )


def prepare(stack: Stack, xp: Any = None, dtype: str = "float64") -> Prepared:
    """Compute every layer's filter spectrum once, on namespace ``xp``."""
    xp = _namespace(xp)
    if dtype not in DTYPES:
        raise HypothesisError(f"dtype: expected one of {sorted(DTYPES)}, got {dtype!r}")
    real, cplx = DTYPES[dtype]
    layers = tuple(
        prepare_layer(l, stack.N_int, xp, real, f"layers[{i}]") for i, l in enumerate(stack.layers)
    )
    return Prepared(stack, layers, xp, real, cplx)


def apply_prepared_layer(p: PreparedLayer, z: Any, xp: Any) -> Any:
    """One layer on a channel-major state z of shape (B, d', N')."""
    N_int = z.shape[-1]
    spec = xp.fft.rfft(z, n=p.fft_len, axis=-1)
    spec *= p.spectrum
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
    z[:, : stack.d, : stack.N] = xp.transpose(u, (0, 2, 1))
    return z, squeeze


def from_internal(stack: Stack, z: Any, squeeze: bool, xp: Any) -> Any:
    out = xp.transpose(z[:, : stack.d, : stack.N], (0, 2, 1))
    out = xp.ascontiguousarray(out) if hasattr(xp, "ascontiguousarray") else out
    return out[0] if squeeze else out


def run(stack: Stack | Prepared, u: Any, xp: Any = None, dtype: str = "float64") -> Any:
    """Run a stack on a numeric input of shape (B, N, d) or (N, d); same shape out.

    ``stack`` may be a :class:`Prepared` stack, to reuse its spectra.
    """
    prep = stack if isinstance(stack, Prepared) else prepare(stack, xp, dtype)
    xp = prep.xp
    z, squeeze = to_internal(prep.stack, u, xp, prep.real)
    for p in prep.layers:
        z = apply_prepared_layer(p, z, xp)
    return from_internal(prep.stack, z, squeeze, xp)
