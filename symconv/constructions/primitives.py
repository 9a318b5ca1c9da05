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

import numpy as np

from ..model import HypothesisError, Layer, Stack, as_param
from .params import gate_layer, unit_filter, zero_W


def hadamard(c: Any, conv: str = "causal") -> Stack:
    """One layer computing c ⊙ u for a constant (possibly symbolic) N×d array c."""
    c = as_param(c, "c")
    N, d = c.shape
    layer = gate_layer(unit_filter(0, d), c, 0, conv=conv, d=d, label="c ⊙ u")
    return Stack(N, d, (layer,), name="hadamard")


def identity(N: int, d: int = 1, conv: str = "causal") -> Stack:
    """One layer computing u itself: the Hadamard product with the all-ones array."""
    layer = gate_layer(unit_filter(0, d), [[1]], 0, conv=conv, d=d, label="identity")
    return Stack(N, d, (layer,), name="identity")


def linear(W: Any, N: int) -> Stack:
    """One layer computing u·W (W is d×d): BaseConv(u, W, 0, 0, 1)."""
    W = as_param(W, "W")
    d = W.shape[0]
    if W.shape != (d, d):
        raise HypothesisError(f"W: must be square d×d, got shape {W.shape}")
    h = np.zeros((1, d), dtype=int).astype(object)
    layer = Layer(W=W, h=h, b1=[[0]], b2=[[1]], label="u·W")
    return Stack(N, d, (layer,), name="linear")
