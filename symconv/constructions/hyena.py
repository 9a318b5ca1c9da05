"""Prop. H.12: BaseConv ⇄ Hyena, as printed and corrected.

Hyena → BaseConv.  :func:`baseconv_from_hyena` simulates an (N, L, d, N', d)
Hyena model (causal filters) with 3L + 1 BaseConv layers on an internal state
of M = N' + N rows, which needs M ≥ 3N (N' ≥ 2N); for N ≤ N' < 2N it runs on
3N rows (:func:`hyena_rows`), more than the N' + N the paper claims, and
whether N' + N rows can do within 5L layers is open.  Rows are used in three
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

from typing import TYPE_CHECKING

import numpy as np

from ..hyena import HyenaLayer, HyenaStack
from ..model import HypothesisError, Layer, Stack
from ..parametric.algebra import X, add, fblock, pmatmul, pones, psym, pzeros
from ..parametric.check import PLayer, stack_at
from .remember import remember_as_printed

if TYPE_CHECKING:  # pragma: no cover
    from ..parametric.check import Induction

__all__ = ["baseconv_from_hyena", "baseconv_from_hyena_as_printed", "hyena_from_baseconv", "hyena_chain_induction",
           "hyena_induction", "hyena_route", "hyena_rows", "prep_layer"]


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


def hyena_rows(N: int, Np: int) -> int:
    """Rows symconv's route uses for an (N, L, d, N', d) Hyena model: N' + N, or 3N when N' < 2N.

    Prop. H.12 claims N' + N; for N <= N' < 2N that is fewer than the route needs, and
    whether any 5L-layer model on N' + N rows exists is open (see proofs/h12_hyena.py).

    >>> hyena_rows(4, 8), hyena_rows(4, 5)
    (12, 12)
    """
    for name, v in (("N", N), ("Np", Np)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise HypothesisError(f"{name}: a positive integer size, got {v!r}")
    if Np < N:
        raise HypothesisError(f"Np: a Hyena model keeps N' >= N rows, got N' = {Np} < N = {N}")
    return int(max(Np + N, 3 * N))


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


def prep_player(N, M) -> PLayer:
    """(u | 0…) ↦ (u | u | 0…): filter 1 + X^N, gate 1 on A ∪ B (sizes symbols or integers)."""
    return PLayer(1 + X**N, pones(2 * N) | pzeros(M - 2 * N), label="prep: (u | u | 0)")


def swap_player(N, M) -> PLayer:
    """(u | z | 0) ↦ (z | u | 0): circular filter X^N + X^{M−N}, gate 1 on A ∪ B."""
    return PLayer(X**N + X**(M - N), pones(2 * N) | pzeros(M - 2 * N), conv="circular", label="swap")


def conv_player(N, M, ell) -> PLayer:
    """(z | u | 0) ↦ (0 | u | h^ℓ * z): filter 1 + X^{2N}·h^ℓ (h^ℓ the named block ``h<ℓ>``), gate 1 on B ∪ C."""
    return PLayer(1 + fblock(f"h{ell}", N, 2 * N), pzeros(N) | pones(2 * N) | pzeros(M - 3 * N),
                  label=f"(0 | u | h^{ell} * z)")


def gate_player(N, M, ell) -> PLayer:
    """(0 | u | h*z) ↦ (u | (u·W^ℓ + b^ℓ) ⊙ (h^ℓ * z) | 0): roll up by N, gate z·W^ℓ + (1 | b^ℓ | 0)."""
    return PLayer(X**(M - N), pones(N) | psym(f"b{ell}", N) | pzeros(M - 2 * N), conv="circular", W=f"W{ell}",
                  label=f"(1 | b^{ell} | 0) + z·W^{ell} gates X^(M-N) ⊛ z")


def readout_player(N, M) -> PLayer:
    """(u | z | 0) ↦ (z | 0 …): roll up by N, gate 1 on A."""
    return PLayer(X**(M - N), pones(N) | pzeros(M - N), conv="circular", label="read-out: slot B up to rows [0, N)")


def hyena_route(N, M, L: int) -> tuple:
    """The 3L + 1 layers of :func:`baseconv_from_hyena` as block-algebra layers (the one source)."""
    layers = [prep_player(N, M)]
    for ell in range(1, L + 1):
        if ell > 1:
            layers.append(swap_player(N, M))
        layers += [conv_player(N, M, ell), gate_player(N, M, ell)]
    return tuple(layers + [readout_player(N, M)])


def baseconv_from_hyena(model: HyenaStack, N_int: int | None = None) -> Stack:
    """Prop. H.12 (Hyena → BaseConv), corrected: 3L + 1 layers on N' + N rows, N' ≥ 2N.

    The layers are :func:`hyena_route` instantiated with the model's W^ℓ, b^ℓ, h^ℓ.

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
    values = {}
    for ell, layer in enumerate(model.layers, start=1):
        values[f"W{ell}"] = layer.W
        values[f"b{ell}"] = _rows(layer.b, N, d)
        values[f"h{ell}"] = _pad(layer.h[:N], N, d)
    return stack_at(hyena_route(N, M, model.L), N, M, d=d, values=values,
                    name=f"BaseConv simulating {model.name or 'Hyena'}")


def hyena_induction(N, Np) -> "Induction":
    """The all-sizes proof of :func:`baseconv_from_hyena`, by induction on the number of layers.

    Each part is one block of the route on a generic state, for every N and N' >= 2N:
    the prep layer gives (u | u | 0); the first Hyena layer maps (u | u | 0) to
    (u | z¹ | 0); any later layer ℓ maps (u | z | 0), z arbitrary, to
    (u | (u·W^ℓ + b^ℓ) ⊙ (h^ℓ * z) | 0); the read-out brings slot B up.  Together
    they are the route for every L.
    """
    from ..parametric.algebra import causal, hadamard, multiply
    from ..parametric.check import Description, Induction, base_facts

    M = Np + N
    u, z = psym("u", N), psym("z", N)
    f0 = base_facts({"N": 1})

    def layer_out(ell, state):  # the Hyena layer: (u·W + b) ⊙ (h * z), N rows
        conv = causal(multiply(fblock(f"h{ell}", N), state, f0), N, f0)
        gate = add(pmatmul(u, f"W{ell}"), psym(f"b{ell}", N))
        return hadamard(gate, conv, f0)

    rest = pzeros(M - 2 * N)
    prep = Description(u, (prep_player(N, M),), u | u | rest, N_int=M)
    first = Description(u | u | rest, (conv_player(N, M, 1), gate_player(N, M, 1)),
                        u | layer_out(1, u) | rest, N_int=M)
    later = Description(u | z | rest, (swap_player(N, M), conv_player(N, M, 2), gate_player(N, M, 2)),
                        u | layer_out(2, z) | rest, N_int=M)
    read = Description(u | z | rest, (readout_player(N, M),), z, N_int=M)
    return Induction((("prep: (u | u | 0)", prep), ("layer 1: (u | u | 0) -> (u | z^1 | 0)", first),
                      ("layer l >= 2: (u | z | 0) -> (u | z^l | 0), any z", later),
                      ("read-out: (u | z | 0) -> z", read)), note="by induction on L")


def hyena_chain_induction(N) -> "Induction":
    """All-sizes proof that one BaseConv layer (W, h, b1, b2 = 0) is the one-layer Hyena model
    with projection (W, b1) and filter h, on an arbitrary input z: by induction, a chain of L
    such Hyena models computes an L-layer BaseConv model with b2 = 0 (Prop. H.12, converse)."""
    from ..parametric.algebra import causal, hadamard, multiply
    from ..parametric.check import Description, Induction, base_facts

    z, f0 = psym("z", N), base_facts({"N": 1})
    layer = PLayer(fblock("h", N), psym("c", N), 0, W="W", label="BaseConv layer (W, h, b1 = c, b2 = 0)")
    hyena = hadamard(add(pmatmul(z, "W"), psym("c", N)), causal(multiply(fblock("h", N), z, f0), N, f0), f0)
    return Induction((("layer l: BaseConv(z) = Hyena(z), any z", Description(z, (layer,), hyena)),),
                     note="by induction on L")


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
