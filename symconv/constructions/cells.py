"""Theorem H.21 on a cell layout (``layout="cells"``): N' = 2M rows on channel 0, circular filters.

Rows [0, M) are M *cells*, rows [M, 2M) are spare.  Between steps every token
(a wire, possibly scaled) sits on a cell, at most one per cell.

* A **masked shift step** is two W = 0 layers: ``e_0 + e_M`` keeps each token on its
  row and/or puts a copy on the spare row below it (the spare rows are empty, so this
  never collides), then ``e_0 + e_(D+M)`` brings the copies back D cells further.  A
  step moves any subset of tokens by D, and a token may also stay (fan-out).  An
  arriving copy may not land on a token that stays, except when the two are the
  operands of a two-input linear gate: then that row computes the gate (a *merge*).
  Where c − D leaves the cells the filter wraps onto a cell, so such a kept row forbids
  a token that stays there.
* A **gate round** is two layers: ``e_0 + e_T`` parks each product's y-operand on a
  spare row, then W = 1 with ``h = e_T`` gives x·y on x's row, 0 on the parked row, and
  an affine map (z + b1)·b2 of every other token (one-input gates, carried wires).
* A randomized planner (space-time path finding over (step, cell) with the rules
  above, shift schedules drawn at random, levels searched depth-first with
  backtracking) chooses every token's moves under a layer budget; consecutive W = 0
  layers of a level are then merged where that is exact (:mod:`.cells_merge`).
  From M = FAST_CELLS cells on, a deterministic planner (:mod:`.cells_fast`) is
  tried first: it scales to M ≈ 50 000, where the search's per-demand Dijkstra
  does not.

For d > 1 two layers first put u[i, c] on cell c·n + i of channel 0 and two more bring
output k back to (k div d, k mod d): d' = d, the other channels stay zero in between.

The planner is a search: when it finds nothing, :func:`compile_cells` raises a
HypothesisError, which proves nothing about the circuit.  The scheme and planner
were designed in a research session (scratch code, then ported); every stack it
returns is an ordinary :class:`~symconv.model.Stack`, checked by the claim it
serves like any other.

>>> from symconv.circuits import random_circuit
>>> st = compile_cells(random_circuit(4, 4, 2, seed=6, n_outputs=4, sparse=True)).stack
>>> st.signature.N_int, st.signature.L <= 16
(28, True)
"""
from __future__ import annotations

import heapq
import math
import random
import time
import zlib
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..circuits import Circuit, binarize, paper_sizes, theorem_bounds
from ..model import HypothesisError, Layer, Stack
from .cells_merge import merge_level
from .params import rational


class PlanFail(Exception):
    """The planner found no plan (internal; :func:`compile_cells` reports it as a HypothesisError)."""


class NoPlan(HypothesisError):
    """:func:`compile_cells` found no plan within its search (another seed or more restarts may find one); any
    other HypothesisError it raises is a refusal that no seed changes (or its time limit)."""


class PlanStopped(PlanFail):
    """The planner reached its time limit (``seconds``): no fallback, so that a returned stack never depends on
    the time taken."""


# ----------------------------------------------------------------------------- planning

@dataclass
class Node:
    wire: object          # wire id, or ("g", wire) for a merged gate before it is final
    pred: int | None      # cell at time k-1 (None at time 0)
    dedicated: bool = False


class LevelPlan:
    def __init__(self, M, sched, start):
        self.M = M
        self.sched = sched          # shifts D_1..D_s
        self.s = len(sched)
        self.occ = [dict() for _ in range(self.s + 1)]   # occ[k][cell] = Node
        for c, w in start.items():
            self.occ[0][c] = Node(w, None)
        self.merges = []   # (k, cell, gate wire, a wire, b wire, ca, cb, c0)
        self.penalty = {}  # cell -> extra cost (start cells of wires still to plan)
        self.noise = None
        self.finals = {}   # cell -> (role, gate/wire, extra)

    def layer_a_stayer(self, k, r):
        n = self.occ[k].get(r)
        return n is not None and (n.pred == r or n.pred is None)

    def wrap_ok(self, k, c, stay):
        """Layer B of step k reads, for main row c, row c - D - M: a main row when c - D is off the cells."""
        M, D = self.M, self.sched[k - 1]
        if not 0 <= c - D < M and self.layer_a_stayer(k, (c - D) % M):
            return False
        if stay and not 0 <= c + D < M and ((c + D) % M) in self.occ[k]:
            return False
        return True

    def valid(self):
        M = self.M
        for k in range(1, self.s + 1):
            D = self.sched[k - 1]
            for c in self.occ[k]:
                if not 0 <= c - D < M and self.layer_a_stayer(k, (c - D) % M):
                    return False
        return True

    def usable(self, k, c, wire, pred):
        n = self.occ[k].get(c)
        if n is None:
            if not self.wrap_ok(k, c, pred == c):
                return None
            return 0   # new node, cost 1 (caller adds)
        if n.wire == wire and n.pred == pred and not n.dedicated:
            return -1  # shared
        return None

    def paths(self, wire, k0, c0, final_ok):
        """Cheapest paths of `wire` from (k0, c0) to time s; returns {cell: path} (path: list of cells k0..s)."""
        return self._search(wire, k0, c0, self.s, final_ok)

    def _search(self, wire, k0, c0, kt, final_ok=None):
        """Cheapest paths (Dijkstra over (step, cell)) from (k0, c0) to time kt: {cell: (cost, path)}.
        With ``final_ok`` (kt = s): only free cells it accepts, and no node shared at time s (finals
        are dedicated); without it, every cell reached at kt (for merges part-way)."""
        if final_ok is None and kt == k0:
            return {c0: (0, [c0])}
        M = self.M
        best = {(k0, c0): 0}
        prev = {}
        pq = [(0, k0, c0)]
        out = {}
        while pq:
            cost, k, c = heapq.heappop(pq)
            if best.get((k, c)) != cost:
                continue
            if k == kt:
                if final_ok is None or (final_ok(c) and self.occ[kt].get(c) is None):
                    path = [c]
                    kk, cc = k, c
                    while (kk, cc) != (k0, c0):
                        cc = prev[(kk, cc)]
                        kk -= 1
                        path.append(cc)
                    out.setdefault(c, (cost, path[::-1]))
                continue
            D = self.sched[k]
            for nc in (c, c + D):
                if not 0 <= nc < M:
                    continue
                u = self.usable(k + 1, nc, wire, c)
                if u is None:
                    continue
                if final_ok is not None and k + 1 == kt and u == -1:
                    continue   # finals are dedicated, never shared
                ncost = cost + (self.node_cost(k + 1, nc, wire) if u == 0 else 0)
                if ncost < best.get((k + 1, nc), 1 << 30):
                    best[(k + 1, nc)] = ncost
                    prev[(k + 1, nc)] = c
                    heapq.heappush(pq, (ncost, k + 1, nc))
        return out

    def node_cost(self, k, c, wire):
        p = self.penalty.get(c)
        extra = 0.0
        if p is not None and p[0] != wire and p[1] > 0:
            extra = self.lam
        if self.noise:
            extra += self.noise * ((zlib.crc32(repr((k, c, wire, self.seed)).encode()) % 1000) / 1000.0)
        return 1.0 + extra

    def commit(self, wire, k0, path, dedicated_last=True):
        for i in range(1, len(path)):
            k = k0 + i
            c = path[i]
            n = self.occ[k].get(c)
            if n is None:
                self.occ[k][c] = Node(wire, path[i - 1], dedicated=(dedicated_last and k == self.s))
            else:
                assert n.wire == wire and n.pred == path[i - 1] and not n.dedicated
        return path[-1]

    def conflict(self, wire1, k01, p1, wire2, k02, p2):
        """Two fresh paths of different wires claiming one node (or the same final)."""
        seen = {}
        for w, k0, p in ((wire1, k01, p1), (wire2, k02, p2)):
            for i in range(1, len(p)):
                key = (k0 + i, p[i])
                if key in seen and (seen[key] != (w, p[i - 1]) or k0 + i == self.s):
                    return True
                seen[key] = (w, p[i - 1])
        return False


def plan_level(M, sched, start, demands, rng, fixed=None, ya=2):
    """demands: list of ("mul", g, a, b) / ("lin", g, a, b, ca, cb, c0) / ("z", key, wire, coeff, c0).
    start: {cell: wire} at time 0.  fixed: {key: cell} final cells (outputs).
    Returns LevelPlan with .finals {cell: info} or raises PlanFail."""
    fixed = fixed or {}
    P = LevelPlan(M, sched, start)
    P.a = ya
    P.lam = rng.choice((0.0, 0.5, 1.0, 2.0))
    P.noise = rng.choice((0.0, 0.3))
    P.seed = rng.random()
    uses = {}
    for d in demands:
        ws = [d[2]] if d[0] == "z" else [d[2], d[3]]
        for w in ws:
            uses[w] = uses.get(w, 0) + 1
    for c, w in start.items():
        P.penalty[c] = [w, uses.get(w, 0)]
    def used(*ws):
        for w in ws:
            for c, p in P.penalty.items():
                if p[0] == w:
                    p[1] -= 1
    pos = {}
    for c, w in start.items():
        pos.setdefault(w, c)
    s = P.s
    for d in demands:
        kind = d[0]
        used(*([d[2]] if kind == "z" else [d[2], d[3]]))
        if kind == "z":
            _, key, wire, coeff, c0 = d
            want = fixed.get(key)
            opts = P.paths(wire, 0, pos[wire], (lambda c: c == want) if want is not None else (lambda c: True))
            if not opts:
                raise PlanFail(f"z {key}")
            c = min(opts, key=lambda c: (opts[c][0], rng.random()))
            P.commit(wire, 0, opts[c][1])
            P.finals[c] = ("z", key, wire, coeff, c0)
        elif kind == "mul":
            _, g, a, b = d
            want = fixed.get(g)
            cands = []
            for x, y in ((a, b), (b, a)):
                X = P.paths(x, 0, pos[x], (lambda c: 0 <= c - ya < M and 0 <= c - ya // 2 < M and (want is None or c == want)))
                Y = P.paths(y, 0, pos[y], lambda c: True)
                for c in X:
                    if c - ya in Y:
                        cost = X[c][0] + Y[c - ya][0]
                        cands.append((cost, rng.random(), x, y, c))
                if a == b:
                    break
            cands.sort()
            for cost, _, x, y, c in cands:
                X = P.paths(x, 0, pos[x], lambda cc: cc == c)
                Y = P.paths(y, 0, pos[y], lambda cc: cc == c - ya)
                if c not in X or c - ya not in Y:
                    continue
                px, py = X[c][1], Y[c - ya][1]
                snap = [dict(o) for o in P.occ]
                ok = False
                if x != y and not P.conflict(x, 0, px, y, 0, py):
                    P.commit(x, 0, px)
                    P.commit(y, 0, py)
                    ok = P.valid()
                    if not ok:
                        P.occ = [dict(o) for o in snap]
                if not ok:
                    # sequential: one path first, the other planned around it (both orders)
                    for (w1, f1, w2, f2) in ((x, c, y, c - ya), (y, c - ya, x, c)):
                        P.occ = [dict(o) for o in snap]
                        A = P.paths(w1, 0, pos[w1], lambda cc, f1=f1: cc == f1)
                        if f1 not in A:
                            continue
                        P.commit(w1, 0, A[f1][1])
                        B = P.paths(w2, 0, pos[w2], lambda cc, f2=f2: cc == f2)
                        if f2 not in B:
                            continue
                        P.commit(w2, 0, B[f2][1])
                        if P.valid():
                            ok = True
                            break
                if not ok:
                    P.occ = snap
                    continue
                P.finals[c] = ("x", g, x, y)
                P.finals[c - ya] = ("y", g, y, x)
                break
            else:
                raise PlanFail(f"mul {g}")
        elif kind == "lin":
            _, g, a, b, ca, cb, c0 = d
            want = fixed.get(g)
            done = False
            order = [(a, b, ca, cb), (b, a, cb, ca)]
            rng.shuffle(order)
            ks = list(range(1, s + 1))
            rng.shuffle(ks)
            for k in sorted(ks, reverse=True):
                if done:
                    break
                D = sched[k - 1]
                for mv, st, cmv, cst in order:
                    if done:
                        break
                    # mover mv at (k-1, c-D) -> (k, c); stayer st at (k-1, c) -> (k, c)
                    Pm = P._search(mv, 0, pos[mv], k - 1)
                    Ps = P._search(st, 0, pos[st], k - 1)
                    cells = [c for c in range(M) if (c - D) in Pm and c in Ps and P.occ[k].get(c) is None
                             and 0 <= c - D < M]
                    rng.shuffle(cells)
                    cells.sort(key=lambda c: Pm[c - D][0] + Ps[c][0])
                    for c in cells:
                        pm, ps_ = Pm[c - D][1], Ps[c][1]
                        if P.conflict(mv, 0, pm, st, 0, ps_):
                            continue
                        # the merged token from (k, c) to time s
                        gw = ("g", g)
                        # tentatively commit
                        snap = [dict(o) for o in P.occ]
                        P.commit(mv, 0, pm, dedicated_last=False)
                        P.commit(st, 0, ps_, dedicated_last=False)
                        if P.occ[k].get(c) is not None or not P.wrap_ok(k, c, True):
                            P.occ = snap
                            continue
                        P.occ[k][c] = Node(gw, None, dedicated=(k == s))
                        if k == s:
                            if want is not None and c != want:
                                P.occ = snap
                                continue
                            fin = c
                        else:
                            G = P.paths(gw, k, c, (lambda cc: cc == want) if want is not None else (lambda cc: True))
                            if not G:
                                P.occ = snap
                                continue
                            fin = min(G, key=lambda cc: (G[cc][0], rng.random()))
                            P.commit(gw, k, G[fin][1])
                        if not P.valid():
                            P.occ = snap
                            continue
                        P.merges.append((k, c, g, mv, st, Fraction(cmv), Fraction(cst), Fraction(c0)))
                        P.finals[fin] = ("lin", g)
                        done = True
                        break
            if not done:
                raise PlanFail(f"lin {g}")
    t = ya // 2
    for c, info in P.finals.items():
        if info[0] != "y" and not 0 <= c - t < M and ((c - t) % M) in P.finals:
            raise PlanFail("gate-round wrap")
    return P


# ----------------------------------------------------------------------------- circuit rounds

def rounds(circuit: Circuit):
    """Per level l = 1..top (top: the deepest output): (gates of level l that are needed, wires carried past l)."""
    n = circuit.n_inputs
    lev = circuit.levels()
    needed = set(circuit.outputs)
    for k in range(len(circuit.gates) - 1, -1, -1):
        w = n + k
        if w in needed:
            g = circuit.gates[k]
            if g.op == "const":
                raise HypothesisError(f"circuit: gate {w} is a constant; layout 'cells' supports linear and mul "
                                      "gates only (use layout='lean')")
            needed.update(g.args)
    last = {}
    for k, g in enumerate(circuit.gates):
        w = n + k
        if w in needed:
            for a in g.args:
                last[a] = max(last.get(a, 0), lev[w])
    top = max(lev[o] for o in circuit.outputs)
    for o in circuit.outputs:
        last[o] = top + 1
    out = []
    for l in range(1, top + 1):
        gates = [n + k for k in range(len(circuit.gates)) if n + k in needed and lev[n + k] == l]
        carried = sorted(w for w in needed if lev[w] < l and last.get(w, 0) > l)
        out.append((gates, carried))
    return out


def _rational(c, where: str) -> Fraction:
    """A gate coefficient as a Fraction (:func:`.params.rational`)."""
    return rational(c, where, "layout 'cells' needs numeric coefficients", what="coefficient")


def demands_of(circuit, gates, carried):
    """What one level must deliver: ("mul", g, a, b), ("lin", g, a, b, ca, cb, c0) for a gate
    ca·a + cb·b + c0, ("z", key, wire, coeff, c0) for one-input gates and carried wires."""
    n = circuit.n_inputs
    ds = []
    for w in gates:
        g = circuit.gates[w - n]
        if g.op == "mul":
            ds.append(("mul", w, g.args[0], g.args[1]))
            continue
        terms: dict = {}
        for a, c in zip(g.args, g.coeffs):  # a·x + b·x reads x once, with a + b
            terms[a] = terms.get(a, Fraction(0)) + _rational(c, f"gate {w}")
        terms = {a: c for a, c in terms.items() if c != 0}
        c0 = _rational(g.c0, f"gate {w}")
        if not terms:
            raise HypothesisError(f"circuit: gate {w} is a constant; layout 'cells' supports linear and mul "
                                  "gates only (use layout='lean')")
        if len(terms) > 2:
            raise HypothesisError(f"circuit: gate {w} has {len(terms)} operands; binarize the circuit first")
        (a, ca), *rest = terms.items()
        if rest:
            (b, cb), = rest
            ds.append(("lin", w, a, b, ca, cb, c0))
        else:
            ds.append(("z", w, a, ca, c0))
    for w in carried:
        ds.append(("z", ("carry", w), w, Fraction(1), Fraction(0)))
    return ds


def _plan_cells(circuit: Circuit, M: int, smax: int, tries=200, seed=0, restarts=1, budget=None,
                branch=3, node_budget=60, start=None, out_cells=None, seconds=None):
    """Plan every level (restarting from level 1 on a failure); returns (stack, plans) or raises PlanFail.
    ``seconds``: stop the search after this long (None: no limit)."""
    err = None
    spent = [time.perf_counter(), seconds]
    for r in range(restarts):
        try:
            return _compile_cells(circuit, M, smax, tries, seed * 1000 + r, budget, branch, node_budget,
                                  start, out_cells, spent)
        except PlanFail as e:
            err = e
            if spent[1] is not None and time.perf_counter() - spent[0] >= spent[1]:
                break
    raise err


def _final_demands(circuit, gates, out_cells):
    """The last level: its gates, each output slot i at cell out_cells[i] (a gate of this level at its first
    slot; any other output, an earlier wire or a repeat, as a copy ("z", ("out", i), wire, 1, 0))."""
    ds = demands_of(circuit, gates, ())
    fixed = {}
    top = set(gates)
    for i, o in enumerate(circuit.outputs):
        if o in top and o not in fixed:
            fixed[o] = out_cells[i]
        elif o in top:
            raise HypothesisError(f"circuit: output {i} repeats wire {o}, which the last level computes; the cell "
                                  "layout places each product once (use layout='lean')")
        else:
            ds.append(("z", ("out", i), o, Fraction(1), Fraction(0)))
            fixed[("out", i)] = out_cells[i]
    return ds, fixed


def next_start(P) -> dict:
    """The next level's start tokens {cell: wire}: the products, merged gates and copies a plan delivers."""
    st = {}
    for c, info in P.finals.items():
        if info[0] in ("x", "lin"):
            st[c] = info[1]
        elif info[0] == "z":
            key = info[1]
            st[c] = key[1] if isinstance(key, tuple) else key
    return st


def _compile_cells(circuit: Circuit, M: int, smax: int, tries=200, seed=0, budget=None,
                   branch=3, node_budget=60, start=None, out_cells=None, spent=None):
    """Depth-first over levels: up to `branch` plans per level, backtracking on a failure."""
    rng = random.Random(seed)
    n = circuit.n_inputs
    if M < n:
        raise PlanFail("M < n")
    rs = rounds(circuit)
    nout = len(circuit.outputs)
    start = {i: i for i in range(n)} if start is None else start
    out_cells = list(range(nout)) if out_cells is None else list(out_cells)
    counter = [0]
    deepest = [0, ""]

    def plan_one(li, start, used):
        gates, carried = rs[li]
        final = li == len(rs) - 1
        if final:  # every wire carried into the last level is an output: the output slots cover them
            ds, fixed = _final_demands(circuit, gates, out_cells)
        else:
            ds, fixed = demands_of(circuit, gates, carried), {}
        smax_here = smax + (0 if budget is None else 1)
        left_levels = len(rs) - li - 1
        if budget is not None:
            cap = (budget - used - 3 * left_levels - 1) // 2   # merged levels can be shorter than 2s + 2
            smax_here = cap if final else min(smax_here + 1, cap)
        for s_ in range(1, smax_here + 1):
            for t in range(tries):
                sched = default_schedule(s_, M, rng)
                order = ds[:]
                rng.shuffle(order)
                order.sort(key=lambda d: (0 if d[1] in fixed else 1, {"mul": 0, "lin": 1, "z": 2}[d[0]]))
                if final:  # y-operands beyond every output cell
                    lo = 2 * ((max(out_cells) + 2) // 2)
                    ya = -rng.choice([v for v in range(lo, max(lo, M - 1) + 1, 2)] or [lo])
                else:
                    ya = rng.choice((2, -2, 4, -4)) if M > 8 else rng.choice((2, -2))
                if spent is not None and spent[1] is not None and time.perf_counter() - spent[0] > spent[1]:
                    raise PlanStopped(f"search stopped after its {spent[1]:g} s")
                try:
                    P = plan_level(M, sched, start, order, rng, fixed, ya=ya)
                except PlanFail:
                    continue
                if budget is not None and used + len(level_layers(P, M, li)) + 3 * left_levels > budget:
                    continue
                return P, ds
        return None

    def dfs(li, start, plans):
        if li == len(rs):
            return plans
        used = sum(len(level_layers(P_, M, i)) for i, (P_, _) in enumerate(plans))
        for b in range(branch):
            counter[0] += 1
            if counter[0] > node_budget:
                return None
            got = plan_one(li, start, used)
            if got is None:
                if li + 1 > deepest[0]:
                    deepest[:] = [li + 1, f"level {li + 1}: no plan"]
                return None
            res = dfs(li + 1, next_start(got[0]), plans + [got])
            if res is not None:
                return res
        return None

    plans = dfs(0, dict(start), [])
    if plans is None:
        raise PlanFail(deepest[1] or "node budget")
    return emit(circuit, M, plans), plans


def default_schedule(s, M, rng):
    r = rng.random()
    if r < 0.35:
        # both signs of each power of two, shuffled
        b = max(1, (M - 1).bit_length())
        pool = [sg * (1 << k) for k in range(b) for sg in (1, -1)]
        rng.shuffle(pool)
        while len(pool) < s:
            pool += pool
        return pool[:s]
    if r < 0.65:
        return [rng.choice([d for d in range(-(M - 1), M) if d]) for _ in range(s)]
    b = max(1, (M - 1).bit_length())
    pows = [1 << k for k in range(b)]
    seq = []
    while len(seq) < s:
        p = pows[:]
        rng.shuffle(p)
        seq += p
    seq = seq[:s]
    return [d if rng.random() < 0.5 else -d for d in seq]


# ----------------------------------------------------------------------------- emission

def _small_int(v):
    """v as a Python int when it is an integer (or integral Fraction) of at most 62 bits, else None."""
    if isinstance(v, Fraction):
        if v.denominator != 1:
            return None
        v = v.numerator
    return int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and abs(int(v)) < 1 << 62 \
        else None


def _layer(M, taps, b1, b2, W=0, label="", compact=False):
    """One channel-0 layer on 2M rows; ``compact``: int64 arrays when every value is a small integer."""
    Np = 2 * M
    values = [taps, b1, b2]
    dtype = object
    if compact:
        ints = [{r: _small_int(v) for r, v in d.items()} for d in values]
        if all(v is not None for d in ints for v in d.values()):
            values, dtype, W = ints, np.int64, int(W)
    arrays = [np.zeros((max(taps) + 1, 1), dtype=dtype), np.zeros((Np, 1), dtype=dtype),
              np.zeros((Np, 1), dtype=dtype)]   # object zeros are Python ints
    for arr, d in zip(arrays, values):
        for r, v in d.items():
            arr[r, 0] = v
    h, B1, B2 = arrays
    return Layer(W=np.array([[W]], dtype=dtype), h=h, b1=B1, b2=B2, conv="circular", label=label)


def emit(circuit, M, plans):
    layers = []
    for li, (P, ds) in enumerate(plans):
        layers += level_layers(P, M, li)
    N = circuit.n_inputs
    return Stack(N=N, d=1, layers=tuple(layers), N_int=2 * M, d_int=1, name="cells")


def level_layers(P, M, li):
    if getattr(P, "_layers", None) is not None:
        return P._layers
    layers = _emit_level(P, M, li)
    layers = merge_level(layers, sorted(P.occ[0]), 2 * M)
    P._layers = layers
    return layers


def _emit_level(P, M, li, compact=False):
    """The layers of one planned level: two per shift step (A, B), then the gate round (``compact``: see
    :func:`_layer`)."""
    layers = []
    Np = 2 * M
    s = P.s
    merge_at = {(m[0], m[1]): m for m in P.merges}
    for k in range(1, s + 1):
        D = P.sched[k - 1]
        # layer A
        b1 = {}
        for c, n in P.occ[k].items():
            if (k, c) in merge_at:
                mk, mc, g, mv, st, cmv, cst, c0 = merge_at[(k, c)]
                b1[c] = 1                       # stayer st stays
                b1[(c - D) + M] = cmv / cst     # mover mv, scaled
                continue
            if n.pred == c:
                b1[c] = 1
            else:
                b1[n.pred + M] = 1
        layers.append(_layer(M, {0: 1, M: 1}, b1, {}, label=f"l{li+1} step{k} A", compact=compact))
        eps = (D + M) % Np
        b1, b2 = {}, {}
        for c, n in P.occ[k].items():
            if (k, c) in merge_at:
                mk, mc, g, mv, st, cmv, cst, c0 = merge_at[(k, c)]
                b1[c] = cst
                b2[c] = c0 / cst
            else:
                b1[c] = 1
        layers.append(_layer(M, {0: 1, eps: 1}, b1, b2, label=f"l{li+1} step{k} B", compact=compact))
    has_mul = any(info[0] == "x" for info in P.finals.values())
    T = M + P.a // 2
    if has_mul:
        b1 = {}
        for c, info in P.finals.items():
            if info[0] == "y":
                b1[(c + T) % Np] = 1
            else:
                b1[c] = 1
        layers.append(_layer(M, {0: 1, T: 1}, b1, {}, label=f"l{li+1} half", compact=compact))
    b1, b2 = {}, {}
    for c, info in P.finals.items():
        if info[0] in ("x", "y"):
            continue
        if info[0] == "lin":
            b2[c] = 1
        else:
            _, key, wire, coeff, c0 = info
            b2[c] = coeff
            b1[c] = c0 / coeff
    layers.append(_layer(M, {T: 1}, b1, b2, W=1, label=f"l{li+1} mul", compact=compact))
    return layers


FAST_CELLS = 512    # M from which planner="auto" tries the deterministic planner (cells_fast) first
PLANNERS = ("auto", "search", "fast")
MAX_CELLS = 1 << 16  # M: each layer holds 2M rows (the N = 16384 hook circuit: M = 53364, 90 layers, about 9 s)


@dataclass(frozen=True)
class CellCompiled:
    """A circuit compiled on the cell layout: the stack, the cells M (N' = 2M), the layer budget the
    planner worked under, and the shift steps it used at each level."""

    stack: Stack
    M: int
    budget: int
    steps: tuple


def _embed(layer: Layer, d: int) -> Layer:
    """A one-channel layer acting on channel 0 of a d-channel state (the other channels stay 0)."""
    Np = layer.b1.shape[0]
    W = np.zeros((d, d), dtype=object)
    W[...] = 0
    W[0, 0] = layer.W[0, 0]
    h = np.zeros((layer.h.shape[0], d), dtype=object)
    h[...] = 0
    h[:, 0] = layer.h[:, 0]
    b1 = np.zeros((Np, d), dtype=object)
    b1[...] = 0
    b1[:, 0] = layer.b1[:, 0]
    b2 = np.zeros((layer.b2.shape[0], d), dtype=object)
    b2[...] = 0
    b2[:, 0] = layer.b2[:, 0]
    return Layer(W=W, h=h, b1=b1, b2=b2, conv=layer.conv, label=layer.label)


def _channel_layers(n: int, d: int, Np: int) -> tuple:
    """(spread, gather) for d > 1, two layers each: u[i, c] to row c·n + i of channel 0 (channel c shifted
    down by c·n, then the channels summed), and back (channel 0 copied to channel c on rows c·n .. c·n + n − 1,
    then channel c shifted up by c·n onto rows 0 .. n − 1)."""
    eye = np.zeros((d, d), dtype=np.int64)
    to0 = np.zeros((d, d), dtype=np.int64)
    to0[:, 0] = 1
    from0 = np.zeros((d, d), dtype=np.int64)
    from0[0, :] = 1
    down = np.zeros((Np, d), dtype=np.int64)
    up = np.zeros((Np, d), dtype=np.int64)
    blocks = np.zeros((Np, d), dtype=np.int64)
    top = np.zeros((Np, d), dtype=np.int64)
    top[:n] = 1
    for c in range(d):
        down[c * n, c] = 1
        up[(Np - c * n) % Np, c] = 1
        blocks[c * n:(c + 1) * n, c] = 1
    one, zero = np.ones((1, 1), dtype=np.int64), np.zeros((1, 1), dtype=np.int64)
    spread = (Layer(W=eye, h=down, b1=one, b2=zero, conv="circular", label="channel c down by c·n"),
              Layer(W=to0, h=np.zeros((1, d), dtype=np.int64), b1=zero, b2=one, label="channels → channel 0"))
    gather = (Layer(W=from0, h=np.zeros((1, d), dtype=np.int64), b1=zero, b2=blocks,
                    label="channel 0 → channel c on rows c·n .. c·n + n"),
              Layer(W=eye * 0, h=up, b1=top, b2=zero, conv="circular", label="channel c up by c·n"))
    return spread, gather


def compile_cells(circuit: Circuit, M: int | None = None, budget: int | None = None, seed: int = 0,
                  tries: int = 150, restarts: int = 6, branch: int = 4, nodes: int = 300,
                  d: int = 1, seconds: float | None = 120.0, planner: str = "auto") -> CellCompiled:
    """Compile a circuit on the cell layout, N' = 2M rows (default M = max(2w, n·d, 4), w the cut
    width of its fan-in-2 form, so N' = 4w unless w < 2 or the inputs need more cells) within
    ``budget`` layers (default 4Δ⌈log₂ w⌉, w read as at least 2).  The inputs are the row-major form
    of u ∈ R^{n×d}; for d > 1 two layers first put u[i, c] on cell c·n + i of channel 0 and two
    layers at the end bring output k back to (k div d, k mod d), d' = d (the planner gets the rest
    of the budget).

    ``seed``, ``tries``, ``restarts``, ``branch`` and ``nodes`` steer the search, and ``seconds`` stops the
    planning, both planners together (default 120 s; the bench's circuits take at most about 35 s, None for
    no limit).  A stack it returns depends only on the circuit and these values, not on the time taken: a
    planner that reaches the limit raises, with no fallback.  Raises a HypothesisError when no plan is found.

    ``planner``: "search" (the seeded search above), "fast" (the deterministic planner of
    :mod:`.cells_fast`: fixed power-of-two schedules, no W = 0 merging; it ignores the search's
    parameters and fails on most small dense circuits) or "auto" (default): the fast planner first
    when M ≥ FAST_CELLS (512), the search when M is smaller or the fast planner finds no plan.
    """
    if not isinstance(circuit, Circuit):
        raise HypothesisError(f"circuit: expected a Circuit, got {type(circuit).__name__}")
    if planner not in PLANNERS:
        raise HypothesisError(f"planner: must be one of {', '.join(PLANNERS)}, got {planner!r}")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float, np.integer,
                                                                                      np.floating))
                                or not 0 < seconds < math.inf):
        raise HypothesisError(f"seconds: must be a positive number or None, got {seconds!r}")
    for pname, v in (("seed", seed), ("tries", tries), ("restarts", restarts), ("branch", branch), ("nodes", nodes)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < (0 if pname == "seed" else 1):
            raise HypothesisError(f"{pname}: must be a {'non-negative' if pname == 'seed' else 'positive'} integer, "
                                  f"got {v!r}")
    c = binarize(circuit)
    for k, g in enumerate(c.gates):
        if g.op == "const":
            raise HypothesisError(f"circuit: gate {c.n_inputs + k} is a constant; layout 'cells' supports linear and "
                                  "mul gates only (use layout='lean')")
    demands_of(c, range(c.n_inputs, c.n_inputs + len(c.gates)), ())  # every coefficient read now, before a search
    sizes = paper_sizes(circuit)
    if sizes["depth"] == 0:
        raise HypothesisError("circuit: has no linear or mul gate (depth 0); the cell layout compiles levels of gates")
    if not isinstance(d, int) or isinstance(d, bool) or d < 1 or c.n_inputs % d:
        raise HypothesisError(f"d: must be a positive integer dividing the {c.n_inputs} inputs, got {d!r}")
    w, depth, nd = sizes["cut_width"], sizes["depth"], c.n_inputs
    n = nd // d
    if len(c.outputs) > nd:
        raise HypothesisError(f"circuit: {len(c.outputs)} outputs do not fit the n×d = {nd} output")
    per = 4 * max(1, math.ceil(math.log2(max(w, 2))))
    if budget is None:
        budget = theorem_bounds(circuit)[0]  # depth · per
    if M is None:  # at least 4 cells: a product needs its operands two cells apart
        M = max(2 * w, nd, 4)
    extra = 4 if d > 1 else 0  # the spread and gather layers
    for pname, v, lo in (("M", M, max(nd, 2)), ("budget", budget, 1 + extra)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < lo:
            raise HypothesisError(f"{pname}: must be an integer >= {lo} (the circuit has {nd} inputs and "
                                  f"{len(c.outputs)} outputs, d = {d}), got {v!r}")
    if M > MAX_CELLS:
        raise HypothesisError(f"M: {M} cells is past the planner's reach (at most {MAX_CELLS}; every layer holds "
                              "2M rows, and the search walks every cell at every step)")
    M, budget = int(M), int(budget)
    smax = max(1, (per - 2) // 2)
    start = {(k % d) * n + k // d: k for k in range(nd)}  # input k = u[k div d, k mod d] (cell k when d = 1)
    out_cells = [(i % d) * n + i // d for i in range(len(c.outputs))]
    fast = planner == "fast" or (planner == "auto" and M >= FAST_CELLS)
    t0 = time.perf_counter()
    deadline = None if seconds is None else t0 + float(seconds)
    try:
        plans = None
        if fast:
            from .cells_fast import plan_cells_fast
            try:
                plans = plan_cells_fast(c, M, budget - extra, start, out_cells, deadline=deadline)
            except PlanStopped:
                raise
            except PlanFail:
                if planner == "fast":
                    raise
        if plans is not None:
            stack = emit(c, M, plans)
        else:
            left = None if deadline is None else deadline - time.perf_counter()
            if left is not None and left <= 0:
                raise PlanStopped(f"stopped after its {seconds:g} s")
            stack, plans = _plan_cells(c, M, smax, tries=tries, seed=seed, restarts=restarts,
                                       budget=budget - extra, branch=branch, node_budget=nodes, start=start,
                                       out_cells=out_cells, seconds=left)
    except PlanStopped as e:
        raise HypothesisError(
            f"seconds: the cell planner stopped at its {seconds:g} s limit without a plan within {budget} layers on "
            f"N' = {2 * M} rows ({e}); this proves nothing about the circuit: raise seconds= (None: no limit), or "
            "use layout='lean'") from None
    except PlanFail as e:
        how = ("the deterministic planner (planner='fast': no seed, no restarts) found no plan; try planner='search' "
               "or layout='lean'" if planner == "fast" else
               "this is a search, not a proof that none exists: try another seed, more restarts, or layout='lean'")
        raise NoPlan(
            f"circuit: the cell planner found no plan within {budget} layers on N' = {2 * M} rows ({e}); {how}") from None
    name = f"H.21 cells({circuit.name or 'circuit'})"
    layers = tuple(stack.layers)
    if d > 1:
        spread, gather = _channel_layers(n, d, 2 * M)
        layers = spread + tuple(_embed(layer, d) for layer in layers) + gather
    stack = Stack(n, d, layers, 2 * M, d, name=name)
    return CellCompiled(stack, M, budget, tuple(P.s for P, _ in plans))
