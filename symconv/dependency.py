"""Which input positions each output position of a stack can depend on.

A structural analysis of a :class:`~symconv.model.Stack`: every parameter
entry that is not literally zero is treated as possibly non-zero (so symbolic
entries count).  Layer by layer, row i of ``(u·W + b1) ⊙ (h * u + b2)`` can
see input row i through the gate (when W ≠ 0) and input row j through the
convolution when h has a tap at i − j (causal) or at (i − j) mod N'
(circular); a row where the gate is identically zero sees nothing.  Layers
compose by boolean matrix products.

This makes impossibility results checkable: every causal stack's pattern is
contained in the pattern of a causal stack whose parameters are all dense,
which is lower triangular for every depth and internal size.  So no causal
stack moves information to an earlier position, and shift_up is out of reach.

>>> from symconv.constructions.shifts import shift_down
>>> dependencies(shift_down(3, 1)).astype(int).tolist()
[[0, 0, 0], [1, 0, 0], [0, 1, 0]]
"""
from __future__ import annotations

import numpy as np

from .model import HypothesisError, Layer, Stack, check_size


def _require(N_int: int, what: str) -> None:
    from .budget import require

    require(3 * 8 * N_int * N_int, f"N_int: the {N_int}×{N_int} dependency pattern of {what}")


def _nonzero(a: np.ndarray) -> np.ndarray:
    if a.dtype == object:
        return np.vectorize(lambda v: not (v == 0), otypes=[bool])(a)
    return a != 0


def layer_dependencies(layer: Layer, N_int: int) -> np.ndarray:
    """Boolean N'×N' matrix D with D[i, j] when output row i may depend on input row j."""
    if not isinstance(layer, Layer):
        raise HypothesisError(f"layer: expected a Layer, got {type(layer).__name__}")
    N_int = check_size(N_int, "N_int")
    layer.check_fits(N_int)
    _require(N_int, "a layer")
    taps = np.flatnonzero(_nonzero(layer.h).any(axis=1))
    i = np.arange(N_int)[:, None]
    j = np.arange(N_int)[None, :]
    diff = i - j
    if layer.conv == "causal":
        conv = np.isin(diff, taps)
    else:
        conv = np.isin(diff % N_int, taps)
    W_nonzero = bool(_nonzero(layer.W).any())
    gate_alive = np.broadcast_to(_nonzero(layer.b1).any(axis=1), (N_int,)) | W_nonzero
    D = conv.copy()
    if W_nonzero:
        D |= np.eye(N_int, dtype=bool)
    D &= gate_alive[:, None]
    return D


def dependencies(stack: Stack) -> np.ndarray:
    """Boolean N'×N' matrix: output row i of the whole stack may depend on input row j."""
    if not isinstance(stack, Stack):
        raise HypothesisError(f"stack: expected a Stack, got {type(stack).__name__}")
    _require(stack.N_int, "a stack")
    D = np.eye(stack.N_int, dtype=bool)
    for layer in stack.layers:
        D = (layer_dependencies(layer, stack.N_int).astype(np.int64) @ D.astype(np.int64)) > 0
    return D


def generic_dependencies(N_int: int, L: int, conv: str) -> np.ndarray:
    """The pattern of an L-layer stack in one mode whose parameters are all dense.

    Every stack of that mode, depth and size has a pattern contained in this one.
    """
    if not isinstance(conv, str) or conv not in ("causal", "circular"):
        raise HypothesisError(f"conv: unknown convolution mode {conv!r}")
    N_int, L = check_size(N_int, "N_int"), check_size(L, "L", 0)
    _require(N_int, "a generic stack")
    tri = np.tril(np.ones((N_int, N_int), dtype=bool))
    one = tri if conv == "causal" else np.ones((N_int, N_int), dtype=bool)
    D = np.eye(N_int, dtype=bool)
    for _ in range(L):
        D = (one.astype(np.int64) @ D.astype(np.int64)) > 0
    return D


def missing(required: np.ndarray, available: np.ndarray) -> list[tuple[int, int]]:
    """(output row, input row) pairs that a target map needs but a pattern lacks."""
    r, a = np.asarray(required), np.asarray(available)
    for name, m in (("required", r), ("available", a)):
        if m.ndim != 2 or m.dtype.kind != "b":
            raise HypothesisError(f"{name}: expected a 2-D boolean pattern, got shape {m.shape}, dtype {m.dtype}")
    a = a[: r.shape[0], : r.shape[1]]
    if a.shape != r.shape:
        raise HypothesisError(f"available: pattern {available.shape} is smaller than required {r.shape}")
    return [tuple(map(int, p)) for p in np.argwhere(r & ~a)]


def shift_up_pattern(N: int, s: int) -> np.ndarray:
    """The dependency pattern shift_up(·, s) needs: row i reads row i + s."""
    N, s = check_size(N, "N"), check_size(s, "s", 0)
    if s > N:
        raise HypothesisError(f"s: shift {s} exceeds N = {N}")
    _require(N, "shift_up")
    R = np.zeros((N, N), dtype=bool)
    for i in range(N - s):
        R[i, i + s] = True
    return R
