"""Prop. H.12 at N = 2, N' < 2N on four rows (symconv.constructions.hyena_four_rows)."""
import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy

from symconv import HypothesisError, Stack, sym, verify
from symconv.blocks import Block
from symconv.constructions.hyena_four_rows import _step_channel, baseconv_on_four_rows, linear_step
from symconv.hyena import HyenaLayer, HyenaStack, evaluate as hyena_eval
from symconv.registry import load_module
from symconv.symbolic import evaluate

H12 = load_module(Path(__file__).resolve().parent.parent / "proofs" / "h12_hyena.py")
TWO = next(c for c in H12.CLAIMS if c.name == "Hyena -> BaseConv (N = 2, N' < 2N)")

KINDS = {
    "invertible": lambda d: [[1 if i == j else (2 if j == i + 1 else 0) for j in range(d)] for i in range(d)],
    "rank one": lambda d: [[(i + 1) * (j + 2) for j in range(d)] for i in range(d)],
    "zero": lambda d: [[0] * d for _ in range(d)],
    "diagonal": lambda d: [[(i + 2) if i == j else 0 for j in range(d)] for i in range(d)],
}
FILTERS = [(3, -2), (0, 4), (Fraction(-1, 2), 5), (2, 0), (0, 0)]   # h₀ = 0 and h = 0 included


def model(kinds, d, filters, Np=3):
    L = len(kinds) + 1
    layers = tuple(HyenaLayer(W=KINDS[kinds[l]](d) if l < L - 1 else sym(f"W{l}", d, d).entries,
                              b=sym(f"b{l}", Np, d).entries,
                              h=[[filters[(l + c) % len(filters)][t] for c in range(d)] for t in range(2)])
                   for l in range(L))
    return HyenaStack(2, d, layers, N_int=Np)


def same(m):
    stack = baseconv_on_four_rows(m)
    u = sym("u", 2, m.d)
    got, want = evaluate(stack, u).entries, hyena_eval(m, u).entries
    assert [sympy.expand(a - b) for a, b in zip(got.flat, want.flat)] == [0] * (2 * m.d)
    assert (stack.N_int, stack.d_int) == (4, m.d)
    return stack


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("L", [1, 2, 3])
def test_every_kind_of_projection_before_the_last(d, L):
    for kinds in itertools.product(KINDS, repeat=L - 1):
        for shift in range(2):
            same(model(kinds, d, FILTERS[shift:] + FILTERS[:shift]))


def test_the_linear_step_alone_keeps_u_and_convolves_z():
    u, z = sym("u", 2), sym("z", 2)
    x = np.concatenate([u.entries, z.entries])
    for h0, h1 in FILTERS:
        st = Stack(4, 1, linear_step([(sympy.Rational(h0), sympy.Rational(h1))], 2))
        out = evaluate(st, Block(x, "x")).entries[:, 0]
        want = [u.entries[0, 0], u.entries[1, 0], h0 * z.entries[0, 0], h0 * z.entries[1, 0] + h1 * z.entries[0, 0]]
        assert [sympy.expand(a - b) for a, b in zip(out, want)] == [0] * 4


def test_symbolic_filter_taps_in_the_step():
    """The step's closed form in c = h1/h0 as symbols: the carries cancel identically."""
    c, h0 = sympy.symbols("c h0")
    (f1, m1), (f2, m2) = _step_channel(h0, c * h0)
    u0, u1, z0, z1 = sympy.symbols("u0 u1 z0 z1")
    x = [u0, u1, z0, z1]
    conv = lambda f, v: [sum(f[k] * v[i - k] for k in range(i + 1)) for i in range(4)]
    x1 = [m * v for m, v in zip(m1, conv(f1, x))]
    y = [sympy.expand(m * v) for m, v in zip(m2, conv(f2, x1))]
    assert [sympy.simplify(a - b) for a, b in zip(y, [u0, u1, h0 * z0, h0 * z1 + c * h0 * z0])] == [0] * 4
    (f1, m1), (f2, m2) = _step_channel(0, c)          # the h0 = 0 branch, h1 = c symbolic
    x1 = [m * v for m, v in zip(m1, conv(f1, x))]
    y = [sympy.expand(m * v) for m, v in zip(m2, conv(f2, x1))]
    assert [sympy.expand(a - b) for a, b in zip(y, [u0, u1, 0, c * z0])] == [0] * 4


@pytest.mark.parametrize("kind, d, L, layers", [
    ("diagonal", 1, 4, 3 * 4 - 1),
    ("invertible", 2, 3, 4 * 3 - 2),
    ("diagonal", 2, 3, 3 * 3 - 1),
    ("rank one", 2, 3, 2 + 2 * (4 + 2)),
])
def test_layer_counts(kind, d, L, layers):
    assert baseconv_on_four_rows(model([kind] * (L - 1), d, FILTERS)).L == layers


def test_the_claim_holds_on_n_prime_plus_n_rows():
    (v,) = verify(TWO)
    assert v.verdict == "holds"
    rec = {r["quantity"]: r for r in v.as_dict()["lower_bounds"]}
    assert {q: rec[q]["verdict"] for q in ("L", "N'", "d'")} == {"L": "met", "N'": "met", "d'": "met"}
    assert rec["N'"]["built"] == 4 <= rec["N'"]["claimed"]


def test_bad_input_is_refused_naming_the_parameter():
    with pytest.raises(HypothesisError, match="model.N: the four-row route is for N = 2"):
        baseconv_on_four_rows(HyenaStack(3, 1, (HyenaLayer([[1]], [[0]], [[1]]),)))
    h = sym("h", 2, 1).entries
    with pytest.raises(HypothesisError, match=r"model.layers\[0\].h: .*numeric"):
        baseconv_on_four_rows(HyenaStack(2, 1, (HyenaLayer([[1]], [[0]], h),)))
    W = sym("W", 2, 2).entries
    m = HyenaStack(2, 2, (HyenaLayer(W, [[0, 0]], [[1, 1], [1, 1]]),) * 2)
    with pytest.raises(HypothesisError, match=r"model.layers\[0\].W: .*rational"):
        baseconv_on_four_rows(m)
    with pytest.raises(HypothesisError, match="causal"):
        baseconv_on_four_rows(HyenaStack(2, 1, (HyenaLayer([[1]], [[0]], [[1]], conv="circular"),)))
