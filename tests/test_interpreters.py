"""The exact and the FFT interpreters agree, in both convolution modes."""
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from symconv import HypothesisError, Layer, Stack, evaluate, sym
from symconv.constructions.random import random_stack
from symconv.numeric import fast_length, run

# float64 FFTs of these tiny integer stacks are exact to a few ulps of the output scale
REL_TOL = 1e-9


def exact_at(stack, point):
    """The symbolic output evaluated at a rational point, as a float array."""
    u = sym("u", stack.N, stack.d)
    out = evaluate(stack, u)
    subs = {u.entries[i, j]: point[i, j] for i in range(stack.N) for j in range(stack.d)}
    return np.array([[float(e.xreplace(subs)) for e in row] for row in out.entries])


@settings(max_examples=25, deadline=None)
@given(N=st.integers(1, 6), extra=st.integers(0, 3), d=st.integers(1, 2), dx=st.integers(0, 1),
       L=st.integers(1, 3), conv=st.sampled_from(["causal", "circular", "mixed"]),
       seed=st.integers(0, 10**6))
def test_symbolic_and_numeric_agree_on_random_stacks(N, extra, d, dx, L, conv, seed):
    stack = random_stack(N, d, L, N + extra, d + dx, conv=conv, seed=seed)
    rng = np.random.default_rng(seed)
    point = np.array([[Fraction(int(a), int(b)) for a, b in zip(r1, r2)]
                      for r1, r2 in zip(rng.integers(-5, 6, (N, d)), rng.integers(1, 4, (N, d)))], dtype=object)
    want = exact_at(stack, point)
    got = run(stack, point.astype(float))
    scale = max(1.0, np.abs(want).max())
    assert np.abs(got - want).max() <= REL_TOL * scale


def test_causal_drops_what_circular_wraps():
    h = [[0], [0], [1]]  # e_2
    causal = Stack(3, 1, (Layer(W=[[0]], h=h, b1=[[1]], b2=[[0]]),))
    circular = Stack(3, 1, (Layer(W=[[0]], h=h, b1=[[1]], b2=[[0]], conv="circular"),))
    y = sym("y", 3)
    Y = [sympy.Symbol(f"y[{i},0]") for i in range(3)]
    assert evaluate(causal, y).entries[:, 0].tolist() == [0, 0, Y[0]]
    assert evaluate(circular, y).entries[:, 0].tolist() == [Y[1], Y[2], Y[0]]
    u = np.array([[1.0], [2.0], [3.0]])
    assert run(causal, u)[:, 0].tolist() == pytest.approx([0, 0, 1])
    assert run(circular, u)[:, 0].tolist() == pytest.approx([2, 3, 1])


def test_symbolic_parameters_are_kept_exact():
    a, b = sympy.symbols("a b")
    layer = Layer(W=[[0]], h=[[a], [b]], b1=[[Fraction(1, 2)]], b2=[[0]])
    out = evaluate(Stack(2, 1, (layer,)), sym("y", 2))
    y0, y1 = sympy.Symbol("y[0,0]"), sympy.Symbol("y[1,0]")
    assert sympy.expand(out.entries[1, 0] - (a * y1 + b * y0) / 2) == 0


def test_numeric_batched_and_float32():
    stack = random_stack(8, 2, 2, conv="mixed", seed=4)
    rng = np.random.default_rng(0)
    u = rng.standard_normal((3, 8, 2))
    batched = run(stack, u)
    single = np.stack([run(stack, u[i]) for i in range(3)])
    assert np.allclose(batched, single, rtol=0, atol=1e-12)
    low = run(stack, u, dtype="float32")
    assert low.dtype == np.float32
    assert np.abs(low - batched).max() <= 1e-4 * np.abs(batched).max()


def test_numeric_rejects_bad_input():
    stack = random_stack(4, 2, 1, seed=0)
    with pytest.raises(HypothesisError, match="u: expected shape"):
        run(stack, np.zeros((4, 3)))
    with pytest.raises(HypothesisError, match="dtype"):
        run(stack, np.zeros((4, 2)), dtype="float16")
    a = sympy.Symbol("a")
    sym_stack = Stack(2, 1, (Layer(W=[[0]], h=[[a]], b1=[[1]], b2=[[0]]),))
    with pytest.raises(HypothesisError, match="symbolic"):
        run(sym_stack, np.zeros((2, 1)))
    assert run(sym_stack.subs({a: 2}), np.ones((2, 1)))[:, 0].tolist() == pytest.approx([2, 2])


def test_symbolic_rejects_wrong_input_shape():
    with pytest.raises(HypothesisError, match="u: input has shape"):
        evaluate(random_stack(4, 1, 1), sym("y", 3))


@pytest.mark.parametrize("n", [1, 2, 7, 1000, 1025, 4097])
def test_fast_length_is_smooth_and_not_shorter(n):
    f = fast_length(n)
    assert f >= n
    m = f
    for p in (2, 3, 5):
        while m % p == 0:
            m //= p
    assert m == 1
