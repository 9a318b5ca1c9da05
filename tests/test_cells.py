"""Theorem H.21 on the cell layout: exact stacks within L ≤ 4Δ⌈log₂w⌉ and N' ≤ 4w, and clear refusals."""
import math

import numpy as np
import pytest
import sympy

from symconv.blocks import sym
from symconv.circuits import (CircuitBuilder, det3_circuit, evaluate_numeric, expected_block, horner_circuit,
                              paper_sizes, powers_circuit, product_circuit, random_circuit)
from symconv.constructions.arithmetic import compile_arithmetic
from symconv.constructions.cells import compile_cells
from symconv.model import HypothesisError
from symconv.numeric import run
from symconv.symbolic import evaluate


def _bounds(c):
    ps = paper_sizes(c)
    w = ps["cut_width"]
    return 4 * ps["depth"] * math.ceil(math.log2(w)), 4 * w


def _exact(c, stack, d=1):
    u = sym("u", c.n_inputs // d, d)
    got, want = evaluate(stack, u), expected_block(c, u)
    return all(sympy.expand(a - b) == 0 for a, b in zip(got.entries.flat, want.entries.flat))


@pytest.mark.parametrize("sparse, D", [(True, 2), (False, 2), (True, 4)])
def test_random_circuits_exactly_within_both_bounds(sparse, D):
    c = random_circuit(4, 4, D, seed=4 + D, n_outputs=4, sparse=sparse)  # the bench's w = 4 circuits
    r = compile_cells(c)
    L_bound, N_bound = _bounds(c)
    sig = r.stack.signature
    assert sig.L <= L_bound and sig.N_int == N_bound and sig.d_int == 1
    assert r.budget == L_bound and len(r.steps) >= 1
    assert _exact(c, r.stack)


@pytest.mark.parametrize("c, d", [(product_circuit(16), 2), (det3_circuit(), 3),
                                  (random_circuit(8, 8, 2, seed=3, n_outputs=4, sparse=True), 2)])
def test_several_channels_exactly_within_both_bounds(c, d):
    # two layers put u[i, c] on cell c·n + i of channel 0, two bring the outputs back: d' = d
    r = compile_cells(c, d=d)
    L_bound, N_bound = _bounds(c)
    sig = r.stack.signature
    assert (sig.d, sig.d_int, sig.N) == (d, d, c.n_inputs // d)
    assert sig.L <= L_bound and sig.N_int <= N_bound
    assert _exact(c, r.stack, d)


def test_outputs_that_are_inputs_lower_wires_or_repeats_exactly():
    # outputs placed by copies: an input wire, a wire of an earlier level, the same wire twice
    b = CircuitBuilder(3)
    m = b.mul(0, 1)
    s_ = b.add(m, 2)
    for outs in ([m, 2], [s_, m], [s_, m, m]):
        c = b.build(outs)
        assert _exact(c, compile_cells(c).stack), outs
    b = CircuitBuilder(3)
    m = b.mul(0, 1)
    with pytest.raises(HypothesisError, match="repeats wire"):
        compile_cells(b.build([m, m]))  # a product of the last level, twice: refused, not half-built


def test_huge_and_fractional_coefficients_exactly():
    b = CircuitBuilder(2)
    g = b.linear({0: 10 ** 40, 1: sympy.Rational(-3, 7)}, sympy.Rational(1, 2))
    c = b.build([b.mul(g, 1)])
    assert _exact(c, compile_cells(c).stack)


def test_squares_and_carried_wires_exactly():
    c = powers_circuit(3)  # x², x⁴, x⁸ carried to a sum: products of a wire with itself
    r = compile_cells(c)
    assert _exact(c, r.stack)


def test_numeric_at_width_16_and_the_compile_arithmetic_entry():
    c = random_circuit(16, 16, 2, seed=18, n_outputs=4, sparse=False)
    cc = compile_arithmetic(c, 16, 1, layout="cells")
    L_bound, N_bound = _bounds(c)
    assert cc.stack.signature.L <= L_bound and cc.stack.signature.N_int <= N_bound
    X = np.random.default_rng(0).standard_normal((3, 16))
    ref = evaluate_numeric(c, X)
    out = np.stack([run(cc.stack, x.reshape(-1, 1))[:, 0] for x in X])
    assert np.max(np.abs(out[:, :4] - ref)) <= 1e-9 * max(1.0, np.max(np.abs(ref)))
    assert np.all(out[:, 4:] == 0)  # the rest of the output block is cleared


def _values(stack):
    return [(repr(x.W.tolist()), repr(x.h.tolist()), repr(x.b1.tolist()), repr(x.b2.tolist()), x.conv)
            for x in stack.layers]


def test_same_seed_same_stack():
    c = random_circuit(4, 4, 2, seed=6, n_outputs=4, sparse=True)
    assert _values(compile_cells(c, seed=3).stack) == _values(compile_cells(c, seed=3).stack)


def test_refusals_name_the_parameter():
    c = random_circuit(4, 4, 2, seed=6, n_outputs=4, sparse=True)
    with pytest.raises(HypothesisError, match="found no plan.*not a proof"):
        compile_cells(c, budget=2, restarts=1, tries=2)
    with pytest.raises(HypothesisError, match="budget: must be an integer >= 5"):
        compile_arithmetic(product_circuit(2), 1, 2, layout="cells")  # x·y, d = 2: 4 channel layers > 4
    with pytest.raises(HypothesisError, match="d: must be a positive integer dividing"):
        compile_cells(c, d=3)
    b = CircuitBuilder(2)
    with pytest.raises(HypothesisError, match="not a rational number"):
        compile_cells(b.build([b.mul(b.linear({0: sympy.Symbol("a"), 1: 1}), 1)]))
    with pytest.raises(HypothesisError, match="is a constant"):
        compile_cells(horner_circuit(list(sympy.symbols("a0:3"))))  # Horner starts from its constant
    b = CircuitBuilder(2)
    with pytest.raises(HypothesisError, match="is a constant"):
        compile_cells(b.build([b.const(3)]))
    with pytest.raises(HypothesisError, match="seed: only layout='cells'"):
        compile_arithmetic(c, 4, 1, layout="lean", seed=1)
    with pytest.raises(HypothesisError, match="M: must be an integer >= 4"):
        compile_cells(c, M=2)
    with pytest.raises(HypothesisError, match="M: .* past the planner's reach"):
        compile_cells(c, M=10 ** 9)
    with pytest.raises(HypothesisError, match="M: must be an integer"):
        compile_cells(c, M="16")
    with pytest.raises(HypothesisError, match="restarts"):
        compile_cells(c, restarts=0)
    with pytest.raises(HypothesisError, match="seconds: must be a positive number"):
        compile_cells(c, seconds=0)
    with pytest.raises(HypothesisError, match="seconds: the cell planner stopped .*search stopped after"):
        compile_cells(random_circuit(16, 16, 3, seed=1, n_outputs=16, sparse=True), seconds=1)
    b = CircuitBuilder(2)
    with pytest.raises(HypothesisError, match="not a rational number"):
        compile_cells(b.build([b.mul(b.linear({0: sympy.sqrt(2), 1: 1}), 1)]))


# ----------------------------------------------------------------------------- the fast planner (cells_fast)

@pytest.mark.parametrize("c", [product_circuit(8), product_circuit(13), product_circuit(10),
                               random_circuit(16, 16, 4, seed=22, n_outputs=4, sparse=True),
                               random_circuit(16, 16, 3, seed=19, n_outputs=4, sparse=False)])
def test_fast_planner_exactly_within_both_bounds(c):
    # product(13) carries a wire past a level; product(10) spreads level 1 with stride 3 (stride 4 fills all
    # M = 20 cells and wraps); the random ones merge linear gates with coefficients ±1, ±2
    r = compile_cells(c, planner="fast")
    L_bound, N_bound = _bounds(c)
    sig = r.stack.signature
    assert sig.L <= L_bound and sig.N_int == N_bound
    assert _exact(c, r.stack)


def test_fast_planner_spreads_a_product_tree_once():
    # level 1 spreads input j to cell 2j (4 steps), every later level pairs its operands where they are
    r = compile_cells(product_circuit(16), planner="fast")
    assert r.steps == (4, 0, 0, 0)
    assert _exact(product_circuit(16), r.stack)


def _same(a, b):
    return [(repr(x.h.tolist()), repr(x.b1.tolist()), repr(x.b2.tolist())) for x in a.layers] == \
        [(repr(x.h.tolist()), repr(x.b1.tolist()), repr(x.b2.tolist())) for x in b.layers]


def test_auto_takes_the_fast_planner_from_FAST_CELLS_on(monkeypatch):
    import symconv.constructions.cells as cells
    import symconv.constructions.cells_fast as fast
    calls = []
    real = fast.plan_cells_fast
    monkeypatch.setattr(fast, "plan_cells_fast", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    c = product_circuit(8)                       # M = 16 cells
    assert _same(compile_cells(c).stack, compile_cells(c, planner="search").stack) and calls == []
    monkeypatch.setattr(cells, "FAST_CELLS", 16)
    got = compile_cells(c)
    assert calls == [16] and _same(got.stack, compile_cells(c, planner="fast").stack)

    def fail(*a, **k):
        raise cells.PlanFail("test")
    monkeypatch.setattr(fast, "plan_cells_fast", fail)    # auto falls back to the search
    assert _same(compile_cells(c).stack, compile_cells(c, planner="search").stack)
    with pytest.raises(HypothesisError, match="found no plan"):
        compile_cells(c, planner="fast")


def test_fast_planner_numerically_at_the_hooks_width_256(monkeypatch):
    # the numeric hook's circuit at N = 256 (M = 818 ≥ FAST_CELLS: the default takes the fast planner)
    import symconv.constructions.cells_fast as fast
    calls = []
    real = fast.plan_cells_fast
    monkeypatch.setattr(fast, "plan_cells_fast", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    c = random_circuit(256, 256, 3, seed=1, n_outputs=16, sparse=True)
    r = compile_cells(c, seconds=5)   # the search would need far longer: this is the fast planner's stack
    L_bound, N_bound = _bounds(c)
    assert calls == [r.M] and r.stack.signature.L <= L_bound and r.stack.signature.N_int == N_bound
    X = np.random.default_rng(1).uniform(-1.0, 1.0, (2, 256))
    ref = evaluate_numeric(c, X)
    out = np.stack([run(r.stack, x.reshape(-1, 1))[:, 0] for x in X])
    assert np.max(np.abs(out[:, :16] - ref)) <= 1e-9 * max(1.0, np.max(np.abs(ref)))
    assert np.all(out[:, 16:] == 0)
    # and exactly over F_p on random residues (Schwartz–Zippel: a wrong stack passes with probability <= 8/p)
    from symconv.circuits import evaluate as evaluate_circuit
    from symconv.exact import PRIME, run_mod
    xs = [int(v) for v in np.random.default_rng(2).integers(0, PRIME, 256)]
    got = run_mod(r.stack, np.array(xs, dtype=np.int64).reshape(256, 1))[:, 0]
    want = [int(v) % PRIME for v in evaluate_circuit(c, xs)]
    assert [int(v) for v in got[:16]] == want and not got[16:].any()


def test_fast_planner_keeps_huge_and_fractional_coefficients_exact():
    # its layers are int64 only where every value is a small integer; 10**40 and -3/7 stay objects
    b = CircuitBuilder(2)
    g = b.linear({0: 10 ** 40, 1: sympy.Rational(-3, 7)}, sympy.Rational(1, 2))
    c = b.build([b.mul(g, 1)])
    st = compile_cells(c, M=8, budget=20, planner="fast").stack
    kinds = {layer.b1.dtype.kind for layer in st.layers} | {layer.b2.dtype.kind for layer in st.layers}
    assert kinds == {"i", "O"}
    assert _exact(c, st)


def test_the_time_limit_covers_the_fast_planner_and_never_falls_back():
    # a dense circuit whose fast planning takes about a minute before it fails (review10): with seconds=2
    # both planners stop there, and auto does not fall back to the search (its stack would depend on time)
    import time
    c = random_circuit(256, 256, 2, seed=1, n_outputs=256)
    for planner in ("fast", "auto"):
        t = time.perf_counter()
        with pytest.raises(HypothesisError, match="seconds: the cell planner stopped at its 2 s limit"):
            compile_cells(c, planner=planner, seconds=2)
        assert time.perf_counter() - t < 30
    with pytest.raises(HypothesisError, match="planner='fast': no seed"):
        compile_cells(product_circuit(4), planner="fast", budget=1)


def test_planner_must_be_named():
    with pytest.raises(HypothesisError, match="planner: must be one of auto, search, fast"):
        compile_cells(product_circuit(4), planner="quick")


def test_best_layout_takes_lean_within_the_bounds_else_the_next_seed_of_cells():
    from symconv.circuits import matmul_circuit, theorem_bounds
    from symconv.constructions.cells import NoPlan

    c = matmul_circuit(2)                     # lean misses N' ≤ 4w (72 > 32); the cell search's seed 0 finds no plan
    assert theorem_bounds(c) == _bounds(c) == (24, 32)
    assert compile_arithmetic(c, 8, 1, layout="lean").stack.signature.N_int > 32
    with pytest.raises(NoPlan, match="no plan"):
        compile_cells(c, seed=0)
    cc = compile_arithmetic(c, 8, 1, layout="best")
    sig = cc.stack.signature
    assert (cc.counts["chosen"], cc.counts["seed"]) == ("cells", 1) and cc.counts["bounds"] == (24, 32)
    assert cc.counts["tried"][0] == "lean" and "seed 0" in cc.counts["tried"][1] and len(cc.counts["tried"]) == 3
    assert sig.L <= 24 and sig.N_int <= 32 and sig.d_int == 1
    assert _values(cc.stack) == _values(compile_arithmetic(c, 8, 1, layout="cells", seed=1).stack)
    assert _exact(c, cc.stack)
    h = horner_circuit([1, 2, 3])             # lean meets both bounds: kept, no search
    best = compile_arithmetic(h, 1, 1, layout="best")
    assert best.counts["chosen"] == "lean" and best.counts["tried"] == ("lean",)
    assert _values(best.stack) == _values(compile_arithmetic(h, 1, 1, layout="lean").stack)


def test_best_layout_stops_at_a_refusal_and_keeps_the_nearest_stack():
    from symconv.circuits import theorem_bounds

    b = CircuitBuilder(1)                     # x² + x⁴ + x⁸ + x¹⁶ + 3 with the 3 a constant gate: cells refuses it
    w, acc, k = b.input(0), [], b.const(3)
    for _ in range(4):
        w = b.mul(w, w)
        acc.append(w)
    c = b.build([b.add(*acc, k)])
    cc = compile_arithmetic(c, 1, 1, layout="best")
    L_bound, N_bound = theorem_bounds(c)
    assert cc.stack.signature.N_int > N_bound                  # lean's 30 rows against 16: reported, not hidden
    assert cc.counts["chosen"] == "lean" and len(cc.counts["tried"]) == 2 and "constant" in cc.counts["tried"][1]
    assert _exact(c, cc.stack)
    with pytest.raises(HypothesisError, match="seed"):
        compile_arithmetic(c, 1, 1, layout="lean", seed=1)


def test_best_layout_stops_its_searches_at_BEST_SECONDS(monkeypatch):
    import symconv.constructions.arithmetic as arithmetic

    c = random_circuit(4, 4, 2, seed=6, n_outputs=4, sparse=False)  # lean misses L ≤ 4Δ⌈log₂w⌉; cells meets it
    monkeypatch.setattr(arithmetic, "BEST_SECONDS", 0.0)
    cc = compile_arithmetic(c, 4, 1, layout="best")
    assert cc.counts["chosen"] == "lean" and cc.counts["tried"][-1].startswith("cells: stopped")
    monkeypatch.setattr(arithmetic, "BEST_SECONDS", 60.0)
    assert compile_arithmetic(c, 4, 1, layout="best").counts["chosen"] == "cells"


def test_symbolic_coefficients_are_refused_before_the_search(monkeypatch):
    import symconv.constructions.cells as cells

    g = sympy.Symbol("g")
    b = CircuitBuilder(8)
    prods = [b.mul(2 * k, 2 * k + 1) for k in range(4)]
    s1, s2 = b.add(prods[0], prods[1]), b.add(prods[2], prods[3])
    out = b.linear({b.mul(s1, s2): g})                # the symbol sits at the last level only

    def no_planning(*a, **k):
        raise AssertionError("the search started before the coefficients were read")
    monkeypatch.setattr(cells, "plan_level", no_planning)
    with pytest.raises(HypothesisError, match="gate .*: coefficient g is not a rational"):
        compile_cells(b.build([out]))


def test_best_layout_on_a_circuit_of_depth_zero_and_with_merged_linear_gates():
    b = CircuitBuilder(2)
    ident = b.build([0, 1])                                   # no gate: an L bound of 0 layers
    cc = compile_arithmetic(ident, 2, 1, layout="best")
    assert cc.stack.signature.L == 0 and cc.counts["chosen"] == "lean" and cc.counts["tried"] == ("lean",)
    c = random_circuit(4, 4, 2, seed=6, n_outputs=4, sparse=False)
    merged = compile_arithmetic(c, 4, 1, merge_linear=True, layout="best")
    assert merged.counts["chosen"] == "lean" and merged.counts["tried"][-1] == "cells: not tried (merge_linear=True)"
