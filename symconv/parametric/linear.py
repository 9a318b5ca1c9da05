"""Linear forms in size symbols and a decision procedure for their signs.

The proofs of Appendix H place blocks at offsets such as ``n + s`` or
``2n + 2s + m + t`` (Prop. H.10) and then ask whether one offset lies below
another.  A :class:`Lin` is such an offset: an integer combination of named
size symbols plus a constant, built with Python operators from :func:`size`
(never by parsing a string).  :class:`Facts` holds the hypotheses of a claim as
linear inequalities ``form >= 0`` over positive integers and decides
``a <= b`` by Fourier–Motzkin elimination (with integer rounding of each
derived row): ``a <= b`` is proved when ``a - b >= 1`` together with the
hypotheses has no solution.  When neither ``a <= b`` nor ``a > b`` is
proved the comparison is *undecided*; :class:`Undecided` names it.

>>> n, N = size("n"), size("N")
>>> facts = Facts.of(ge(n, 1), ge(N, 2 * n))
>>> facts.le(n, N), facts.lt(2 * n, N)
(True, None)
>>> str(N - 2 * n)
'N - 2n'
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Iterable, Mapping, Union

from ..model import HypothesisError

_SYMBOL = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")


@dataclass(frozen=True)
class Lin:
    """``Σ coeff·symbol + const`` with integer coefficients (terms sorted by name).

    >>> (size("n") * 2 + 1 - size("n")).at({"n": 3})
    4
    """

    terms: tuple = ()
    const: int = 0
    order: tuple = field(default=(), compare=False, repr=False)  # display order: as first written

    def __hash__(self) -> int:  # computed once: Lins key the decision caches
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.terms, self.const))
            object.__setattr__(self, "_hash", h)
        return h

    def __getstate__(self) -> dict:  # the cached hash is per process (string hashing is salted)
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @staticmethod
    def make(coeffs: Mapping[str, int], const: int = 0, order: Iterable[str] = ()) -> "Lin":
        terms = tuple(sorted((k, int(v)) for k, v in coeffs.items() if v))
        if not order:
            return Lin(terms, int(const), tuple(k for k, _ in terms))
        live = {k for k, _ in terms}
        shown = [k for k in dict.fromkeys(order) if k in live]
        if len(shown) < len(terms):
            shown += [k for k, _ in terms if k not in shown]
        return Lin(terms, int(const), tuple(shown))

    def names(self) -> tuple:
        """The symbols in the order they were first written (for display)."""
        order = self.order
        if len(order) == len(self.terms):  # as Lin.make leaves it: every live symbol, once
            return order
        live = [k for k, _ in self.terms]
        shown = [k for k in order if k in live]
        return tuple(shown + [k for k in live if k not in shown])

    def coeffs(self) -> dict:
        return dict(self.terms)

    def __add__(self, other: "LinLike") -> "Lin":
        o = other if type(other) is Lin else lin(other)
        if not o.terms:
            return self if not o.const else Lin(self.terms, self.const + o.const, self.names())
        if not self.terms:
            return o if not self.const else Lin(o.terms, self.const + o.const, o.names())
        c = dict(self.terms)
        for k, v in o.terms:
            c[k] = c.get(k, 0) + v
        return Lin.make(c, self.const + o.const, self.names() + o.names())

    def __neg__(self) -> "Lin":
        return Lin(tuple((k, -v) for k, v in self.terms), -self.const, self.names())

    def __sub__(self, other: "LinLike") -> "Lin":
        o = other if type(other) is Lin else lin(other)
        if not o.terms:
            return self if not o.const else Lin(self.terms, self.const - o.const, self.names())
        return self + (-o)

    def __rsub__(self, other: "LinLike") -> "Lin":
        return lin(other) - self

    def __radd__(self, other: "LinLike") -> "Lin":
        return lin(other) + self

    def __mul__(self, k: int) -> "Lin":
        if isinstance(k, bool) or not isinstance(k, int):
            raise HypothesisError(f"k: offsets scale by integers only, got {k!r}")
        return Lin.make({s: v * k for s, v in self.terms}, self.const * k, self.names())

    __rmul__ = __mul__

    @property
    def symbols(self) -> frozenset:
        return frozenset(k for k, _ in self.terms)

    def is_const(self) -> bool:
        return not self.terms

    def at(self, sizes: Mapping[str, int]) -> int:
        """The value at concrete sizes (every symbol must be given)."""
        missing = [k for k, _ in self.terms if k not in sizes]
        if missing:
            raise HypothesisError(f"sizes: no value for size symbol(s) {missing} in {self}")
        return self.const + sum(v * int(sizes[k]) for k, v in self.terms)

    def __str__(self) -> str:
        out = ""
        c = self.coeffs()
        for k, v in ((k, c[k]) for k in self.names()):
            mag = "" if abs(v) == 1 else str(abs(v))
            if not out:
                out = ("-" if v < 0 else "") + mag + k
            else:
                out += (" - " if v < 0 else " + ") + mag + k
        if self.const or not out:
            if not out:
                out = str(self.const)
            else:
                out += (" - " if self.const < 0 else " + ") + str(abs(self.const))
        return out

    def __repr__(self) -> str:
        return f"Lin({self})"

    # comparisons build size relations (data for a Hypothesis), never truth values
    def __le__(self, other: "LinLike"):
        from ..hypotheses import Rel

        return Rel(self, "<=", lin(other))

    def __lt__(self, other: "LinLike"):
        from ..hypotheses import Rel

        return Rel(self, "<", lin(other))

    def __ge__(self, other: "LinLike"):
        from ..hypotheses import Rel

        return Rel(self, ">=", lin(other))

    def __gt__(self, other: "LinLike"):
        from ..hypotheses import Rel

        return Rel(self, ">", lin(other))


LinLike = Union[Lin, int]


def lin(v: LinLike) -> Lin:
    """Coerce an int or a :class:`Lin` to a :class:`Lin` (strings are refused).

    >>> lin(3)
    Lin(3)
    """
    if isinstance(v, Lin):
        return v
    if isinstance(v, bool) or not isinstance(v, int):
        try:
            import numpy as np

            if isinstance(v, np.integer):
                return Lin((), int(v))
        except ImportError:  # pragma: no cover
            pass
        raise HypothesisError(
            f"offset: expected an integer or a linear form in size symbols, got {type(v).__name__} {v!r}"
        )
    return Lin((), v)


def size(name: str) -> Lin:
    """The size symbol ``name`` (letters and digits, starting with a letter).

    >>> str(size("m") + size("t"))
    'm + t'
    """
    if not isinstance(name, str) or not _SYMBOL.match(name):
        raise HypothesisError(
            f"name: size symbol {name!r} must be letters and digits, starting with a letter"
        )
    return Lin(((name, 1),), 0)


class Undecided(Exception):
    """A comparison the hypotheses neither prove nor refute (``question`` says which)."""

    def __init__(self, question: str, facts: str = "", split: tuple | None = None) -> None:
        super().__init__(question, facts)
        self.question = question
        self.facts = facts
        self.split = split  # (a, b): the open question is whether a <= b

    def __str__(self) -> str:
        return f"cannot decide {self.question} under {self.facts}" if self.facts else self.question


def ge(a: LinLike, b: LinLike) -> Lin:
    """The hypothesis ``a >= b`` as the form ``a - b`` (meaning ``a - b >= 0``).

    >>> str(ge(size("N"), 2 * size("n")))
    'N - 2n'
    """
    return lin(a) - lin(b)


def gt(a: LinLike, b: LinLike) -> Lin:
    """The hypothesis ``a > b`` over the integers: ``a - b - 1 >= 0``.

    >>> str(gt(size("N"), size("s")))
    'N - s - 1'
    """
    return lin(a) - lin(b) - 1


def _fm_feasible(rows: tuple) -> bool:
    """False when ``{form >= 0 for form in rows}`` has no integer solution (Fourier–Motzkin).

    Constraints are integer vectors (coefficients..., constant), divided by the
    gcd of their coefficients with the constant rounded down (valid at integer
    points); each round eliminates the variable with the fewest new rows.  True
    means "not refuted" (a rational solution of the rounded system exists).
    """
    names = sorted({k for r in rows for k, _ in r.terms})
    idx = {k: i for i, k in enumerate(names)}
    cons = set()
    for r in rows:
        v = [0] * (len(names) + 1)
        for k, c in r.terms:
            v[idx[k]] = c
        v[-1] = r.const
        cons.add(_primitive(v))
    live = set(range(len(names)))
    while live:
        for c in cons:
            if not any(c[:-1]) and c[-1] < 0:
                return False
        best = min(live, key=lambda i: sum(1 for c in cons if c[i] > 0) * sum(1 for c in cons if c[i] < 0))
        live.discard(best)
        pos = [c for c in cons if c[best] > 0]
        neg = [c for c in cons if c[best] < 0]
        new = {c for c in cons if c[best] == 0}
        for cp in pos:
            for cn in neg:
                ap, an = cp[best], -cn[best]
                new.add(_primitive([x * an + y * ap for x, y in zip(cp, cn)]))
        cons = {c for c in new if any(c[:-1]) or c[-1] < 0}
    return all(c[-1] >= 0 for c in cons)


def _primitive(v) -> tuple:
    g = 0
    for x in v[:-1]:
        g = math.gcd(g, x)
    if g > 1:
        v = [x // g for x in v[:-1]] + [v[-1] // g]  # floor: a cut valid at integer points
    return tuple(v)


_UNSEEN = object()
_WITNESSES: dict = {}
_SCALE = (0, 1, 2, 3, 4, 5, 7, 9, 12, 16, 21, 28, 37, 50, 66, 88)


def _witnesses(rows: tuple) -> list:
    """Some integer points satisfying every row, found by a fixed pseudo-random search (cached per rows).

    Each satisfies the rows exactly, so a form negative at one is not implied by the rows: what
    Fourier–Motzkin would answer (it never refutes a system with an integer solution), found
    without eliminating anything.  An empty list just means no shortcut.
    """
    hit = _WITNESSES.get(rows)
    if hit is not None:
        return hit
    import random

    names = sorted({k for r in rows for k, _ in r.terms})
    idx = {k: i for i, k in enumerate(names)}
    vecs = [(r.const, [(idx[k], c) for k, c in r.terms]) for r in rows]
    rng = random.Random(1729)
    out: list = []
    seen: set = set()
    small = (0, 1, 1, 2, 2, 3, 4, 5, 6, 8)
    for _ in range(60):  # small values, then each size in turn set within the bounds the rows leave it
        v = [rng.choice(small) for _ in names]
        for d in range(len(names)):
            lo, hi = -math.inf, math.inf
            for c0, t in vecs:
                a = 0
                rest = c0
                for i, c in t:
                    if i == d:
                        a = c
                    else:
                        rest += c * v[i]
                if a > 0:
                    lo = max(lo, -(rest // a))  # a·x + rest >= 0  <=>  x >= ceil(-rest / a)
                elif a < 0:
                    hi = min(hi, rest // -a)
                elif rest < 0:
                    lo, hi = 1, 0
                    break
            if lo > hi:
                continue
            for x in {lo, hi, (lo + hi) // 2} if hi < math.inf and lo > -math.inf else {lo if lo > -math.inf else hi}:
                if x in (math.inf, -math.inf):
                    continue
                w = list(v)
                w[d] = int(x)
                key = tuple(w)
                if key not in seen and all(c0 + sum(c * w[i] for i, c in t) >= 0 for c0, t in vecs):
                    seen.add(key)
                    out.append(dict(zip(names, w)))
        if len(out) >= 48:
            break
    if len(_WITNESSES) > 4096:
        _WITNESSES.clear()
    _WITNESSES[rows] = out
    return out


_SUMS: dict = {}


def _row_sums(rows: tuple) -> dict:
    """{terms: least constant} over each row and each sum of two rows (cached per rows).

    A form with the same terms as one of them and a constant at least as large is the
    row (or sum) plus a non-negative constant: implied, with no elimination.
    """
    hit = _SUMS.get(rows)
    if hit is None:
        hit = {}
        sums = list(rows) + [a + b for a, b in itertools.combinations(rows, 2)]
        for r in sums:
            if r.terms not in hit or r.const < hit[r.terms]:
                hit[r.terms] = r.const
        if len(_SUMS) > 4096:
            _SUMS.clear()
        _SUMS[rows] = hit
    return hit


def _refuted_by(points: list, form: "Lin") -> bool:
    """Whether ``form`` is negative at one of ``points`` (a symbol they lack counts as 0)."""
    for z in points:
        if form.const + sum(c * z.get(k, 0) for k, c in form.terms) < 0:
            return True
    return False


@lru_cache(maxsize=65536)
def _implies(rows: tuple, form: Lin) -> bool:
    # form >= 0 follows iff rows ∧ form <= -1 is infeasible (integer-valued forms)
    return not _fm_feasible(rows + (-form - 1,))


@dataclass(frozen=True)
class Facts:
    """Hypotheses ``form >= 0`` on integer sizes, and decisions under them.

    >>> f = Facts.of(ge(size("s"), 0), gt(size("N"), size("s")))
    >>> f.le(size("s"), size("N")), f.le(size("N") - size("s"), size("s"))
    (True, None)
    """

    rows: tuple = ()
    _memo: dict = field(default_factory=dict, compare=False, hash=False, repr=False)  # decisions made so far

    @staticmethod
    def of(*forms: LinLike) -> "Facts":
        return Facts(tuple(dict.fromkeys(lin(f) for f in forms)))

    def __add__(self, other: "Facts") -> "Facts":
        return Facts.of(*self.rows, *other.rows)

    def cases(self, a: LinLike, b: LinLike) -> tuple:
        """The two integer cases ``a <= b`` and ``a >= b + 1``, each as Facts.

        >>> [str(f) for f in Facts().cases(size("s"), 0)]
        ['-s >= 0', 's - 1 >= 0']
        """
        a, b = lin(a), lin(b)
        return (self + Facts.of(b - a), self + Facts.of(a - b - 1))

    def holds_at(self, sizes: Mapping[str, int]) -> bool:
        """Whether concrete sizes satisfy every hypothesis."""
        return all(r.at(sizes) >= 0 for r in self.rows)

    def consistent(self) -> bool:
        """False when no integer point satisfies the hypotheses (True: not refuted)."""
        return _fm_feasible(self.rows)

    def proves(self, form: Lin) -> bool:
        """``form >= 0`` for every integer point satisfying the hypotheses."""
        form = lin(form)
        key = ("p", form)
        r = self._memo.get(key)
        if r is None:
            least = _row_sums(self.rows).get(form.terms)
            if least is not None and form.const >= least:
                r = True
            elif _refuted_by(_witnesses(self.rows), form):
                r = False
            else:
                r = _implies(self.rows, form)
            self._memo[key] = r
        return r

    def le(self, a: LinLike, b: LinLike) -> bool | None:
        """True when ``a <= b`` is proved, False when ``a > b`` is, None otherwise."""
        key = (a if type(a) is Lin else lin(a), b if type(b) is Lin else lin(b))
        memo = self._memo
        r = memo.get(key, _UNSEEN)
        if r is not _UNSEEN:
            return r
        d = key[1] - key[0]
        if d.is_const():
            r = d.const >= 0
        elif self.proves(d):
            r = True
        elif self.proves(-d - 1):
            r = False
        else:
            r = None
        memo[key] = r
        return r

    def lt(self, a: LinLike, b: LinLike) -> bool | None:
        """True when ``a < b`` is proved, False when ``a >= b`` is, None otherwise."""
        r = self.le(lin(b), lin(a))
        return None if r is None else not r

    def eq(self, a: LinLike, b: LinLike) -> bool | None:
        """True when ``a = b`` is proved, False when ``a != b`` is, None otherwise."""
        a, b = lin(a), lin(b)
        if a == b:
            return True
        x, y = self.le(a, b), self.le(b, a)
        if x and y:
            return True
        if x is False or y is False or (self.proves(b - a - 1) or self.proves(a - b - 1)):
            return False
        return None

    def need_le(self, a: LinLike, b: LinLike) -> bool:
        """Like :meth:`le` but raise :class:`Undecided` instead of returning None."""
        r = self.le(a, b)
        if r is None:
            raise Undecided(f"whether {lin(a)} <= {lin(b)}", str(self), (lin(a), lin(b)))
        return r

    def __str__(self) -> str:
        return ", ".join(f"{r} >= 0" for r in self.rows) or "no hypotheses"
