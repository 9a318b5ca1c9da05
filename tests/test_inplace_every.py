"""Every butterfly factor in place: the three-pass split of any 2×2 block into blocks with D1, D2, D3 ≠ 0."""
import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy

from symconv import sym
from symconv.constructions.butterfly import ButterflyFactorMatrix, from_row_major, random_factor, row_major
from symconv.constructions.inplace import compile_factors_inplace
from symconv.constructions.inplace_every import (PATTERNS, _mul, compile_factors_inplace_every,
                                                 compile_kaleidoscope_inplace_every, in_u, integer_butterfly,
                                                 integer_factor, integer_kaleidoscope, split_block, split_factor)
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


# ---------------------------------------------------------------- the float split against the exact one

U53 = 2.0 ** -53


def _blocks_factor(blocks, dtype):
    """One B_k^(n) whose pairs (one factor, k/2 = len(blocks) offsets, padded with ones) are ``blocks``."""
    m = 1 << (len(blocks) - 1).bit_length()
    D = np.ones((4, m), dtype=dtype)
    D[:, :len(blocks)] = np.asarray(blocks, dtype=dtype).T
    return ButterflyFactorMatrix(2 * m, 2 * m, D[None])


def test_float_split_agrees_with_exact_on_every_small_block():
    """All 625 blocks in {−2, …, 2}: integer entries make G·C0⁻¹ and the tests of s, t and k exact in
    float64, so B and C are the exact blocks; A = (integers)/(t − s) has one rounding (relative ≤ u)."""
    blocks = list(itertools.product(range(-2, 3), repeat=4))
    exact = split_factor(_blocks_factor(blocks, object))
    fast = split_factor(_blocks_factor(blocks, float))
    for i, (x, f) in enumerate(zip(exact, fast)):
        assert f.D.dtype == float
        want = np.array([float(v) for v in x.D.flat]).reshape(x.D.shape)
        if i < 2:                                               # C (acts first) and B: equal
            assert np.array_equal(f.D, want)
        else:                                                   # A: one division
            assert np.all(np.abs(f.D - want) <= U53 * np.abs(want))
        assert (f.D[:, :3] != 0).all()                          # every pass in U


def test_float_split_is_split_block_in_floats():
    """Random float blocks with zeros: the vectorised split performs split_block's float operations in
    the same order, so the two agree bit for bit."""
    rng = np.random.default_rng(5)
    D = rng.standard_normal((4, 4, 8))
    D[rng.random(D.shape) < 0.35] = 0.0
    D[0, :2, 0] = 0.0                                           # a zero first row
    D[1, 2:, 1] = 0.0                                           # a zero second row
    D[2, :, 2] = 0.0                                            # the zero block
    D[3, :, 3] = (-1.0, 0.0, 0.0, 0.0)                          # second row zero with a = −1 (k = 2)
    F = ButterflyFactorMatrix(64, 16, D)
    scalar = [split_block(*(float(D[b, t, r]) for t in range(4))) for b in range(4) for r in range(8)]
    for i, part in enumerate(split_factor(F)):                  # parts (C, B, A); split_block gives (A, B, C)
        got = np.transpose(part.D, (0, 2, 1)).reshape(-1, 4)
        assert np.array_equal(got, np.array([blk[2 - i] for blk in scalar], dtype=float))


def test_float_split_refuses_non_finite_entries():
    D = np.ones((1, 4, 2))
    D[0, 2, 1] = np.nan
    with pytest.raises(HypothesisError, match="D3: nan is not a finite number"):
        split_factor(ButterflyFactorMatrix(4, 4, D))


def test_integer_factor_patterns_and_float_values():
    F = integer_factor(16, 8, np.random.default_rng(0))
    pairs = np.transpose(F.D, (0, 2, 1)).reshape(-1, 4).tolist()
    assert pairs[:len(PATTERNS)] == [list(p) for p in PATTERNS]
    assert not any(map(in_u, PATTERNS))                         # none of them in U: the open set refuses them
    with pytest.raises(HypothesisError, match="is 0"):
        compile_factors_inplace([F], 8, 2)
    Ff = integer_factor(16, 8, np.random.default_rng(0), values=(-1.0, 0.0, 1.0))
    assert Ff.D.dtype == float and integer_factor(16, 8, np.random.default_rng(0)).D.dtype == object
    assert [f.k for f in integer_butterfly(16, np.random.default_rng(0)).applied()] == [2, 4, 8, 16]
    with pytest.raises(HypothesisError, match="k: block size"):
        integer_factor(4, 8, np.random.default_rng(0))


def test_float_kaleidoscope_in_place_matches_the_exact_route():
    """The same M (integer values) as floats and as exact ints: same signature; the float stack's output
    within the bench's 1e-12 relative target of the exact product."""
    vals = (-2, -1, 0, 0, 1, 2)
    Kx = integer_kaleidoscope(8, 2, 1, np.random.default_rng(9), values=vals)
    Kf = integer_kaleidoscope(8, 2, 1, np.random.default_rng(9), values=tuple(float(v) for v in vals))
    assert all(np.array_equal(a.D.astype(float), b.D) and b.D.dtype == float
               for a, b in zip(Kx.factors(), Kf.factors()))
    sx, sf = compile_kaleidoscope_inplace_every(Kx, 4, 2), compile_kaleidoscope_inplace_every(Kf, 4, 2)
    assert sx.signature == sf.signature and all(l.b2.dtype == float for l in sf.layers)
    x = np.random.default_rng(2).integers(-3, 4, (4, 2))
    want = np.array([float(v) for v in Kx.apply(row_major(x.astype(object)))])
    got = run(sf, x.astype(float)).ravel()
    assert np.linalg.norm(got - want) <= 1e-12 * np.linalg.norm(want)


# ---------------------------------------------------------------- dyadic test matrices (exact float parameters)

from symconv.constructions.inplace_every import (DYADIC_PATTERNS, HALF_TURN_SCALES, check_dyadic_parameters,  # noqa: E402
                                                 dyadic_blocks, dyadic_butterfly, dyadic_factor,
                                                 dyadic_kaleidoscope, inplace_every_passes)


def _exact_twin(F):
    """The same factor with its (integer-valued) float entries as Python ints: the exact path."""
    return ButterflyFactorMatrix(F.n, F.k, np.vectorize(lambda x: Fraction(x), otypes=[object])(F.D))


def _params(stack):
    return [np.asarray(getattr(l, a)) for l in stack.layers for a in ("W", "h", "b1", "b2")]


@pytest.mark.parametrize("what,n,d", [("factor", 4, 2), ("factor", 2, 4), ("factor", 8, 2), ("butterfly", 4, 2),
                                      ("butterfly", 2, 4), ("kaleidoscope", 2, 2)])
def test_dyadic_matrices_have_float_parameters_equal_to_the_exact_ones(what, n, d):
    """The float path on a dyadic test matrix gives every layer parameter exactly (as a Fraction) equal to the
    exact path's on the same integer entries: no rounding anywhere (the half-turn passes included)."""
    rng = np.random.default_rng([n, d])
    if what == "factor":
        factors = [dyadic_factor(n * d, n * d // 2 if n >= 4 else n * d, d, rng)]
    elif what == "butterfly":
        factors = list(dyadic_butterfly(n * d, d, rng).applied())
    else:
        factors = list(dyadic_kaleidoscope(n * d, 2, 1, d, rng).factors())
    fast = compile_factors_inplace_every(factors, n if what != "kaleidoscope" else 2 * n, d)
    slow = compile_factors_inplace_every([_exact_twin(F) for F in factors], n if what != "kaleidoscope" else 2 * n, d)
    assert check_dyadic_parameters(fast)
    for pf, ps in zip(_params(fast), _params(slow)):
        assert pf.shape == ps.shape
        if pf.dtype.kind == "f":
            assert all(Fraction(float(x)) == Fraction(y) for x, y in zip(pf.flat, ps.flat))
    kinds = {tuple(int(v) for v in F.D[b, :, r]) for F in factors for b in range(F.D.shape[0])
             for r in range(F.D.shape[2]) if F.k < F.n}
    if what == "factor":                                       # the first pairs are the patterns (all once nd/2 >= 6)
        assert set(DYADIC_PATTERNS[:min(6, n * d // 2)]) <= kinds or factors[0].k == factors[0].n


def test_dyadic_pool_and_patterns():
    pool = set(dyadic_blocks())
    assert set(DYADIC_PATTERNS[:3]) <= pool
    zero_at = [sum(x == 0 for x in p[:3]) == 1 and p[:2] != (0, 0) and p[2:] != (0, 0) for p in DYADIC_PATTERNS[3:]]
    assert all(zero_at) and [p[:3].index(0) for p in DYADIC_PATTERNS[3:]] == [0, 1, 2]
    assert (2, 0, 1, 1) not in pool and (1, 1, 1, 1) in pool      # /3 in the split; S splits dyadically


def test_half_turn_passes_are_scaled_and_keep_the_product():
    F = ButterflyFactorMatrix(4, 4, np.array([[[1], [2], [3], [4]], [[0], [0], [5], [1]]], dtype=object).reshape(1, 4, 2))
    plain = split_factor(F)
    scaled = inplace_every_passes([F], 2)                     # k = 4 = R·D on a 2×2 grid: the half-turn
    mu, lam = HALF_TURN_SCALES
    assert (scaled[0].D == plain[0].D * mu).all() and (scaled[1].D == plain[1].D * lam).all()
    M = scaled[2].to_matrix() @ scaled[1].to_matrix() @ scaled[0].to_matrix()
    assert (M == F.to_matrix()).all()
    assert all((p.D == q.D).all() for p, q in zip(inplace_every_passes([F], 4), plain))   # a channel factor at D = 4


def test_rounded_float_parameters_are_refused_by_the_guard():
    """The old hooks' matrices (integer entries, the split divides by 3 and the half-turn by 36, 90) give rounded
    parameters; the guard names the first one."""
    F = integer_factor(16, 8, np.random.default_rng(0), (-2.0, -1.0, 0.0, 0.0, 1.0, 2.0))
    with pytest.raises(HypothesisError, match=r"layer \d+ .* is not a dyadic"):
        check_dyadic_parameters(compile_factors_inplace_every([F], 8, 2))
    G = dyadic_factor(16, 16, 2, np.random.default_rng(0))                # the half-turn, dyadic
    assert check_dyadic_parameters(compile_factors_inplace_every([G], 8, 2))
    bad = ButterflyFactorMatrix(16, 16, G.D + 1.0)                         # no longer of the dyadic form
    with pytest.raises(HypothesisError, match="not a dyadic"):
        check_dyadic_parameters(compile_factors_inplace_every([bad], 8, 2))
