"""Section H.6 / Corollary H.22 built directly: a RetNet layer in four BaseConv layers.

The target (equation 6 with the read-out of :mod:`symconv.retnet`) is
y[n, j] = Σ_k C[n, k] · Σ_{i≤n} γ^{n−i} A[i, k] V[i, j], with A = u·W_A,
C = u·W_C, V = u·W_V.  For every pair (k, j) the inner sum is a causal
convolution of the product column A[:, k] ⊙ V[:, j] with the filter
(1, γ, γ², …, γ^{N−1}), so the route is (d' = d² + d channels, N' = N rows):

1. *spread*: V[:, j] into channel k·d + j for every k, and u into the last d
   channels (a linear layer: h = 0, b2 = 1, b1 = 0);
2. *product*: channel k·d + j becomes A[:, k] ⊙ V[:, j] (gate W_A read from the
   copy of u, filter e_0), the last d channels become C (gate W_C, b2 = 1);
3. *decay*: channel k·d + j becomes C[:, k] ⊙ (γ-filter * (A_k ⊙ V_j)), the
   causal convolution doing the decayed prefix sum of equation 6;
4. *read-out*: channel j < d becomes Σ_k of channels k·d + j (gate W, b2 = 1 on
   those channels; the others become 0).

For d = 1 the spread and the read-out are not needed (the input channel is
already u, and the sum over k has one term): two layers, d' = 2.  No model
does it in one layer: y has degree 3 in u (for weights with C A V ≠ 0) and a
layer at most doubles the degree.  Whether three layers suffice for d ≥ 2 is
left open here.

The weights and γ may be sympy symbols: the exact interpreter then checks the
identity with symbolic weights.

>>> import sympy
>>> from symconv.blocks import sym
>>> from symconv.symbolic import evaluate
>>> g = sympy.Symbol("g")
>>> s = retnet_direct(2, 1, [[1]], [[1]], [[1]], g)
>>> str(s.signature)
'(2, 2, 1, 2, 2)'
>>> [sympy.expand(v) for v in evaluate(s, sym("u", 2, 1)).entries[:, 0]]
[u[0,0]**3, g*u[0,0]**2*u[1,0] + u[1,0]**3]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model import HypothesisError, Layer, Signature, Stack, as_param, check_size

__all__ = ["retnet_direct", "direct_signature", "DirectCounts", "direct_counts", "decay_filter"]


def _weights(W: Any, d: int, name: str) -> np.ndarray:
    a = as_param(W, name)
    if a.shape != (d, d):
        raise HypothesisError(f"{name}: must be d×d = {d}×{d}, got shape {a.shape}")
    return a


def _gamma(gamma: Any) -> Any:
    from ..model import value_problem

    why = value_problem(gamma)
    if why is not None:
        raise HypothesisError(f"gamma: {gamma!r} is not a decay value: {why}")
    return gamma


def _is_float(gamma: Any) -> bool:
    return isinstance(gamma, (float, np.floating))


def decay_filter(N: int, gamma: Any) -> np.ndarray:
    """The taps (1, γ, …, γ^{N−1}): convolving with them gives Σ_{i≤n} γ^{n−i} x_i.

    A float γ gives float64 taps (γ^t computed by ``np.power``); any other γ
    (int, Fraction, sympy expression) gives exact taps in an object array.

    >>> decay_filter(3, 2).tolist(), decay_filter(3, 0.5).tolist()
    ([1, 2, 4], [1.0, 0.5, 0.25])
    """
    N = check_size(N, "N")
    gamma = _gamma(gamma)
    if _is_float(gamma):
        return np.power(float(gamma), np.arange(N, dtype=float))
    out = np.empty(N, dtype=object)
    out[:] = [gamma ** t for t in range(N)]
    return out


def direct_signature(N: int, d: int) -> Signature:
    """(N, L, d, N', d') of :func:`retnet_direct`: (N, 2, 1, N, 2) for d = 1, else (N, 4, d, N, d² + d).

    >>> str(direct_signature(8, 3))
    '(8, 4, 3, 8, 12)'
    """
    N, d = check_size(N, "N"), check_size(d, "d")
    return Signature(N, 2 if d == 1 else 4, d, N, d * d + d)


def _zeros(shape: tuple, plain: bool = False) -> np.ndarray:
    return np.zeros(shape, dtype=float) if plain else np.zeros(shape, dtype=int).astype(object)


def retnet_direct(N: int, d: int, WA: Any, WC: Any, WV: Any, gamma: Any) -> Stack:
    """The RetNet layer of Section H.6 (state of equation 6, read out by C) as a BaseConv stack.

    Channels: k·d + j (k, j < d) carry the (k, j) entry of the state, the
    last d channels the copy of u, then C.  See the module docstring for the
    layers.
    """
    N, d = check_size(N, "N"), check_size(d, "d")
    from ..budget import require

    require(3 * 8 * N * (d * d + d) + 8 * (d * d + d) ** 2 * 4,
            f"N, d: the {N}×{d * d + d} filters and biases of the direct RetNet model")
    A, C, V = (_weights(W, d, n) for W, n in ((WA, "WA"), (WC, "WC"), (WV, "WV")))
    taps = decay_filter(N, gamma)
    # float parameters (float64 arrays) when γ is a float and the weights are numbers; exact ones otherwise
    plain = taps.dtype == float and all(a.dtype.kind in "iuf" for a in (A, C, V))
    D = d * d + d
    tail = d * d  # first channel of the copy of u (layer 1), then of C (layer 2)

    def _z(shape: tuple) -> np.ndarray:
        return _zeros(shape, plain)

    ones = _z((1, D)) + 1
    zero_row = _z((1, D))
    layers = []
    if d == 1:
        # product: channel 0 = (u·W_A[0,0]) ⊙ (W_V[0,0]·e_0 * u); channel 1 = u·W_C (b2 = 1 there)
        W = _z((D, D))
        W[0, 0], W[0, 1] = A[0, 0], C[0, 0]
        h = _z((1, D))
        h[0, 0] = V[0, 0]
        b2 = _z((1, D))
        b2[0, 1] = 1
        layers.append(Layer(W=W, h=h, b1=zero_row, b2=b2, label="product A ⊙ V, keep C"))
    else:
        W = _z((D, D))
        for k in range(d):
            for j in range(d):
                W[:d, k * d + j] = V[:, j]
        for a in range(d):
            W[a, tail + a] = 1
        layers.append(Layer(W=W, h=zero_row, b1=zero_row, b2=ones, label="spread V, copy u"))
        W = _z((D, D))
        h = _z((1, D))
        b2 = _z((1, D))
        for k in range(d):
            for j in range(d):
                W[tail:, k * d + j] = A[:, k]
                h[0, k * d + j] = 1
        W[tail:, tail:] = C
        b2[0, tail:] = 1
        layers.append(Layer(W=W, h=h, b1=zero_row, b2=b2, label="product A_k ⊙ V_j, C"))
    # decay: channel k·d + j = C_k ⊙ (γ-filter * P_kj)
    W = _z((D, D))
    h = _z((N, D))
    for k in range(d):
        for j in range(d):
            W[tail + k, k * d + j] = 1
            h[:, k * d + j] = taps
    layers.append(Layer(W=W, h=h, b1=zero_row, b2=zero_row, label="C_k ⊙ decayed sum"))
    if d > 1:
        W = _z((D, D))
        b2 = _z((1, D))
        b2[0, :d] = 1
        for k in range(d):
            for j in range(d):
                W[k * d + j, j] = 1
        layers.append(Layer(W=W, h=zero_row, b1=zero_row, b2=b2, label="read-out Σ_k"))
    return Stack(N=N, d=d, layers=tuple(layers), N_int=N, d_int=D, name=f"retnet direct (N={N}, d={d})")


@dataclass(frozen=True)
class DirectCounts:
    """Parameter counts of a stack.

    ``as_defined``: Σ over layers of d'² + 3·N'·d' (W, and h, b1, b2 each N'×d',
    the paper's layer); ``nonzero``: non-zero entries as stored (broadcast
    biases counted once per row of N'); ``distinct``: distinct entries other
    than 0 and 1 (for the direct model: the weights and γ, …, γ^{N−1}).
    """

    as_defined: int
    nonzero: int
    distinct: int


def direct_counts(stack: Stack) -> DirectCounts:
    """The counts of :class:`DirectCounts` for any stack.

    >>> direct_counts(retnet_direct(4, 1, [[2]], [[3]], [[5]], 0.5)).as_defined
    56
    """
    Np, D = stack.N_int, stack.d_int
    as_defined = stack.L * (D * D + 3 * Np * D)
    nonzero = 0
    values: set = set()
    for layer in stack.layers:
        for name in ("W", "h", "b1", "b2"):
            a = getattr(layer, name)
            rows = Np if name in ("b1", "b2") and a.shape[0] == 1 else 1
            for v in a.flat:
                if v != 0:
                    nonzero += rows
                    if v != 1:
                        values.add(v)
    return DirectCounts(as_defined, nonzero, len(values))
