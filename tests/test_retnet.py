"""Section H.6 / Corollary H.22: RetNet's recurrence, its unrolling, and the compiled BaseConv model."""
import numpy as np
import pytest
import sympy

from symconv.blocks import from_array, sym
from symconv.circuits import evaluate
from symconv.claims import Instance, check_instance
from symconv.constructions.arithmetic import compile_arithmetic
from symconv.model import HypothesisError
from symconv.numeric import run
from symconv.retnet import (printed_lines, recurrence, recurrence_numeric, retnet_circuit, retnet_model,
                            unrolled_state)

g = sympy.Symbol("gamma")
WA = [[1, -1], [2, 1]]
WC = [[0, 1], [1, 1]]
WV = [[2, 0], [1, -1]]


def test_eq7_equals_eq6_symbolically():
    u = sym("u", 3, 2).entries
    _, states = recurrence(u, WA, WC, WV, g)
    for n in range(3):
        assert (unrolled_state(u, WA, WV, g, n) - states[n]).expand() == sympy.zeros(2, 2)


def test_printed_lines_only_z1_line_2_is_wrong():
    u = sym("u", 2, 2).entries
    _, states = recurrence(u, WA, WC, WV, g)
    lines = printed_lines(u, WA, WV, g)
    wrong = sorted(k for k, M in lines.items()
                   if (M - states[0 if k.startswith("z0") else 1]).expand() != sympy.zeros(2, 2))
    assert wrong == ["z1 line 2"]


@pytest.mark.parametrize("form", ["scan", "recurrence"])
def test_compiled_model_equals_recurrence_exactly(form):
    N, d = 3, 2
    u = sym("u", N, d)
    y, _ = recurrence(u.entries, WA, WC, WV, g)
    m = retnet_model(N, d, WA, WC, WV, g, form)
    failure, _ = check_instance(Instance(u, m.stack, from_array(np.array(y.tolist(), dtype=object))), {})
    assert failure is None, failure.describe()
    assert m.stack.signature.d_int == d


def test_circuit_forms_agree_and_depths_differ():
    N, d = 8, 1
    a = retnet_circuit(N, d, [[2]], [[1]], [[3]], g, "scan")
    b = retnet_circuit(N, d, [[2]], [[1]], [[3]], g, "recurrence")
    vals = list(sympy.symbols("x0:8"))
    assert [sympy.expand(v) for v in evaluate(a, vals)] == [sympy.expand(v) for v in evaluate(b, vals)]
    assert a.depth < b.depth  # log-depth scan against the Θ(N) chain


def test_numeric_against_recurrence():
    N, d = 256, 1
    c = retnet_circuit(N, d, [[1.5]], [[-1]], [[0.5]], 0.9, "scan")
    cc = compile_arithmetic(c, N, d)
    u = np.random.default_rng(0).uniform(-1, 1, size=(2, N, d))
    ref = recurrence_numeric(u, [[1.5]], [[-1]], [[0.5]], 0.9)
    got = run(cc.stack, u)
    assert np.abs(got - ref).max() <= 1e-9 * np.abs(ref).max()


def test_bad_input():
    with pytest.raises(HypothesisError, match="WA"):
        retnet_circuit(2, 2, [[1]], WC, WV, g)
    with pytest.raises(HypothesisError, match="form"):
        retnet_circuit(2, 2, WA, WC, WV, g, form="loop")
    with pytest.raises(HypothesisError, match="strings"):
        recurrence("u", WA, WC, WV, g)
    with pytest.raises(HypothesisError, match="N >= 2"):
        printed_lines([[1, 2]], WA, WV, g)


def test_proof_verdicts():
    from symconv.claims import verify
    from symconv.registry import load_claims, select

    (claim,) = [c for c in select(load_claims(), ["H.22"]) if c.name == "eq. 7"]
    vs = {v.variant: v for v in verify(claim, sizes=[{"N": 2, "d": 1}])}
    assert vs["printed z1 line 2"].verdict == "fails"
    assert all(v.verdict == "holds" for k, v in vs.items() if k != "printed z1 line 2")
