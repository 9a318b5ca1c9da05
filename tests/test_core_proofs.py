"""The proofs of Lemma H.7, Prop. H.8, Prop. H.9 and Lemma H.11: verdicts and where they fail."""
import numpy as np
import pytest

from symconv import HypothesisError, verify
from symconv.constructions.primitives import hadamard, linear
from symconv.constructions.shifts import shift_down, shift_up, shift_up_as_printed
from symconv.constructions.sums import add_n
from symconv.dependency import dependencies, generic_dependencies, missing, shift_up_pattern
from symconv.registry import load_claims, select


def verdicts(claim_id, name, max_size=6):
    (claim,) = [c for c in select(load_claims(), [claim_id]) if c.name == name]
    return {v.variant: v for v in verify(claim, max_size=max_size)}


@pytest.mark.parametrize("name", ["hadamard", "identity", "linear"])
def test_h7_primitives_hold(name):
    (v,) = verdicts("H.7", name).values()
    assert v.verdict == "holds" and v.sizes_checked == 12


def test_h8_shift_down_holds_for_every_shift():
    (v,) = verdicts("H.8", "shift_down").values()
    assert v.verdict == "holds" and v.sizes_checked == 2 * sum(range(1, 7))


def test_h8_printed_shift_up_fails_at_its_first_step_under_both_readings():
    vs = verdicts("H.8", "shift_up")
    for name in ("as printed, ⊛ circular", "as printed, ⊛ causal"):
        f = vs[name].failure
        assert vs[name].verdict == "fails"
        assert f.step == "Y0 = coeff(Σ y[N-1-i] X^i)" and f.layer == 1 and f.position == (0, 0)
        assert f.got == "y[0,0]" and f.expected == "y[1,0]"
        steps = {s.label: s.holds for s in vs[name].steps}
        assert steps["Y1 ≡ shift_down(Y0, s)"] and steps["shift_up in three layers"]  # the call and the count hold
        assert vs[name].failing_steps[0] == "Y0 ≡ BaseConv(y, 0, e_0, 1, 0)" and vs[name].ok
    corrected = vs["corrected"]
    assert corrected.verdict == "holds" and corrected.signature_built.split(", ")[1] == "1"


def test_h9_printed_parameters_hold_and_the_printed_call_fails():
    vs = verdicts("H.9", "add_n")
    assert vs["as printed"].verdict == "holds"
    f = vs["printed call"].failure
    assert f.step.startswith("z = ") and f.layer == 2 and f.position == (1, 0)
    assert f.got == "S[0,0] + x[0,0] + 1" and f.expected == "S[0,0] + x[0,0]"
    steps = {s.label: s.holds for s in vs["printed call"].steps}
    assert [k for k, ok in steps.items() if not ok] == ["z ≡ BaseConv(z¹, 0, h², b²₁, b²₁)",
                                                         "z = b²₁ ⊙ (h² * z¹ + b²₂) = (1^n | S + x | 0…)"]
    assert all(ok for k, ok in steps.items() if k.startswith("h") or k.startswith("two"))  # products, count


def test_h11_stacking_verdicts():
    vs = verdicts("H.11", "stacking", max_size=5)
    assert vs["as printed, causal, d' = d"].verdict == "holds"
    assert vs["as printed, circular, no padding"].verdict == "holds"
    assert vs["as printed, causal, any d'"].failure.sizes["dp"] > vs["as printed, causal, any d'"].failure.sizes["d"]
    assert vs["as printed, circular, N' > N"].failure.sizes["Np"] > vs["as printed, circular, N' > N"].failure.sizes["N"]
    assert vs["corrected, causal"].verdict == vs["corrected, circular"].verdict == "holds"


def test_no_causal_stack_shifts_up():
    N, s = 6, 2
    need = shift_up_pattern(N, s)
    for L in (1, 3, 12):
        generic = generic_dependencies(N, L, "causal")
        assert np.array_equal(generic, np.tril(np.ones((N, N), dtype=bool)))
        assert missing(need, generic) == [(i, i + s) for i in range(N - s)]
    # a circular layer can, and the corrected construction has exactly the needed pattern
    assert missing(need, generic_dependencies(N, 1, "circular")) == []
    assert np.array_equal(dependencies(shift_up(N, s))[:N - s], need[:N - s])
    # the printed route only ever looks down
    assert missing(need, dependencies(shift_up_as_printed(N, s))) != []


def test_dependencies_follow_filters_and_masks():
    D = dependencies(add_n(2, 6))
    assert D[2].tolist() == [True, False, True, False, False, False]  # S + x at row 2 reads rows 0 and 2
    assert not D[0].any() and not D[4:].any()                        # constants and masked rows read nothing


@pytest.mark.parametrize("call, name", [
    (lambda: shift_down(4, 4), "s: shift s = 4 must be below N = 4"),
    (lambda: shift_up(4, -1), "s: the shift must be a non-negative integer"),
    (lambda: add_n(3, 5), "N: x and S .* need 2n <= N"),
    (lambda: add_n(0, 5), "n: block length"),
    (lambda: linear(np.ones((2, 3)), 4), "W: must be square"),
    (lambda: hadamard(np.ones((2, 2, 2))), "c: expected a 2-D array"),
])
def test_bad_sizes_name_the_hypothesis(call, name):
    with pytest.raises(HypothesisError, match=name):
        call()
