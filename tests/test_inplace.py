"""In-place butterfly factors (N' = R, d' = D): symconv/constructions/inplace.py."""
from fractions import Fraction

import numpy as np
import pytest
import sympy

from symconv.blocks import sym
from symconv.constructions.butterfly import (ButterflyFactorMatrix, random_factor, row_major,
                                             symbolic_factor)
from symconv.constructions.inplace import (compile_butterfly_factor_inplace, compile_factors_inplace,
                                           factor_from_coordinates, factor_kind, inplace_coordinates,
                                           inplace_layer_count, symbolic_inplace_factor)
from symconv.model import HypothesisError
from symconv.numeric import run
from symconv.symbolic import evaluate

GRIDS = [(2, 2, 2), (4, 2, 2), (2, 4, 2), (2, 4, 4), (4, 2, 8), (8, 1, 8), (2, 2, 4),   # (R, D, k)
         (4, 2, 4), (8, 2, 4), (8, 2, 8), (4, 4, 8)]                                     # routed row factors


def _product(Fs, x):
    for F in Fs:
        x = F.apply(x)
    return x


@pytest.mark.parametrize("R,D,k", GRIDS)
def test_layers_compute_the_factor_for_symbolic_coordinates(R, D, k):
    """Exact: the stack on free coordinate symbols computes the polynomial factor they define."""
    F, coords = symbolic_inplace_factor(R * D, k, D)
    stack = compile_factors_inplace([F], R, D, coordinates=[coords])
    assert (stack.N_int, stack.d_int) == (R, D)
    u = sym("u", R, D)
    got = np.asarray(evaluate(stack, u).entries).ravel()
    want = F.apply(row_major(u.entries))
    assert all(sympy.expand(a - b) == 0 for a, b in zip(got, want))


@pytest.mark.parametrize("R,D,k", GRIDS)
def test_coordinates_reproduce_every_generic_factor(R, D, k):
    """Exact, rational: coordinates of a factor with symbol entries give back exactly that factor."""
    F = symbolic_factor(R * D, k, "f")
    G = factor_from_coordinates(R * D, k, D, *inplace_coordinates(F, D))
    assert all(sympy.cancel(a - b) == 0 for a, b in zip(G.D.flat, F.D.flat))


def test_wrong_coordinates_are_detected():
    F = symbolic_factor(4, 2, "f")
    alpha, beta, gamma = inplace_coordinates(F, 2)
    beta = beta.copy()
    beta[1] = beta[1] + 1
    G = factor_from_coordinates(4, 2, 2, alpha, beta, gamma)
    assert any(sympy.cancel(a - b) != 0 for a, b in zip(G.D.flat, F.D.flat))


@pytest.mark.parametrize("n,d,ks", [(4, 2, [2]), (4, 4, [2, 4, 2]), (4, 2, [8]), (2, 4, [2, 4, 8]),
                                    (2, 2, [4, 2, 4, 2]), (8, 2, [4, 2, 8, 16, 4]), (4, 2, [4, 8])])
def test_numeric_sequences_and_count(n, d, ks):
    rng = np.random.default_rng(len(ks) + n)
    Fs = [random_factor(n * d, k, rng) for k in ks]
    s = compile_factors_inplace(Fs, n, d)
    assert s.signature.N_int == n and s.signature.d_int == d
    assert s.L == inplace_layer_count(ks, d, n)
    u = rng.standard_normal((3, n, d))
    assert np.allclose(run(s, u).reshape(3, -1), _product(Fs, u.reshape(3, -1)), atol=1e-10)


def test_exact_fraction_entries():
    F = ButterflyFactorMatrix(4, 4, [[[1, 2], [3, -1], [5, 7], [0, 2]]])   # D4 may be 0
    s = compile_butterfly_factor_inplace(F, 2, 2)
    u = np.array([[Fraction(1), Fraction(2)], [Fraction(-3), Fraction(1, 2)]], dtype=object)
    out = run(s, u.astype(float)).ravel()
    assert np.allclose(out, F.apply(np.array([1.0, 2.0, -3.0, 0.5])))


@pytest.mark.parametrize("t", [0, 1, 2])
def test_zero_d1_d2_d3_is_refused(t):
    D = np.ones((1, 4, 1), dtype=int)
    D[0, t, 0] = 0
    with pytest.raises(HypothesisError, match=f"D{t + 1}"):
        compile_butterfly_factor_inplace(ButterflyFactorMatrix(2, 2, D), 1, 2)


def test_middle_row_strides_need_two_channels():
    assert [factor_kind(k, 2, 4) for k in (2, 4, 8)] == ["channel", "routed", "half-turn"]
    with pytest.raises(HypothesisError, match="half-turn"):
        compile_factors_inplace([random_factor(4, 2, np.random.default_rng(0))], 4, 1)
    s = compile_factors_inplace([random_factor(4, 4, np.random.default_rng(0))], 4, 1)   # the half-turn at D = 1
    assert s.L == 5


@pytest.mark.parametrize("R,D,k", [(4, 2, 4), (8, 2, 4), (8, 4, 8), (16, 2, 8)])
def test_routing_is_an_involution_and_round_trips(R, D, k):
    from symconv.constructions.inplace import routed_channel_factor, row_factor_from_routed

    F = random_factor(R * D, k, np.random.default_rng(R + k))
    G = routed_channel_factor(F, D)
    assert G.k == 2 and np.array_equal(row_factor_from_routed(G, k, D).D.astype(float), F.D)
    s = compile_factors_inplace([F], R, D)
    assert s.L == 15 and (s.N_int, s.d_int) == (R, D)
    u = np.random.default_rng(1).standard_normal((2, R, D))
    assert np.allclose(run(s, u).reshape(2, -1), F.apply(u.reshape(2, -1)), atol=1e-10)


@pytest.mark.parametrize("d", [1, 2, 4])
def test_butterfly_at_two_rows_exact(d):
    """B^(2d) on a 2×d state: log d channel factors and the half-turn, exactly."""
    from symconv.constructions.inplace import symbolic_inplace_butterfly

    B, coords = symbolic_inplace_butterfly(2 * d, d)
    s = compile_factors_inplace(B.applied(), 2, d, coordinates=coords)
    assert s.signature.N_int == 2 and s.signature.d_int == d
    assert s.L == 1 + 2 * (d.bit_length() - 1) + 4
    u = sym("u", 2, d)
    got = np.asarray(evaluate(s, u).entries).ravel()
    assert all(sympy.expand(a - b) == 0 for a, b in zip(got, B.apply(row_major(u.entries))))


def test_kaleidoscope_in_place_exact_and_numeric():
    from symconv.constructions.inplace import compile_kaleidoscope_inplace, symbolic_inplace_kaleidoscope
    from symconv.constructions.kaleidoscope import random_kaleidoscope

    K, coords = symbolic_inplace_kaleidoscope(4, 2, 1, 2)   # e = 2: E has a routed row factor
    s = compile_kaleidoscope_inplace(K, 2, 2, coords)
    assert (s.N_int, s.d_int) == (4, 2)
    u = sym("u", 2, 2)
    got = np.asarray(evaluate(s, u).entries).ravel()
    assert all(sympy.expand(a - b) == 0 for a, b in zip(got, K.apply(row_major(u.entries))))
    Kr = random_kaleidoscope(8, 1, 2, np.random.default_rng(3))
    sr = compile_kaleidoscope_inplace(Kr, 2, 4)
    x = np.random.default_rng(4).standard_normal((2, 2, 4))
    assert np.allclose(run(sr, x).reshape(2, -1), Kr.apply(x.reshape(2, -1)), atol=1e-9)
    Kb = random_kaleidoscope(8, 4, 1, np.random.default_rng(5))      # N' = en = 8, d' = d = 2
    sb = compile_kaleidoscope_inplace(Kb, 4, 2)
    assert (sb.N_int, sb.d_int) == (16, 2)
    xb = np.random.default_rng(6).standard_normal((4, 2))
    assert np.allclose(run(sb, xb).ravel(), Kb.apply(xb.ravel()), atol=1e-9)


def test_numeric_search_separates_one_layer_from_two():
    pytest.importorskip("scipy")
    from symconv.constructions.inplace import fit_inplace

    T = random_factor(4, 2, np.random.default_rng(1)).to_matrix()      # R = 2 rows, D = 2, channel factor
    assert fit_inplace("A", T, 2, 2, restarts=3) > 1e-2
    assert fit_inplace("AA", T, 2, 2, restarts=8) < 1e-9
    with pytest.raises(HypothesisError, match="kinds"):
        fit_inplace("AC", T, 2, 2)


@pytest.mark.parametrize("n,d,k", [(2, 2, 2), (4, 2, 2), (2, 4, 2), (2, 4, 4)])
def test_w_only_certificate_checks(n, d, k):
    from symconv.certificates.inplace import WOnlyInPlaceCertificate

    c = WOnlyInPlaceCertificate(n=n, d=d, k=k).check()
    assert c.square_free and c.proper and c.lower == d + 1 and c.quantity == "d'"
    assert "polynomial" in c.proves


def test_w_only_certificate_refuses_tampering_and_bad_sizes():
    from symconv.certificates.base import CertificateError
    from symconv.certificates.inplace import WOnlyInPlaceCertificate

    with pytest.raises(CertificateError):
        WOnlyInPlaceCertificate(n=2, d=2, k=2, square_free=False, proper=True).check()
    with pytest.raises(HypothesisError, match="k <= d"):
        WOnlyInPlaceCertificate(n=2, d=2, k=4)
    with pytest.raises(HypothesisError, match="n"):
        WOnlyInPlaceCertificate(n=1, d=2, k=2)


# ---------------------------------------------------------------- the float path against the exact path

U53 = 2.0 ** -53       # the unit roundoff of float64


def _int_factor(n, k, rng):
    """A factor with integer entries in ±{1, …, 4} (D1, D2, D3 ≠ 0), as exact ints and as floats."""
    D = rng.integers(1, 5, (n // k, 4, k // 2)) * rng.choice([-1, 1], (n // k, 4, k // 2))
    return ButterflyFactorMatrix(n, k, D.astype(object)), ButterflyFactorMatrix(n, k, D.astype(float))


@pytest.mark.parametrize("R,D,k", [(4, 2, 2), (4, 4, 4), (4, 2, 8), (8, 2, 4), (4, 4, 8), (2, 4, 8)])
def test_float_coordinates_agree_with_exact(R, D, k):
    """Integer entries: a·e − b·c, b·c and the dyadic constants w = 5/2, w² are exact in float64; each
    coordinate then has at most three roundings (c·fl(1/36), /(w·a); or one division), so its relative
    error against the exact rational value is at most 3u + O(u²) < 4u."""
    Fx, Ff = _int_factor(R * D, k, np.random.default_rng(R * 100 + D * 10 + k))
    exact, fast = inplace_coordinates(Fx, D), inplace_coordinates(Ff, D)
    for ve, vf in zip(exact, fast):
        assert vf.dtype == float                                      # the vectorised path was taken
        assert all(isinstance(x, (int, Fraction)) for x in ve)         # the exact path is unchanged
        want = np.array([float(x) for x in ve])
        assert np.all(np.abs(vf - want) <= 4 * U53 * np.abs(want))


@pytest.mark.parametrize("R,D,k", [(4, 2, 2), (4, 2, 8), (8, 2, 4), (4, 4, 8)])
def test_float_factor_from_coordinates_is_exact_on_dyadic_coordinates(R, D, k):
    """Dyadic coordinates ±j/16: every product with the constants 36, 5/2, 25/4 is exact in float64,
    so the float path gives the exact factor, entry for entry."""
    rng = np.random.default_rng(k + R)
    c = [rng.integers(1, 17, R * D) * rng.choice([-1, 1], R * D) for _ in range(3)]
    exact = factor_from_coordinates(R * D, k, D, *[[Fraction(int(x), 16) for x in v] for v in c])
    fast = factor_from_coordinates(R * D, k, D, *[v / 16.0 for v in c])
    assert fast.D.dtype == float
    assert np.array_equal(fast.D, np.array([float(x) for x in exact.D.flat]).reshape(exact.D.shape))


@pytest.mark.parametrize("n,d,ks", [(4, 2, [2, 8, 4]), (2, 4, [4, 2, 8]), (8, 2, [16, 4, 2])])
def test_float_stack_agrees_with_exact_stack(n, d, ks):
    """Layer by layer: each float parameter is a coordinate (within 4u, above) or a product of two
    (within 4u + 4u + u), and the exchange's constants are dyadic (exact): relative error < 10u."""
    rng = np.random.default_rng(len(ks) + n)
    pairs = [_int_factor(n * d, k, rng) for k in ks]
    sx = compile_factors_inplace([p[0] for p in pairs], n, d)
    sf = compile_factors_inplace([p[1] for p in pairs], n, d)
    assert sx.signature == sf.signature
    for lx, lf in zip(sx.layers, sf.layers):
        for name in ("W", "h", "b1", "b2"):
            a, b = getattr(lf, name), getattr(lx, name)
            assert a.dtype == float
            want = np.broadcast_to(np.asarray(b).astype(float), a.shape)
            assert np.all(np.abs(a - want) <= 10 * U53 * np.abs(want)), (lx.label, name)
    x = rng.standard_normal((2, n, d))
    assert np.allclose(run(sf, x).reshape(2, -1), _product([p[1] for p in pairs], x.reshape(2, -1)), atol=1e-11)


@pytest.mark.parametrize("k,shape,where,named", [(2, (4, 4, 1), (1, 2, 0), "F.D[1,2,0]: entry D3"),
                                                 (8, (1, 4, 4), (0, 1, 3), "F.D[0,1,3]: entry D2")])
def test_float_zero_entry_is_refused_like_the_exact_path(k, shape, where, named):
    D = np.ones(shape)
    D[where] = 0.0
    D[0, 0, 0] = -0.0                                     # a negative zero is a zero entry (−0.0 == 0)
    msgs = []
    for arr in (D, D.astype(int).astype(object)):
        with pytest.raises(HypothesisError) as err:
            inplace_coordinates(ButterflyFactorMatrix(8, k, arr), 2)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1]
    assert "F.D[0,0,0]: entry D1" in msgs[0]                      # −0.0 == 0: refused first, both paths
    D[0, 0, 0] = 1.0
    with pytest.raises(HypothesisError, match=named.replace("[", r"\[")):
        inplace_coordinates(ButterflyFactorMatrix(8, k, D), 2)
