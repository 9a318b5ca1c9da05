"""The kaleidoscope hierarchy (Def. H.17) and the Lemma H.18 stacks."""
import numpy as np
import pytest
import sympy

from symconv import HypothesisError, sym, verify
from symconv.constructions.butterfly import from_row_major, random_butterfly, row_major
from symconv.constructions.kaleidoscope import (BBStar, Kaleidoscope, compile_kaleidoscope,
                                                compile_kaleidoscope_narrow, kaleidoscope_layer_count,
                                                kaleidoscope_narrow_layer_count, random_kaleidoscope,
                                                symbolic_kaleidoscope)
from symconv.numeric import run
from symconv.registry import load_claims
from symconv.symbolic import evaluate

RNG = np.random.default_rng(3)


def test_bbstar_is_m1_times_m2_transpose():
    M1, M2 = random_butterfly(8, RNG), random_butterfly(8, RNG)
    A = BBStar(M1, M2)
    x = RNG.standard_normal(8)
    assert np.allclose(A.to_matrix(), M1.to_matrix() @ M2.to_matrix().T)
    assert np.allclose(A.apply(x), A.to_matrix() @ x)
    assert len(A.applied()) == 6


def test_kaleidoscope_is_the_corner_of_the_product():
    K = random_kaleidoscope(4, 2, 3, RNG)
    E = np.eye(8)
    for t in K.terms:                 # E = E_3 E_2 E_1, E_1 acting first
        E = t.to_matrix() @ E
    assert np.allclose(K.to_matrix(), E[:4, :4])
    x = RNG.standard_normal((2, 4))
    assert np.allclose(K.apply(x), x @ E[:4, :4].T)


@pytest.mark.parametrize("n,d,e,w", [(2, 1, 1, 1), (2, 2, 2, 2), (4, 2, 4, 1), (1, 4, 2, 2), (8, 4, 1, 1)])
def test_compiled_numeric(n, d, e, w):
    K = random_kaleidoscope(n * d, e, w, RNG)
    s = compile_kaleidoscope(K, n, d)
    assert s.L == kaleidoscope_layer_count(n, d, e, w)
    assert (s.N_int, s.d_int) == (e * n, 3 * d)
    u = RNG.standard_normal((2, n, d))
    ref = from_row_major(K.apply(row_major(u)), n, d)
    assert np.abs(run(s, u) - ref).max() < 1e-12


def test_compiled_exact():
    n, d = 2, 2
    K = symbolic_kaleidoscope(4, 2, 1)
    u = sym("u", n, d)
    out = evaluate(compile_kaleidoscope(K, n, d), u)
    exp = from_row_major(K.apply(row_major(u.entries)), n, d)
    for a, b in zip(out.entries.flat, exp.flat):
        assert sympy.expand(a - b) == 0


@pytest.mark.parametrize("bad, words", [
    (lambda: Kaleidoscope(4, 3, ()), "e: must be a power of two"),
    (lambda: Kaleidoscope(4, 1, ()), "terms: "),
    (lambda: Kaleidoscope(4, 2, (BBStar(random_butterfly(4, RNG), random_butterfly(4, RNG)),)), "terms\\[0\\]: size"),
    (lambda: BBStar(random_butterfly(4, RNG), random_butterfly(8, RNG)), "M2: size"),
    (lambda: random_kaleidoscope(4, 1, 0, RNG), "w: width"),
    (lambda: compile_kaleidoscope(random_kaleidoscope(8, 1, 1, RNG), 2, 2), "n, d:"),
])
def test_bad_input(bad, words):
    with pytest.raises(HypothesisError, match=words):
        bad()


def test_proof_verdict_and_numeric_hook():
    (claim,) = [c for c in load_claims() if c.id == "H.18"]
    vs = verify(claim, max_size=8)
    assert [v.variant for v in vs] == ["construction", "d' = d", "in place", "in place, any M"]
    for v in vs:
        assert v.ok and v.verdict == "holds" and v.sizes_checked >= 4
    for variant in claim.variants:
        case = variant.numeric(32, 4, 2, np.random.default_rng(0))
        scale = max(1.0, float(np.abs(case.expected.astype(float)).max()))   # 'any M' has integer entries
        assert np.abs(run(case.stack, case.input) - case.expected).max() < 1e-12 * scale
    narrow = claim.variants[1].numeric(32, 4, 1, np.random.default_rng(0)).stack
    assert (narrow.N_int, narrow.d_int) == (2 * 2 * 32, 4)     # e = 2: N' = 2en, d' = d


@pytest.mark.parametrize("n,d,e,w", [(2, 2, 1, 1), (2, 2, 2, 2), (4, 2, 4, 1), (1, 4, 2, 1), (8, 1, 1, 2)])
def test_narrow_numeric_and_count(n, d, e, w):
    K = random_kaleidoscope(n * d, e, w, RNG)
    u = RNG.standard_normal((2, n, d))
    s = compile_kaleidoscope_narrow(K, n, d)
    lg = lambda v: int(v).bit_length() - 1
    assert (s.N_int, s.d_int) == (2 * e * n, d)
    assert s.L == kaleidoscope_narrow_layer_count(n, d, e, w) == 2 * w * (2 * lg(d) + 3 * lg(e * n))
    ref = np.stack([K.apply(x.ravel()).reshape(n, d) for x in u])
    assert np.abs(run(s, u) - ref).max() < 1e-12


def test_double_expansion_keeps_the_matrix_and_meets_n_prime():
    from symconv.constructions.kaleidoscope import double_expansion
    K = symbolic_kaleidoscope(4, 2, 2, "k")
    K2 = double_expansion(K)
    assert (K2.n, K2.e, K2.w) == (4, 4, 2)
    assert all(sympy.expand(a - b) == 0 for a, b in zip(K.to_matrix().flat, K2.to_matrix().flat))
    s = compile_kaleidoscope_narrow(K, 2, 2)
    assert (s.N_int, s.d_int) == (K2.e * 2, 2)          # N' = e′·n with e′ = 2e, and d' = d


def test_narrow_bad_input():
    with pytest.raises(HypothesisError, match="n, d:"):
        compile_kaleidoscope_narrow(random_kaleidoscope(8, 1, 1, RNG), 2, 2)
    with pytest.raises(HypothesisError, match="K: expected a Kaleidoscope"):
        compile_kaleidoscope_narrow("K", 2, 2)
