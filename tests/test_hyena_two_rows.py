"""Prop. H.12 at N = N' = 1 on two rows (symconv.constructions.hyena_two_rows)."""
import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from symconv import HypothesisError, sym, verify
from symconv.constructions.hyena_two_rows import baseconv_on_two_rows, column_passes
from symconv.hyena import HyenaLayer, HyenaStack, evaluate as hyena_eval
from symconv.registry import load_module
from symconv.symbolic import evaluate

H12 = load_module(Path(__file__).resolve().parent.parent / "proofs" / "h12_hyena.py")
ONE = next(c for c in H12.CLAIMS if c.name == "Hyena -> BaseConv (N = N' = 1)")


def model(middle, d, L):
    """W^1 and W^L symbolic, the middle ones given; b and h symbolic."""
    layers = []
    for ell in range(1, L + 1):
        W = sym(f"W{ell}", d, d).entries if ell in (1, L) else middle[ell - 2]
        layers.append(HyenaLayer(W=W, b=sym(f"b{ell}", 1, d).entries, h=sym(f"h{ell}", 1, d).entries))
    return HyenaStack(1, d, tuple(layers))


def same(m):
    """The two-row stack against the Hyena definition, exactly; returns the stack."""
    stack = baseconv_on_two_rows(m)
    u = sym("u", 1, m.d)
    got, want = evaluate(stack, u).entries, hyena_eval(m, u).entries
    assert [sympy.expand(a - b) for a, b in zip(got.flat, want.flat)] == [0] * m.d
    assert (stack.N_int, stack.d_int) == (2, m.d)
    return stack


KINDS = {
    "invertible": lambda d: [[1 if i == j else (2 if j == i + 1 else 0) for j in range(d)] for i in range(d)],
    "rank one": lambda d: [[(i + 1) * (j + 2) for j in range(d)] for i in range(d)],
    "zero": lambda d: [[0] * d for _ in range(d)],
    "diagonal": lambda d: [[(i + 2) if i == j else 0 for j in range(d)] for i in range(d)],
    "zero column": lambda d: [[0 if j == 0 else i - j + 1 for j in range(d)] for i in range(d)],
}


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("L", [1, 2, 3, 4])
def test_every_kind_of_middle_projection(d, L):
    """Every pair of kinds of middle W^l at L = 4: 1 + 1 + 5 + 25 models per d."""
    for kinds in itertools.product(KINDS, repeat=max(0, L - 2)):
        same(model([KINDS[k](d) for k in kinds], d, L))


@pytest.mark.parametrize("W, layers", [
    ([[1, 2, 0], [2, 4, 0], [0, 0, 0]], 3 + 2 + 2),  # rank one, two sets with twists, a zero column read once
    ([[1, 2], [0, 0]], 3 + 1 + 2),                    # rank one: column 0 is e_0 (no twist), column 1 twists
    ([[0, 1, 0], [0, 0, 1], [1, 0, 0]], 3 + 2),       # a permutation: one set, one twist
])
def test_singular_and_permutation_middle_projections(W, layers):
    d = len(W)
    assert same(model([W], d, 3)).L == layers


def test_broadcast_biases_and_small_integer_types():
    """A 1×1 bias and filter broadcast to d channels, as the Hyena model reads them; int8 entries do not wrap."""
    d = 2
    mid = HyenaLayer(W=np.diag([2, 0]).astype(np.int8), b=np.array([[12]], dtype=np.int8),
                     h=np.array([[12, 12]], dtype=np.int8))
    ends = [HyenaLayer(W=sym(f"W{e}", d, d).entries, b=[[sym(f"b{e}", 1, 1).entries[0, 0]]],
                       h=sym(f"h{e}", 1, d).entries) for e in (1, 3)]
    same(HyenaStack(1, d, (ends[0], mid, ends[1])))
    st_ = baseconv_on_two_rows(HyenaStack(1, d, (mid, mid, mid)))
    got = evaluate(st_, sym("u", 1, d)).entries
    want = hyena_eval(HyenaStack(1, d, (mid, mid, mid)), sym("u", 1, d)).entries
    assert [sympy.expand(a - b) for a, b in zip(got.flat, want.flat)] == [0, 0]


def test_wider_hyena_state_uses_two_rows_and_row_zero_only():
    d = 2
    layers = tuple(HyenaLayer(W=[[1, 2], [1, -1]] if e == 2 else sym(f"W{e}", d, d).entries,
                              b=sym(f"b{e}", 3, d).entries, h=sym(f"h{e}", 3, d).entries) for e in (1, 2, 3))
    stack = same(HyenaStack(1, d, layers, N_int=3))
    assert stack.N_int == 2


@pytest.mark.parametrize("kind, d, L, layers", [
    ("invertible", 2, 5, 2 * 5 - 1),   # one twist and one product per middle layer
    ("invertible", 3, 4, 2 * 4 - 1),
    ("diagonal", 3, 4, 4 + 1),         # no twist: the convolution scales u_c itself
    ("zero", 2, 4, 4 + 1),             # constants only
    ("rank one", 3, 3, 3 + 2 * 3),     # three sets of one column each
])
def test_layer_counts(kind, d, L, layers):
    st_ = baseconv_on_two_rows(model([KINDS[kind](d)] * (L - 2), d, L))
    assert st_.L == layers <= 5 * L


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3).flatmap(lambda d: st.tuples(
    st.just(d), st.lists(st.lists(st.integers(-2, 2), min_size=d, max_size=d), min_size=d, max_size=d),
    st.lists(st.fractions(-3, 3, max_denominator=4), min_size=2 * d, max_size=2 * d))))
def test_random_rational_middle_layer(args):
    """Any rational middle W (singular ones included), with rational b and h on the middle layer."""
    d, W, bh = args
    layers = [HyenaLayer(W=sym("W1", d, d).entries, b=sym("b1", 1, d).entries, h=sym("h1", 1, d).entries),
              HyenaLayer(W=[[Fraction(v, 2) for v in row] for row in W], b=[bh[:d]], h=[bh[d:]]),
              HyenaLayer(W=sym("W3", d, d).entries, b=sym("b3", 1, d).entries, h=sym("h3", 1, d).entries)]
    same(HyenaStack(1, d, tuple(layers)))


def test_column_passes_cover_the_nonzero_columns_once_with_independent_sets():
    rng = np.random.default_rng(3)
    for _ in range(30):
        d = int(rng.integers(1, 5))
        W = sympy.Matrix(rng.integers(-1, 2, (d, d)).tolist()) * sympy.Matrix(rng.integers(0, 2, (d, d)).tolist())
        sets = column_passes(W)
        flat = sorted(c for S in sets for c in S)
        assert flat == [c for c in range(d) if any(W[:, c])]
        assert all(W[:, list(S)].rank() == len(S) for S in sets)
    assert column_passes(sympy.Matrix([[1, 2], [2, 4]])) == ((0,), (1,))
    assert column_passes(sympy.zeros(2, 2)) == ()


def test_the_claim_holds_and_meets_the_claimed_rows():
    (v,) = verify(ONE)
    assert v.verdict == "holds"
    got = {b.quantity: b for b in v.bounds}
    assert {q: got[q].verdict for q in ("L", "N'", "d'")} == {"L": "met", "N'": "met", "d'": "met"}
    rec = {r["quantity"]: r for r in v.as_dict()["lower_bounds"]}
    assert (rec["N'"]["built"], rec["N'"]["claimed"], rec["N'"]["lower_bound"]) == (2, 2, 2)  # one row cannot
    assert rec["N'"]["lower_bound_at"] == {"L": 2, "d": 1}
    assert rec["L"]["built"] < rec["L"]["claimed"]


def test_bad_input_is_refused_naming_the_parameter():
    d = 2
    with pytest.raises(HypothesisError, match="model.N"):
        baseconv_on_two_rows(HyenaStack(2, 1, (HyenaLayer([[1]], [[0]], [[1]]),)))
    symbolic_middle = model([sym("W2", d, d).entries], d, 3)
    with pytest.raises(HypothesisError, match=r"model.layers\[1\].W: .*rational"):
        baseconv_on_two_rows(symbolic_middle)
    with pytest.raises(HypothesisError, match="model: expected a HyenaStack"):
        baseconv_on_two_rows("not a model")
