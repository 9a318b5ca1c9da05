"""Prop. H.12 (Hyena → BaseConv) for N ≤ N' < 2N on 2N rows: the route shared by N = 2, 3 and 4.

The state is (top | bottom), blocks of N rows; the top block holds u throughout, the bottom block
the Hyena state:

* **prep** (causal, filter 1 + X^N·h¹, W = 0): (u | 0) ↦ (u | h¹ * u);
* **multiply** layer ℓ < L: (u | y) ↦ (u | p^ℓ ⊙ y) by
  :func:`~symconv.constructions.hyena_two_rows.multiply_layers` (a twist and a causal product per
  set of independent columns of W^ℓ; one layer when W^ℓ is diagonal);
* **linear step** for ℓ ≥ 2: (u | z) ↦ (u | h^ℓ * z), causal masked convolutions (W = 0, one filter
  and one mask per channel) that keep the top block exactly and leak nothing from it; the step is
  the only part that depends on N (``step``: :func:`.hyena_four_rows.linear_step` at N = 2,
  :func:`.hyena_six_rows.linear_step` at N = 3, :func:`.hyena_eight_rows.linear_step` at N = 4);
* **final** (circular, W = W^L, filter X^N, b1 = (b^L | 0)): the top block becomes
  (u·W^L + b^L) ⊙ y = z^L.

Only taps [0, N) of each filter and rows [0, N) of each bias reach the output, so the route does
not depend on N'.  Layers: 2 + Σ_{ℓ<L} (layers of multiply ℓ + layers of step ℓ + 1).

:func:`step_matrix` and :func:`step_target` are what the N = 3 and N = 4 steps are checked against.

>>> masked_layers([[((1, 2), (1, 1)), ((1,), (3, 3))], [((1,), (1, 5))]], 2, 2)[1].b1.tolist()
[[3, 1], [3, 1]]
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import sympy

from ..hyena import HyenaStack
from ..model import HypothesisError, Layer, Stack
from .hyena import _check_model, _rows
from .hyena_two_rows import _obj, _rational_matrix, multiply_layers
from .params import rational, zero_W

__all__ = ["masked_layers", "quotient_taps", "route_on_2n_rows", "step_matrix", "step_target"]


def quotient_taps(num: tuple, r, n: int) -> tuple:
    """The first n taps of num(X)/(1 − rX).

    >>> quotient_taps((1, 1), 1, 4)
    (1, 2, 2, 2)
    """
    out, prev = [], sympy.Integer(0)
    for i in range(n):
        prev = (num[i] if i < len(num) else 0) + r * prev
        out.append(prev)
    return tuple(out)


def step_matrix(layers, rows: int) -> sympy.Matrix:
    """The rows×rows matrix of masked causal convolutions ((filter, mask) pairs) applied in order.

    >>> step_matrix((((1,), (1, 1, 2, 2)),), 4) == sympy.diag(1, 1, 2, 2)
    True
    """
    M = sympy.eye(rows)
    for taps, mask in layers:
        T = sympy.Matrix(rows, rows, lambda i, j: taps[i - j] if 0 <= i - j < len(taps) else 0)
        M = sympy.diag(*mask) * T * M
    return M


def step_target(h) -> sympy.Matrix:
    """blockdiag(I_N, T_h) for a filter of N taps: what a linear step (u | z) ↦ (u | h * z) must be."""
    N = len(h)
    return sympy.diag(sympy.eye(N), sympy.Matrix(N, N, lambda i, j: h[i - j] if i >= j else 0))


def masked_layers(per: list, ell: int, rows: int) -> tuple:
    """Causal masked convolutions (W = 0, b2 = 0) from one list of (filter, mask) pairs per channel.

    ``per[c][i] = (taps, mask)`` is layer i of channel c: a filter of at most ``rows`` taps and a mask
    of ``rows`` entries.  A channel with fewer layers than the longest is padded with identity layers
    (filter 1, mask 1), so every channel's map is the product of its own layers.
    """
    k = max(len(p) for p in per)
    one, zero = sympy.Integer(1), sympy.Integer(0)
    ident = ((one,), (one,) * rows)
    per = [list(p) + [ident] * (k - len(p)) for p in per]
    out = []
    for i in range(k):
        taps = [[(per[c][i][0][t] if t < len(per[c][i][0]) else zero) for c in range(len(per))]
                for t in range(rows)]
        mask = [[per[c][i][1][r] for c in range(len(per))] for r in range(rows)]
        out.append(Layer(W=zero_W(len(per)), h=_obj(taps), b1=_obj(mask), b2=[[0]],
                         label=f"layer {ell}, linear step {i + 1}/{k}"))
    return tuple(out)


def route_on_2n_rows(model: HyenaStack, N: int, step: Callable, why_h: str) -> Stack:
    """The 2N-row route for a Hyena model with ``model.N == N`` (module text); ``step(H, ell)`` returns the
    layers (u | z) ↦ (u | h * z) for per-channel filter taps ``H`` (N rationals each).  The caller checks N."""
    _check_model(model)
    d, L = model.d, model.L
    zero, one = sympy.Integer(0), sympy.Integer(1)
    H, B = [], []   # taps [0, N) of each filter and rows [0, N) of each bias: all that reaches the output
    for i, l in enumerate(model.layers):
        h = np.zeros((N, d), dtype=object)   # object entries: no float rounding of large integer taps
        taps = np.asarray(l.h)[:N]
        h[: taps.shape[0]] = taps
        H.append([tuple(sympy.Rational(rational(h[t, c], f"model.layers[{i}].h", why_h)) for t in range(N))
                  for c in range(d)])
        B.append(_rows(np.asarray(l.b), N, d).tolist())
    prep_taps = [[one] * d] + [[zero] * d] * (N - 1) + [[H[0][c][t] for c in range(d)] for t in range(N)]
    layers = [Layer(W=zero_W(d), h=_obj(prep_taps), b1=[[1]], b2=[[0]], label="prep: (u | h^1 * u)")]
    for ell in range(1, L):
        W = _rational_matrix(np.asarray(model.layers[ell - 1].W), f"model.layers[{ell - 1}].W")
        layers += multiply_layers(W, B[ell - 1], [one] * d, ell, N=N)
        layers += step(H[ell], ell + 1)
    last = model.layers[-1]
    layers.append(Layer(W=np.asarray(last.W).tolist(), h=_obj([[zero] * d] * N + [[one] * d]),
                        b1=_obj(B[-1] + [[zero] * d] * N), b2=[[0]], conv="circular",
                        label=f"final: top block (u·W^{L} + b^{L}) ⊙ y"))
    return Stack(N, d, tuple(layers), 2 * N, d,
                 name=f"BaseConv simulating {model.name or 'Hyena'} on {2 * N} rows")
