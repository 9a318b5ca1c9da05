"""Blocks: the paper's (a | b | c) notation at concrete sizes."""
import numpy as np
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
    (lambda: from_array([["1+1"]]), r"a\[0\]\[0\]: .1\+1. is a string"),
    (lambda: sym("x", 2) + sym("y", 3), "y"),
    (lambda: sym("x", 2, 1) | sym("y", 2, 2), "y"),
    (lambda: rows(sym("x", 2), 1, 4), "start/stop"),
])
def test_bad_blocks(call, name):
    with pytest.raises(HypothesisError, match=name):
        call()


# ----------------------------------------------------------------- blocks behave like sequences


def test_indexing_slicing_len_and_iteration():
    b = sym("x", 4, 2)
    assert len(b) == 4 and b[1].shape == (1, 2) and b[-1] == b[3]
    assert b[1:3] == rows(b, 1, 3) and b[::-1] == reverse(b) and b[1:3].name == "x[1:3]"
    assert b[2, 1] == sympy.Symbol("x[2,1]") and [r.shape for r in b] == [(1, 2)] * 4
    with pytest.raises(HypothesisError, match="index: row -5 is outside"):
        b[-5]
    with pytest.raises(HypothesisError, match="index: slice step cannot be zero"):
        b[::0]
    with pytest.raises(HypothesisError, match="index: expected an integer"):
        b["1"]


def test_negation_powers_and_scalars():
    x = sym("x", 2)
    assert (-x).entries[:, 0].tolist() == [-sympy.Symbol("x[0,0]"), -sympy.Symbol("x[1,0]")]
    assert (x ** 3)[1, 0] == sympy.Symbol("x[1,0]") ** 3 and (x ** 0) == ones(2)
    assert (1 - x) == -(x - 1) and (2 + x) == (x + 2)


def test_value_equality_and_hashing():
    a, b = sym("x", 3) | zeros(1), sym("x", 3) | zeros(1)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert from_array([[1], [2]], "p") == from_array([[1], [2]], "q")  # names are not values
    assert a != sym("y", 3) | zeros(1) and a != ones(4) and (a == "x") is False


def test_sympy_and_numpy_interop():
    x = sym("x", 2, 2)
    M = sympy.Matrix(x)
    assert M.shape == (2, 2) and M[1, 0] == sympy.Symbol("x[1,0]")
    assert sympy.latex(x) == sympy.latex(sympy.ImmutableMatrix(x.entries.tolist()))
    a = np.asarray(x)
    assert a.dtype == object and a.shape == (2, 2)
    a[0, 0] = 0  # a copy: the block stays as it was
    assert x[0, 0] == sympy.Symbol("x[0,0]")


def test_blocks_do_not_import_the_renderers():
    import ast
    from pathlib import Path

    src = Path(__file__).resolve().parent.parent / "symconv" / "blocks.py"
    tree = ast.parse(src.read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert not any("latex" in (getattr(n, "module", "") or "") for n in top)
    _latex = next(f for c in tree.body if isinstance(c, ast.ClassDef) and c.name == "Block"
                  for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "_latex")
    assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(_latex))


def test_help_lists_the_parameters():
    from symconv import Block, Layer, Stack

    for cls, params in ((Block, ("entries", "name")), (Layer, ("W", "h", "b1", "b2", "conv", "label")),
                        (Stack, ("N", "d", "layers", "N_int", "d_int", "name"))):
        for p in params:
            assert f"``{p}``" in cls.__doc__, (cls.__name__, p)
