"""Theorem H.21 compiler: the channel-mix multiplication layer (d > 1), the gapped layout and the lean layout."""
import numpy as np
import pytest

from symconv.blocks import from_array, sym
from symconv.circuits import CircuitBuilder, det3_circuit, expected_block, layering, product_circuit, random_circuit
from symconv.claims import Instance, check_instance
from symconv.constructions.arithmetic import _channel_mix, compile_arithmetic
from symconv.model import HypothesisError


def check(c, n, d, layout):
    """The compiled stack's exact output against the circuit's polynomials (None when it holds)."""
    cc = compile_arithmetic(c, n, d, layout=layout)
    u = sym("u", n, d)
    failure, _ = check_instance(Instance(u, cc.stack, expected_block(c, u)), {})
    return failure, cc


def test_xy_with_two_channels_is_one_layer():
    failure, cc = check(product_circuit(2), 1, 2, "tight")
    assert failure is None, failure.describe()
    sig = cc.stack.signature
    assert (sig.L, sig.d, sig.d_int) == (1, 2, 2)
    (layer,) = cc.stack.layers
    assert layer.W.tolist() == [[0, 0], [1, 0]]        # channel 1 read into channel 0
    assert compile_arithmetic(product_circuit(2), 1, 2).stack.signature.L > 1   # the proof layout: more


def _same_row_circuits():
    b = CircuitBuilder(4)                                # outputs in place, a carried input beside them
    yield b.build([b.mul(0, 1), 1, b.mul(3, 2), 3]), 2, 2, True
    b = CircuitBuilder(4)                                # a host entry with no product (row 1): dropped later
    yield b.build([b.mul(0, 1)]), 2, 2, False
    b = CircuitBuilder(6)                                # d = 3: a carried channel, then more levels
    p0, p1 = b.mul(0, 1), b.mul(4, 3)
    q = b.linear({p0: 1, 2: 2, 5: -1}, c0=1)
    yield b.build([b.mul(q, p1), p0, 2]), 2, 3, False
    yield product_circuit(8), 2, 4, False               # two host channels per row


@pytest.mark.parametrize("c,n,d,one_layer", list(_same_row_circuits()))
def test_same_row_products_use_the_channel_mix_and_are_exact(c, n, d, one_layer):
    failure, cc = check(c, n, d, "tight")
    assert failure is None, failure.describe()
    assert "channel mix" in cc.stack.layers[0].label
    assert (cc.stack.signature.L == 1) == one_layer


def test_channel_mix_refuses_what_it_cannot_do():
    b = CircuitBuilder(4)
    c = b.build([b.mul(0, 2)])                           # u[0,0]·u[1,0]: two rows
    assert _channel_mix(layering(c).layers[0], 2, 2) is None
    b = CircuitBuilder(4)
    c = b.build([b.mul(0, 1), b.mul(2, 2)])              # a square: one channel
    assert _channel_mix(layering(c).layers[0], 2, 2) is None
    b = CircuitBuilder(4)
    c = b.build([b.mul(0, 1), b.mul(2, 3), 1, 2])        # carried wires in both channels: no host left
    assert _channel_mix(layering(c).layers[0], 2, 2) is None
    failure, cc = check(c, 2, 2, "tight")                # still compiled (channel blocks), and exact
    assert failure is None and "channel mix" not in cc.stack.layers[0].label


@pytest.mark.parametrize("c,n,d", [
    (random_circuit(4, 4, 2, seed=2, n_outputs=4, sparse=True), 4, 1),
    (random_circuit(4, 4, 3, seed=1, n_outputs=4), 4, 1),
    (random_circuit(6, 6, 3, seed=0, n_outputs=3, sparse=True), 3, 2),
    (det3_circuit(), 9, 1),
])
def test_gapped_layout_is_exact(c, n, d):
    failure, cc = check(c, n, d, "gapped")
    assert failure is None, failure.describe()
    labels = [l.label for l in cc.stack.layers]
    assert any("on rows p ⊙ p +" in lab for lab in labels)   # the v1 | v3 | v2 multiplication layer
    assert cc.stack.signature.d_int == d


def test_gapped_layout_drops_copy_moves_on_a_random_circuit():
    """Where the first pass's use counts hold, the gaps make the copy moves and placing moves rarer."""
    c = random_circuit(16, 16, 8, seed=24, n_outputs=4, sparse=True)
    count = {}
    for layout in ("tight", "gapped"):
        labels = [l.label for l in compile_arithmetic(c, 16, 1, layout=layout).stack.layers]
        count[layout] = sum("copies: move" in lab or "place" in lab for lab in labels)
    assert count["gapped"] < count["tight"]
    with pytest.raises(HypothesisError, match="layout"):
        compile_arithmetic(c, 16, 1, linear="H.20", layout="gapped")


def test_in_place_products_on_the_upper_row_reach_the_degree_bound():
    """A balanced product tree multiplied in place onto the upper operands (tap −T): L = ⌈log₂ k⌉ layers,
    equal to the degree certificate's lower bound, and no move at the end (the product sits in row 0)."""
    from symconv.certificates.degree import DegreeCertificate

    for k in (2, 8):
        failure, cc = check(product_circuit(k), k, 1, "tight")
        assert failure is None, failure.describe()
        u = sym("u", k, 1)
        target = np.zeros((k, 1), dtype=object)
        target[...] = 0
        target[0, 0] = np.prod(u.entries[:, 0])
        lower = DegreeCertificate.of(u, from_array(target)).lower
        assert cc.stack.signature.L == lower == (k - 1).bit_length()
        assert all("in place (T = -" in l.label for l in cc.stack.layers)
    # a carried wire whose row T below is occupied keeps the products on the lower rows (or routes them)
    b = CircuitBuilder(4)
    c = b.build([b.linear({b.mul(0, 1): 1, 3: 1}), 2])
    failure, cc = check(c, 4, 1, "tight")
    assert failure is None, failure.describe()


# ---------------------------------------------------------------- the lean layout (merged routing stages)

def _apply(terms, y):
    """Σ D ⊙ shift_k(y) on a frame (numpy, the stage semantics of Router.stage)."""
    from symconv.constructions.arithmetic import _shift_rows

    out = np.zeros_like(y)
    for k, D in terms:
        out = out + D.astype(y.dtype) * _shift_rows(y, k)
    return out


def test_composed_stage_equals_the_two_stages_in_turn():
    from symconv.constructions.arithmetic import _compose

    rng = np.random.default_rng(3)
    K = 16
    for _ in range(20):
        t1 = [(int(k), rng.integers(-2, 3, size=(K, 1))) for k in rng.choice(np.arange(-7, 8), 3, replace=False)]
        t2 = [(int(k), rng.integers(-2, 3, size=(K, 1))) for k in rng.choice(np.arange(-7, 8), 2, replace=False)]
        occ = rng.random((K, 1)) < 0.6
        y = np.where(occ, rng.integers(-9, 10, size=(K, 1)), 0)
        comp = _compose(t1, t2, occ, K)
        assert len({k for k, _ in comp}) == len(comp)                  # one term per total shift
        assert np.array_equal(_apply(comp, y), _apply(t2, _apply(t1, y)))


LEAN_CASES = [
    (random_circuit(4, 4, 2, seed=6, n_outputs=4), 4, 1),
    (random_circuit(4, 4, 3, seed=1, n_outputs=4, sparse=True), 4, 1),
    (random_circuit(6, 6, 3, seed=0, n_outputs=3, sparse=True), 3, 2),
    (det3_circuit(), 3, 3),
]


@pytest.mark.parametrize("c,n,d", LEAN_CASES)
def test_lean_layout_is_exact_with_fewer_layers_on_the_same_rows(c, n, d):
    failure, cc = check(c, n, d, "lean")
    assert failure is None, failure.describe()
    lean, tight = cc.stack.signature, compile_arithmetic(c, n, d, layout="tight").stack.signature
    assert lean.L < tight.L and lean.N_int == tight.N_int and lean.d_int == d


def test_lean_layout_pinned_counts_merges_and_folded_constants():
    """Random dense Δ = 2, w = 4 (the bench's circuit): tight builds 57 layers, lean 22, both on 36 rows."""
    c = random_circuit(4, 4, 2, seed=6, n_outputs=4)
    cc = compile_arithmetic(c, 4, 1, layout="lean")
    labels = [l.label for l in cc.stack.layers]
    assert (cc.stack.signature.L, cc.stack.signature.N_int) == (22, 36)
    assert compile_arithmetic(c, 4, 1, layout="tight").stack.signature.L == 57
    assert any(" + Beneš stage" in lab for lab in labels)                  # stages merged
    assert not any(lab.endswith("add constants") for lab in labels)         # constants folded ...
    assert any(lab.endswith("+ constants") for lab in labels)               # ... into the layer before
    assert not any(lab.endswith(": coefficients") for lab in labels)


def test_lean_layout_with_more_shifts_trades_rows_for_layers():
    c = random_circuit(4, 4, 2, seed=6, n_outputs=4)
    base = compile_arithmetic(c, 4, 1, layout="lean").stack.signature
    u = sym("u", 4, 1)
    cc = compile_arithmetic(c, 4, 1, layout="lean", shifts=9)
    failure, _ = check_instance(Instance(u, cc.stack, expected_block(c, u)), {})
    assert failure is None, failure.describe()
    wide = cc.stack.signature
    assert wide.L < base.L and wide.N_int > base.N_int
    assert wide.L <= 4 * 2 * 2                                              # 4Δ⌈log₂w⌉ with Δ = 2, w = 4
    with pytest.raises(HypothesisError, match="shifts"):
        compile_arithmetic(c, 4, 1, layout="tight", shifts=5)
    with pytest.raises(HypothesisError, match="shifts"):
        compile_arithmetic(c, 4, 1, layout="lean", shifts=1)


def test_bench_default_layout_is_best_and_shifts_means_lean(monkeypatch):
    import argparse

    from symconv.bench import circuits as bench_circuits
    from symconv.circuits import product_circuit, random_circuit

    parser = argparse.ArgumentParser()
    bench_circuits.add_arguments(parser)
    args = parser.parse_args(["--max-w", "4"])     # the bench's own defaults
    assert args.layout is None and args.shifts is None
    # two of the bench's circuits: lean meets both bounds on x·y (d = 2); on the random one only cells does
    rc = random_circuit(4, 4, 2, seed=6, n_outputs=4, sparse=False)
    monkeypatch.setattr(bench_circuits, "_named", lambda: [("x·y", product_circuit(2), 1, 2)])
    monkeypatch.setattr(bench_circuits, "_random", lambda max_w: [("random dense Δ=2", rc, 4, 1)])
    recs, _ = bench_circuits.signature_ratios(args)
    assert all(r.ok for r in recs), [(r.name, r.value) for r in recs if not r.ok]
    by = {r.name: r for r in recs}
    assert "by lean" in by["L / 4Δ⌈log₂w⌉: x·y, w=2, Δ=1, d=2"].detail
    assert "by cells (seed 0)" in by["L / 4Δ⌈log₂w⌉: random dense Δ=2, w=4, Δ=2, d=1"].detail
    lean, _ = bench_circuits.signature_ratios(parser.parse_args(["--max-w", "4", "--shifts", "3"]))
    assert {r.name for r in lean} == set(by)
    assert by["L / 4Δ⌈log₂w⌉: random dense Δ=2, w=4, Δ=2, d=1"].value < 1 < max(
        r.value for r in lean if r.name.startswith("L / 4Δ⌈log₂w⌉: random"))   # lean alone misses it
    with pytest.raises(HypothesisError, match="shifts"):
        bench_circuits.signature_ratios(argparse.Namespace(max_w=4, layout="tight", shifts=5))


def test_lean_layout_keeps_huge_coefficients_exact():
    """Merged masks multiply coefficients: 2^45·2^45 overflows int64, so the composition goes exact."""
    import sympy

    from symconv.circuits import from_polynomials

    a, b, c = sympy.symbols("a b c")
    big = 2 ** 45
    circ = from_polynomials([(big * a + 3 * b) * (big * b - c) + big, big * (a * c) - b], [a, b, c])
    failure, cc = check(circ, 3, 1, "lean")
    assert failure is None, failure.describe()
    assert cc.stack.signature.L < compile_arithmetic(circ, 3, 1, layout="tight").stack.signature.L
    # the overflow guard itself: two int64 stages whose products pass 2^63 compose exactly
    from symconv.constructions.arithmetic import _compose

    K = 4
    D1 = np.full((K, 1), 2 ** 40, dtype=np.int64)
    D2 = np.full((K, 1), 3 * 2 ** 40, dtype=np.int64)
    got = _compose([(0, D1), (1, D1)], [(0, D2), (1, D2)], np.ones((K, 1), bool), K)
    ref = _compose([(0, D1.astype(object)), (1, D1.astype(object))], [(0, D2.astype(object)), (1, D2.astype(object))],
                   np.ones((K, 1), bool), K)
    assert [(k, D.tolist()) for k, D in got] == [(k, D.tolist()) for k, D in ref]
    assert max(abs(int(v)) for _, D in got for v in D.flat) == 2 * 3 * 2 ** 80


def test_lean_layout_numeric_matches_the_circuit():
    from symconv.circuits import evaluate_numeric
    from symconv.numeric import run

    c = random_circuit(64, 64, 3, seed=1, n_outputs=16, sparse=True)
    cc = compile_arithmetic(c, 64, 1, layout="lean")
    X = np.random.default_rng(0).uniform(-1, 1, size=(2, 64))
    got = run(cc.stack, X.reshape(2, 64, 1))[:, :16, 0]
    ref = evaluate_numeric(c, X)
    assert np.abs(got - ref).max() <= 1e-9 * max(1.0, np.abs(ref).max())
    assert cc.stack.signature.L < compile_arithmetic(c, 64, 1, layout="tight").stack.signature.L
