"""Circuit width as an explicit definition (gates per level vs wires alive across a level), and the
Theorem H.21 compiler's tight layout against L ≤ 4Δ⌈log₂w⌉ and N' ≤ 4w."""
import math
import random

import numpy as np
import pytest
import sympy

from symconv.blocks import from_array, sym
from symconv.circuits import (CircuitBuilder, binarize, det3_circuit, evaluate, expected_block, horner_circuit,
                              layering, matmul_circuit, paper_sizes, powers_circuit, product_circuit,
                              random_circuit)
from symconv.claims import Instance, check_instance
from symconv.constructions.arithmetic import compile_arithmetic
from symconv.model import HypothesisError
from symconv.numeric import run


def alive_by_simulation(c):
    """Wires alive across each level, counted by walking the levels (independent of cut_width's code)."""
    lev = c.levels()
    wires = [k for k in range(c.n_wires) if k < c.n_inputs or c.gates[k - c.n_inputs].op != "const"]
    readers = {k: [] for k in range(c.n_wires)}
    for j, g in enumerate(c.gates):
        if g.op != "const":
            for a in g.args:
                readers[a].append(c.n_inputs + j)
    best = c.n_inputs
    for l in range(1, max(lev[k] for k in wires) + 1):
        state = [k for k in wires if lev[k] == l or
                 (lev[k] < l and (k in c.outputs or any(lev[r] > l for r in readers[k])))]
        best = max(best, len(state))
    return best


def test_the_two_widths_on_families_where_they_differ():
    h = horner_circuit([1, 2, 3, 4])
    assert h.widths() == {"level": 1, "cut": 2}      # x is read at every level beside the partial sum
    for k in (2, 5, 8):
        p = powers_circuit(k)                        # one gate per level, k powers alive before the sums
        assert p.widths() == {"level": 1, "cut": k}
        assert evaluate(p, [3]) == [sum(3 ** (2 ** j) for j in range(1, k + 1))]
    assert product_circuit(8).widths() == {"level": 8, "cut": 8}
    # sparse random circuits carry their inputs to every level: cut width above the level width
    r = random_circuit(16, 16, 8, seed=8, n_outputs=4, sparse=True)
    assert r.level_width == 16 and r.cut_width > 16


def test_cut_width_matches_a_level_walk_and_bounds_the_level_width():
    for seed in range(8):
        c = random_circuit(5, 5, 4, seed=seed, n_outputs=2, sparse=seed % 2 == 0)
        assert c.cut_width == alive_by_simulation(c)
        assert c.cut_width >= c.level_width
    for c in (horner_circuit([1, 2, 3]), powers_circuit(4), det3_circuit(), matmul_circuit(2)):
        assert c.cut_width == alive_by_simulation(c)


def test_layering_carries_at_most_the_cut_width_plus_one_level():
    """The proof's z^ℓ (computed + carried wires of a layer) never exceeds twice the cut width."""
    for c in (horner_circuit([1, 2, 3, 4]), powers_circuit(5), random_circuit(6, 6, 4, seed=1)):
        assert max(l.width for l in layering(c).layers) <= 2 * c.cut_width


def test_binarize_keeps_values_and_makes_fan_in_two():
    b = CircuitBuilder(5)
    c = b.build([b.linear({0: 2, 1: -1, 2: 3, 3: 1, 4: 5}, c0=7), b.mul(0, 1)])
    bc = binarize(c)
    assert all(len(g.args) <= 2 for g in bc.gates)
    vals = [random.Random(3).randint(-5, 5) for _ in range(5)]
    assert evaluate(bc, vals) == evaluate(c, vals)
    assert (c.depth, bc.depth) == (1, 3)  # five operands: a tree of ⌈log₂ 5⌉ levels
    assert paper_sizes(matmul_circuit(2))["depth"] == 2  # fan-in-2 sums already
    with pytest.raises(HypothesisError, match="circuit"):
        binarize("x*y")


def exact_tight(c, n, d):
    cc = compile_arithmetic(c, n, d, layout="tight")
    u = sym("u", n, d)
    failure, _ = check_instance(Instance(u, cc.stack, expected_block(c, u)), {})
    return failure, cc


@pytest.mark.parametrize("c,n,d", [
    (product_circuit(2), 2, 1), (product_circuit(8), 4, 2), (horner_circuit(list(sympy.symbols("c0:5"))), 1, 1),
    (powers_circuit(3), 1, 1), (det3_circuit(), 3, 3), (random_circuit(6, 6, 3, seed=2, n_outputs=3, sparse=True), 6, 1),
    (random_circuit(4, 4, 3, seed=5, n_outputs=4, mul_fraction=0.2), 2, 2),   # mostly linear gates, channel blocks
])
def test_tight_layout_is_exact_and_smaller(c, n, d):
    failure, cc = exact_tight(c, n, d)
    assert failure is None, failure.describe()
    sig, proof = cc.stack.signature, compile_arithmetic(c, n, d).stack.signature
    assert sig.d_int == d and sig.N_int < proof.N_int and sig.L <= proof.L + 8


def test_tight_layout_meets_the_bound_where_it_does_and_not_elsewhere():
    """L ≤ 4Δ⌈log₂w⌉ and N' ≤ 4w with w the cut width, as measured (these figures are the report)."""
    def ratios(c, n, d):
        ps = paper_sizes(c)
        sig = compile_arithmetic(c, n, d, layout="tight").stack.signature
        w, D = ps["cut_width"], ps["depth"]
        return sig.L / (4 * D * math.ceil(math.log2(w))), sig.N_int / (4 * w)
    L, N = ratios(horner_circuit(list(sympy.symbols("c0:9"))), 1, 1)
    assert L <= 1 and N <= 1                      # Horner meets both (w = cut width 2)
    L, N = ratios(product_circuit(2), 2, 1)
    assert L <= 1 and N <= 1
    for n, d in ((16, 1), (8, 2)):               # balanced products: in-place levels, Δ + O(1) layers
        L, N = ratios(product_circuit(16), n, d)
        assert L <= 1 and N <= 1
    layers = compile_arithmetic(product_circuit(16), 16, 1, layout="tight").stack.layers
    assert sum("in place" in l.label for l in layers) == 4
    L, N = ratios(random_circuit(16, 16, 8, seed=8, n_outputs=4, sparse=True), 16, 1)
    assert L > 1 and N > 1                        # random circuits: neither (the Beneš stages)


def test_tight_linear_route_sends_terms_to_their_rows():
    """A linear level with sums and coefficients: the term-per-row route is taken and is exact."""
    from symconv.circuits import Affine
    from symconv.constructions.arithmetic import Router, route_affine

    R = Router(8, 1)
    R.occ[:4, 0] = True
    targets = [(0, Affine(((0, 2), (3, -1)))), (1, Affine(((1, 1),))), (2, Affine(((0, 1), (2, 3)), 5))]
    route_affine(R, {0: 0, 1: 1, 2: 2, 3: 3}, targets, "t", tight=True)
    assert not any("place" in l.label or "coefficients" in l.label for l in R.layers)
    from symconv.model import Stack
    from symconv.symbolic import evaluate as sym_eval

    out = sym_eval(Stack(4, 1, tuple(R.layers), R.N_int, 1), sym("u", 4, 1)).entries[:, 0]
    u = sym("u", 4, 1).entries[:, 0]
    assert [sympy.expand(v) for v in out[:3]] == [sympy.expand(2 * u[0] - u[3]), u[1], sympy.expand(u[0] + 3 * u[2] + 5)]
    assert out[3] == 0


def test_level_width_makes_the_bound_zero_for_horner():
    """With w = gates per level, 4Δ⌈log₂w⌉ = 0 for Horner, but a degree-k output needs a layer."""
    ps = paper_sizes(horner_circuit([1, 2, 3]))
    assert ps["level_width"] == 1 and 4 * ps["depth"] * math.ceil(math.log2(ps["level_width"])) == 0
    cc = compile_arithmetic(horner_circuit([1, 2, 3]), 1, 1, layout="tight")
    assert cc.stack.signature.L >= 1
    from symconv.certificates.degree import DegreeCertificate

    u = sym("u", 1, 1)
    x = u.entries[0, 0]
    cert = DegreeCertificate.of(u, from_array([[1 + 2 * x + 3 * x ** 2]]))
    assert cert.degree == 2 and cert.lower == 1 > 0   # a checkable certificate: L ≥ 1 > 4Δ⌈log₂ 1⌉ = 0
    assert "at least 1 layer" in cert.check().proves


def test_tight_layout_numeric_and_bad_options():
    c = product_circuit(256)
    cc = compile_arithmetic(c, 256, 1, layout="tight")
    X = np.random.default_rng(0).uniform(0.95, 1.05, size=(1, 256))
    got = run(cc.stack, X.reshape(1, 256, 1))[0, 0, 0]
    assert abs(got - np.prod(X)) <= 1e-9 * abs(np.prod(X))
    with pytest.raises(HypothesisError, match="layout"):
        compile_arithmetic(c, 256, 1, layout="dense")
    with pytest.raises(HypothesisError, match="layout"):
        compile_arithmetic(c, 256, 1, linear="H.20", layout="tight")


def test_bench_circuits_ratios_are_finite_json_and_flag_misses():
    import argparse
    import json

    from symconv.bench.circuits import signature_ratios
    from symconv.commands.bench import _finite

    recs, series = signature_ratios(argparse.Namespace(max_w=4, layout="tight"))
    by = {r.name: r for r in recs}
    assert by["L / 4Δ⌈log₂w⌉: Horner, w=2, Δ=16, d=1"].ok is True
    assert by["N' / 4w: random dense Δ=2, w=4, Δ=2, d=1"].ok is False
    assert all(r.value == 1 for r in recs if r.name.startswith("d' / d"))
    json.dumps([_finite(r.as_dict()) for r in recs], allow_nan=False)
    assert set(series) == {"L / 4Δ⌈log₂w⌉", "N' / 4w", "d' / d"}
    with pytest.raises(HypothesisError, match="max-w"):
        signature_ratios(argparse.Namespace(max_w=2, layout="tight"))
