"""Prop. H.12 (Hyena → BaseConv) at N = 2 on 2N = 4 rows.

For N = 2 the claim's case N ≤ N' < 2N is N' ∈ {2, 3}, and the claimed N' + N rows are 4 or
5; this route uses 4.  The state is (top | bottom), blocks of two rows; the top block holds u
throughout, the bottom block the Hyena state:

* **prep** (causal, filter 1 + X²·h¹, W = 0): (u | 0) ↦ (u | h¹ * u);
* **multiply** layer ℓ < L: (u | y) ↦ (u | p^ℓ ⊙ y) by
  :func:`~symconv.constructions.hyena_two_rows.multiply_layers` with N = 2 (a twist and a
  causal product per set of independent columns of W^ℓ; one layer when W^ℓ is diagonal);
* **linear step** for ℓ ≥ 2, two causal masked convolutions (W = 0, one filter and one mask per
  channel): (u | z) ↦ (u | h^ℓ * z), the top block kept exactly and nothing leaking from it
  (:func:`linear_step`);
* **final** (circular, W = W^L, filter X², b1 = (b^L | 0)): the top block becomes
  (u·W^L + b^L) ⊙ y = z^L.

The linear step, per channel, for a filter (h₀, h₁) with h₀ ≠ 0 and c = h₁/h₀: layer 1 has
filter (1, −c/7, 0, 0) and mask (1, 2, 4, 1), layer 2 filter (1, 2c/7, 4c²/49, 8c³/343) and mask
(1, 1/2, h₀/4, h₀).  Multiplying out, the top block's coefficients are those of the identity, the
bottom block's those of h * z, and the six coefficients that would carry u into the bottom block
vanish (each is a polynomial identity in c; the masks were chosen with m₂ = m₁² and
m₁³ ≠ m₃ so that they do).  For h₀ = 0: filters (1, −1, 0, 0), (1, 1, 1, 1) and masks
(1, 1, 1, 0), (1, 1, 0, h₁).  The filter must be numeric (the step divides by h₀).

Layers: 2 for L = 1, and 2 + Σ_{ℓ<L} (layers of multiply ℓ) + 2(L − 1) for L ≥ 2: 3L − 1 for d = 1,
at most 4L − 2 when every W^ℓ (ℓ < L) is invertible, so within the claimed 5L there; a singular
W^ℓ with d ≥ 2 costs up to 2d layers for its multiply, which can exceed 5L (d = 2: from L = 5
when every W^ℓ needs two twisted sets; d = 3: from L = 3), where the claim stays open.
W¹ … W^{L−1} are split and inverted exactly (rational entries); W^L enters as it is.

>>> from symconv.blocks import sym
>>> from symconv.hyena import HyenaLayer, HyenaStack, evaluate as hyena_eval
>>> from symconv.symbolic import evaluate
>>> m = HyenaStack(2, 1, tuple(HyenaLayer([[2]], sym(f"b{l}", 2, 1).entries, [[3], [5]]) for l in range(3)))
>>> st = baseconv_on_four_rows(m)
>>> st.signature
Signature(N=2, L=8, d=1, N_int=4, d_int=1)
>>> u = sym("u", 2, 1)
>>> evaluate(st, u).entries.tolist() == hyena_eval(m, u).entries.tolist()
True
"""
from __future__ import annotations

import sympy

from ..hyena import HyenaStack
from ..model import HypothesisError, Stack
from .hyena import _check_model
from .hyena_2n_rows import masked_layers, route_on_2n_rows
from .params import rational

__all__ = ["baseconv_on_four_rows", "linear_step"]


WHY_H = "the four-row route's linear step divides by the filter's tap 0, so the filter must be numeric"


def _step_channel(h0: sympy.Rational, h1: sympy.Rational) -> tuple:
    """((filter 1, mask 1), (filter 2, mask 2)) of one channel's linear step (module text)."""
    one = sympy.Integer(1)
    if h0 == 0:
        return (((one, -one, 0, 0), (one, one, one, 0)), ((one, one, one, one), (one, one, 0, h1)))
    c = h1 / h0
    return (((one, -c / 7, 0, 0), (one, 2, 4, one)),
            ((one, 2 * c / 7, 4 * c ** 2 / 49, 8 * c ** 3 / 343), (one, sympy.Rational(1, 2), h0 / 4, h0)))


def linear_step(h: list, ell: int) -> tuple:
    """The two layers (u | z) ↦ (u | h * z) on 4 rows, one filter (h₀, h₁) per channel.

    >>> [l.label for l in linear_step([(1, 2)], 2)]
    ['layer 2, linear step 1/2', 'layer 2, linear step 2/2']
    """
    return masked_layers([_step_channel(*(sympy.Rational(rational(t, "h", WHY_H)) for t in taps)) for taps in h],
                         ell, 4)


def baseconv_on_four_rows(model: HyenaStack) -> Stack:
    """Prop. H.12 (Hyena → BaseConv) for N = 2 on four rows (≤ N' + N for N' ≥ 2); see the module text.

    >>> from symconv.hyena import HyenaLayer, HyenaStack
    >>> baseconv_on_four_rows(HyenaStack(2, 1, (HyenaLayer([[2]], [[1]], [[1], [1]]),))).signature
    Signature(N=2, L=2, d=1, N_int=4, d_int=1)
    """
    _check_model(model)
    if model.N != 2:
        raise HypothesisError(f"model.N: the four-row route is for N = 2, got N = {model.N}")
    return route_on_2n_rows(model, 2, linear_step, WHY_H)
