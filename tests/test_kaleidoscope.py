"""The kaleidoscope hierarchy (Def. H.17) and the Lemma H.18 stacks."""
import numpy as np
import pytest
import sympy

from symconv import HypothesisError, sym, verify
from symconv.constructions.butterfly import from_row_major, random_butterfly, row_major
from symconv.constructions.kaleidoscope import (BBStar, Kaleidoscope, compile_kaleidoscope,
                                                kaleidoscope_layer_count, random_kaleidoscope,
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
    (v,) = verify(claim, max_size=8)
    assert v.ok and v.verdict == "holds" and v.sizes_checked >= 4
    case = claim.variants[0].numeric(32, 4, 2, np.random.default_rng(0))
    assert np.abs(run(case.stack, case.input) - case.expected).max() < 1e-12
