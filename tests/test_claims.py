"""Claims and verdicts: a wrong claim fails where it should, with a real counterexample."""
import pytest
import sympy

from symconv import (Claim, Hypothesis, HypothesisError, Instance, Signature, SizeParam, Step, Variant,
                     ones, sym, verify, zeros)
from symconv.constructions.shifts import shift_down
from symconv.constructions.sums import add_n
from symconv.hypotheses import divides
from symconv.parametric import size
from symconv.sweep import Cap

n, N = size("n"), size("N")


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
    assert v.scope == "box" and v.checked == "2 ≤ N ≤ 6; 5 points"
    assert v.as_dict()["checked"] == {"N": [2, 6]} and v.as_dict()["points"] == 5
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
                  (Variant("v", build, expect="fails", fails_at=("z1", "z")),),
                  (Hypothesis(2 * n <= N),))
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
    claim = Claim("T.3", "add", "test", (SizeParam("N", 2, 2),), None,
                  (Variant("v", build, expect="fails", fails_at=("z1", "z")),))
    (v,) = verify(claim, max_size=2)
    steps = {s.label: s for s in v.steps}
    assert not steps["z1"].holds and steps["z1"].failure.got == "S[0,0] + x[0,0]"
    assert not steps["z"].holds and steps["z"].failure.got == "S[0,0]"


def test_variant_where_narrows_the_sweep_and_the_scope():
    claim = shift_claim(1)
    only_even = Variant("even", claim.variants[0].build, where=Hypothesis(divides(2, N)))
    c = Claim("T.4", "shift", "test", claim.sizes, claim.claimed, (only_even,))
    (v,) = verify(c, max_size=7)
    assert v.sizes_checked == 3 and v.checked == "2 ≤ N ≤ 6 with 2 divides N; 3 points"


def test_explicit_sizes_must_satisfy_the_hypotheses():
    claim = Claim("T.5", "x", "test", (SizeParam("N", 1),), None, (Variant("v", lambda z: None),),
                  (Hypothesis(N >= 3),))
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


def test_an_erratum_whose_failing_step_moves_differs_from_the_record():
    """fails_at pins the step: recording the wrong one, or a step that now holds, is a difference."""
    def build(z):
        n, N = z["n"], z["N"]
        x, S = sym("x", n), sym("S", n)
        y = x | S | zeros(N - 2 * n)
        z1 = zeros(n) | (S + x) | zeros(N - 2 * n)       # right
        wrong = zeros(n) | S | zeros(N - 2 * n)          # a false final claim
        return Instance(y, add_n(n, N), wrong, (Step("z1", 1, z1), Step("z", 2, wrong)))
    def claim(fails_at):
        return Claim("T.7", "add", "test", (SizeParam("n", 1, 2), SizeParam("N", 2, 4)), None,
                     (Variant("v", build, expect="fails", fails_at=fails_at),), (Hypothesis(2 * n <= N),))
    (good,) = verify(claim(("z",)))
    assert good.ok and good.failing_steps == ("z",)
    (moved,) = verify(claim(("z1", "z")))
    assert not moved.ok and any("'z1' now holds" in d for d in moved.differences)
    (gone,) = verify(claim(("z", "z9")))
    assert not gone.ok and any("'z9' no longer exists" in d for d in gone.differences)
    # on a smaller box than the default one a recorded failure may not be reached: no difference then
    (small,) = verify(claim(("z1", "z")), max_size=3)
    assert small.ok


def test_a_variant_with_no_size_in_the_box_is_unchecked_not_an_error():
    from symconv.sweep import SizeParam as SP

    c = Claim("T.10", "x", "test", (SP("N", 1),), None, (Variant("v", lambda z: None),), (Hypothesis(N >= 6),))
    (v,) = verify(c, max_size=4)
    assert v.verdict == "unchecked" and v.ok and not v.holds and v.sizes_checked == 0


def test_every_claim_field_is_validated_when_the_claim_is_made():
    build = shift_claim(1).variants[0].build
    with pytest.raises(HypothesisError, match="Variant.expect"):
        Variant("v", build, expect="maybe")
    with pytest.raises(HypothesisError, match="Variant.fails_at"):
        Variant("v", build, expect="fails")
    with pytest.raises(HypothesisError, match="Claim.variants"):
        Claim("T.8", "x", "test", (SizeParam("N", 1),), None, ())
    with pytest.raises(HypothesisError, match="Claim.hypotheses"):
        Claim("T.8", "x", "test", (SizeParam("N", 1),), None, (Variant("v", build),), (Hypothesis(n <= N),))
    with pytest.raises(HypothesisError, match="not from text"):
        Hypothesis("N >= 3")
    bad = Claim("T.8", "x", "test", (SizeParam("N", 2),), lambda z: "(1, 1)", (Variant("v", build),))
    with pytest.raises(HypothesisError, match="Claim.claimed"):
        verify(bad, max_size=3)
    none = Claim("T.8", "x", "test", (SizeParam("N", 2),), None, (Variant("v", lambda z: 42),))
    with pytest.raises(HypothesisError, match="returned int, expected an Instance"):
        verify(none, max_size=3)
    boom = Claim("T.8", "x", "test", (SizeParam("N", 2),), None, (Variant("v", lambda z: 1 // 0),))
    with pytest.raises(HypothesisError, match=r"building at sizes \{'N': 2\} raised ZeroDivisionError"):
        verify(boom, max_size=3)


def test_a_narrowed_hypothesis_changes_text_sweep_and_all_sizes_scope():
    """One Hypothesis object gives the printed statement, the sweep and the all-sizes facts."""
    from symconv.registry import load_claims
    from symconv.parametric.scope import describe

    c = next(c for c in load_claims() if c.name == "add_n")
    narrowed = Claim(c.id, c.name, c.statement, c.sizes, c.claimed, c.variants[:1],
                     (c.hypotheses[0].replace_atom(0, c.hypotheses[0].atoms[0].narrowed()),))
    assert "2n <= N" in c.full_statement and "2n < N" in narrowed.full_statement
    assert len(narrowed.sweep(6)) < len(c.sweep(6))
    assert all(2 * z["n"] < z["N"] for z in narrowed.sweep(6))
    assert "N - 2n - 1 >= 0" in str(describe(narrowed, narrowed.variants[0])[1])
    (v,) = verify(narrowed, max_size=5)
    assert v.holds and v.scope == "all sizes"


def test_caps_are_reported_and_lifted_only_within_the_time_budget():
    claim = shift_claim(1)
    capped = Claim("T.9", "shift", "test", (SizeParam("N", 2, 4),), claim.claimed, claim.variants)
    (v,) = verify(capped, max_size=6)
    assert v.checked == "2 ≤ N ≤ 4 (caps: N ≤ 4); 3 points"
    assert v.as_dict()["capped_by"][0]["cap"] == "N ≤ 4"
    (up,) = verify(capped, max_size=6, raise_caps=True, time_budget=60)
    assert up.checked == "2 ≤ N ≤ 6; 5 points" and up.box.caps[0].raised
    (kept,) = verify(capped, max_size=6, raise_caps=True, time_budget=1e-9)
    assert kept.sizes_checked == 3 and "over the time budget" in kept.box.caps[0].reason
    prod = Claim("T.9", "shift", "test", (SizeParam("N", 2),), claim.claimed, claim.variants, caps=(Cap(("N",), 3),))
    assert verify(prod, max_size=6)[0].checked == "2 ≤ N ≤ 3 (caps: N ≤ 3); 2 points"


def test_a_range_that_does_not_start_at_the_least_size_shows_its_lower_end():
    """s may be 0, but a hypothesis s >= 1 keeps 0 out: the box must not read "s ≤ 3"."""
    s_ = size("s")
    c = Claim("T.11", "x", "test", (SizeParam("N", 2, 4), SizeParam("s", 0, 3)), None,
              (Variant("v", lambda z: Instance(sym("y", z["N"]), shift_down(z["N"], 0), sym("y", z["N"]))),),
              (Hypothesis(s_ >= 1),))
    assert verify(c, max_size=8)[0].box.text().startswith("2 ≤ N ≤ 4, 1 ≤ s ≤ 3")
    open_ = Claim("T.11", "x", "test", (SizeParam("N", 2, 4), SizeParam("s", 0, 3)), None, c.variants)
    assert verify(open_, max_size=8)[0].box.text().startswith("2 ≤ N ≤ 4, s ≤ 3")


def test_a_huge_max_size_is_refused_naming_the_parameter():
    claim = Claim("T.12", "x", "test", (SizeParam("N", 1), SizeParam("s", 0), SizeParam("d", 1)), None,
                  (Variant("v", lambda z: None),))
    with pytest.raises(HypothesisError, match="max_size: a box of"):
        verify(claim, max_size=10**6)
    with pytest.raises(HypothesisError, match="time_budget"):
        verify(claim, max_size=2, time_budget="1 hour")


def test_variant_and_bound_texts_are_text():
    from symconv.certificates import Bound

    build = lambda z: None  # noqa: E731
    with pytest.raises(HypothesisError, match=r"^Variant.covers: v: expected text, got int"):
        Variant("v", build, covers=0)
    with pytest.raises(HypothesisError, match=r"^Variant.proved_at: v: .*give proof"):
        Variant("v", build, proved_at="N' = 2N")
    with pytest.raises(HypothesisError, match=r"^Bound.covers: expected text"):
        Bound("L", "5L", covers=None)
