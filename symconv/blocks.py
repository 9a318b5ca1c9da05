"""Block-structured symbolic sequences at concrete sizes.

The paper writes sequences as blocks stacked top to bottom, e.g.
y = (x | S | 0).  A :class:`Block` is an n×d array of sympy expressions with a
short description; ``a | b`` stacks blocks, ``+``/``-`` add them and ``*`` is
the Hadamard product ⊙.  Column j of a block is the polynomial
Σ_i block[i, j] X^i.

Example:
    >>> from symconv.blocks import sym, zeros
    >>> y = sym("x", 2, 1) | sym("S", 2, 1) | zeros(1, 1)
    >>> y.shape, y.name
    ((5, 1), '(x | S | 0^1)')
    >>> y.entries[2, 0]
    S[0,0]
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable

import numpy as np
import sympy

from .model import HypothesisError, _reject_strings_deep, check_size, check_values, value_problem

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _check_size(value: Any, pname: str, minimum: int = 0) -> int:
    return check_size(value, pname, minimum)


@dataclass(frozen=True, eq=False)
class Block:
    """An n×d array of sympy expressions (``entries``, dtype object) with a name.

    Parameters:

    * ``entries``: a 2-D array or nested list (n rows, d channels) of ints,
      Fractions, finite floats or sympy expressions (never strings);
    * ``name``: how reports and derivations call the block.

    A block behaves like a sequence of rows: ``len(b)`` is n, ``b[i]`` and
    ``b[i:j]`` are blocks of rows, ``b[i, j]`` is one entry.  ``a | b`` stacks
    blocks, ``+``, ``-`` and ``*`` (Hadamard ⊙) act entrywise, ``-b`` negates,
    ``b ** k`` is the entrywise power for an integer k ≥ 0.  Two blocks are
    equal when their entries are (names are ignored), and equal blocks hash
    alike.  ``sympy.Matrix(b)``, ``numpy.asarray(b)`` and ``sympy.latex(b)``
    see the entries.

    >>> ones(2, 1).entries.tolist()
    [[1], [1]]
    >>> b = sym("x", 3)
    >>> len(b), b[1:].shape, (-b)[0, 0], (b ** 2)[2, 0]
    (3, (2, 1), -x[0,0], x[2,0]**2)
    """

    entries: np.ndarray
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise HypothesisError(f"name: a block name is text, got {type(self.name).__name__}")
        where = self.name or "block"
        if isinstance(self.entries, Block):
            a = self.entries.entries
        else:
            _reject_strings_deep(self.entries, where)
            try:
                a = np.asarray(self.entries, dtype=object)
            except (ValueError, TypeError) as exc:
                raise HypothesisError(f"{where}: not a rectangular array of entries ({exc})") from None
        if a.ndim != 2:
            raise HypothesisError(f"entries: a block is 2-D (n×d), got shape {a.shape}")
        a = a.copy()
        if not _all_sympy(a):
            for idx, v in np.ndenumerate(a):
                a[idx] = _to_sympy(v, f"{where}[{idx[0]},{idx[1]}]")
        else:
            check_values(a, where)
        a.setflags(write=False)
        object.__setattr__(self, "entries", a)

    @property
    def shape(self) -> tuple[int, int]:
        return self.entries.shape

    @property
    def n(self) -> int:
        return self.entries.shape[0]

    @property
    def d(self) -> int:
        return self.entries.shape[1]

    # -- a sequence of rows

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        return (self[i] for i in range(self.n))

    def __getitem__(self, key: Any) -> Any:
        """``b[i]``: row i (a 1×d block); ``b[i:j:k]``: rows; ``b[i, j]``: one entry."""
        if isinstance(key, tuple):
            if len(key) != 2 or not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool)
                                        for k in key):
                raise HypothesisError(f"index: expected b[i], b[i:j] or b[i, j] with integers, got {key!r}")
            i, j = (int(k) for k in key)
            if not (-self.n <= i < self.n and -self.d <= j < self.d):
                raise HypothesisError(f"index: ({i}, {j}) is outside the {self.n}×{self.d} block {self.name}")
            return self.entries[i, j]
        if isinstance(key, slice):
            for part in ("start", "stop", "step"):
                v = getattr(key, part)
                if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
                    raise HypothesisError(f"index: slice {part} must be an integer, got {v!r}")
            if key.step == 0:
                raise HypothesisError("index: slice step cannot be zero")
            text = ":".join("" if v is None else str(int(v)) for v in (key.start, key.stop, key.step))
            text = text[:-1] if key.step is None else text
            return Block(self.entries[key], f"{self.name}[{text}]")
        if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
            raise HypothesisError(f"index: expected an integer, a slice or (row, channel), got {key!r}")
        i = int(key)
        if not -self.n <= i < self.n:
            raise HypothesisError(f"index: row {i} is outside the {self.n} rows of {self.name or 'the block'}")
        i %= self.n
        return Block(self.entries[i:i + 1], f"{self.name}[{i}]")

    # -- arithmetic

    def __or__(self, other: "Block") -> "Block":
        return vstack(self, other)

    def _binary(self, other: Any, op, sym: str, reflected: bool = False) -> "Block":
        if isinstance(other, Block):
            if other.shape != self.shape:
                raise HypothesisError(
                    f"{other.name or 'other'}: shape {other.shape} does not match "
                    f"{self.name or 'block'} {self.shape} for {sym}"
                )
            return Block(op(self.entries, other.entries), f"{self.name} {sym} {other.name}")
        if isinstance(other, np.ndarray) or hasattr(other, "__array__") and not isinstance(other, sympy.Basic):
            return NotImplemented
        c = _to_sympy(other, "scalar")
        if reflected:
            return Block(op(np.full(self.shape, c, dtype=object), self.entries), f"{other} {sym} {self.name}")
        return Block(op(self.entries, c), f"{self.name} {sym} {other}")

    def __add__(self, other: Any) -> "Block":
        return self._binary(other, np.add, "+")

    def __radd__(self, other: Any) -> "Block":
        return self._binary(other, np.add, "+", reflected=True)

    def __sub__(self, other: Any) -> "Block":
        return self._binary(other, np.subtract, "-")

    def __rsub__(self, other: Any) -> "Block":
        return self._binary(other, np.subtract, "-", reflected=True)

    def __mul__(self, other: Any) -> "Block":
        """Hadamard product ⊙ (or scaling by a number)."""
        return self._binary(other, np.multiply, "⊙")

    __rmul__ = __mul__

    def __neg__(self) -> "Block":
        return Block(-self.entries, f"-{self.name}" if self.name else "")

    def __pos__(self) -> "Block":
        return self

    def __pow__(self, k: Any) -> "Block":
        """Entrywise power ``b ** k`` for an integer k ≥ 0."""
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer, sympy.Integer)) or k < 0:
            raise HypothesisError(f"exponent: an entrywise power takes an integer k >= 0, got {k!r}")
        k = int(k)
        return Block(np.vectorize(lambda v: v ** k, otypes=[object])(self.entries) if self.entries.size
                     else self.entries, f"{self.name}^{k}")

    # -- value equality

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, Block):
            return NotImplemented
        return self.shape == other.shape and all(a == b for a, b in zip(self.entries.flat, other.entries.flat))

    def __ne__(self, other: Any) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash((self.shape, tuple(self.entries.flat)))

    # -- interop

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``numpy.asarray(b)``: the entries (a fresh object array unless ``dtype`` says otherwise)."""
        a = self.entries.copy()
        return a if dtype is None else a.astype(dtype)

    def _sympy_(self) -> sympy.ImmutableMatrix:
        """``sympy.sympify(b)``: the entries as an immutable matrix."""
        return sympy.ImmutableMatrix(self.entries.tolist()) if self.n else sympy.ImmutableMatrix.zeros(0, self.d)

    def _latex(self, printer: Any) -> str:
        """``sympy.latex(b)``: the entries as a matrix, printed by sympy's own printer."""
        return printer._print(self._sympy_())

    def tolist(self) -> list:
        return self.entries.tolist()

    # -- the rest

    def free_symbols(self) -> set:
        out: set = set()
        for v in self.entries.flat:
            out |= v.free_symbols
        return out

    def fit(self, N: int, pname: str = "N") -> "Block":
        """Zero-pad to N rows; raise if the blocks already take more than N rows."""
        N = check_size(N, pname, 0)
        if self.n > N:
            raise HypothesisError(
                f"{pname}: the blocks {self.name} take {self.n} rows, more than {pname} = {N}"
            )
        return self if self.n == N else vstack(self, zeros(N - self.n, self.d))

    def expand(self) -> "Block":
        """Entries with products multiplied out (for display)."""
        return Block(np.vectorize(sympy.expand, otypes=[object])(self.entries), self.name)

    def __repr__(self) -> str:
        name = self.name if len(self.name) <= 60 else self.name[:57] + "..."
        return f"Block({name or '?'}, shape={self.shape})"



_SYMPY_FAST = (sympy.Integer, sympy.Rational, sympy.Symbol)


def _all_sympy(a: np.ndarray) -> bool:
    return all(issubclass(t, sympy.Basic) for t in set(map(type, a.flat)))


def _to_sympy(v: Any, where: str) -> sympy.Expr:
    if isinstance(v, _SYMPY_FAST):
        return v
    why = value_problem(v)
    if why is not None:
        shown = repr(v) if len(repr(v)) <= 60 else repr(v)[:57] + "..."
        raise HypothesisError(f"{where}: {shown} is not a sequence entry: {why} "
                              "(entries are numbers or sympy expressions; strings are never parsed)")
    if isinstance(v, sympy.Basic):
        return v
    if isinstance(v, (int, np.integer)):
        return sympy.Integer(int(v))
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    f = Fraction(float(v))  # a finite float, exactly
    return sympy.Rational(f.numerator, f.denominator)


def check_name(name: str, pname: str = "name") -> str:
    """Accept a block name made of letters, digits and underscores only."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise HypothesisError(
            f"{pname}: {name!r} is not a valid block name (letters, digits, _; starts with a letter)"
        )
    return name


def sym(name: str, n: int, d: int = 1) -> Block:
    """An n×d block of fresh symbols ``name[i,j]``.

    >>> sym("x", 2, 1).entries[1, 0]
    x[1,0]
    """
    check_name(name)
    n = _check_size(n, "n")
    d = _check_size(d, "d", 1)
    a = np.empty((n, d), dtype=object)
    for i in range(n):
        for j in range(d):
            a[i, j] = sympy.Symbol(f"{name}[{i},{j}]")
    return Block(a, name)


def const(c: Any, n: int, d: int = 1, name: str | None = None) -> Block:
    """An n×d block with every entry equal to ``c``."""
    n = _check_size(n, "n")
    d = _check_size(d, "d", 1)
    if name is not None and not isinstance(name, str):
        raise HypothesisError(f"name: a block name is text, got {type(name).__name__}")
    a = np.empty((n, d), dtype=object)
    a[...] = _to_sympy(c, "c")
    return Block(a, name or f"{c}^{n}")


def zeros(n: int, d: int = 1) -> Block:
    """The block 0^n (n rows of zeros)."""
    return const(0, n, d, name=f"0^{n}")


def ones(n: int, d: int = 1) -> Block:
    """The block 1^n (n rows of ones)."""
    return const(1, n, d, name=f"1^{n}")


def unit(k: int, n: int, d: int = 1) -> Block:
    """e_k of length n: a 1 in row k of every channel, zeros elsewhere.

    >>> unit(1, 3).entries[:, 0].tolist()
    [0, 1, 0]
    """
    n = _check_size(n, "n", 1)
    k = _check_size(k, "k")
    d = _check_size(d, "d", 1)
    if k >= n:
        raise HypothesisError(f"k: e_{k} needs length > {k}, got n = {n}")
    b = zeros(n, d).entries.copy()
    b[k, :] = sympy.Integer(1)
    return Block(b, f"e_{k}")


def from_array(a: Any, name: str = "") -> Block:
    """A block from a 2-D array or nested list of numbers / sympy expressions (1-D: one column).

    >>> from_array([1, 2]).shape
    (2, 1)
    """
    _reject_strings_deep(a, name or "a")
    if isinstance(a, sympy.MatrixBase):
        a = a.tolist()
    try:
        arr = np.asarray(a, dtype=object)
    except (ValueError, TypeError) as exc:
        raise HypothesisError(f"{name or 'a'}: not a rectangular array of entries ({exc})") from None
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    return Block(arr, name)


def vstack(*blocks: Block) -> Block:
    """Stack blocks top to bottom: the paper's (a | b | c)."""
    blocks = tuple(b for b in blocks)
    if not blocks:
        raise HypothesisError("blocks: vstack needs at least one block")
    for b in blocks:
        if not isinstance(b, Block):
            raise HypothesisError(f"blocks: expected Block, got {type(b).__name__}")
    d = blocks[0].d
    for b in blocks:
        if b.d != d:
            raise HypothesisError(f"{b.name}: has {b.d} channels, expected {d}")
    parts = [b.entries for b in blocks if b.n]
    a = np.concatenate(parts, axis=0) if parts else np.empty((0, d), dtype=object)
    names = [b.name.strip("()") if " | " in b.name else b.name for b in blocks]
    return Block(a, "(" + " | ".join(names) + ")")


def reverse(b: Block) -> Block:
    """The block read bottom to top (row i becomes row n−1−i)."""
    if not isinstance(b, Block):
        raise HypothesisError(f"b: expected a Block, got {type(b).__name__}")
    return Block(b.entries[::-1], f"rev({b.name})")


def rows(b: Block, start: int, stop: int) -> Block:
    """Rows start..stop−1 of a block (also ``b[start:stop]``)."""
    if not isinstance(b, Block):
        raise HypothesisError(f"b: expected a Block, got {type(b).__name__}")
    start, stop = check_size(start, "start", 0), check_size(stop, "stop", 0)
    if not 0 <= start <= stop <= b.n:
        raise HypothesisError(f"start/stop: rows {start}..{stop} are not inside 0..{b.n}")
    return Block(b.entries[start:stop], f"{b.name}[{start}:{stop}]")


def symbols_of(blocks: Iterable[Block]) -> list:
    """All free symbols of the blocks, sorted by name (a stable ring order)."""
    out: set = set()
    for b in blocks:
        out |= b.free_symbols()
    return sorted(out, key=lambda s: s.name)
