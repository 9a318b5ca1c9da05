"""Prop. H.12 at N = 4, N' < 2N on eight rows (symconv.constructions.hyena_eight_rows)."""
import itertools
from pathlib import Path

import numpy as np
import pytest
import sympy

from symconv import HypothesisError, Stack, sym, verify
from symconv.blocks import Block
from symconv.constructions.hyena_2n_rows import step_target
from symconv.constructions.hyena_eight_rows import (_step_channel, baseconv_on_eight_rows, linear_step,
                                                    step_matrix)
from symconv.hyena import HyenaLayer, HyenaStack, evaluate as hyena_eval
from symconv.registry import load_module
from symconv.symbolic import evaluate

H12 = load_module(Path(__file__).resolve().parent.parent / "proofs" / "h12_hyena.py")
FOUR = next(c for c in H12.CLAIMS if c.name == "Hyena -> BaseConv (N = 4, N' < 2N)")


def refused(h):
    h1, h2, h3 = h[1:]
    return (h[0] == 0 and any(h[1:])) or (h1 == h2 == 0 != h3) or (h2 == h3 == 0 != h1) or (h1 == h2 == h3 == h[0])


def test_the_grid_of_small_filters_handled_and_refused_exactly_as_documented():
    """Every filter with h0 in {1, -2, 3} and the other taps in {0, 1, -2, 3}: 171 steps, each the exact 8x8
    matrix blockdiag(I4, T_h) (including: nothing of u leaks into the bottom block); the 21 others refused."""
    done, refusals = 0, 0
    for h in itertools.product((1, -2, 3), (0, 1, -2, 3), (0, 1, -2, 3), (0, 1, -2, 3)):
        h = tuple(sympy.Integer(v) for v in h)
        if refused(h):
            with pytest.raises(HypothesisError, match="no linear step .* on 8 rows is known"):
                _step_channel(h, "h")
            refusals += 1
            continue
        layers = _step_channel(h, "h")
        assert len(layers) == (1 if not any(h[1:]) else 3)
        assert step_matrix(layers) == step_target(h)
        done += 1
    assert (done, refusals) == (171, 21)


def test_h0_zero_is_refused_naming_the_channel_and_layer():
    with pytest.raises(HypothesisError, match=r"h \(channel 1\) of layer 2: .*\(0, 1, 2, 3\)"):
        linear_step([(1, 2, 3, 5), (0, 1, 2, 3)], 2)
    assert len(linear_step([(0, 0, 0, 0)], 2)) == 1          # h = 0: the one-layer step


KINDS = {"invertible": [[1, 2], [0, 1]], "rank one": [[2, 3], [4, 6]], "diagonal": [[2, 0], [0, 3]]}
FILTERS = [(3, -2, 5, 1), (1, 2, 3, -1), (2, 0, 0, 0), (-2, 1, 3, 3)]


def model(kinds, d, Np=5):
    L = len(kinds) + 1
    layers = tuple(HyenaLayer(W=([row[:d] for row in KINDS[kinds[l]][:d]] if l < L - 1 else sym(f"W{l}", d, d).entries),
                              b=sym(f"b{l}", Np, d).entries,
                              h=[[FILTERS[(2 * l + c) % 4][t] for c in range(d)] for t in range(4)])
                   for l in range(L))
    return HyenaStack(4, d, layers, N_int=Np)


@pytest.mark.parametrize("kinds, d", [(("diagonal",), 1), (("invertible",), 2), (("rank one",), 2),
                                      (("invertible", "diagonal"), 1), (("diagonal", "invertible"), 2)])
def test_the_route_equals_the_hyena_model(kinds, d):
    m = model(list(kinds), d)
    stack = baseconv_on_eight_rows(m)
    u = sym("u", 4, d)
    got, want = evaluate(stack, u).entries, hyena_eval(m, u).entries
    assert [sympy.expand(a - b) for a, b in zip(got.flat, want.flat)] == [0] * (4 * d)
    assert (stack.N_int, stack.d_int) == (8, d)


def test_layer_counts_at_three_layer_steps():
    assert baseconv_on_eight_rows(model(["diagonal"] * 3, 1)).L <= 4 * 4 - 2
    assert baseconv_on_eight_rows(model(["invertible"] * 2, 2)).L == 5 * 3 - 3


def test_the_linear_step_keeps_u_with_channels_of_different_lengths():
    u, z = sym("u", 4, 2), sym("z", 4, 2)
    filters = [(3, -2, 5, 1), (2, 0, 0, 0)]
    st = Stack(8, 2, linear_step(filters, 2))
    out = evaluate(st, Block(np.concatenate([u.entries, z.entries]), "x")).entries
    for c, h in enumerate(filters):
        want = list(u.entries[:, c]) + [sum(h[k] * z.entries[i - k, c] for k in range(i + 1)) for i in range(4)]
        assert [sympy.expand(a - b) for a, b in zip(out[:, c], want)] == [0] * 8


def test_the_claim_holds_on_eight_rows():
    (v,) = verify(FOUR)
    assert v.verdict == "holds"
    rec = {r["quantity"]: r for r in v.as_dict()["lower_bounds"]}
    assert {q: rec[q]["verdict"] for q in ("L", "N'", "d'")} == {"L": "met", "N'": "met", "d'": "met"}
    assert rec["N'"]["built"] == 8 <= rec["N'"]["claimed"]


def test_bad_input():
    with pytest.raises(HypothesisError, match="model.N: the eight-row route is for N = 4"):
        baseconv_on_eight_rows(HyenaStack(3, 1, (HyenaLayer([[1]], [[0]], [[1]]),)))
    with pytest.raises(HypothesisError, match=r"model.layers\[0\].h: .*numeric"):
        baseconv_on_eight_rows(HyenaStack(4, 1, (HyenaLayer([[1]], [[0]], sym("h", 4, 1).entries),)))
    with pytest.raises(HypothesisError, match=r"h \(channel 0\): the eight-row step takes 4"):
        linear_step([(1, 2)], 2)
