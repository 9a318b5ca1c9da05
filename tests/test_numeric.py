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


@pytest.mark.parametrize("fft", ["numpy", "scipy"])
@pytest.mark.parametrize("workers", [1, 2])
def test_cpu_path_agrees_with_exact_interpreter(fft, workers):
    pytest.importorskip("scipy") if fft == "scipy" else None
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
