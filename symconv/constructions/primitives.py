"""Lemma H.7 as the paper uses it: Hadamard products with constants, the identity, projections.

Each is one BaseConv layer with N' = N and d' = d:

* ``hadamard(c)``: BaseConv(u, 0, e_0, c, 0) = c ⊙ (e_0 * u) = c ⊙ u;
* ``identity``: the Hadamard product with 1^{N×d};
* ``linear(W)``: BaseConv(u, W, 0, 0, 1) = (u·W) ⊙ 1 = u·W, row by row.

>>> from symconv.blocks import sym
>>> from symconv.symbolic import evaluate
>>> evaluate(hadamard([[2], [3]]), sym("u", 2, 1)).entries[:, 0].tolist()
[2*u[0,0], 3*u[1,0]]
"""
from __future__ import annotations

from typing import Any

from ..model import HypothesisError, Stack, as_param
from ..parametric.algebra import X, psym
from ..parametric.check import PLayer, stack_at


def hadamard_layer(N, conv: str = "causal") -> PLayer:
    """BaseConv(u, 0, e_0, c, 0) = c ⊙ (e_0 * u): the gate is the named block c (N rows)."""
    return PLayer(X**0, psym("c", N), conv=conv, label="c ⊙ u")


def identity_layer(conv: str = "causal") -> PLayer:
    """The Hadamard product with 1^{N×d}."""
    return PLayer(X**0, 1, conv=conv, label="identity")


def linear_layer() -> PLayer:
    """BaseConv(u, W, 0, 0, 1) = (u·W) ⊙ 1, with W the named d×d matrix ``W``."""
    return PLayer(0, 0, 1, W="W", label="u·W")


def hadamard(c: Any, conv: str = "causal") -> Stack:
    """One layer computing c ⊙ u for a constant (possibly symbolic) N×d array c."""
    c = as_param(c, "c")
    N, d = c.shape
    return stack_at((hadamard_layer(N, conv),), N, N, d=d, values={"c": c}, name="hadamard")


def identity(N: int, d: int = 1, conv: str = "causal") -> Stack:
    """One layer computing u itself: the Hadamard product with the all-ones array."""
    return stack_at((identity_layer(conv),), N, N, d=d, name="identity")


def linear(W: Any, N: int) -> Stack:
    """One layer computing u·W (W is d×d): BaseConv(u, W, 0, 0, 1)."""
    W = as_param(W, "W")
    d = W.shape[0]
    if W.shape != (d, d):
        raise HypothesisError(f"W: must be square d×d, got shape {W.shape}")
    return stack_at((linear_layer(),), N, N, d=d, values={"W": W}, name="linear")
