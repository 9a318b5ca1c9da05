"""Hypotheses on the sizes of a claim, as data written once.

A :class:`Hypothesis` is a conjunction of atoms over size symbols
(:func:`~symconv.parametric.linear.size`):

* linear (in)equalities, written with Python's comparison operators on
  :class:`~symconv.parametric.linear.Lin` forms (``n + m + s + t <= N``), or
  :func:`eq` for an equality;
* two non-linear atoms that the proofs of Appendix H need: :func:`pow2`
  (a power of two) and :func:`divides`.

From that one object come the text printed in statements and reports
(:attr:`Hypothesis.text`), the predicate on concrete sizes
(:meth:`Hypothesis.holds_at`) and the facts used by the all-sizes proofs
(:meth:`Hypothesis.forms`: linear forms ``f >= 0``; a non-linear atom
contributes only the linear facts it implies, e.g. ``n >= 1`` for a power of
two).  Nothing is parsed from a string.

>>> from symconv.parametric.linear import size
>>> n, m, s, t, N = (size(k) for k in "nmstN")
>>> h = Hypothesis(n + m + s + t <= N)
>>> h.text
'n + m + s + t <= N'
>>> h.holds_at({"n": 1, "m": 1, "s": 0, "t": 0, "N": 2}), h.holds_at({"n": 2, "m": 1, "s": 0, "t": 0, "N": 2})
(True, False)
>>> [str(f) for f in h.forms()]
['N - n - m - s - t']
>>> Hypothesis(pow2(n), n >= 2, why="Def. H.14").text
'n a power of two, n >= 2 (Def. H.14)'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .model import HypothesisError
from .parametric.linear import Lin, lin

_OPS = ("<=", "<", ">=", ">", "==")


@dataclass(frozen=True)
class Rel:
    """``lhs op rhs`` for linear forms, op in <=, <, >=, >, == (over the integers)."""

    lhs: Lin
    op: str
    rhs: Lin

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise HypothesisError(f"op: expected one of {_OPS}, got {self.op!r}")
        object.__setattr__(self, "lhs", lin(self.lhs))
        object.__setattr__(self, "rhs", lin(self.rhs))

    @property
    def text(self) -> str:
        return f"{self.lhs} {self.op} {self.rhs}"

    @property
    def symbols(self) -> frozenset:
        return self.lhs.symbols | self.rhs.symbols

    def holds_at(self, sizes: Mapping[str, int]) -> bool:
        a, b = self.lhs.at(sizes), self.rhs.at(sizes)
        return {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b, "==": a == b}[self.op]

    def forms(self) -> tuple:
        """Linear forms f meaning f >= 0 whose conjunction is this relation (integer sizes)."""
        a, b = self.lhs, self.rhs
        return {"<=": (b - a,), "<": (b - a - 1,), ">=": (a - b,), ">": (a - b - 1,),
                "==": (b - a, a - b)}[self.op]

    def narrowed(self) -> "Rel":
        """The strict version (<= becomes <, >= becomes >); == and strict ones are returned unchanged."""
        return Rel(self.lhs, {"<=": "<", ">=": ">"}.get(self.op, self.op), self.rhs)

    def __bool__(self) -> bool:  # a relation is data, not a truth value
        raise HypothesisError(f"{self.text}: a size relation has no truth value; use it inside a Hypothesis")


@dataclass(frozen=True)
class Pow2:
    """``x`` is a power of two (1, 2, 4, ...); ``x`` a size form, or a product of sizes (names)."""

    x: Any

    def __post_init__(self) -> None:
        if isinstance(self.x, tuple):
            if not self.x or not all(isinstance(v, str) for v in self.x):
                raise HypothesisError(f"x: a product is a tuple of size names, got {self.x!r}")
        else:
            object.__setattr__(self, "x", lin(self.x))

    @property
    def text(self) -> str:
        body = "".join(self.x) if isinstance(self.x, tuple) else str(self.x)
        return f"{body} a power of two"

    @property
    def symbols(self) -> frozenset:
        return frozenset(self.x) if isinstance(self.x, tuple) else self.x.symbols

    def holds_at(self, sizes: Mapping[str, int]) -> bool:
        if isinstance(self.x, tuple):
            v = 1
            for name in self.x:
                v *= int(sizes[name])
        else:
            v = self.x.at(sizes)
        return v >= 1 and v & (v - 1) == 0

    def forms(self) -> tuple:
        if isinstance(self.x, tuple):
            from .parametric.linear import size

            return tuple(size(n) - 1 for n in self.x)
        return (self.x - 1,)


@dataclass(frozen=True)
class Divides:
    """``a`` divides ``b``: a a positive size form, b a form or a product ``(c, name, name, ...)``."""

    a: Lin
    b: Any

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", lin(self.a))
        if isinstance(self.b, tuple):
            c, *names = self.b
            if isinstance(c, bool) or not isinstance(c, int) or not all(isinstance(n, str) for n in names):
                raise HypothesisError(f"b: a product is (constant, size names...), got {self.b!r}")
        else:
            object.__setattr__(self, "b", lin(self.b))

    def _b_text(self) -> str:
        if not isinstance(self.b, tuple):
            return str(self.b)
        c, *names = self.b
        return ("" if c == 1 else str(c)) + "".join(f"{n}²" if names.count(n) == 2 and names.index(n) == i else
                                                   ("" if names.count(n) == 2 else n)
                                                   for i, n in enumerate(names))

    @property
    def text(self) -> str:
        return f"{self.a} divides {self._b_text()}"

    @property
    def symbols(self) -> frozenset:
        extra = frozenset(self.b[1:]) if isinstance(self.b, tuple) else self.b.symbols
        return self.a.symbols | extra

    def holds_at(self, sizes: Mapping[str, int]) -> bool:
        a = self.a.at(sizes)
        if isinstance(self.b, tuple):
            b = self.b[0]
            for n in self.b[1:]:
                b *= int(sizes[n])
        else:
            b = self.b.at(sizes)
        return a >= 1 and b % a == 0

    def forms(self) -> tuple:
        return (self.a - 1,)


@dataclass(frozen=True)
class ProdLe:
    """``x <= a·b·…`` for a size form x and a product of sizes (a non-linear bound such as k <= nd)."""

    x: Lin
    names: tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", lin(self.x))
        if not self.names or not all(isinstance(v, str) for v in self.names):
            raise HypothesisError(f"names: expected size names, got {self.names!r}")

    @property
    def text(self) -> str:
        return f"{self.x} <= {''.join(self.names)}"

    @property
    def symbols(self) -> frozenset:
        return self.x.symbols | frozenset(self.names)

    def holds_at(self, sizes: Mapping[str, int]) -> bool:
        v = 1
        for name in self.names:
            v *= int(sizes[name])
        return self.x.at(sizes) <= v

    def forms(self) -> tuple:
        return ()


def at_most_product(x: Any, *factors: Any) -> ProdLe:
    """The atom ``x <= f1·f2·…`` for size symbols f (e.g. k <= nd in Lemma H.16).

    >>> from symconv.parametric.linear import size
    >>> at_most_product(size("k"), size("n"), size("d")).text
    'k <= nd'
    """
    names = []
    for v in factors:
        v = lin(v)
        if len(v.terms) != 1 or v.terms[0][1] != 1 or v.const:
            raise HypothesisError(f"factors: a product bound takes size symbols, got {v}")
        names.append(v.terms[0][0])
    return ProdLe(x, tuple(names))


def pow2(*x: Any) -> Pow2:
    """The atom "x is a power of two"; several sizes: their product (``pow2(n, d)``: nd).

    >>> from symconv.parametric.linear import size
    >>> pow2(size("k")).holds_at({"k": 8}), pow2(size("k")).holds_at({"k": 6})
    (True, False)
    >>> pow2(size("n"), size("d")).text
    'nd a power of two'
    """
    if len(x) == 1:
        return Pow2(x[0])
    names = []
    for v in x:
        v = lin(v)
        if len(v.terms) != 1 or v.terms[0][1] != 1 or v.const:
            raise HypothesisError(f"x: a product power of two takes size symbols, got {v}")
        names.append(v.terms[0][0])
    return Pow2(tuple(names))


def divides(a: Any, *b: Any) -> Divides:
    """The atom "a divides b"; several arguments after a: their product (``divides(d, 2, p, p)``: d | 2p²).

    >>> from symconv.parametric.linear import size
    >>> divides(size("d"), 9).holds_at({"d": 3}), divides(size("d"), 2, size("p"), size("p")).text
    (True, 'd divides 2p²')
    """
    if len(b) == 1:
        return Divides(a, b[0])
    c, names = 1, []
    for v in b:
        if isinstance(v, int) and not isinstance(v, bool):
            c *= v
            continue
        v = lin(v)
        if len(v.terms) != 1 or v.terms[0][1] != 1 or v.const:
            raise HypothesisError(f"b: a product takes integers and size symbols, got {v}")
        names.append(v.terms[0][0])
    return Divides(a, (c, *names))


def eq(a: Any, b: Any) -> Rel:
    """The atom ``a == b`` (Lin's ``==`` is structural equality, so equalities use this).

    >>> from symconv.parametric.linear import size
    >>> eq(size("Np"), size("N")).text
    'Np == N'
    """
    return Rel(a, "==", b)


ATOMS = (Rel, Pow2, Divides, ProdLe)


@dataclass(frozen=True, init=False)
class Hypothesis:
    """A conjunction of atoms (relations, :func:`pow2`, :func:`divides`), with an optional reason.

    ``why`` is a short gloss shown after the text ("x and S inside y"), never a
    second statement of the condition.  ``Hypothesis()`` is the empty (true)
    hypothesis.
    """

    atoms: tuple
    why: str

    def __init__(self, *atoms: Any, why: str = "") -> None:
        flat: list = []
        for a in atoms:
            if isinstance(a, Hypothesis):
                flat.extend(a.atoms)
            elif isinstance(a, ATOMS):
                flat.append(a)
            elif isinstance(a, str):
                raise HypothesisError(
                    "atoms: a hypothesis is built from size relations (e.g. n + m <= N), not from text "
                    f"(got {a!r}); strings are never parsed"
                )
            else:
                raise HypothesisError(
                    f"atoms: expected size relations such as `2 * n <= N`, pow2(n) or divides(d, k), "
                    f"got {type(a).__name__} {a!r}"
                )
        if not isinstance(why, str):
            raise HypothesisError(f"why: expected text, got {type(why).__name__}")
        object.__setattr__(self, "atoms", tuple(dict.fromkeys(flat)))
        object.__setattr__(self, "why", why)

    @property
    def text(self) -> str:
        """The printed hypothesis, derived from the atoms."""
        body = ", ".join(a.text for a in self.atoms) or "no hypothesis"
        return f"{body} ({self.why})" if self.why else body

    def __str__(self) -> str:
        return self.text

    @property
    def symbols(self) -> frozenset:
        return frozenset().union(*(a.symbols for a in self.atoms)) if self.atoms else frozenset()

    def holds_at(self, sizes: Mapping[str, int]) -> bool:
        """Whether concrete sizes satisfy every atom."""
        return all(a.holds_at(sizes) for a in self.atoms)

    def forms(self) -> tuple:
        """The linear facts (forms f >= 0) this hypothesis gives the all-sizes proofs."""
        out: list = []
        for a in self.atoms:
            out.extend(a.forms())
        return tuple(dict.fromkeys(out))

    def is_linear(self) -> bool:
        """True when every atom is a linear relation (its facts say all it says)."""
        return all(isinstance(a, Rel) for a in self.atoms)

    def __and__(self, other: "Hypothesis") -> "Hypothesis":
        return Hypothesis(*self.atoms, *other.atoms, why="; ".join(w for w in (self.why, other.why) if w))

    def replace_atom(self, index: int, atom: Any) -> "Hypothesis":
        """The same hypothesis with atom ``index`` replaced (used to narrow one atom in tests)."""
        atoms = list(self.atoms)
        atoms[index] = atom
        return Hypothesis(*atoms, why=self.why)
