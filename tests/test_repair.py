"""The printed routes with symbolic sizes, and the closest-repair searches (issue 10, item 6).

The printed routes of :mod:`symconv.parametric.printed` are compared with the
stacks the proof files (H.8, H.9) and the constructions (H.10) build; the
searches of :mod:`symconv.repair` must find the known repairs, report none for
a route that holds, and report the "no repair" grade when the bound is too small.
"""
from dataclasses import FrozenInstanceError, replace

import numpy as np
import pytest
import sympy

from symconv.claims import check_instance
from symconv.model import HypothesisError
from symconv.parametric import check, cross_check, instance_at, instantiate, size
from symconv.parametric.printed import (add_n_printed_call, add_n_route, hyena_remember_printed,
                                        remember_printed, remember_route, shift_up_printed, shift_up_route)
from symconv.registry import load_module, proofs_dir
from symconv import repair as R

Z = {k: size(k) for k in ("n", "m", "s", "t", "N")}


def _built(fname, cid, name, vname, sizes):
    mod = load_module(proofs_dir() / fname)
    claim = [c for c in mod.CLAIMS if c.id == cid and c.name == name][0]
    v = [v for v in claim.variants if v.name == vname][0]
    return v.instance(sizes, claim) if hasattr(v, "instance") else v.build(sizes)


def _same(a, b):
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    return a.shape == b.shape and all(sympy.expand(sympy.sympify(x) - sympy.sympify(y)) == 0
                                      for x, y in zip(a.flat, b.flat))


def _agrees(desc, inst, sizes):
    """Same input, layers and output as the built instance, and each claimed state among its steps."""
    assert cross_check(replace(desc, steps=()), inst, sizes) == ""
    Ni = desc.N_int.at(sizes)
    for ps in desc.steps:
        mine = instantiate(ps.expected.at(desc.N_int), sizes)
        theirs = [s for s in inst.steps if s.layers == ps.layers and getattr(s, "kind", "state") == "state"]
        if theirs:
            assert any(_same(mine, np.asarray(s.expected.entries, dtype=object)[:Ni]) for s in theirs), ps.label
    # the output verdict at these sizes is the same (the built instance may carry steps a block column cannot state)
    mine, theirs = replace(instance_at(desc, sizes), steps=()), replace(inst, steps=())
    assert (check_instance(mine, sizes)[0] is None) == (check_instance(theirs, sizes)[0] is None)


@pytest.mark.parametrize("circ", ["circular", "causal"])
@pytest.mark.parametrize("N,s", [(5, 2), (4, 0), (7, 3)])
def test_h08_printed_route_is_the_proof_files(circ, N, s):
    sizes = {"N": N, "s": s, "d": 1}
    inst = _built("h08_shift.py", "H.8", "shift_up", f"as printed, ⊛ {circ}", sizes)
    _agrees(shift_up_printed(Z, circ), inst, sizes)


@pytest.mark.parametrize("n,N", [(1, 2), (2, 5), (3, 6)])
def test_h09_printed_call_is_the_proof_files(n, N):
    sizes = {"n": n, "N": N, "d": 1}
    _agrees(add_n_printed_call(Z), _built("h09_add.py", "H.9", "add_n", "printed call", sizes), sizes)


@pytest.mark.parametrize("shift_up", ["H.8", "working"])
@pytest.mark.parametrize("sz", [dict(n=1, m=1, s=0, t=0, N=5), dict(n=2, m=1, s=1, t=2, N=12),
                                dict(n=2, m=2, s=2, t=1, N=16)])
def test_h10_printed_route_is_the_printed_construction(shift_up, sz):
    from symconv.constructions.remember import remember_as_printed

    desc = remember_printed(Z, shift_up)
    inst = instance_at(desc, sz)
    p = instantiate(remember_route(Z).layers[0].b1.blocks[0].pseq(), sz)   # the gate block p
    h = np.array([[sympy.Symbol(f"h[{i},0]")] for i in range(sz["n"])], dtype=object)
    stack = remember_as_printed(sz["N"], sz["n"], sz["m"], sz["s"], sz["t"], h, p, 1, shift_up=shift_up)
    assert cross_check(desc, replace(inst, stack=stack), sz) == ""


@pytest.mark.parametrize("shift_up,vname", [("H.8", "as printed"), ("working", "as printed, working shift_up")])
def test_h10_printed_route_is_the_proof_files(shift_up, vname):
    for sz in (dict(n=1, m=1, s=0, t=0, N=5, d=1), dict(n=2, m=1, s=1, t=2, N=12, d=1)):
        inst = _built("h10_remember.py", "H.10", "remember (printed blocks fit)", vname, sz)
        _agrees(remember_printed(Z, shift_up), inst, sz)


def test_h10_printed_steps_and_fit_condition():
    r = remember_route(Z, "working")
    res = check(r.description(), r.base_facts())
    assert [s.status for s in res.steps] == ["holds", "fails", "holds"]   # z¹ holds, z² fails, shift_up holds
    assert R.condition_text(r.fits(), r.base_facts()) == "N >= 3n+2s+2m+t"


def test_h12_route_is_not_a_block_route():
    desc, why = hyena_remember_printed({"N": size("N")})
    assert desc is None and "4N" in why


def test_h09_call_repair_is_b22():
    rep = R.repair_h09_call()
    assert rep.grade == "fails as printed; holds after a 1-symbol repair"
    best = rep.repairs[0]
    assert [(e.old, e.new) for e in best.edits] == [("b²₁", "b²₂")]
    assert best.condition == "all sizes the hypotheses allow"
    assert best.decided_by.startswith("block algebra")
    sizes = {"n": 3, "N": 7}
    assert check_instance(instance_at(best.route.description(), sizes), sizes)[0] is None


def test_h10_repair_of_h2_within_two_edits():
    """By hand: z¹ = (p⊙(h∗x) at row 0 | … | v at row 2n+2s+m+t).  With h² = X^n + X^{2n+s+m+t}
    the product has p⊙(h∗x) at rows n and 2n+s+m+t and v at rows 3n+2s+m+t and 4n+3s+2m+2t;
    the printed mask b²₁ is 1 exactly on [2n+s+m+t, 3n+2s+2m+t), which keeps p⊙(h∗x) at
    2n+s+m+t and v at 3n+2s+m+t (the claimed z²) and drops the copy at n (it ends at
    2n+s <= 2n+s+m+t) and the one at 4n+3s+2m+2t >= 3n+2s+2m+t.  One edit cannot do it: the two
    blocks must move by different amounts (2n+s+m+t and n), so both terms of h² change.  The mask
    needs N >= 3n+2s+2m+t rows: the repaired route holds exactly where the printed blocks fit."""
    rep = R.repair_h10("working")
    assert rep.grade == "fails as printed; holds after a 2-symbol repair"
    best = rep.repairs[0]
    assert {e.site for e in best.edits} == {"h² (layer 2 filter)"}
    assert {e.new for e in best.edits} == {"X^{n}", "X^{2n+s+m+t}"}
    assert best.condition == "N >= 3n+2s+2m+t"
    for sz in (dict(n=2, m=3, s=1, t=2, N=18), dict(n=1, m=1, s=0, t=0, N=5)):
        assert check_instance(instance_at(best.route.description(), sz), sz)[0] is None
    # below the condition the printed mask does not fit
    with pytest.raises(HypothesisError):
        instance_at(best.route.description(), dict(n=1, m=1, s=0, t=0, N=4))


def test_h10_with_h08_shift_up_needs_one_more_edit():
    rep = R.repair_h10("H.8")
    assert rep.grade == "fails as printed; holds after a 3-symbol repair"
    tail = [e for e in rep.repairs[0].edits if e.site.startswith("h⁴")]
    assert len(tail) == 1 and "(circular)" in tail[0].new        # the shift_down turned into a circular shift up


def test_h08_repair_and_a_bound_too_small():
    rep = R.repair_h08("circular")
    assert rep.grade == "fails as printed; holds after a 2-symbol repair"
    assert rep.repairs[0].dropped                                    # the claimed Y1 cannot be kept
    sz = {"N": 6, "s": 2}
    assert check_instance(instance_at(rep.repairs[0].route.description(), sz), sz)[0] is None
    small = R.repair_h08("circular", max_edits=1)
    assert small.grade == "fails; no repair within 1 edits" and small.repairs == ()


def test_a_route_that_holds_needs_no_edits():
    rep = R.search_route(add_n_route({"n": size("n"), "N": size("N")}, "parameters"))
    assert rep.grade == "holds as printed; no repair needed"
    assert rep.repairs[0].edits == () and rep.searched == 0


def test_h15_repair_is_the_transposed_term():
    from symconv.constructions.butterfly import prop_h15_corrected, symbolic_factor

    rep = R.repair_h15("down")
    assert rep.grade == "fails as printed; holds after a 1-symbol repair"
    assert [e.new for e in rep.repairs[0].edits] == ["(D₂S^{n/2})ᵀ"]
    F = symbolic_factor(4, 2)                       # k < n: not among the sizes searched
    assert not R._sym_eq(R.h15_form(F, "down", ("transpose B",)), F.to_matrix())
    assert R._sym_eq(R.h15_form(F, "down", ("transpose B", "amount B")), prop_h15_corrected(F))


def test_h15_equation_5_products():
    assert R.repair_h15_eq5("D2", "down").repairs[0].edits[0].new == "(D₂S^{n/2})ᵀ"
    ok = R.repair_h15_eq5("D3", "down")                 # the proof file records this one as holding
    assert ok.grade == "holds as printed; no repair needed" and ok.repairs[0].edits == ()
    with pytest.raises(HypothesisError, match="which"):
        R.repair_h15_eq5("D4")


def test_h16_needs_shifts_inserted():
    rep = R.repair_h16()
    assert rep.grade == "fails as printed; holds after a 3-symbol repair"
    assert {e.site for e in rep.repairs[0].edits} == {"term D2′⊙u", "term D3′⊙u", "d₂ = 1·(D₂S^{n/2})"}
    assert R.repair_h16(((2, 2, 4), (4, 2, 8))).grade.endswith("2-symbol repair")   # k = nd: two shifts


def test_h22_index_repair_and_printed_line():
    from symconv.retnet import printed_lines

    g = sympy.Symbol("g")
    u, WA, WV = [[1, 2], [3, 5]], [[1, 2], [0, 1]], [[2, 1], [1, 1]]
    assert R.h22_line(u, WA, WV, g) == printed_lines(u, WA, WV, g)["z1 line 2"]
    rep = R.repair_h22()
    assert rep.grade == "fails as printed; holds after a 1-symbol repair"
    assert [(e.old, e.new) for e in rep.repairs[0].edits] == [("1", "0")]


def test_registry_and_data_types():
    assert ("H.9", "add_n", "printed call") in R.REPAIRS
    rep = R.repair_for("H.9", "add_n", "printed call")
    assert "\n" not in rep.describe() and "b²₂" in rep.describe()
    with pytest.raises(FrozenInstanceError):
        rep.grade = "x"
    assert R.repair_for("H.9", "add_n", "as printed") is None
    d = rep.as_dict()
    assert d["grade"] == rep.grade and d["repairs"][0]["edits"] == [["b²₁ (layer 2 bias b2)", "b²₁", "b²₂"]]


def test_bad_input_is_refused():
    with pytest.raises(HypothesisError, match="shift_up"):
        remember_route(Z, "sideways")
    with pytest.raises(HypothesisError, match="circ"):
        shift_up_route(Z, "other")
    from symconv.constructions.butterfly import symbolic_factor
    with pytest.raises(HypothesisError, match="direction"):
        R.h15_form(symbolic_factor(2, 2), "left")


def test_vectorised_pairs_agree_with_one_by_one():
    """The one-layer fast path finds exactly the 2-edit sets that trying them one by one finds."""
    route = add_n_route(Z, "printed")
    ev = R._Evaluator(route, R.sample_sizes(route))
    seg = R._segments(route)[1]                       # z, layer 2, from the claimed z¹
    forms = R.size_forms(route)
    short = [f for f in forms if len(f.terms) == 1 and f.const >= 0]
    pool = R.generate_ops(route, [1], forms, short)
    fast, tried = R._pairs_one_layer(route, ev, seg, pool, pool)
    slow = [[a, b] for a, b in __import__("itertools").combinations(pool, 2)
            if not a.conflicts(b) and ev.holds(R.apply_ops(route, [a, b]).layers, seg)]
    key = lambda ops: frozenset((o.kind, o.part, o.index, str(o.value)) for o in ops)
    assert {key(o) for o in fast} == {key(o) for o in slow} and len(slow) >= 10
    assert tried == sum(1 for a, b in __import__("itertools").combinations(pool, 2) if not a.conflicts(b))


def test_every_erratum_of_the_block_proofs_has_a_search_or_a_reason():
    for fname in ("h08_shift.py", "h09_add.py", "h10_remember.py", "h11_stack.py", "h12_hyena.py"):
        mod = load_module(proofs_dir() / fname)
        assert R.errata_without_search(mod.CLAIMS) == [], fname
    assert not set(R.REPAIRS) & set(R.NOT_SEARCHED)


def test_a_search_shared_by_several_variants_is_named_by_each():
    """H.16's three readings of one printed line share one search; in verify's verdicts each report names the
    claim and variant it is attached to (all three used to say "as printed", as did H.10's 'printed blocks fit')."""
    from symconv import registry, verify

    claims = [c for c in registry.load_proofs([])[0]
              if (c.id, c.name) in {("H.16", "butterfly_factor_matrix"), ("H.10", "remember (printed blocks fit)")}]
    reps = [v for c in claims for v in verify(c) if v.repair is not None]
    assert {(v.name, v.variant) for v in reps} >= {("butterfly_factor_matrix", "B x ≡ ΣD_i′⊙u"),
                                                   ("remember (printed blocks fit)", "as printed, working shift_up")}
    assert all((v.repair.result, v.repair.variant) == (f"{v.id} {v.name}", v.variant) for v in reps)
