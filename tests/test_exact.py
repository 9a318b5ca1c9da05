"""Exact modular checks: NTT and python-flint paths, field mapping, the identity test."""
import warnings
from fractions import Fraction

import numpy as np
import pytest

from symconv import exact
from symconv.blocks import Block
from symconv.constructions.random import random_stack
from symconv.constructions.shifts import shift_down, shift_up
from symconv.model import HypothesisError, Layer, Stack
from symconv.symbolic import evaluate

P = exact.PRIME
METHODS = ["ntt", "fft", pytest.param("flint", marks=pytest.mark.skipif(not exact._have_flint(),
                                                                  reason="python-flint not installed"))]


def direct_conv(x, h, p):
    return np.array([int(v) % p for v in np.convolve(np.array(x, dtype=object), np.array(h, dtype=object))])


@pytest.mark.parametrize("direct_taps", [exact.DIRECT_TAPS, 0, 12])
@pytest.mark.parametrize("method", METHODS)
def test_convolution_matches_the_schoolbook_product(method, direct_taps, monkeypatch):
    # direct_taps: all channels by shifted sums, none (all by FFTs), or a mix of the two (12)
    monkeypatch.setattr(exact, "DIRECT_TAPS", direct_taps)
    rng = np.random.default_rng(0)
    for N, K in [(1, 1), (5, 3), (16, 16), (37, 20), (64, 1)]:
        x = rng.integers(0, P, (2, 3, N))
        h = rng.integers(0, P, (3, K))
        h[1, ::2] = 0  # a sparser channel: with direct_taps = 4 some channels go each way
        causal = exact.convolve_mod(x, h, P, "causal", method)
        circular = exact.convolve_mod(x, h, P, "circular", method)
        for b in range(2):
            for j in range(3):
                full = direct_conv(x[b, j], h[j], P)
                assert causal[b, j].tolist() == full[:N].tolist()
                folded = full[:N].copy()
                folded[: len(full) - N] += full[N:]
                assert circular[b, j].tolist() == (folded % P).tolist()


def test_ntt_round_trip_and_length_checks():
    x = np.random.default_rng(1).integers(0, P, (3, 64))
    assert (exact.ntt(exact.ntt(x, P), P, inverse=True) == x).all()
    with pytest.raises(HypothesisError, match="power of two"):
        exact.ntt(np.zeros((1, 6), dtype=np.int64), P)
    with pytest.raises(HypothesisError, match="p: 7 - 1"):
        exact.ntt(np.zeros((1, 4), dtype=np.int64), 7)


@pytest.mark.parametrize("method", METHODS)
def test_modular_run_agrees_with_the_exact_interpreter(method):
    for seed in range(10):
        N, d = 3 + seed % 5, 1 + seed % 3
        stack = random_stack(N=N, d=d, L=1 + seed % 3, N_int=N + seed % 2, d_int=d + (seed // 2) % 2,
                             conv="mixed", seed=seed)
        u = np.random.default_rng(seed).integers(-3, 4, (N, d))
        want = exact.to_field(evaluate(stack, Block(u.astype(object), "u")).entries, P)
        assert (exact.run_mod(stack, u, P, method) == want).all(), seed


def test_fraction_and_float_parameters_map_by_inverses():
    half, third = Fraction(1, 2), Fraction(1, 3)
    layer = Layer(W=np.array([[0]], dtype=object), h=np.array([[half]], dtype=object),
                  b1=np.array([[third]], dtype=object), b2=[[0.25]])
    stack = Stack(2, 1, (layer,))
    u = np.array([[6], [9]])
    want = [(third * (half * 6 + Fraction(1, 4))), (third * (half * 9 + Fraction(1, 4)))]
    got = exact.run_mod(stack, u, P, "ntt")[:, 0]
    assert got.tolist() == [exact.field_value(w, P) for w in want]
    assert exact.field_value(Fraction(1, 2), 7) * 2 % 7 == 1


def test_field_mapping_rejects_what_it_cannot_map():
    with pytest.raises(HypothesisError, match="denominator"):
        exact.field_value(Fraction(1, 7), 7)
    with pytest.raises(HypothesisError, match="not finite"):
        exact.to_field(np.array([np.inf]), P)
    with pytest.raises(HypothesisError, match="p: must be an odd prime"):
        exact.check_prime(2 ** 31 - 3)  # composite: 5 · 19 · 22605091
    with pytest.raises(HypothesisError, match="p: must be an odd prime"):
        exact.check_prime(2 ** 61 - 1)  # prime, but too large for int64 products
    with pytest.raises(TypeError, match="zeros_like"):
        float(exact.ModP(3, 7))


def shifted(s):
    def ref(u):
        out = np.zeros_like(u)
        out[:, s:] = u[:, : u.shape[1] - s]
        return out
    return ref


@pytest.mark.parametrize("method", METHODS)
def test_identity_test_holds_and_fails_at_scale(method):
    N = 1 << 16
    ok = exact.check(shift_down(N, 3, 2), shifted(3), method=method, seed=1)
    assert ok.holds and ok.mismatches == 0 and ok.degree == 1
    assert ok.error_probability == pytest.approx(1 / P)
    bad = exact.check(shift_down(N, 3, 2), shifted(2), method=method, seed=1)
    assert not bad.holds and bad.mismatches > 0
    assert bad.first[1] >= 2 and bad.got != bad.expected
    assert "mismatch" in bad.describe() and f"(1/{P})^1" in bad.describe()


def test_circular_shift_up_exactly():
    N, s = 1 << 10, 5

    def ref(u):
        out = np.zeros_like(u)
        out[:, : N - s] = u[:, s:]
        return out
    assert exact.check(shift_up(N, s, 2), ref, method="ntt").holds


def test_degrees_of_stack_and_reference():
    # two gated layers with W != 0: the degree doubles each time
    layer = Layer(W=[[1]], h=[[1]], b1=[[0]], b2=[[0]])
    assert exact.stack_degree(Stack(4, 1, (layer, layer))) == 4
    assert exact.reference_degree(lambda u: u * u * u + 2 * u, (1, 3, 1)) == 3
    assert exact.reference_degree(lambda u: 0 * u, (1, 3, 1)) == 0
    r = exact.check(Stack(8, 1, (layer, layer)), lambda u: (u * u) * (u * u), method="ntt")
    assert r.holds and r.degree == 4 and r.error_probability == pytest.approx(4 / P)


def test_support_restricts_the_random_entries():
    # a reference that is right only when the second half of the input is zero
    N = 64

    def ref(u):
        out = np.zeros_like(u)
        out[:, 1:] = u[:, :-1]
        out[:, N // 2 + 1:] = 0
        return out
    stack = shift_down(N, 1)
    assert not exact.check(stack, ref, method="ntt").holds
    support = np.zeros((1, N, 1), dtype=bool)
    support[:, : N // 2] = True
    assert exact.check(stack, ref, method="ntt", support=support).holds


def test_bad_arguments():
    with pytest.raises(HypothesisError, match="trials"):
        exact.check(shift_down(4, 1), shifted(1), trials=0)
    with pytest.raises(HypothesisError, match="method"):
        exact.check(shift_down(4, 1), shifted(1), method="gmp")
    with pytest.raises(HypothesisError, match="reference: returned shape"):
        exact.check(shift_down(4, 1), lambda u: u[:, :2], method="ntt")


def test_vectorised_reference_agrees_with_field_objects_and_falls_back():
    rng = np.random.default_rng(3)
    u = rng.integers(0, P, (2, 40, 3))
    W = rng.standard_normal((3, 3))
    h = rng.standard_normal((5, 3))
    c = np.array([[Fraction(1, 3)]], dtype=object)

    def ref(u):  # constants of every kind, in-place updates, sums, a matmul
        conv = u * 0
        for k in range(5):
            conv[:, k:] += h[k] * u[:, : 40 - k]
        out = (u @ W + 0.25) * conv - u / 3 + np.cumsum(u, axis=1) + c * u
        out[:, :2] = 7
        return np.concatenate([out[:, :1], out[:, 1:]], axis=1)

    fast = exact._reference_mod(ref, u, P)
    uo = np.empty(u.shape, dtype=object)
    uo.reshape(-1)[:] = [exact.ModP(v, P) for v in u.reshape(-1).tolist()]
    slow = exact.to_field(np.asarray(ref(uo), dtype=object), P)
    assert (fast == slow).all()
    seen = []

    def branching(u):  # comparisons have no meaning mod p: the objects path is taken
        seen.append(type(u).__name__)
        return np.where(np.ones(u.shape, dtype=bool), u, 0) * 2
    assert (exact._reference_mod(branching, u, P) == 2 * u % P).all()
    assert seen == ["FieldArray", "ndarray"]


def test_butterfly_kaleidoscope_and_linear_circuit_references_stay_vectorised():
    """The references of H.16, H.18 and H.20 keep field and degree arrays (no fallback to objects,
    which made `symconv crosscheck H.18 --N 16384` spend ~40–70× longer on the reference)."""
    from symconv.constructions.butterfly import from_row_major, random_butterfly, row_major
    from symconv.constructions.kaleidoscope import random_kaleidoscope
    from symconv.constructions.linear_circuit_families import random_sparse_circuit

    rng = np.random.default_rng(5)
    n, d = 8, 2
    K = random_kaleidoscope(n * d, 2, 2, rng)
    B = random_butterfly(n * d, rng)
    C = random_sparse_circuit(n * d, rng)
    u = rng.integers(0, P, (2, n, d))
    uo = np.empty(u.shape, dtype=object)
    uo.reshape(-1)[:] = [exact.ModP(v, P) for v in u.reshape(-1).tolist()]
    for apply in (K.apply, B.apply, C.evaluate):
        def ref(v, apply=apply):
            return from_row_major(apply(row_major(v)), n, d)
        got = ref(exact._as_field(u.copy(), P))
        assert isinstance(got, exact.FieldArray)
        assert (got.view(np.ndarray) % P == exact.to_field(np.asarray(ref(uo), dtype=object), P)).all()
        assert isinstance(ref(exact._as_deg(np.ones(u.shape, dtype=np.int64))), exact.DegreeArray)
        assert exact.reference_degree(ref, u.shape) == 1


def test_inputs_outside_the_residues_and_array_subclasses_stay_exact():
    # the shifted sums reduce what they get: residues >= p, int32 and object inputs
    h = np.array([[P - 1, 0, 3]])
    for x in (np.array([[[P + 5, 2 ** 40, -7]]]), np.array([[[2 ** 30, 7, 1]]], dtype=np.int32),
              np.array([[[2 ** 70, 1, 2]]], dtype=object)):
        want = exact.convolve_mod(exact.to_field(x, P), h, P, "causal", "ntt")
        got = exact.convolve_mod(x, h, P, "causal")
        assert got.dtype == np.int64 and np.array_equal(got, want)
    # an int64 ndarray subclass is multiplied as Python ints (no silent wrap-around), a field array stays one
    from symconv.constructions.butterfly import ButterflyFactorMatrix, row_major

    B = ButterflyFactorMatrix(2, 2, [[[2 ** 40], [1], [1], [2 ** 40]]])
    x = np.ma.masked_array(np.array([2 ** 40, 3]), mask=[False, False])
    assert B.apply(x).tolist() == [2 ** 80 + 3, 2 ** 40 + 3 * 2 ** 40]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)  # np.matrix, on purpose
        assert row_major(np.matrix([[1, 2], [3, 4]])).shape == (4,)
    assert isinstance(B.apply(exact._as_field(np.array([5, 6]), P)), exact.FieldArray)
    # the field matmul and dot: inner dimensions past 2^16 do not overflow int64
    K = 1 << 17
    v = exact._as_field(np.full((1, K), P - 2), P)
    assert (v @ np.full((K, 1), P - 1)).tolist() == [[2 * K % P]]
    assert v.dot(np.full((K, 1), P - 1)).tolist() == [[2 * K % P]]
    with pytest.raises(TypeError):
        exact._as_deg(np.ones((1, 3), dtype=np.int64)).dot(np.ones((3, 1)))


def test_vectorised_degrees():
    W = np.ones((2, 2))
    cases = [(lambda u: u * u * u + 2 * u, 3), (lambda u: 0 * u + 1, 0), (lambda u: (u @ W) * u, 2),
             (lambda u: np.cumsum(u, axis=1) * u / 3, 2), (lambda u: np.concatenate([u, u * u], axis=1)[:, :3], 1)]
    for ref, deg in cases:
        assert exact.reference_degree(ref, (1, 3, 2)) == deg
        # the same through degree objects (a reference the vectorised tracker refuses)
        assert exact.reference_degree(lambda u, ref=ref: ref(np.asarray(u, dtype=object)) if isinstance(u, np.ndarray)
                                      and u.dtype == object else (_ for _ in ()).throw(TypeError()), (1, 3, 2)) == deg


def test_fft_limb_convolution_is_exact_where_float_rounding_alone_would_not_be():
    # residues of 31 bits and full-length filters: products of 2^60 and more, far past float64's 2^53;
    # the limb split (each limb product's proved bound < 1/2) gives every coefficient exactly
    rng = np.random.default_rng(7)
    for N, hi in [(1 << 12, P), (1 << 13, 3), (3000, P)]:
        x = rng.integers(0, P, (1, 2, N))
        h = rng.integers(0, hi, (2, N))
        got = exact.convolve_mod(x, h, P, "causal", "fft")
        assert np.array_equal(got, exact.convolve_mod(x, h, P, "causal", "ntt")), N


def test_fft_plan_splits_full_residues_and_its_proved_bound_is_below_one_half():
    rng = np.random.default_rng(0)
    N = 1 << 14
    x, h = rng.integers(0, P, (1, 2, N)), rng.integers(0, P, (2, N))
    stats = {}
    got = exact._conv_fft(x, h, P, keep=N, stats=stats)
    assert np.array_equal(got, exact.convolve_mod(x, h, P, "causal", "ntt"))
    assert len(stats["plans"]) == 2  # one plan per channel, no retry on random data
    for _, plan, bound in stats["plans"]:
        assert plan.h_bits == plan.x_bits and plan.h_count > 1 and 0 < bound < 0.5
        assert plan.transforms == plan.x_count + plan.x_count + plan.h_count - 1  # one inverse per weight 2^e
    # a 0/1 filter is not split
    stats = {}
    exact._conv_fft(x, rng.integers(0, 2, (2, N)), P, keep=N, stats=stats)
    assert all(plan.h_bits == 0 and plan.h_count == 1 for _, plan, _ in stats["plans"])


def test_fft_replans_when_the_data_defeats_the_random_like_guess():
    # every digit at its extreme, alternating in sign: the spectrum peaks at N·D (not ~√(N ln F)·D)
    N, R = 1 << 12, P // 2
    x = np.where(np.arange(N) % 2 == 0, R, P - R).reshape(1, 1, N)
    h = np.full((1, N), R)
    stats = {}
    got = exact._conv_fft(x, h, P, keep=N, stats=stats)
    assert np.array_equal(got, exact.convolve_mod(x, h, P, "causal", "ntt"))
    bounds = [b for _, plan, b in stats["plans"] if plan != "ntt"]
    assert bounds[0] >= 0.5 and len(stats["plans"]) >= 2  # the first plan's proved bound failed: replanned
    assert stats["plans"][-1][1] == "ntt" or bounds[-1] < 0.5


def test_limb_pair_bound_covers_the_measured_error_of_a_float_convolution():
    # large integer digits, so the float64 FFT's error is measurable; the bound must exceed it
    import math
    import scipy.fft as sf

    rng = np.random.default_rng(3)
    N, F = 1 << 12, 1 << 13
    for D in (1 << 14, 1 << 18):
        x, h = rng.integers(-D, D + 1, N), rng.integers(-D, D + 1, N)
        exact_c = np.convolve(x, h)  # int64, |c| < 2^49
        X, H = sf.rfft(x.astype(float), F), sf.rfft(h.astype(float), F)
        c = sf.irfft(X * H, F)[: 2 * N - 1]
        err = float(np.max(np.abs(c - exact_c)))
        bound = exact.limb_pair_bound(math.sqrt(float(x @ x)), float(np.max(np.abs(X))),
                                      math.sqrt(float(h @ h)), float(np.max(np.abs(H))), F, 1)
        assert 0 < err <= bound, (D, err, bound)


def test_digits_and_reductions_are_exact_at_the_extremes():
    R = P // 2
    a = np.array([0, 1, -1, R, -R, R - 1, 12345678, -987654321], dtype=np.int64)
    for bits in (4, 11, 13, 16, 26):
        ds = list(exact._digits(a, bits, len(exact._digit_bounds(R, bits))))
        assert sum(d * (1 << (bits * k)) for k, d in enumerate(ds)).tolist() == a.tolist()
        for d, bound in zip(ds, exact._digit_bounds(R, bits)):
            assert np.max(np.abs(d)) <= bound
    big = np.array([2 ** 62, -(2 ** 62), 2 ** 63 - 1, -(2 ** 63) + 1, 5, -5], dtype=np.int64)
    assert exact._reduce_int(big, P).tolist() == [int(v) % P for v in big]
    f = np.array([2.0 ** 52 - 1, -(2.0 ** 52) + 1, 3.0 * P, -7.0])
    t = exact._reduce_float(f, P)
    assert [int(v) % P for v in t] == [int(v) % P for v in f] and np.all(np.abs(t) <= P // 2 + 1)


def test_huge_modular_run_is_refused_before_allocating():
    st = Stack(2, 1, (Layer(W=[[0]], h=[[1]], b1=[[1]], b2=[[0]]),), N_int=1 << 28)
    with pytest.raises(HypothesisError, match=r"u: exact run mod p at B = 1, N' = 268435456.*needs .*GiB.*1.0 MiB"):
        exact.run_mod(st, np.ones((2, 1), dtype=np.int64), budget="1MiB")
    with pytest.raises(HypothesisError, match=r"batch: exact check mod p.*over the memory budget"):
        exact.check(st, lambda u: u, budget="1MiB")


def test_report_names_how_the_convolutions_ran():
    # one layer: channel 0 a filter of DIRECT_TAPS + 1 non-zero taps, channel 1 one of exactly DIRECT_TAPS
    # (the threshold), channel 2 none (its one entry is zero mod p)
    N, d = 40, 3
    h = np.zeros((N, d), dtype=np.int64)
    h[:exact.DIRECT_TAPS + 1, 0] = np.arange(1, exact.DIRECT_TAPS + 2)
    h[:exact.DIRECT_TAPS, 1] = 1
    h[5, 2] = P
    st = Stack(N, d, (Layer(W=np.zeros((d, d), dtype=np.int64), h=h, b1=np.ones((1, 1), dtype=np.int64),
                            b2=np.zeros((1, 1), dtype=np.int64)),), N, d)
    assert exact.conv_paths(st, P, "fft") == (
        f"fft: 1 of 2 channel filters by shifted sums (≤ {exact.DIRECT_TAPS} non-zero taps), 1 by limb FFTs")
    assert exact.conv_paths(st, P, "ntt") == "ntt"
    rep = exact.check(st, lambda u: u * 0, 1, P)  # a wrong reference: the report still says how it ran
    assert not rep.holds and rep.paths.startswith("fft: 1 of 2") and rep.paths in rep.describe()
