"""Block algebra with symbolic sizes: sequences, filters, products, Hadamard masks.

A :class:`PSeq` is the paper's block column with sizes left as symbols: a sum
of :class:`Piece` s, each a window of a named block (an :class:`Atom` such as
x(X) or S(X)) or a constant run (1^n, e_k), placed at an offset that is a
:class:`~symconv.parametric.linear.Lin`.  ``a | b`` stacks blocks as in
(x | S | 0^{N-2n}).  A :class:`PFilter` is a sum of terms c·X^k and named
filter blocks h(X)·X^k; ``1 + X**n`` is the first filter of Prop. H.9.

Products follow the proofs: :func:`multiply` places every block of the
sequence at its offset plus the filter's (no truncation yet); :func:`causal`
keeps rows below N (the product mod X^N), :func:`circular` folds rows N.. onto
0.. (mod X^N − 1); :func:`hadamard` multiplies two columns block by block.
Every step that depends on the sizes asks :class:`~symconv.parametric.linear.Facts`
how two offsets compare and raises :class:`~symconv.parametric.linear.Undecided`
when the hypotheses do not settle it.

>>> from symconv.parametric.linear import Facts, ge, size
>>> n, N = size("n"), size("N")
>>> facts = Facts.of(ge(n, 1), ge(N, 2 * n))
>>> y = psym("x", n) | psym("S", n) | pzeros(N - 2 * n)
>>> prod = multiply(1 + X**n, y)
>>> [str(p) for p in refine([prod], facts).blocks(0)]
['x', 'S + x', 'S']
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Sequence

from ..model import HypothesisError
from .linear import Facts, Lin, LinLike, Undecided, lin, size  # noqa: F401 (size: doctests)

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class Unsupported(Undecided):
    """A product the block algebra does not expand (the check falls back)."""


def _coef(c) -> Fraction:
    if isinstance(c, bool):
        raise HypothesisError(f"c: booleans are not coefficients ({c!r})")
    if isinstance(c, (int, Fraction)):
        return Fraction(c)
    try:
        import numpy as np

        if isinstance(c, np.integer):
            return Fraction(int(c))
    except ImportError:  # pragma: no cover
        pass
    raise HypothesisError(
        f"c: block coefficients are integers or Fractions, got {type(c).__name__} {c!r} (strings are never parsed)"
    )


@dataclass(frozen=True)
class Atom:
    """A named block of length ``length``: an input (``op == ""``) or a product of two.

    ``op == "conv"``: the full polynomial product of ``args[0]`` and ``args[1]``;
    ``op == "had"``: entry i is ``args[0][i] · args[1][i + offsets[0]]``, zero where
    either index leaves its block (its length is that of ``args[0]``).

    >>> Atom("x", lin(3)).text()
    'x'
    """

    name: str
    length: Lin
    op: str = ""
    args: tuple = ()
    offsets: tuple = ()

    def __post_init__(self) -> None:
        if self.op in ("", "mat") and (not isinstance(self.name, str) or not _NAME.match(self.name)):
            raise HypothesisError(
                f"name: block name {self.name!r} must be letters, digits and _, starting with a letter"
            )

    def text(self) -> str:
        if self.op == "mat":
            return f"({self.args[0].text()}·{self.name})"
        if self.op == "conv":
            return f"({self.args[0].text()} * {self.args[1].text()})"
        if self.op == "had":
            return f"({self.args[0].text()} ⊙ {self.args[1].text()})"
        return self.name

    def is_input(self) -> bool:
        return not self.op

    def inputs(self) -> set:
        return {self} if not self.op else set().union(*(a.inputs() for a in self.args))


@dataclass(frozen=True)
class Piece:
    """Rows ``start .. start+length−1`` hold ``coef·atom[lo + (i − start)]`` (or ``coef`` if no atom)."""

    start: Lin
    length: Lin
    coef: Fraction
    atom: Atom | None = None
    lo: Lin = Lin()

    @property
    def end(self) -> Lin:
        return self.start + self.length

    def moved(self, k: LinLike, c=1) -> "Piece":
        return Piece(self.start + lin(k), self.length, self.coef * _coef(c), self.atom, self.lo)


@dataclass(frozen=True)
class PSeq:
    """A column of symbolic length: the sum of its pieces (rows outside every piece are 0).

    >>> s = pones(2) | pzeros(size("n"))
    >>> str(s.length)
    'n + 2'
    """

    length: Lin
    pieces: tuple = ()
    nonneg: tuple = ()  # forms that must be >= 0 for the blocks to make sense (block lengths, ...)

    def __or__(self, other: "PSeq") -> "PSeq":
        if not isinstance(other, PSeq):
            raise HypothesisError(f"other: can only stack PSeq blocks, got {type(other).__name__}")
        return PSeq(self.length + other.length, self.pieces + tuple(p.moved(self.length) for p in other.pieces),
                    self.nonneg + other.nonneg)

    def __add__(self, other: "PSeq") -> "PSeq":
        if not isinstance(other, PSeq):
            raise HypothesisError(f"other: can only add PSeq blocks, got {type(other).__name__}")
        if other.length != self.length:
            raise HypothesisError(
                f"other: lengths {self.length} and {other.length} differ; blocks add only at equal length"
            )
        return PSeq(self.length, self.pieces + other.pieces, self.nonneg + other.nonneg)

    def __mul__(self, c) -> "PSeq":
        c = _coef(c)
        return PSeq(self.length, tuple(p.moved(0, c) for p in self.pieces), self.nonneg)

    __rmul__ = __mul__

    def rows(self, a: LinLike, b: LinLike) -> "PSeq":
        """Rows a..b−1 of a single named block (the paper's y[a:b]).

        >>> str(psym("y", size("N")).rows(0, size("N") - 1).pieces[0].length)
        'N - 1'
        """
        a, b = lin(a), lin(b)
        if len(self.pieces) != 1 or self.pieces[0].start != Lin() or self.pieces[0].atom is None:
            raise HypothesisError("rows: windows are taken of a single named block (psym) only")
        p = self.pieces[0]
        return PSeq(b - a, (Piece(Lin(), b - a, p.coef, p.atom, p.lo + a),), (a, b - a, self.length - b))

    def at(self, length: LinLike) -> "PSeq":
        """The same pieces in a column of another length (padding by zeros)."""
        return PSeq(lin(length), self.pieces, self.nonneg + (lin(length) - self.length,))


def psym(name: str, length: LinLike) -> PSeq:
    """The named block ``name`` of symbolic length (x(X), S(X) in the proofs).

    >>> psym("x", size("n")).pieces[0].atom.name
    'x'
    """
    L = lin(length)
    return PSeq(L, (Piece(Lin(), L, Fraction(1), Atom(name, L)),), (L,))


def pconst(c, length: LinLike) -> PSeq:
    """The constant block c^L.

    >>> pconst(2, 3).pieces[0].coef
    Fraction(2, 1)
    """
    L, c = lin(length), _coef(c)
    return PSeq(L, (Piece(Lin(), L, c),) if c else (), (L,))


def pzeros(length: LinLike) -> PSeq:
    """The block 0^L (no pieces).

    >>> pzeros(4).pieces
    ()
    """
    return PSeq(lin(length), (), (lin(length),))


def pones(length: LinLike) -> PSeq:
    """The block 1^L.

    >>> str(pones(size("n")).length)
    'n'
    """
    return pconst(1, length)


def punit(k: LinLike, length: LinLike) -> PSeq:
    """e_k in a column of length L: a single 1 at row k.

    >>> str(punit(size("s"), size("N")).pieces[0].start)
    's'
    """
    k, L = lin(k), lin(length)
    return PSeq(L, (Piece(k, Lin((), 1), Fraction(1)),), (k, L - k - 1))


# ---------------------------------------------------------------- filters


@dataclass(frozen=True)
class FTerm:
    """``coef·X^offset``, or ``coef·atom(X)·X^offset`` for a named filter block."""

    coef: Fraction
    offset: Lin
    atom: Atom | None = None


@dataclass(frozen=True)
class PFilter:
    """A filter as a sum of terms c·X^k and named filter blocks.

    >>> f = 1 + X**size("n")
    >>> [str(t.offset) for t in f.terms]
    ['0', 'n']
    """

    terms: tuple = ()

    def __add__(self, other) -> "PFilter":
        return PFilter(self.terms + as_filter(other).terms)

    def __radd__(self, other) -> "PFilter":
        return PFilter(as_filter(other).terms + self.terms)

    def __mul__(self, c) -> "PFilter":
        if isinstance(c, PFilter):
            if len(c.terms) == 1 and c.terms[0].atom is None:
                t0 = c.terms[0]
                return PFilter(tuple(FTerm(t.coef * t0.coef, t.offset + t0.offset, t.atom) for t in self.terms))
            if len(self.terms) == 1 and self.terms[0].atom is None:
                return c * self
            raise HypothesisError("other: filters multiply only by a monomial c·X^k")
        c = _coef(c)
        return PFilter(tuple(FTerm(t.coef * c, t.offset, t.atom) for t in self.terms))

    __rmul__ = __mul__


class _XVar:
    """The indeterminate X: ``X**k`` is the filter e_k, for an int or symbolic k."""

    def __pow__(self, k: LinLike) -> PFilter:
        return PFilter((FTerm(Fraction(1), lin(k)),))

    def __repr__(self) -> str:
        return "X"


X = _XVar()


def fblock(name: str, length: LinLike, offset: LinLike = 0) -> PFilter:
    """A named filter block h(X)·X^offset (h of symbolic length).

    >>> fblock("h", size("n")).terms[0].atom.name
    'h'
    """
    L = lin(length)
    return PFilter((FTerm(Fraction(1), lin(offset), Atom(name, L)),))


def as_filter(f) -> PFilter:
    """A PFilter from a PFilter, an integer c (c·X^0) or a block column PSeq.

    >>> [str(t.offset) for t in as_filter(punit(2, 5)).terms]
    ['2']
    """
    if isinstance(f, PFilter):
        return f
    if isinstance(f, PSeq):
        terms = []
        for p in f.pieces:
            if p.atom is None:
                if p.length != Lin((), 1):
                    raise HypothesisError(
                        "h: constant runs in a filter column must be single entries e_k (got length "
                        f"{p.length})"
                    )
                terms.append(FTerm(p.coef, p.start))
            else:
                if p.lo != Lin() or p.length != p.atom.length:
                    raise HypothesisError("h: a named block in a filter column must appear whole")
                terms.append(FTerm(p.coef, p.start, p.atom))
        return PFilter(tuple(terms))
    return PFilter((FTerm(_coef(f), Lin()),))


# ---------------------------------------------------------------- products


def multiply(h, seq: PSeq, facts: Facts | None = None) -> tuple:
    """The pieces of h(X)·seq(X), before any truncation (offsets add).

    >>> len(multiply(1 + X**2, pones(2)))
    2
    """
    h = as_filter(h)
    out = []
    for t in h.terms:
        if facts is not None and facts.le(0, t.offset) is not True:
            raise Undecided(f"whether the filter offset {t.offset} >= 0", str(facts))
        for p in seq.pieces:
            if t.atom is None:
                out.append(Piece(p.start + t.offset, p.length, p.coef * t.coef, p.atom, p.lo))
                continue
            if p.atom is None or p.lo != Lin() or p.length != p.atom.length:
                raise Unsupported(
                    f"the product of filter block {t.atom.text()} with a constant run or a window of a block"
                )
            if facts is not None and not (facts.le(1, p.length) and facts.le(1, t.atom.length)):
                raise Undecided(f"whether {p.atom.text()} and {t.atom.text()} are non-empty", str(facts),
                                (1, p.length) if not facts.le(1, p.length) else (1, t.atom.length))
            a = Atom("conv", t.atom.length + p.length - 1, "conv", (t.atom, p.atom))
            out.append(Piece(p.start + t.offset, a.length, p.coef * t.coef, a, Lin()))
    return tuple(out)


def _drop_empty(pieces: Iterable[Piece], facts: Facts) -> list:
    return [p for p in pieces if facts.le(p.length, 0) is not True]


def _straddle(p: Piece, N: Lin, facts: Facts) -> Undecided:
    if facts.le(p.end, N) is None:
        return Undecided(f"whether {p.end} <= {N}", str(facts), (p.end, N))
    return Undecided(f"whether {N} <= {p.start}", str(facts), (N, p.start))


def causal(pieces: Sequence[Piece], N: LinLike, facts: Facts) -> PSeq:
    """Keep rows 0..N−1 of a product (the causal convolution, mod X^N).

    >>> from symconv.parametric.linear import size, Facts, ge
    >>> s, N = size("s"), size("N")
    >>> out = causal(multiply(X**s, psym("y", N)), N, Facts.of(ge(s, 0), ge(N - 1, s)))
    >>> str(out.pieces[0].length)
    'N - s'
    """
    N = lin(N)
    out = []
    for p in _drop_empty(pieces, facts):
        if facts.le(p.end, N):
            out.append(p)
        elif facts.le(N, p.start):
            continue
        elif facts.le(N, p.end) and facts.le(p.start, N):
            out.append(Piece(p.start, N - p.start, p.coef, p.atom, p.lo))
        else:
            raise _straddle(p, N, facts)
    return PSeq(N, tuple(out))


def circular(pieces: Sequence[Piece], N: LinLike, facts: Facts, depth: int = 0) -> PSeq:
    """Fold rows N.. of a product onto 0.. (the circular convolution, mod X^N − 1).

    >>> from symconv.parametric.linear import size, Facts, ge
    >>> s, N = size("s"), size("N")
    >>> out = circular(multiply(X**(N - s), psym("y", N)), N, Facts.of(ge(s, 0), ge(N - 1, s)))
    >>> sorted(str(p.lo) for p in out.pieces)
    ['0', 's']
    """
    N = lin(N)
    if depth > 4:
        raise Unsupported("a product that wraps around more than four times")
    out, again = [], []
    for p in _drop_empty(pieces, facts):
        if facts.le(p.end, N):
            out.append(p)
        elif facts.le(N, p.start):
            again.append(p.moved(-N))
        elif facts.le(N, p.end) and facts.le(p.start, N):
            out.append(Piece(p.start, N - p.start, p.coef, p.atom, p.lo))
            again.append(Piece(Lin(), p.end - N, p.coef, p.atom, p.lo + N - p.start))
        else:
            raise _straddle(p, N, facts)
    if again:
        out += list(circular(again, N, facts, depth + 1).pieces)
    return PSeq(N, tuple(out))


# ---------------------------------------------------------------- normal form


@dataclass(frozen=True)
class Content:
    """What a run of rows holds: ``terms`` of (atom or None, shift, coef).

    Row i of the run is Σ coef·atom[i + shift] (a constant coef when atom is None).
    """

    terms: tuple = ()

    def is_zero(self) -> bool:
        return not self.terms

    def __str__(self) -> str:
        parts = []
        for atom, _shift, c in self.terms:
            name = atom.text() if atom is not None else "1"
            if atom is None:
                parts.append(_num(c))
            else:
                parts.append(name if c == 1 else ("-" + name if c == -1 else f"{_num(c)}·{name}"))
        return " + ".join(parts).replace("+ -", "- ") if parts else "0"


def window_text(atom: Atom, a: Lin, b: Lin, shift: Lin, facts: Facts | None = None) -> str:
    """``x`` when rows [a, b) with this shift cover the whole block, else ``x[lo:hi]``.

    >>> window_text(Atom("y", size("N")), Lin(), size("N") - 1, Lin())
    'y[0:N - 1]'
    """
    lo, hi = a + shift, b + shift
    whole = lo == Lin() and (hi == atom.length or (facts is not None and facts.eq(hi, atom.length) is True))
    return atom.text() if whole else f"{atom.text()}[{lo}:{hi}]"


def content_text(c: Content, a: Lin, b: Lin, facts: Facts | None = None) -> str:
    """The content of rows [a, b) as text, naming windows of blocks.

    >>> content_text(Content(((Atom("y", size("N")), size("s"), Fraction(1)),)), Lin(), size("N") - size("s"))
    'y[s:N]'
    """
    parts = []
    for atom, shift, k in c.terms:
        if atom is None:
            parts.append(_num(k))
            continue
        name = window_text(atom, a, b, shift, facts)
        parts.append(name if k == 1 else ("-" + name if k == -1 else f"{_num(k)}·{name}"))
    return " + ".join(parts).replace("+ -", "- ") if parts else "0"


def _num(c: Fraction) -> str:
    return str(c.numerator) if c.denominator == 1 else f"{c.numerator}/{c.denominator}"


def _sort_key(term) -> tuple:
    atom, shift, _c = term
    return (atom is not None, atom.text() if atom else "", str(shift))


def _merge(terms: Iterable, facts: Facts) -> Content:
    """Add up terms of one run, merging shifts the hypotheses prove equal."""
    acc: list = []
    for atom, shift, c in terms:
        for k, (a2, s2, c2) in enumerate(acc):
            if a2 != atom:
                continue
            if atom is None:
                acc[k] = (a2, s2, c2 + c)
                break
            same = facts.eq(shift, s2)
            if same is None:
                a, b = (shift, s2) if facts.le(shift, s2) is None else (s2, shift)
                raise Undecided(f"whether rows of {atom.text()} at shifts {shift} and {s2} coincide",
                                str(facts), (a, b))
            if same:
                acc[k] = (a2, s2, c2 + c)
                break
        else:
            acc.append((atom, shift if atom is not None else Lin(), c))
    return Content(tuple(sorted((t for t in acc if t[2] != 0), key=_sort_key)))


@dataclass(frozen=True)
class Refined:
    """Sorted breakpoints p_0 ≤ … ≤ p_k and, per column, the content of each run [p_i, p_{i+1})."""

    points: tuple
    contents: tuple  # contents[col][i]
    facts: Facts

    def runs(self, col: int = 0) -> list:
        """(start, stop, content) for the runs that may be non-empty, merging equal neighbours."""
        out = []
        for i, c in enumerate(self.contents[col]):
            a, b = self.points[i], self.points[i + 1]
            if self.facts.le(b, a) is True:
                continue
            if out and out[-1][2] == c and (c.is_zero() or _shift_free(c)):
                out[-1] = (out[-1][0], b, c)
            else:
                out.append((a, b, c))
        return out

    def blocks(self, col: int = 0) -> list:
        return [c for _, _, c in self.runs(col)]


def _shift_free(c: Content) -> bool:
    return all(a is None for a, _, _ in c.terms)


def _sorted_points(points: Iterable[Lin], facts: Facts) -> list:
    """Breakpoints in increasing order; equal ones (as proved) merged."""
    out: list = []
    for p in dict.fromkeys(points):
        placed = False
        for k, q in enumerate(out):
            if facts.eq(p, q) is True:
                placed = True
                break
            if facts.le(p, q):
                out.insert(k, p)
                placed = True
                break
            if not facts.le(q, p):
                raise Undecided(f"whether {p} <= {q}", str(facts), (p, q))
        if not placed:
            out.append(p)
    # check the order is total (insertion compared p only with the first larger)
    for a, b in zip(out, out[1:]):
        if facts.le(a, b) is None:
            raise Undecided(f"whether {a} <= {b}", str(facts), (a, b))
    return out


def _index(points: list, p: Lin, facts: Facts) -> int:
    for k, q in enumerate(points):
        if q == p or facts.eq(p, q) is True:
            return k
    raise AssertionError(f"breakpoint {p} missing")  # pragma: no cover


def refine(columns: Sequence, facts: Facts, lo: LinLike = 0, hi: LinLike | None = None) -> Refined:
    """Common runs of several columns (PSeq or piece tuples) over [lo, hi).

    ``hi`` defaults to the largest end (or the PSeq length).  Raises
    :class:`Undecided` naming the first pair of offsets the hypotheses cannot order.

    >>> from symconv.parametric.linear import Facts, ge
    >>> n = size("n")
    >>> [str(p) for p in refine([pones(n) | pzeros(n)], Facts.of(ge(n, 1))).points]
    ['0', 'n', '2n']
    """
    piece_lists = [tuple(c.pieces) if isinstance(c, PSeq) else tuple(c) for c in columns]
    piece_lists = [_drop_empty(ps, facts) for ps in piece_lists]
    pts = [lin(lo)]
    for c in columns:
        if isinstance(c, PSeq):
            pts.append(c.length)
    if hi is not None:
        pts.append(lin(hi))
    for ps in piece_lists:
        for p in ps:
            pts += [p.start, p.end]
    points = _sorted_points(pts, facts)
    if hi is not None:
        points = points[: _index(points, lin(hi), facts) + 1]
    points = points[_index(points, lin(lo), facts):]
    contents = []
    for ps in piece_lists:
        runs: list = [[] for _ in range(len(points) - 1)]
        for p in ps:
            i0, i1 = _index(points, p.start, facts), _index(points, p.end, facts)
            sh = p.lo - p.start
            for i in range(i0, i1):
                if p.atom is not None and _outside(p.atom, points[i] + sh, points[i + 1] + sh, facts):
                    continue
                runs[i].append((p.atom, sh, p.coef))
        contents.append(tuple(_merge(r, facts) for r in runs))
    return Refined(tuple(points), tuple(contents), facts)


def from_runs(length: Lin, runs: Iterable) -> PSeq:
    """A PSeq from (start, stop, content) runs.

    >>> from symconv.parametric.linear import Facts
    >>> from_runs(lin(2), refine([pones(2)], Facts()).runs()).pieces[0].coef
    Fraction(1, 1)
    """
    out = []
    for a, b, c in runs:
        for atom, shift, coef in c.terms:
            out.append(Piece(a, b - a, coef, atom, a + shift if atom is not None else Lin()))
    return PSeq(length, tuple(out))


def hadamard(a: PSeq, b: PSeq, facts: Facts) -> PSeq:
    """a ⊙ b, block by block over their common runs.

    >>> from symconv.parametric.linear import size, Facts, ge
    >>> n, N = size("n"), size("N")
    >>> f = Facts.of(ge(n, 1), ge(N, 2 * n))
    >>> mask = pzeros(n) | pones(n) | pzeros(N - 2 * n)
    >>> y = psym("x", n) | psym("S", n) | pzeros(N - 2 * n)
    >>> [str(c) for c in refine([hadamard(mask, y, f)], f).blocks()]
    ['0', 'S', '0']
    """
    r = refine([a, b], facts, 0, a.length)
    runs = []
    for i in range(len(r.points) - 1):
        start = r.points[i]
        terms = []
        for a1, s1, c1 in r.contents[0][i].terms:
            for a2, s2, c2 in r.contents[1][i].terms:
                if a1 is None:
                    terms.append((a2, s2, c1 * c2))
                elif a2 is None:
                    terms.append((a1, s1, c1 * c2))
                else:
                    terms.append((phad_atom(a1, a2, s2 - s1), s1, c1 * c2))
        runs.append((start, r.points[i + 1], _merge(terms, facts)))
    return from_runs(a.length, runs)


def phad_atom(a: Atom, b: Atom, delta: LinLike = 0) -> Atom:
    """The block a ⊙ b (b read ``delta`` rows further on), of a's length."""
    return Atom("had", a.length, "had", (a, b), (lin(delta),))


def phad(a: PSeq, b: PSeq) -> PSeq:
    """a ⊙ b for two whole named blocks placed at row 0 (p ⊙ (h ∗ x) in Prop. H.10).

    >>> str(phad(psym("p", 2), psym("q", 3)).pieces[0].atom.text())
    '(p ⊙ q)'
    """
    for name, v in (("a", a), ("b", b)):
        if len(v.pieces) != 1 or v.pieces[0].atom is None or v.pieces[0].start != Lin():
            raise HypothesisError(f"{name}: phad takes a single named block at row 0")
    pa, pb = a.pieces[0], b.pieces[0]
    atom = phad_atom(pa.atom, pb.atom, pb.lo - pa.lo)
    return PSeq(a.length, (Piece(Lin(), pa.length, pa.coef * pb.coef, atom, pa.lo),), a.nonneg + b.nonneg)


def pconv(h: PSeq, x: PSeq) -> PSeq:
    """The full product h(X)·x(X) of two whole named blocks, as one block of length |h| + |x| − 1.

    >>> str(pconv(psym("h", size("n")), psym("x", size("n"))).length)
    '2n - 1'
    """
    for name, v in (("h", h), ("x", x)):
        p = v.pieces[0] if len(v.pieces) == 1 else None
        if p is None or p.atom is None or p.start != Lin() or p.lo != Lin() or p.length != p.atom.length:
            raise HypothesisError(f"{name}: pconv takes a single whole named block")
    atom = Atom("conv", h.length + x.length - 1, "conv", (h.pieces[0].atom, x.pieces[0].atom))
    return PSeq(atom.length, (Piece(Lin(), atom.length, Fraction(1), atom),), h.nonneg + x.nonneg + (atom.length,))


def _outside(atom: Atom, lo: Lin, hi: Lin, facts: Facts) -> bool:
    """Rows [lo, hi) of a product block are provably zero (outside where both factors live)."""
    if atom.op != "had":
        return False
    a, b = atom.args
    (delta,) = atom.offsets
    return bool(facts.le(hi, 0) or facts.le(hi, -delta) or facts.le(a.length, lo) or facts.le(b.length - delta, lo))


def add(a: PSeq, b: PSeq) -> PSeq:
    """a + b for columns of the same length (pieces are kept side by side).

    >>> len(add(pones(2), punit(0, 2)).pieces)
    2
    """
    return PSeq(a.length, a.pieces + b.pieces, a.nonneg + b.nonneg)


def pmatmul(seq: PSeq, W: str) -> PSeq:
    """seq·W row by row, for a named d×d parameter matrix W (each named block b becomes b·W).

    Constant runs are not expanded (their image 1·W is a row of column sums): they raise
    :class:`Unsupported`, and the all-sizes check falls back to the concrete sweep.

    >>> pmatmul(psym("u", size("N")), "W").pieces[0].atom.text()
    '(u·W)'
    """
    out = []
    for p in seq.pieces:
        if p.atom is None:
            raise Unsupported(f"a constant run times the matrix {W}")
        out.append(Piece(p.start, p.length, p.coef, Atom(W, p.atom.length, "mat", (p.atom,)), p.lo))
    return PSeq(seq.length, tuple(out), seq.nonneg)
