"""Every bad input names itself: one HypothesisError naming the parameter, by kind.

Each row: (kind, what is tried, the call, a regex the message must match).  The regex
always names the parameter; the README's table of bad inputs is generated from the
same kinds (see the notes of the hardening helper).
"""
from fractions import Fraction

import numpy as np
import pytest
import sympy

from symconv import HypothesisError, Layer, Stack, compose, const, ones, sym, unit, zeros
from symconv.blocks import Block, from_array, rows
from symconv.circuits import evaluate, evaluate_numeric, matmul_circuit, product_circuit, random_circuit
from symconv.constructions.butterfly import (ButterflyFactorMatrix, compile_butterfly, log2,
                                             random_butterfly, symbolic_butterfly)
from symconv.constructions.kaleidoscope import compile_kaleidoscope, random_kaleidoscope
from symconv.constructions.random import random_stack
from symconv.dependency import dependencies, shift_up_pattern
from symconv import budget, retnet
from symconv.constructions.arithmetic import frame_size

CODE = "__import__('os').system('touch /tmp/pwned')"
I1 = [[1]]


def L(**kw):
    args = dict(W=I1, h=I1, b1=I1, b2=[[0]])
    args.update(kw)
    return Layer(**args)


CASES = [
    # strings (never parsed), at every level
    ("string", "W as text", lambda: L(W="1"), r"W: '1' is a string"),
    ("string", "filter tap that would run code", lambda: L(h=[[CODE]]), r"h\[0\]\[0\]: .*is a string"),
    ("string", "string inside an object array", lambda: L(b1=np.array([[1, "x"]], dtype=object)),
     r"b1\[0,1\]: 'x' is not a parameter value: a string"),
    ("string", "numpy string array", lambda: L(b2=np.array([["0"]])), r"b2: strings are not parameter values"),
    ("string", "bytes", lambda: L(h=[[b"1"]]), r"h\[0\]\[0\]: .*is a string"),
    ("string", "block entry", lambda: from_array([[CODE]]), r"a\[0\]\[0\]: .*is a string"),
    ("string", "Block(entries) with text", lambda: Block([["x"]], "y"), r"y\[0\]\[0\]: 'x' is a string"),
    ("string", "const of text", lambda: const("1", 2), r"c: '1' is not a sequence entry: a string"),
    ("string", "sym size as text", lambda: sym("x", "3"), r"n: must be an integer"),
    ("string", "Stack N as text", lambda: Stack("4", 1, ()), r"N: must be a positive integer, got '4'"),
    ("string", "layers as text", lambda: Stack(4, 1, "abc"), r"layers: expected a sequence of Layers"),
    ("string", "conv mode misspelt", lambda: L(conv="Causal"), r"conv: unknown convolution mode 'Causal'"),
    ("string", "block entry scalar in +", lambda: sym("x", 2) + "1", r"scalar: '1' is not a sequence entry"),
    ("string", "circuit input", lambda: evaluate(product_circuit(2), ["2", 3]), r"x\[0\]: strings are not"),
    ("string", "RetNet input that would run code", lambda: retnet.recurrence([[CODE]], I1, I1, I1, 0.5),
     r"u\[0\]\[0\]: .*is a string"),
    ("string", "RetNet decay as text", lambda: retnet.retnet_circuit(2, 1, I1, I1, I1, "0.9"),
     r"gamma: '0.9' is not a decay value: a string"),
    ("string", "numeric RetNet input as text", lambda: retnet.recurrence_numeric(np.array([[["1.5"]]]), I1, I1, I1, 0.5),
     r"u: strings are not parameter values"),
    ("string", "substitution value as text", lambda: L(W=[[sympy.Symbol("a")]]).subs({sympy.Symbol("a"): CODE}),
     r"values\[a\]: .*a string"),
    ("string", "substitution key as text", lambda: L().subs({"a": 1}), r"values: keys must be sympy Symbols"),
    # not finite
    ("nan/inf", "nan in W", lambda: L(W=[[float("nan")]]), r"W\[0,0\]: nan is not a parameter value: not finite"),
    ("nan/inf", "inf in h", lambda: L(h=np.array([[1.0], [np.inf]])), r"h\[1,0\]: inf is not a parameter value"),
    ("nan/inf", "-inf in an object array", lambda: L(b1=np.array([[-np.inf]], dtype=object)),
     r"b1\[0,0\]: -inf is not a parameter value: not finite"),
    ("nan/inf", "sympy oo", lambda: L(b2=[[sympy.oo]]), r"b2\[0,0\]: oo is not a parameter value: not finite"),
    ("nan/inf", "sympy nan in a block", lambda: from_array([[sympy.nan]], "y"), r"y\[0,0\]: .*not finite"),
    ("nan/inf", "nan block entry", lambda: const(float("nan"), 2), r"c: nan is not a sequence entry: not finite"),
    ("nan/inf", "nan RetNet decay", lambda: retnet.retnet_circuit(2, 1, I1, I1, I1, float("nan")),
     r"gamma: nan is not a decay value: not finite"),
    ("nan/inf", "nan RetNet weight", lambda: retnet.recurrence_numeric(np.ones((1, 2, 1)), I1, I1, [[np.nan]], 0.5),
     r"WV\[0,0\]: nan is not a parameter value"),
    ("nan/inf", "nan circuit input", lambda: evaluate_numeric(product_circuit(2), [[np.nan, 1.0]]),
     r"X: has entries that are not finite"),
    # complex
    ("complex", "complex W", lambda: L(W=[[1j]]), r"W: complex numbers are not parameter values"),
    ("complex", "Python complex in an object array", lambda: L(h=np.array([[1 + 2j]], dtype=object)),
     r"h\[0,0\]: .*complex"),
    ("complex", "sympy I", lambda: L(b1=[[sympy.I]]), r"b1\[0,0\]: I is not a parameter value: complex"),
    ("complex", "1 + I in a block", lambda: from_array([[1 + sympy.I]], "y"), r"y\[0,0\]: .*complex"),
    # booleans
    ("boolean", "bool array", lambda: L(b1=np.ones((1, 1), dtype=bool)), r"b1: booleans are not parameter values"),
    ("boolean", "True in a list", lambda: L(h=[[True]]), r"h: booleans are not parameter values"),
    ("boolean", "sympy true", lambda: L(b2=[[sympy.true]]), r"b2\[0,0\]: .*boolean"),
    ("boolean", "block entry True", lambda: const(True, 2), r"c: True is not a sequence entry: a boolean"),
    ("boolean", "Stack N = True", lambda: Stack(True, 1, ()), r"N: must be a positive integer, got True"),
    ("boolean", "power True", lambda: sym("x", 2) ** True, r"exponent: .*got True"),
    # None
    ("None", "W = None", lambda: L(W=None), r"W\[0,0\]: None is not a parameter value"),
    ("None", "None inside h", lambda: L(h=[[1], [None]]), r"h\[1,0\]: None is not a parameter value"),
    ("None", "block entry None", lambda: from_array([[None]], "y"), r"y\[0,0\]: None is not a sequence entry"),
    ("None", "Stack d = None", lambda: Stack(4, None, ()), r"d: must be a positive integer, got None"),
    # unsupported object types
    ("object", "a dict", lambda: L(b1=np.array([[{}]], dtype=object)), r"b1\[0,0\]: \{\} .*unsupported type dict"),
    ("object", "a Layer as an entry", lambda: L(h=np.array([[L()]], dtype=object)),
     r"h\[0,0\]: .*unsupported type Layer"),
    ("object", "a set in a block", lambda: from_array([[{1}]], "y"), r"y\[0,0\]: .*unsupported type set"),
    ("object", "sympy relation", lambda: L(W=[[sympy.Symbol("a") < 1]]), r"W\[0,0\]: .*boolean or relation"),
    ("object", "ragged list", lambda: L(h=[[1], [2, 3]]), r"h: not a rectangular array"),
    ("object", "3-D array", lambda: L(h=np.zeros((2, 1, 1))), r"h: expected a 2-D array"),
    ("object", "a layer where a stack is needed", lambda: Stack(4, 1, L()), r"layers: .*got one Layer"),
    ("object", "a non-Layer in layers", lambda: Stack(4, 1, (3,)), r"layers\[0\]: expected a Layer, got int"),
    ("object", "dependencies of a list", lambda: dependencies([L()]), r"stack: expected a Stack"),
    ("object", "compile a non-butterfly", lambda: compile_butterfly("B", 2, 2), r"B: expected a Butterfly"),
    ("object", "compile a non-kaleidoscope", lambda: compile_kaleidoscope(None, 2, 2), r"K: expected a Kaleidoscope"),
    # shapes (Layer(h=ones(N)) style mistakes)
    ("shape", "1-D h against a 2×2 W", lambda: L(W=np.eye(2), h=np.ones(4), b1=[[1]]),
     r"h: has 1 channels but W is 2×2 .*1-D h"),
    ("shape", "one-column Block as h against a 2×2 W", lambda: L(W=np.eye(2), h=ones(4), b1=[[1]]),
     r"h: has 1 channels but W is 2×2"),
    ("shape", "W not square", lambda: L(W=[[1, 2]]), r"W: must be square"),
    ("shape", "b1 of 3 channels for d' = 2", lambda: L(W=np.eye(2), h=np.ones((1, 2)), b1=np.ones((1, 3))),
     r"b1: has 3 channels"),
    ("shape", "h longer than N'", lambda: Stack(2, 1, (L(h=np.ones((3, 1))),)), r"layers\[0\]\.h: filter length 3"),
    ("shape", "empty h", lambda: L(h=np.zeros((0, 1))), r"h: the filter has no rows"),
    ("shape", "blocks of different widths", lambda: sym("x", 2, 1) | sym("y", 2, 2), r"y: has 2 channels"),
    ("shape", "rows outside the block", lambda: rows(sym("x", 2), 1, 4), r"start/stop"),
    ("shape", "row index past the end", lambda: sym("x", 2)[5], r"index: row 5 is outside"),
    # sizes
    ("size", "float N", lambda: Stack(4.0, 1, ()), r"N: must be a positive integer, got 4.0"),
    ("size", "zero d", lambda: Stack(4, 0, ()), r"d: must be a positive integer, got 0"),
    ("size", "negative n", lambda: sym("x", -1), r"n: must be an integer >= 0"),
    ("size", "N' below N", lambda: Stack(4, 1, (), N_int=2), r"N_int: internal length N' = 2 is below N = 4"),
    ("size", "e_k past the end", lambda: unit(3, 3), r"k: e_3 needs length > 3"),
    ("size", "zero width unit", lambda: unit(0, 2, 0), r"d: must be an integer >= 1"),
    ("size", "negative power", lambda: sym("x", 2) ** -1, r"exponent: .*k >= 0"),
    ("size", "fractional power", lambda: sym("x", 2) ** Fraction(1, 2), r"exponent"),
    ("size", "butterfly size not a power of two", lambda: random_butterfly(6, np.random.default_rng(0)),
     r"n: must be a power of two"),
    ("size", "log2 of a float", lambda: log2(4.0), r"n: must be a power of two"),
    ("size", "float circuit size", lambda: product_circuit(2.0), r"k: must be an integer >= 1"),
    ("size", "zero matmul", lambda: matmul_circuit(0), r"p: must be an integer >= 1"),
    ("size", "random circuit width None", lambda: random_circuit(2, None, 1), r"width: must be an integer"),
    ("size", "random stack L as text", lambda: random_stack(4, 1, "2"), r"L: must be an integer"),
    ("size", "negative circuit frame", lambda: frame_size(product_circuit(2), -1, 1), r"n: must be an integer >= 1"),
    ("size", "shift past N", lambda: shift_up_pattern(3, 4), r"s: shift 4 exceeds N = 3"),
    # memory: sizes that do not fit are refused before allocating
    ("memory", "dependency pattern at N' = 2^20", lambda: dependencies(Stack(1 << 20, 1, ())),
     r"N_int: the 1048576×1048576 dependency pattern .*over the memory budget"),
    ("memory", "kaleidoscope at n = 2^40", lambda: random_kaleidoscope(1 << 40, 2, 1, np.random.default_rng(0)),
     r"n: the 2 random butterflies of size e·n = 2199023255552 .*over the memory budget"),
    ("memory", "butterfly at n = 2^36", lambda: random_butterfly(1 << 36, np.random.default_rng(0)),
     r"n: the 36 random butterfly factors .*over the memory budget"),
    ("memory", "compiled butterfly too large for 256 KiB",
     lambda: _with_budget("256KiB", lambda: compile_butterfly(symbolic_butterfly(64), 32, 2)),
     r"n: the layers of .*over the memory budget of 256.0 KiB"),
    ("memory", "budget as text that is not a size", lambda: budget.parse_size("lots"), r"--memory: 'lots' is not a size"),
]


def _with_budget(b, f):
    with budget.use_budget(b):
        return f()


@pytest.mark.parametrize("kind, what, call, message", CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_bad_input_gets_a_hypothesis_error_naming_the_parameter(kind, what, call, message):
    with pytest.raises(HypothesisError, match=message) as err:
        call()
    assert "\n" not in str(err.value)  # one line


def test_the_table_covers_every_kind():
    assert {c[0] for c in CASES} == {"string", "nan/inf", "complex", "boolean", "None", "object", "shape",
                                     "size", "memory"}


# ----------------------------------------------------------------- exact instead of wrong


def test_butterfly_on_fixed_width_integers_is_exact_not_wrapped():
    F = ButterflyFactorMatrix(2, 2, np.array([[[2 ** 40], [2 ** 40], [1], [1]]], dtype=np.int64))
    x = np.array([2 ** 40, 2 ** 40], dtype=np.int64)
    assert F.apply(x).tolist() == [2 ** 81, 2 ** 41]  # int64 would wrap to 0 and 2^41


def test_circuits_on_fixed_width_integers_are_exact_not_wrapped():
    c = product_circuit(4)
    big = np.array([2 ** 20, 3], dtype=np.int64)
    (out,) = evaluate(c, [big] * 4)
    assert out.tolist() == [2 ** 80, 81]
    assert evaluate(c, [np.int64(2 ** 20)] * 4) == [2 ** 80]


def test_good_values_of_every_accepted_kind_still_build():
    layer = Layer(W=[[Fraction(1, 2)]], h=[[sympy.Symbol("a")], [np.int64(2)]], b1=[[0.25]], b2=[[sympy.Rational(1, 3)]])
    assert layer.h.dtype == object and Stack(4, 1, (layer,)).L == 1
    assert compose(Stack(2, 1, (L(),)), Stack(2, 1, (L(),))).L == 2
    assert from_array([[Fraction(1, 3), 0.5, sympy.Symbol("z")]]).shape == (1, 3)
