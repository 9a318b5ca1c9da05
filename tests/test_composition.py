"""The composition certificate: causal stacks with d' = 1 reach only powers of two in row 0."""
from dataclasses import replace

import numpy as np
import pytest
import sympy

from symconv import sym
from symconv.certificates import CertificateError, CompositionCertificate, row0_degree
from symconv.constructions.hyena import baseconv_from_hyena
from symconv.constructions.shifts import shift_down
from symconv.hyena import HyenaLayer, HyenaStack, evaluate as hyena_eval
from symconv.model import HypothesisError, Layer, Stack
from symconv.symbolic import evaluate


def hyena(N, L):
    """An (N, L, 1, 2N, 1) Hyena model with symbolic weights, its input and output."""
    Np = 2 * N  # the route needs N' >= 2N
    layers = tuple(HyenaLayer(sym(f"W{l}", 1, 1).entries, sym(f"b{l}", Np, 1).entries, sym(f"h{l}", Np, 1).entries)
                   for l in range(1, L + 1))
    m = HyenaStack(N, 1, layers, N_int=Np)
    u = sym("u", N, 1)
    return m, u, hyena_eval(m, u)


@pytest.mark.parametrize("L,applies", [(1, False), (2, True), (3, False), (4, True)])
def test_hyena_row0_degree_is_L_plus_1(L, applies):
    _, u, out = hyena(2, L)
    assert row0_degree(u, out) == (L + 1, L + 1)
    if applies:  # L + 1 = 3, 5: not a power of two
        c = CompositionCertificate.of(u, out)
        assert c.check().degree == L + 1 and c.lower == 1 and "d' = 1" in c.proves
    else:  # 2, 4: a causal one-channel stack may reach them
        with pytest.raises(HypothesisError, match="power of two"):
            CompositionCertificate.of(u, out)


def test_refuses_where_it_does_not_apply():
    u = sym("u", 2, 2)
    with pytest.raises(HypothesisError, match="d = 2"):
        CompositionCertificate.of(u, u * u * u)
    x = sym("x", 2)
    with pytest.raises(HypothesisError, match="power of two"):
        CompositionCertificate.of(x, x * x * x * x)
    # degree 3 in the tree bound, but the product is y: the degree found (1) is below the bound
    y = sym("y", 1)
    with pytest.raises(HypothesisError, match="not certain"):
        CompositionCertificate.of(y, y * (y + 1) * (y + 2) - y * (y * y + 3 * y + 1))


def test_a_tampered_or_contradicted_certificate_is_caught():
    _, u, out = hyena(1, 2)
    c = CompositionCertificate.of(u, out)
    with pytest.raises(CertificateError):
        replace(c, degree=5).check()
    # a causal one-channel stack beside it contradicts the certificate
    with pytest.raises(CertificateError, match="causal with d' = 1"):
        replace(c, stack=shift_down(1, 0)).check()


def test_the_corrected_hyena_route_has_the_circular_layers_it_needs():
    m, u, out = hyena(2, 2)
    st = baseconv_from_hyena(m)
    assert evaluate(st, u).entries.tolist() == out.entries.tolist()  # the route computes the target
    c = CompositionCertificate.of(u, out, stack=st).check()
    assert "circular" in c.proves and any(layer.conv == "circular" for layer in st.layers)
    causal_only = Stack(st.N, st.d, tuple(replace(layer, conv="causal") for layer in st.layers), N_int=st.N_int,
                        d_int=st.d_int)
    with pytest.raises(CertificateError):
        CompositionCertificate.of(u, out, stack=causal_only).check()
    assert evaluate(causal_only, u).entries.tolist() != out.entries.tolist()


@pytest.mark.parametrize("seed", range(6))
def test_causal_one_channel_stacks_reach_only_powers_of_two_in_row_0(seed):
    """The fact the certificate rests on, on random causal stacks with d' = 1 and integer parameters."""
    rng = np.random.default_rng(seed)
    N, Ni = 2, 3
    layers = []
    for _ in range(int(rng.integers(1, 5))):
        W = [[int(rng.integers(-2, 3))]]
        layers.append(Layer(W=W, h=rng.integers(-2, 3, (Ni, 1)).tolist(), b1=rng.integers(-2, 3, (Ni, 1)).tolist(),
                            b2=rng.integers(-2, 3, (Ni, 1)).tolist()))
    st = Stack(N, 1, tuple(layers), N_int=Ni, d_int=1)
    u = sym("u", N, 1)
    x = u.entries[0, 0]
    row0 = sympy.expand(evaluate(st, u).entries[0, 0])
    assert row0.free_symbols <= {x}  # row 0 reads row 0 only
    k = sympy.Poly(row0, x).degree() if row0 != 0 else 0
    assert k == 0 or k & (k - 1) == 0, (k, row0)
