"""Theorem H.21 compiler: the channel-mix multiplication layer (d > 1) and the gapped layout."""
import numpy as np
import pytest

from symconv.blocks import from_array, sym
from symconv.circuits import CircuitBuilder, det3_circuit, expected_block, layering, product_circuit, random_circuit
from symconv.claims import Instance, check_instance
from symconv.constructions.arithmetic import _channel_mix, compile_arithmetic
from symconv.model import HypothesisError


def check(c, n, d, layout):
    """The compiled stack's exact output against the circuit's polynomials (None when it holds)."""
    cc = compile_arithmetic(c, n, d, layout=layout)
    u = sym("u", n, d)
    failure, _ = check_instance(Instance(u, cc.stack, expected_block(c, u)), {})
    return failure, cc


def test_xy_with_two_channels_is_one_layer():
    failure, cc = check(product_circuit(2), 1, 2, "tight")
    assert failure is None, failure.describe()
    sig = cc.stack.signature
    assert (sig.L, sig.d, sig.d_int) == (1, 2, 2)
    (layer,) = cc.stack.layers
    assert layer.W.tolist() == [[0, 0], [1, 0]]        # channel 1 read into channel 0
    assert compile_arithmetic(product_circuit(2), 1, 2).stack.signature.L > 1   # the proof layout: more


def _same_row_circuits():
    b = CircuitBuilder(4)                                # outputs in place, a carried input beside them
    yield b.build([b.mul(0, 1), 1, b.mul(3, 2), 3]), 2, 2, True
    b = CircuitBuilder(4)                                # a host entry with no product (row 1): dropped later
    yield b.build([b.mul(0, 1)]), 2, 2, False
    b = CircuitBuilder(6)                                # d = 3: a carried channel, then more levels
    p0, p1 = b.mul(0, 1), b.mul(4, 3)
    q = b.linear({p0: 1, 2: 2, 5: -1}, c0=1)
    yield b.build([b.mul(q, p1), p0, 2]), 2, 3, False
    yield product_circuit(8), 2, 4, False               # two host channels per row


@pytest.mark.parametrize("c,n,d,one_layer", list(_same_row_circuits()))
def test_same_row_products_use_the_channel_mix_and_are_exact(c, n, d, one_layer):
    failure, cc = check(c, n, d, "tight")
    assert failure is None, failure.describe()
    assert "channel mix" in cc.stack.layers[0].label
    assert (cc.stack.signature.L == 1) == one_layer


def test_channel_mix_refuses_what_it_cannot_do():
    b = CircuitBuilder(4)
    c = b.build([b.mul(0, 2)])                           # u[0,0]·u[1,0]: two rows
    assert _channel_mix(layering(c).layers[0], 2, 2) is None
    b = CircuitBuilder(4)
    c = b.build([b.mul(0, 1), b.mul(2, 2)])              # a square: one channel
    assert _channel_mix(layering(c).layers[0], 2, 2) is None
    b = CircuitBuilder(4)
    c = b.build([b.mul(0, 1), b.mul(2, 3), 1, 2])        # carried wires in both channels: no host left
    assert _channel_mix(layering(c).layers[0], 2, 2) is None
    failure, cc = check(c, 2, 2, "tight")                # still compiled (channel blocks), and exact
    assert failure is None and "channel mix" not in cc.stack.layers[0].label


@pytest.mark.parametrize("c,n,d", [
    (random_circuit(4, 4, 2, seed=2, n_outputs=4, sparse=True), 4, 1),
    (random_circuit(4, 4, 3, seed=1, n_outputs=4), 4, 1),
    (random_circuit(6, 6, 3, seed=0, n_outputs=3, sparse=True), 3, 2),
    (det3_circuit(), 9, 1),
])
def test_gapped_layout_is_exact(c, n, d):
    failure, cc = check(c, n, d, "gapped")
    assert failure is None, failure.describe()
    labels = [l.label for l in cc.stack.layers]
    assert any("on rows p ⊙ p +" in lab for lab in labels)   # the v1 | v3 | v2 multiplication layer
    assert cc.stack.signature.d_int == d


def test_gapped_layout_drops_copy_moves_on_a_random_circuit():
    """Where the first pass's use counts hold, the gaps make the copy moves and placing moves rarer."""
    c = random_circuit(16, 16, 8, seed=24, n_outputs=4, sparse=True)
    count = {}
    for layout in ("tight", "gapped"):
        labels = [l.label for l in compile_arithmetic(c, 16, 1, layout=layout).stack.layers]
        count[layout] = sum("copies: move" in lab or "place" in lab for lab in labels)
    assert count["gapped"] < count["tight"]
    with pytest.raises(HypothesisError, match="layout"):
        compile_arithmetic(c, 16, 1, linear="H.20", layout="gapped")


def test_in_place_products_on_the_upper_row_reach_the_degree_bound():
    """A balanced product tree multiplied in place onto the upper operands (tap −T): L = ⌈log₂ k⌉ layers,
    equal to the degree certificate's lower bound, and no move at the end (the product sits in row 0)."""
    from symconv.certificates.degree import DegreeCertificate

    for k in (2, 8):
        failure, cc = check(product_circuit(k), k, 1, "tight")
        assert failure is None, failure.describe()
        u = sym("u", k, 1)
        target = np.zeros((k, 1), dtype=object)
        target[...] = 0
        target[0, 0] = np.prod(u.entries[:, 0])
        lower = DegreeCertificate.of(u, from_array(target)).lower
        assert cc.stack.signature.L == lower == (k - 1).bit_length()
        assert all("in place (T = -" in l.label for l in cc.stack.layers)
    # a carried wire whose row T below is occupied keeps the products on the lower rows (or routes them)
    b = CircuitBuilder(4)
    c = b.build([b.linear({b.mul(0, 1): 1, 3: 1}), 2])
    failure, cc = check(c, 4, 1, "tight")
    assert failure is None, failure.describe()
