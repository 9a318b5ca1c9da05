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


# ---------------------------------------------------------------- the direct construction (not through H.21)

from symconv.constructions.retnet_direct import decay_filter, direct_counts, direct_signature, retnet_direct
from symconv.symbolic import evaluate as evaluate_stack


def _symbolic_weights(d):
    return tuple(sympy.Matrix(d, d, lambda a, b, n=n: sympy.Symbol(f"{n}{a}{b}")) for n in ("A", "C", "V"))


@pytest.mark.parametrize("N,d", [(4, 1), (3, 2), (2, 3)])
def test_direct_equals_recurrence_with_symbolic_weights_and_gamma(N, d):
    SA, SC, SV = _symbolic_weights(d)
    u = sym("u", N, d)
    stack = retnet_direct(N, d, SA, SC, SV, g)
    y, _ = recurrence(u.entries, SA, SC, SV, g)
    failure, _ = check_instance(Instance(u, stack, from_array(np.array(y.tolist(), dtype=object))), {})
    assert failure is None, failure.describe()
    assert stack.signature == direct_signature(N, d)
    # the same stack against a recurrence with γ² for γ, or (d ≥ 2) W_A and W_C swapped: the check sees it
    wrong = [recurrence(u.entries, SA, SC, SV, g ** 2)[0]]
    wrong += [recurrence(u.entries, SC, SA, SV, g)[0]] if d > 1 else []
    for y_wrong in wrong:
        failure, _ = check_instance(Instance(u, stack, from_array(np.array(y_wrong.tolist(), dtype=object))), {})
        assert failure is not None


def test_direct_signature_and_degree():
    assert [tuple(vars(direct_signature(16, d)).values()) for d in (1, 2, 3)] == [
        (16, 2, 1, 16, 2), (16, 4, 2, 16, 6), (16, 4, 3, 16, 12)]
    out = evaluate_stack(retnet_direct(3, 2, WA, WC, WV, g), sym("u", 3, 2))
    us = list(sym("u", 3, 2).entries.flat)
    assert max(sympy.Poly(v, *us).total_degree() for v in out.entries.flat) == 3  # y is cubic in u


def test_direct_parameter_counts_with_dense_weights():
    N, d = 8, 3
    ones = [[1] * d for _ in range(d)]
    c = direct_counts(retnet_direct(N, d, ones, ones, ones, 0.5))
    D = d * d + d
    assert c.as_defined == 4 * (D * D + 3 * N * D)
    # biases: b2 = 1 on D (layer 1), d (layer 2) and d (layer 4) channels, N rows each; filters: d² taps
    # e_0 (layer 2) and N·d² decay taps (layer 3); W: V and the copy (d³ + d), A and C (d³ + d²), d², d²
    assert c.nonzero == N * (D + 2 * d) + d * d + N * d * d + (d ** 3 + d) + (d ** 3 + d * d) + 2 * d * d


def test_decay_filter_taps():
    assert decay_filter(4, g).tolist() == [1, g, g ** 2, g ** 3]
    assert decay_filter(3, sympy.Rational(1, 2)).tolist() == [1, sympy.Rational(1, 2), sympy.Rational(1, 4)]
    assert decay_filter(3, 0.5).dtype == float


def test_direct_numeric_float_parameters():
    N, d = 4096, 3
    rng = np.random.default_rng(1)
    W = [rng.integers(-2, 3, size=(d, d)) for _ in range(3)]
    stack = retnet_direct(N, d, *W, 0.9)
    assert all(getattr(l, n).dtype == float for l in stack.layers for n in ("W", "h", "b1", "b2"))
    u = rng.uniform(-1, 1, size=(1, N, d))
    ref = recurrence_numeric(u, *W, 0.9)
    assert np.abs(run(stack, u) - ref).max() <= 1e-9 * np.abs(ref).max()


def test_direct_bad_input():
    with pytest.raises(HypothesisError, match="WA"):
        retnet_direct(3, 2, [[1]], WC, WV, g)
    with pytest.raises(HypothesisError, match="gamma"):
        retnet_direct(3, 2, WA, WC, WV, "0.9")
    with pytest.raises(HypothesisError, match="N"):
        retnet_direct(0, 2, WA, WC, WV, g)
    with pytest.raises(HypothesisError, match="WV"):
        retnet_direct(3, 2, WA, WC, [[1, "x"], [0, 1]], g)


def _direct_claim():
    from symconv.registry import load_claims, select

    (claim,) = [c for c in select(load_claims(), ["H.22"]) if c.name == "RetNet direct"]
    return claim


def test_direct_proof_verdict_and_steps():
    from symconv.claims import verify

    (v,) = verify(_direct_claim(), sizes=[{"N": 3, "d": 2}, {"N": 3, "d": 1}])
    assert v.verdict == "holds" and v.expect == "holds"
    assert len(v.steps) >= 4 and all(s.holds for s in v.steps)


def test_direct_crosscheck_at_2_14_and_refusals():
    from symconv.commands import crosscheck as cc

    claim = _direct_claim()
    (o,) = cc.crosscheck([claim], N=1 << 14, d=2)
    assert o.status == "holds" and o.N == 1 << 14 and o.layers == 4
    assert o.max_abs_error <= o.bound
    (o,) = cc.crosscheck([claim], N=1 << 10, d=2, backend="exact")
    assert o.status == "not run" and "floating point only" in o.detail
    (o,) = cc.crosscheck([claim], N=1 << 14, d=2, memory="1MiB")
    assert o.status == "not run" and o.need_bytes and o.need_bytes > o.budget_bytes


# ---------------------------------------------------------------- the scan form's numeric hook, exactly (crosscheck)

def _scan_claim():
    from symconv.registry import load_claims, select

    (claim,) = [c for c in select(load_claims(), ["H.22"]) if c.name == "RetNet"]
    return claim


def test_recurrence_numeric_runs_on_the_exact_checks_arrays():
    """The reference of the scan form's hook takes FieldArray residues, ModP objects and degree trackers."""
    from fractions import Fraction

    from symconv.exact import PRIME, ModP, _as_field, reference_degree, to_field

    p, gam = PRIME, Fraction(9, 10)
    u = np.random.default_rng(1).integers(0, p, size=(2, 4, 2))
    want = np.stack([to_field(np.array(recurrence(u[b].tolist(), WA, WC, WV, sympy.Rational(9, 10))[0].tolist(),
                                       dtype=object), p) for b in range(2)])
    got = recurrence_numeric(_as_field(u, p), WA, WC, WV, gam)
    assert type(got).__name__ == "FieldArray" and got.tolist() == want.tolist()
    uo = np.empty(u.shape, dtype=object)
    uo.reshape(-1)[:] = [ModP(int(v), p) for v in u.reshape(-1)]
    assert to_field(recurrence_numeric(uo, WA, WC, WV, gam), p).tolist() == want.tolist()
    assert reference_degree(lambda x: recurrence_numeric(x, WA, WC, WV, gam), (1, 4, 2)) == 3
    with pytest.raises(HypothesisError, match="WA"):
        recurrence_numeric(_as_field(u, p), [[1]], WC, WV, gam)


@pytest.mark.parametrize("backend", ["numpy", "exact"])
@pytest.mark.parametrize("N,d", [(8, 2), (5, 3)])
def test_scan_form_crosscheck_runs_and_holds(backend, N, d):
    """It used to be 'not run': the reference refused the exact check's arrays (ModP: unsupported type)."""
    from symconv.commands import crosscheck as cc

    claim = _scan_claim()
    scan = [o for o in cc.crosscheck([claim], N=N, d=d, backend=backend) if o.variant == "scan form"]
    (o,) = scan
    assert o.status == "holds", o.detail
    assert o.N == N and o.d == d
    assert "agrees mod p" in o.detail or o.method == "a-priori bound"
    assert "could not run" not in o.detail and "unsupported type" not in o.detail


def test_scan_form_hook_exact_check_catches_a_wrong_model():
    """The exact comparison is not vacuous: a different γ in the reference, or float-rounded γ^{2^b} in the
    stack (why the hook's γ is the Fraction 9/10), is reported as a mismatch."""
    from fractions import Fraction

    from symconv import exact
    from symconv.commands import crosscheck as cc
    from symconv.claims import NumericCase

    import importlib
    h22 = importlib.import_module(_scan_claim().variants[0].numeric.__module__)
    N, d = 8, 2
    case = h22.numeric(N, d, 1, np.random.default_rng(0))
    W = h22.weights(d)
    assert exact.check(case.stack, case.reference, seed=3).holds
    wrong = NumericCase(case.stack, case.input, lambda x: recurrence_numeric(x, *W, Fraction(8, 10)), case.sizes)
    assert not exact.check(wrong.stack, wrong.reference, seed=3).holds
    r = cc.check_float(wrong)
    assert r["holds"] is False and r["method"] == "exact mod p"  # the float bound alone cannot decide
    rounded = compile_arithmetic(retnet_circuit(N, d, *W, 0.9, "scan"), N, d).stack
    assert not exact.check(rounded, lambda x: recurrence_numeric(x, *W, 0.9), seed=3).holds
