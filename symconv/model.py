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


_BAD_KIND = {"b": "booleans", "c": "complex numbers", "U": "strings", "S": "strings (bytes)",
             "V": "raw records", "M": "dates", "m": "time spans"}


def _sympy_problem(x: Any) -> str | None:
    """Why a sympy object is not a parameter value (None when it is fine)."""
    import sympy

    if isinstance(x, (sympy.Integer, sympy.Rational, sympy.Symbol)):  # Symbol is also a Boolean
        return None
    if not isinstance(x, sympy.Expr):
        if isinstance(x, (sympy.logic.boolalg.Boolean, sympy.core.relational.Relational)):
            return "a sympy boolean or relation"
        return f"a sympy {type(x).__name__} (not an expression)"
    bad = (sympy.nan, sympy.zoo, sympy.oo, -sympy.oo)
    if x in bad or x.has(*bad):
        return "not finite (nan, ±oo or zoo)"
    if x.has(sympy.I):
        return "complex (contains I)"
    return None


def value_problem(x: Any) -> str | None:
    """Why one Python value cannot be a layer parameter or block entry; None if it can.

    Accepted: int, numpy integers, Fraction, finite floats, sympy expressions
    (finite and real-looking).  Everything else (str, bytes, None, bool,
    complex, nan/inf, sympy booleans, arbitrary objects) is refused; strings
    are never parsed.

    >>> value_problem(3), value_problem("x"), value_problem(float("nan"))
    (None, 'a string (strings are never parsed as expressions)', 'not finite (nan)')
    """
    import math
    from fractions import Fraction

    import sympy

    if isinstance(x, (bool, np.bool_)):
        return "a boolean"
    if isinstance(x, (int, np.integer, Fraction)):
        return None
    if isinstance(x, (float, np.floating)):
        return None if math.isfinite(x) else f"not finite ({x})"
    if isinstance(x, (str, bytes, np.str_, np.bytes_)):
        return "a string (strings are never parsed as expressions)"
    if x is None:
        return "None"
    if isinstance(x, (complex, np.complexfloating)):
        return "complex"
    if isinstance(x, sympy.Basic):
        return _sympy_problem(x)
    return f"of unsupported type {type(x).__name__}"


def check_values(a: np.ndarray, name: str) -> np.ndarray:
    """Raise a HypothesisError naming ``name`` (and the index) unless every entry of ``a`` is a value.

    Numeric dtypes are checked as a whole (finite, real, not bool); object
    arrays entry by entry, by type first so that large integer arrays stay fast.

    >>> check_values(np.array([[1.0, float("inf")]]), "b1")
    Traceback (most recent call last):
    ...
    symconv.model.HypothesisError: b1[0,1]: inf is not a parameter value: not finite (inf)
    """
    kind = a.dtype.kind
    if kind in _BAD_KIND:
        raise HypothesisError(f"{name}: {_BAD_KIND[kind]} are not parameter values (got dtype {a.dtype}"
                              + ("; strings are never parsed as expressions)" if kind in "US" else ")"))
    if kind == "f":
        if a.size and not np.isfinite(a).all():
            idx = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
            raise HypothesisError(f"{name}{_index(idx)}: {a[idx]} is not a parameter value: not finite ({a[idx]})")
        return a
    if kind in "iu":
        return a
    if kind != "O":  # pragma: no cover - every numpy kind is listed above
        raise HypothesisError(f"{name}: unsupported dtype {a.dtype}")
    import sympy

    fast = (int, np.integer, sympy.Integer, sympy.Rational, sympy.Symbol)
    types = set(map(type, a.flat))
    if all(issubclass(t, fast) and not issubclass(t, (bool, np.bool_)) for t in types):
        return a
    for idx, x in np.ndenumerate(a):
        why = value_problem(x)
        if why is not None:
            shown = repr(x) if len(repr(x)) <= 60 else repr(x)[:57] + "..."
            raise HypothesisError(f"{name}{_index(idx)}: {shown} is not a parameter value: {why}")
    return a


def _index(idx: tuple) -> str:
    return "[" + ",".join(str(i) for i in idx) + "]" if idx else ""


def _reject_strings_deep(value: Any, name: str, depth: int = 0) -> None:
    """Refuse strings inside (nested) lists and tuples before numpy converts them."""
    if isinstance(value, (str, bytes)):
        raise HypothesisError(f"{name}: {value[:40]!r} is a string; strings are never parsed as expressions")
    if isinstance(value, (list, tuple)) and depth < 3:
        for i, v in enumerate(value):
            _reject_strings_deep(v, f"{name}[{i}]", depth + 1)


def as_param(value: Any, name: str) -> np.ndarray:
    """Return ``value`` as a read-only 2-D array, naming ``name`` on error.

    ``value`` may be a numpy array, a nested list, a sympy matrix, a
    :class:`~symconv.blocks.Block` or anything with ``__array__``.  Numeric
    arrays keep their dtype; anything holding Python objects (Fractions, sympy
    expressions) becomes an ``object`` array.  A 0-D value is 1×1 and a 1-D
    value is one column.  Every entry is checked (:func:`check_values`):
    strings, None, booleans, complex numbers, nan and inf are refused before
    any conversion.

    >>> as_param([[1, 2]], "b1").shape
    (1, 2)
    """
    _reject_strings_deep(value, name)
    if isinstance(value, np.ndarray):
        a = value
    else:
        try:
            import sympy

            if isinstance(value, sympy.MatrixBase):
                value = value.tolist()
        except ImportError:  # pragma: no cover - sympy is a dependency
            pass
        if hasattr(value, "entries") and hasattr(value, "__array__"):  # a Block
            value = np.asarray(value)
        try:
            a = np.asarray(value)
            if a.dtype.kind in "OUSV":
                a = np.asarray(value, dtype=object)
        except (ValueError, TypeError) as exc:  # ragged lists and the like
            raise HypothesisError(f"{name}: not a rectangular array of numbers ({exc})") from None
    if a.ndim == 0:
        a = a.reshape(1, 1)
    elif a.ndim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2:
        raise HypothesisError(f"{name}: expected a 2-D array, got shape {a.shape}")
    check_values(a, name)
    _require_bytes(a.nbytes, f"{name}: a copy of a {a.shape[0]}×{a.shape[1]} {a.dtype} parameter")
    return _freeze(a.copy())


def _require_bytes(nbytes: int, what: str) -> None:
    if nbytes < 64 << 20:  # small copies are always fine; skip reading the machine's memory
        return
    from . import budget  # budget imports this module

    budget.require(nbytes, what)


def check_size(value: Any, pname: str, minimum: int = 1) -> int:
    """``value`` as an int if it is an integer >= ``minimum`` (not a bool, float or string).

    >>> check_size(4, "N")
    4
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise HypothesisError(f"{pname}: must be an integer >= {minimum}, got {value!r} "
                              f"({type(value).__name__})")
    if value < minimum:
        raise HypothesisError(f"{pname}: must be an integer >= {minimum}, got {value!r}")
    return int(value)


@dataclass(frozen=True, eq=False)
class Layer:
    """One BaseConv layer ``(u·W + b1) ⊙ (h * u + b2)`` with its convolution.

    Parameters (each a numpy array, nested list, sympy matrix or Block; entries
    ints, Fractions, finite floats or sympy expressions, never strings):

    * ``W``: d'×d' matrix applied on the right, ``u·W``;
    * ``h``: K×d' filter, one column per channel, K ≤ N' (zero beyond row K−1);
      a 1-D ``h`` is read as one column (K×1), so it only fits d' = 1;
    * ``b1``, ``b2``: biases of shape (N', d'), (N', 1), (1, d') or (1, 1)
      (broadcast);
    * ``conv``: ``"causal"`` (product mod X^N') or ``"circular"`` (mod X^N' − 1);
    * ``label``: free text used in reports.

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
        if not isinstance(self.conv, str) or self.conv not in CONV_MODES:
            raise HypothesisError(
                f"conv: unknown convolution mode {self.conv!r}; expected one of {CONV_MODES}"
            )
        if not isinstance(self.label, str):
            raise HypothesisError(f"label: expected text, got {type(self.label).__name__}")
        for name in ("W", "h", "b1", "b2"):
            object.__setattr__(self, name, as_param(getattr(self, name), name))
        d = self.W.shape[0]
        if self.W.shape != (d, d):
            raise HypothesisError(f"W: must be square d'×d', got shape {self.W.shape}")
        if self.h.shape[1] != d:
            hint = (" (a 1-D h or a one-column Block is one channel; pass a K×d' array)"
                    if self.h.shape[1] == 1 else "")
            raise HypothesisError(
                f"h: has {self.h.shape[1]} channels but W is {d}×{d} (d' must agree){hint}"
            )
        if self.h.shape[0] < 1:
            raise HypothesisError("h: the filter has no rows (K must be at least 1)")
        for name in ("b1", "b2"):
            rows, cols = getattr(self, name).shape
            if cols not in (1, d):
                raise HypothesisError(
                    f"{name}: has {cols} channels; expected {d} (d') or 1 (broadcast)"
                )
            if rows < 1:
                raise HypothesisError(f"{name}: has no rows (expected N' rows or 1 to broadcast)")

    def __repr__(self) -> str:
        lab = f", label={self.label!r}" if self.label else ""
        return (f"Layer(d'={self.d_int}, h={self.h.shape[0]}×{self.h.shape[1]}, "
                f"b1={self.b1.shape[0]}×{self.b1.shape[1]}, b2={self.b2.shape[0]}×{self.b2.shape[1]}, "
                f"conv={self.conv!r}{lab})")

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
        """Substitute sympy symbols in every parameter (``values``: symbol → value; never text)."""
        _check_subs(values)
        return replace(self, **{n: _subs(getattr(self, n), values) for n in ("W", "h", "b1", "b2")})


def _check_subs(values: Any) -> None:
    """Refuse substitutions that sympy would parse: text keys or values (``subs`` sympifies them)."""
    import sympy

    if not isinstance(values, Mapping):
        raise HypothesisError(f"values: expected a mapping symbol → value, got {type(values).__name__}")
    for k, v in values.items():
        if not isinstance(k, sympy.Symbol):
            raise HypothesisError(f"values: keys must be sympy Symbols, got {k!r} ({type(k).__name__}); "
                                  "strings are never parsed")
        why = value_problem(v)
        if why is not None:
            raise HypothesisError(f"values[{k}]: {v!r} is not a value to substitute: {why}")


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

    Parameters:

    * ``N``, ``d``: the input and output are N×d (positive integers);
    * ``layers``: the :class:`Layer` records, applied in order;
    * ``N_int``, ``d_int``: the internal state N'×d' (default N and d; at least
      N and d); every layer's W is d'×d' and its parameters fit N' rows;
    * ``name``: free text used in reports.

    The input is zero-padded into the top-left corner of the state; the output
    is the top-left N×d block.  The repr is a one-line summary.

    >>> s = Stack(N=4, d=1, layers=(Layer(W=[[0]], h=[[1]], b1=[[1]], b2=[[0]]),))
    >>> str(s.signature)
    '(4, 1, 1, 4, 1)'
    >>> s
    Stack((4, 1, 1, 4, 1), causal)
    """

    N: int
    d: int
    layers: tuple = ()
    N_int: int | None = None
    d_int: int | None = None
    name: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.layers, Layer):
            raise HypothesisError("layers: expected a sequence of Layers, got one Layer (wrap it: (layer,))")
        if isinstance(self.layers, (str, bytes)) or not hasattr(self.layers, "__iter__"):
            raise HypothesisError(f"layers: expected a sequence of Layers, got {type(self.layers).__name__}")
        object.__setattr__(self, "layers", tuple(self.layers))
        if self.N_int is None:
            object.__setattr__(self, "N_int", self.N)
        if self.d_int is None:
            object.__setattr__(self, "d_int", self.d)
        for pname in ("N", "d", "N_int", "d_int"):
            v = getattr(self, pname)
            if not isinstance(v, (int, np.integer)) or isinstance(v, (bool, np.bool_)) or v < 1:
                raise HypothesisError(f"{pname}: must be a positive integer, got {v!r}")
            object.__setattr__(self, pname, int(v))
        if not isinstance(self.name, str):
            raise HypothesisError(f"name: expected text, got {type(self.name).__name__}")
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

    def __repr__(self) -> str:
        modes = "+".join(m for m in CONV_MODES if m in self.modes()) or "no layers"
        name = self.name if len(self.name) <= 60 else self.name[:57] + "..."
        return f"Stack({self.signature}, {modes}" + (f", {name!r})" if name else ")")

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
        """Substitute sympy symbols in every layer's parameters (see :meth:`Layer.subs`)."""
        _check_subs(values)
        return replace(self, layers=tuple(l.subs(values) for l in self.layers))

    def is_symbolic(self) -> bool:
        return any(l.is_symbolic() for l in self.layers)

    def modes(self) -> set[str]:
        return {l.conv for l in self.layers}


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
