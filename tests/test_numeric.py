"""The FFT interpreter: agreement with the exact interpreter, error bounds, the namespace path."""
import contextvars
import tracemalloc

import numpy as np
import pytest

from symconv import exact, numeric
from symconv.blocks import Block
from symconv.constructions.random import random_stack
from symconv.constructions.shifts import shift_down
from symconv.model import HypothesisError, Layer, Stack
from symconv.symbolic import evaluate


def exact_output(stack, u):
    return evaluate(stack, Block(np.asarray(u).astype(object), "u")).entries.astype(float)


def small_stacks():
    for seed in range(8):
        N, d = 3 + seed % 5, 1 + seed % 3
        yield seed, random_stack(N=N, d=d, L=1 + seed % 3, N_int=N + seed % 2, d_int=d + (seed // 2) % 2,
                                 conv="mixed", seed=seed)


@pytest.mark.parametrize("fft", ["numpy", "scipy", "pyfftw", "mkl_fft"])
@pytest.mark.parametrize("workers", [1, 2])
def test_cpu_path_agrees_with_exact_interpreter(fft, workers):
    if fft not in numeric.installed_libraries():
        pytest.skip(f"{fft} not installed")
    for seed, stack in small_stacks():
        u = np.random.default_rng(seed).integers(-3, 4, size=(stack.N, stack.d))
        want = exact_output(stack, u)
        got = numeric.run(numeric.prepare(stack, fft=fft, workers=workers), u.astype(float))
        assert np.max(np.abs(got - want)) <= 1e-9 * max(1.0, np.max(np.abs(want))), seed


def test_uncached_spectra_give_the_same_result():
    for seed, stack in small_stacks():
        u = np.random.default_rng(seed).standard_normal((2, stack.N, stack.d))
        cached = numeric.prepare(stack)
        uncached = numeric.prepare(stack, cache_bytes=0)
        assert all(p.spectrum is None for p in uncached.layers)
        assert np.allclose(numeric.run(cached, u), numeric.run(uncached, u), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_errors_within_the_a_priori_bound(dtype):
    for seed, stack in small_stacks():
        u = np.random.default_rng(seed).integers(-3, 4, size=(stack.N, stack.d))
        want = exact_output(stack, u)
        got, bound = numeric.run_bounded(stack, u.astype(float), dtype=dtype)
        assert np.max(np.abs(got.astype(float) - want)) <= bound, seed


def test_float32_bound_holds_and_is_informative_at_scale():
    # one full-length integer layer at N = 2^12: exact value from the modular interpreter
    N, d = 1 << 12, 3
    rng = np.random.default_rng(5)
    layer = Layer(W=rng.integers(-2, 3, (d, d)), h=rng.integers(-2, 3, (N, d)),
                  b1=rng.integers(-2, 3, (1, d)), b2=rng.integers(-2, 3, (1, d)))
    stack = Stack(N, d, (layer,))
    u = rng.integers(-2, 3, (1, N, d))
    r = exact.run_mod(stack, u, exact.PRIME, "ntt")
    truth = np.where(r > exact.PRIME // 2, r - exact.PRIME, r).astype(float)
    scale = np.max(np.abs(truth))
    for dtype, informative in (("float64", 1e-9), ("float32", 1e-1)):
        got, bound = numeric.run_bounded(stack, u.astype(float), dtype=dtype)
        err = np.max(np.abs(got.astype(float) - truth))
        assert 0 < err <= bound < informative * scale, (dtype, err, bound, scale)


def test_float32_run_is_really_float32():
    out = numeric.run(shift_down(16, 1), np.ones((16, 1)), dtype="float32")
    assert out.dtype == np.float32


def test_fast_length_is_the_least_5_smooth_length():
    def smooth(n):
        for q in (2, 3, 5):
            while n % q == 0:
                n //= q
        return n == 1
    for n in range(1, 400):
        f = numeric.fast_length(n)
        assert f >= n and smooth(f)
        assert not any(smooth(m) for m in range(n, f))


def test_bad_input_names_the_parameter():
    s = shift_down(4, 1)
    with pytest.raises(HypothesisError, match="dtype"):
        numeric.prepare(s, dtype="float16")
    with pytest.raises(HypothesisError, match="workers"):
        numeric.prepare(s, workers=0)
    with pytest.raises(HypothesisError, match="fft"):
        numeric.prepare(s, fft="mkl")
    with pytest.raises(HypothesisError, match="u: expected shape"):
        numeric.run(s, np.ones((5, 1)))
    import sympy
    sym_layer = Layer(W=[[0]], h=[[sympy.Symbol("a")]], b1=[[1]], b2=[[0]])
    with pytest.raises(HypothesisError, match=r"layers\[0\]\.h.*symbolic"):
        numeric.prepare(Stack(2, 1, (sym_layer,)))


def test_deep_stack_peak_memory_is_a_few_activations(monkeypatch):
    from symconv.bench.numeric import deep_stack
    N, d = 1 << 14, 16
    stack = deep_stack(N, d, 12)
    u = np.random.default_rng(0).standard_normal((1, N, d))
    prep = numeric.prepare(stack, cache_bytes=0, workers=2)
    F = prep.layers[0].fft_len
    monkeypatch.setattr(numeric, "BLOCK_BYTES", F * 8)  # one row per block, as at full size
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = numeric.run(prep, u)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert np.all(np.isfinite(out))
    assert peak <= 4 * u.nbytes, peak / u.nbytes


# ----------------------------------------------------------------- the namespace (CuPy) path

_inside = contextvars.ContextVar("inside", default=False)


class GuardArray(np.ndarray):
    """A numpy array that refuses numpy functions unless called through the namespace."""

    def __array_function__(self, func, types, args, kwargs):
        if not _inside.get():
            raise AssertionError(f"numpy.{func.__name__} called directly, not through the namespace")
        return super().__array_function__(func, types, args, kwargs)


def _guard(x):
    if isinstance(x, np.ndarray) and not isinstance(x, GuardArray):
        return x.view(GuardArray)
    return x


class RecordingNamespace:
    """numpy behind a namespace object, as CuPy would be: records every call, guards every array."""

    def __init__(self, module=np, prefix="", calls=None):
        self._module, self._prefix = module, prefix
        self.calls = [] if calls is None else calls

    def __getattr__(self, name):
        obj = getattr(self._module, name)
        if name == "fft":
            return RecordingNamespace(np.fft, "fft.", self.calls)
        if isinstance(obj, type) or not callable(obj):
            return obj

        def call(*args, **kwargs):
            self.calls.append(self._prefix + name)
            token = _inside.set(True)
            try:
                return _guard(obj(*args, **kwargs))
            finally:
                _inside.reset(token)
        return call


class NoNumpy:
    def __getattr__(self, name):
        raise AssertionError(f"the hot path used numpy.{name} instead of the namespace")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_namespace_path_never_calls_numpy(monkeypatch, dtype):
    for seed, stack in small_stacks():
        xp = RecordingNamespace()
        prep = numeric.prepare(stack, xp, dtype)  # parameters are host data: numpy is fine here
        assert prep.fft is None  # not the CPU path
        u = np.random.default_rng(seed).standard_normal((2, stack.N, stack.d))
        want = numeric.run(numeric.prepare(stack, dtype=dtype), u)
        want_b = numeric.run_bounded(numeric.prepare(stack, dtype=dtype), u)[1]
        with monkeypatch.context() as m:
            m.setattr(numeric, "np", NoNumpy())
            got = numeric.run(prep, xp.asarray(u))
            got_b, bound = numeric.run_bounded(prep, xp.asarray(u))
        assert isinstance(got, GuardArray)
        tol = 1e-9 if dtype == "float64" else 1e-3
        assert np.allclose(np.asarray(got), want, atol=tol * max(1, np.max(np.abs(want))))
        assert np.allclose(np.asarray(got_b), np.asarray(got))
        if dtype == "float64":
            assert bound == pytest.approx(want_b, rel=1e-6)
        else:  # the CPU path takes the filter spectrum in float32, so its bound is the larger
            assert want_b >= bound * (1 - 1e-6)
        for name in ("fft.rfft", "fft.irfft", "asarray", "zeros"):
            assert name in xp.calls, name


def test_guard_catches_a_direct_numpy_call():
    xp = RecordingNamespace()
    a = xp.asarray(np.ones(3))
    with pytest.raises(AssertionError, match="called directly"):
        np.concatenate([a, a])


def test_an_overflowing_bound_is_infinite_not_nan():
    # squaring 40 times overflows every norm: the bound must say inf, never nan
    square = Layer(W=[[1.0]], h=[[1.0]], b1=[[0.0]], b2=[[0.0]])
    with np.errstate(all="ignore"):  # the run itself overflows, as intended
        out, bound = numeric.run_bounded(Stack(4, 1, (square,) * 12), np.full((4, 1), 1e30))
    assert bound == float("inf")


# ----------------------------------------------------------------- cache, direct filters, budgets, libraries


def test_cache_is_all_or_none_by_the_stacks_total_need():
    from symconv.bench.numeric import dense_layer
    N, d = 256, 3
    stack = Stack(N, d, (dense_layer(N, d, seed=1), dense_layer(N, d, seed=2)))
    F = numeric.fast_length(2 * N - 1)
    need = 2 * d * (F // 2 + 1) * 16
    assert numeric.prepare(stack, cache_bytes=need).cached_bytes == need
    assert numeric.prepare(stack, cache_bytes=need - 1).cached_bytes == 0  # never a part of the stack
    u = np.random.default_rng(0).standard_normal((N, d))
    a = numeric.run(numeric.prepare(stack, cache_bytes=need), u)
    b = numeric.run(numeric.prepare(stack, cache_bytes=0), u)
    assert np.allclose(a, b, rtol=1e-12, atol=1e-12)


def test_short_filters_are_stored_short_and_applied_directly():
    from symconv.bench.numeric import deep_stack
    stack = deep_stack(64, 2, 3, K=5)
    prep = numeric.prepare(stack)
    assert all(p.direct and p.spectrum is None and p.hT.shape == (2, 5) for p in prep.layers)
    assert prep.cached_bytes == 0
    for conv in ("causal", "circular"):
        st = Stack(64, 2, tuple(Layer(W=l.W, h=l.h, b1=l.b1, b2=l.b2, conv=conv) for l in stack.layers))
        u = np.random.default_rng(1).integers(-3, 4, (64, 2))
        want = exact_output(st, u)
        got, bound = numeric.run_bounded(st, u.astype(float))
        assert np.max(np.abs(got - want)) <= bound, conv


def test_run_keeps_the_input_and_returns_its_layout():
    stack = random_stack(N=6, d=2, L=2, N_int=6, d_int=2, conv="mixed", seed=3)
    u = np.random.default_rng(2).standard_normal((3, 6, 2))
    before = u.copy()
    out = numeric.run(stack, u)
    assert out.shape == (3, 6, 2) and out.flags.c_contiguous and np.array_equal(u, before)


def test_huge_runs_are_refused_before_allocating():
    layer = Layer(W=[[0]], h=[[1]], b1=[[1]], b2=[[0]])
    st = Stack(2, 1, (layer,), N_int=1 << 31)
    with pytest.raises(HypothesisError, match=r"u: run at B = 1, N' = 2147483648.*needs .*GiB, over the memory budget of 1.00 GiB"):
        numeric.run(st, np.ones((2, 1)), budget="1GiB")
    with pytest.raises(HypothesisError, match=r"over the memory budget"):
        numeric.run_bounded(st, np.ones((2, 1)), budget="1GiB")
    long = Stack(1 << 20, 4, (Layer(W=np.zeros((4, 4)), h=np.ones((1 << 20, 4)), b1=[[1.0]], b2=[[0.0]]),))
    with pytest.raises(HypothesisError, match=r"stack: parameters.*needs .*MiB, over the memory budget of 1.0 MiB"):
        numeric.prepare(long, budget="1MiB")


def test_fft_library_choice(monkeypatch):
    assert numeric.fastest_library() in numeric.installed_libraries()
    monkeypatch.setenv("SYMCONV_FFT", "numpy")
    assert numeric.CpuFFT("auto").library == "numpy"
    monkeypatch.setenv("SYMCONV_FFT", "fftpack")
    with pytest.raises(HypothesisError, match="fft: unknown library 'fftpack'"):
        numeric.CpuFFT("auto")


@pytest.mark.parametrize("fft", ["numpy", "scipy", "pyfftw", "mkl_fft"])
def test_fft_path_of_long_filters_is_exact_on_integers(fft):
    if fft not in numeric.installed_libraries():
        pytest.skip(f"{fft} not installed")
    rng = np.random.default_rng(11)
    N, d, K = 80, 3, 40  # K > DIRECT_TAPS: the FFT path
    for conv in ("causal", "circular"):
        layer = Layer(W=rng.integers(-2, 3, (d, d)), h=rng.integers(-2, 3, (K, d)),
                      b1=rng.integers(-2, 3, (N, d)), b2=rng.integers(-2, 3, (1, d)), conv=conv)
        st = Stack(N, d, (layer, layer))
        u = rng.integers(-2, 3, (2, N, d))
        r = exact.run_mod(st, u, exact.PRIME, "ntt")
        truth = np.where(r > exact.PRIME // 2, r - exact.PRIME, r).astype(float)
        prep = numeric.prepare(st, fft=fft, workers=2)
        assert not prep.layers[0].direct and prep.fft.library == fft
        got, bound = numeric.run_bounded(prep, u.astype(float))
        assert np.max(np.abs(got - truth)) <= bound, conv


@pytest.mark.parametrize("tiles", ["multi-row plans", "row by row"])
@pytest.mark.parametrize("gate", ["dense", "diagonal", "zero"])
def test_fft_path_gates_and_biases_of_every_shape_are_exact_on_integers(gate, tiles, monkeypatch):
    # the CPU path fuses the gate into the channel tiles (W diagonal or zero) or applies it in row
    # chunks after the convolutions (dense W); d = 11 leaves a partial tile of 3 channels; small
    # tiles are transformed by one multi-row plan, large ones row by row (forced here)
    if tiles == "row by row":
        monkeypatch.setattr(numeric, "SMALL_TILE_BYTES", 0)
    rng = np.random.default_rng(12)
    N, d, K = 70, 11, 50
    W = {"dense": rng.integers(-2, 3, (d, d)), "diagonal": np.diag(rng.integers(-2, 3, d)),
         "zero": np.zeros((d, d), dtype=int)}[gate]
    for b1s, b2s in [((1, d), (1, d)), ((N, d), (N, d)), ((1, 1), (1, 1)), ((N, d), None)]:
        b2 = np.zeros((1, d), dtype=int) if b2s is None else rng.integers(-2, 3, b2s)
        layer = Layer(W=W, h=rng.integers(-2, 3, (K, d)), b1=rng.integers(-2, 3, b1s), b2=b2)
        st = Stack(N, d, (layer, layer))
        u = rng.integers(-2, 3, (2, N, d))
        r = exact.run_mod(st, u, exact.PRIME, "ntt")
        truth = np.where(r > exact.PRIME // 2, r - exact.PRIME, r).astype(float)
        for cache in (None, 0):
            prep = numeric.prepare(st, workers=2, cache_bytes=cache)
            assert not prep.layers[0].direct and (prep.layers[0].W is not None) == (gate == "dense")
            got, bound = numeric.run_bounded(prep, u.astype(float))
            assert np.max(np.abs(got - truth)) <= bound, (gate, b1s, b2s, cache)
