"""Prop. H.8: shift_down and shift_up, written once with symbolic sizes.

``shift_down(y, s)`` moves every channel down by s rows (zeros enter at the
top): one causal layer BaseConv(y, 0, e_s, 1, 0), since e_s(X)·y(X) = X^s·y(X).

``shift_up(y, s)`` moves every channel up by s rows (zeros enter at the
bottom).  The paper's route is three layers: a circular convolution with e_0
said to reverse the sequence, shift_down, and the same convolution again
(:func:`shift_up_printed_layers`, under either reading of ⊛).  A construction
that does compute shift_up is one circular layer with filter e_{N−s} (a cyclic
shift up by s) masked by (1^{N−s} | 0^s) (:func:`shift_up_layer`).  No causal
stack of any depth or internal size computes shift_up for s ≥ 1: output row 0
would have to depend on input row s (see :mod:`symconv.dependency`).

Each construction is a function of the sizes returning block-algebra layers
(:class:`~symconv.parametric.check.PLayer`); the sizes may be symbols (the
all-sizes proofs) or integers, and the concrete stacks below are their
instantiations.

>>> from symconv.blocks import sym
>>> from symconv.symbolic import evaluate
>>> evaluate(shift_up(3, 1), sym("y", 3)).entries[:, 0].tolist()
[y[1,0], y[2,0], 0]
"""
from __future__ import annotations

from ..model import HypothesisError, Stack
from ..parametric.algebra import X, pones, pzeros
from ..parametric.check import PLayer, stack_at
from ..parametric.linear import Lin


def shift_hypothesis(N, s):
    """Prop. H.8's hypothesis 0 <= s < N (s >= 0 is the size's least value), as data.

    >>> from symconv.parametric import size
    >>> shift_hypothesis(size("N"), size("s")).text
    's < N'
    """
    from ..hypotheses import Hypothesis
    from ..parametric.linear import lin

    return Hypothesis(lin(s) < lin(N))


def _check_shift(N: int, s: int) -> None:
    if isinstance(s, bool) or not isinstance(s, int) or s < 0:
        raise HypothesisError(f"s: the shift must be a non-negative integer, got {s!r}")
    if isinstance(N, bool) or not isinstance(N, int) or N < 1:
        raise HypothesisError(f"N: the length must be a positive integer, got {N!r}")
    if s >= N:
        raise HypothesisError(f"s: shift s = {s} must be below N = {N} (hypothesis 0 <= s < N)")


def shift_down_layer(N: Lin | int, s: Lin | int) -> PLayer:
    """BaseConv(y, 0, e_s, 1, 0): e_s(X)·y(X) = X^s·y(X), cut below X^N."""
    return PLayer(X**s, 1, label="e_s * y")


def shift_up_layer(N: Lin | int, s: Lin | int) -> PLayer:
    """One circular layer (1^{N−s} | 0^s) ⊙ (e_{N−s} ⊛ y): a cyclic shift up by s, masked."""
    return PLayer(X**(N - s), pones(N - s) | pzeros(s), conv="circular", label="(1^{N-s} | 0^s) ⊙ (e_{N-s} ⊛ y)")


def shift_up_printed_layers(N: Lin | int, s: Lin | int, circ: str = "circular") -> tuple:
    """The paper's three layers for shift_up, literally: (⊛ e_0), shift_down(s), (⊛ e_0).

    ``circ`` is the convolution used for the paper's ⊛ (its definition, equation 4,
    is not in the parts we have).  The layers come from the printed route of
    :func:`symconv.parametric.printed.shift_up_route` (the one source, which the
    repair search edits).
    """
    from ..parametric.printed import shift_up_route

    return tuple(l.player(N) for l in shift_up_route({"N": N, "s": s}, circ).layers)


def shift_down(N: int, s: int, d: int = 1) -> Stack:
    """One causal layer: out[i] = y[i − s] for i ≥ s, 0 above (Prop. H.8)."""
    _check_shift(N, s)
    return stack_at((shift_down_layer(N, s),), N, N, d=d, name=f"shift_down(s={s})")


def shift_up_as_printed(N: int, s: int, d: int = 1, circ: str = "circular") -> Stack:
    """The paper's three layers for shift_up, literally (see :func:`shift_up_printed_layers`)."""
    _check_shift(N, s)
    if circ not in ("causal", "circular"):
        raise HypothesisError(f"circ: expected 'causal' or 'circular', got {circ!r}")
    return stack_at(shift_up_printed_layers(N, s, circ), N, N, d=d, name=f"shift_up as printed (⊛={circ})")


def shift_up(N: int, s: int, d: int = 1) -> Stack:
    """One circular layer: out[i] = y[i + s] for i < N − s, 0 below."""
    _check_shift(N, s)
    return stack_at((shift_up_layer(N, s),), N, N, d=d, name=f"shift_up(s={s})")
