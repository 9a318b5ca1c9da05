"""A deterministic planner for the cell layout (Theorem H.21, ``layout="cells"``) at large M.

The search of :mod:`.cells` runs one Dijkstra over every (step, cell) per demand; at
M ≈ 50 000 cells and 14 steps that is about a million nodes per demand, for thousands of
random tries.  This planner fixes the shift schedule first (powers of two
``+2^(b-1), …, +2, +1``, its negative, the ascending orders, or two such rounds; b = bit
length of the level's longest operand distance, then of M − 1) and then places the demands one at a time:

* a path to a given cell is a choice, per step, of staying or moving, found by a
  depth-first walk that prunes on what the remaining shifts can still reach (with
  one round of distinct powers of two the path is unique: the bits of the offset);
* a product's operands go to cells c and c − a (a: the level's y-offset), one of them
  kept where it is; a two-input linear gate merges the mover onto the stayer; a
  carried wire or one-input gate stays where it is when it can;
* a level of products whose operands are consecutive tokens (a product tree) is
  spread without reordering: the product of rank i gets cells (4i, 4i + 2) (or a
  stride of 3).  Order-preserving moves with non-decreasing offsets keep every
  intermediate position distinct; only the circular wrap at the last cells can still
  conflict, which the stride of 3 leaves room for.

Candidates are tried in a fixed order (fewest steps first), so the plan depends only on
the circuit and M.  It reuses :class:`~.cells.LevelPlan` (the same collision and wrap
rules) and the same emission, without the W = 0 merging (whose exact check walks every
row); any stack is checked like every other.  A level it cannot place raises
:class:`~.cells.PlanFail` (:func:`~.cells.compile_cells` then runs the search, or
reports it).

>>> from symconv.circuits import product_circuit
>>> from symconv.constructions.cells import compile_cells
>>> r = compile_cells(product_circuit(8), planner="fast")
>>> r.stack.signature.N_int, r.steps   # level 1 spreads the 8 inputs in 3 steps; levels 2, 3 move nothing
(32, (3, 0, 0))
"""
from __future__ import annotations

import time
from fractions import Fraction

from ..circuits import Circuit

from .cells import (LevelPlan, Node, PlanFail, PlanStopped, _emit_level, _final_demands, demands_of, next_start,
                    rounds)

ROUTE_NODES = 20000  # depth-first nodes per path before a candidate is given up
NEAR = 24            # alternative cells tried around a preferred one


def _powers(b: int, sign: int, ascending: bool = False) -> list:
    out = [sign * (1 << k) for k in range(b - 1, -1, -1)]
    return out[::-1] if ascending else out


def _positions(start) -> dict:
    """{wire: its first start cell}."""
    pos = {}
    for c in sorted(start):
        pos.setdefault(start[c], c)
    return pos


class _Planner:
    """One attempt at one level: a LevelPlan filled demand by demand, with undo."""

    def __init__(self, M, sched, start, ya):
        self.P = LevelPlan(M, sched, start)
        self.P.a = ya
        self.M, self.s, self.ya = M, len(sched), ya
        self.pos = _positions(start)
        self.start = start
        self.pending = {}   # wire -> demands not placed yet: its start cell is kept for it
        self.reserve = True
        # reach[k] = (most negative, most positive) total of the shifts of steps k+1 .. s
        self.suffix = [(0, 0)] * (self.s + 1)
        lo = hi = 0
        for k in range(self.s - 1, -1, -1):
            D = sched[k]
            lo, hi = lo + min(D, 0), hi + max(D, 0)
            self.suffix[k] = (lo, hi)

    def _reach(self, k, kt):
        (lo1, hi1), (lo2, hi2) = self.suffix[k], self.suffix[kt]
        return lo1 - lo2, hi1 - hi2

    def route(self, wire, k0, c0, kt, t, final):
        """A path of `wire` from (k0, c0) to (kt, t) through usable nodes (list of cells), or None."""
        P, M = self.P, self.M
        if not 0 <= t < M:
            return None
        if k0 == kt:   # no step: the token itself (a final at time 0 unless another final holds it)
            return [c0] if c0 == t and not (final and t in P.finals) else None
        if final and P.occ[kt].get(t) is not None:
            return None
        budget = [ROUTE_NODES]
        path = [c0]
        dead = set()   # (step, cell) from which no path exists (the occupancy is fixed during one route)

        def go(k, c):
            if k == kt:
                return c == t
            if (k, c) in dead:
                return False
            budget[0] -= 1
            if budget[0] < 0:
                return False
            D = P.sched[k]
            opts = []
            for nc in (c, c + D):
                if not 0 <= nc < M:
                    continue
                lo, hi = self._reach(k + 1, kt)
                if not lo <= t - nc <= hi:
                    continue
                u = P.usable(k + 1, nc, wire, c)
                if u is None or (final and k + 1 == kt and u == -1):
                    continue
                w2 = self.start.get(nc)
                if u == 0 and self.reserve and w2 is not None and w2 != wire and self.pending.get(w2, 0) > 0:
                    continue
                opts.append((u, nc != c, nc))   # shared nodes first, then staying
            for _, _, nc in sorted(opts):
                path.append(nc)
                if go(k + 1, nc):
                    return True
                path.pop()
            if budget[0] >= 0:
                dead.add((k, c))
            return False

        return path if go(k0, c0) else None

    def commit(self, wire, k0, path, dedicated_last, log):
        P = self.P
        for i in range(1, len(path)):
            k, c = k0 + i, path[i]
            if P.occ[k].get(c) is None:
                P.occ[k][c] = Node(wire, path[i - 1], dedicated=(dedicated_last and k == self.s))
                log.append((k, c))

    def undo(self, log):
        for k, c in log:
            del self.P.occ[k][c]
        log.clear()

    def near(self, c):
        yield c
        for r in range(1, NEAR + 1):
            yield c + r
            yield c - r

    # -- demands -------------------------------------------------------------------------
    def z(self, d, want):
        _, key, wire, coeff, c0 = d
        p = self.pos[wire]
        for t in ([want] if want is not None else self.near(p)):
            path = self.route(wire, 0, p, self.s, t, True)
            if path is not None:
                self.commit(wire, 0, path, True, [])
                self.P.finals[t] = ("z", key, wire, coeff, c0)
                return
        raise PlanFail(f"z {key}")

    def mul(self, d, want):
        _, g, a, b = d
        M, ya = self.M, self.ya
        for x, y in ((a, b), (b, a)) if a != b else ((a, b),):
            px, py = self.pos[x], self.pos[y]
            cands = [want] if want is not None else list(dict.fromkeys(
                [px, py + ya] + [c for pair in zip(self.near(px), self.near(py + ya)) for c in pair]))
            for c in cands:
                if not (0 <= c < M and 0 <= c - ya < M and 0 <= c - ya // 2 < M):
                    continue
                log = []
                X = self.route(x, 0, px, self.s, c, True)
                if X is None:
                    continue
                self.commit(x, 0, X, True, log)
                Y = self.route(y, 0, py, self.s, c - ya, True)
                if Y is None:
                    self.undo(log)
                    continue
                self.commit(y, 0, Y, True, log)
                self.P.finals[c] = ("x", g, x, y)
                self.P.finals[c - ya] = ("y", g, y, x)
                return
        raise PlanFail(f"mul {g}")

    def lin(self, d, want):
        _, g, a, b, ca, cb, c0 = d
        P, s = self.P, self.s
        gw = ("g", g)
        for mv, st, cmv, cst in ((a, b, ca, cb), (b, a, cb, ca)):
            pm, ps = self.pos[mv], self.pos[st]
            way = self.route(st, 0, ps, s, want, False) if want is not None else None  # st's own way to want
            for k in range(s, 0, -1):
                D = P.sched[k - 1]
                cells = [ps, pm + D] + ([want] if want is not None else []) + ([way[k - 1]] if way else [])
                cells += [ps + sg * m * 2 * abs(D) for m in range(1, NEAR + 1) for sg in (1, -1)]
                for c in dict.fromkeys(cells):
                    log = []
                    Sp = self.route(st, 0, ps, k - 1, c, False)
                    if Sp is None:
                        continue
                    self.commit(st, 0, Sp, False, log)
                    Mp = self.route(mv, 0, pm, k - 1, c - D, False)
                    if Mp is None or P.occ[k].get(c) is not None or not P.wrap_ok(k, c, True):
                        self.undo(log)
                        continue
                    self.commit(mv, 0, Mp, False, log)
                    P.occ[k][c] = Node(gw, None, dedicated=(k == s))
                    log.append((k, c))
                    fin = None
                    if k == s:
                        fin = c if want is None or c == want else None
                    else:
                        for t in ([want] if want is not None else self.near(c)):
                            G = self.route(gw, k, c, s, t, True)
                            if G is not None:
                                self.commit(gw, k, G, True, log)
                                fin = t
                                break
                    if fin is None:
                        self.undo(log)
                        continue
                    P.merges.append((k, c, g, mv, st, Fraction(cmv), Fraction(cst), Fraction(c0)))
                    P.finals[fin] = ("lin", g)
                    return
        raise PlanFail(f"lin {g}")

    def finish(self):
        P, M = self.P, self.M
        t = self.ya // 2
        for c, info in P.finals.items():
            if info[0] != "y" and not 0 <= c - t < M and ((c - t) % M) in P.finals:
                raise PlanFail("gate-round wrap")
        if not P.valid():
            raise PlanFail("wrap")
        return P


def _wires(d):
    return [d[2]] if d[0] == "z" else [d[2], d[3]]


def _check(deadline):
    if deadline is not None and time.perf_counter() > deadline:
        raise PlanStopped("the fast planner reached the time limit")


def _greedy(M, sched, start, ds, fixed, ya, deadline=None):
    pl = _Planner(M, sched, start, ya)
    order = sorted(range(len(ds)), key=lambda i: (0 if ds[i][1] in fixed else 1,
                                                  {"mul": 0, "lin": 1, "z": 2}[ds[i][0]], i))
    for d in ds:
        for w in _wires(d):
            pl.pending[w] = pl.pending.get(w, 0) + 1
    for i in order:
        _check(deadline)
        d = ds[i]
        for w in _wires(d):
            pl.pending[w] -= 1
        try:
            getattr(pl, d[0])(d, fixed.get(d[1]))
        except PlanFail:   # again, through the start cells kept for wires still to place
            pl.reserve = False
            getattr(pl, d[0])(d, fixed.get(d[1]))
            pl.reserve = True
    return pl.finish()


def _spread(M, start, ds, stride=4):
    """Order-preserving targets for a level of products (and copies) whose operands are consecutive
    tokens: the i-th product in order gets cells (stride·i', stride·i' + 2) (i' counts cells, a copy takes
    one), y-offset −2.  None when it does not apply."""
    if any(d[0] == "lin" for d in ds):
        return None
    cells = sorted(start)
    rank = {}
    for c in cells:
        rank.setdefault(start[c], len(rank))
    seen = set()
    items = []
    for i, d in enumerate(ds):
        ws = [d[2]] if d[0] == "z" else [d[2], d[3]]
        if len(set(ws)) != len(ws) or any(w in seen for w in ws):
            return None
        seen.update(ws)
        items.append((min(rank[w] for w in ws), i))
    items.sort()
    targets, cur, r = {}, 0, 0
    for lo, i in items:
        d = ds[i]
        if lo != r:
            return None
        if d[0] == "z":
            targets[i] = (cur,)
            cur, r = cur + 1, r + 1
        else:
            a, b = d[2], d[3]
            if {rank[a], rank[b]} != {r, r + 1}:
                return None
            x = a if rank[a] == r else b
            targets[i] = (cur, cur + 2, x)
            cur, r = cur + stride, r + 2
    if cur > M + 1:
        return None
    return targets


def _plan_spread(M, start, ds, targets, cap, deadline=None):
    pos = _positions(start)
    need = 0
    for i, tg in targets.items():
        d = ds[i]
        for w, t in ((d[2], tg[0]),) if d[0] == "z" else ((tg[2], tg[0]), (d[3] if tg[2] == d[2] else d[2], tg[1])):
            need = max(need, abs(t - pos[w]))
    b = max(1, need.bit_length())
    for sign in (1, -1):
        sched = _powers(b, sign) if need else []
        if len(sched) > cap:
            continue
        pl = _Planner(M, sched, start, -2)
        try:
            for i, tg in targets.items():
                _check(deadline)
                d = ds[i]
                if d[0] == "z":
                    _, key, wire, coeff, c0 = d
                    path = pl.route(wire, 0, pos[wire], pl.s, tg[0], True)
                    if path is None:
                        raise PlanFail("spread z")
                    pl.commit(wire, 0, path, True, [])
                    pl.P.finals[tg[0]] = ("z", key, wire, coeff, c0)
                    continue
                x = tg[2]
                y = d[3] if x == d[2] else d[2]
                for w, t in ((x, tg[0]), (y, tg[1])):
                    path = pl.route(w, 0, pos[w], pl.s, t, True)
                    if path is None:
                        raise PlanFail("spread mul")
                    pl.commit(w, 0, path, True, [])
                pl.P.finals[tg[0]] = ("x", d[1], x, y)
                pl.P.finals[tg[1]] = ("y", d[1], y, x)
            return pl.finish()
        except PlanStopped:
            raise
        except PlanFail:
            continue
        if not need:
            break
    return None


def _offsets(start, ds, final, lo):
    """y-offset candidates: the even operand distances shared by several products first, then defaults."""
    pos = _positions(start)
    count = {}
    muls = [d for d in ds if d[0] == "mul"]
    for d in muls:
        for v in {pos[d[2]] - pos[d[3]], pos[d[3]] - pos[d[2]]}:
            if v % 2 == 0 and v != 0 and (not final or v <= -lo):
                count[v] = count.get(v, 0) + 1
    common = [v for v in sorted(count, key=lambda v: (-count[v], abs(v), v)) if count[v] * 2 >= len(muls)][:2]
    defaults = [-lo, -lo - 2, -lo - 4] if final else [2, -2, 4, -4]
    return list(dict.fromkeys(common + defaults))


def _span(start, ds, fixed):
    """Bits for the level's longest move: operand distances, distances to fixed cells, and some slack."""
    pos = _positions(start)
    need = 8
    for d in ds:
        ws = [d[2]] if d[0] == "z" else [d[2], d[3]]
        need = max(need, max(pos[w] for w in ws) - min(pos[w] for w in ws) + 8)
        if d[1] in fixed:
            need = max(need, max(abs(pos[w] - fixed[d[1]]) for w in ws) + 2 * len(fixed) + 8)
    return need.bit_length()


def plan_level_fast(M: int, start: dict, ds: list, fixed: dict, cap: int, final: bool, lo: int,
                    deadline: float | None = None) -> LevelPlan:
    """One level: the first plan in a fixed order of (schedule, y-offset), at most `cap` shift steps
    (:class:`~.cells.PlanStopped` past ``deadline``, a ``time.perf_counter()`` value)."""
    if not final and not fixed:
        for stride in (4, 3):   # 4: the next levels pair in place; 3 leaves room when 4 wraps past M
            tg = _spread(M, start, ds, stride)
            if tg is not None:
                P = _plan_spread(M, start, ds, tg, cap, deadline)
                if P is not None:
                    return P
    scheds = [[]]
    bM = max(1, (M - 1).bit_length())
    for b in dict.fromkeys((min(_span(start, ds, fixed), bM), bM)):
        pos, neg = _powers(b, 1), _powers(b, -1)
        apos, aneg = pos[::-1], neg[::-1]
        if final:   # the outputs sit at the first cells: end with the long moves onto them
            scheds += [aneg, neg, neg + aneg, pos + aneg, aneg + apos + aneg]
        else:
            scheds += [pos, neg, apos, aneg, pos + neg, neg + pos]
    for sched in scheds:
        if len(sched) > cap:
            continue
        for ya in _offsets(start, ds, final, lo):
            try:
                return _greedy(M, sched, start, ds, fixed, ya, deadline)
            except PlanStopped:
                raise
            except PlanFail:
                continue
    raise PlanFail("no plan")


def plan_cells_fast(circuit: Circuit, M: int, budget: int, start: dict, out_cells: list,
                    deadline: float | None = None) -> list:
    """Every level by :func:`plan_level_fast`, within `budget` layers; returns the list of (plan, demands)."""
    rs = rounds(circuit)
    plans, used, cur = [], 0, dict(start)
    lo = 2 * ((max(out_cells) + 2) // 2)
    for li, (gates, carried) in enumerate(rs):
        final = li == len(rs) - 1
        if final:
            ds, fixed = _final_demands(circuit, gates, out_cells)
        else:
            ds, fixed = demands_of(circuit, gates, carried), {}
        cap = (budget - used - 2 * (len(rs) - li - 1) - 2) // 2
        if cap < 0:
            raise PlanFail(f"level {li + 1}: no layers left")
        try:
            P = plan_level_fast(M, cur, ds, fixed, cap, final, lo, deadline)
        except PlanStopped:
            raise
        except PlanFail:
            raise PlanFail(f"fast planner: no plan for level {li + 1}") from None
        P._layers = _emit_level(P, M, li, compact=True)   # int64 arrays where the values allow
        used += len(P._layers)
        if used > budget:
            raise PlanFail(f"level {li + 1}: over the budget")
        plans.append((P, ds))
        cur = next_start(P)
    return plans
