"""The closest repair of a printed route: the fewest small edits that make it hold.

A printed route (:mod:`symconv.parametric.printed`) is edited one symbol at a
time, in the paper's notation: a filter offset or a block length moved by ±1
or replaced by another size expression of the proof (the offsets, block
lengths, block boundaries and state offsets of the route, and their sums and
differences of two, :func:`pair_forms`; two edits of bias columns, and edit sets
spanning several layers, use the first kind only), a block or filter term
inserted or removed, a shift's direction flipped (X^k ↔ X^{N'−k}, circular),
the convolution mode flipped, b1 and b2 swapped or a bias replaced by another
bias of the proof.  The search is local: it takes the first claimed state that
fails (checked from the claimed previous state), searches the layers of that
step only, with 1, 2, … edits, and moves on to the next failing step; when a
step cannot be repaired on its own (the claimed state before it has lost what
it needs) the step is merged with the one before and its claimed state
dropped.  Candidates are pruned by evaluating them mod a prime on random
integers at a few concrete sizes; survivors are confirmed for all sizes by
:func:`symconv.parametric.check`, which also gives the size condition under
which the repaired route holds.

Three slips are not block routes and have their own small searches:
Prop. H.15's matrix identity, Lemma H.16's step B x ≡ D₁⊙u + D₂⊙u + D₃⊙u, and
Corollary H.22's printed line with a wrong index.  :data:`REPAIRS` maps
(claim id, claim name, variant name) to the search for that erratum.

>>> r = repair_h09_call()
>>> r.grade
'fails as printed; holds after a 1-symbol repair'
"""
from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import sympy

from .model import HypothesisError
from .parametric.check import Description, check, instantiate
from .parametric.linear import Facts, Lin, lin, size
from .parametric.printed import (Blk, Col, RLayer, Route, Term, add_n_route, filter_text, lin_text,
                                 remember_route, shift_up_route)

__all__ = ["Edit", "Repair", "RepairReport", "search_route", "repair_h08", "repair_h09_call", "repair_h10",
           "repair_h15", "repair_h15_eq5", "repair_h16", "repair_h22", "REPAIRS", "repair_for", "report_all",
           "errata_without_search", "NOT_SEARCHED",
           "condition_text"]

PRIME = 1_000_003


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class Edit:
    """One edit in the paper's notation: where, what was printed, what it becomes."""

    site: str
    old: str
    new: str

    def text(self) -> str:
        return f"{self.site}: {self.old} → {self.new}"


@dataclass(frozen=True)
class Repair:
    """A set of edits that makes the route hold, the size condition, and what decided it.

    ``parts``: each edited filter or column whole, before and after (as Edits).
    """

    edits: tuple
    condition: str
    decided_by: str
    parts: tuple = ()
    dropped: tuple = ()
    route: Any = field(default=None, compare=False, repr=False)  # the repaired route (block routes)

    def as_dict(self) -> dict:
        """JSON-ready: edits and parts as [site, old, new], condition, decided_by, dropped steps."""
        return {"edits": [[e.site, e.old, e.new] for e in self.edits], "condition": self.condition,
                "decided_by": self.decided_by, "parts": [[e.site, e.old, e.new] for e in self.parts],
                "dropped": list(self.dropped)}

    def describe(self) -> str:
        ed = "; ".join(e.text() for e in self.edits) or "no edits"
        drop = f" (claimed {', '.join(self.dropped)} dropped)" if self.dropped else ""
        return f"{ed}{drop}; holds for {self.condition} [{self.decided_by}]"


@dataclass(frozen=True)
class RepairReport:
    """The outcome of one search: the grade, the repairs found, how large the search was."""

    result: str
    variant: str
    max_edits: int
    searched: int
    repairs: tuple
    grade: str
    seconds: float
    note: str = ""
    complete: bool = True   # False: the time budget stopped the search before its bound

    def as_dict(self) -> dict:
        """JSON-ready form of the report (the first repair is the preferred one).

        >>> sorted(repair_h22().as_dict())[:3]
        ['complete', 'grade', 'max_edits']
        """
        return {"result": self.result, "variant": self.variant, "grade": self.grade, "max_edits": self.max_edits,
                "searched": self.searched, "seconds": round(self.seconds, 3), "complete": self.complete,
                "note": self.note, "repairs": [r.as_dict() for r in self.repairs]}

    def reading(self) -> str:
        """For a one-symbol repair, the reading of one symbol under which the printed result holds.

        >>> repair_h22().reading()
        'holds reading 0 for 1 (z¹ line 2, first u^T[:, ·] (γ term))'
        """
        if not self.repairs or len(self.repairs[0].edits) != 1 or self.grade.startswith("holds as printed"):
            return ""
        e = self.repairs[0].edits[0]
        return f"holds reading {e.new} for {e.old} ({e.site})"

    def describe(self) -> str:
        best = self.repairs[0].describe() if self.repairs else "none"
        return (f"{self.result} [{self.variant}]: {self.grade}; {best}; "
                f"{self.searched} candidates in {self.seconds:.2f} s")


def _grade(k: int | None, max_edits: int, holds_as_printed: bool = False) -> str:
    if holds_as_printed:
        return "holds as printed; no repair needed"
    if k is None:
        return f"fails; no repair within {max_edits} edits"
    return f"fails as printed; holds after a {k}-symbol repair"


# ---------------------------------------------------------------- size conditions


def condition_text(forms: Sequence[Lin], base: Facts) -> str:
    """The forms f >= 0 not implied by ``base`` and by each other, as 'a >= b' (or 'all sizes ...').

    >>> n, N = size("n"), size("N")
    >>> condition_text([N - 3 * n, N - 2 * n], Facts.of(n - 1))
    'N >= 3n'
    """
    forms = [lin(f) for f in dict.fromkeys(lin(f) for f in forms) if not base.proves(lin(f))]
    keep = []
    for i, f in enumerate(forms):
        others = Facts.of(*base.rows, *(g for j, g in enumerate(forms) if j != i and (j > i or g in keep)))
        if not others.proves(f):
            keep.append(f)
    if not keep:
        return "all sizes the hypotheses allow"
    return ", ".join(_ineq(f) for f in keep)


def _ineq(f: Lin) -> str:
    names = f.names() if hasattr(f, "names") else tuple(k for k, _ in f.terms)
    c = f.coeffs()
    pos, neg = lin(max(f.const, 0)), lin(max(-f.const, 0))
    for k in names:
        if c[k] > 0:
            pos = pos + size(k) * c[k]
        else:
            neg = neg + size(k) * (-c[k])
    return f"{lin_text(pos)} >= {lin_text(neg)}"


# ---------------------------------------------------------------- edit operations


@dataclass(frozen=True)
class Op:
    """An edit of one layer: ``part`` "h", "b1", "b2", "conv", "args"; ``kind`` what it does."""

    layer: int
    part: str
    kind: str          # offset, remove, insert, flip, mode, length, bremove, binsert, replace, swap
    index: int = -1
    value: Any = None
    edit: Edit | None = None
    near: bool = False   # a ±1 change

    def rank(self) -> int:
        """Preference among repairs of equal size: reuse of the proof's own objects first."""
        if self.kind in ("replace", "swap", "flip", "mode"):
            return 0
        if self.kind in ("offset", "length"):
            return 2 if self.near else 1
        return 3

    def slot(self) -> tuple:
        if self.kind in ("flip", "mode"):
            return (self.layer, "conv")
        if self.kind in ("insert", "binsert", "bremove"):
            return (self.layer, self.part, "structure")
        return (self.layer, self.part, self.index)

    def conflicts(self, other: "Op") -> bool:
        if self.layer != other.layer:
            return False
        if self.slot() == other.slot():
            return True
        kinds = {self.kind, other.kind}
        if self.kind == "swap" and other.part in ("b1", "b2", "args"):
            return True
        if other.kind == "swap" and self.part in ("b1", "b2", "args"):
            return True
        if "replace" in kinds and self.part == other.part:
            return True
        if "flip" in kinds and self.part == other.part == "h" and self.index == other.index:
            return True
        if self.kind == "bremove" and other.kind == "length" and self.part == other.part and self.index == other.index:
            return True
        if other.kind == "bremove" and self.kind == "length" and self.part == other.part and self.index == other.index:
            return True
        return False


def _apply_layer(layer: RLayer, ops: Sequence[Op], N_int: Lin) -> RLayer:
    terms = list(layer.h)
    conv = layer.conv
    cols = {"b1": list(layer.b1.blocks), "b2": list(layer.b2.blocks)}
    names = {"b1": layer.b1.name, "b2": layer.b2.name}
    removed = {"h": set(), "b1": set(), "b2": set()}
    inserts: dict = {"h": [], "b1": [], "b2": []}
    whole: dict = {}
    swap = False
    for op in ops:
        if op.kind == "offset":
            terms[op.index] = replace(terms[op.index], offset=op.value)
        elif op.kind == "flip":
            terms[op.index] = replace(terms[op.index], offset=N_int - terms[op.index].offset)
            conv = "circular"
        elif op.kind == "mode":
            conv = "circular" if conv == "causal" else "causal"
        elif op.kind == "remove":
            removed["h"].add(op.index)
        elif op.kind == "insert":
            inserts["h"].append(op.value)
        elif op.kind == "length":
            cols[op.part][op.index] = replace(cols[op.part][op.index], length=op.value)
        elif op.kind == "bremove":
            removed[op.part].add(op.index)
        elif op.kind == "binsert":
            inserts[op.part].append(op.value)
        elif op.kind == "replace":
            whole[op.part] = op.value
        elif op.kind == "swap":
            swap = True
    terms = [t for i, t in enumerate(terms) if i not in removed["h"]] + inserts["h"]
    out = {}
    for p in ("b1", "b2"):
        if p in whole:
            out[p] = whole[p]
            continue
        blocks = [b for i, b in enumerate(cols[p]) if i not in removed[p]]
        for pos, blk in inserts[p]:
            blocks.insert(pos, blk)
        out[p] = Col(tuple(blocks), names[p])
    if swap:
        out["b1"], out["b2"] = out["b2"], out["b1"]
    return replace(layer, h=tuple(terms), b1=out["b1"], b2=out["b2"], conv=conv)


def apply_ops(route: Route, ops: Sequence[Op]) -> Route:
    """The route with every op applied (ops on one layer are applied together)."""
    layers = list(route.layers)
    for i in sorted({o.layer for o in ops}):
        layers[i] = _apply_layer(layers[i], [o for o in ops if o.layer == i], route.N_int)
    return route.with_layers(tuple(layers))


# ---------------------------------------------------------------- the pool of size expressions


def _boundaries(seq) -> list:
    out = []
    for p in seq.pieces:
        out += [p.start, p.end, p.length]
    return out


def size_forms(route: Route) -> tuple:
    """The size expressions of the route: offsets, block lengths, block boundaries, state offsets.

    >>> from symconv.parametric.printed import add_n_route
    >>> [lin_text(f) for f in size_forms(add_n_route({"n": size("n"), "N": size("N")}))]
    ['0', 'N', 'n', '2n', 'N-2n']
    """
    forms = [route.N_int]
    for l in route.layers:
        forms += [t.offset for t in l.h]
        for c in (l.b1, l.b2):
            acc = Lin()
            for b in c.blocks:
                forms.append(b.length)
                acc = acc + b.length
                forms.append(acc)
            if c.blocks:
                forms.append(route.N_int - acc)
    for col in [route.input, route.expected] + [s.expected for s in route.steps]:
        forms += _boundaries(col)
    forms = [lin(f) for f in forms]
    out = {f for f in forms if f.const >= 0 or f.terms}
    return tuple(sorted(out, key=lambda f: (len(f.terms), sum(abs(v) for _, v in f.terms), lin_text(f))))


def pair_forms(forms: Sequence[Lin]) -> tuple:
    """Sums and differences of two forms (new ones only).

    >>> [lin_text(f) for f in pair_forms([size("n"), size("N")])]
    ['n+N', 'n-N', 'N-n']
    """
    have = set(forms)
    out = []
    for a, b in itertools.combinations(forms, 2):
        for f in (a + b, a - b, b - a):
            if f not in have:
                have.add(f)
                out.append(f)
    return tuple(out)


def generate_ops(route: Route, layers: Sequence[int], forms: Sequence[Lin], short: Sequence[Lin]) -> list:
    """Every single edit of the given layers: ``forms`` replace an offset or length, ``short`` are
    the lengths of an inserted block or the offsets of an inserted term."""
    ops: list = []
    for i in layers:
        l = route.layers[i]
        nm = l.names()
        for j, t in enumerate(l.h):
            for new in _around(t.offset, forms):
                ops.append(Op(i, "h", "offset", j, new, Edit(nm["h"], t.text(), replace(t, offset=new).text()),
                              near=new in (t.offset + 1, t.offset - 1)))
            if len(l.h) > 1:
                ops.append(Op(i, "h", "remove", j, None, Edit(nm["h"], t.text(), "(removed)")))
            if t.offset != Lin():
                new = replace(t, offset=route.N_int - t.offset)
                ops.append(Op(i, "h", "flip", j, None, Edit(nm["h"], f"{t.text()} ({l.conv})",
                                                              f"{new.text()} (circular)")))
        for k in short:
            ops.append(Op(i, "h", "insert", -1, Term(k), Edit(nm["h"], "", f"+ {Term(k).text()}")))
        other = "causal" if l.conv == "circular" else "circular"
        ops.append(Op(i, "conv", "mode", -1, None, Edit(nm["conv"], l.conv, other)))
        for part in ("b1", "b2"):
            col: Col = getattr(l, part)
            slot = f"{col.name} (layer {i + 1} {'gate b1' if part == 'b1' else 'bias b2'})" if col.name else nm[part]
            for j, b in enumerate(col.blocks):
                for new in _around(b.length, forms):
                    if new == Lin():
                        continue
                    ops.append(Op(i, part, "length", j, new, Edit(slot + f" block {j + 1}", b.text(),
                                                                   replace(b, length=new).text()),
                                  near=new in (b.length + 1, b.length - 1)))
                ops.append(Op(i, part, "bremove", j, None, Edit(slot + f" block {j + 1}", b.text(), "(removed)")))
            for pos in range(len(col.blocks) + 1):
                for kind in ("0", "1"):
                    if kind == "0" and pos == len(col.blocks):
                        continue  # zeros before the fill change nothing
                    for k in short:
                        blk = Blk(kind, k)
                        ops.append(Op(i, part, "binsert", pos, (pos, blk),
                                      Edit(slot, col.text(), f"{blk.text()} inserted before block {pos + 1}")))
            for other_col in _bias_pool(route):
                if other_col != col:
                    ops.append(Op(i, part, "replace", -1, other_col,
                                  Edit(slot, col.name or col.text(), other_col.name or other_col.text())))
        if l.b1 != l.b2:
            ops.append(Op(i, "args", "swap", -1, None, Edit(f"layer {i + 1} call", "(…, b1, b2)", "(…, b2, b1)")))
    return ops


def _around(v: Lin, forms: Sequence[Lin]) -> list:
    out = [v + 1, v - 1] + [f for f in forms if f != v]
    return list(dict.fromkeys(f for f in out if f != v))


def _bias_pool(route: Route) -> list:
    pool = list(route.biases) + [Col((), "0"), Col((Blk("1", route.N_int),), "1")]
    return list(dict.fromkeys(pool))


# ---------------------------------------------------------------- fast concrete evaluation mod p


class _Point:
    """One concrete size with random values for every block symbol (consistent by name)."""

    def __init__(self, sizes: Mapping[str, int], seed: int) -> None:
        self.sizes = dict(sizes)
        self.rng = random.Random(seed)
        self.values: dict = {}
        self.cols: dict = {}
        self.convs: dict = {}

    def value(self, sym_: sympy.Symbol) -> int:
        v = self.values.get(sym_)
        if v is None:
            v = self.values[sym_] = self.rng.randrange(1, PRIME)
        return v

    def vector(self, seq) -> np.ndarray:
        """A PSeq at this size, as integers mod p."""
        arr = instantiate(seq, self.sizes)[:, 0]
        out = np.zeros(len(arr), dtype=np.int64)
        for i, e in enumerate(arr):
            e = sympy.sympify(e, strict=True)
            if e.free_symbols:
                e = e.xreplace({s: self.value(s) for s in e.free_symbols})
            out[i] = int(e) % PRIME
        return out

    def column(self, col: Col, M: int) -> np.ndarray | None:
        key = (col, M)
        if key in self.cols:
            return self.cols[key]
        out = np.zeros(M, dtype=np.int64)
        at, ok = 0, True
        for b in col.blocks:
            L = b.length.at(self.sizes)
            if L < 0 or at + L > M:
                ok = False
                break
            if b.kind == "1":
                out[at:at + L] = 1
            elif b.kind == "sym":
                out[at:at + L] = [self.value(sympy.Symbol(f"{b.name}[{r},0]")) for r in range(L)]
            at += L
        res = out if ok else None
        self.cols[key] = res
        return res

    def conv(self, terms: tuple, mode: str, state: np.ndarray, skey: Any) -> np.ndarray | None:
        key = (terms, mode, skey)
        if skey is not None and key in self.convs:
            return self.convs[key]
        M = len(state)
        taps: dict = {}
        res = None
        try:
            for t in terms:
                k = t.offset.at(self.sizes)
                if k < 0:
                    raise ValueError
                if t.block:
                    L = t.length.at(self.sizes)
                    for r in range(L):
                        tap = t.coef * self.value(sympy.Symbol(f"{t.block}[{r},0]"))
                        taps[k + r] = (taps.get(k + r, 0) + tap) % PRIME
                else:
                    taps[k] = (taps.get(k, 0) + t.coef) % PRIME
            out = np.zeros(M, dtype=np.int64)
            for k, c in taps.items():
                if c == 0:
                    continue
                if mode == "causal":
                    if k < M:
                        out[k:] = (out[k:] + c * state[:M - k]) % PRIME
                else:
                    out = (out + c * np.roll(state, k % M)) % PRIME
            res = out
        except ValueError:
            res = None
        if skey is not None:
            self.convs[key] = res
        return res


def _run_layers(point: _Point, layers: Sequence[RLayer], state: np.ndarray, M: int, skey: Any) -> np.ndarray | None:
    for idx, l in enumerate(layers):
        c = point.conv(l.h, l.conv, state, skey if idx == 0 else None)
        b1, b2 = point.column(l.b1, M), point.column(l.b2, M)
        if c is None or b1 is None or b2 is None:
            return None
        state = (b1 * ((c + b2) % PRIME)) % PRIME
    return state


# ---------------------------------------------------------------- segments and the search


@dataclass(frozen=True)
class _Segment:
    first: int           # first layer (0-based)
    stop: int            # one past the last layer
    start_label: str     # "" for the input
    label: str
    dropped: tuple = ()


def _segments(route: Route) -> list:
    steps = sorted(route.steps, key=lambda s: s.layers)
    out, prev, prev_label = [], 0, ""
    for s in steps:
        out.append(_Segment(prev, s.layers, prev_label, s.label))
        prev, prev_label = s.layers, s.label
    if prev < len(route.layers) or not steps:
        out.append(_Segment(prev, len(route.layers), prev_label, "output"))
    return out


def _state(route: Route, label: str):
    if label == "":
        return route.input.at(route.N_int)
    if label == "output":
        return route.expected
    return next(s.expected for s in route.steps if s.label == label).at(route.N_int)


def sample_sizes(route: Route, count: int = 3, seed: int = 0) -> list:
    """Concrete sizes where the route's hypotheses and blocks hold, with distinct small values.

    >>> from symconv.parametric.printed import add_n_route
    >>> len(sample_sizes(add_n_route({"n": size("n"), "N": size("N")})))
    3
    """
    rng = random.Random(seed)
    facts = route.base_facts() + Facts.of(*route.fits())
    long = route.N_int.symbols
    out: list = []
    for _ in range(4000):
        z = {k: rng.randint(lo + 1, lo + 3) if k not in long else lo for k, lo in route.lower.items()}
        for k in long:
            while not facts.holds_at(z) and z[k] < 400:
                z[k] += 1
            z[k] += rng.randint(1, 4)
        if facts.holds_at(z) and z not in out:
            out.append(z)
        if len(out) == count:
            break
    if not out:
        raise HypothesisError(f"route: no concrete sizes satisfy the hypotheses of {route.name}")
    return out


class _Evaluator:
    def __init__(self, route: Route, points: Sequence[Mapping[str, int]]) -> None:
        self.route = route
        self.points = [_Point(z, seed=17 + i) for i, z in enumerate(points)]
        self.states: dict = {}

    def state(self, k: int, label: str) -> np.ndarray:
        key = (k, label)
        if key not in self.states:
            seq = _state(self.route, label)
            self.states[key] = self.points[k].vector(seq)
        return self.states[key]

    def holds(self, layers: Sequence[RLayer], seg: _Segment) -> bool:
        for k, pt in enumerate(self.points):
            M = self.route.N_int.at(pt.sizes)
            x = self.state(k, seg.start_label)
            out = _run_layers(pt, layers[seg.first:seg.stop], x, M, seg.start_label)
            if out is None:
                return False
            want = self.state(k, seg.label)
            if seg.label == "output":
                out = out[:len(want)]
            if len(out) != len(want) or not np.array_equal(out, want):
                return False
        return True


def _segment_description(route: Route, seg: _Segment) -> Description:
    """The segment as a Description: claimed previous state, its layers, its claimed state."""
    start = _state(route, seg.start_label)
    sub = replace(route, layers=route.layers[seg.first:seg.stop], steps=(),
                  input=start, expected=_state(route, seg.label))
    return sub.description(steps=())


def _confirm(route: Route, seg: _Segment | None = None) -> tuple[str, str, Any]:
    """(status, condition, result) of the all-sizes check of the route (or one segment)."""
    try:
        desc = route.description() if seg is None else _segment_description(route, seg)
        res = check(desc, route.base_facts())
    except HypothesisError as exc:       # a candidate whose blocks cannot be stated: not a repair
        return "rejected", str(exc), None
    cond = condition_text(route.fits(), route.base_facts())
    return res.status, cond, res


def _search_segment(route: Route, ev: _Evaluator, seg: _Segment, max_edits: int, budget: dict,
                    confirm_limit: int = 4) -> tuple[int | None, list, int]:
    """(k, [(ops, status, cond)], candidates tried) for the fewest edits repairing ``seg``."""
    layers_idx = list(range(seg.first, seg.stop))
    forms = size_forms(route)
    short = [f for f in forms if len(f.terms) <= 1 and f.const >= 0 and f != Lin()]
    single = generate_ops(route, layers_idx, forms + pair_forms(forms), short)
    double = generate_ops(route, layers_idx, forms, short)
    tried = 0
    for k in range(1, max_edits + 1):
        pool = single if k == 1 else double
        found = []
        if k == 2 and seg.stop - seg.first == 1:     # one layer: filter edits combine linearly
            found, tried2 = _pairs_one_layer(route, ev, seg, single, double)
            tried += tried2
            combos = ()
        else:
            combos = itertools.combinations(range(len(pool)), k)
        for combo in combos:
            ops = [pool[i] for i in combo]
            if any(a.conflicts(b) for a, b in itertools.combinations(ops, 2)):
                continue
            tried += 1
            cand = apply_ops(route, ops)
            if ev.holds(cand.layers, seg):
                found.append(ops)
            if time.perf_counter() > budget["deadline"]:
                budget["hit"] = True
                break
        found.sort(key=lambda ops: sum(o.rank() for o in ops))
        found = _distinct(route, found, seg)
        confirmed, rest, attempts = [], [], 0
        for ops in found:
            if len(confirmed) >= confirm_limit or attempts >= 4 * confirm_limit:
                rest.append((ops, "concrete", ""))
                continue
            attempts += 1
            status, cond, _ = _confirm(apply_ops(route, ops), seg)
            if status == "holds":
                confirmed.append((ops, status, cond))
        budget["concrete"] = budget.get("concrete", 0) + len(found)
        budget["refuted"] = budget.get("refuted", 0) + attempts - len(confirmed)
        if confirmed:
            return k, confirmed + rest, tried
    return None, [], tried


def _is_filter_op(op: Op) -> bool:
    return op.part in ("h", "conv")


def _pairs_one_layer(route: Route, ev: _Evaluator, seg: _Segment, wide: Sequence[Op],
                     narrow: Sequence[Op]) -> tuple[list, int]:
    """Every 2-edit set of a one-layer step that holds at the test sizes, vectorised.

    The layer is b1 ⊙ (h * z + b2) and h * z is linear in the terms of h, so for two
    filter edits h * z = base + Δ₁ + Δ₂ (in the convolution mode the pair leaves).  Pairs of a
    filter edit and a column edit, and of two filter edits, use the ``wide`` pool (sums and
    differences of two forms); pairs of two column edits the ``narrow`` one, tried one by one.
    """
    layer = route.layers[seg.first]
    F = [o for o in wide if _is_filter_op(o)]
    Cw = [o for o in wide if not _is_filter_op(o)]
    Cn = [o for o in narrow if not _is_filter_op(o)]
    nF = len(F)
    modes = [_apply_layer(layer, [o], route.N_int).conv for o in F]
    terms = [_apply_layer(layer, [o], route.N_int).h for o in F]
    ff_ok = np.ones((nF, nF), dtype=bool)
    fc_ok = np.ones((len(Cw), nF), dtype=bool)
    other = "causal" if layer.conv == "circular" else "circular"
    for k, pt in enumerate(ev.points):
        M = route.N_int.at(pt.sizes)
        x, want = ev.state(k, seg.start_label), ev.state(k, seg.label)
        rows = len(want)
        skey = ("one layer", seg.start_label, seg.first)
        base, D, valid = {}, {}, {}
        for m in (layer.conv, other):
            base[m] = pt.conv(layer.h, m, x, skey)
            D[m] = np.zeros((nF, M), dtype=np.int64)
            valid[m] = np.zeros(nF, dtype=bool)
            for i, t in enumerate(terms):
                c = pt.conv(t, m, x, skey)
                if c is not None and base[m] is not None:
                    D[m][i] = (c - base[m]) % PRIME
                    valid[m][i] = True
        b1, b2 = pt.column(layer.b1, M), pt.column(layer.b2, M)
        own = np.stack([(base[m] + D[m][i]) % PRIME if base[m] is not None else np.zeros(M, np.int64)
                        for i, m in enumerate(modes)]) if nF else np.zeros((0, M), np.int64)
        own_valid = np.array([valid[m][i] for i, m in enumerate(modes)], dtype=bool)
        # filter edit + filter edit, in the mode the pair leaves (a flip or a mode edit decides it)
        if b1 is None or b2 is None:
            ff_ok[:] = False
        else:
            marr = np.array(modes)
            for i in range(nF):
                mi = modes[i]
                for m in (layer.conv, other):
                    js = (marr == m) if mi == layer.conv else np.full(nF, mi == m)
                    if not js.any() or base[m] is None:
                        if js.any():
                            ff_ok[i, js] = False
                        continue
                    c = (base[m] + D[m][i] + D[m][js]) % PRIME
                    out = (b1 * ((c + b2) % PRIME)) % PRIME
                    good = np.all(out[:, :rows] == want, axis=1) & valid[m][js] & valid[m][i]
                    ff_ok[i, js] &= good
        # filter edit + column edit
        for c_i, op in enumerate(Cw):
            new = _apply_layer(layer, [op], route.N_int)
            nb1, nb2 = pt.column(new.b1, M), pt.column(new.b2, M)
            if nb1 is None or nb2 is None:
                fc_ok[c_i] = False
                continue
            out = (nb1 * ((own + nb2) % PRIME)) % PRIME
            fc_ok[c_i] &= np.all(out[:, :rows] == want, axis=1) & own_valid
    slot = {}
    sid = np.array([slot.setdefault(o.slot(), len(slot)) for o in F], dtype=np.int64)
    tidx = np.array([o.index if o.part == "h" else -2 for o in F], dtype=np.int64)
    flip = np.array([o.kind == "flip" for o in F], dtype=bool)
    clash = (sid[:, None] == sid[None, :]) | (flip[:, None] & (tidx[:, None] == tidx[None, :])) \
        | (flip[None, :] & (tidx[:, None] == tidx[None, :]))
    upper = np.triu(np.ones((nF, nF), dtype=bool), 1) & ~clash
    found, tried = [], int(upper.sum())
    for i, j in zip(*np.nonzero(ff_ok & upper)):
        found.append([F[i], F[j]])
    # a filter edit never conflicts with a column edit (different parts; a swap touches b1, b2 only)
    tried += len(Cw) * nF
    for c_i, i in zip(*np.nonzero(fc_ok)):
        found.append([F[i], Cw[c_i]])
    for a, b in itertools.combinations(Cn, 2):
        if a.conflicts(b):
            continue
        tried += 1
        if ev.holds(apply_ops(route, [a, b]).layers, seg):
            found.append([a, b])
    return found, tried


_SEGMENT_CACHE: dict = {}   # one search per (layers, claimed states, sizes): shared by routes with the same step


def _distinct(route: Route, found: list, seg: _Segment) -> list:
    """Edit sets giving different layers (a filter is a set of terms), first of each kept."""
    seen, out = set(), []
    for ops in found:
        layers = apply_ops(route, ops).layers[seg.first:seg.stop]
        key = tuple((frozenset((t.offset, t.coef, t.block) for t in l.h), l.b1.blocks, l.b2.blocks, l.conv)
                    for l in layers)
        if key not in seen:
            seen.add(key)
            out.append(ops)
    return out


def search_route(route: Route, max_edits: int = 2, max_merge: int = 2, seconds: float = 20.0,
                 result: str = "", variant: str = "") -> RepairReport:
    """The closest repair of a printed route, step by step (see the module docstring).

    ``max_edits`` bounds the edits per step; ``max_merge`` how many claimed states may be
    dropped to repair a step together with the ones before it.
    """
    t0 = time.perf_counter()
    budget = {"deadline": t0 + seconds}
    points = sample_sizes(route)
    ev = _Evaluator(route, points)
    segs = _segments(route)
    cur = route
    chosen: list = []
    dropped: list = []
    searched = 0
    first_fail = None
    alts: list = []
    i = 0
    while i < len(segs):
        seg = segs[i]
        if ev.holds(cur.layers, seg):
            i += 1
            continue
        if first_fail is None:
            first_fail = seg.label
        best, merged = None, seg
        for merge in range(max_merge + 1):
            lo = i - merge
            if lo < 0:
                break
            merged = _Segment(segs[lo].first, seg.stop, segs[lo].start_label, seg.label,
                              tuple(s.label for s in segs[lo:i]))
            key = (cur.layers[merged.first:merged.stop], merged.first, _state(cur, merged.start_label),
                   _state(cur, merged.label), cur.N_int, tuple(cur.hypotheses), tuple(cur.biases), max_edits,
                   tuple(tuple(sorted(p.items())) for p in points))
            if key not in _SEGMENT_CACHE:
                _SEGMENT_CACHE[key] = _search_segment(cur, ev, merged, max_edits, budget)
            k, reps, tried = _SEGMENT_CACHE[key]
            searched += tried
            if k is not None:
                best = (k, reps)
                break
        if best is None:
            hit = budget.get("hit", False)
            return RepairReport(result or route.name, variant, max_edits, searched, (), _grade(None, max_edits),
                                time.perf_counter() - t0,
                                f"no repair of step {seg.label} within {max_edits} edits"
                                + (f" (search stopped by the {seconds} s budget)" if hit else ""), complete=not hit)
        ops = best[1][0][0]
        for alt, st, cnd in best[1][1:]:
            if st == "holds":
                alts.append(Repair(tuple(o.edit for o in alt), cnd,
                                   f"alternative for step {seg.label}: block algebra, all sizes (that step)",
                                   _parts(cur, apply_ops(cur, alt), alt), tuple(merged.dropped)))
        chosen += list(ops)
        dropped += list(merged.dropped)
        cur = apply_ops(cur, ops)
        i += 1
    if not chosen:
        status, cond, _ = _confirm(route)
        if status == "holds":
            return RepairReport(result or route.name, variant, max_edits, searched,
                                (Repair((), cond, "block algebra, all sizes", route=route),),
                                _grade(0, max_edits, holds_as_printed=True), time.perf_counter() - t0)
        return RepairReport(result or route.name, variant, max_edits, searched, (), _grade(None, max_edits),
                            time.perf_counter() - t0,
                            f"no failure at the concrete sizes {points}, but the block algebra says {status}: "
                            "nothing to localise", complete=False)
    final = replace(cur, steps=tuple(s for s in cur.steps if s.label not in dropped))
    status, cond, res = _confirm(final)
    decided = (f"block algebra, all sizes ({len(res.cases) or 1} case(s))" if status == "holds"
               else f"concrete sizes {points} only; block algebra: {status} {getattr(res, 'question', '')}")
    parts = _parts(route, cur, chosen)
    rep = Repair(tuple(o.edit for o in chosen), cond, decided, parts, tuple(dropped), final)
    k = len(chosen)
    return RepairReport(result or route.name, variant, max_edits, searched, (rep,) + tuple(alts),
                        _grade(k, max_edits) if status == "holds" else _grade(None, max_edits),
                        time.perf_counter() - t0,
                        f"first failing step: {first_fail}; {budget.get('concrete', 0)} edit sets passed the "
                        f"concrete check at {len(points)} sizes, {budget.get('refuted', 0)} of them refused by "
                        "the all-sizes check", complete=not budget.get("hit", False))


def _parts(before: Route, after: Route, ops: Sequence[Op]) -> tuple:
    out = []
    for i in sorted({o.layer for o in ops}):
        a, b = before.layers[i], after.layers[i]
        nm = a.names()
        if a.h != b.h or a.conv != b.conv:
            out.append(Edit(nm["h"], f"{filter_text(a.h)} ({a.conv})", f"{filter_text(b.h)} ({b.conv})"))
        for p in ("b1", "b2"):
            if getattr(a, p) != getattr(b, p):
                out.append(Edit(nm[p], getattr(a, p).text(), getattr(b, p).text()))
    return tuple(out)


def all_repairs(route: Route, max_edits: int = 2) -> list:
    """Every edit set of the fewest edits that repairs the first failing step (confirmed ones first).

    Returns (edits, status, condition) triples; status "holds" (all sizes) or "concrete".
    """
    ev = _Evaluator(route, sample_sizes(route))
    for seg in _segments(route):
        if not ev.holds(route.layers, seg):
            k, reps, _ = _search_segment(route, ev, seg, max_edits, {"deadline": time.perf_counter() + 60},
                                         confirm_limit=50)
            return [(tuple(o.edit for o in ops), st, cond) for ops, st, cond in reps]
    return []


# ---------------------------------------------------------------- the printed slips


def _symbols(*names: str) -> dict:
    return {k: size(k) for k in names}


@lru_cache(maxsize=None)
def repair_h08(circ: str = "circular", max_edits: int = 2) -> RepairReport:
    """Prop. H.8's printed shift_up (⊛ read ``circ``).

    >>> repair_h08("circular", max_edits=1).grade
    'fails; no repair within 1 edits'
    """
    return search_route(shift_up_route(_symbols("N", "s"), circ), max_edits,
                        result="H.8 shift_up", variant=f"as printed, ⊛ {circ}")


@lru_cache(maxsize=None)
def repair_h09_call(max_edits: int = 2) -> RepairReport:
    """Prop. H.9's displayed call BaseConv(z¹, 0, h², b²₁, b²₁)."""
    return search_route(add_n_route(_symbols("n", "N"), "printed"), max_edits,
                        result="H.9 add_n", variant="printed call")


@lru_cache(maxsize=None)
def repair_h10(shift_up: str = "H.8", max_edits: int = 2) -> RepairReport:
    """Prop. H.10 as printed, with H.8's printed shift_up or a working one."""
    return search_route(remember_route(_symbols("n", "m", "s", "t", "N"), shift_up), max_edits,
                        result="H.10 remember",
                        variant="as printed" if shift_up == "H.8" else "as printed, working shift_up")


# ---------------------------------------------------------------- small searches for the non-block slips


def _sym_eq(a: np.ndarray, b: np.ndarray) -> bool:
    """Exact equality of two object arrays with sympy entries."""
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    return a.shape == b.shape and all(sympy.expand(sympy.sympify(x, strict=True) - sympy.sympify(y, strict=True)) == 0
                                      for x, y in zip(a.flat, b.flat))


def _subsets(edits: Sequence, max_edits: int, clash: Callable[[Any, Any], bool] = lambda a, b: False):
    for k in range(1, max_edits + 1):
        for combo in itertools.combinations(edits, k):
            if not any(clash(a, b) for a, b in itertools.combinations(combo, 2)):
                yield k, combo


def _exhaust(edits: Sequence, max_edits: int, holds: Callable[[tuple], bool], clash=lambda a, b: False) -> tuple:
    """(k, [combos of k edits that hold], candidates tried): the fewest edits, every set of that size."""
    tried, best, found = 0, None, []
    for k, combo in _subsets(edits, max_edits, clash):
        if best is not None and k > best:
            break
        tried += 1
        if holds(combo):
            best = k
            found.append(combo)
    return best, found, tried


# H.15: B_k^(n) = S^{k/2} D₃ + D₂ S^{n/2} + D₁ (equation 5's D's), edits of the printed identity

H15_EDITS = (
    ("flip A", Edit("S^{k/2} in S^{k/2}D₃", "S^{k/2}", "(S^{k/2})ᵀ (direction flipped)")),
    ("flip B", Edit("S^{n/2} in D₂S^{n/2}", "S^{n/2}", "(S^{n/2})ᵀ (direction flipped)")),
    ("transpose A", Edit("term S^{k/2}D₃", "S^{k/2}D₃", "(S^{k/2}D₃)ᵀ")),
    ("transpose B", Edit("term D₂S^{n/2}", "D₂S^{n/2}", "(D₂S^{n/2})ᵀ")),
    ("order A", Edit("term S^{k/2}D₃", "S^{k/2}D₃", "D₃S^{k/2}")),
    ("order B", Edit("term D₂S^{n/2}", "D₂S^{n/2}", "S^{n/2}D₂")),
    ("swap D", Edit("D₂, D₃", "S^{k/2}D₃ + D₂S^{n/2}", "S^{k/2}D₂ + D₃S^{n/2}")),
    ("halves +", Edit("d⁺", "(0^{k/2}, D2)", "(D2, 0^{k/2})")),
    ("halves -", Edit("d⁻", "(D3, 0^{k/2})", "(0^{k/2}, D3)")),
    ("amount A", Edit("S^{k/2} in S^{k/2}D₃", "S^{k/2}", "S^{n/2}")),
    ("amount B", Edit("S^{n/2} in D₂S^{n/2}", "S^{n/2}", "S^{k/2}")),
)


def _halves(F, top: int | None, bottom: int | None) -> np.ndarray:
    zero = np.zeros_like(F.D[:, 0])
    a = F.D[:, top] if top is not None else zero
    b = F.D[:, bottom] if bottom is not None else zero
    return np.concatenate([a, b], axis=1).reshape(F.n)


def h15_form(F, direction: str, edits: Iterable[str] = (), part: str = "all") -> np.ndarray:
    """Prop. H.15's right side with the named edits of :data:`H15_EDITS` applied (S moving ``direction``);
    ``part="A"`` or ``"B"``: only the term S^{k/2}D₃ or D₂S^{n/2}.

    >>> from symconv.constructions.butterfly import prop_h15_rhs, symbolic_factor
    >>> F = symbolic_factor(4, 4)
    >>> _sym_eq(h15_form(F, "down"), prop_h15_rhs(F, "down"))
    True
    """
    from .constructions.butterfly import diag_matrix, shift_matrix

    e = set(edits)
    if direction not in ("down", "up"):
        raise HypothesisError(f"direction: expected 'down' or 'up', got {direction!r}")
    plus = _halves(F, 1, None) if "halves +" in e else _halves(F, None, 1)
    minus = _halves(F, None, 2) if "halves -" in e else _halves(F, 2, None)
    dA, dB = (plus, minus) if "swap D" in e else (minus, plus)

    def S(j, flipped):
        M = shift_matrix(F.n, j)
        return M if (direction == "down") != flipped else M.T

    jA = F.n // 2 if "amount A" in e else F.k // 2
    jB = F.k // 2 if "amount B" in e else F.n // 2
    SA, SB = S(jA, "flip A" in e), S(jB, "flip B" in e)
    A = diag_matrix(dA).dot(SA) if "order A" in e else SA.dot(diag_matrix(dA))
    B = SB.dot(diag_matrix(dB)) if "order B" in e else diag_matrix(dB).dot(SB)
    A = A.T if "transpose A" in e else A
    B = B.T if "transpose B" in e else B
    if part == "A":
        return A
    if part == "B":
        return B
    return A + B + diag_matrix(F.d)


def _quadrant(F, which: str) -> np.ndarray:
    """[[0, D2], [0, 0]] (``which="D2"``) or [[0, 0], [D3, 0]] for a single factor (n = k)."""
    from .constructions.butterfly import diag_matrix

    M = diag_matrix(np.zeros(F.n, dtype=object))
    h = F.n // 2
    r, c, t = (0, 1, 1) if which == "D2" else (1, 0, 2)
    for i in range(h):
        M[r * h + i, c * h + i] = F.D[0, t, i]
    return M


@lru_cache(maxsize=None)
def repair_h15_eq5(which: str = "D2", direction: str = "down", ns: tuple = (2, 4, 8),
                   max_edits: int = 3) -> RepairReport:
    """Equation 5's D₂S^{n/2} ≡ [[0, D2], [0, 0]] (``which="D2"``) or S^{n/2}D₃ ≡ [[0, 0], [D3, 0]]
    (``"D3"``): the fewest edits of that one product, exactly at n = k in ``ns``.

    >>> repair_h15_eq5("D2", "down").grade
    'fails as printed; holds after a 1-symbol repair'
    """
    from .constructions.butterfly import symbolic_factor

    if which not in ("D2", "D3"):
        raise HypothesisError(f"which: expected 'D2' or 'D3', got {which!r}")
    t0 = time.perf_counter()
    part, side = ("B", "+") if which == "D2" else ("A", "-")
    names = [f"flip {part}", f"transpose {part}", f"order {part}", f"halves {side}"]
    factors = [symbolic_factor(n, n) for n in ns]

    def holds(combo):
        return all(_sym_eq(h15_form(F, direction, combo, part), _quadrant(F, which)) for F in factors)

    printed_ok = holds(())
    k, found, tried = (0, [()], 1) if printed_ok else _exhaust(names, max_edits, holds)
    edit = dict(H15_EDITS)
    text = "D₂S^{n/2} ≡ [[0,D2],[0,0]]" if which == "D2" else "S^{n/2}D₃ ≡ [[0,0],[D3,0]]"
    reps = tuple(Repair(tuple(edit[c] for c in combo), f"n = k in {list(ns)}", "exact: symbolic matrices")
                 for combo in found)
    return RepairReport("H.15 equation 5", f"{text}, S {direction}", max_edits, tried, reps,
                        _grade(0 if printed_ok else k, max_edits, printed_ok), time.perf_counter() - t0)


@lru_cache(maxsize=None)
def repair_h15(direction: str = "down", sizes: tuple = ((2, 2), (4, 4), (8, 8)), max_edits: int = 3) -> RepairReport:
    """Prop. H.15's identity: the fewest edits making it equal B_k^(n) at every (n, k) in ``sizes``.

    >>> [e.new for e in repair_h15("down").repairs[0].edits]
    ['(D₂S^{n/2})ᵀ']
    """
    from .constructions.butterfly import symbolic_factor

    t0 = time.perf_counter()
    factors = [symbolic_factor(n, k) for n, k in sizes]
    names = [name for name, _ in H15_EDITS]
    printed_ok = all(_sym_eq(h15_form(F, direction), F.to_matrix()) for F in factors)
    k, found, tried = (0, [()], 1) if printed_ok else _exhaust(
        names, max_edits, lambda c: all(_sym_eq(h15_form(F, direction, c), F.to_matrix()) for F in factors))
    edit = dict(H15_EDITS)
    where = ", ".join(f"({n}, {k_})" for n, k_ in sizes)
    reps = tuple(Repair(tuple(edit[c] for c in combo), f"every (n, k) checked: {where}",
                        "exact: symbolic matrices, every entry") for combo in found)
    scope = " (k < n too)" if any(n != k_ for n, k_ in sizes) else ""
    return RepairReport("H.15 butterfly factor" + scope, f"as printed, S {direction}", max_edits, tried, reps,
                        _grade(0 if printed_ok else k, max_edits, printed_ok), time.perf_counter() - t0)


# H.16: B x ≡ D₁′⊙u + D₂′⊙u + D₃′⊙u: where to insert shifts

def _h16_edits() -> tuple:
    out = []
    for term in (1, 2, 3):
        for pos in ("before", "after"):
            for direction in ("down", "up"):
                for amount in ("k/2", "nd/2"):
                    arrow = "S" if direction == "down" else "Sᵀ"
                    where = "x" if pos == "before" else f"d{term}⊙x"
                    new = (f"d{term}⊙({arrow}^{{{amount}}} x)" if pos == "before"
                           else f"{arrow}^{{{amount}}}(d{term}⊙x)")
                    out.append(((term, pos, direction, amount), Edit(f"term D{term}′⊙u", f"d{term}⊙x", new)))
    out.append((("amount", 2), Edit("d₂ = 1·(D₂S^{n/2})", "S^{n/2}", "S^{k/2}")))
    out.append((("amount", 3), Edit("d₃ = 1·(S^{k/2}D₃)", "S^{k/2}", "S^{n/2}")))
    return tuple(out)


def h16_form(F, x: np.ndarray, edits: Iterable[tuple] = ()) -> np.ndarray:
    """The printed Σ D_i′⊙u (as d_i⊙x on row-major x) with shifts inserted as ``edits`` say.

    >>> from symconv.constructions.butterfly import printed_diagonals, symbolic_factor
    >>> F = symbolic_factor(4, 4); x = np.array(sympy.symbols("x0:4"), dtype=object)
    >>> d1, d2, d3 = printed_diagonals(F)
    >>> _sym_eq(h16_form(F, x), d1 * x + d2 * x + d3 * x)
    True
    """
    from .constructions.butterfly import diag_matrix, shift_matrix

    e = list(edits)
    one = np.ones(F.n, dtype=object)
    jd2 = F.k // 2 if ("amount", 2) in e else F.n // 2
    jd3 = F.n // 2 if ("amount", 3) in e else F.k // 2
    d = {1: F.d, 2: one.dot(diag_matrix(F.d_plus).dot(shift_matrix(F.n, jd2))),
         3: one.dot(shift_matrix(F.n, jd3).dot(diag_matrix(F.d_minus)))}

    def move(v, direction, amount):
        j = F.k // 2 if amount == "k/2" else F.n // 2
        S = shift_matrix(F.n, j)
        return (S if direction == "down" else S.T).dot(v)

    total = np.zeros(F.n, dtype=object)
    for term in (1, 2, 3):
        v = x
        for t, pos, direction, amount in (q for q in e if q[0] == term and q[1] == "before"):
            v = move(v, direction, amount)
        v = d[term] * v
        for t, pos, direction, amount in (q for q in e if q[0] == term and q[1] == "after"):
            v = move(v, direction, amount)
        total = total + v
    return total


@lru_cache(maxsize=None)
def repair_h16(cases: tuple = ((2, 2, 2), (2, 2, 4), (4, 2, 4), (4, 2, 8), (2, 4, 8)),
               max_edits: int = 3) -> RepairReport:
    """Lemma H.16's step B x ≡ Σ D_i′⊙u: the fewest inserted shifts (or replaced shift amounts)
    that make it hold at every (n, d, k) in ``cases``, exactly on symbolic x (random integers
    first, to prune)."""
    from .constructions.butterfly import ButterflyFactorMatrix, symbolic_factor

    t0 = time.perf_counter()
    rng = np.random.default_rng(5)
    data, nums = [], []
    for n, d, k in cases:
        F = symbolic_factor(n * d, k)
        x = np.array(sympy.symbols(f"x0:{n * d}"), dtype=object)
        data.append((F, x, F.apply(x)))
        Fn = ButterflyFactorMatrix(n * d, k, rng.integers(1, 10**6, size=F.D.shape).astype(object))
        xn = rng.integers(1, 10**6, size=n * d).astype(object)
        nums.append((Fn, xn, Fn.apply(xn)))
    edits = _h16_edits()
    keys = [q for q, _ in edits]

    def clash(a, b):
        return a[0] == b[0] and a[0] != "amount" and a[1] == b[1]

    def holds(combo):
        if not all(np.array_equal(h16_form(F, x, combo), want) for F, x, want in nums):
            return False
        return all(_sym_eq(h16_form(F, x, combo), want) for F, x, want in data)

    printed_ok = holds(())
    k, found, tried = (0, [()], 1) if printed_ok else _exhaust(keys, max_edits, holds, clash)
    edit = dict(edits)
    where = ", ".join(f"({n}, {d}, {k_})" for n, d, k_ in cases)
    reps = tuple(Repair(tuple(edit[c] for c in combo), f"every (n, d, k) checked: {where}",
                        "exact: symbolic x, every entry") for combo in found)
    return RepairReport("H.16 butterfly factor matrix", "as printed", max_edits, tried, reps,
                        _grade(0 if printed_ok else k, max_edits, printed_ok), time.perf_counter() - t0)


# H.22: the printed line γ·W_Aᵀ(u^T[:,1] u[0,:])W_V + W_Aᵀ(u^T[:,1] u[1,:])W_V of z^1

H22_PRINTED = (1, 0, 1, 1)
H22_SLOTS = ("first u^T[:, ·] (γ term)", "first u[·, :] (γ term)", "second u^T[:, ·]", "second u[·, :]")


def h22_line(u: Any, WA: Any, WV: Any, gamma: Any, idx: Sequence[int] = H22_PRINTED) -> sympy.Matrix:
    """γ·W_Aᵀ(u^T[:, i1] u[i2, :])W_V + W_Aᵀ(u^T[:, i3] u[i4, :])W_V (the printed second line of z^1).

    >>> g = sympy.Symbol("g")
    >>> h22_line([[1], [2]], [[1]], [[1]], g)
    Matrix([[2*g + 4]])
    """
    U = sympy.Matrix(np.asarray(u, dtype=object).tolist())
    A, V = sympy.Matrix(np.asarray(WA, dtype=object).tolist()), sympy.Matrix(np.asarray(WV, dtype=object).tolist())
    i1, i2, i3, i4 = idx
    return gamma * (A.T * (U[i1, :].T * U[i2, :]) * V) + A.T * (U[i3, :].T * U[i4, :]) * V


@lru_cache(maxsize=None)
def repair_h22(widths: tuple = (1, 2), max_edits: int = 2) -> RepairReport:
    """Corollary H.22's printed line of z^1 with the wrong index: which index replaced repairs it.

    >>> repair_h22().repairs[0].edits[0].text()
    'z¹ line 2, first u^T[:, ·] (γ term): 1 → 0'
    """
    from .blocks import sym
    from .retnet import recurrence

    t0 = time.perf_counter()
    g = sympy.Symbol("gamma")
    data = []
    for d in widths:
        rng = np.random.default_rng(7 + d)
        WA, WC, WV = (rng.integers(1, 4, size=(d, d)).tolist() for _ in range(3))
        u = sym("u", 2, d).entries
        data.append((u, WA, WV, recurrence(u, WA, WC, WV, g)[1][1]))
    edits = [(slot, 1 - H22_PRINTED[slot]) for slot in range(4)]

    def idx(combo):
        out = list(H22_PRINTED)
        for slot, v in combo:
            out[slot] = v
        return out

    def holds(combo):
        return all(sympy.expand(h22_line(u, WA, WV, g, idx(combo)) - z1) == sympy.zeros(*z1.shape)
                   for u, WA, WV, z1 in data)

    printed_ok = holds(())
    k, found, tried = (0, [()], 1) if printed_ok else _exhaust(edits, max_edits, holds)
    reps = tuple(Repair(tuple(Edit(f"z¹ line 2, {H22_SLOTS[s]}", str(H22_PRINTED[s]), str(v)) for s, v in combo),
                        f"N = 2, d in {list(widths)} (u symbolic, γ symbolic)", "exact: against equation 6")
                 for combo in found)
    return RepairReport("H.22 RetNet eq. 7", "printed z1 line 2", max_edits, tried, reps,
                        _grade(0 if printed_ok else k, max_edits, printed_ok), time.perf_counter() - t0)


# ---------------------------------------------------------------- the registry


REPAIRS: dict = {
    ("H.8", "shift_up", "as printed, ⊛ circular"): lambda: repair_h08("circular"),
    ("H.8", "shift_up", "as printed, ⊛ causal"): lambda: repair_h08("causal"),
    ("H.9", "add_n", "printed call"): repair_h09_call,
    ("H.10", "remember", "as printed"): lambda: repair_h10("H.8"),
    ("H.10", "remember", "as printed, working shift_up"): lambda: repair_h10("working"),
    ("H.10", "remember (printed blocks fit)", "as printed"): lambda: repair_h10("H.8"),
    ("H.10", "remember (printed blocks fit)", "as printed, working shift_up"): lambda: repair_h10("working"),
    ("H.15", "butterfly_factor_decomposition", "as printed, S down"): lambda: repair_h15("down"),
    ("H.15", "butterfly_factor_decomposition", "as printed, S up"): lambda: repair_h15("up"),
    ("H.15", "butterfly_factor_decomposition (k < n)", "as printed, S down"):
        lambda: repair_h15("down", ((4, 2), (8, 2), (8, 4))),
    ("H.15", "butterfly_factor_decomposition (k < n)", "as printed, S up"):
        lambda: repair_h15("up", ((4, 2), (8, 2), (8, 4))),
    ("H.15", "equation 5", "D₂ S^{n/2} ≡ [[0,D2],[0,0]], S down"): lambda: repair_h15_eq5("D2", "down"),
    ("H.15", "equation 5", "D₂ S^{n/2} ≡ [[0,D2],[0,0]], S up"): lambda: repair_h15_eq5("D2", "up"),
    ("H.15", "equation 5", "S^{n/2} D₃ ≡ [[0,0],[D3,0]], S up"): lambda: repair_h15_eq5("D3", "up"),
    ("H.16", "butterfly_factor_matrix", "as printed"): repair_h16,
    ("H.16", "butterfly_factor_matrix", "B x ≡ ΣD_i′⊙u"): repair_h16,
    ("H.16", "butterfly_factor_matrix", "d_i = diag D_i"): repair_h16,
    ("H.22", "eq. 7", "printed z1 line 2"): repair_h22,
}


NOT_SEARCHED: dict = {
    ("H.15", "butterfly_factor_decomposition", "as printed, S cyclic"):
        "the search edits the direction of S; for n = k the cyclic S^{n/2} has none (it is its own transpose); "
        "the S down and S up searches give the repairs",
    ("H.15", "butterfly_factor_decomposition (k < n)", "as printed, S cyclic"):
        "as for n = k: the cyclic S^{n/2} has no direction to edit; the S down and S up searches give the repairs",
    ("H.15", "equation 5", "D₂ S^{n/2} ≡ [[0,D2],[0,0]], S cyclic"):
        "D₂ = diag(0, D2) is zero on the top half, so D₂·M has zero top rows for every M: no edit of S can "
        "repair it; the halves of d⁺ swapped do (the S up search)",
    ("H.16", "butterfly_matrix", "5·log(nd): (1) stacked log(nd) times"):
        "a printed layer count, not a route: the stack of (1) has 2·log d + 3·log n layers, so 5·log(nd) is an "
        "upper bound, not the count",
    ("H.11", "stacking", "as printed, causal, any d'"):
        "no printed route to edit: the lemma stacks any two models; what f leaves in the channels >= d "
        "reaches g through W; within L1 + L2 the same f with its last layer clearing those channels holds "
        "(variant 'adjusted, causal, any d' (L1 + L2)')",
    ("H.11", "stacking", "as printed, circular, N' > N"):
        "no printed route to edit: rows >= N left by f wrap round in g's circular convolution; no adjustment "
        "within L1 + L2 was found (f's last layer cannot clear rows); one masking layer between them fixes it",
    ("H.12", "Hyena -> BaseConv (printed route)", "as printed"):
        "not a block route: remember_{N,N,0,0}'s printed gate needs 4N of the 2N rows (s >= n-1 only for "
        "N = 1), and its gate p^ℓ = Linear(u) is data, which no edit of a layer parameter turns into; the "
        "remember step itself is repaired under H.10",
    ("H.12", "Hyena -> BaseConv (printed route)", "as printed, working shift_up"):
        "as for 'as printed': the per-layer remember is not a block route and p^ℓ is data",
    ("H.12", "BaseConv -> Hyena", "as printed"):
        "a statement about every BaseConv model, not a route: the induction drops b2; it holds under the "
        "hypothesis b2 = 0 (see the proof file)",
    ("H.12", "BaseConv -> Hyena", "one L-layer Hyena (b2 = 0)"):
        "a reading of the statement, not a route: one Hyena model's projections read u, layer 2's gate "
        "must read z¹",
    ("H.21", "mult layer", "remember(y : v2, v3, e_0, p) as printed"):
        "remember's p is a layer parameter; the printed call puts the data v1 there, and after the "
        "projection v1 is no longer in the state: no symbol edit of the layers supplies it",
}


def errata_without_search(claims: Iterable) -> list:
    """(id, name, variant) of every ``expect="fails"`` variant with no search in :data:`REPAIRS`
    and no reason in :data:`NOT_SEARCHED` (the reason why a symbol-edit search does not apply).

    >>> from types import SimpleNamespace as NS
    >>> c = NS(id="H.9", name="add_n", variants=(NS(name="printed call", expect="fails"),
    ...                                            NS(name="other", expect="fails")))
    >>> errata_without_search([c])
    [('H.9', 'add_n', 'other')]
    """
    return [(c.id, c.name, v.name) for c in claims for v in c.variants
            if getattr(v, "expect", "holds") == "fails" and (c.id, c.name, v.name) not in REPAIRS
            and (c.id, c.name, v.name) not in NOT_SEARCHED]


def _keyed(key: tuple, report: RepairReport) -> RepairReport:
    """The report named as the variant it repairs: one search serves several variants (H.16's three readings of
    one printed line, H.10 with and without the printed blocks' fit), so the registry key names it."""
    claim_id, name, variant = key
    return replace(report, result=f"{claim_id} {name}", variant=variant)


def report_all() -> list:
    """(key, RepairReport) for every erratum of :data:`REPAIRS` (each search cached in-process), each report
    named by its key."""
    return [(key, _keyed(key, fn())) for key, fn in REPAIRS.items()]


def repair_for(claim_id: str, name: str, variant: str) -> RepairReport | None:
    """The closest-repair report of an erratum, or None when the registry has no search for it.

    >>> repair_for("H.9", "add_n", "printed call").repairs[0].edits[0].new
    'b²₂'
    >>> repair_for("H.16", "butterfly_factor_matrix", "d_i = diag D_i").variant
    'd_i = diag D_i'
    """
    fn = REPAIRS.get((claim_id, name, variant))
    return _keyed((claim_id, name, variant), fn()) if fn is not None else None
