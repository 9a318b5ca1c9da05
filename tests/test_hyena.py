"""Hyena as a model type, and Prop. H.12 in both directions."""
from pathlib import Path

import numpy as np
import pytest
import sympy

from symconv import HypothesisError, Layer, Stack, sym, verify
from symconv.bench.hyena import error_bound, relative_error
from symconv.claims import check_instance
from symconv.constructions.hyena import (baseconv_from_hyena, baseconv_from_hyena_as_printed,
                                         hyena_from_baseconv)
from symconv.constructions.shifts import shift_down
from symconv.hyena import HyenaLayer, HyenaStack, evaluate, evaluate_nested, run, run_nested
from symconv.numeric import run as run_baseconv
from symconv.registry import load_module
from symconv.symbolic import evaluate as evaluate_baseconv

H12 = load_module(Path(__file__).resolve().parent.parent / "proofs" / "h12_hyena.py")
WIDE, NARROW, ONE, TWO, THREE, FOUR, PRINTED, CONVERSE = H12.CLAIMS
u0, u1 = sympy.Symbol("u[0,0]"), sympy.Symbol("u[1,0]")


def check(build, **sizes):
    failure, results = check_instance(build(sizes), sizes)
    return failure, {r.label: r for r in results}


# ---------------------------------------------------------------- the model


def test_hyena_layer_by_hand():
    # p = u·2 + (1, 3); h = 1 + X: z = p ⊙ (u[0], u[0] + u[1])
    m = HyenaStack(2, 1, (HyenaLayer(W=[[2]], b=[[1], [3]], h=[[1], [1]]),))
    out = evaluate(m, sym("u", 2)).entries[:, 0].tolist()
    want = [(2 * u0 + 1) * u0, (2 * u1 + 3) * (u0 + u1)]
    assert [sympy.expand(a - b) for a, b in zip(out, want)] == [0, 0]


def test_second_layer_gates_with_the_original_input():
    layer = HyenaLayer(W=[[1]], b=[[0]], h=[[1]])
    out = evaluate(HyenaStack(1, 1, (layer, layer)), sym("u", 1)).entries[0, 0]
    assert sympy.expand(out - u0 ** 3) == 0  # u ⊙ (u ⊙ u), not (u²)·(u²)
    chained = evaluate_nested([HyenaStack(1, 1, (layer,))] * 2, sym("u", 1))[-1].entries[0, 0]
    assert sympy.expand(chained - u0 ** 4) == 0


def test_numeric_matches_exact_on_integers():
    rng = np.random.default_rng(3)
    layers = tuple(HyenaLayer(W=rng.integers(-2, 3, (2, 2)), b=rng.integers(-2, 3, (6, 2)),
                              h=rng.integers(-2, 3, (3, 2))) for _ in range(2))
    m = HyenaStack(4, 2, layers, N_int=6)
    u = rng.integers(-3, 4, (4, 2))
    from symconv.blocks import from_array
    exact = np.array(evaluate(m, from_array(u.astype(object))).entries.tolist(), dtype=float)
    got = run(m, u.astype(float))
    assert np.abs(exact).max() > 10 and np.max(np.abs(got - exact)) <= 1e-12 * np.abs(exact).max()


def test_numeric_fft_path_matches_exact():
    # 48 taps > numeric.DIRECT_TAPS: the convolution goes through FFTs, not the direct sum
    rng = np.random.default_rng(5)
    N, d = 80, 2
    layers = tuple(HyenaLayer(W=rng.integers(-1, 2, (d, d)), b=rng.integers(-1, 2, (N + 8, d)),
                              h=rng.integers(-1, 2, (48, d))) for _ in range(2))
    m = HyenaStack(N, d, layers, N_int=N + 8)
    u = rng.integers(-2, 3, (N, d))
    from symconv.blocks import from_array
    exact = np.array(evaluate(m, from_array(u.astype(object))).entries.tolist(), dtype=float)
    got = run(m, u.astype(float))
    assert np.abs(exact).max() > 100 and np.max(np.abs(got - exact)) <= 1e-10 * np.abs(exact).max()


@pytest.mark.parametrize("make, match", [
    (lambda: HyenaLayer(W=[[1, 0]], b=[[0]], h=[[1]]), "W: must be square"),
    (lambda: HyenaLayer(W=[[1]], b=[[0]], h=[[1]], conv="fft"), "conv: unknown convolution mode"),
    (lambda: HyenaStack(3, 1, (HyenaLayer([[1]], [[0]], [[1]]),), N_int=2), "N_int"),
    (lambda: HyenaStack(2, 1, (HyenaLayer([[1]], [[0], [1], [2]], [[1]]),)), "b1: has 3 rows"),
    (lambda: HyenaStack(2, 1, ("layer",)), "layers\\[0\\]: expected a HyenaLayer"),
])
def test_bad_models(make, match):
    with pytest.raises(HypothesisError, match=match):
        make()


# ---------------------------------------------------------------- Hyena -> BaseConv


def test_recorded_verdicts():
    for claim in H12.CLAIMS:
        for v in verify(claim, max_size=8):
            assert v.ok, (claim.name, v.variant, v.verdict)


def test_corrected_signature_and_steps_outside_the_sweep():
    failure, st = check(H12.build_hyena_to_baseconv, N=4, Np=8, L=2, d=1)
    assert failure is None and all(r.holds for r in st.values())
    m = H12.hyena_model(dict(N=4, Np=8, L=2, d=1))
    sig = baseconv_from_hyena(m).signature
    assert (sig.L, sig.N_int) == (3 * 2 + 1, 8 + 4) and sig.L <= 5 * 2


def test_narrow_claim_is_proved_on_3n_rows_and_says_the_row_count_is_open():
    v = verify(NARROW, max_size=8)[0]
    # the induction is built at N' = 2N, outside the claim's N' < 2N: the scope says so (it said "all sizes",
    # and listed the claim's hypotheses as if the proof had used them)
    assert (v.verdict, v.scope) == ("holds", "all sizes at N' = 2N (N' < 2N by hand)")
    assert "2N - Np - 1" not in v.parametric
    assert "rest on the argument by hand in the note and on the concrete sweep" in v.parametric
    from symconv.commands.verify import _checked_cell
    assert _checked_cell(v).startswith("all sizes at N' = 2N (N' < 2N by hand); ")
    assert "open" in NARROW.statement and "open" in v.note
    for z in (dict(N=2, Np=2, L=2, d=1), dict(N=3, Np=5, L=1, d=2)):
        built = H12.build_hyena_to_baseconv(z).stack.N_int
        assert built == 3 * z["N"] > z["Np"] + z["N"]


def test_hyena_rows():
    from symconv.constructions.hyena import hyena_rows
    assert [hyena_rows(4, n) for n in (4, 7, 8, 9)] == [12, 12, 12, 13]
    with pytest.raises(HypothesisError, match="Np: a Hyena model keeps N' >= N"):
        hyena_rows(4, 3)
    with pytest.raises(HypothesisError, match="N: a positive integer"):
        hyena_rows(0, 3)


def test_needs_n_prime_at_least_2n():
    m = H12.hyena_model(dict(N=2, Np=3, L=1, d=1))
    with pytest.raises(HypothesisError, match=r"N' \+ N >= 3N \(N' >= 2N\)"):
        baseconv_from_hyena(m)
    assert baseconv_from_hyena(m, N_int=6).N_int == 6


def test_printed_route_fails_at_the_remember_step():
    v = verify(PRINTED, variants=["as printed, working shift_up"], sizes=[dict(N=2, L=1, d=1)])[0]
    st = {s.label: s for s in v.steps}
    assert st["u_BC = (u | 0^{N'-N} | u)"].holds
    f = st["z^ℓ_BC = (z^ℓ_Hyena | u)"].failure
    assert f.position == (0, 0) and f.got == "0" and "h1[0,0]" in f.expected
    with pytest.raises(HypothesisError, match="constant projections"):
        baseconv_from_hyena_as_printed(H12.hyena_model(dict(N=1, Np=1, L=1, d=1)))


def test_hyena_to_baseconv_rejects_circular_and_wide_models():
    circ = HyenaStack(2, 1, (HyenaLayer([[1]], [[0]], [[1]], conv="circular"),), N_int=4)
    with pytest.raises(HypothesisError, match="causal"):
        baseconv_from_hyena(circ)
    wide = HyenaStack(2, 1, (HyenaLayer(np.eye(2, dtype=int), [[0]], [[1, 1]]),), N_int=4, d_int=2)
    with pytest.raises(HypothesisError, match="d' = 2"):
        baseconv_from_hyena(wide)


# ---------------------------------------------------------------- BaseConv -> Hyena


def test_converse_fails_exactly_through_b2():
    v = verify(CONVERSE, variants=["as printed"], sizes=[dict(N=1, L=1, d=1)])[0]
    assert v.verdict == "fails" and v.failure.position == (0, 0)
    assert "e1[0,0]" in v.failure.got and "e1[0,0]" not in v.failure.expected
    z = dict(N=1, L=1, d=1)
    inst = H12.build_baseconv_to_hyena(True)(z)
    diff = sympy.expand(evaluate_baseconv(inst.stack, inst.input).entries[0, 0] - inst.expected.entries[0, 0])
    W, c, e = (sympy.Symbol(n) for n in ("W1[0,0]", "c1[0,0]", "e1[0,0]"))
    assert sympy.expand(diff - (W * u0 + c) * e) == 0  # (uW + b1)·b2: the dropped bias


def test_zero_input_separates_b2():
    st = Stack(1, 1, (Layer(W=[[0]], h=[[1]], b1=[[2]], b2=[[3]]),))
    assert run_baseconv(st, np.zeros((1, 1)))[0, 0] == 6.0  # b1 ⊙ b2
    assert run_nested(hyena_from_baseconv(st, drop_b2=True), np.zeros((1, 1)))[0, 0] == 0.0
    with pytest.raises(HypothesisError, match="b2"):
        hyena_from_baseconv(st)


def test_converse_on_a_stack_from_the_library():
    st = shift_down(5, 2, 2)
    u = sym("u", 5, 2)
    assert evaluate_nested(hyena_from_baseconv(st), u)[-1].entries.tolist() == evaluate_baseconv(st, u).entries.tolist()


def test_one_l_layer_hyena_fails_only_from_l_2():
    build = H12.build_baseconv_to_hyena(False, chain=False)
    assert check(build, N=2, L=1, d=1)[0] is None
    failure, _ = check(build, N=2, L=2, d=1)
    assert failure is not None and failure.layer == 2


# ---------------------------------------------------------------- numeric at scale


@pytest.mark.parametrize("hook", ["hyena_numeric", "hyena_numeric_narrow", "baseconv_numeric"])
def test_numeric_cross_check_at_2_16(hook):
    case = getattr(H12, hook)(1 << 16, 16, 1, np.random.default_rng(0), K=16)
    if hook == "hyena_numeric_narrow":  # N' = 1.5N: the route runs on 3N rows, more than N' + N
        assert case.sizes["Np"] == 3 << 15 and case.stack.N_int == 3 << 16
    got = run_baseconv(case.stack, case.input)
    err = relative_error(got, case.expected)
    assert err <= error_bound(case.stack.L, 3 * (1 << 17)), err
    if hook == "baseconv_numeric":
        chain = run_nested(hyena_from_baseconv(case.stack), case.input)
        assert relative_error(chain, case.expected) <= error_bound(case.stack.L, 1 << 17)


def test_verify_reports_claimed_and_built_signatures():
    v = verify(WIDE, sizes=[dict(N=2, Np=4, L=2, d=1)])[0]
    assert (v.verdict, v.signature_claimed, v.signature_built) == ("holds", "(2, 10, 1, 6, 1)", "(2, 7, 1, 6, 1)")
    v = verify(NARROW, sizes=[dict(N=2, Np=3, L=1, d=1)])[0]
    assert (v.verdict, v.signature_claimed, v.signature_built) == ("holds", "(2, 5, 1, 5, 1)", "(2, 4, 1, 6, 1)")


def test_bench_suite_records():
    import argparse
    from symconv.bench import hyena as suite
    records = suite.run(argparse.Namespace(N=512, d=2, batch=2, seed=1, proofs=None))
    hooks = {v.numeric for c in H12.CLAIMS for v in c.variants if v.numeric is not None}
    assert len(hooks) == 3  # wide and narrow Hyena -> BaseConv, and the converse
    labels = [r.name.split(": max")[0] for r in records]
    assert "H.12 Hyena -> BaseConv (N' < 2N) [corrected, on 3N rows]" in labels
    assert len(records) == len(suite.cases(8, 1, 1, 0)) + 1 and all(r.ok for r in records)  # + the Hyena chain
    assert all(0 < r.value < 1e-13 for r in records)


def test_one_causal_layer_multiplies_by_p_and_keeps_u_on_2N_rows():
    """README, "Prop. H.12 with N ≤ N' < 2N": (u | q) → (u | q ⊙ (u·w + b)) with W = 1, filter w·X^N."""
    import sympy

    from symconv import sym
    from symconv.blocks import Block
    from symconv.model import Layer, Stack
    from symconv.symbolic import evaluate

    N = 3
    u, q, b = sym("u", N), sym("q", N), sym("b", N)
    w = sym("w", 1).entries[0, 0]
    h = np.zeros((N + 1, 1), dtype=object)
    h[N, 0] = w
    b2 = np.vstack([np.ones((N, 1), dtype=object), b.entries])
    layer = Layer(W=[[1]], h=h, b1=[[0]], b2=b2)
    state = Block(np.vstack([u.entries, q.entries]))
    out = evaluate(Stack(2 * N, 1, (layer,)), state).entries
    assert all(sympy.expand(out[i, 0] - u.entries[i, 0]) == 0 for i in range(N))
    assert all(sympy.expand(out[N + i, 0] - q.entries[i, 0] * (w * u.entries[i, 0] + b.entries[i, 0])) == 0
               for i in range(N))


def test_two_n_row_claims_never_check_past_their_hypothesis_n_prime_below_2n():
    """N' < 2N is a hypothesis of the 2N-row claims, not a cost cap: --max-size must not lift N' past 2N − 1
    (it used to: at --max-size 8 the N = 2 claim reported N' up to 8 as checked)."""
    (v,) = verify(TWO, max_size=8)
    assert v.checked.startswith("2 ≤ Np ≤ 3, ") and "Np ≤" not in v.checked.partition("(caps:")[2]
    assert all(TWO.holds_for({"Np": np_, "L": 1, "d": 1}) == (np_ < 4) for np_ in range(2, 9))


def test_small_n_claims_say_which_parameters_their_box_fixed():
    """The N' + N row claims check one model per size with some parameters fixed rationals: the verdict says so
    (checked text, JSON ``instances``, the dagger of the table's short box); a fully symbolic claim says nothing."""
    (v,) = verify(TWO, max_size=3)
    assert "the filters and W^1 … W^{L-1} fixed rationals" in v.checked
    assert v.box.as_dict()["instances"].startswith("one model per size")
    assert v.box.short().endswith("pts†")
    assert "the middle W^l fixed rationals" in ONE.variants[0].instances
    assert {c.variants[0].instances for c in (THREE, FOUR)} == {TWO.variants[0].instances}
    (w,) = verify(WIDE, max_size=2)[:1]
    assert w.box.as_dict()["instances"] is None and not w.box.short().endswith("†")
