"""Checking a construction for all sizes at once, in block notation.

A proof file describes a variant with symbolic sizes as a :class:`Description`:
input column, layers (:class:`PLayer`: filter, gate bias b1, bias b2, W = 0),
expected output and the claimed intermediate states (:class:`PStep`), plus
the hypotheses as linear inequalities.  :func:`check` runs the layers in the
block algebra of :mod:`symconv.parametric.algebra` and compares every state
run by run, exactly as the proofs of Prop. H.8–H.10 read off blocks after a
polynomial product and a Hadamard mask.  The answer holds for every size the
hypotheses allow, or names the first comparison the hypotheses leave open.

:func:`instantiate` turns a description back into concrete blocks and layer
parameters at given sizes, so that the description can be compared with the
stack a variant actually builds (:func:`cross_check`).

>>> from symconv.parametric import X, psym, pzeros, size, ge
>>> def describe(z):
...     s, N = z["s"], z["N"]
...     y = psym("y", N)
...     return Description(y, (PLayer(X**s, 1),), pzeros(s) | y.rows(0, N - s), facts=(ge(N - 1, s),))
>>> r = check(describe({"s": size("s"), "N": size("N")}), base_facts({"s": 0, "N": 1}))
>>> r.status
'holds'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import sympy

from ..model import HypothesisError
from .algebra import (
    Atom, Content, PFilter, content_text, PSeq, Piece, Refined, Undecided, add, as_filter, causal, circular,
    hadamard, multiply, pconst, pmatmul, refine,
)
from .linear import Facts, Lin, lin, size


@dataclass(frozen=True)
class PLayer:
    """One layer ``(u·W + b1) ⊙ (h * u + b2)`` with symbolic sizes.

    ``h``: a PFilter, an int or a block column; ``b1``, ``b2``: block columns or
    integers (a constant column).  ``W``: ``None`` for W = 0 (most of Appendix H),
    or the name of a d×d parameter matrix (``"W1"``): the gate is then u·W + b1,
    row by row.  ``conv``: ``"causal"`` or ``"circular"``.

    >>> PLayer(1, 1).conv, PLayer(0, 0, 1, W="W").W
    ('causal', 'W')
    """

    h: Any
    b1: Any
    b2: Any = 0
    conv: str = "causal"
    label: str = ""
    W: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "h", as_filter(self.h))
        if self.conv not in ("causal", "circular"):
            raise HypothesisError(f"conv: unknown convolution mode {self.conv!r}")
        if self.W is not None:
            from .algebra import _NAME

            if not isinstance(self.W, str) or not _NAME.match(self.W):
                raise HypothesisError(f"W: the name of a d×d parameter matrix (letters, digits, _), got {self.W!r}")

    def column(self, name: str, length: Lin) -> PSeq:
        v = getattr(self, name)
        if isinstance(v, PSeq):
            return v
        return pconst(v, length)


@dataclass(frozen=True)
class PStep:
    """A state the proof claims after the first ``layers`` layers."""

    label: str
    layers: int
    expected: PSeq


@dataclass(frozen=True)
class Description:
    """A variant with symbolic sizes: input, layers, expected output, steps, hypotheses.

    ``facts``: forms ``f`` meaning ``f >= 0`` (see :func:`~symconv.parametric.linear.ge`);
    ``N_int``: internal length (default: the input length).  Every channel runs
    the same filter and biases and W = 0, so one channel stands for all d.
    """

    input: PSeq
    layers: tuple
    expected: PSeq
    steps: tuple = ()
    facts: tuple = ()
    N_int: Any = None
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "layers", tuple(self.layers))
        object.__setattr__(self, "steps", tuple(self.steps))
        if self.N_int is None:
            object.__setattr__(self, "N_int", self.input.length)
        object.__setattr__(self, "N_int", lin(self.N_int))
        for i, l in enumerate(self.layers):
            if not isinstance(l, PLayer):
                raise HypothesisError(f"layers[{i}]: expected a PLayer, got {type(l).__name__}")


@dataclass(frozen=True)
class Induction:
    """A route proved block by block: every part (label, Description) must hold for all sizes.

    For a route whose number of layers is itself a size (L Hyena layers in
    Prop. H.12), the parts are its first blocks and one generic later block on an
    arbitrary input state; together they prove the route for every L by induction.
    """

    parts: tuple
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", tuple(self.parts))
        for i, part in enumerate(self.parts):
            if not (isinstance(part, tuple) and len(part) == 2 and isinstance(part[1], (Description, Cases))):
                raise HypothesisError(f"parts[{i}]: expected (label, Description)")


@dataclass(frozen=True)
class Cases:
    """Two descriptions for the cases ``a <= b`` (``le``) and ``a > b`` (``gt``).

    For constructions whose offsets are a max or a min of sizes (Prop. H.10's
    corrected copy offset); branches may be Cases again.  ``facts`` are the
    hypotheses common to both.

    >>> c = Cases(size("s"), 0, "first", "second")
    >>> c.pick({"s": 0}), c.pick({"s": 2})
    ('first', 'second')
    """

    a: Any
    b: Any
    le: Any
    gt: Any
    facts: tuple = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", lin(self.a))
        object.__setattr__(self, "b", lin(self.b))

    def pick(self, sizes: Mapping[str, int]):
        """The description for concrete sizes."""
        branch = self.le if self.a.at(sizes) <= self.b.at(sizes) else self.gt
        return branch.pick(sizes) if isinstance(branch, Cases) else branch

    def leaves(self, facts: Facts) -> list:
        """(facts, description, case text) for every branch, facts including the case."""
        out = []
        f_le, f_gt = (facts + Facts.of(*self.facts)).cases(self.a, self.b)
        for f, branch, text in ((f_le, self.le, f"{self.a} <= {self.b}"), (f_gt, self.gt, f"{self.a} > {self.b}")):
            if isinstance(branch, Cases):
                out += [(g, d, text + ", " + t) for g, d, t in branch.leaves(f)]
            else:
                out.append((f, branch, text))
        return out


def base_facts(lower: Mapping[str, int], upper: Mapping[str, int] | None = None) -> Facts:
    """Facts ``name >= lo`` (and ``name <= hi``) for the size symbols.

    >>> str(base_facts({"n": 1}))
    'n - 1 >= 0'
    """
    forms = [size(k) - v for k, v in lower.items()]
    forms += [v - size(k) for k, v in (upper or {}).items()]
    return Facts.of(*forms)


@dataclass(frozen=True)
class Mismatch:
    """Where two columns differ: run [start, stop), got and expected content."""

    label: str
    layer: int
    start: Lin
    stop: Lin
    got: str
    expected: str
    everywhere: bool
    certain: bool
    when: str = ""

    def where(self) -> str:
        """The condition on the sizes under which the columns differ."""
        if self.everywhere:
            return "for all sizes"
        return self.when or f"{self.start} < {self.stop}"

    def describe(self) -> str:
        where = "for all sizes" if self.everywhere else f"where {self.where()}"
        return (f"{self.label} (after layer {self.layer}), rows [{self.start}, {self.stop}): "
                f"got {self.got}, expected {self.expected} ({where})")


@dataclass(frozen=True)
class PStepResult:
    label: str
    first_layer: int
    last_layer: int
    status: str
    mismatch: Mismatch | None = None
    question: str = ""


@dataclass(frozen=True)
class PResult:
    """``status``: "holds", "fails" or "undecided" (then ``question`` says which comparison)."""

    status: str
    facts: str
    mismatch: Mismatch | None = None
    question: str = ""
    steps: tuple = ()
    split: tuple | None = None
    cases: tuple = ()


def _well_formed(desc: Description, facts: Facts) -> None:
    """Every block length, window and column length of the description makes sense."""
    cols = [("input", desc.input), ("expected", desc.expected)]
    cols += [(f"step {s.label}", s.expected) for s in desc.steps]
    for k, l in enumerate(desc.layers, start=1):
        for name in ("b1", "b2"):
            col = getattr(l, name)
            if isinstance(col, PSeq):
                cols.append((f"layer {k} {name}", col))
                if facts.eq(col.length, desc.N_int) is not True:
                    raise Undecided(f"whether layer {k} {name} has N' = {desc.N_int} rows (it has {col.length})",
                                    str(facts))
    for where, col in cols:
        for f in col.nonneg:
            if facts.le(0, f) is not True:
                raise Undecided(f"whether {f} >= 0 ({where}: a block length or window)", str(facts))
        for p in col.pieces:
            if facts.le(0, p.start) is not True or facts.le(0, p.length) is not True:
                raise Undecided(f"whether the block at {p.start} of length {p.length} is placed ({where})",
                                str(facts))


def _checked_input(desc: Description, facts: Facts) -> PSeq:
    _well_formed(desc, facts)
    for p in desc.input.pieces:
        if facts.le(p.end, desc.input.length) is not True:
            raise Undecided(f"whether the block ending at {p.end} fits in {desc.input.length}", str(facts))
    if facts.le(desc.input.length, desc.N_int) is not True:
        raise Undecided(f"whether {desc.input.length} <= N' = {desc.N_int}", str(facts))
    return desc.input.at(desc.N_int)


def apply(layer: PLayer, state: PSeq, facts: Facts) -> PSeq:
    """One layer on a symbolic column of length N'.

    >>> from symconv.parametric import X, psym, pzeros, size
    >>> N = size("N")
    >>> out = apply(PLayer(X**1, 1), psym("y", N), base_facts({"N": 1}))
    >>> [str(p.length) for p in out.pieces]
    ['N - 1']
    """
    N = state.length
    prod = multiply(layer.h, state, facts)
    conv = causal(prod, N, facts) if layer.conv == "causal" else circular(prod, N, facts)
    gate = layer.column("b1", N)
    if layer.W is not None:
        gate = add(pmatmul(state, layer.W), gate)
    return hadamard(gate, add(conv, layer.column("b2", N)), facts)


def run(desc: Description, facts: Facts, state: PSeq, start: int, stop: int | None) -> PSeq:
    """Layers ``start..stop−1`` of a description on a state (see :func:`apply`)."""
    for layer in desc.layers[start:stop]:
        state = apply(layer, state, facts)
    return state


def compare(got: PSeq, exp: PSeq, facts: Facts, label: str, layer: int) -> Mismatch | None:
    """The first run where two columns of equal length differ, or None.

    >>> from symconv.parametric import pones, pzeros, size
    >>> n = size("n")
    >>> compare(pones(n) | pzeros(n), pzeros(2 * n), base_facts({"n": 1}), "z", 1).describe()
    'z (after layer 1), rows [0, n): got 1, expected 0 (for all sizes)'
    """
    if facts.eq(got.length, exp.length) is not True:
        raise Undecided(f"whether the lengths {got.length} and {exp.length} agree ({label})", str(facts))
    r = refine([got, exp], facts, 0, got.length)
    runs = len(r.points) - 1
    empty = [facts.le(r.points[k + 1], r.points[k]) is True for k in range(runs)]
    kind = [_differs(r.contents[0][k], r.contents[1][k], facts) if not empty[k] else "no" for k in range(runs)]
    if all(x == "no" for x in kind):
        return None
    i = next(k for k in range(runs) if kind[k] != "no")
    j = i
    if kind[i] == "yes":  # consecutive runs that surely differ (or are empty): one region
        while j + 1 < runs and (kind[j + 1] == "yes" or empty[j + 1]):
            j += 1
    region = [k for k in range(i, j + 1) if kind[k] != "no"]
    shown = next((k for k in region if facts.lt(r.points[k], r.points[k + 1]) is True), i)
    a, b = r.points[shown], r.points[shown + 1]
    g, e = r.contents[0][shown], r.contents[1][shown]
    atoms = {t[0] for k in region for t in r.contents[0][k].terms + r.contents[1][k].terms if t[0] is not None}
    certain = kind[i] == "yes" and all(x.is_input() for x in atoms)
    # a region of runs that surely differ differs at every size where it is non-empty
    everywhere = kind[i] == "yes" and facts.lt(r.points[i], r.points[j + 1]) is True
    when = "" if kind[i] == "yes" else f"{a} < {b} and the rows named differ (they may coincide)"
    return Mismatch(label, layer, a, b, content_text(g, a, b, facts), content_text(e, a, b, facts),
                    everywhere, certain, when)


def _differs(g: Content, e: Content, facts: Facts) -> str:
    """"no": the same; "yes": different wherever the run is non-empty; "maybe": rows of one
    block at shifts the facts cannot tell apart might coincide."""
    if _same_content(g, e, facts):
        return "no"
    diff: list = [(a, s, c) for a, s, c in g.terms] + [(a, s, -c) for a, s, c in e.terms]
    merged: list = []
    for atom, shift, c in diff:  # add up terms proved to be the same rows
        for k, (a2, s2, c2) in enumerate(merged):
            if a2 == atom and (atom is None or facts.eq(shift, s2) is True):
                merged[k] = (a2, s2, c2 + c)
                break
        else:
            merged.append((atom, shift, c))
    merged = [t for t in merged if t[2] != 0]
    if not merged:
        return "no"
    for x, (a1, s1, _) in enumerate(merged):
        for a2, s2, _ in merged[x + 1:]:
            if a1 is not None and a1 == a2 and facts.eq(s1, s2) is not False:
                return "maybe"
    return "yes"


def _same_content(g: Content, e: Content, facts: Facts) -> bool:
    """Equal term by term, shifts compared under the facts (not only as written)."""
    if g == e:
        return True
    if len(g.terms) != len(e.terms):
        return False
    rest = list(e.terms)
    for atom, shift, c in g.terms:
        for k, (a2, s2, c2) in enumerate(rest):
            if a2 == atom and c2 == c and (atom is None or facts.eq(shift, s2) is True):
                del rest[k]
                break
        else:
            return False
    return True


def check(desc: Description, facts: Facts, depth: int = 6) -> PResult:
    """Check for every size the facts (and the description's hypotheses) allow.

    When a comparison is open, the check splits into the cases a <= b and
    a > b (at most ``depth`` splits deep) and combines them: it holds when every
    case holds, fails when one fails (for all sizes when every case fails on a
    run that is never empty), and is undecided otherwise.

    >>> from symconv.parametric import psym, pzeros, size
    >>> n = size("n")
    >>> check(Description(psym("x", n), (PLayer(1, 1),), psym("x", n)), base_facts({"n": 1})).status
    'holds'
    """
    if isinstance(desc, Induction):
        results = [(label, check(d, facts, depth)) for label, d in desc.parts]
        for label, r in results:
            if r.status != "holds":
                m = r.mismatch
                if m is not None:
                    m = Mismatch(f"{label}: {m.label}", m.layer, m.start, m.stop, m.got, m.expected, m.everywhere,
                                 m.certain, m.when)
                return PResult(r.status, r.facts, m, r.question and f"{r.question} (part {label})",
                               cases=tuple(f"{t}: {r2.status}" for t, r2 in results))
        return PResult("holds", str(facts), cases=tuple(f"{t}: holds" for t, _ in results))
    if isinstance(desc, Cases):
        results = [(text, _cases(d, f + Facts.of(*d.facts), depth)) for f, d, text in desc.leaves(facts)]
        return _join_leaves(results, str(facts + Facts.of(*desc.facts)))
    return _cases(desc, facts + Facts.of(*desc.facts), depth)


def _join_leaves(results: list, fs: str) -> PResult:
    """Combine the results of exhaustive cases, given as (case text, PResult)."""
    cases = tuple(f"{t}: {c}" for t, r in results for c in (r.cases or (r.status,)))
    steps = _merge_steps(*(r.steps for _, r in results))
    if all(r.status == "holds" for _, r in results):
        return PResult("holds", fs, cases=cases, steps=steps)
    failing = [(t, r) for t, r in results if r.status == "fails"]
    if failing:
        m = failing[0][1].mismatch
        everywhere = len(failing) == len(results) and all(r.mismatch.everywhere and r.mismatch.certain
                                                          for _, r in failing)
        when = "" if everywhere else " or ".join(
            f"[{t}]" if r.mismatch.everywhere else f"[{t}, {r.mismatch.where()}]" for t, r in failing)
        m = Mismatch(m.label, m.layer, m.start, m.stop, m.got, m.expected, everywhere, m.certain, when)
        return PResult("fails", fs, m, cases=cases, steps=steps)
    t, r = [(t, r) for t, r in results if r.status == "undecided"][0]
    return PResult("undecided", fs, question=f"{r.question} (case {t})", cases=cases)


def _cases(desc: Description, facts: Facts, depth: int) -> PResult:
    fs = str(facts)
    if not facts.consistent():
        return PResult("holds", fs, cases=("no sizes",))
    r = _check_once(desc, facts)
    if r.status != "undecided" or r.split is None or depth <= 0:
        return r
    a, b = r.split
    left, right = (_cases(desc, f, depth - 1) for f in facts.cases(a, b))
    return _join_leaves([(f"{a} <= {b}", left), (f"{a} > {b}", right)], fs)


def _merge_steps(*runs: tuple) -> tuple:
    """Per step, the first result that does not hold (else the first)."""
    if not runs or not all(runs) or len({len(r) for r in runs}) != 1:
        return runs[0] if runs else ()
    return tuple(next((x for x in group if x.status != "holds"), group[0]) for group in zip(*runs))


def _check_once(desc: Description, facts: Facts) -> PResult:
    fs = str(facts)
    try:
        x0 = _checked_input(desc, facts)
        L = len(desc.layers)
        steps = sorted(desc.steps, key=lambda s: s.layers)
        for s in steps:
            if not 0 <= s.layers <= L:
                raise HypothesisError(f"{s.label}: step after layer {s.layers} but there are {L} layers")
        mismatch, state, done = None, x0, 0
        for s in steps:
            state = run(desc, facts, state, done, s.layers)
            done = s.layers
            mismatch = compare(state, s.expected.at(desc.N_int), facts, s.label, s.layers)
            if mismatch:
                break
        if mismatch is None:
            state = run(desc, facts, state, done, None)
            out = causal(state.pieces, desc.expected.length, facts)
            mismatch = compare(out, desc.expected, facts, "output", L)
        results = []
        prev, prev_layers = x0, 0
        for s in steps:
            got = run(desc, facts, prev, prev_layers, s.layers)
            m = compare(got, s.expected.at(desc.N_int), facts, s.label, s.layers)
            results.append(PStepResult(s.label, prev_layers + 1, s.layers, "fails" if m else "holds", m))
            prev, prev_layers = s.expected.at(desc.N_int), s.layers
    except Undecided as exc:
        return PResult("undecided", fs, question=exc.question, split=exc.split)
    status = "holds" if mismatch is None else "fails"
    return PResult(status, fs, mismatch, "", tuple(results))


# ---------------------------------------------------------------- instantiation


def _atom_entry(atom: Atom, i: int, j: int, sizes: Mapping[str, int], cache: dict, values=None) -> sympy.Expr:
    key = (atom, i, j)
    if key in cache:
        return cache[key]
    n = atom.length.at(sizes)
    if not 0 <= i < n:
        raise HypothesisError(f"{atom.text()}: row {i} is outside its length {n}")
    if atom.is_input():
        if values is not None and atom.name in values:
            a = values[atom.name]
            v = a[i, j if a.shape[1] > 1 else 0]
            if isinstance(v, np.integer):
                v = int(v)
            elif isinstance(v, np.floating):
                v = float(v)
        else:
            v = sympy.Symbol(f"{atom.name}[{i},{j}]")
    elif atom.op == "conv":
        a, b = atom.args
        na, nb = a.length.at(sizes), b.length.at(sizes)
        v = sympy.Integer(0)
        for k in range(max(0, i - nb + 1), min(na, i + 1)):
            v += _atom_entry(a, k, j, sizes, cache, values) * _atom_entry(b, i - k, j, sizes, cache, values)
    elif atom.op == "mat":
        (a,) = atom.args
        d = cache.get("__d__", 1)
        W = values.get(atom.name) if values is not None else None
        v = sympy.Integer(0)
        for k in range(d):
            w = W[k, j] if W is not None else sympy.Symbol(f"{atom.name}[{k},{j}]")
            v += _atom_entry(a, i, k, sizes, cache, values) * w
    else:
        (a, b), (delta,) = atom.args, atom.offsets
        k = i + delta.at(sizes)
        if 0 <= k < b.length.at(sizes):
            v = _atom_entry(a, i, j, sizes, cache, values) * _atom_entry(b, k, j, sizes, cache, values)
        else:
            v = sympy.Integer(0)
    cache[key] = v
    return v


def _column_rows(seq: PSeq, sizes: Mapping[str, int]) -> tuple[int, list]:
    """(length, [(piece, start, rows)]) of a column at concrete sizes, every piece checked to fit."""
    L = seq.length.at(sizes)
    if L < 0:
        raise HypothesisError(f"sizes: column length {seq.length} is negative at {dict(sizes)}")
    placed = []
    for p in seq.pieces:
        a, n = p.start.at(sizes), p.length.at(sizes)
        if n <= 0:
            continue
        if a < 0 or a + n > L:
            raise HypothesisError(f"sizes: a block at rows [{a}, {a + n}) leaves the column of length {L}")
        placed.append((p, a, n))
    return L, placed


def instantiate(seq: PSeq, sizes: Mapping[str, int], d: int = 1, values=None) -> np.ndarray:
    """The column at concrete sizes, as a length×d object array of sympy entries.

    >>> from symconv.parametric import psym, pzeros, size
    >>> instantiate(pzeros(1) | psym("y", size("N")), {"N": 2})[:, 0].tolist()
    [0, y[0,0], y[1,0]]
    """
    L, placed = _column_rows(seq, sizes)
    out = np.empty((L, d), dtype=object)
    out[...] = sympy.Integer(0)
    cache: dict = {"__d__": d}
    for p, a, n in placed:
        c = sympy.Rational(p.coef.numerator, p.coef.denominator)
        lo = p.lo.at(sizes)
        for i in range(n):
            for j in range(d):
                if p.atom is None:
                    v = c
                else:
                    e = _atom_entry(p.atom, lo + i, j, sizes, cache, values)
                    v = e if c == 1 else c * e
                out[a + i, j] = v if out[a + i, j] == 0 else out[a + i, j] + v
    return out


def filter_taps(h: PFilter, sizes: Mapping[str, int], d: int = 1, values=None) -> np.ndarray:
    """The filter at concrete sizes as a K×d array of taps (K = highest offset + 1).

    >>> from symconv.parametric import X
    >>> filter_taps(1 + X**2, {}).ravel().tolist()
    [1, 0, 1]
    """
    entries: dict = {}
    for t in h.terms:
        k = t.offset.at(sizes)
        if k < 0:
            raise HypothesisError(f"h: filter offset {t.offset} is negative at {dict(sizes)}")
        c = sympy.Rational(t.coef.numerator, t.coef.denominator)
        if t.atom is None:
            for j in range(d):
                entries[(k, j)] = entries.get((k, j), 0) + c
        else:
            cache: dict = {"__d__": d}
            for i in range(t.atom.length.at(sizes)):
                for j in range(d):
                    e = _atom_entry(t.atom, i, j, sizes, cache, values)
                    entries[(k + i, j)] = entries.get((k + i, j), 0) + (e if c == 1 else c * e)
    K = max([k for k, _ in entries] + [0]) + 1
    out = np.empty((K, d), dtype=object)
    out[...] = sympy.Integer(0)
    for (k, j), v in entries.items():
        out[k, j] = v
    return out


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape:
        return False
    return all(sympy.expand(sympy.sympify(x, strict=True) - sympy.sympify(y, strict=True)) == 0 for x, y in zip(a.flat, b.flat))


def _broadcast(a: np.ndarray, rows: int, cols: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(a, dtype=object), (rows, cols))


def _pad(a: np.ndarray, rows: int) -> np.ndarray:
    a = np.asarray(a, dtype=object)
    if a.shape[0] >= rows:
        return a[:rows]
    pad = np.empty((rows - a.shape[0], a.shape[1]), dtype=object)
    pad[...] = sympy.Integer(0)
    return np.concatenate([a, pad], axis=0)


def _valued_column(seq: PSeq, sizes: Mapping[str, int], d: int, values) -> np.ndarray | None:
    """The column as an L×d array by slices, when every piece is a constant run or a whole window of a
    named block whose values are given (the fast path for long concrete stacks); None otherwise."""
    if values is None or not seq.pieces:
        return None
    for p in seq.pieces:
        if p.atom is not None and (not p.atom.is_input() or p.atom.name not in values):
            return None
    L, placed = _column_rows(seq, sizes)
    vals = [np.asarray(values[p.atom.name]) for p in seq.pieces if p.atom is not None]
    numeric = all(v.dtype != object for v in vals)
    out = np.zeros((L, d), dtype=np.result_type(*[v.dtype for v in vals], np.int64) if numeric else object)
    for p, a, n in placed:
        c = int(p.coef) if p.coef.denominator == 1 else (float(p.coef) if numeric else p.coef)
        if p.atom is None:
            out[a:a + n] = out[a:a + n] + c
            continue
        v = np.asarray(values[p.atom.name])
        lo = p.lo.at(sizes)
        if lo < 0 or lo + n > v.shape[0]:
            raise HypothesisError(f"{p.atom.name}: rows [{lo}, {lo + n}) are outside its {v.shape[0]} rows")
        block = np.broadcast_to(v[lo:lo + n], (n, d)) if v.shape[1] in (1, d) else None
        if block is None:
            raise HypothesisError(f"{p.atom.name}: has {v.shape[1]} channels, expected {d} or 1")
        out[a:a + n] = out[a:a + n] + (block if c == 1 else c * block)
    return out


def _constant_column(seq: PSeq, sizes: Mapping[str, int]) -> np.ndarray | None:
    """An (L, 1) object array of numbers for a column with no named blocks (None otherwise); fast for long columns."""
    if any(p.atom is not None for p in seq.pieces):
        return None
    L, placed = _column_rows(seq, sizes)
    out = np.zeros((L, 1), dtype=object)
    for p, a, n in placed:
        c = int(p.coef) if p.coef.denominator == 1 else p.coef
        out[a:a + n, 0] = out[a:a + n, 0] + c
    if L and all(v == out[0, 0] for v in out[:, 0]):
        return out[:1]  # one row, broadcast over N'
    return out


def _valued_taps(h: PFilter, sizes: Mapping[str, int], d: int, values) -> np.ndarray | None:
    """A filter of constant terms and named blocks with given values, as a K×d array by slices (else None)."""
    if values is None:
        return None
    for t in h.terms:
        if t.atom is not None and (not t.atom.is_input() or t.atom.name not in values):
            return None
    K = 1
    for t in h.terms:
        k = t.offset.at(sizes)
        if k < 0:
            raise HypothesisError(f"h: filter offset {t.offset} is negative at {dict(sizes)}")
        K = max(K, k + (t.atom.length.at(sizes) if t.atom is not None else 1))
    pieces = tuple(Piece(t.offset, t.atom.length if t.atom is not None else Lin((), 1), t.coef, t.atom, Lin())
                   for t in h.terms)
    return _valued_column(PSeq(lin(K), pieces), sizes, d, values)


def _constant_taps(h: PFilter, sizes: Mapping[str, int]) -> np.ndarray | None:
    if any(t.atom is not None for t in h.terms):
        return None
    entries: dict = {}
    for t in h.terms:
        k = t.offset.at(sizes)
        if k < 0:
            raise HypothesisError(f"h: filter offset {t.offset} is negative at {dict(sizes)}")
        entries[k] = entries.get(k, 0) + t.coef
    K = max(list(entries) + [0]) + 1
    out = np.zeros((K, 1), dtype=object)
    for k, c in entries.items():
        out[k, 0] = int(c) if c.denominator == 1 else c
    return out


def layer_at(pl: PLayer, N_int, sizes: Mapping[str, int], d: int = 1, values=None):
    """The concrete :class:`~symconv.model.Layer` of a PLayer on an N'×d state at ``sizes``.

    Constant filters and masks become short integer arrays (one column, broadcast
    over the channels), so long concrete stacks stay cheap.

    >>> from symconv.parametric import X, size
    >>> l = layer_at(PLayer(X**size("s"), 1), 5, {"s": 2})
    >>> l.h.ravel().tolist(), l.b1.shape
    ([0, 0, 1], (1, 1))
    """
    from ..model import Layer

    N_int = lin(N_int)
    Ni = N_int.at(sizes)
    if pl.W is None:
        W = np.zeros((d, d), dtype=int).astype(object)
    elif values is not None and pl.W in values:
        W = np.asarray(values[pl.W], dtype=object)
    else:
        W = np.empty((d, d), dtype=object)
        for k in range(d):
            for j in range(d):
                W[k, j] = sympy.Symbol(f"{pl.W}[{k},{j}]")
    h = _constant_taps(pl.h, sizes)
    if h is None:
        h = _valued_taps(pl.h, sizes, d, values)
    if h is None:
        h = filter_taps(pl.h, sizes, d, values)
    h = _fold(h, Ni) if pl.conv == "circular" and h.shape[0] > Ni else h[:Ni]
    if not h.shape[0]:
        h = np.zeros((1, h.shape[1]), dtype=object)
    if h.shape[1] != d:
        h = np.repeat(h, d, axis=1)  # the same taps in every channel
    cols = {}
    for name in ("b1", "b2"):
        col = pl.column(name, N_int)
        c = _constant_column(col, sizes)
        if c is None:
            c = _valued_column(col, sizes, d, values)
        cols[name] = c if c is not None else instantiate(col, sizes, d, values)
    return Layer(W=W, h=h, b1=cols["b1"], b2=cols["b2"], conv=pl.conv, label=pl.label)


def _as_values(v: Any, name: str) -> np.ndarray:
    from ..model import as_param

    return as_param(v, name)


def stack_at(layers: Sequence[PLayer], N, N_int, sizes: Mapping[str, int] | None = None, d: int = 1,
             name: str = "", values: Mapping[str, Any] | None = None):
    """The concrete :class:`~symconv.model.Stack` of PLayers (sizes may be plain integers).

    >>> from symconv.parametric import X
    >>> stack_at((PLayer(X**1, 1),), 4, 4).signature.L
    1

    ``values`` gives the entries of named blocks (parameters such as the filter h or
    the gate p of Prop. H.10) instead of symbols.
    """
    from ..model import Stack

    sizes = dict(sizes or {})
    Ni = lin(N_int).at(sizes)
    vals = None if values is None else {k: _as_values(v, k) for k, v in values.items()}
    return Stack(lin(N).at(sizes), d, tuple(layer_at(pl, N_int, sizes, d, vals) for pl in layers), Ni, d, name=name)


def instance_at(desc, sizes: Mapping[str, int], d: int = 1):
    """The concrete :class:`~symconv.claims.Instance` a description stands for at ``sizes``.

    >>> from symconv.parametric import X, psym, pzeros, size
    >>> from symconv.claims import check_instance
    >>> N, s = size("N"), size("s")
    >>> desc = Description(psym("y", N), (PLayer(X**s, 1),), pzeros(s) | psym("y", N).rows(0, N - s))
    >>> check_instance(instance_at(desc, {"N": 4, "s": 1}), {"N": 4, "s": 1})[0] is None
    True
    """
    from ..blocks import Block
    from ..claims import Instance, Step

    if isinstance(desc, Cases):
        desc = desc.pick(sizes)
    stack = stack_at(desc.layers, desc.input.length, desc.N_int, sizes, d, name=desc.note or "description")
    steps = tuple(Step(s.label, s.layers, Block(instantiate(s.expected.at(desc.N_int), sizes, d), s.label))
                  for s in desc.steps)
    return Instance(Block(instantiate(desc.input, sizes, d), "input"), stack,
                    Block(instantiate(desc.expected, sizes, d), "expected"), steps)


def _fold(a: np.ndarray, N: int) -> np.ndarray:
    out = _pad(np.empty((0, a.shape[1]), dtype=object), N)
    for i in range(a.shape[0]):
        out[i % N] = out[i % N] + a[i]
    return out


def cross_check(desc: Description, inst, sizes: Mapping[str, int]) -> str:
    """Compare a description at ``sizes`` with a built Instance; "" when they agree (or say why not).

    >>> from symconv import Instance, sym
    >>> from symconv.constructions.primitives import identity
    >>> from symconv.parametric import psym, size
    >>> d = Description(psym("u", size("N")), (PLayer(1, 1),), psym("u", size("N")))
    >>> cross_check(d, Instance(sym("u", 3), identity(3), sym("u", 3)), {"N": 3})
    ''
    """
    try:
        return _cross_check(desc, inst, sizes)
    except HypothesisError as exc:
        return f"the description does not instantiate: {exc}"


def _cross_check(desc: Description, inst, sizes: Mapping[str, int]) -> str:
    if isinstance(desc, Cases):
        desc = desc.pick(sizes)
    stack = inst.stack
    d, Ni, di = stack.d, stack.N_int, stack.d_int
    if desc.N_int.at(sizes) != Ni:
        return f"N' is {desc.N_int.at(sizes)} in the description but {Ni} in the stack"
    if len(desc.layers) != stack.L:
        return f"{len(desc.layers)} layers described but {stack.L} built"
    if not _same(instantiate(desc.input, sizes, d), inst.input.entries):
        return "the input blocks differ"
    if not _same(instantiate(desc.expected, sizes, d), inst.expected.entries):
        return "the expected outputs differ"
    for k, (pl, layer) in enumerate(zip(desc.layers, stack.layers), start=1):
        if pl.conv != layer.conv:
            return f"layer {k}: convolution {pl.conv} described, {layer.conv} built"
        if any(not (v == 0) for v in np.asarray(layer.W, dtype=object).flat):
            return f"layer {k}: W is not 0"
        h = filter_taps(pl.h, sizes, di)
        built = _broadcast(layer.h, layer.h.shape[0], di)
        if pl.conv == "circular":  # a circular filter is defined mod X^N' - 1
            h, built = _fold(h, Ni), _fold(built, Ni)
        K = max(h.shape[0], built.shape[0])
        if not _same(_pad(h, K), _pad(built, K)):
            return f"layer {k}: the filters differ"
        for name in ("b1", "b2"):
            col = instantiate(pl.column(name, desc.N_int), sizes, di)
            if not _same(col, _broadcast(getattr(layer, name), Ni, di)):
                return f"layer {k}: {name} differs"
    steps = {s.label: s for s in getattr(inst, "steps", ())}
    for ps in desc.steps:
        s = steps.get(ps.label)
        if s is None or s.layers != ps.layers:
            return f"step {ps.label}: not among the built steps"
        e = instantiate(ps.expected.at(desc.N_int), sizes, di)
        if not _same(e, _pad(s.expected.entries, Ni)):
            return f"step {ps.label}: the claimed states differ"
    return ""
