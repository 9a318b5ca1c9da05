"""Lower-bound certificates: each proves a true bound, refuses a false one, and a tampered one fails its re-check."""
import json
import sys
from dataclasses import replace

import numpy as np
import pytest

from symconv import Claim, Instance, Signature, SizeParam, Variant, registry, sym
from symconv.blocks import ones, zeros
from symconv.certificates import (Bound, BoundPoint, BoundResult, CausalCertificate, CertificateError,
                                  DegreeCertificate,
                                  DimensionCertificate, Jet, LeastSignatureCertificate, ReachCertificate,
                                  family_rank, rank_mod, required_pattern, stack_line_degree)
from symconv.certificates.standard import both, degree, not_identity, signature_bounds
from symconv.claims import verify
from symconv.cli import main
from symconv.constructions.shifts import shift_down, shift_up
from symconv.constructions.sums import add_n
from symconv.dependency import dependencies
from symconv.model import HypothesisError, Layer, Stack
from symconv.symbolic import evaluate


def square_stack(N):
    """(u·1) ⊙ (e_0 * u): u ⊙ u in one layer with W ≠ 0."""
    return Stack(N, 1, (Layer(W=[[1]], h=[[1]], b1=[[0]], b2=[[0]]),))


# ------------------------------------------------------------------ dependency


def test_causal_certificate_proves_shift_up_needs_a_circular_layer():
    y = sym("y", 4)
    R = required_pattern(y, y[1:] | zeros(1))
    c = CausalCertificate.of(R).check()
    assert c.witness == (0, 1) and c.lower == 1
    assert not dependencies(shift_down(4, 1))[0, 1]        # a causal stack indeed misses it
    assert dependencies(shift_up(4, 1))[0, 1]              # the circular one has it
    with pytest.raises(HypothesisError, match="lower triangular"):
        CausalCertificate.of(required_pattern(y, zeros(1) | y[:3]))   # shift_down: causal is possible
    with pytest.raises(CertificateError):
        replace(c, witness=(1, 0)).check()


def test_reach_certificate_with_two_taps_and_a_real_stack():
    R = np.zeros((4, 4), dtype=bool)
    R[3, 0] = True
    c = ReachCertificate.of(R, 4, (0, 1)).check()
    assert c.lower == 3 and c.witness == (3, 0)
    two = shift_down(4, 1) >> shift_down(4, 1)              # depth 2 with taps {1}: misses (3, 0)
    assert not dependencies(two)[3, 0]
    assert dependencies(two >> shift_down(4, 1))[3, 0]      # depth 3 reaches it: the bound is attained
    with pytest.raises(CertificateError):
        replace(c, lower=4).check()


# ------------------------------------------------------------------ degree


def test_degree_certificate_true_and_false():
    x = sym("x", 3)
    c = DegreeCertificate.of(x, x * x * x * x, stack=square_stack(3) >> square_stack(3)).check()
    assert (c.degree, c.lower, c.general_layers, c.stack_bound) == (4, 2, 2, 4)
    lin = DegreeCertificate.of(x, x + ones(3)).check()
    assert lin.degree == 1 and lin.lower == 0
    with pytest.raises(CertificateError, match="below what degree"):   # one W ≠ 0 layer cannot reach degree 4
        DegreeCertificate.of(x, x * x * x * x, stack=square_stack(3)).check()
    with pytest.raises(CertificateError):
        replace(c, degree=8, lower=3).check()


def test_degree_of_a_cancelling_target_is_found_exactly():
    x = sym("x", 2)
    a, b = x[0, 0], x[1, 0]
    e = (a + b) ** 3 - a ** 3 - 3 * a ** 2 * b - 3 * a * b ** 2 - b ** 3 + a * b   # degree 2, tree bound 3
    c = DegreeCertificate.of(x, x.__class__(np.array([[e], [0]], dtype=object)))
    assert (c.upper, c.degree, c.lower) == (3, 2, 1)


def test_stack_line_degree_matches_the_bound():
    assert stack_line_degree(square_stack(3)) == (2, 2)
    assert stack_line_degree(square_stack(3) >> square_stack(3)) == (4, 4)
    assert stack_line_degree(add_n(1, 4)) == (1, 1)


# ------------------------------------------------------------------ dimension


def test_jet_gradient_of_a_matrix_product():
    p = 101
    th = Jet.variables(np.array([2, 3, 5, 7]), p)
    M = th.reshape(2, 2)
    out = (M @ M).reshape(4)                                 # entries of M², their gradient in M's entries
    a, b, c, d = 2, 3, 5, 7
    assert out.v.tolist() == [(a * a + b * c) % p, (a * b + b * d) % p, (c * a + d * c) % p, (c * b + d * d) % p]
    assert out.g[0].tolist() == [2 * a, c, b, 0]             # ∂(a² + bc)


def test_dimension_of_known_families():
    assert family_rank("dense", {"n": 3}) == (9, 9)
    for n in (4, 8):                                          # butterfly: n(log₂n + 1) (diagonal gauge)
        assert family_rank("butterfly", {"n": n})[1] == n * (n.bit_length() - 1 + 1)
    assert family_rank("retnet", {"N": 1, "d": 2}) == (13, 6)   # sym(W_C W_Aᵀ) 3 + W_V 4 − 1 scale
    assert family_rank("retnet", {"N": 2, "d": 2}) == (13, 8)   # W_C W_Aᵀ 4 + W_V 4 − 1, + γ


def test_dimension_certificate_checks_and_refuses():
    c = DimensionCertificate.of("butterfly", {"n": 16}, N_int=4, d_int=4).check()
    assert c.rank == 80 and c.layers_needed == 2 and c.lower == 2
    r = DimensionCertificate.of("retnet", {"N": 1, "d": 3}, formula="d²", formula_value=9).check()
    assert r.rank >= 9
    with pytest.raises(CertificateError):
        replace(c, rank=81).check()
    with pytest.raises(CertificateError, match="hand bound"):
        DimensionCertificate.of("retnet", {"N": 1, "d": 2}, formula="false", formula_value=7).check()
    with pytest.raises(HypothesisError, match="unknown family"):
        DimensionCertificate.of("nope", {})


def test_rank_mod_without_flint(monkeypatch):
    A = np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1], [1, 3, 4]])
    monkeypatch.setitem(sys.modules, "flint", None)          # the numpy elimination path
    assert rank_mod(A, 7) == 2 and rank_mod(np.eye(4, dtype=int), 7) == 4


# ------------------------------------------------------------------ least signature


def test_least_signature_of_add_n_and_a_refusal():
    y = sym("y", 2)
    target = ones(1) | (y[0:1] + y[1:2])                      # add_1 on N = 2
    c = LeastSignatureCertificate.of(y, target, witness=add_n(1, 2)).check()
    assert c.lower == 2 and c.least == 2
    with pytest.raises(HypothesisError, match="may exist"):   # shift_down is one layer
        LeastSignatureCertificate.of(y, zeros(1) | y[0:1])
    with pytest.raises(CertificateError):
        replace(c, target=zeros(1) | y[0:1]).check()
    with pytest.raises(CertificateError, match="witness"):
        replace(c, witness=shift_down(2, 1) >> shift_down(2, 1)).check()


# ------------------------------------------------------------------ bounds in verify


def fourth_power_claim(claimed_L, expect):
    """u⁴ built by two squaring layers, against a claimed layer count."""
    def build(z):
        u = sym("u", z["N"])
        st = square_stack(z["N"]) >> square_stack(z["N"])
        return Instance(u, st, u * u * u * u)
    return Claim("X.4", "fourth power", "u⁴", (SizeParam("N", 1, 3),),
                 lambda z: Signature(z["N"], claimed_L, 1, z["N"], 1), (Variant("squares", build),),
                 bounds=signature_bounds(f"{claimed_L} layers", "N' = N", "d' = d",
                                         L_certs=both(not_identity, degree), expect={"L": expect}))


def test_a_claimed_layer_count_below_the_degree_bound_is_false():
    vs = verify(fourth_power_claim(1, "false"), max_size=3)
    (r,) = [b for b in vs[0].bounds if b.quantity == "L"]
    assert r.verdict == "false" and r.lower == 2 and "exceeds the claimed 1" in r.refutation
    assert vs.ok
    bad = verify(fourth_power_claim(1, "met"))
    assert not bad.ok and "recorded 'met'" in bad[0].differences[0]
    good = verify(fourth_power_claim(2, "met"), max_size=3)
    assert good.ok and good[0].bounds[0].verdict == "met" and good[0].bounds[0].lower == 2
    rec = good[0].as_dict()["lower_bounds"][0]
    assert {k: rec[k] for k in ("quantity", "claimed", "built", "lower_bound", "verdict")} == \
        {"quantity": "L", "claimed": 2, "built": 2, "lower_bound": 2, "verdict": "met"}
    assert "degree" in rec["certificate"]


def test_met_up_to_c_and_a_big_o_refutation():
    def build(z):
        u = sym("u", z["N"])
        return Instance(u, square_stack(z["N"]) >> square_stack(z["N"]), u * u * u * u)
    claim = Claim("X.5", "c", "u⁴", (SizeParam("N", 1, 3),), lambda z: Signature(z["N"], 1, 1, z["N"], 1),
                  (Variant("squares", build),),
                  bounds=(Bound("L", "O(1)", big_o=True, expect="met up to c"),
                          Bound("parameters", "O(N)", claimed=lambda z: z["N"], big_o=True, expect="false",
                                refute=lambda c: {"N": int(c) + 1}, lower_formula=lambda z: z["N"] ** 2)))
    v = verify(claim, max_size=3)
    L, P = v[0].bounds
    assert L.verdict == "met up to c" and L.c == 2
    assert P.verdict == "false" and "for every c" in P.refutation and v.ok


def test_a_claim_met_only_where_some_variant_holds_says_where():
    """An erratum checked on N ≤ 3 and a construction that holds on N ≤ 2 only: the claim has no stack at
    N = 3, so its bound is met 'where built (2 of 3 sizes ...)', not met on the box; a second construction
    for N = 3 makes it plainly 'met'."""
    from symconv.certificates.bounds import claim_rows, describe, summarise
    from symconv.hypotheses import Hypothesis
    from symconv.parametric import size

    def build(z):
        u = sym("u", z["N"])
        return Instance(u, square_stack(z["N"]), u * u)

    def wrong(z):
        u = sym("u", z["N"])
        return Instance(u, square_stack(z["N"]), u * u * u)
    erratum = Variant("as printed", wrong, expect="fails", fails_at=("output",))
    low = Variant("small N", build, where=Hypothesis(size("N") <= 2, why="a variant for N <= 2"))
    high = Variant("large N", build, where=Hypothesis(size("N") >= 3, why="a variant for N >= 3"))
    sizes = (SizeParam("N", 1, 3),)
    claimed = lambda z: Signature(z["N"], 1, 1, z["N"], 1)  # noqa: E731

    def claim_verdict(variants):
        vs = verify(Claim("X.6", "u²", "u²", sizes, claimed, variants, bounds=(Bound("L", "one layer"),)),
                    max_size=3)
        assert vs.ok
        return summarise([v.bounds[0] for v in vs]), claim_rows(vs)[0][-1]
    part, row = claim_verdict((erratum, low))
    assert part.verdict == "met" and part.unbuilt == 1 and [p.built for p in part.points] == [1, 1, None]
    qualified = "met where built (2 of 3 sizes; the other 1 were checked only for variants that fail)"
    assert describe(part).endswith(qualified) and row == qualified
    assert part.as_dict()["unbuilt_sizes"] == 1
    whole, row = claim_verdict((erratum, low, high))
    assert (whole.verdict, whole.unbuilt, row) == ("met", 0, "met")


def test_bound_validation():
    with pytest.raises(HypothesisError, match="quantity"):
        Bound("layers", "5L")
    with pytest.raises(HypothesisError, match="expect"):
        Bound("L", "5L", expect="true")
    with pytest.raises(HypothesisError, match="together"):
        Bound("L", "5L", refute=lambda c: {})
    with pytest.raises(HypothesisError, match="Bound"):
        Claim("X.1", "x", "x", (), None, (Variant("v", lambda z: None),), bounds=("L",))


def test_verify_shows_bounds_in_json_table_and_markdown(capsys, monkeypatch):
    assert main(["verify", "H.9", "--format", "json", "--quiet"]) == 0
    recs = json.loads(capsys.readouterr().out)
    lb = {b["quantity"]: b for b in recs[0]["lower_bounds"]}
    assert lb["L"]["lower_bound"] == 2 and lb["L"]["verdict"] == "met" and "least signature" in lb["L"]["certificate"]
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["verify", "H.9", "--quiet"]) == 0
    out = capsys.readouterr().out
    table = out.split("\n\n")[0]
    assert "proved ≥" in table and max(len(line) for line in table.splitlines()) <= 100
    assert "bound L: claimed 2 layers" in out and "Gröbner basis {1}" in out
    (claim,) = registry.select(registry.load_proofs([])[0], ["H.9"])
    (v,) = [x for x in verify(claim) if x.variant == "as printed"]
    certs = [c for b in v.bounds for c in b.certificates]
    assert {c.kind for c in certs} >= {"least signature", "trivial"} and all(c.check() is c for c in certs)
    assert main(["verify", "H.9", "--quiet", "--bounds"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("| id") and "proved lower bound" in md and "| met " in md


def test_a_claimed_zero_gives_an_unbounded_constant_that_json_can_hold():
    def build(z):
        y = sym("y", z["N"])
        return Instance(y, shift_down(z["N"], 1), zeros(1) | y[: z["N"] - 1])
    c = Claim("X.6", "zero", "s", (SizeParam("N", 2, 3),), lambda z: Signature(z["N"], 0, 1, z["N"], 1),
              (Variant("v", build),), bounds=(Bound("L", "0 layers", expect="met up to c"),))
    rec = verify(c)[0].as_dict()["lower_bounds"][0]
    assert rec["c"] is None and rec["c_unbounded"] and json.dumps(rec, allow_nan=False)


def test_a_lower_bound_above_a_construction_that_holds_is_reported():
    """A certificate that contradicts a verified construction makes verify fail, whatever was recorded."""
    from symconv.certificates.base import TrivialCertificate

    def wrong(z, get):
        return (TrivialCertificate("L", 3, "a deliberately wrong bound: L ≥ 3"),)
    claim = fourth_power_claim(2, "met")
    bad = replace(claim, bounds=(Bound("L", "2 layers", claimed=lambda z: 2, certificates=wrong, expect="false"),))
    vs = verify(bad, max_size=3)
    assert vs[0].holds and vs[0].bounds[0].verdict == "false"
    assert not vs.ok and any("exceeds the 2 built by variant 'squares'" in d for d in vs[0].differences)
    right = replace(claim, bounds=(Bound("L", "2 layers", claimed=lambda z: 2, certificates=both(not_identity, degree),
                                         expect="met"),))
    assert verify(right, max_size=3).ok


def test_huge_or_incomplete_sizes_are_refused_before_anything_is_built():
    from symconv.circuits import powers_circuit
    from symconv.constructions.retnet_direct import retnet_direct

    with pytest.raises(HypothesisError, match="sizes: the retnet family needs the size 'd'"):
        DimensionCertificate.of("retnet", {"N": 3})
    with pytest.raises(HypothesisError, match="sizes: the Jacobian of the retnet family.*memory budget"):
        DimensionCertificate.of("retnet", {"N": 10 ** 6, "d": 10 ** 6})
    with pytest.raises(HypothesisError, match="k: powers_circuit.*memory budget"):
        powers_circuit(10 ** 9)
    eye = [[1, 0], [0, 1]]
    with pytest.raises(HypothesisError, match="N, d: the .* direct RetNet model.*memory budget"):
        retnet_direct(10 ** 12, 2, eye, eye, eye, 0.5)


def test_one_row_certificate_applies_only_where_one_row_cannot_reach_the_degree():
    from symconv.certificates import OneRowCertificate
    u, w = sym("u", 1), sym("w", 1)
    c = OneRowCertificate.of(u, u * (u * w + 1) * (u * w + 2))
    assert (c.quantity, c.lower, c.degree) == ("N'", 2, 3) and c.check() is c
    for target in (u * u, u * u * u * u, u * 0 + 1):          # 2, 4, 0: one row reaches these
        with pytest.raises(HypothesisError):
            OneRowCertificate.of(u, target)
    with pytest.raises(HypothesisError, match="N = d = 1"):
        OneRowCertificate.of(sym("v", 2), sym("v", 2) * sym("v", 2) * sym("v", 2))
    forged = replace(c, degree=4)
    with pytest.raises(CertificateError):
        forged.check()


def test_one_row_models_never_get_the_one_row_certificate():
    """What random one-row, one-channel stacks (causal or circular) compute is refused."""
    from symconv.certificates import OneRowCertificate
    rng = np.random.default_rng(5)
    u = sym("u", 1)
    for _ in range(30):
        layers = tuple(Layer(W=[[int(rng.integers(-2, 3))]], h=[[int(rng.integers(-2, 3))]],
                             b1=[[int(rng.integers(-2, 3))]], b2=[[int(rng.integers(-2, 3))]],
                             conv=str(rng.choice(["causal", "circular"])))
                       for _ in range(int(rng.integers(1, 4))))
        out = evaluate(Stack(1, 1, layers), u)
        with pytest.raises(HypothesisError):
            OneRowCertificate.of(u, out)


def test_the_tight_lower_bound_is_shown_where_claimed_and_built_agree():
    pts = (BoundPoint((("L", 2),), 2, 2, 2), BoundPoint((("L", 4),), 2, 2, 1))
    r = BoundResult("N'", "N' + N", False, "v", "met", 1.0, "met", pts)
    assert r.shown.sizes == (("L", 4),) and r.shown_lower == (2, (("L", 2),))
    other = BoundResult("N'", "N' + N", False, "v", "met", 1.0, "met",
                        (BoundPoint((("L", 2),), 3, 2, 2), BoundPoint((("L", 4),), 2, 2, 1)))
    assert other.shown_lower == (1, (("L", 4),))   # a different claimed value: the shown point's own


def test_a_bound_met_only_by_a_restricted_variant_says_for_which_models():
    """Prop. H.12's BaseConv -> Hyena holds only for b2 = 0: its bounds are 'met for b2 = 0 only', in the
    verdict text and in JSON; a bound met by an unrestricted variant says nothing of the kind."""
    from symconv.certificates.bounds import claim_rows, describe

    claims = registry.select(registry.load_proofs([])[0], ["H.12"])
    (converse,) = [c for c in claims if c.name == "BaseConv -> Hyena"]
    verdicts = verify(converse, max_size=2)
    rows = claim_rows(verdicts)
    assert [r[-1] for r in rows] == ["met for b2 = 0 only"] * 3
    (held,) = [v for v in verdicts if v.variant == "corrected (b2 = 0)"]
    assert all(b.as_dict()["only_for"] == "b2 = 0" and describe(b).endswith("met for b2 = 0 only")
               for b in held.bounds)
    wide = verify(claims[0], max_size=2)
    assert all(r[-1] != "" and "only" not in r[-1] for r in claim_rows(wide))


def test_a_refuted_bound_still_shows_the_least_built():
    """A refutation wins the verdict, but 'built' is the least over the variants that hold (H.22's RetNet
    parameters: the lean layout's 145488, not the first variant's 385436)."""
    from symconv.certificates.bounds import summarise

    pts = lambda b: (BoundPoint((("N", 3),), 6, b, 8),)  # noqa: E731
    first = BoundResult("parameters", "O(Nd)", True, "a", "false", None, "false", pts(10), refutation="lb > c·f")
    second = BoundResult("parameters", "O(Nd)", True, "b", "false", None, "false", pts(4), refutation="lb > c·f")
    best = summarise([first, second])
    assert (best.verdict, best.shown.built, best.variant, best.refutation) == ("false", 4, "b", "lb > c·f")


def test_a_lower_bound_proved_on_one_internal_size_says_so():
    """H.16's butterfly_matrix L ≥ 2 comes from a dimension count on N' = n, d' = d only, while the claim allows
    N' = O(n), d' = O(d) (its construction uses d' = 3d): the bound names its models; a degree bound names none."""
    from symconv.certificates.bounds import claim_rows, describe

    (bm,) = [c for c in registry.select(registry.load_proofs([])[0], ["H.16"]) if c.name == "butterfly_matrix"]
    verdicts = verify(bm)
    (row,) = [r for r in claim_rows(verdicts) if r[2] == "L"]
    assert row[6].startswith("2 on N' = 4, d' = 4 only")
    (v,) = [x for x in verdicts if x.variant == "construction"]
    (b,) = [x for x in v.bounds if x.quantity == "L"]
    assert b.cell() == "L≥2°" and b.as_dict()["lower_bound_on"] == "on N' = 4, d' = 4"
    assert "proved lower bound 2 on N' = 4, d' = 4 only [" in describe(b)
    wide = registry.select(registry.load_proofs([])[0], ["H.12"])[0]   # L ≥ 2 from degree: every model
    (row,) = [r for r in claim_rows(verify(wide, max_size=2)) if r[2] == "L"]
    assert row[6].startswith("2 ") and "only" not in row[6] and "degree" in row[6]


def test_a_bound_is_compared_with_its_record_only_on_a_box_that_does_not_depend_on_timing():
    """With --max-size, a cap the time budget kept leaves each variant the box its share reached, so a bound's
    verdict there is not compared with the default box's record (it made `verify --max-size 12` exit 1 on some
    runs and 0 on others); with every cap lifted the box is fixed again, and a changed verdict is reported."""
    from symconv.claims import DEFAULT_MAX_SIZE
    from symconv.sweep import TimeBudget

    kept = verify(fourth_power_claim(1, "met"), max_size=DEFAULT_MAX_SIZE, raise_caps=True,
                  time_budget=TimeBudget(1e-9, parts=1))
    assert not kept[0].box.caps[0].raised and kept.ok
    lifted = verify(fourth_power_claim(1, "met"), max_size=DEFAULT_MAX_SIZE, raise_caps=True,
                    time_budget=TimeBudget(60, parts=1))
    assert lifted[0].box.caps[0].raised and not lifted.ok and "recorded 'met'" in lifted[0].differences[0]


def test_a_least_signature_count_at_the_claims_own_internal_size_holds_for_every_model():
    """H.9 claims N' = N and d' = d: its least-signature L ≥ 2 at (N', d') = (2, 1) is computed at the claim's own
    signature there, so it bounds every model the claim allows and carries no condition."""
    from symconv.certificates.bounds import claim_rows

    (add_n,) = registry.select(registry.load_proofs([])[0], ["H.9"])
    (row,) = [r for r in claim_rows(verify(add_n)) if r[2] == "L"]
    assert row[6].startswith("2 at N=2, d=1, n=1 (least signature)") and "only" not in row[6]


def test_a_restricted_variant_restricts_the_verdict_only_where_it_is_needed():
    """The verdict is 'for b2 = 0 only' exactly when the unrestricted variants alone would give a worse one."""
    from symconv.certificates.bounds import summarise

    def res(name, built, scope=""):
        pts = tuple(BoundPoint((("N", n),), 3, b, None) for n, b in zip((1, 2), built))
        return BoundResult("L", "3 layers", False, name, "met", 1.0, "met", pts, scope=scope)

    # the unrestricted variant meets 3 everywhere too: no restriction (it used to say 'for b2 = 0 only')
    assert summarise([res("a", (1, 1), "b2 = 0"), res("b", (2, 2))]).where == ""
    # at N = 2 only the b2 = 0 variant meets 3 (it used to print a plain 'met')
    mixed = summarise([res("a", (1, 5), "b2 = 0"), res("b", (4, 2))])
    assert (mixed.verdict, mixed.where) == ("met", " for b2 = 0 only")


def test_a_lower_bound_proved_for_some_models_cannot_refute_the_claim():
    from symconv.certificates.bounds import _refutation

    bound = Bound("L", "1 layer")
    on_one_size = (BoundPoint((("N", 2),), 1, 1, 2, "on N' = 2, d' = 1"),)
    assert _refutation(bound, None, on_one_size) == ""
    assert "exceeds the claimed 1" in _refutation(bound, None, (BoundPoint((("N", 2),), 1, 1, 2),))


def test_a_bound_met_on_the_box_and_known_beyond_it_for_some_models_says_both():
    from symconv.certificates.bounds import claim_rows

    (two,) = [c for c in registry.select(registry.load_proofs([])[0], ["H.12"])
              if c.name.startswith("Hyena -> BaseConv (N = 2")]
    rows = {r[2]: r[-1] for r in claim_rows(verify(two, max_size=3))}
    assert rows["L"] == "met on the box; beyond it, for d = 1 or invertible W^l (l < L) only"
    assert rows["N'"] == rows["d'"] == "met"
