"""Arithmetic circuits (symconv.circuits) and the Theorem H.21 compiler (symconv.constructions.arithmetic)."""
import random

import numpy as np
import pytest
import sympy

from symconv.blocks import from_array, sym
from symconv.circuits import (Circuit, CircuitBuilder, Gate, det3_circuit, evaluate, evaluate_numeric, expected_block,
                              evaluate_ring, from_polynomials, horner_circuit, layering, matmul_circuit,
                              product_circuit, random_circuit)
from symconv.claims import Instance, check_instance
from symconv.constructions.arithmetic import _move_plan, compile_arithmetic
from symconv.model import HypothesisError
from symconv.numeric import run
from symconv.symbolic import make_ring

x, y, z = sympy.symbols("x y z")


def exact_check(circuit, n, d, merge=False):
    """Failure (or None) of the compiled stack against the circuit's polynomials, exactly."""
    cc = compile_arithmetic(circuit, n, d, merge)
    u = sym("u", n, d)
    failure, _ = check_instance(Instance(u, cc.stack, expected_block(circuit, u)), {})
    return failure, cc


# ---------------------------------------------------------------- circuits as data

def test_from_polynomials_matches_sympy():
    exprs = [(x + 2 * y) ** 3 - x * y * z + sympy.Rational(1, 2), x ** 5, 3 * z - 1]
    c = from_polynomials(exprs, [x, y, z])
    R = make_ring([x, y, z])
    got = evaluate_ring(c, R, list(R.gens))
    assert [g.as_expr() for g in got] == [sympy.expand(e) for e in exprs]
    assert c.mul_depth == 3  # x^5 by squaring: x², x⁴, x⁴·x


def test_sizes_of_the_families():
    p = product_circuit(8)
    assert (p.n_inputs, p.size, p.depth, p.width) == (8, 7, 3, 8)
    h = horner_circuit([1, 2, 3, 4])
    assert (h.depth, h.mul_depth) == (6, 3)
    assert evaluate(h, [2]) == [1 + 2 * 2 + 3 * 4 + 4 * 8]
    assert evaluate(matmul_circuit(2), [1, 2, 3, 4, 5, 6, 7, 8]) == [19, 22, 43, 50]
    m = sympy.Matrix(3, 3, list(sympy.symbols("m0:9")))
    R = make_ring(list(m))
    assert evaluate_ring(det3_circuit(), R, list(R.gens))[0].as_expr() == sympy.expand(m.det())


def test_bad_input_is_refused():
    with pytest.raises(HypothesisError, match="strings"):
        from_polynomials(["x*y"], [x, y])
    with pytest.raises(HypothesisError, match="not a polynomial"):
        from_polynomials([1 / x], [x])
    with pytest.raises(HypothesisError, match="topological"):
        Circuit(2, (Gate("mul", (0, 3)),), (2,))
    with pytest.raises(HypothesisError, match="outputs"):
        Circuit(2, (Gate("mul", (0, 1)),), (5,))
    with pytest.raises(HypothesisError, match="n·d"):
        compile_arithmetic(product_circuit(4), 3, 1)
    with pytest.raises(HypothesisError, match="outputs"):
        b = CircuitBuilder(2)
        compile_arithmetic(b.build([0, 1, 0]), 2, 1)
    with pytest.raises(HypothesisError, match="strings"):
        CircuitBuilder(1).const("2")


def run_layered(L, x):
    """Evaluate a Layering layer by layer, each layer reading only the previous state."""
    state = {w: v for w, v in enumerate(x)}
    out = None
    for layer in L.layers:
        new = {w: state[w] for w in layer.carried}
        if layer.kind == "mul":
            for (a, b), w in zip(layer.pairs, layer.products):
                new[w] = state[a] * state[b]
        else:
            vals = []
            for f in layer.forms:
                v = f.c0
                for w, c in f.terms:
                    v = v + c * state[w]
                vals.append(v)
            if layer is L.layers[-1]:
                out = vals
            new.update(zip(layer.targets, vals))
        state = new
    return out


@pytest.mark.parametrize("merge", [False, True])
def test_layering_reads_only_the_previous_layer(merge):
    for seed in range(6):
        c = random_circuit(6, 6, 5, seed=seed, n_outputs=3)
        L = layering(c, merge)
        kinds = [l.kind for l in L.layers]
        assert all(a != b or a == "linear" for a, b in zip(kinds, kinds[1:]))  # no two mul layers in a row
        assert L.L_C <= 2 * c.depth + 1
        vals = [random.Random(seed).randint(-3, 3) for _ in range(6)]
        assert run_layered(L, vals) == evaluate(c, vals)


def test_routing_plans_never_collide():
    rng = random.Random(0)
    for _ in range(200):
        K = 64
        k = rng.randint(1, 20)
        src = sorted(rng.sample(range(K), k))
        dst = sorted(rng.sample(range(K), k))
        pos = list(src)
        for shift, before, moved in _move_plan(src, dst):
            assert before == pos
            pos = [p + shift if m else p for p, m in zip(before, moved)]
            assert len(set(pos)) == len(pos) and min(pos) >= 0
        assert pos == dst


# ---------------------------------------------------------------- the compiler, exactly

@pytest.mark.parametrize("circuit,n,d", [
    (product_circuit(2), 2, 1),
    (product_circuit(8), 4, 2),
    (horner_circuit(list(sympy.symbols("c0:5"))), 1, 1),
    (matmul_circuit(2), 2, 4),
    (det3_circuit(), 3, 3),
    (from_polynomials([x * y - 3, x + y + z, sympy.Integer(7)], [x, y, z]), 3, 1),
])
def test_compiled_stack_is_exact(circuit, n, d):
    failure, cc = exact_check(circuit, n, d)
    assert failure is None, failure.describe()
    sig = cc.stack.signature
    assert (sig.N, sig.d, sig.d_int) == (n, d, d)  # d' = d
    assert sig.N_int == 6 * cc.K


def test_random_width_16_depth_8_exact():
    c = random_circuit(16, 16, 8, seed=3, n_outputs=4, sparse=True)
    assert (c.width, c.depth) == (16, 8)
    failure, cc = exact_check(c, 8, 2, merge=True)
    assert failure is None, failure.describe()


def test_a_wrong_expectation_is_caught():
    """The exact check is not vacuous: the compiled product against x·y + 1 fails."""
    cc = compile_arithmetic(product_circuit(2), 2, 1)
    u = sym("u", 2, 1)
    wrong = from_array([[u.entries[0, 0] * u.entries[1, 0] + 1], [0]])
    failure, _ = check_instance(Instance(u, cc.stack, wrong), {})
    assert failure is not None and failure.position == (0, 0)


def test_numeric_width_4096():
    c = product_circuit(4096)
    cc = compile_arithmetic(c, 4096, 1)
    rng = np.random.default_rng(1)
    X = rng.uniform(0.95, 1.05, size=(1, 4096))
    got = run(cc.stack, X.reshape(1, 4096, 1))[0, 0, 0]
    ref = evaluate_numeric(c, X)[0, 0]
    assert abs(got - ref) <= 1e-9 * abs(ref)
    rep = cc.report()
    assert rep["w"] == 4096 and rep["Δ"] == 12 and rep["N'"] <= 12 * 4096


def test_corollary_h20_route_is_exact_with_wider_state():
    c = det3_circuit()
    cc = compile_arithmetic(c, 3, 3, linear="H.20")
    assert cc.stack.signature.d_int == 12  # compile_matrix's three blocks of 2^⌈log 3⌉ channels
    failure, _ = exact_check_linear(c, 3, 3, "H.20")
    assert failure is None, failure.describe()
    with pytest.raises(HypothesisError, match="linear"):
        compile_arithmetic(c, 3, 3, linear="dense")


def exact_check_linear(circuit, n, d, linear):
    cc = compile_arithmetic(circuit, n, d, linear=linear)
    u = sym("u", n, d)
    return check_instance(Instance(u, cc.stack, expected_block(circuit, u)), {})


def test_proof_verdicts():
    from symconv.claims import verify
    from symconv.registry import load_claims, select

    claims = {c.name: c for c in select(load_claims(), ["H.21"])}
    vs = {v.variant: v for v in verify(claims["mult layer"], sizes=[{"m": 2, "r": 1}])}
    assert vs["remember(y : v2, v3, e_0, p) as printed"].verdict == "fails"
    assert "p[0,0]" in vs["remember(y : v2, v3, e_0, p) as printed"].failure.got
    assert vs["construction"].verdict == "holds"
    vs = verify(claims["Horner"], sizes=[{"k": 3}])
    assert [(v.variant, v.verdict) for v in vs] == [("construction", "holds"), ("linear layers by Cor. H.20", "holds"),
                                                    ("tight layout", "holds"), ("lean layout", "holds")]
    # the claimed signature uses the cut width (2 for Horner: x beside the partial sum), not the level width (1)
    assert vs[0].signature_claimed == "(1, 6, 1, 2, 1)"
