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

from .model import HypothesisError

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _check_size(value: Any, pname: str, minimum: int = 0) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < minimum:
        raise HypothesisError(f"{pname}: must be an integer >= {minimum}, got {value!r}")
    return int(value)


@dataclass(frozen=True, eq=False)
class Block:
    """An n×d array of sympy expressions (``entries``, dtype object) with a name.

    >>> ones(2, 1).entries.tolist()
    [[1], [1]]
    """

    entries: np.ndarray
    name: str = ""

    def __post_init__(self) -> None:
        a = np.asarray(self.entries, dtype=object)
        if a.ndim != 2:
            raise HypothesisError(f"entries: a block is 2-D (n×d), got shape {a.shape}")
        a = a.copy()
        for idx, v in np.ndenumerate(a):
            a[idx] = _to_sympy(v, f"{self.name or 'block'}[{idx[0]},{idx[1]}]")
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

    def __or__(self, other: "Block") -> "Block":
        return vstack(self, other)

    def _binary(self, other: Any, op, sym: str) -> "Block":
        if isinstance(other, Block):
            if other.shape != self.shape:
                raise HypothesisError(
                    f"{other.name or 'other'}: shape {other.shape} does not match "
                    f"{self.name or 'block'} {self.shape} for {sym}"
                )
            return Block(op(self.entries, other.entries), f"{self.name} {sym} {other.name}")
        return Block(op(self.entries, _to_sympy(other, "scalar")), f"{self.name} {sym} {other}")

    def __add__(self, other: Any) -> "Block":
        return self._binary(other, np.add, "+")

    def __sub__(self, other: Any) -> "Block":
        return self._binary(other, np.subtract, "-")

    def __mul__(self, other: Any) -> "Block":
        """Hadamard product ⊙ (or scaling by a number)."""
        return self._binary(other, np.multiply, "⊙")

    __rmul__ = __mul__

    def free_symbols(self) -> set:
        out: set = set()
        for v in self.entries.flat:
            out |= v.free_symbols
        return out

    def fit(self, N: int, pname: str = "N") -> "Block":
        """Zero-pad to N rows; raise if the blocks already take more than N rows."""
        if self.n > N:
            raise HypothesisError(
                f"{pname}: the blocks {self.name} take {self.n} rows, more than {pname} = {N}"
            )
        return self if self.n == N else vstack(self, zeros(N - self.n, self.d))

    def expand(self) -> "Block":
        """Entries with products multiplied out (for display)."""
        return Block(np.vectorize(sympy.expand, otypes=[object])(self.entries), self.name)

    def __repr__(self) -> str:
        return f"Block({self.name or '?'}, shape={self.shape})"

    def _repr_latex_(self) -> str:
        """Jupyter: the entries as a column vector (see :mod:`symconv.latex`)."""
        from .latex import block_latex

        return "$" + block_latex(self) + "$"


def _to_sympy(v: Any, where: str) -> sympy.Expr:
    if isinstance(v, sympy.Basic):
        return v
    if isinstance(v, bool):
        raise HypothesisError(f"{where}: booleans are not sequence entries")
    if isinstance(v, (int, np.integer)):
        return sympy.Integer(int(v))
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    if isinstance(v, (float, np.floating)):
        f = Fraction(float(v))
        return sympy.Rational(f.numerator, f.denominator)
    raise HypothesisError(
        f"{where}: entries must be numbers or sympy expressions, got {type(v).__name__} "
        "(strings are never parsed)"
    )


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
    if k >= n:
        raise HypothesisError(f"k: e_{k} needs length > {k}, got n = {n}")
    b = zeros(n, d).entries.copy()
    b[k, :] = sympy.Integer(1)
    return Block(b, f"e_{k}")


def from_array(a: Any, name: str = "") -> Block:
    """A block from a 2-D array or nested list of numbers / sympy expressions."""
    arr = np.asarray(a, dtype=object)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    return Block(arr, name)


def vstack(*blocks: Block) -> Block:
    """Stack blocks top to bottom: the paper's (a | b | c)."""
    blocks = tuple(b for b in blocks)
    if not blocks:
        raise HypothesisError("blocks: vstack needs at least one block")
    d = blocks[0].d
    for b in blocks:
        if not isinstance(b, Block):
            raise HypothesisError(f"blocks: expected Block, got {type(b).__name__}")
        if b.d != d:
            raise HypothesisError(f"{b.name}: has {b.d} channels, expected {d}")
    parts = [b.entries for b in blocks if b.n]
    a = np.concatenate(parts, axis=0) if parts else np.empty((0, d), dtype=object)
    names = [b.name.strip("()") if " | " in b.name else b.name for b in blocks]
    return Block(a, "(" + " | ".join(names) + ")")


def reverse(b: Block) -> Block:
    """The block read bottom to top (row i becomes row n−1−i)."""
    return Block(b.entries[::-1], f"rev({b.name})")


def rows(b: Block, start: int, stop: int) -> Block:
    """Rows start..stop−1 of a block."""
    if not 0 <= start <= stop <= b.n:
        raise HypothesisError(f"start/stop: rows {start}..{stop} are not inside 0..{b.n}")
    return Block(b.entries[start:stop], f"{b.name}[{start}:{stop}]")


def symbols_of(blocks: Iterable[Block]) -> list:
    """All free symbols of the blocks, sorted by name (a stable ring order)."""
    out: set = set()
    for b in blocks:
        out |= b.free_symbols()
    return sorted(out, key=lambda s: s.name)
