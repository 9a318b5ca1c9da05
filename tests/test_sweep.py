"""The box of a sweep: pruned enumeration, the shared time budget, lifting caps within it."""
import itertools
import random
import time

import pytest

from symconv.claims import Claim, Variant, Instance, verify
from symconv.blocks import sym
from symconv.constructions.shifts import shift_down
from symconv.model import HypothesisError
from symconv.sweep import Cap, SizeParam, TimeBudget, enumerate_box, plan_raise, _ranges


def _brute(params, caps, max_size, admits, raised=frozenset()):
    names = [p.name for p in params]
    live = [c for c in caps if c.text not in raised]
    pts = []
    for combo in itertools.product(*_ranges(params, max_size, raised)):
        z = dict(zip(names, combo))
        if all(c.value(z) <= c.limit for c in live) and admits(z):
            pts.append(z)
    pts.sort(key=lambda s: (sum(s.values()), tuple(s.values())))
    return pts


def test_pruned_enumeration_lists_exactly_the_points_of_the_box():
    rng = random.Random(5)
    admits = lambda z: sum(z.values()) % 3 != 1  # noqa: E731
    for _ in range(150):
        k = rng.randint(1, 4)
        params = []
        for i in range(k):
            lo = rng.randint(0, 2)
            hi = rng.choice([None, lo, lo + 1, lo + 3])
            params.append(SizeParam(f"p{i}", lo, hi))
        names = [p.name for p in params]
        caps = tuple(Cap(tuple(rng.sample(names, rng.randint(1, k))), rng.randint(1, 20))
                     for _ in range(rng.randint(0, 2)))
        raised = frozenset(rng.sample([c.text for c in caps] + [p.name for p in params if p.hi], 1)) \
            if rng.random() < 0.3 and (caps or any(p.hi for p in params)) else frozenset()
        assert enumerate_box(params, caps, 6, admits, raised) == _brute(params, caps, 6, admits, raised)


def test_caps_bound_the_box_before_it_is_enumerated():
    params = (SizeParam("N", 1), SizeParam("d", 1))
    # 10^6 × 10^6 assignments, but N·d <= 8 leaves at most 8 values of each: no refusal, 20 points
    assert len(enumerate_box(params, (Cap(("N", "d"), 8),), 10**6, lambda z: True)) == 20
    with pytest.raises(HypothesisError, match="max_size: a box of"):
        enumerate_box(params, (), 10**6, lambda z: True)


def test_the_time_budget_is_shared_and_passes_on_what_a_variant_leaves():
    b = TimeBudget(40, parts=10)
    first = b.allot()
    assert first == pytest.approx(4 * 40 / 10)
    b.spend(0.0)
    assert b.allot() == pytest.approx(4 * 40 / 9)  # nothing spent: the share grows
    b.spend(30.0)
    assert b.allot() == pytest.approx(min(10.0, 4 * 10 / 8))
    with pytest.raises(HypothesisError, match="time_budget"):
        TimeBudget(0)


def _fake_check(seconds_per_point, fail_at=None):
    def check(points):
        for z in points:
            time.sleep(seconds_per_point)
            yield z, seconds_per_point, fail_at is not None and z == fail_at
    return check


def test_a_lift_slower_than_estimated_stops_and_keeps_its_cap():
    params = (SizeParam("N", 1, 2),)
    done = [{"N": 1}, {"N": 2}]
    timed = [({"N": 1}, 1e-4), ({"N": 2}, 1e-4)]  # the estimate: very cheap
    plan = plan_raise(params, (), 12, lambda z: True, done, timed, lambda z: 1.0, 0.15, True, _fake_check(0.05))
    (st,) = plan.statuses
    assert not st.raised and "stopped after" in st.reason
    assert plan.extra == ()  # the sizes it did check are not claimed: the box stays N <= 2
    # a generous budget lifts it: every extra point checked, and kept
    plan = plan_raise(params, (), 5, lambda z: True, done, timed, lambda z: 1.0, 30.0, True, _fake_check(0.0))
    assert plan.statuses[0].raised and [z["N"] for z in plan.extra] == [3, 4, 5]


def test_a_stopped_lift_keeps_the_points_that_change_the_verdict():
    params = (SizeParam("N", 1, 2),)
    timed = [({"N": 1}, 1e-4), ({"N": 2}, 1e-4)]
    plan = plan_raise(params, (), 12, lambda z: True, [{"N": 1}, {"N": 2}], timed, lambda z: 1.0, 0.15, True,
                      _fake_check(0.05, fail_at={"N": 3}))
    assert not plan.statuses[0].raised and {"N": 3} in plan.extra and "one of them fails" in plan.statuses[0].reason


def test_verify_with_a_shared_budget_names_the_caps_it_keeps():
    build = lambda z: Instance(sym("y", z["N"]), shift_down(z["N"], 0), sym("y", z["N"]))  # noqa: E731
    c = Claim("T.20", "x", "test", (SizeParam("N", 1, 2),), None, (Variant("v", build),))
    tiny = TimeBudget(1e-9, parts=1)
    (v,) = verify(c, max_size=5, raise_caps=True, time_budget=tiny)
    assert v.sizes_checked == 2 and not v.box.caps[0].raised and v.box.caps[0].reason.startswith("kept")
    (v,) = verify(c, max_size=5, raise_caps=True, time_budget=TimeBudget(60, parts=1))
    assert v.sizes_checked == 5 and v.box.caps[0].raised
    (v,) = verify(c, max_size=5)  # no --max-size given: the cap stays, and its JSON reason says why
    assert v.sizes_checked == 2 and v.box.as_dict()["capped_by"][0]["reason"] == "kept without --max-size"


# ---------------------------------------------------------------- the decision procedure's shortcut


def test_witness_points_give_the_same_decisions_as_fourier_motzkin():
    """A form negative at a witness is never implied, a row (or a sum of two) plus a constant >= 0
    always is; the decisions are exactly Fourier–Motzkin's."""
    from symconv.parametric import linear
    from symconv.parametric.linear import Facts, Lin, _implies, _witnesses

    rng = random.Random(11)
    names = ["n", "m", "N", "s"]
    checked = refuted = 0
    for _ in range(60):
        rows = [Lin.make({k: 1}, -rng.randint(0, 2)) for k in names[:2]]
        rows += [Lin.make({k: rng.randint(-2, 2) for k in names}, rng.randint(-4, 4)) for _ in range(rng.randint(1, 4))]
        facts = Facts.of(*rows)
        for z in _witnesses(facts.rows):
            assert facts.holds_at({k: z.get(k, 0) for k in names})
        sums = [a + b for a in facts.rows for b in facts.rows] + list(facts.rows)
        for t in range(8):
            form = Lin.make({k: rng.randint(-2, 2) for k in names}, rng.randint(-3, 3)) if t % 2 else \
                rng.choice(sums) + rng.randint(-2, 2)  # a row (or two) plus a constant: the other shortcut
            want = _implies.__wrapped__(facts.rows, form)
            assert Facts(facts.rows).proves(form) == want
            checked += 1
            refuted += linear._refuted_by(_witnesses(facts.rows), form)
    assert checked == 480 and refuted > 50  # the shortcut is taken, and agrees each time
