"""Prop. H.9: the running sum add_n(y : x, S), written once with symbolic sizes.

For y = (x | S | 0…) with x, S ∈ R^{n×d}, two layers give (1^n | S + x | 0…):
layer 1 is (0^n | 1^n | 0…) ⊙ ((e_0 | e_0 | 0…) * y), since
(X^n + 1)(S(X)X^n + x(X)) = S(X)X^{2n} + (S + x)(X)X^n + x(X); layer 2 is
(1^n | 1^n | 0…) ⊙ (e_0 * z¹ + (1^n | 0…)), resetting the first block to 1^n.

The proof's displayed call for layer 2 passes b²₁ in both bias slots;
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
from ..parametric.check import stack_at
from ..parametric.linear import Lin


def add_n_hypothesis(n, N):
    """Prop. H.9's hypothesis: x and S (n rows each) inside y, 2n <= N, as data.

    >>> from symconv.parametric import size
    >>> add_n_hypothesis(size("n"), size("N")).text
    '2n <= N (x and S inside y)'
    """
    from ..hypotheses import Hypothesis
    from ..parametric.linear import lin

    return Hypothesis(2 * lin(n) <= lin(N), why="x and S inside y")


def add_n_layers(n: Lin | int, N: Lin | int, literal_call: bool = False) -> tuple:
    """The two layers of Prop. H.9 (h¹ = X^n + 1, b¹₁ = (0^n | 1^n | 0…); h² = e_0, b²₁, b²₂).

    They come from the printed route :func:`symconv.parametric.printed.add_n_route`
    (the one source): ``literal_call`` takes layer 2 as the displayed call
    BaseConv(z¹, 0, h², b²₁, b²₁), otherwise with the parameters as defined.
    """
    from ..parametric.printed import add_n_route

    route = add_n_route({"n": n, "N": N}, "printed" if literal_call else "parameters")
    return tuple(l.player(N) for l in route.layers)


def add_n(n: int, N: int, d: int = 1, literal_call: bool = False) -> Stack:
    """Two layers computing (1^n | S + x | 0…) from (x | S | 0…) (Prop. H.9)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise HypothesisError(f"n: block length must be a positive integer, got {n!r}")
    if isinstance(N, bool) or not isinstance(N, int) or 2 * n > N:
        raise HypothesisError(
            f"N: x and S (n = {n} rows each) must be contained in y: need 2n <= N, got N = {N!r}"
        )
    name = "add_n (call as printed)" if literal_call else "add_n"
    return stack_at(add_n_layers(n, N, literal_call), N, N, d=d, name=name)
