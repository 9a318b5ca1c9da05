"""Blocks: the paper's (a | b | c) notation at concrete sizes."""
import pytest
import sympy

from symconv import HypothesisError, ones, sym, unit, zeros
from symconv.blocks import from_array, reverse, rows


def test_stacking_and_hadamard():
    x, S = sym("x", 2), sym("S", 2)
    y = x | S | zeros(1)
    assert y.shape == (5, 1)
    assert y.entries[3, 0] == sympy.Symbol("S[1,0]")
    m = zeros(2) | ones(2) | zeros(1)
    assert (m * y).entries[:, 0].tolist() == [0, 0, sympy.Symbol("S[0,0]"), sympy.Symbol("S[1,0]"), 0]


def test_unit_reverse_rows():
    assert unit(2, 4).entries[:, 0].tolist() == [0, 0, 1, 0]
    y = sym("y", 3)
    assert reverse(y).entries[0, 0] == sympy.Symbol("y[2,0]")
    assert rows(y, 1, 3).n == 2


def test_blocks_that_do_not_fit_are_an_error():
    y = sym("x", 3) | sym("S", 3)
    with pytest.raises(HypothesisError, match="N: the blocks .* take 6 rows, more than N = 5"):
        y.fit(5)
    assert y.fit(8).n == 8


@pytest.mark.parametrize("call, name", [
    (lambda: sym("x y", 2), "name"),
    (lambda: sym("x", -1), "n"),
    (lambda: unit(3, 3), "k"),
    (lambda: from_array([["1+1"]]), "block"),
    (lambda: sym("x", 2) + sym("y", 3), "y"),
    (lambda: sym("x", 2, 1) | sym("y", 2, 2), "y"),
    (lambda: rows(sym("x", 2), 1, 4), "start/stop"),
])
def test_bad_blocks(call, name):
    with pytest.raises(HypothesisError, match=name):
        call()
