"""Every butterfly factor in place: the three-pass split of any 2×2 block into blocks with D1, D2, D3 ≠ 0."""
import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy

from symconv import sym
from symconv.constructions.butterfly import ButterflyFactorMatrix, from_row_major, random_factor, row_major
from symconv.constructions.inplace import compile_factors_inplace
from symconv.constructions.inplace_every import (_mul, compile_factors_inplace_every, compile_kaleidoscope_inplace_every,
                                                 in_u, integer_kaleidoscope, split_block, split_factor)
from symconv.model import HypothesisError
from symconv.numeric import run
from symconv.symbolic import evaluate


def test_every_block_with_entries_in_minus2_to_2_splits_exactly():
    """All 625 blocks (every zero pattern, and values that hit each excluded choice of s, t and k)."""
    for G in itertools.product(range(-2, 3), repeat=4):
        A, B, C = split_block(*G)
        assert all(map(in_u, (A, B, C))), G
        assert _mul(A, _mul(B, C)) == tuple(Fraction(x) for x in G), G


def test_fractions_floats_and_refusals():
    A, B, C = split_block(Fraction(1, 3), Fraction(2, 3), 0, 0)
    assert _mul(A, _mul(B, C)) == (Fraction(1, 3), Fraction(2, 3), 0, 0)
    A, B, C = split_block(0.5, -0.25, 0.0, 2.0)
    assert np.allclose(_mul(A, _mul(B, C)), (0.5, -0.25, 0.0, 2.0)) and all(map(in_u, (A, B, C)))
    with pytest.raises(HypothesisError, match="D2: .*not a number"):
        split_block(1, sympy.Symbol("x"), 0, 0)
    with pytest.raises(HypothesisError, match="boolean"):
        split_block(True, 1, 1, 1)
    with pytest.raises(HypothesisError, match="D3: nan is not a finite number"):
        split_block(1.0, 1.0, float("nan"), 1.0)
    with pytest.raises(HypothesisError, match="values: .*not a number"):
        integer_kaleidoscope(4, 1, 1, np.random.default_rng(0), values=("1", "2"))
    with pytest.raises(HypothesisError, match="n: "):
        integer_kaleidoscope(6, 1, 1, np.random.default_rng(0))
    with pytest.raises(HypothesisError, match="n: the 2 butterflies"):
        integer_kaleidoscope(1 << 40, 1, 1, np.random.default_rng(0))


def test_a_factor_the_open_set_refuses_is_computed_in_place():
    F = ButterflyFactorMatrix(8, 4, [[[0, 1], [0, 0], [2, 0], [0, 3]], [[0, 0], [0, 0], [0, 0], [0, 0]]])
    with pytest.raises(HypothesisError, match="is 0"):
        compile_factors_inplace([F], 4, 2)
    st = compile_factors_inplace_every([F], 4, 2)
    assert (st.N_int, st.d_int) == (4, 2)
    u = sym("u", 4, 2)
    got = evaluate(st, u).entries
    want = from_row_major(F.apply(row_major(u.entries)), 4, 2)
    assert all(sympy.expand(a - b) == 0 for a, b in zip(got.flat, np.asarray(want).flat))
    F1, F2, F3 = split_factor(F)
    assert (F3.to_matrix() @ F2.to_matrix() @ F1.to_matrix() == F.to_matrix()).all()


@pytest.mark.parametrize("n,d,e,w", [(2, 2, 1, 1), (2, 2, 2, 1), (4, 2, 1, 2)])
def test_kaleidoscope_with_zeros_in_place_exactly(n, d, e, w):
    K = integer_kaleidoscope(n * d, e, w, np.random.default_rng(n + 10 * e + 100 * w))
    assert any(x == 0 for f in K.factors() for x in f.D.flat)   # the open set alone would refuse it
    st = compile_kaleidoscope_inplace_every(K, n, d)
    assert (st.N_int, st.d_int) == (e * n, d)
    u = sym("u", n, d)
    got = evaluate(st, u).entries
    want = from_row_major(K.apply(row_major(u.entries)), n, d)
    assert all(sympy.expand(a - b) == 0 for a, b in zip(got.flat, np.asarray(want).flat))


def test_numeric_run_with_float_entries():
    rng = np.random.default_rng(3)
    D = random_factor(16, 16, rng).D.copy()
    D[0, 1, :2] = 0.0    # zero D2 entries: outside the open set
    F = ButterflyFactorMatrix(16, 16, D)
    st = compile_factors_inplace_every([F], 8, 2)
    x = rng.standard_normal((3, 8, 2))
    want = np.stack([from_row_major(F.to_matrix().astype(float) @ row_major(xi), 8, 2) for xi in x])
    assert np.allclose(run(st, x), want, atol=1e-9)
