"""Prop. H.12 (Hyena → BaseConv) at N = 3 on 2N = 6 rows.

For N = 3 the claim's case N ≤ N' < 2N is N' ∈ {3, 4, 5}, and the claimed N' + N rows are 6 to 8;
this route uses 6: the 2N-row route of :mod:`.hyena_2n_rows` (prep, multiply, linear step, final
gate) with the linear step below.

**Linear step** (u | z) ↦ (u | h * z) for one channel's filter h = (h₀, h₁, h₂): k causal masked
convolutions (W = 0) whose product, as a 6×6 lower-triangular matrix, is blockdiag(I₃, T_h), T_h
the causal convolution by h.  Writing a layer as (filter; mask), the forms are, by case:

* h₁ = h₂ = 0 (h = 0 included), k = 1: (1; 1,1,1, h₀,h₀,h₀).
* h₀h₁h₂ ≠ 0 and h₁² ≠ h₀h₂ (generic), k = 2, with q = 1 − h₁²/(h₀h₂) and ρ = q·h₂/h₁:
  (1 − ρX; 1,1,1, 1, q, q²) then (1/(1 − ρX); 1,1,1, h₀, h₀/q, h₀/q²).  The top block sees
  (1 − ρX)/(1 − ρX) = 1; what it would carry into the bottom block telescopes and is cancelled
  by the bottom mask's first entry 1.
* h₁ = 0, h₀h₂ ≠ 0, k = 2, with t = h₂/h₀: (1 + 2tX²; 1,1,1, 1,1,2) then
  (1 − 2tX² + 4t²X⁴; 1,1,1, h₀, h₀, h₀/2).
* h₀ = h₁ = 0, h₂ ≠ 0, k = 2: (1 − X; 1,1,1, 1,0,0) then (1/(1 − X); 1,1,1, 0,0,h₂).
* h₀h₁ ≠ 0 with h₂ = 0 or h₁² = h₀h₂, k = 3, with c = h₁/h₀ and e = h₀h₂ − 2h₁²:
  (1 − cX; 1,1,1, 1, 3/4, −h₁²/e), then ((1 + cX)/(1 − cX); 1,1,1, 1, 2, 3e/(3h₀h₂ − 2h₁²)),
  then (1/(1 + cX); 1,1,1, h₀, 2h₀/3, −h₀(3h₀h₂ − 2h₁²)/(3h₁²)) (two two-layer units merged
  through an all-ones mask).
* h₀ = 0, h₁ ≠ 0, k = 3, with b = 2 (b = 3 when h₁ + h₂ = 4, so that D = h₁ − b² + h₂ ≠ 0):
  (1 − X; 1,1,1, 1, h₁/D, 0), then ((1 − bX)/(1 − X); 1,1,1, 1, 0, D/(1 − b)), then
  (1/(1 − bX); 1,1,1, 0, h₁/b, 1).

(Filters are cut to 6 taps.)  Each form was checked by multiplying out the 6×6 matrix with h₀, h₁, h₂
as symbols (``tests/test_hyena_six_rows.py``), and :func:`linear_step` multiplies it out again, exactly,
for the numeric filter it is given.  Channels with fewer layers are padded with identity layers.

Layers: 2 for L = 1, and 2 + Σ_{ℓ<L} (layers of multiply ℓ + k_{ℓ+1}) for L ≥ 2, k_ℓ ≤ 3 the step's
length (the largest over channels): at most 4L − 2 for d = 1 and at most 5L − 3 when every W^ℓ
(ℓ < L) is invertible, so within the claimed 5L there.  A singular W^ℓ with d ≥ 2 costs up to 2d
layers for its multiply, which can exceed 5L; the claim stays open there.

>>> from symconv.blocks import sym
>>> from symconv.hyena import HyenaLayer, HyenaStack, evaluate as hyena_eval
>>> from symconv.symbolic import evaluate
>>> m = HyenaStack(3, 1, tuple(HyenaLayer([[2]], sym(f"b{l}", 3, 1).entries, [[3], [5], [7]]) for l in range(2)))
>>> st = baseconv_on_six_rows(m)
>>> st.signature
Signature(N=3, L=5, d=1, N_int=6, d_int=1)
>>> u = sym("u", 3, 1)
>>> evaluate(st, u).entries.tolist() == hyena_eval(m, u).entries.tolist()
True
"""
from __future__ import annotations

import sympy

from ..hyena import HyenaStack
from ..model import HypothesisError, Stack
from .hyena import _check_model
from .hyena_2n_rows import masked_layers, quotient_taps, route_on_2n_rows, step_target
from .hyena_2n_rows import step_matrix as _matrix
from .params import rational

__all__ = ["baseconv_on_six_rows", "linear_step", "step_matrix"]

WHY_H = "the six-row route's linear step divides by the filter's taps, so the filter must be numeric"


def _step_channel(h0, h1, h2) -> tuple:
    """One channel's linear step: a tuple of (filter, mask) pairs (module text), exact in h₀, h₁, h₂."""
    one = sympy.Integer(1)
    if h1 == 0 and h2 == 0:
        return (((one,), (one, one, one, h0, h0, h0)),)
    if h0 == 0 and h1 == 0:
        return (((one, -one), (one, one, one, one, 0, 0)), ((one,) * 6, (one, one, one, 0, 0, h2)))
    if h0 == 0:
        b = sympy.Integer(3 if h1 + h2 == 4 else 2)
        D = h1 - b ** 2 + h2
        return (((one, -one), (one, one, one, one, h1 / D, 0)),
                (quotient_taps((one, -b), one, 6), (one, one, one, one, 0, D / (1 - b))),
                (quotient_taps((one,), b, 6), (one, one, one, 0, h1 / b, one)))
    if h1 == 0:
        t = h2 / h0
        return (((one, 0, 2 * t), (one, one, one, one, one, 2)),
                ((one, 0, -2 * t, 0, 4 * t ** 2, 0), (one, one, one, h0, h0, h0 / 2)))
    if h2 != 0 and h1 ** 2 != h0 * h2:
        q = 1 - h1 ** 2 / (h0 * h2)
        rho = q * h2 / h1
        return (((one, -rho), (one, one, one, one, q, q ** 2)),
                (quotient_taps((one,), rho, 6), (one, one, one, h0, h0 / q, h0 / q ** 2)))
    c, e, f = h1 / h0, h0 * h2 - 2 * h1 ** 2, 3 * h0 * h2 - 2 * h1 ** 2
    return (((one, -c), (one, one, one, one, sympy.Rational(3, 4), -h1 ** 2 / e)),
            (quotient_taps((one, c), c, 6), (one, one, one, one, 2, 3 * e / f)),
            (quotient_taps((one,), -c, 6), (one, one, one, h0, 2 * h0 / 3, -h0 * f / (3 * h1 ** 2))))


def step_matrix(layers) -> sympy.Matrix:
    """The 6×6 matrix of (filter, mask) pairs applied in order (row i of the output from row j of the input).

    >>> step_matrix(_step_channel(2, 0, 0)) == sympy.diag(1, 1, 1, 2, 2, 2)
    True
    """
    return _matrix(layers, 6)



def linear_step(h: list, ell: int) -> tuple:
    """The layers (u | z) ↦ (u | h * z) on 6 rows, one filter (h₀, h₁, h₂) per channel; each channel's
    product is multiplied out exactly and compared with blockdiag(I₃, T_h) before the layers are returned.

    >>> [l.label for l in linear_step([(1, 2, 3), (0, 0, 1)], 2)]
    ['layer 2, linear step 1/2', 'layer 2, linear step 2/2']
    """
    per = []
    for c, taps in enumerate(h):
        taps = tuple(sympy.Rational(rational(t, f"h (channel {c})", WHY_H)) for t in taps)
        if len(taps) != 3:
            raise HypothesisError(f"h (channel {c}): the six-row step takes 3 filter taps, got {len(taps)}")
        layers = _step_channel(*taps)
        if step_matrix(layers) != step_target(taps):   # a guard on the closed forms, not a hypothesis
            raise AssertionError(f"six-row linear step wrong for h = {taps}")
        per.append(layers)
    return masked_layers(per, ell, 6)


def baseconv_on_six_rows(model: HyenaStack) -> Stack:
    """Prop. H.12 (Hyena → BaseConv) for N = 3 on six rows (≤ N' + N for N' ≥ 3); see the module text.

    >>> from symconv.hyena import HyenaLayer, HyenaStack
    >>> baseconv_on_six_rows(HyenaStack(3, 1, (HyenaLayer([[2]], [[1]], [[1], [1]]),))).signature
    Signature(N=3, L=2, d=1, N_int=6, d_int=1)
    """
    _check_model(model)
    if model.N != 3:
        raise HypothesisError(f"model.N: the six-row route is for N = 3, got N = {model.N}")
    return route_on_2n_rows(model, 3, linear_step, WHY_H)
