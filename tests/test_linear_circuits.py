"""Beneš networks, linear circuits (Def. H.13) and compile_matrix (Corollary H.20)."""
import numpy as np
import pytest
import sympy
from fractions import Fraction

from symconv import HypothesisError, sym, verify
from symconv.constructions.benes import benes_factors, edge_colouring, weighted_permutations
from symconv.constructions.butterfly import from_row_major, row_major
from symconv.constructions.linear_circuit_families import (FAMILIES, dense_matrix_circuit, h20_table,
                                                           prefix_sum_circuit, walsh_hadamard_circuit)
from symconv.constructions.linear_circuits import (Gate, LinearCircuit, compile_circuit, compile_matrix,
                                                   compile_matrix_narrow, matrix_layer_count,
                                                   narrow_matrix_layer_count, plan_circuit, plan_matrix)
from symconv.numeric import run
from symconv.registry import load_claims
from symconv.symbolic import ExactSeq, evaluate, make_ring, run_state

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("P", [2, 4, 8, 32, 128])
def test_benes_routes_every_permutation(P):
    for _ in range(4):
        perm = RNG.permutation(P)
        fs = benes_factors(perm)
        assert len(fs) == 2 * int(np.log2(P)) - 1
        M = np.eye(P)
        for F in fs:
            A = F.to_matrix()
            assert set(np.unique(A)) <= {0, 1} and (A.sum(axis=0) == 1).all() and (A.sum(axis=1) == 1).all()
            M = A @ M
        assert np.array_equal(M, np.eye(P)[perm])


def test_edge_colouring_uses_max_degree_matchings():
    for dens in (0.2, 0.5, 0.9):
        mask = RNG.random((12, 9)) < dens
        cols = edge_colouring(mask)
        deg = max(mask.sum(axis=0).max(), mask.sum(axis=1).max())
        assert len(cols) == deg
        cover = np.zeros_like(mask)
        for m in cols:
            assert len(set(m.values())) == len(m)       # one entry per column
            for r, c in m.items():
                assert not cover[r, c]
                cover[r, c] = True
        assert np.array_equal(cover, mask)


def test_weighted_permutations_sum_to_matrix():
    M = RNG.standard_normal((8, 8)) * (RNG.random((8, 8)) < 0.4)
    parts = weighted_permutations(M)
    assert np.allclose(sum(np.diag(w) @ np.eye(8)[p] for p, w in parts), M)


@pytest.mark.parametrize("n,d", [(1, 1), (3, 1), (3, 2), (2, 3), (5, 3), (4, 4)])
@pytest.mark.parametrize("kind", ["eye", "perm", "sparse", "dense", "zero"])
def test_compile_matrix_numeric(n, d, kind):
    N = n * d
    M = {"eye": np.eye(N), "perm": np.eye(N)[RNG.permutation(N)] * RNG.standard_normal((N, 1)),
         "sparse": RNG.standard_normal((N, N)) * (RNG.random((N, N)) < 0.3),
         "dense": RNG.standard_normal((N, N)), "zero": np.zeros((N, N))}[kind]
    s = compile_matrix(M, n, d)
    plan = plan_matrix(M, n, d)
    assert s.signature.L == plan.L == matrix_layer_count(plan.R0, plan.D, plan.E)
    assert (s.N, s.d, s.N_int, s.d_int) == (n, d, plan.N_int, plan.d_int)
    u = RNG.standard_normal((2, n, d))
    assert np.abs(run(s, u) - (u.reshape(2, N) @ M.T).reshape(2, n, d)).max() < 1e-12


def test_compile_matrix_exact_rational_and_symbolic():
    a, b = sympy.symbols("a b")
    M = np.array([[1, Fraction(1, 2), 0], [0, a, 0], [b, 0, -3]], dtype=object)
    s = compile_matrix(M, 3, 1)
    u = sym("u", 3, 1)
    out = evaluate(s, u).entries[:, 0]
    x = u.entries[:, 0]
    want = [x[0] + x[1] / 2, a * x[1], b * x[0] - 3 * x[2]]
    assert all(sympy.expand(g - w) == 0 for g, w in zip(out, want))
    # the final state is y in the top-left block and zero everywhere else
    R = make_ring(u.free_symbols() | {a, b})
    st = run_state(s, ExactSeq.from_block(R, u).pad(s.N_int, s.d_int))
    assert all(v == 0 for j in range(s.d_int) for i, v in enumerate(st.cols[j]) if not (j == 0 and i < 3))


def test_compile_matrix_given_N_int():
    M = RNG.standard_normal((6, 6))
    s = compile_matrix(M, 3, 2, N_int=40)
    assert s.N_int == 40
    u = RNG.standard_normal((1, 3, 2))
    assert np.abs(run(s, u) - (u.reshape(1, 6) @ M.T).reshape(1, 3, 2)).max() < 1e-12
    with pytest.raises(HypothesisError, match="N_int"):
        compile_matrix(M, 3, 2, N_int=4)


def test_levels_route_with_skipped_levels_and_repeated_outputs():
    # wire 4 (level 2) reads input 0 directly (passed through level 1); output 2 repeats wire 3
    c = LinearCircuit(3, (Gate(3, 1, 1, 2, 2), Gate(4, 1, 3, -1, 0)), (4, 3, 3))
    u = sym("u", 3, 1)
    out = evaluate(compile_circuit(c, 3, 1, route="levels"), u).entries[:, 0]
    x = u.entries[:, 0]
    want = [x[1] + 2 * x[2] - x[0], x[1] + 2 * x[2], x[1] + 2 * x[2]]
    assert all(sympy.expand(g - w) == 0 for g, w in zip(out, want))


def test_circuit_basics():
    c = LinearCircuit(3, (Gate(4, 2, 3, 1, 0), Gate(3, 1, 0, -1, 1)), (4, 2, 3))   # gates out of order
    assert c.sizes == (3, 2, 2, 1)
    assert c.matrix().tolist() == [[3, -2, 0], [0, 0, 1], [1, -1, 0]]
    assert c.evaluate(np.array([1, 2, 3])).tolist() == [-1, 3, -1]


def test_families():
    H = walsh_hadamard_circuit(8).matrix().astype(int)
    assert (H @ H.T == 8 * np.eye(8)).all() and (np.abs(H) == 1).all()
    assert walsh_hadamard_circuit(8).sizes == (8, 24, 3, 8)
    P = prefix_sum_circuit(7)
    assert (P.matrix().astype(int) == np.tril(np.ones((7, 7), dtype=int))).all() and P.depth == 3
    M = RNG.integers(-3, 4, (5, 5))
    assert (dense_matrix_circuit(M).matrix().astype(int) == M).all()


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("route", ["matrix", "levels"])
def test_compile_circuit_families_numeric(name, route):
    n, d = 4, 2
    c = FAMILIES[name](n * d, np.random.default_rng(0))
    s = compile_circuit(c, n, d, route=route)
    plan = plan_circuit(c, n, d, route)
    assert (s.L, s.N_int, s.d_int) == (plan.L, plan.N_int, plan.d_int)
    u = RNG.standard_normal((2, n, d))
    ref = from_row_major(c.evaluate(row_major(u)), n, d)
    assert np.abs(run(s, u) - ref).max() < 1e-9


def test_h20_table_counts():
    rows = {(r["family"], r["route"]): r for r in h20_table([(4, 4)])}
    assert rows["identity", "matrix"]["L"] == 12 and rows["identity", "matrix"]["N_int"] == 4
    assert rows["dense random", "matrix"]["colours"] == 16 and rows["dense random", "matrix"]["N_int"] == 64
    wht = rows["Walsh-Hadamard", "levels"]
    assert wht["depth"] == 4 and wht["colours"] == 2 and wht["N_int"] == 8
    # levels: Δ·(4 log E + Beneš layers) + 1 with E = 2 and the Beneš network on 16 = 4·4 positions
    assert wht["L"] == 4 * (4 + 3 + 8) + 1


@pytest.mark.parametrize("bad, words", [
    (lambda: LinearCircuit(2, (Gate(2, 1, 3, 1, 0), Gate(3, 1, 2, 1, 1)), (2,)), "cycle"),
    (lambda: LinearCircuit(2, (Gate(2, 1, 0, 1, 1, op="mul"),), (2,)), "gate 2 is 'mul', not linear"),
    (lambda: LinearCircuit(2, (Gate(2, 1, 5),), (2,)), "reads wire 5"),
    (lambda: LinearCircuit(2, (Gate(1, 1, 0),), (1,)), "wire 1 is defined twice"),
    (lambda: LinearCircuit(2, (Gate(2, "2", 0),), (2,)), "gate 2.a"),
    (lambda: LinearCircuit(2, (), (7,)), "outputs: wire 7"),
    (lambda: compile_circuit(LinearCircuit(3, (), (0, 1, 2)), 2, 2), "circuit: has 3 inputs"),
    (lambda: compile_matrix(np.eye(5), 2, 2), "M: shape"),
    (lambda: compile_circuit(LinearCircuit(1, (), (0,)), 1, 1, route="gates"), "route: expected"),
    (lambda: compile_matrix(np.array([["1"]]), 1, 1), "M: strings"),
    (lambda: benes_factors([0, 0, 1, 2]), "perm: is not a permutation"),
    (lambda: benes_factors([0, 2, 1]), "perm \\(length\\): must be a power of two"),
])
def test_bad_input(bad, words):
    with pytest.raises(HypothesisError, match=words):
        bad()


def test_proof_verdicts_and_numeric_hook():
    claims = [c for c in load_claims() if c.id == "H.20"]
    assert len(claims) == 6
    for c in claims:
        vs = verify(c, max_size=6)
        assert [v.variant for v in vs] == ["matrix route", "levels route", "matrix route, d' = d",
                                           "levels route, d' = d"]
        for v in vs:
            assert v.ok and v.verdict == "holds", (c.name, v.failure)
    hooks = {v.name: v.numeric for c in claims for v in c.variants if v.numeric}
    assert sorted(hooks) == ["levels route", "levels route, d' = d", "matrix route", "matrix route, d' = d"]
    for name, hook in hooks.items():
        case = hook(64, 2, 2, np.random.default_rng(0))
        assert np.abs(run(case.stack, case.input) - case.expected).max() < 1e-9
        assert case.stack.d_int == (2 if name.endswith("d' = d") else 6)


def _lg(v):
    return int(v).bit_length() - 1


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("route", ["matrix", "levels"])
def test_narrow_routes_numeric_and_sizes(name, route):
    n, d = 4, 2
    c = FAMILIES[name](n * d, np.random.default_rng(0))
    s = compile_circuit(c, n, d, route=route, narrow=True)
    wide = plan_circuit(c, n, d, route)
    plan = plan_circuit(c, n, d, route, narrow=True)
    assert (s.L, s.N_int, s.d_int) == (plan.L, plan.N_int, plan.d_int)
    assert (s.N_int, s.d_int) == (2 * wide.N_int, d)          # twice the rows, d' = d
    u = RNG.standard_normal((2, n, d))
    assert np.abs(run(s, u) - from_row_major(c.evaluate(row_major(u)), n, d)).max() < 1e-9


def test_narrow_count_formula():
    # one matrix on R0×D with expansion E: 3 layers per row factor, 2 per channel factor (+1 closing
    # after a final channel factor); the factors: log E fan-out, 2 log P − 1 Beneš, log E fan-in
    for R0, D, E in [(2, 2, 1), (4, 2, 2), (1, 4, 1), (8, 1, 4), (4, 4, 8)]:
        P = R0 * D
        benes_row = 2 * _lg(R0) - (D == 1)                     # Beneš stages with k/2 >= D
        benes = 2 * _lg(P) - 1
        closing = 1 if (E == 1 and R0 == 1) else 0
        want = 6 * _lg(E) + 3 * benes_row + 2 * (benes - benes_row) + closing
        assert narrow_matrix_layer_count(R0, D, E) == want, (R0, D, E)
    M = RNG.standard_normal((8, 8)) * (RNG.random((8, 8)) < 0.3)
    s = compile_matrix_narrow(M, 4, 2)
    assert s.L == plan_matrix(M, 4, 2, narrow=True).L
    u = RNG.standard_normal((1, 4, 2))
    assert (s.N_int, s.d_int) == (2 * plan_matrix(M, 4, 2).N_int, 2)
    assert np.abs(run(s, u) - (u.reshape(1, 8) @ M.T).reshape(1, 4, 2)).max() < 1e-12


def test_levels_route_is_pinned_to_its_own_count():
    """The levels route's L is Δ·(matrix count − 1) + 1 on the live-wire vector, unlike the matrix route's."""
    n, d = 4, 2
    c = prefix_sum_circuit(n * d)                      # depth 3, two non-zeros per row in each level
    lv = compile_circuit(c, n, d, route="levels")
    mx = compile_circuit(c, n, d, route="matrix")
    assert c.depth == 3
    assert lv.L == 3 * (matrix_layer_count(4, 2, 2) - 1) + 1 == 40
    assert mx.L == matrix_layer_count(4, 2, 8) == 22 and mx.N_int == 32
    assert compile_circuit(c, n, d, route="levels", narrow=True).L == narrow_matrix_layer_count(4, 2, 2, 3) == 60


def test_narrow_N_int_must_match():
    c = prefix_sum_circuit(8)
    with pytest.raises(HypothesisError, match="N_int: the d' = D route uses exactly"):
        compile_circuit(c, 4, 2, N_int=64, route="levels", narrow=True)
    assert compile_circuit(c, 4, 2, N_int=16, route="levels", narrow=True).N_int == 16


def test_compose_after_a_widened_stack():
    from symconv import compose
    from symconv.constructions.linear_circuits import widen_channels
    from symconv.constructions.sums import add_n
    n, d = 4, 2
    M = np.eye(8)[RNG.permutation(8)] * RNG.standard_normal((8, 1))   # C = 1, so N' = n
    first = compile_matrix(M, n, d)
    assert first.N_int == 4
    pre = widen_channels(add_n(2, 4, d), first.d_int)                   # leaves (1^2 | S + x)
    s = compose(pre, first)
    u = RNG.standard_normal((1, n, d))
    mid = u.copy()
    mid[:, 2:4] = u[:, 0:2] + u[:, 2:4]
    mid[:, 0:2] = 1
    assert np.abs(run(s, u) - (mid.reshape(1, 8) @ M.T).reshape(1, n, d)).max() < 1e-12
    with pytest.raises(HypothesisError, match="d_int"):
        widen_channels(first, 2)
