"""Prop. H.12: BaseConv ⇄ Hyena, as printed and corrected.

Hyena → BaseConv.  :func:`baseconv_from_hyena` simulates an (N, L, d, N', d)
Hyena model (causal filters) with 3L + 1 BaseConv layers on an internal state
of M = N' + N rows, which needs M ≥ 3N (N' ≥ 2N).  Rows are used in three
slots of N: A = [0, N), B = [N, 2N), C = [2N, 3N); the rest stays zero.

* prep (causal): filter 1 + X^N, gate 1 on A ∪ B: (u | u | 0), i.e. z⁰ in A, u in B;
* for each layer ℓ (from the second on, first a swap, circular: filter
  X^N + X^{M−N}, gate 1 on A ∪ B, turning (u | z | 0) into (z | u | 0)):

  - conv (causal): filter 1 + X^{2N}·h^ℓ, gate 1 on B ∪ C: (0 | u | h^ℓ * z), since
    h^ℓ·z·X^{2N} starts at row 2N and h^ℓ·u·X^{2N} at row 3N;
  - gate (circular): filter X^{M−N} (every row up by N, cyclically), W = W^ℓ,
    b1 = (1^N | b^ℓ | 0): slot A gets 1 ⊙ u, slot B gets (u·W^ℓ + b^ℓ) ⊙ (h^ℓ * z),
    slot C gets (c·W^ℓ) ⊙ 0, giving (u | z^ℓ | 0);

* final (circular): filter X^{M−N}, gate 1 on A: z^L comes up to rows [0, N).

The printed proof instead feeds (u | 0^{N'−N} | u) to remember_{N,N,N'−N,N'−N}
(Prop. H.10) once per layer; remember's gate p is a fixed parameter, so that
route can only use constant projections p^ℓ = b^ℓ, and H.10's hypothesis
n + m + s + t ≤ N'+N reads 2N' ≤ N' + N, i.e. N' = N.
:func:`baseconv_from_hyena_as_printed` builds it for that case (1 + 5L layers).

BaseConv → Hyena.  :func:`hyena_from_baseconv` turns each BaseConv layer
(W, h, b1, b2 = 0) into a one-layer Hyena model with projection (W, b1) and
filter h; chained (each projection reading its own input) they compute the
BaseConv model.  A nonzero b2 cannot be carried over: every Hyena layer maps a
zero input to zero, a BaseConv layer maps it to b1 ⊙ b2.

>>> from symconv.blocks import sym
>>> from symconv.hyena import HyenaLayer, HyenaStack, evaluate as hyena_eval
>>> from symconv.symbolic import evaluate
>>> m = HyenaStack(1, 1, (HyenaLayer([[1]], [[0]], [[1]]),), N_int=2)
>>> u = sym("u", 1)
>>> evaluate(baseconv_from_hyena(m), u).entries.tolist() == hyena_eval(m, u).entries.tolist()
True
"""
from __future__ import annotations

import numpy as np

from ..hyena import HyenaLayer, HyenaStack
from ..model import HypothesisError, Layer, Stack
from .params import mask
from .remember import remember_as_printed

__all__ = ["baseconv_from_hyena", "baseconv_from_hyena_as_printed", "hyena_from_baseconv", "prep_layer"]


def _obj(shape, *like: np.ndarray) -> np.ndarray:
    """Zeros of ``shape``: an object array when any of ``like`` holds objects, else float64."""
    if any(a.dtype == object for a in like) or not like:
        return np.zeros(shape, dtype=int).astype(object)
    return np.zeros(shape, dtype=np.float64)


def _rows(a: np.ndarray, N: int, d: int) -> np.ndarray:
    """The first N rows of a parameter with 1 or ≥ N rows (1 or d columns), as an N×d array."""
    return np.broadcast_to(a if a.shape[0] == 1 else a[:N], (N, d)).copy()


def taps(offsets: dict, d: int) -> np.ndarray:
    """The filter Σ c·X^k from {k: c} as an integer (max k + 1)×d array."""
    h = np.zeros((max(offsets) + 1, d), dtype=np.int64)
    for k, c in offsets.items():
        h[k, :] = c
    return h


def _check_model(model: HyenaStack) -> None:
    if not isinstance(model, HyenaStack):
        raise HypothesisError(f"model: expected a HyenaStack, got {type(model).__name__}")
    if model.d_int != model.d:
        raise HypothesisError(f"model.d_int: Prop. H.12 takes an (N, L, d, N', d) Hyena model, got d' = {model.d_int}")
    for i, l in enumerate(model.layers):
        if l.conv != "causal":
            raise HypothesisError(f"model.layers[{i}].conv: Prop. H.12's Hyena filters are causal, got {l.conv!r}")
    if model.L < 1:
        raise HypothesisError("model: needs at least one layer (L >= 1)")


def _gate_layer(W, h, b1, conv, label) -> Layer:
    return Layer(W=W, h=h, b1=b1, b2=[[0]], conv=conv, label=label)


def prep_layer(N: int, M: int, d: int, gap: int | None = None) -> Layer:
    """One causal layer (u | 0 … ) ↦ (u | 0^{gap−N} | u | 0…): filter 1 + X^gap (gap defaults to N)."""
    gap = N if gap is None else gap
    keep = np.zeros((M, 1), dtype=int)
    keep[: gap + N, 0] = 1
    return _gate_layer(_obj((d, d)), taps({0: 1, gap: 1}, d), keep, "causal", f"u + X^{gap}·u")


def baseconv_from_hyena(model: HyenaStack, N_int: int | None = None) -> Stack:
    """Prop. H.12 (Hyena → BaseConv), corrected: 3L + 1 layers on N' + N rows, N' ≥ 2N.

    >>> from symconv.hyena import HyenaLayer, HyenaStack
    >>> m = HyenaStack(2, 1, (HyenaLayer([[1]], [[0]], [[1]]),) * 2, N_int=4)
    >>> baseconv_from_hyena(m).signature
    Signature(N=2, L=7, d=1, N_int=6, d_int=1)
    """
    _check_model(model)
    N, d = model.N, model.d
    M = model.N_int + N if N_int is None else N_int
    if not isinstance(M, (int, np.integer)) or M < 3 * N:
        raise HypothesisError(
            f"N_int: the simulation needs an internal length N' + N >= 3N (N' >= 2N), got {M} for N = {N}"
        )
    zero_W = _obj((d, d))
    up = taps({M - N: 1}, d)
    layers = [prep_layer(N, M, d)]
    for ell, layer in enumerate(model.layers, start=1):
        if ell > 1:
            layers.append(_gate_layer(zero_W, taps({N: 1, M - N: 1}, d), mask(M, (0, 2 * N)), "circular",
                                      f"swap (u | z) -> (z | u), layer {ell}"))
        g = _obj((3 * N, d), layer.h)
        g[0, :] = 1
        g[2 * N: 3 * N, :] = _pad(layer.h[:N], N, d)
        layers.append(_gate_layer(zero_W, g, mask(M, (N, 3 * N)), "causal", f"(0 | u | h^{ell} * z)"))
        b1 = _obj((M, d), layer.b)
        b1[:N, :] = 1
        b1[N: 2 * N, :] = _rows(layer.b, N, d)
        layers.append(_gate_layer(layer.W, up, b1, "circular", f"(1 | b^{ell} | 0) + z·W^{ell} gates X^(M-N) ⊛ z"))
    layers.append(_gate_layer(zero_W, up, mask(M, (0, N)), "circular", "read-out: slot B up to rows [0, N)"))
    return Stack(N, d, tuple(layers), M, d, name=f"BaseConv simulating {model.name or 'Hyena'}")


def _pad(h: np.ndarray, N: int, d: int) -> np.ndarray:
    out = _obj((N, d), h)
    out[: h.shape[0], :] = h
    return out


def baseconv_from_hyena_as_printed(model: HyenaStack, shift_up: str = "H.8") -> Stack:
    """Prop. H.12's printed route: a prep layer, then remember_{N,N,N'−N,N'−N} per layer.

    Only for constant projections (every W^ℓ = 0, p^ℓ = b^ℓ, N'×d), since remember's
    gate is a parameter; remember's own hypothesis then forces N' = N.

    >>> from symconv.hyena import HyenaLayer, HyenaStack
    >>> m = HyenaStack(2, 1, (HyenaLayer([[0]], [[1]], [[1]]),))
    >>> baseconv_from_hyena_as_printed(m).signature
    Signature(N=2, L=6, d=1, N_int=4, d_int=1)
    """
    _check_model(model)
    N, d, Np = model.N, model.d, model.N_int
    for i, l in enumerate(model.layers):
        if any(v != 0 for v in l.W.flat):
            raise HypothesisError(
                f"model.layers[{i}].W: the printed route passes p^ℓ to remember as a fixed gate, "
                "so it needs constant projections (W^ℓ = 0)"
            )
    M = Np + N
    layers = [prep_layer(N, M, d, gap=Np)]
    for l in model.layers:
        h = _pad(l.h[:N], N, d)
        p = _rows(l.b, Np, d)
        layers.extend(remember_as_printed(M, N, N, Np - N, Np - N, h, p, d, shift_up=shift_up).layers)
    return Stack(N, d, tuple(layers), M, d, name="BaseConv simulating Hyena (as printed)")


def hyena_from_baseconv(stack: Stack, drop_b2: bool = False) -> list[HyenaStack]:
    """Prop. H.12 (BaseConv → Hyena): one one-layer Hyena model per BaseConv layer.

    Layer (W, h, b1, b2) becomes projection (W, b1) and filter h; this needs b2 = 0
    (``drop_b2=True`` drops it anyway, as the printed proof does).

    >>> from symconv.constructions.shifts import shift_down
    >>> len(hyena_from_baseconv(shift_down(3, 1)))
    1
    """
    if not isinstance(stack, Stack):
        raise HypothesisError(f"stack: expected a Stack, got {type(stack).__name__}")
    if (stack.N_int, stack.d_int) != (stack.N, stack.d):
        raise HypothesisError(
            f"stack: Prop. H.12's converse takes a model with N' = N and d' = d, got {stack.signature}"
        )
    out = []
    for i, l in enumerate(stack.layers):
        if not drop_b2 and any(v != 0 for v in l.b2.flat):
            raise HypothesisError(
                f"stack.layers[{i}].b2: a Hyena layer has no bias inside the convolution "
                "(it maps 0 to 0), so the simulation needs b2 = 0"
            )
        hl = HyenaLayer(W=l.W, b=l.b1, h=l.h, conv=l.conv, label=f"layer {i + 1}")
        out.append(HyenaStack(stack.N, stack.d, (hl,), name=f"Hyena for layer {i + 1}"))
    return out
