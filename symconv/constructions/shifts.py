"""Prop. H.8: shift_down and shift_up.

``shift_down(y, s)`` moves every channel down by s rows (zeros enter at the
top): one causal layer BaseConv(y, 0, e_s, 1, 0), since e_s(X)·y(X) = X^s·y(X).

``shift_up(y, s)`` moves every channel up by s rows (zeros enter at the
bottom).  The paper's route is three layers: a circular convolution with e_0
said to reverse the sequence, shift_down, and the same convolution again.
:func:`shift_up_as_printed` builds exactly that, under either reading of ⊛;
:func:`shift_up` is a construction that does compute shift_up: one circular
layer with filter e_{N−s} (a cyclic shift up by s) masked by (1^{N−s} | 0^s).
No causal stack of any depth or internal size computes shift_up for s ≥ 1:
output row 0 would have to depend on input row s
(see :mod:`symconv.dependency`).

>>> from symconv.blocks import sym
>>> from symconv.symbolic import evaluate
>>> evaluate(shift_up(3, 1), sym("y", 3)).entries[:, 0].tolist()
[y[1,0], y[2,0], 0]
"""
from __future__ import annotations

from ..model import HypothesisError, Stack
from .params import gate_layer, mask, unit_filter


def _check_shift(N: int, s: int) -> None:
    if not isinstance(s, int) or s < 0:
        raise HypothesisError(f"s: the shift must be a non-negative integer, got {s!r}")
    if s >= N:
        raise HypothesisError(f"s: shift s = {s} must be below N = {N} (hypothesis 0 <= s < N)")


def shift_down(N: int, s: int, d: int = 1) -> Stack:
    """One causal layer: out[i] = y[i − s] for i ≥ s, 0 above (Prop. H.8)."""
    _check_shift(N, s)
    layer = gate_layer(unit_filter(s, d), [[1]], 0, d=d, label=f"e_{s} * y")
    return Stack(N, d, (layer,), name=f"shift_down(s={s})")


def shift_up_as_printed(N: int, s: int, d: int = 1, circ: str = "circular") -> Stack:
    """The paper's three layers for shift_up, literally: (⊛ e_0), shift_down(s), (⊛ e_0).

    ``circ`` is the convolution mode used for the paper's ⊛ (the definition,
    equation 4, is not in the parts we have).
    """
    _check_shift(N, s)
    rev = gate_layer(unit_filter(0, d), [[1]], 0, conv=circ, d=d, label="y ⊛ e_0 (claimed reversal)")
    down = shift_down(N, s, d).layers[0]
    return Stack(N, d, (rev, down, rev), name=f"shift_up as printed (⊛={circ})")


def shift_up(N: int, s: int, d: int = 1) -> Stack:
    """One circular layer: out[i] = y[i + s] for i < N − s, 0 below."""
    _check_shift(N, s)
    k = (N - s) % N
    layer = gate_layer(unit_filter(k, d), mask(N, (0, N - s)), 0, conv="circular", d=d,
                       label=f"(1^{N - s} | 0^{s}) ⊙ (e_{k} ⊛ y)")
    return Stack(N, d, (layer,), name=f"shift_up(s={s})")
