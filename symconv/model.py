"""BaseConv layers and stacks as plain data.

A :class:`Layer` holds the parameters of one BaseConv layer,
``BaseConv(u, W, h, b1, b2) = (u·W + b1) ⊙ (h * u + b2)``, and names its
convolution (``"causal"``: the product mod X^N'; ``"circular"``: the product
mod X^N' − 1).  A :class:`Stack` is a sequence of layers acting on an internal
N'×d' state, with the ``(N, L, d, N', d')`` signature of the paper: the N×d
input is zero-padded into the top-left corner of the state and the output is
the top-left N×d block.  Nothing here computes; the interpreters in
:mod:`symconv.symbolic` and :mod:`symconv.numeric` do.

Parameters are arrays (numpy, any dtype, ``object`` for exact or symbolic
entries such as ints, Fractions or sympy expressions).  To keep large stacks
small, ``h`` may be shorter than N' (it is zero beyond its length) and ``b1``,
``b2`` may have shape (N', d'), (N', 1), (1, d') or (1, 1) (broadcast).

Example:
    >>> from symconv.model import Layer, Stack
    >>> import numpy as np
    >>> ident = Layer(W=np.zeros((1, 1)), h=[[1]], b1=[[1]], b2=[[0]])
    >>> Stack(N=4, d=1, layers=(ident,)).signature
    Signature(N=4, L=1, d=1, N_int=4, d_int=1)
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

CONV_MODES = ("causal", "circular")


class HypothesisError(ValueError):
    """A parameter violates a shape rule or a hypothesis of the paper.

    The message names the parameter and the violated condition.
    """


def _freeze(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def as_param(value: Any, name: str) -> np.ndarray:
    """Return ``value`` as a read-only 2-D array, naming ``name`` on error.

    Numeric arrays keep their dtype; anything holding Python objects (Fractions,
    sympy expressions) becomes an ``object`` array.

    >>> as_param([[1, 2]], "b1").shape
    (1, 2)
    """
    if isinstance(value, np.ndarray):
        a = value
    else:
        try:
            import sympy

            if isinstance(value, sympy.MatrixBase):
                value = value.tolist()
        except ImportError:  # pragma: no cover - sympy is a dependency
            pass
        a = np.asarray(value)
        if a.dtype.kind in "OUSV":
            a = np.asarray(value, dtype=object)
    if a.dtype.kind in "USV":
        raise HypothesisError(f"{name}: strings are not parameters (got dtype {a.dtype})")
    if a.ndim == 0:
        a = a.reshape(1, 1)
    elif a.ndim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2:
        raise HypothesisError(f"{name}: expected a 2-D array, got shape {a.shape}")
    return _freeze(a.copy())


@dataclass(frozen=True, eq=False)
class Layer:
    """One BaseConv layer ``(u·W + b1) ⊙ (h * u + b2)`` with its convolution.

    ``W`` is d'×d'; ``h`` is K×d' with K ≤ N' (zero beyond row K−1); ``b1`` and
    ``b2`` broadcast to N'×d'.  ``conv`` is ``"causal"`` or ``"circular"``.
    ``label`` is free text used in reports.

    >>> Layer(W=[[0]], h=[[0], [1]], b1=[[1]], b2=[[0]]).conv
    'causal'
    """

    W: Any
    h: Any
    b1: Any
    b2: Any
    conv: str = "causal"
    label: str = ""

    def __post_init__(self) -> None:
        for name in ("W", "h", "b1", "b2"):
            object.__setattr__(self, name, as_param(getattr(self, name), name))
        if self.conv not in CONV_MODES:
            raise HypothesisError(
                f"conv: unknown convolution mode {self.conv!r}; expected one of {CONV_MODES}"
            )
        d = self.W.shape[0]
        if self.W.shape != (d, d):
            raise HypothesisError(f"W: must be square d'×d', got shape {self.W.shape}")
        if self.h.shape[1] != d:
            raise HypothesisError(
                f"h: has {self.h.shape[1]} channels but W is {d}×{d} (d' must agree)"
            )
        for name in ("b1", "b2"):
            cols = getattr(self, name).shape[1]
            if cols not in (1, d):
                raise HypothesisError(
                    f"{name}: has {cols} channels; expected {d} (d') or 1 (broadcast)"
                )

    @property
    def d_int(self) -> int:
        return self.W.shape[0]

    def check_fits(self, N_int: int, where: str = "layer") -> None:
        """Raise unless this layer's parameters fit an N'×d' state."""
        if self.h.shape[0] > N_int:
            raise HypothesisError(
                f"{where}.h: filter length {self.h.shape[0]} exceeds N' = {N_int}"
            )
        for name in ("b1", "b2"):
            rows = getattr(self, name).shape[0]
            if rows not in (1, N_int):
                raise HypothesisError(
                    f"{where}.{name}: has {rows} rows; expected N' = {N_int} or 1 (broadcast)"
                )

    def is_symbolic(self) -> bool:
        """True when any parameter holds a sympy expression with free symbols."""
        return any(_has_free_symbols(getattr(self, n)) for n in ("W", "h", "b1", "b2"))

    def subs(self, values: Mapping[Any, Any]) -> "Layer":
        """Substitute sympy symbols in every parameter (``values``: symbol → value)."""
        return replace(self, **{n: _subs(getattr(self, n), values) for n in ("W", "h", "b1", "b2")})


def _has_free_symbols(a: np.ndarray) -> bool:
    if a.dtype != object:
        return False
    return any(getattr(x, "free_symbols", None) for x in a.flat)


def _subs(a: np.ndarray, values: Mapping[Any, Any]) -> np.ndarray:
    if a.dtype != object:
        return a
    out = np.empty(a.shape, dtype=object)
    for idx, x in np.ndenumerate(a):
        out[idx] = x.subs(values) if hasattr(x, "subs") else x
    return out


@dataclass(frozen=True)
class Signature:
    """The ``(N, L, d, N', d')`` signature of a model (``N_int`` = N', ``d_int`` = d')."""

    N: int
    L: int
    d: int
    N_int: int
    d_int: int

    def __str__(self) -> str:
        return f"({self.N}, {self.L}, {self.d}, {self.N_int}, {self.d_int})"


@dataclass(frozen=True)
class Stack:
    """L BaseConv layers acting on an internal N'×d' state.

    ``N_int``/``d_int`` default to N/d.  The input (N×d) is zero-padded into the
    top-left corner of the state; the output is the top-left N×d block.

    >>> import numpy as np
    >>> s = Stack(N=4, d=1, layers=(Layer(W=[[0]], h=[[1]], b1=[[1]], b2=[[0]]),))
    >>> str(s.signature)
    '(4, 1, 1, 4, 1)'
    """

    N: int
    d: int
    layers: tuple = ()
    N_int: int | None = None
    d_int: int | None = None
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "layers", tuple(self.layers))
        if self.N_int is None:
            object.__setattr__(self, "N_int", self.N)
        if self.d_int is None:
            object.__setattr__(self, "d_int", self.d)
        for pname in ("N", "d", "N_int", "d_int"):
            v = getattr(self, pname)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise HypothesisError(f"{pname}: must be a positive integer, got {v!r}")
        if self.N_int < self.N:
            raise HypothesisError(f"N_int: internal length N' = {self.N_int} is below N = {self.N}")
        if self.d_int < self.d:
            raise HypothesisError(f"d_int: internal width d' = {self.d_int} is below d = {self.d}")
        for i, layer in enumerate(self.layers):
            if not isinstance(layer, Layer):
                raise HypothesisError(f"layers[{i}]: expected a Layer, got {type(layer).__name__}")
            if layer.d_int != self.d_int:
                raise HypothesisError(
                    f"layers[{i}].W: is {layer.d_int}×{layer.d_int} but d' = {self.d_int}"
                )
            layer.check_fits(self.N_int, where=f"layers[{i}]")

    @property
    def L(self) -> int:
        return len(self.layers)

    @property
    def signature(self) -> Signature:
        return Signature(self.N, self.L, self.d, self.N_int, self.d_int)

    def __rshift__(self, other: "Stack") -> "Stack":
        """``f >> g``: run f, then g, on the same internal state (Lemma H.11)."""
        return compose(self, other)

    def subs(self, values: Mapping[Any, Any]) -> "Stack":
        """Substitute sympy symbols in every layer's parameters."""
        return replace(self, layers=tuple(l.subs(values) for l in self.layers))

    def is_symbolic(self) -> bool:
        return any(l.is_symbolic() for l in self.layers)

    def modes(self) -> set[str]:
        return {l.conv for l in self.layers}

    def _repr_latex_(self) -> str:
        """Jupyter: the layers as equations (see :mod:`symconv.latex`)."""
        from .latex import stack_latex

        return "$$" + stack_latex(self) + "$$"


def compose(*stacks: Stack, reset: bool | str = False) -> Stack:
    """Stack models in application order: ``compose(f, g)`` computes g(f(u)).

    Lemma H.11: the layer counts add; every model must share (N, d, N', d').
    The layers run on one internal state, so when N' > N or d' > d what the
    first model leaves outside the top-left N×d block is seen by the next.
    ``reset=True`` inserts a masking layer between models (one more layer);
    ``reset="auto"`` does so only where it can matter (a circular layer later
    on with N' > N, or d' > d).

    >>> from symconv.constructions.primitives import identity
    >>> compose(identity(4, 1), identity(4, 1)).L
    2
    """
    if not stacks:
        raise HypothesisError("stacks: compose needs at least one Stack")
    first = stacks[0]
    for i, s in enumerate(stacks[1:], start=1):
        for pname in ("N", "d", "N_int", "d_int"):
            if getattr(s, pname) != getattr(first, pname):
                raise HypothesisError(
                    f"stacks[{i}].{pname}: {getattr(s, pname)} differs from "
                    f"{getattr(first, pname)} (Lemma H.11 needs matching (N, d, N', d'))"
                )
    if reset not in (True, False, "auto"):
        raise HypothesisError(f"reset: expected True, False or 'auto', got {reset!r}")
    layers: list[Layer] = list(first.layers)
    for s in stacks[1:]:
        needed = first.d_int > first.d or (
            first.N_int > first.N and "circular" in s.modes()
        )
        if reset is True or (reset == "auto" and needed):
            layers.append(reset_layer(first.N, first.d, first.N_int, first.d_int))
        layers.extend(s.layers)
    name = " ; ".join(s.name or "?" for s in stacks)
    return Stack(first.N, first.d, tuple(layers), first.N_int, first.d_int, name=name)


def reset_layer(N: int, d: int, N_int: int, d_int: int) -> Layer:
    """One layer that keeps the top-left N×d block of the state and zeroes the rest."""
    mask = np.zeros((N_int, d_int), dtype=int).astype(object)
    mask[:N, :d] = 1
    h = np.ones((1, d_int), dtype=object)
    return Layer(W=np.zeros((d_int, d_int), dtype=object), h=h, b1=mask,
                 b2=np.zeros((1, 1), dtype=object), label="reset padding")
