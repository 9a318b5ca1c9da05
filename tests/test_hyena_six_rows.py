"""Prop. H.12 at N = 3, N' < 2N on six rows (symconv.constructions.hyena_six_rows)."""
import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy

from symconv import HypothesisError, Stack, sym, verify
from symconv.blocks import Block
from symconv.constructions.hyena_2n_rows import step_target
from symconv.constructions.hyena_six_rows import (_step_channel, baseconv_on_six_rows, linear_step,
                                                  step_matrix)
from symconv.hyena import HyenaLayer, HyenaStack, evaluate as hyena_eval
from symconv.registry import load_module
from symconv.symbolic import evaluate

H12 = load_module(Path(__file__).resolve().parent.parent / "proofs" / "h12_hyena.py")
THREE = next(c for c in H12.CLAIMS if c.name == "Hyena -> BaseConv (N = 3, N' < 2N)")

h0, h1, h2 = sympy.symbols("h0 h1 h2")
# every case of the step, with the taps that define it symbolic; the step's length k for each
SYMBOLIC = [
    ((h0, h1, h2), 2),                   # generic: h0 h1 h2 != 0, h1^2 != h0 h2
    ((h0, 0, 0), 1),
    ((h0, 0, h2), 2),
    ((0, 0, h2), 2),
    ((h0, h1, 0), 3),
    ((h0, h1, h1 ** 2 / h0), 3),         # h1^2 = h0 h2
    ((0, h1, h2), 3),                    # b = 2, needs h1 + h2 != 4
    ((0, h1, 4 - h1), 3),                # b = 3
    ((0, h1, 0), 3),
]
KINDS = {
    "invertible": lambda d: [[1 if i == j else (2 if j == i + 1 else 0) for j in range(d)] for i in range(d)],
    "rank one": lambda d: [[(i + 1) * (j + 2) for j in range(d)] for i in range(d)],
    "zero": lambda d: [[0] * d for _ in range(d)],
    "diagonal": lambda d: [[(i + 2) if i == j else 0 for j in range(d)] for i in range(d)],
}
# one filter per case: generic, h1 = h2 = 0, h1 = 0, h0 = h1 = 0, h2 = 0, h1^2 = h0 h2, h0 = 0 (b = 2, b = 3), 0
FILTERS = [(3, -2, 5), (2, 0, 0), (Fraction(-1, 2), 0, 3), (0, 0, 4), (2, 3, 0), (1, 2, 4), (0, 5, 1), (0, 1, 3),
           (0, 0, 0)]


@pytest.mark.parametrize("taps, k", SYMBOLIC)
def test_every_case_is_exact_with_symbolic_taps(taps, k):
    layers = _step_channel(*(sympy.sympify(t) for t in taps))
    assert len(layers) == k
    diff = (step_matrix(layers) - step_target(taps)).applyfunc(sympy.cancel)
    assert diff == sympy.zeros(6, 6)


def test_every_small_rational_filter_gets_an_exact_step():
    vals = [Fraction(v) for v in (0, 1, -2, Fraction(3, 2), 4, Fraction(-1, 3))]
    for taps in itertools.product(vals, repeat=3):
        layers = _step_channel(*(sympy.Rational(t) for t in taps))
        assert step_matrix(layers) == step_target(tuple(sympy.Rational(t) for t in taps)), taps


def test_the_linear_step_keeps_u_and_convolves_z_channel_by_channel():
    """Two channels of different cases (k = 2 and k = 3): the shorter one is padded with identity layers."""
    u, z = sym("u", 3, 2), sym("z", 3, 2)
    x = np.concatenate([u.entries, z.entries])
    filters = [(3, -2, 5), (2, 3, 0)]
    st = Stack(6, 2, linear_step(filters, 2))
    assert st.L == 3
    out = evaluate(st, Block(x, "x")).entries
    for c, h in enumerate(filters):
        want = list(u.entries[:, c]) + [sum(h[k] * z.entries[i - k, c] for k in range(i + 1)) for i in range(3)]
        assert [sympy.expand(a - b) for a, b in zip(out[:, c], want)] == [0] * 6


def model(kinds, d, filters, Np=4):
    L = len(kinds) + 1
    layers = tuple(HyenaLayer(W=KINDS[kinds[l]](d) if l < L - 1 else sym(f"W{l}", d, d).entries,
                              b=sym(f"b{l}", Np, d).entries,
                              h=[[filters[(2 * l + c) % len(filters)][t] for c in range(d)] for t in range(3)])
                   for l in range(L))
    return HyenaStack(3, d, layers, N_int=Np)


def same(m):
    stack = baseconv_on_six_rows(m)
    u = sym("u", 3, m.d)
    got, want = evaluate(stack, u).entries, hyena_eval(m, u).entries
    assert [sympy.expand(a - b) for a, b in zip(got.flat, want.flat)] == [0] * (3 * m.d)
    assert (stack.N_int, stack.d_int) == (6, m.d)
    return stack


@pytest.mark.parametrize("d", [1, 2])
def test_every_kind_of_projection_and_every_filter_case(d):
    for kind in KINDS:
        for shift in range(0, len(FILTERS), 2):
            same(model([kind], d, FILTERS[shift:] + FILTERS[:shift]))


@pytest.mark.parametrize("d", [1, 2])
def test_three_layers_every_pair_of_projections(d):
    for kinds in itertools.product(KINDS, repeat=2):
        same(model(list(kinds), d, FILTERS[4:] + FILTERS[:4]))


@pytest.mark.parametrize("kind, d, L, layers", [
    ("diagonal", 1, 4, 4 * 4 - 2),       # every step of length 3: the route's most at d = 1
    ("invertible", 2, 3, 5 * 3 - 3),     # twist + product per layer: the most for invertible W
    ("diagonal", 2, 3, 4 * 3 - 2),
])
def test_layer_counts_at_the_longest_steps(kind, d, L, layers):
    long = [(2, 3, 0), (0, 5, 1), (1, 2, 4)]  # k = 3 in every channel
    assert baseconv_on_six_rows(model([kind] * (L - 1), d, long)).L == layers


def test_the_claim_holds_on_six_rows_with_every_case_in_its_box():
    (v,) = verify(THREE)
    assert v.verdict == "holds"
    rec = {r["quantity"]: r for r in v.as_dict()["lower_bounds"]}
    assert {q: rec[q]["verdict"] for q in ("L", "N'", "d'")} == {"L": "met", "N'": "met", "d'": "met"}
    assert rec["N'"]["built"] == 6 <= rec["N'"]["claimed"]
    stepped = {tuple(col) for Np in (3, 4, 5) for ell in (2, 3)
               for col in zip(*H12.filters_three(ell, 2, Np))}   # the filters the box's linear steps apply
    assert stepped == set(H12.TAPS_THREE)
    assert {len(_step_channel(*(sympy.Rational(t) for t in taps))) for taps in stepped} == {1, 2, 3}


def test_bad_input_is_refused_naming_the_parameter():
    with pytest.raises(HypothesisError, match="model.N: the six-row route is for N = 3"):
        baseconv_on_six_rows(HyenaStack(2, 1, (HyenaLayer([[1]], [[0]], [[1]]),)))
    h = sym("h", 3, 1).entries
    with pytest.raises(HypothesisError, match=r"model.layers\[0\].h: .*numeric"):
        baseconv_on_six_rows(HyenaStack(3, 1, (HyenaLayer([[1]], [[0]], h),)))
    W = sym("W", 2, 2).entries
    m = HyenaStack(3, 2, (HyenaLayer(W, [[0, 0]], [[1, 1], [1, 1]]),) * 2)
    with pytest.raises(HypothesisError, match=r"model.layers\[0\].W: .*rational"):
        baseconv_on_six_rows(m)
    with pytest.raises(HypothesisError, match=r"h \(channel 0\): the six-row step takes 3"):
        linear_step([(1, 2)], 2)
