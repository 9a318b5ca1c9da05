"""The two-layer factorisation certificate (L ≥ 3): sound on real two-layer stacks, issued for RetNet."""
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from symconv.blocks import Block, sym
from symconv.certificates import CertificateError, TwoLayerCertificate, row0_polys
from symconv.model import HypothesisError, Layer, Stack
from symconv.symbolic import evaluate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "proofs"))


def _layer(rng, Ni, di, mode, biases):
    W = rng.integers(-3, 4, size=(di, di))
    h = rng.integers(-3, 4, size=(Ni, di))
    if biases == "none":
        b1 = np.zeros((Ni, di), dtype=np.int64)
        b2 = np.zeros((Ni, di), dtype=np.int64)
    else:
        b1 = rng.integers(-2, 3, size=(Ni, di))
        b2 = rng.integers(-2, 3, size=(Ni, di))
        if biases == "below row 0":  # keeps row 0 homogeneous in the first layer
            b1[0] = b2[0] = 0
    return Layer(W=W, h=h, b1=b1, b2=b2, conv=mode)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6), d=st.integers(2, 3), extra=st.integers(0, 2), N=st.integers(1, 2),
       more=st.integers(0, 1),
       modes=st.sampled_from([("causal", "causal"), ("circular", "circular"), ("causal", "circular"),
                              ("circular", "causal")]),
       biases=st.sampled_from(["none", "below row 0", "all"]))
def test_never_issued_for_what_a_two_layer_stack_computes(seed, d, extra, N, more, modes, biases):
    # the theorem behind the certificate: whatever two layers compute, the certificate refuses it
    # (N = 2: the certificate sets row 1 of the input to 0 itself)
    rng = np.random.default_rng(seed)
    di, Ni = d + extra, N + more
    stack = Stack(N, d, tuple(_layer(rng, Ni, di, m, biases) for m in modes), Ni, di)
    u = sym("u", N, d)
    out = evaluate(stack, u)
    with pytest.raises(HypothesisError, match="does not apply"):
        TwoLayerCertificate.of(u, out)


@pytest.mark.parametrize("d, seed", [(2, 0), (3, 1)])
def test_three_layers_compute_the_retnet_row_at_n_1_so_the_bound_is_tight_there(d, seed):
    # y_j = (C·A)·V_j at N = 1 in three layers (d' = 2d): the quadratic form as Σ_c (u·M)_c·u_c, V beside it;
    # then q·V_j; then moved to channel j.  The certificate proves no two layers do it for these weights.
    rng = np.random.default_rng(seed)
    WA, WC, WV = (np.array(rng.integers(1, 4, size=(d, d)).tolist(), dtype=object) for _ in range(3))
    M = WC.dot(WA.T)  # q(u) = u·M·uᵀ = (u·W_C)·(u·W_A)
    D = 2 * d
    W1 = np.zeros((D, D), dtype=object)
    W1[:d, :d] = M
    W1[:d, d:] = WV
    h1 = np.zeros((1, D), dtype=np.int64)
    h1[0, :d] = 1
    b2 = np.zeros((1, D), dtype=np.int64)
    b2[0, d:] = 1
    W2 = np.zeros((D, D), dtype=np.int64)
    W2[:d, d:] = 1
    h2 = np.zeros((1, D), dtype=np.int64)
    h2[0, d:] = 1
    W3 = np.zeros((D, D), dtype=np.int64)
    W3[d:, :d] = np.eye(d, dtype=np.int64)
    zero = np.zeros((1, D), dtype=np.int64)
    ones = np.ones((1, D), dtype=np.int64)
    stack = Stack(1, d, (Layer(W=W1, h=h1, b1=zero, b2=b2), Layer(W=W2, h=h2, b1=zero, b2=zero),
                         Layer(W=W3, h=np.zeros((1, D), dtype=np.int64), b1=zero, b2=ones)), 1, D)
    u = sym("u", 1, d)
    U = sympy.Matrix(u.entries.tolist())
    A, C, V = U * sympy.Matrix(WA), U * sympy.Matrix(WC), U * sympy.Matrix(WV)
    want = Block(np.array([[sympy.expand((C * A.T)[0, 0] * V[0, j]) for j in range(d)]], dtype=object))
    got = evaluate(stack, u)
    assert all(sympy.expand(a - b) == 0 for a, b in zip(got.entries.flat, want.entries.flat))
    cert = TwoLayerCertificate.of(u, want, stack=stack).check()
    assert cert.lower == 3 and stack.L == 3


def test_issued_for_the_direct_retnet_claim_and_rechecked():
    import h22_retnet as H

    inst = H.build_direct({"N": 2, "d": 2})
    cert = TwoLayerCertificate.of(inst.input, inst.expected, stack=inst.stack).check()
    assert cert.lower == 3 and cert.degrees == (3, 3) and "L ≥ 3" in cert.proves
    with pytest.raises(CertificateError):
        replace(cert, degrees=(3, 4)).check()
    with pytest.raises(CertificateError, match="2 layers"):
        replace(cert, stack=Stack(2, 2, inst.stack.layers[:2], inst.stack.N_int, inst.stack.d_int)).check()
    # d = 1: u[0, 0] divides the row, the argument does not apply (and two layers do compute it)
    one = H.build_direct({"N": 2, "d": 1})
    with pytest.raises(HypothesisError, match="d = 1"):
        TwoLayerCertificate.of(one.input, one.expected)


@pytest.mark.parametrize("d", [2, 3, 4, 5, 6])
def test_every_width_d_at_least_2_has_a_retnet_member_that_needs_three_layers(d):
    # W_A = W_C = I, W_V = all ones: row 0 is y_c = |u|²·Σ_m u_m, homogeneous cubic, and at u_c = 0 it is
    # (Σ_{m≠c} u_m²)(Σ_{m≠c} u_m) ≠ 0 for d ≥ 2, so no u_c divides y_c
    u = sym("u", 1, d)
    x = list(u.entries[0])
    y = sum(v * v for v in x) * sum(x)
    cert = TwoLayerCertificate.of(u, Block(np.array([[y] * d], dtype=object))).check()
    assert cert.lower == 3 and cert.degrees == (3,) * d


def test_refuses_tied_or_malformed_inputs():
    x, y = sympy.symbols("x y")
    tied = Block(np.array([[x, y], [x, y]], dtype=object))  # rows ≥ 1 are not free: they repeat row 0
    with pytest.raises(HypothesisError, match="must not depend on row 0"):
        TwoLayerCertificate.of(tied, Block(np.array([[(x + y) ** 3] * 2, [0, 0]], dtype=object)))
    with pytest.raises(HypothesisError, match="distinct symbols"):
        TwoLayerCertificate.of(Block(np.array([[x, x]], dtype=object)), Block(np.array([[x ** 3, x ** 3]], dtype=object)))
    with pytest.raises(HypothesisError, match="not a polynomial over ℚ"):
        TwoLayerCertificate.of(Block(np.array([[x, y]], dtype=object)),
                               Block(np.array([[y ** 3 + x * x * y, x ** 3 + sympy.sqrt(2) * y ** 3]], dtype=object)))


def test_refuses_targets_outside_the_argument():
    u = sym("u", 1, 2)
    x, y = u.entries[0]
    for bad, why in [((x * y * y, y ** 3 + x ** 3), "u\\[0, 0\\] divides channel 0"),
                     ((x ** 3 + y ** 3 + 1, y ** 3 + x ** 3), "not homogeneous"),
                     ((x * y + y * y, y ** 3 + x ** 3), "degree 2"),
                     ((x ** 5 + y ** 5, y ** 3 + x ** 3), "degree 5")]:
        with pytest.raises(HypothesisError, match=why):
            TwoLayerCertificate.of(u, Block(np.array([list(bad)], dtype=object)))


def test_row0_sets_later_rows_to_zero_and_parameters_to_their_values():
    u = sym("u", 2, 2)
    a = sympy.Symbol("a")
    e = Block(np.array([[a * u.entries[0, 0] * u.entries[1, 1] + u.entries[0, 1] ** 3, a], [0, 0]], dtype=object))
    p0, p1 = row0_polys(u, e, (("a", 5),))
    assert p0.as_expr() == u.entries[0, 1] ** 3 and p1.as_expr() == 5
    with pytest.raises(HypothesisError, match="no recorded value"):
        row0_polys(u, e, ())
