"""Prop. H.10 (remember): printed steps, the corrected construction, its size condition, bad input."""
from pathlib import Path

import numpy as np
import pytest

from symconv import HypothesisError, sym, verify
from symconv.claims import check_all
from symconv.constructions.remember import remember, remember_as_printed, required_length
from symconv.numeric import run
from symconv.registry import load_module
from symconv.symbolic import evaluate

H10 = load_module(Path(__file__).resolve().parent.parent / "proofs" / "h10_remember.py")
MAIN, FIT, AT_N = H10.CLAIMS


def one(claim, variant, **sizes):
    (v,) = verify(claim, variants=[variant], sizes=[sizes])
    return v


def steps(v):
    return {s.label: s for s in v.steps}


def check(build, **sizes):
    """Build and check one instance directly (sizes outside the verify sweep's bounds)."""
    failure, results = check_all(build(sizes), sizes)
    return failure, {r.label: r for r in results}


def test_printed_z2_fails_with_its_coefficient():
    v = one(FIT, "as printed", n=1, m=1, s=0, t=0, N=5, d=1)
    assert v.verdict == "fails"
    st = steps(v)
    assert st["z¹ = b¹₁ ⊙ (h¹ * y)"].holds
    f = st["z² = b²₁ ⊙ (h² * z¹)"].failure
    # row 2n+s+m+t = 3: the printed z² has p ⊙ (h ∗ x) there, the layers leave v
    assert (f.position, f.got, f.expected) == ((3, 0), "v[0,0]", "h[0,0]*p[0,0]*x[0,0]")
    assert not st["z = shift_up(z², 2n+s+m+t)"].holds  # H.8's printed shift_up shifts down


def test_printed_z2_fails_with_s_positive():
    v = one(FIT, "as printed, working shift_up", n=2, m=1, s=1, t=1, N=11, d=1)
    f = steps(v)["z² = b²₁ ⊙ (h² * z¹)"].failure
    # row 2n+s+m+t = 7 gets row n = 2 of p ⊙ (h ∗ x) (moved by n+m+s+t = 5), not row 0
    assert f.position == (7, 0)
    assert f.got == "h[1,0]*p[2,0]*x[1,0]"


def test_working_shift_up_step_holds_from_claimed_z2():
    failure, st = check(H10.build_printed("working"), n=1, m=2, s=1, t=1, N=10, d=2)
    assert st["z¹ = b¹₁ ⊙ (h¹ * y)"].holds and st["z = shift_up(z², 2n+s+m+t)"].holds
    assert not st["z² = b²₁ ⊙ (h² * z¹)"].holds and failure.step == "z² = b²₁ ⊙ (h² * z¹)"


def test_recorded_verdicts_over_the_sweep():
    for claim in (MAIN, FIT, AT_N):
        for v in verify(claim, max_size=7):
            assert v.ok, (claim.name, v.variant, v.verdict)
    corrected = verify(MAIN, max_size=7, variants=["corrected"])[0]
    assert corrected.verdict == "holds" and corrected.sizes_checked > 40


def test_corrected_outside_the_sweep():
    for sizes in (dict(n=3, m=4, s=2, t=1, N=15, d=1), dict(n=2, m=3, s=1, t=0, N=10, d=3),
                  dict(n=4, m=1, s=3, t=2, N=15, d=1)):
        assert sizes["N"] == required_length(sizes["n"], sizes["m"], sizes["s"])
        failure, st = check(lambda z: AT_N.variants[0].instance(z, AT_N), **sizes)
        assert failure is None and all(r.holds for r in st.values())


def test_size_condition_is_exact_in_and_outside_the_sweep():
    for n, m, s in [(1, 1, 0), (1, 2, 1), (2, 1, 2), (2, 2, 0), (3, 2, 1), (1, 3, 3)]:
        M, ks = H10.smallest_length(n, m, s)
        assert M == required_length(n, m, s), (n, m, s, M)


def test_paper_hypothesis_does_not_suffice():
    # n = m = 2, s = t = 0, N = 4 satisfies n + m + s + t <= N; the construction needs 7
    h, p = sym("h", 2).entries, sym("p", 2).entries
    assert required_length(2, 2, 0) == 7
    with pytest.raises(HypothesisError, match=r"N' >= max\(2n\+s\+2m-1, 2n\+2s\+m\) = 7"):
        remember(4, 2, 2, 0, 0, h, p)
    assert remember(4, 2, 2, 0, 0, h, p, N_int=7).signature.N_int == 7
    assert not any(H10.holds(6, 2, 2, 0, k) for k in range(1, 6))


def test_remember_on_numbers():
    y = np.array([[1.0], [2.0], [0.0], [5.0], [7.0], [0.0], [0.0], [0.0]])
    out = run(remember(8, 2, 2, 1, 0, [[1], [3]], [[1], [10], [100]]), y)
    # h(X)·x(X) = (1 + 3X)(1 + 2X) = 1 + 5X + 6X²
    np.testing.assert_allclose(out[:, 0], [1, 50, 600, 5, 7, 0, 0, 0], rtol=1e-13, atol=1e-13)


def test_numeric_hook_matches_reference():
    case = H10.numeric_case(4096, 3, 2, np.random.default_rng(1))
    got, ref = run(case.stack, case.input), case.expected
    assert np.max(np.abs(got - ref)) <= 1e-12 * np.max(np.abs(ref))
    assert case.stack.L == 2 and case.stack.N_int == 4096


@pytest.mark.parametrize("args, match", [
    ((5, 2, 2, 1, 1, "h2", "p3"), r"n \+ m \+ s \+ t <= N"),
    ((9, 2, 2, 1, 0, "h2", "p2"), r"p: the gate must be \(n\+s\)×d"),
    ((9, 2, 2, 1, 0, "h3", "p3"), r"h: the filter must be n×d"),
    ((9, 2, 2, -1, 0, "h2", "p1"), r"s: must be an integer >= 0"),
    ((9, 0, 2, 1, 0, "h2", "p1"), r"n: must be an integer >= 1"),
])
def test_bad_input(args, match):
    N, n, m, s, t, hn, pn = args
    h = sym("h", int(hn[1:])).entries
    p = sym("p", int(pn[1:])).entries
    for build in (remember, remember_as_printed):
        with pytest.raises(HypothesisError, match=match):
            build(N, n, m, s, t, h, p)


def test_statement_hypotheses_on_sizes():
    with pytest.raises(HypothesisError, match=r"s >= n - 1 \(x∗h ∈ R\^\(n\+s\)\)"):
        one(MAIN, "corrected", n=2, m=1, s=0, t=1, N=6, d=1)
    with pytest.raises(HypothesisError, match=r"n \+ m \+ s \+ t <= N"):
        one(MAIN, "corrected", n=2, m=2, s=1, t=1, N=5, d=1)


def test_bad_internal_length():
    h, p = sym("h", 1).entries, sym("p", 1).entries
    with pytest.raises(HypothesisError, match="N_int: internal length"):
        remember(5, 1, 1, 0, 0, h, p, N_int=4)
    with pytest.raises(HypothesisError, match="shift_up"):
        remember_as_printed(5, 1, 1, 0, 0, h, p, shift_up="other")


def test_as_printed_is_five_layers_and_first_step_is_right_when_it_fits():
    st = remember_as_printed(9, 1, 1, 0, 0, [[2]], [[3]])
    assert st.L == 5 and st.signature.N_int == 9
    y = sym("x", 1) | sym("v", 1) | sym("w", 7) * 0
    first = evaluate(type(st)(9, 1, st.layers[:1]), y).entries[:, 0].tolist()
    assert first[0] == 6 * sym("x", 1).entries[0, 0] and first[3] == sym("v", 1).entries[0, 0]
