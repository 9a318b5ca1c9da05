"""The block algebra with symbolic sizes and the all-sizes verdicts (issue 6).

Every all-sizes verdict is cross-checked against the exact concrete checker at
instantiated sizes outside the verify sweep, including a printed step that is
false (Prop. H.9's printed call).
"""
import itertools
import random

import pytest

from symconv import Claim, Instance, Signature, SizeParam, Hypothesis, Variant, sym, verify, zeros
from symconv.blocks import rows
from symconv.claims import check_all, check_instance
from symconv.constructions.shifts import shift_down
from symconv.model import HypothesisError
from symconv.parametric import (
    X, Description, Facts, PLayer, PStep, base_facts, check, cross_check, ge, gt, instantiate, lin,
    pones, psym, punit, pzeros, size,
)
from symconv.registry import load_claims

n, N, s, m = size("n"), size("N"), size("s"), size("m")


def claim(name):
    return [c for c in load_claims() if c.name == name][0]


# ---------------------------------------------------------------- decisions


def test_decisions_follow_from_the_hypotheses():
    f = Facts.of(ge(n, 1), ge(N, 2 * n))
    assert f.le(n, N) is True
    assert f.lt(n, N) is True            # n >= 1 and N >= 2n
    assert f.le(2 * n, N) is True
    assert f.lt(2 * n, N) is None        # N = 2n is allowed
    assert f.le(3 * n, N) is None
    assert f.le(N + 1, n) is False
    assert f.eq(2 * n + N - n, N + n) is True


def test_proofs_are_sound_on_a_box():
    """Whenever the procedure proves form >= 0, no integer point of a box violates it."""
    rng = random.Random(7)
    names = ["a", "b", "c"]
    for _ in range(60):
        rows_ = [lin(rng.randint(-3, 3)) + sum((rng.randint(-2, 2) * size(v) for v in names), lin(0))
                 for _ in range(rng.randint(1, 3))]
        facts = Facts.of(*rows_, *(size(v) for v in names))
        form = lin(rng.randint(-3, 3)) + sum((rng.randint(-2, 2) * size(v) for v in names), lin(0))
        if not facts.proves(form):
            continue
        for point in itertools.product(range(0, 6), repeat=3):
            z = dict(zip(names, point))
            if facts.holds_at(z):
                assert form.at(z) >= 0, (str(facts), str(form), z)


def test_cases_split_the_integers():
    le, gt_ = Facts().cases(size("s"), 0)
    assert le.holds_at({"s": 0}) and not le.holds_at({"s": 1})
    assert gt_.holds_at({"s": 1}) and not gt_.holds_at({"s": 0})


# ---------------------------------------------------------------- bad input


def test_strings_and_bad_names_are_refused():
    with pytest.raises(HypothesisError, match="offset"):
        lin("n")
    with pytest.raises(HypothesisError, match="name"):
        size("n+1")
    with pytest.raises(HypothesisError, match="name"):
        psym("1x", n)
    with pytest.raises(HypothesisError, match="other"):
        psym("x", n) + psym("y", N)
    with pytest.raises(HypothesisError, match="c"):
        pones(n) * "2"


# ---------------------------------------------------------------- algebra


def test_h9_product_reads_off_the_papers_blocks():
    from symconv.parametric import multiply, refine

    f = Facts.of(ge(n, 1), ge(N, 2 * n))
    y = psym("x", n) | psym("S", n) | pzeros(N - 2 * n)
    prod = multiply(1 + X**n, y)
    assert [str(c) for c in refine([prod], f).blocks()] == ["x", "S + x", "S"]


def test_instantiate_matches_concrete_blocks():
    y = psym("y", N)
    got = instantiate(pzeros(s) | y.rows(0, N - s), {"N": 5, "s": 2}, d=2)
    want = (zeros(2, 2) | rows(sym("y", 5, 2), 0, 3)).entries
    assert got.tolist() == want.tolist()
    assert instantiate(punit(s, N), {"N": 4, "s": 1})[:, 0].tolist() == [0, 1, 0, 0]


def test_wrong_description_fails_for_all_sizes():
    """A wrong expected output (S + 2x) is found at rows [n, 2n) for every size."""
    y = psym("x", n) | psym("S", n) | pzeros(N - 2 * n)
    layer = PLayer(1 + X**n, pzeros(n) | pones(n) | pzeros(N - 2 * n))
    bad = Description(y, (layer,), pzeros(n) | psym("S", n) + 2 * psym("x", n) | pzeros(N - 2 * n),
                      facts=(ge(N, 2 * n),))
    r = check(bad, base_facts({"n": 1, "N": 2}))
    assert r.status == "fails"
    assert (str(r.mismatch.start), str(r.mismatch.stop)) == ("n", "2n")
    assert r.mismatch.everywhere and r.mismatch.certain


def test_rows_that_may_coincide_are_not_a_sure_failure():
    """y[i - s] against y[i + s] differ only when s >= 1: never reported for all sizes."""
    from symconv.parametric import compare

    f = base_facts({"N": 1, "s": 0}) + Facts.of(gt(N, 2 * s))
    y = psym("y", N)
    got = pzeros(s) | y.rows(0, N - 2 * s) | pzeros(s)
    exp = pzeros(s) | y.rows(2 * s, N) | pzeros(s)
    m = compare(got, exp, f, "z", 1)
    assert m is not None and not m.certain and not m.everywhere
    f1 = f + Facts.of(s - 1)  # with s >= 1 the rows are different ones
    assert compare(got, exp, f1, "z", 1).certain


def test_undecided_comparison_is_named():
    """Without N >= 2n the block 0^{N-2n} may have negative length; the check says so."""
    y = psym("x", n) | psym("S", n) | pzeros(N - 2 * n)
    desc = Description(y, (PLayer(1, 1),), y)
    r = check(desc, base_facts({"n": 1, "N": 1}), depth=0)
    assert r.status == "undecided"
    assert r.question == "whether N - 2n >= 0 (input: a block length or window)"


def test_filter_offset_that_may_be_negative_is_refused():
    y = psym("y", N)
    desc = Description(y, (PLayer(X**(s - 1), 1),), y, facts=(gt(N, s),))
    r = check(desc, base_facts({"N": 1, "s": 0}))
    assert r.status == "undecided" and r.question == "whether the filter offset s - 1 >= 0"


# ---------------------------------------------------------------- verify hook


@pytest.mark.parametrize("name,variant", [("shift_down", "construction"), ("shift_up", "corrected"),
                                          ("add_n", "as printed"), ("add_n", "printed call")])
def test_all_sizes_verdicts_agree_with_the_concrete_checker_beyond_the_sweep(name, variant):
    c = claim(name)
    (v,) = verify(c, max_size=4, variants=[variant])
    assert v.scope == "all sizes", v.parametric
    assert v.ok
    var = [x for x in c.variants if x.name == variant][0]
    big = [z for z in c.sweep(9) if max(z.values()) > 4][-3:]
    assert big
    for z in big:
        failure, _ = check_all(var.instance(z, c), z)
        assert (failure is None) == (v.verdict == "holds"), z


def test_printed_step_that_is_false_is_located_for_all_sizes():
    """H.9's printed call: step z fails on rows [n, 2n); at n=3, N=9 the first bad row is 3."""
    c = claim("add_n")
    var = [x for x in c.variants if x.name == "printed call"][0]
    from symconv.parametric.scope import describe

    desc, facts = describe(c, var)
    r = check(desc, facts)
    (z1, zz) = r.steps
    assert z1.status == "holds" and zz.status == "fails"
    assert (str(zz.mismatch.start), str(zz.mismatch.stop)) == ("n", "2n")
    assert zz.mismatch.got == "1 + S + x" and zz.mismatch.everywhere
    sizes = {"n": 3, "N": 9, "d": 1}
    _, steps = check_all(var.instance(sizes, c), sizes)
    concrete = [st for st in steps if st.label.startswith("z = ")][0]
    assert not concrete.holds
    assert concrete.failure.position[0] == zz.mismatch.start.at(sizes)
    assert concrete.failure.got.replace(" ", "") == "S[0,0]+x[0,0]+1"


def test_printed_shift_up_falls_back_and_says_why():
    c = claim("shift_up")
    for v in verify(c, max_size=4):
        if v.variant.startswith("as printed"):
            assert v.verdict == "fails" and v.scope == "box"
            assert "verdict from the concrete sweep" in v.parametric
            assert "N - s" in v.parametric


def _shift_claim(construction):
    return Claim("T.1", "shift", "shift_down", (SizeParam("N", 1), SizeParam("s", 0)),
                 lambda z: Signature(z["N"], 1, 1, z["N"], 1),
                 (Variant("v", construction=construction),), (Hypothesis(s < N),))


def test_one_source_the_concrete_instance_is_the_construction_instantiated():
    """There is no second description to disagree with: what is swept is what is proved."""
    def wrong(z):  # filter X^{s+1} where the claim says shift by s
        y = psym("y", z["N"])
        return Description(y, (PLayer(X**(z["s"] + 1), 1),), pzeros(z["s"]) | y.rows(0, z["N"] - z["s"]))

    def right(z):
        y = psym("y", z["N"])
        return Description(y, (PLayer(X**z["s"], 1),), pzeros(z["s"]) | y.rows(0, z["N"] - z["s"]))
    c = _shift_claim(right)
    inst = c.variants[0].instance({"N": 4, "s": 1, "d": 1}, c)
    assert inst.stack.layers[0].h.ravel().tolist() == [0, 1]
    assert cross_check(right({"N": N, "s": s}), inst, {"N": 4, "s": 1}) == ""
    (v,) = verify(c, max_size=3)
    assert v.holds and v.scope == "all sizes"
    (w,) = verify(_shift_claim(wrong), max_size=3)
    assert not w.holds and w.scope == "all sizes" and "for all sizes" in w.parametric  # a failure proved everywhere
    with pytest.raises(HypothesisError, match="exactly one of build and construction"):
        Variant("v", build=lambda z: None, construction=right)


def test_the_facts_of_the_all_sizes_proof_come_from_the_claims_hypothesis():
    from symconv.parametric.scope import describe

    def right(z):
        y = psym("y", z["N"])
        return Description(y, (PLayer(X**z["s"], 1),), pzeros(z["s"]) | y.rows(0, z["N"] - z["s"]))
    c = _shift_claim(right)
    assert "N - s - 1 >= 0" in str(describe(c, c.variants[0])[1])
    narrowed = Claim("T.1", "shift", "shift_down", c.sizes, c.claimed, c.variants, (Hypothesis(s + 1 < N),))
    assert "N - s - 2 >= 0" in str(describe(narrowed, narrowed.variants[0])[1])


def test_verify_json_and_table_show_the_scope():
    from symconv.cli import main
    import io
    import json
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        main(["verify", "H.9", "--max-size", "4", "--time-budget", "1000", "--format", "json"])
    rows_ = json.loads(buf.getvalue())
    assert {r["scope"] for r in rows_} == {"all sizes"}
    assert all(r["parametric"].startswith("parametric:") for r in rows_)
    # an explicit --max-size lifts the proof's cost cap d <= 2 (cheap here), and the record says so
    assert all(r["checked"] == {"n": [1, 2], "N": [2, 4], "d": [1, 4]} and r["points"] == 16 for r in rows_)
    assert all(r["capped_by"] == [] and r["raised"] == ["d ≤ 2"] for r in rows_)
    buf = io.StringIO()
    with redirect_stdout(buf):
        main(["verify", "shift_up", "--max-size", "4", "--time-budget", "1000", "--wide"])
    out = buf.getvalue()
    assert "all sizes" in out and "N ≤ 4, s ≤ 3, d ≤ 4; 40 points" in out and "verdict from the concrete sweep" in out


# ---------------------------------------------------------------- Prop. H.10, corrected


BIG = [dict(n=n, m=m, s=s, t=t, N=N, d=1) for n, m, s, t in
       [(3, 2, 2, 2), (2, 4, 1, 3), (3, 1, 3, 2), (1, 3, 0, 2), (4, 2, 3, 4)] for N in (12, 15)]


@pytest.mark.parametrize("name,internal", [("remember (N' = N)", "N"), ("remember", "max")])
def test_remember_corrected_holds_for_all_sizes(name, internal):
    """The symbolic description matches the built stack, holds for all sizes, and the
    concrete checker agrees at sizes outside the sweep (n, m, s, t up to 4, N up to 15)."""
    import dataclasses
    from symconv.parametric.remember import describe

    c = claim(name)
    var = [v for v in c.variants if v.name == "corrected"][0]
    (v,) = verify(c, max_size=5, variants=["corrected"])
    assert (v.verdict, v.scope) == ("holds", "all sizes"), v.parametric
    big = [z for z in BIG if c.holds_for(z)][::3]
    assert big
    for z in big:
        failure, steps = check_all(var.instance(z, c), z)
        assert failure is None and all(st.holds for st in steps), z


def test_remember_description_catches_a_misplaced_block():
    """Moving v one row down in the claimed output is found, on the rows where it differs."""
    from symconv.parametric.check import Cases
    from symconv.parametric.remember import describe

    z = {k: size(k) for k in ("n", "m", "s", "t", "N")}

    def moved(d):
        if isinstance(d, Cases):
            return Cases(d.a, d.b, moved(d.le), moved(d.gt), d.facts)
        out = d.expected.pieces[0:1]
        from symconv.parametric import PSeq
        exp = PSeq(d.expected.length, out) + (pzeros(z["n"] + z["s"] + 1) | psym("v", z["m"])
                                               | pzeros(z["N"] - z["n"] - z["s"] - z["m"] - 1))
        return Description(d.input, d.layers, exp, d.steps, d.facts, d.N_int)

    n_, m_, s_, N_ = z["n"], z["m"], z["s"], z["N"]
    facts = base_facts({"n": 1, "m": 1, "s": 0, "t": 0, "N": 2}) + Facts.of(
        N_ - 2 * n_ - s_ - 2 * m_ + 1, N_ - 2 * n_ - 2 * s_ - m_)
    assert check(describe(z, "N"), facts).status == "holds"
    r = check(moved(describe(z, "N")), facts)
    assert r.status == "fails" and r.mismatch.label == "output"


# ---------------------------------------------------------------- the algebra against the interpreter


def test_random_block_layers_agree_with_the_exact_interpreter():
    """Random filters X^{an+b}, block masks and biases on (x | S | 0): the symbolic-size
    output (in the case of the hypotheses that a sampled size falls in), instantiated,
    equals the exact interpreter's at that size; one block changed is caught by both."""
    from symconv.parametric import Undecided, pconst
    from symconv.parametric.algebra import causal
    from symconv.parametric.check import instance_at, run

    rng = random.Random(3)
    base = base_facts({"n": 1, "N": 2}) + Facts.of(ge(N, 2 * n))
    sizes = [{"n": a, "N": b} for a in (1, 2, 3) for b in range(2 * a, 3 * a + 4)]

    def column():
        v = [rng.choice((0, 1, 2)) for _ in range(3)]
        return pconst(v[0], n) | pconst(v[1], n) | pconst(v[2], N - 2 * n)

    def output(layers, y, z):
        facts = base
        for _ in range(8):  # settle open comparisons as they are at z
            try:
                return causal(run(Description(y, layers, y), facts, y, 0, None).pieces, N, facts), facts
            except Undecided as exc:
                a, b = exc.split
                facts = facts.cases(a, b)[0 if a.at(z) <= b.at(z) else 1]
        raise AssertionError("too many cases")

    checked = 0
    for _ in range(25):
        h = sum((rng.choice((1, 2)) * X**(rng.choice((0, 1)) * n + rng.choice((0, 1))) for _ in range(2)), 0 * X**0)
        layers = tuple(PLayer(h, column(), column() if rng.random() < 0.5 else 0,
                              conv=rng.choice(("causal", "circular"))) for _ in range(rng.choice((1, 2))))
        y = psym("x", n) | psym("S", n) | pzeros(N - 2 * n)
        for z in rng.sample(sizes, 2):
            out, facts = output(layers, y, z)
            good = Description(y, layers, out)
            bad = Description(y, layers, out + (pones(n) | pzeros(N - n)))
            assert check(good, facts).status == "holds"
            r = check(bad, facts)
            assert r.status == "fails" and r.mismatch.everywhere
            assert check_instance(instance_at(good, z), z)[0] is None, (z, layers)
            assert check_instance(instance_at(bad, z), z)[0] is not None, (z, layers)
            checked += 1
    assert checked == 50
