"""Prop. H.9: the running sum add_n(y : x, S).

For y = (x | S | 0…) with x, S ∈ R^{n×d}, two layers give (1^n | S + x | 0…):
layer 1 is (0^n | 1^n | 0…) ⊙ ((e_0 | e_0 | 0…) * y), since
(X^n + 1)(S(X)X^n + x(X)) = S(X)X^{2n} + (S + x)(X)X^n + x(X); layer 2 is
(1^n | 1^n | 0…) ⊙ (e_0 * z¹ + (1^n | 0…)), resetting the first block to 1^n.

The proof's displayed call for layer 2 passes b¹² in both bias slots;
``literal_call=True`` builds that call as printed (its b2 is then
(1^n | 1^n | 0…)).

>>> from symconv.blocks import sym, zeros
>>> from symconv.symbolic import evaluate
>>> y = sym("x", 1) | sym("S", 1) | zeros(1)
>>> evaluate(add_n(1, 3), y).entries[:, 0].tolist()
[1, S[0,0] + x[0,0], 0]
"""
from __future__ import annotations

from ..model import HypothesisError, Stack
from .params import gate_layer, mask, taps, unit_filter


def add_n(n: int, N: int, d: int = 1, literal_call: bool = False) -> Stack:
    """Two layers computing (1^n | S + x | 0…) from (x | S | 0…) (Prop. H.9)."""
    if not isinstance(n, int) or n < 1:
        raise HypothesisError(f"n: block length must be a positive integer, got {n!r}")
    if 2 * n > N:
        raise HypothesisError(
            f"N: x and S (n = {n} rows each) must be contained in y: need 2n <= N, got N = {N}"
        )
    h1 = taps({0: 1, n: 1}, d)
    layer1 = gate_layer(h1, mask(N, (n, 2 * n)), 0, d=d, label="(0^n|1^n|0) ⊙ ((e_0|e_0|0) * y)")
    b21 = mask(N, (0, 2 * n))
    b22 = b21 if literal_call else mask(N, (0, n))
    layer2 = gate_layer(unit_filter(0, d), b21, b22, d=d, label="(1^n|1^n|0) ⊙ (e_0 * z¹ + b²₂)")
    name = "add_n (call as printed)" if literal_call else "add_n"
    return Stack(N, d, (layer1, layer2), name=name)
