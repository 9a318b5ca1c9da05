"""Claims and verdicts: a wrong claim fails where it should, with a real counterexample."""
import pytest
import sympy

from symconv import (Claim, Hypothesis, HypothesisError, Instance, Signature, SizeParam, Step, Variant,
                     ones, sym, verify, zeros)
from symconv.constructions.shifts import shift_down
from symconv.constructions.sums import add_n


def shift_claim(expected_shift):
    """shift_down by 1, claimed to shift by ``expected_shift``."""
    def build(z):
        y = sym("y", z["N"])
        exp = zeros(expected_shift) | sym("y", z["N"] - expected_shift) if expected_shift < z["N"] else zeros(z["N"])
        return Instance(y, shift_down(z["N"], 1), exp)
    return Claim("T.1", "shift", "test", (SizeParam("N", 2),),
                 lambda z: Signature(z["N"], 1, 1, z["N"], 1), (Variant("v", build),))


def test_a_true_claim_holds_over_the_sweep():
    (v,) = verify(shift_claim(1), max_size=6)
    assert v.verdict == "holds" and v.ok and v.sizes_checked == 5 and v.failure is None
    assert v.scope == "sizes <= 6"
    assert v.signature_claimed == v.signature_built == "(6, 1, 1, 6, 1)"


def test_a_false_claim_fails_at_the_first_size_with_a_counterexample():
    (v,) = verify(shift_claim(2), max_size=6)
    assert v.verdict == "fails" and not v.ok
    f = v.failure
    assert f.sizes == {"N": 2} and f.layer == 1
    assert f.position == (1, 0)  # row 1: got y[0], claimed 0
    assert f.got == "y[0,0]" and f.expected == "0"
    # the counterexample really separates got from expected
    assert f.counterexample and int(f.got_value) == f.counterexample["y[0,0]"] != int(f.expected_value)


def test_steps_are_checked_end_to_end_and_each_on_its_own():
    def build(z):
        n, N = z["n"], z["N"]
        x, S = sym("x", n), sym("S", n)
        y = x | S | zeros(N - 2 * n)
        wrong_z1 = zeros(n) | S | zeros(N - 2 * n)      # a false intermediate claim
        out = ones(n) | (S + x) | zeros(N - 2 * n)
        return Instance(y, add_n(n, N), out, (Step("z1", 1, wrong_z1), Step("z", 2, out)))
    claim = Claim("T.2", "add", "test", (SizeParam("n", 1, 2), SizeParam("N", 2, 4)), None,
                  (Variant("v", build, expect="fails"),),
                  (Hypothesis("2n <= N", lambda z: 2 * z["n"] <= z["N"]),))
    (v,) = verify(claim, max_size=4)
    assert v.verdict == "fails" and v.ok
    assert v.failure.step == "z1" and v.failure.layer == 1 and v.failure.position == (1, 0)
    by_label = {s.label: s for s in v.steps}
    assert not by_label["z1"].holds
    assert not by_label["z"].holds


def test_step_results_are_real():
    def build(z):
        x, S = sym("x", 1), sym("S", 1)
        y = x | S
        return Instance(y, add_n(1, 2), ones(1) | (S + x),
                        (Step("z1", 1, zeros(1) | S), Step("z", 2, ones(1) | (S + x))))
    claim = Claim("T.3", "add", "test", (SizeParam("N", 2, 2),), None, (Variant("v", build, expect="fails"),))
    (v,) = verify(claim, max_size=2)
    steps = {s.label: s for s in v.steps}
    assert not steps["z1"].holds and steps["z1"].failure.got == "S[0,0] + x[0,0]"
    assert not steps["z"].holds and steps["z"].failure.got == "S[0,0]"


def test_variant_where_narrows_the_sweep_and_the_scope():
    claim = shift_claim(1)
    only_even = Variant("even", claim.variants[0].build, where=Hypothesis("N even", lambda z: z["N"] % 2 == 0))
    c = Claim("T.4", "shift", "test", claim.sizes, claim.claimed, (only_even,))
    (v,) = verify(c, max_size=7)
    assert v.sizes_checked == 3 and v.scope == "sizes <= 7 with N even"


def test_explicit_sizes_must_satisfy_the_hypotheses():
    claim = Claim("T.5", "x", "test", (SizeParam("N", 1),), None, (Variant("v", lambda z: None),),
                  (Hypothesis("N >= 3", lambda z: z["N"] >= 3),))
    with pytest.raises(HypothesisError, match="hypothesis N >= 3 violated"):
        verify(claim, sizes=[{"N": 2}])
    with pytest.raises(HypothesisError, match="variants"):
        verify(shift_claim(1), variants=["nope"])


def test_mismatched_expected_shape_is_an_error():
    def build(z):
        return Instance(sym("y", 3), shift_down(3, 1), sym("y", 2))
    claim = Claim("T.6", "x", "test", (SizeParam("N", 3, 3),), None, (Variant("v", build),))
    with pytest.raises(HypothesisError, match="expected: shape"):
        verify(claim)
