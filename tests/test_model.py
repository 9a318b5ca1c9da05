"""The Stack model: validation of shapes and modes, signatures, composition (Lemma H.11)."""
import numpy as np
import pytest

from symconv import HypothesisError, Layer, Stack, compose
from symconv.constructions.primitives import identity
from symconv.constructions.random import random_stack
from symconv.constructions.shifts import shift_down


def layer(d=1, **kw):
    args = dict(W=np.zeros((d, d)), h=np.ones((1, d)), b1=[[1]], b2=[[0]])
    args.update(kw)
    return Layer(**args)


def test_signature_counts_layers_and_internal_shape():
    s = Stack(4, 2, (layer(3), layer(3)), N_int=6, d_int=3)
    assert (s.signature.N, s.signature.L, s.signature.d, s.signature.N_int, s.signature.d_int) == (4, 2, 2, 6, 3)
    assert str(s.signature) == "(4, 2, 2, 6, 3)"


@pytest.mark.parametrize("kw, name", [
    (dict(conv="fft"), "conv"),
    (dict(W=np.zeros((2, 3))), "W"),
    (dict(h=np.ones((1, 2))), "h"),
    (dict(b1=np.ones((4, 3))), "b1"),
    (dict(b2=np.ones((4, 2, 1))), "b2"),
    (dict(h=np.array([["a"]])), "h"),
])
def test_bad_layer_parameters_name_the_parameter(kw, name):
    with pytest.raises(HypothesisError, match=rf"^{name}"):
        layer(**kw)


def test_filter_longer_than_internal_length_is_an_error_not_a_truncation():
    with pytest.raises(HypothesisError, match=r"layers\[0\]\.h: filter length 5 exceeds N' = 4"):
        Stack(4, 1, (layer(h=np.ones((5, 1))),))


def test_bias_rows_must_match_internal_length():
    with pytest.raises(HypothesisError, match=r"layers\[0\]\.b1"):
        Stack(4, 1, (layer(b1=np.ones((3, 1))),))


def test_stack_sizes_are_checked():
    with pytest.raises(HypothesisError, match="N_int"):
        Stack(4, 1, (), N_int=3)
    with pytest.raises(HypothesisError, match="d_int"):
        Stack(4, 2, (), d_int=1)
    with pytest.raises(HypothesisError, match="N:"):
        Stack(0, 1, ())
    with pytest.raises(HypothesisError, match=r"layers\[1\]\.W"):
        Stack(4, 1, (layer(1), layer(2)))


def test_compose_adds_layer_counts_and_checks_shapes():
    f, g = random_stack(5, 1, 2, seed=1), random_stack(5, 1, 3, seed=2)
    assert compose(f, g).L == 5
    assert (f >> g).L == 5
    with pytest.raises(HypothesisError, match=r"stacks\[1\]\.N"):
        compose(f, identity(4, 1))
    with pytest.raises(HypothesisError, match="reset"):
        compose(f, g, reset="sometimes")


def test_compose_reset_auto_adds_a_layer_only_where_padding_can_leak():
    causal_f = random_stack(3, 1, 1, N_int=5, seed=1)
    causal_g = random_stack(3, 1, 1, N_int=5, seed=2)
    circ_g = random_stack(3, 1, 1, N_int=5, conv="circular", seed=2)
    assert compose(causal_f, causal_g, reset="auto").L == 2
    assert compose(causal_f, circ_g, reset="auto").L == 3
    wide_f = random_stack(3, 1, 1, d_int=2, seed=1)
    wide_g = random_stack(3, 1, 1, d_int=2, seed=2)
    assert compose(wide_f, wide_g, reset="auto").L == 3


def test_parameters_are_read_only():
    s = shift_down(4, 1)
    with pytest.raises(ValueError):
        s.layers[0].h[0, 0] = 5


# ----------------------------------------------------------------- inputs of every kind, short reprs


def test_layer_accepts_blocks_sympy_matrices_and_numpy_arrays_alike():
    import sympy
    from symconv.blocks import from_array, ones as bones
    from symconv.model import Layer

    ref = Layer(W=np.eye(2), h=np.ones((3, 2)), b1=np.ones((1, 2)), b2=np.zeros((1, 2)))
    for h in (from_array(np.ones((3, 2), dtype=int)), sympy.Matrix(np.ones((3, 2), dtype=int)),
              [[1, 1]] * 3, np.ones((3, 2))):
        layer = Layer(W=sympy.eye(2), h=h, b1=bones(1, 2), b2=[[0, 0]])
        assert layer.h.shape == ref.h.shape and (layer.h == 1).all()


def test_a_stack_repr_is_one_short_line_even_for_hundreds_of_layers():
    from symconv.model import Layer, Stack

    layer = Layer(W=[[1]], h=np.ones((64, 1)), b1=np.ones((64, 1)), b2=[[0]], conv="circular")
    s = Stack(64, 1, (layer,) * 453, name="deep")
    text = repr(s)
    assert text == "Stack((64, 453, 1, 64, 1), circular, 'deep')"
    assert "\n" not in repr(layer) and len(repr(layer)) < 120
