"""Printed formulas of parts 9–10 (Prop. H.15 to Cor. H.22, except H.12) as steps.

Each as-printed verdict names the failing steps its proof file records; each printed
formula exists as a step (by label) in the instance of its variant; a deliberately
wrong formula step fails.  Small explicit sizes keep the file fast.
"""
from dataclasses import replace

import pytest
import sympy

from symconv import Instance, Step, verify
from symconv.blocks import from_array
from symconv.circuits import horner_circuit, layering, matmul_circuit, product_circuit, random_circuit
from symconv.claims import check_all
from symconv.registry import load_module, proofs_dir

H16_ROUTE = ("D₁x ≡ D₁′⊙u (y₁)", "add_n(y¹ : y₁, 0)", "D₂x ≡ D₂′⊙u (y₂)", "add_n(y² : y₂, y₁)",
             "D₃x ≡ D₃′⊙u (y₃)", "add_n(y³ : y₃, y₁ + y₂)", "y³ ≡ y₁+y₂+y₃ ≡ B_{nd}x",
             "3 Hadamard layers + six more layers (add_n)")
H21_STEPS = ("y^ℓ ≡ (v₂, v₃, 0) by an (n, 1, d, n, d) projection",
             "z^{ℓ+1} ≡ (v₁⊙(e₀∗v₂) | v₃ | 0) ≡ (v₁⊙v₂ | v₃ | 0)")

# (proof file, claim name, variant, sizes, failing steps expected from the claimed previous state)
ERRATA = [
    ("h15_butterfly_factor.py", "butterfly_factor_decomposition", "as printed, S down", {"n": 4, "k": 4}, ("output",)),
    ("h15_butterfly_factor.py", "butterfly_factor_decomposition", "as printed, S up", {"n": 2, "k": 2}, ("output",)),
    ("h15_butterfly_factor.py", "butterfly_factor_decomposition", "as printed, S cyclic", {"n": 4, "k": 4},
     ("output",)),
    ("h15_butterfly_factor.py", "equation 5", "D₂ S^{n/2} ≡ [[0,D2],[0,0]], S cyclic", {"n": 2, "k": 2}, ("output",)),
    ("h16_butterfly.py", "butterfly_factor_matrix", "as printed", {"n": 2, "d": 2, "k": 4},
     ("D₂x ≡ D₂′⊙u (y₂)", "y³ ≡ y₁+y₂+y₃ ≡ B_{nd}x")),
    ("h16_butterfly.py", "butterfly_factor_matrix", "d_i = diag D_i", {"n": 2, "d": 2, "k": 2},
     ("y³ ≡ y₁+y₂+y₃ ≡ B_{nd}x",)),
    ("h16_butterfly.py", "butterfly_factor_matrix", "B x ≡ ΣD_i′⊙u", {"n": 2, "d": 2, "k": 4}, ("output",)),
    ("h16_butterfly.py", "butterfly_matrix", "5·log(nd): (1) stacked log(nd) times", {"n": 2, "d": 4},
     ("5·log(nd) layers",)),
    ("h21_arithmetic_circuits.py", "mult layer", "remember(y : v2, v3, e_0, p) as printed", {"m": 2, "r": 1},
     (H21_STEPS[1],)),
    ("h22_retnet.py", "eq. 7", "printed z1 line 2", {"N": 2, "d": 1}, ("output",)),
]


def _claim(fname, name):
    mod = load_module(proofs_dir() / fname)
    (claim,) = [c for c in mod.CLAIMS if c.name == name]
    return claim


def _variant(claim, name):
    (v,) = [v for v in claim.variants if v.name == name]
    return v


@pytest.mark.parametrize("fname, name, variant, sizes, failing", ERRATA, ids=[e[2] for e in ERRATA])
def test_as_printed_verdict_names_the_recorded_failing_steps(fname, name, variant, sizes, failing):
    claim = _claim(fname, name)
    (v,) = verify(claim, variants=[variant], sizes=[sizes])
    assert v.verdict == "fails"
    assert tuple(v.failing_steps) == failing
    assert tuple(_variant(claim, variant).fails_at) == failing
    assert v.ok, v.differences


# (proof file, claim name, variant, sizes, printed formula labels that must be steps of the instance)
FORMULAS = [
    ("h16_butterfly.py", "butterfly_factor_matrix", "as printed", {"n": 2, "d": 2, "k": 2}, H16_ROUTE),
    ("h16_butterfly.py", "butterfly_factor_matrix", "d_i = diag D_i", {"n": 4, "d": 2, "k": 8}, H16_ROUTE),
    ("h16_butterfly.py", "butterfly_matrix", "5·log(nd): (1) stacked log(nd) times", {"n": 2, "d": 2},
     ("5·log(nd) layers",)),
    ("h18_kaleidoscope.py", "kaleidoscope", "construction", {"n": 2, "d": 2, "e": 1, "w": 2},
     ("E_1x′ by 2·log(end) butterfly factor matrices (H.16)", "E_2x′ by 2·log(end) butterfly factor matrices (H.16)",
      "w·2·log(end) butterfly factor matrices (H.11), one sum layer")),
    ("h21_arithmetic_circuits.py", "mult layer", "remember(y : v2, v3, e_0, p) as printed", {"m": 1, "r": 1}, H21_STEPS),
    ("h21_arithmetic_circuits.py", "mult layer", "remember(y : v2, v3, e_0, v1), v1 as the parameter p",
     {"m": 1, "r": 1}, H21_STEPS),
]


@pytest.mark.parametrize("fname, name, variant, sizes, labels", FORMULAS, ids=[f[2] for f in FORMULAS])
def test_each_printed_formula_is_a_step(fname, name, variant, sizes, labels):
    claim = _claim(fname, name)
    inst = _variant(claim, variant).instance(sizes, claim)
    have = [s.label for s in inst.steps]
    assert set(labels) <= set(have), set(labels) - set(have)
    _, results = check_all(inst, sizes)
    verdicts = {r.label: r.holds for r in results}
    if variant == "as printed":
        assert [k for k in labels if not verdicts[k]] == ["D₂x ≡ D₂′⊙u (y₂)", "y³ ≡ y₁+y₂+y₃ ≡ B_{nd}x"]
    elif variant == "d_i = diag D_i":
        assert [k for k in labels if not verdicts[k]] == ["y³ ≡ y₁+y₂+y₃ ≡ B_{nd}x"]
    elif variant.startswith("5·log(nd)"):
        # 2 log d + 3 log n layers: the printed 5·log(nd) is an upper bound, not the count
        assert inst.stack.L == 5 and not verdicts["5·log(nd) layers"]
    elif "v1 as the parameter" in variant or variant == "construction":
        assert all(verdicts[k] for k in labels)
    else:
        assert verdicts == {H21_STEPS[0]: True, H21_STEPS[1]: False}


def _with_step(inst, label, new):
    """The instance with the step ``label`` replaced by ``new``."""
    steps = tuple(new if s.label == label else s for s in inst.steps)
    assert any(s.label == label for s in inst.steps)
    return Instance(inst.input, inst.stack, inst.expected, steps)


def _holds(inst, sizes, label):
    _, results = check_all(inst, sizes)
    return {r.label: r.holds for r in results}[label]


def _swap_rows(block, a, b):
    e = block.entries.copy()
    e[[a, b]] = e[[b, a]]
    return from_array(e, "wrong")


def test_a_wrong_add_n_step_fails_and_the_right_one_holds():
    claim = _claim("h16_butterfly.py", "butterfly_factor_matrix")
    sizes = {"n": 2, "d": 2, "k": 2}
    inst = _variant(claim, "d_i = diag D_i").instance(sizes, claim)
    label = "add_n(y² : y₂, y₁)"
    (step,) = [s for s in inst.steps if s.label == label]
    assert _holds(inst, sizes, label)
    # the running sum one row off (row n ↔ row n+1 of the state): must fail
    wrong = _with_step(inst, label, replace(step, expected=_swap_rows(step.expected, 2, 3)))
    assert not _holds(wrong, sizes, label)
    # the step one layer early (before the second add_n layer): must fail
    early = _with_step(inst, label, Step(label, step.layers - 1, step.expected))
    assert not _holds(early, sizes, label)


def test_a_wrong_count_step_fails():
    claim = _claim("h16_butterfly.py", "butterfly_factor_matrix")
    sizes = {"n": 2, "d": 2, "k": 4}
    inst = _variant(claim, "as printed").instance(sizes, claim)
    label = "3 Hadamard layers + six more layers (add_n)"
    assert _holds(inst, sizes, label) and inst.stack.L == 9
    wrong = _with_step(inst, label, Step(label, 0, kind="count", count=8))
    assert not _holds(wrong, sizes, label)


def test_a_wrong_kaleidoscope_state_step_fails():
    claim = _claim("h18_kaleidoscope.py", "kaleidoscope")
    sizes = {"n": 2, "d": 2, "e": 2, "w": 1}
    inst = _variant(claim, "construction").instance(sizes, claim)
    label = "E_1x′ by 2·log(end) butterfly factor matrices (H.16)"
    (step,) = [s for s in inst.steps if s.label == label]
    assert _holds(inst, sizes, label)
    wrong = _with_step(inst, label, replace(step, expected=_swap_rows(step.expected, 0, 1)))
    assert not _holds(wrong, sizes, label)
    count = "w·2·log(end) butterfly factor matrices (H.11), one sum layer"
    assert _holds(inst, sizes, count) and inst.stack.L == 11
    assert not _holds(_with_step(inst, count, Step(count, 0, kind="count", count=12)), sizes, count)


def test_a_wrong_projection_step_fails():
    claim = _claim("h21_arithmetic_circuits.py", "mult layer")
    sizes = {"m": 2, "r": 1}
    inst = _variant(claim, "remember(y : v2, v3, e_0, v1), v1 as the parameter p").instance(sizes, claim)
    (step,) = [s for s in inst.steps if s.label == H21_STEPS[0]]
    # y^ℓ = (v₁, v₃, 0) instead of (v₂, v₃, 0): the projection index off by one block
    v = inst.input.entries
    e = step.expected.entries.copy()
    e[:2] = v[:2]
    wrong = _with_step(inst, H21_STEPS[0], replace(step, expected=from_array(e, "wrong")))
    assert _holds(inst, sizes, H21_STEPS[0]) and not _holds(wrong, sizes, H21_STEPS[0])


def test_z1_line_2_index_off_by_one_fails_and_its_obvious_reading_holds():
    claim = _claim("h22_retnet.py", "eq. 7")
    vs = {v.variant: v for v in verify(claim, sizes=[{"N": 2, "d": 1}],
                                       variants=["printed z1 line 2", "printed z1 line 2, obvious reading u^T[:, 0]",
                                                 "printed z1 line 3"])}
    assert vs["printed z1 line 2"].verdict == "fails"
    assert vs["printed z1 line 2, obvious reading u^T[:, 0]"].verdict == "holds"
    assert vs["printed z1 line 3"].verdict == "holds"
    assert "obvious reading" in vs["printed z1 line 2"].reading


def test_prop_h15_fails_under_every_reading_of_s_and_eq5_d3_holds_for_down_and_cyclic():
    claim = _claim("h15_butterfly_factor.py", "equation 5")
    vs = {v.variant: v.verdict for v in verify(claim, sizes=[{"n": 4, "k": 4}])}
    assert vs["S^{n/2} D₃ ≡ [[0,0],[D3,0]], S down"] == vs["S^{n/2} D₃ ≡ [[0,0],[D3,0]], S cyclic"] == "holds"
    assert vs["S^{n/2} D₃ ≡ [[0,0],[D3,0]], S up"] == "fails"
    assert {vs[f"D₂ S^{{n/2}} ≡ [[0,D2],[0,0]], S {r}"] for r in ("down", "up", "cyclic")} == {"fails"}
    every = [v for v in _claim("h15_butterfly_factor.py", "butterfly_factor_decomposition").variants
             if v.name.startswith("as printed")]
    assert len(every) == 3 and all(v.reading.startswith("S^j is not defined") for v in every)
    k_lt_n = _claim("h15_butterfly_factor.py", "butterfly_factor_decomposition (k < n)")
    assert all(v.reading.startswith("not stated in the paper") for v in k_lt_n.variants)


def _families():
    return {"x·y": product_circuit(2), "product 8": product_circuit(8),
            "Horner 4": horner_circuit(list(sympy.symbols("c0:5"))), "matmul 2": matmul_circuit(2),
            "random 4": random_circuit(8, 8, 4, seed=4, n_outputs=4, sparse=True)}


def test_theorem_h21_layering_counts():
    """L_C = O(Δ): symconv's layering has L_C <= 2Δ + 1 (the paper states no constant)."""
    for name, c in _families().items():
        assert layering(c).L_C <= 2 * c.depth + 1, name


def test_theorem_h21_w_prime_plus_s_at_most_w_fails_for_horner():
    """'w′ + s ≤ w as w is the width': with w = the most wires on one depth level (our working
    definition), Horner's rule has w = 1 but each linear layer carries x beside the partial sum."""
    c = horner_circuit(list(sympy.symbols("c0:5")))
    lin = [l for l in layering(c).layers if l.kind == "linear"]
    worst = max(len(l.targets) + len(l.carried) for l in lin)
    assert c.width == 1 and worst == 2
    # x·y (one multiplication, no carried wire) satisfies it
    xy = product_circuit(2)
    assert all(len(l.targets) + len(l.carried) <= xy.width for l in layering(xy).layers if l.kind == "linear")


def test_every_printed_line_of_the_unrolling_is_a_variant_with_its_record():
    mod = load_module(proofs_dir() / "h22_retnet.py")
    claim = _claim("h22_retnet.py", "eq. 7")
    by_name = {v.name: v for v in claim.variants}
    assert len(mod.LINES) == 7 and {f"printed {ln}" for ln in mod.LINES} | {"eq. 7"} <= set(by_name)
    assert [n for n, v in by_name.items() if v.expect == "fails"] == ["printed z1 line 2"]
    assert by_name["printed z1 line 2"].fails_at == ("output",)


def test_readings_label_the_non_literal_variants():
    h16 = _claim("h16_butterfly.py", "butterfly_factor_matrix")
    assert _variant(h16, "as printed").reading.startswith("literal")
    assert _variant(h16, "d_i = diag D_i").reading.startswith("obvious reading")
    h21 = _claim("h21_arithmetic_circuits.py", "mult layer")
    assert "not a BaseConv model" in _variant(h21, "remember(y : v2, v3, e_0, v1), v1 as the parameter p").reading
