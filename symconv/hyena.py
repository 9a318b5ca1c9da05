"""Hyena as a second model type, run by the same interpreters as BaseConv.

Working definition (DESIGN.md, as Prop. H.12 uses it): an (N, L, d, N', d')
Hyena model keeps an N'×d' state; the input u ∈ R^{N×d} is zero-padded into
its top-left corner (u₀) and z⁰ = u₀.  Layer ℓ computes

    z^ℓ = p^ℓ ⊙ (h^ℓ * z^{ℓ−1}),   p^ℓ = u₀·W^ℓ + b^ℓ,

so the gate is an affine map of the *original* input, row by row, and there is
no bias inside the convolution.  The output is the top-left N×d block.

A :class:`HyenaLayer` is data (W, b, h, conv mode).  Each interpreter runs it
with the BaseConv machinery it already has: the convolution h^ℓ * z is the
BaseConv layer ``(z·0 + 1) ⊙ (h * z + 0)`` and the projection is the BaseConv
layer ``(u₀·W + b) ⊙ (0 * u₀ + 1)``, so :func:`symconv.symbolic.apply_layer`
and :func:`symconv.numeric.prepare` / ``apply_prepared_layer`` do the work and
nothing about convolutions is written twice.

:func:`evaluate_nested` / :func:`run_nested` run a chain of models, each one's
output being the next one's input (so each projection reads its own input):
that is how the converse half of Prop. H.12 stacks "L Hyena layers".

>>> from symconv.blocks import sym
>>> one = HyenaLayer(W=[[0]], b=[[2]], h=[[1], [1]])
>>> evaluate(HyenaStack(2, 1, (one,)), sym("u", 2)).entries[:, 0].tolist()
[2*u[0,0], 2*u[0,0] + 2*u[1,0]]
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

import numpy as np

from . import numeric, symbolic
from .blocks import Block
from .model import HypothesisError, Layer, Signature, Stack, as_param

__all__ = ["HyenaLayer", "HyenaStack", "evaluate", "run_exact", "run", "evaluate_nested", "run_nested"]


@dataclass(frozen=True, eq=False)
class HyenaLayer:
    """One Hyena layer: gate ``u₀·W + b`` (W d'×d', b broadcast to N'×d'), filter h (K×d').

    >>> HyenaLayer(W=[[1]], b=[[0]], h=[[1]]).conv_layer().conv
    'causal'
    """

    W: Any
    b: Any
    h: Any
    conv: str = "causal"
    label: str = ""

    def __post_init__(self) -> None:
        for name in ("W", "b", "h"):
            object.__setattr__(self, name, as_param(getattr(self, name), name))
        self.conv_layer()  # shape and mode checks, with BaseConv's messages
        self.projection_layer()

    @property
    def d_int(self) -> int:
        return self.W.shape[0]

    def conv_layer(self) -> Layer:
        """The BaseConv layer computing h * z alone: (z·0 + 1) ⊙ (h * z + 0)."""
        d = self.W.shape[0]
        return Layer(W=np.zeros((d, d), dtype=int).astype(object), h=self.h, b1=[[1]], b2=[[0]],
                     conv=self.conv, label=self.label or "h * z")

    def projection_layer(self) -> Layer:
        """The BaseConv layer computing u₀·W + b alone: (u₀·W + b) ⊙ (0 * u₀ + 1)."""
        d = self.W.shape[0]
        return Layer(W=self.W, h=np.zeros((1, d), dtype=int).astype(object), b1=self.b, b2=[[1]],
                     label="u₀·W + b")

    def subs(self, values: Mapping[Any, Any]) -> "HyenaLayer":
        """Substitute sympy symbols in W, b and h."""
        from .model import _subs

        return replace(self, W=_subs(self.W, values), b=_subs(self.b, values), h=_subs(self.h, values))


@dataclass(frozen=True)
class HyenaStack:
    """L Hyena layers on an N'×d' state (``N_int``/``d_int`` default to N/d).

    >>> HyenaStack(4, 1, (HyenaLayer([[0]], [[1]], [[1]]),), N_int=6).signature
    Signature(N=4, L=1, d=1, N_int=6, d_int=1)
    """

    N: int
    d: int
    layers: tuple = ()
    N_int: int | None = None
    d_int: int | None = None
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "layers", tuple(self.layers))
        for i, l in enumerate(self.layers):
            if not isinstance(l, HyenaLayer):
                raise HypothesisError(f"layers[{i}]: expected a HyenaLayer, got {type(l).__name__}")
        # Stack's checks (positive sizes, N' >= N, d' >= d, shapes fit) on the two
        # BaseConv layers each Hyena layer is run as.
        self.as_conv_stack()
        self.as_projection_stack()
        if self.N_int is None:
            object.__setattr__(self, "N_int", self.N)
        if self.d_int is None:
            object.__setattr__(self, "d_int", self.d)

    @property
    def L(self) -> int:
        return len(self.layers)

    @property
    def signature(self) -> Signature:
        return Signature(self.N, self.L, self.d, self.N_int, self.d_int)

    def as_conv_stack(self) -> Stack:
        return Stack(self.N, self.d, tuple(l.conv_layer() for l in self.layers), self.N_int, self.d_int)

    def as_projection_stack(self) -> Stack:
        return Stack(self.N, self.d, tuple(l.projection_layer() for l in self.layers), self.N_int, self.d_int)

    def subs(self, values: Mapping[Any, Any]) -> "HyenaStack":
        return replace(self, layers=tuple(l.subs(values) for l in self.layers))


# ----------------------------------------------------------------------------- exact


def _hadamard(a: symbolic.ExactSeq, b: symbolic.ExactSeq) -> symbolic.ExactSeq:
    return symbolic.ExactSeq(a.ring, tuple(tuple(x * y for x, y in zip(ca, cb)) for ca, cb in zip(a.cols, b.cols)))


def run_exact(stack: HyenaStack, state: symbolic.ExactSeq, stop: int | None = None) -> symbolic.ExactSeq:
    """The N'×d' state after the first ``stop`` layers (all by default), exactly."""
    if (state.N, state.d) != (stack.N_int, stack.d_int):
        raise HypothesisError(
            f"state: shape {(state.N, state.d)} is not the internal shape (N', d') = {(stack.N_int, stack.d_int)}"
        )
    u0, z = state, state
    for layer in stack.layers[:stop]:
        conv = symbolic.apply_layer(layer.conv_layer(), z)
        gate = symbolic.apply_layer(layer.projection_layer(), u0)
        z = _hadamard(gate, conv)
    return z


def _symbols(stack: HyenaStack) -> set:
    return symbolic.stack_symbols(stack.as_conv_stack()) | symbolic.stack_symbols(stack.as_projection_stack())


def evaluate(stack: HyenaStack, u: Block, ring=None) -> Block:
    """The model's N×d output on a symbolic input block (exact)."""
    if u.shape != (stack.N, stack.d):
        raise HypothesisError(f"u: input has shape {u.shape} but the model takes N×d = {(stack.N, stack.d)}")
    R = ring or symbolic.make_ring(u.free_symbols() | _symbols(stack))
    state = symbolic.ExactSeq.from_block(R, u).pad(stack.N_int, stack.d_int)
    return run_exact(stack, state).top_left(stack.N, stack.d).to_block(f"{stack.name or 'hyena'}({u.name})")


def _check_chain(models: Sequence[HyenaStack]) -> None:
    if not models:
        raise HypothesisError("models: a chain needs at least one Hyena model")
    N, d = models[0].N, models[0].d
    for i, m in enumerate(models):
        if not isinstance(m, HyenaStack):
            raise HypothesisError(f"models[{i}]: expected a HyenaStack, got {type(m).__name__}")
        if (m.N, m.d) != (N, d):
            raise HypothesisError(f"models[{i}]: takes N×d = {(m.N, m.d)}, the chain passes {(N, d)}")


def evaluate_nested(models: Sequence[HyenaStack], u: Block) -> list[Block]:
    """Outputs of Hyena_k(…Hyena_1(u)) for k = 1..len(models), exactly.

    >>> from symconv.blocks import sym
    >>> m = HyenaStack(1, 1, (HyenaLayer([[1]], [[0]], [[1]]),))
    >>> evaluate_nested([m, m], sym("u", 1))[-1].entries[0, 0]
    u[0,0]**4
    """
    _check_chain(models)
    syms = u.free_symbols().union(*(_symbols(m) for m in models))
    R = symbolic.make_ring(syms)
    out, z = [], u
    for m in models:
        z = evaluate(m, z, ring=R)
        out.append(z)
    return out


# ----------------------------------------------------------------------------- numeric


def _gate(p: numeric.PreparedLayer, u0: Any, xp: Any) -> Any:
    if p.W is not None:
        return xp.matmul(p.W, u0) + p.b1
    if p.W_diag is not None:
        return u0 * p.W_diag + p.b1
    return p.b1 + 0 * u0


def run(stack: HyenaStack, u: Any, xp: Any = None, dtype: str = "float64") -> Any:
    """Run the model on a numeric input (B, N, d) or (N, d) with FFTs; same shape out.

    >>> import numpy as np
    >>> m = HyenaStack(3, 1, (HyenaLayer([[0]], [[2]], [[1], [1]]),))
    >>> run(m, np.ones((3, 1)))[:, 0].tolist()
    [2.0, 4.0, 4.0]
    """
    conv = numeric.prepare(stack.as_conv_stack(), xp, dtype)
    proj = numeric.prepare(stack.as_projection_stack(), xp, dtype)
    xp = conv.xp
    u0, squeeze = numeric.to_internal(conv.stack, u, xp, conv.real)
    z = u0
    for c, p in zip(conv.layers, proj.layers):
        z = numeric.apply_prepared_layer(c, z, xp) * _gate(p, u0, xp)
    return numeric.from_internal(conv.stack, z, squeeze, xp)


def run_nested(models: Sequence[HyenaStack], u: Any, xp: Any = None, dtype: str = "float64") -> Any:
    """Hyena_L(…Hyena_1(u)) numerically."""
    _check_chain(models)
    for m in models:
        u = run(m, u, xp, dtype)
    return u
