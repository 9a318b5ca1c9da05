"""Butterflies (Def. H.14), Prop. H.15 and the Lemma H.16 stacks."""
import argparse

import numpy as np
import pytest
import sympy

from symconv import HypothesisError, sym, verify
from symconv.constructions.butterfly import (Butterfly, ButterflyFactorMatrix, butterfly_layer_count,
                                             butterfly_narrow_layer_count, compile_butterfly,
                                             compile_butterfly_factor, compile_butterfly_factor_narrow,
                                             compile_butterfly_narrow, compile_factors, compile_factors_narrow,
                                             from_row_major, prop_h15_table, random_butterfly, random_factor,
                                             row_major, symbolic_butterfly, symbolic_factor)
from symconv.dependency import dependencies, generic_dependencies, missing
from symconv.numeric import run
from symconv.registry import load_claims
from symconv.symbolic import ExactSeq, evaluate, make_ring, run_state

RNG = np.random.default_rng(7)
SHAPES = [(1, 2), (2, 1), (2, 2), (4, 2), (2, 4), (8, 1), (1, 8), (4, 4)]


def dense_factor(F):
    """B_k^(n) written entry by entry from Def. H.14, independently of ``to_matrix``."""
    M = np.zeros((F.n, F.n))
    h = F.k // 2
    for b in range(F.n // F.k):
        top = np.block([[np.diag(F.D[b, 0]), np.diag(F.D[b, 1])], [np.diag(F.D[b, 2]), np.diag(F.D[b, 3])]])
        M[b * F.k:(b + 1) * F.k, b * F.k:(b + 1) * F.k] = top
    return M


@pytest.mark.parametrize("n,k", [(2, 2), (8, 2), (8, 4), (8, 8), (16, 4)])
def test_factor_reference_matches_definition(n, k):
    F = random_factor(n, k, RNG)
    x = RNG.standard_normal((3, n))
    M = dense_factor(F)
    assert np.allclose(F.to_matrix(), M)
    assert np.allclose(F.apply(x), x @ M.T)
    assert np.allclose(F.transpose().to_matrix(), M.T)
    c = RNG.standard_normal(n)
    assert np.allclose(F.scale_rows(c).to_matrix(), np.diag(c) @ M)


def test_butterfly_is_product_of_factors_in_printed_order():
    B = random_butterfly(16, RNG)
    M = np.eye(16)
    for f in B.factors:          # B_16 B_8 B_4 B_2
        M = M @ dense_factor(f)
    x = RNG.standard_normal(16)
    assert np.allclose(B.to_matrix(), M)
    assert np.allclose(B.apply(x), M @ x)
    assert [f.k for f in B.applied()] == [2, 4, 8, 16]


def test_prop_h15_table():
    rows = prop_h15_table(8)
    printed = [r for r in rows if r["form"] != "corrected"]
    corrected = [r for r in rows if r["form"] == "corrected"]
    assert len(corrected) == 6 and all(r["holds"] for r in corrected)
    assert printed and not any(r["holds"] for r in printed)
    # the first wrong entry of the printed form is a D2 position: top half of the first block
    assert all(r["first_wrong_entry"] == (0, r["k"] // 2) for r in printed)


@pytest.mark.parametrize("n,d", SHAPES)
def test_compiled_factor_numeric_every_k(n, d):
    u = RNG.standard_normal((2, n, d))
    k = 2
    while k <= n * d:
        F = random_factor(n * d, k, RNG)
        s = compile_butterfly_factor(F, n, d)
        assert s.L == (2 if k <= d else 3)
        assert (s.N_int, s.d_int) == (n, 3 * d)
        ref = from_row_major(F.apply(row_major(u)), n, d)
        assert np.abs(run(s, u) - ref).max() < 1e-12
        k *= 2


@pytest.mark.parametrize("n,d", [(2, 2), (4, 2), (2, 4), (1, 4), (4, 1)])
def test_compiled_butterfly_exact(n, d):
    B = symbolic_butterfly(n * d, "b")
    u = sym("u", n, d)
    s = compile_butterfly(B, n, d)
    assert s.L == butterfly_layer_count(n, d) == int(np.log2(d)) + 2 * int(np.log2(n)) + 1
    out = evaluate(s, u)
    exp = from_row_major(B.apply(row_major(u.entries)), n, d)
    for a, b in zip(out.entries.flat, exp.flat):
        assert sympy.expand(a - b) == 0


def test_final_state_is_clean():
    n, d = 4, 2
    F = symbolic_factor(8, 8, "b")
    s = compile_butterfly_factor(F, n, d)
    u = sym("u", n, d)
    R = make_ring(u.free_symbols() | set(F.D.flat))
    st = run_state(s, ExactSeq.from_block(R, u).pad(s.N_int, s.d_int))
    for j in range(d, 3 * d):
        assert all(v == 0 for v in st.cols[j])


def test_row_factor_needs_a_non_causal_layer():
    F = random_factor(8, 8, RNG)          # n = 4 rows, d = 2: partner rows i ± 2
    s = compile_butterfly_factor(F, 4, 2)
    assert "circular" in s.modes()
    need = dependencies(s)[:4, :4]
    assert need[0, 2]                       # output row 0 reads input row 2 (an up shift)
    assert missing(need, generic_dependencies(4, 50, "causal"))


def test_numeric_butterfly_mid_size():
    n, d = 256, 4
    B = random_butterfly(n * d, RNG)
    u = RNG.standard_normal((1, n, d))
    got = run(compile_butterfly(B, n, d), u)
    ref = from_row_major(B.apply(row_major(u)), n, d)
    assert np.linalg.norm(got - ref) / np.linalg.norm(ref) < 1e-13


@pytest.mark.parametrize("bad, words", [
    (lambda: ButterflyFactorMatrix(6, 2, np.zeros((3, 4, 1))), "n: must be a power of two"),
    (lambda: ButterflyFactorMatrix(8, 2, np.zeros((4, 4, 2))), "D: diagonals"),
    (lambda: ButterflyFactorMatrix(4, 8, np.zeros((1, 4, 4))), "k: block size"),
    (lambda: ButterflyFactorMatrix(4, 3, np.zeros((1, 4, 1))), "k: must be a power of two"),
    (lambda: ButterflyFactorMatrix(2, 2, np.array([[["a"], ["b"], ["c"], ["d"]]])), "D: strings"),
    (lambda: Butterfly(4, (random_factor(4, 2, RNG), random_factor(4, 4, RNG))), "factors:"),
    (lambda: compile_butterfly(random_butterfly(8, RNG), 2, 2), "n, d:"),
    (lambda: compile_butterfly_factor(random_factor(8, 2, RNG), 3, 2), "n: must be a power of two"),
    (lambda: compile_butterfly_factor(random_factor(8, 2, RNG), 4, 3), "d: must be a power of two"),
    (lambda: compile_factors([random_factor(8, 2, RNG), random_factor(4, 2, RNG)], 2, 2), "factors[1]: size"),
    (lambda: random_factor(8, 4, RNG).apply(np.zeros(6)), "x: last axis"),
])
def test_bad_input(bad, words):
    with pytest.raises(HypothesisError, match=words.replace("(", r"\(").replace("[", r"\[")):
        bad()


def test_proof_verdicts_match_records():
    claims = [c for c in load_claims() if c.id in ("H.15", "H.16")]
    assert len(claims) == 5
    verdicts = [v for c in claims for v in verify(c, max_size=8)]
    assert all(v.ok for v in verdicts), [(v.name, v.variant, v.verdict) for v in verdicts if not v.ok]
    assert {v.verdict for v in verdicts} == {"holds", "fails"}
    narrow = [v for v in verdicts if v.variant == "d' = d"]
    assert [v.name for v in narrow] == ["butterfly_factor_matrix", "butterfly_matrix"]
    assert all(v.verdict == "holds" and v.sizes_checked >= 4 for v in narrow)


def test_numeric_hooks():
    for c in load_claims():
        if c.id != "H.16":
            continue
        for v in c.variants:
            if v.numeric is None:
                continue
            case = v.numeric(64, 4, 2, np.random.default_rng(1))
            scale = max(1.0, float(np.abs(case.expected).max()))   # relative: the 'any M' hooks' half-turn entries reach about 1e7
            assert np.abs(run(case.stack, case.input) - case.expected).max() < 1e-12 * scale


def test_bench_suite_small():
    from symconv.bench import butterfly
    args = argparse.Namespace(min_log=6, max_log=8, step=2, d=4, batch=2, e=2, w=2, kaleidoscope_max_log=8,
                              chunk=3, seed=0, ratio_max_log=2, ratios_only=False, plot=None)
    recs = butterfly.run(args)
    errs = [r for r in recs if r.name.endswith("relative error")]
    assert len(errs) == 12 and all(r.ok for r in errs)
    narrow = [r for r in errs if "d' = d:" in r.name]
    assert len(narrow) == 6 and all("N', d') = (16, " in r.detail or "N', d') = (32, " in r.detail
                                    or "N', d') = (64, " in r.detail or "N', d') = (128, " in r.detail
                                    for r in narrow)


def test_h16_in_place_any_m_variants_hold():
    """Both H.16 'in place, any M' variants hold on the box, with their count step and N' = n, d' = d;
    their factors come from integer_factor, whose first pairs lie outside the open set (test_inplace_every)."""
    claims = {c.name: c for c in load_claims() if c.id == "H.16"}
    for name, sizes in (("butterfly_factor_matrix", {"n": 4, "d": 2, "k": 4}), ("butterfly_matrix", {"n": 4, "d": 2})):
        claim = claims[name]
        (variant,) = [v for v in claim.variants if v.name == "in place, any M"]
        (v,) = verify(claim, max_size=8, variants=["in place, any M"])
        assert v.ok and v.verdict == "holds" and v.sizes_checked >= 4
        inst = variant.instance(sizes, claim)
        assert (inst.stack.N_int, inst.stack.d_int) == (sizes["n"], sizes["d"])
        assert [s.count for s in inst.steps if s.kind == "count"] == [inst.stack.L]
        assert inst.stack.L == (43 if name == "butterfly_factor_matrix" else 1 + 3 * (2 + 4 + 14))   # routed B_4


def test_bench_signature_ratios():
    from symconv.bench import butterfly
    args = argparse.Namespace(ratio_max_log=6, e=2, w=1)
    recs, series = butterfly.signature_ratios(args)
    by = {r.name: r for r in recs}
    # B^(nd) at n = 2, d = 2 on d' = d: 2·log d + 3·log n = 5 layers against 5·log(nd) = 10, N' = 2n, d' = d
    assert by["L ratio: H.16(2) B^(nd) [d' = d], n=2, d=2"].value == 0.5
    assert by["N' ratio: H.16(2) B^(nd) [d' = d], n=2, d=2"].value == 2
    assert by["d' ratio: H.16(2) B^(nd) [d' = d], n=2, d=2"].value == 1
    assert by["d' ratio: H.16(2) B^(nd) [d' = 3d], n=2, d=2"].value == 3
    # H.18 at n = 2, d = 8, e = 2: 2·(2·3 + 3·2) = 24 layers against 10·log(32) = 50
    assert by["L ratio: H.18 (BB*)^1_2 [d' = d], n=2, d=8, e=2, w=1"].value == 24 / 50
    assert all(r.ok is not False for r in recs)
    assert all(r.value is None or r.value == r.value for r in recs)           # no NaN
    assert set(series) == {"L", "N'", "d'"} and series["d'"]
    h20 = [r for r in recs if r.name.startswith("d' ratio: H.20") and "d' = d]" in r.name]
    assert h20 and all(r.value == 1 for r in h20)
    # the in-place routes: N' = n (en), d' = d; L = 1 + 2·log d + 4 + 14·(log n − 1), three passes for any M
    for variant, per in (("in place", 1), ("in place, any M", 3)):
        assert by[f"L ratio: H.16(2) B^(nd) [{variant}], n=2, d=2"].value == (1 + per * (2 + 4)) / 10
        assert by[f"L ratio: H.16(1) B_nd [{variant}], n=2, d=2, k=4"].value == (1 + per * 4) / 9   # the half-turn
        L18 = 1 + per * 2 * (2 * 3 + 4 + 14 * 1)                   # n = 2, d = 8, e = 2: en = 4
        assert by[f"L ratio: H.18 (BB*)^1_2 [{variant}], n=2, d=8, e=2, w=1"].value == L18 / 50
        rows = [r for r in recs if f"[{variant}]" in r.name]
        assert {r.name.split(" ratio")[0] for r in rows} == {"L", "N'", "d'"}
        assert all(r.value == 1 and r.ok is True for r in rows if not r.name.startswith("L "))
        assert all(r.target == "reported" for r in rows if r.name.startswith("L "))
        assert any(f"[{variant}]" in tag for tag in series["L"])
    assert butterfly._line_style("H.18 [in place, any M] d=2") == "-." and butterfly._line_style("H.18 [in place] d=2") == ":"


def full_state(stack, u):
    """Every N'×d' entry after the stack, by a plain loop over layers (causal or circular)."""
    z = np.zeros((stack.N_int, stack.d_int))
    z[:stack.N, :stack.d] = u
    for l in stack.layers:
        W, h = np.asarray(l.W, float), np.asarray(l.h, float)
        conv = np.zeros_like(z)
        for t in range(h.shape[0]):
            shifted = np.roll(z, t, axis=0)
            if l.conv == "causal":
                shifted[:t] = 0
            conv += h[t] * shifted
        z = (z @ W + np.asarray(l.b1, float)) * (conv + np.asarray(l.b2, float))
    return z


@pytest.mark.parametrize("n,d", SHAPES)
def test_narrow_factor_every_k(n, d):
    u = RNG.standard_normal((n, d))
    for t in range(int(np.log2(n * d))):
        F = random_factor(n * d, 2 << t, RNG)
        s = compile_butterfly_factor_narrow(F, n, d)
        assert (s.L, s.N_int, s.d_int) == (3, 2 * n, d)
        z = full_state(s, u)
        assert np.abs(z[:n] - F.apply(u.ravel()).reshape(n, d)).max() < 1e-12
        assert not z[n:].any()                              # the spare rows end clean


@pytest.mark.parametrize("n,d", SHAPES)
def test_narrow_butterfly_numeric_and_count(n, d):
    B = random_butterfly(n * d, RNG)
    u = RNG.standard_normal((3, n, d))
    s = compile_butterfly_narrow(B, n, d)
    lg = lambda v: int(v).bit_length() - 1
    assert s.L == butterfly_narrow_layer_count(n, d) == 2 * lg(d) + 3 * lg(n) + (n == 1)
    assert (s.N_int, s.d_int) == (2 * n, d)
    assert np.abs(run(s, u) - from_row_major(B.apply(row_major(u)), n, d)).max() < 1e-12


def test_narrow_butterfly_exact():
    n, d = 4, 2
    B = symbolic_butterfly(n * d, "b")
    u = sym("u", n, d)
    out = evaluate(compile_butterfly_narrow(B, n, d), u)
    exp = from_row_major(B.apply(row_major(u.entries)), n, d)
    assert all(sympy.expand(a - b) == 0 for a, b in zip(out.entries.flat, exp.flat))


def test_narrow_pieces_compose_on_the_vector():
    """Factors compiled in two pieces (each ending clean) compose to the whole product."""
    from symconv import compose
    n, d = 4, 4
    B = random_butterfly(n * d, RNG)
    fs = B.applied()
    s = compose(compile_factors_narrow(fs[:2], n, d), compile_factors_narrow(fs[2:], n, d))
    u = RNG.standard_normal((1, n, d))
    assert np.abs(run(s, u) - from_row_major(B.apply(row_major(u)), n, d)).max() < 1e-12


@pytest.mark.parametrize("bad, words", [
    (lambda: compile_factors_narrow([], 2, 2), "factors: need at least one"),
    (lambda: compile_factors_narrow([random_factor(8, 2, RNG)], 2, 2, D=1), "D: grid width 1 is below"),
    (lambda: compile_factors_narrow([random_factor(8, 2, RNG)], 8, 2), "n: the vector of length 8"),
    (lambda: compile_butterfly_narrow(random_butterfly(8, RNG), 2, 2), "n, d:"),
    (lambda: compile_butterfly_factor_narrow(random_butterfly(8, RNG), 4, 2), "F: expected"),
])
def test_narrow_bad_input(bad, words):
    with pytest.raises(HypothesisError, match=words):
        bad()


def test_bench_cli_json(capsys):
    import json
    from symconv.cli import main
    rc = main(["bench", "butterfly", "--ratios-only", "--ratio-max-log", "2", "--format", "json"])
    recs = json.loads(capsys.readouterr().out)
    assert rc == 0 and recs and all(set(r) >= {"name", "value", "target", "ok"} for r in recs)


def test_bench_plot(tmp_path):
    pytest.importorskip("matplotlib")
    from symconv.bench import butterfly
    png = tmp_path / "ratios.png"
    one = {"H.16(2) B^(nd) [d' = d] d=2": [(4, 0.5), (16, 0.6)], "H.16(2) B^(nd) [d' = 3d] d=2": [(4, 0.4)]}
    butterfly.plot_ratios({"L": one, "N'": one, "d'": one}, str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(HypothesisError, match="plot: nothing to draw"):
        butterfly.plot_ratios({"L": {}, "N'": {}, "d'": {}}, str(tmp_path / "empty.png"))
