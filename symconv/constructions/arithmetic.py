"""Theorem H.21: an arithmetic circuit compiled to a BaseConv stack.

The circuit is layered as in the proof (:func:`symconv.circuits.layering`):
layers of linear gates and layers of multiplication gates.  The wires alive
between two layers (the proof's z^ℓ) sit in channel 0 of a frame of K rows
(K a power of two) inside an N'×d state, N' = 6K, d' = d.

* A **linear layer** is an affine map of the wire vector.  It is realised by
  wire routing, each stage a masked sum of shifts Σ_t D_t ⊙ shift_{k_t}(y):
  copy each source once per use (monotone moves by powers of two, then
  doubling fills), permute the copies into target order (a Beneš network,
  switches from :func:`symconv.constructions.benes.benes_switches`), scale by
  the coefficients, add up each target's copies (doubling), move the sums to
  their places and add the constants.  Every stage is one layer when its
  terms cannot collide, otherwise two (copies in three regions 2K apart, then
  summed back with circular convolutions).  O(log K) layers per linear layer.
* A **multiplication layer** is one layer.  With v2 (the second operands) in
  rows [0, m), v1 (the first operands) in rows [T, T+m) and the carried wires
  v3 in rows [2T+m, 2T+m+r), T = max(m, r):
  ``(y·I) ⊙ (e_T * y + 1_{v3 rows})`` gives v1 ⊙ v2 in rows [T, T+m) and
  keeps v3, because the shifted copy of y meets zeros on the v3 rows and on
  the v2 rows.  The permutation R^ℓ of the proof is folded into the linear
  layer before.

Why not the proof's ``remember(y : v2, v3, e_0, v1)``: in Prop. H.10 the gate
p is a layer parameter (a bias), so ``p = v1`` would make the model's
parameters depend on its input.  The product of two wires has to come from
the data branch u·W of the gate, which is what the layer above does.

d > 1: the input u (N×d) is first spread to channel 0 in row-major order
(x[i·d + j] = u[i, j]), and the outputs are gathered back at the end.

``layout="tight"`` keeps the construction and trims its sizes: multiplication
layers packed v2 | v3 | v1 (2m + r rows, T = m + r, causal; each product's
operand that sits higher goes to v2), a frame of exactly the rows used, a
state of t·(K + S) rows (t = the most terms of a stage that needs a spread,
S = the largest shift) instead of 6K, linear layers that send each term
straight to its row (coefficients in the last Beneš stage, sums by shifts of
M) where that costs fewer layers, and for d > 1 the input in channel blocks
(u[i, c] at row c·n + i: two layers in, two out, instead of O(log n) moves;
a first multiplication level of same-row pairs is one channel-mix layer).
``layout="gapped"`` also leaves rows for the next route's copies and terms.
``layout="lean"`` is ``"tight"`` with fewer layers on the same rows: runs of
consecutive routing stages are merged into one stage (their composition, a
masked sum of shifts) wherever that saves layers, the grouping chosen by
dynamic programming, as long as a merged stage that needs a spread has at most
3 shifts (one that is a single layer, up to 6) and no shift above tight's largest (so N' = t·(K + S) is tight's); the coefficient
layers fold into the stage before, and constants go into the b2 of the layer
before.  ``shifts=k > 3`` allows k shifts per merged stage that needs a spread (and any shift):
fewer layers again, on N' = t·(K + S) ≤ k·(K + S) rows (t the most terms of
a merged stage that needs a spread).

``linear="H.20"`` takes the paper's route for the linear layers instead: the
wire vector fills the state row-major and each linear layer is the matrix
R^ℓ·M'' compiled by Corollary H.20
(:func:`symconv.constructions.linear_circuits.compile_matrix`).  It is exact
too, but that compiler works on three blocks of 2^⌈log d⌉ channels, so the
stack has d' = 3·2^⌈log d⌉ rather than d, and it takes dense matrices (small
widths only).

>>> import sympy
>>> from symconv.circuits import from_polynomials
>>> from symconv.blocks import sym
>>> from symconv.symbolic import evaluate
>>> c = from_polynomials([sympy.Symbol("a") * sympy.Symbol("b")], sympy.symbols("a b"))
>>> out = evaluate(compile_arithmetic(c, 2, 1).stack, sym("u", 2, 1))
>>> out.entries[:, 0].tolist()
[u[0,0]*u[1,0], 0]
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import sympy

from ..circuits import Affine, Circuit, layering
from ..model import HypothesisError, Layer, Stack
from .benes import benes_switches


LAYOUTS = ("proof", "tight", "gapped", "lean", "cells", "best")
BEST_SEEDS = 4  # layout="best": cell-layout searches tried (seeds seed, seed + 1, ...) when lean misses a bound
BEST_SECONDS = 120.0  # layout="best": the most time its cell-layout searches take together
MERGE_RUN = 12  # lean layout: the longest run of stages tried as one merged stage


def _pow2(v: int) -> int:
    return 1 << max(0, int(v - 1).bit_length())


def _zero(c: Any) -> bool:
    return bool(c == 0)


def _nz(D: np.ndarray) -> np.ndarray:
    """Boolean mask of the non-zero entries (exact for object arrays)."""
    if D.dtype == object:
        return np.vectorize(lambda v: not _zero(v), otypes=[bool])(D) if D.size else np.zeros(D.shape, bool)
    return D != 0


class Router:
    """Builds layers on a frame of K rows × d channels inside an N' = 6K state.

    Keeps ``occ``: which frame entries may be non-zero (everything outside the
    frame is zero between stages).  Not part of the public API.
    """

    def __init__(self, K: int, d: int, N_int: int | None = None, offset: int | None = None) -> None:
        self.K, self.d, self.N_int = K, d, 6 * K if N_int is None else N_int
        self.offset = 2 * K if offset is None else offset  # rows between the regions of a spread stage
        self.unit = 1
        self.channels_out = False  # set by _compile: the outputs already sit in u's layout
        self.in_place = False      # set by _compile: some multiplication level was done in place
        self.direct = False        # gapped layout: Beneš straight onto disjoint target runs
        self.spreads = 0      # stages that needed a spread (two layers, one region per term)
        self.max_terms = 1    # the most terms of a spread stage
        self.max_shift = 0    # the largest |shift| of any stage
        self.lean = False     # lean layout: consecutive stages merged (see flush)
        self.merge = 0        # lean layout: the most shifts of a merged stage that needs a spread (0: none)
        self.merge_shift = K  # lean layout: ... and shifts below this (keeps O = K + S, hence N', as without merging)
        self._pending: list = []  # lean: stages (terms, label, occupancy before) not yet emitted
        self._fold_at: tuple | None = None  # lean: (layer index, kind, rows a source can reach)
        self.layers: list[Layer] = []
        self.occ = np.zeros((K, d), dtype=bool)
        self.switch_cache: dict = {}  # Beneš settings by permutation; compile_arithmetic shares one across passes

    def switches(self, perm: np.ndarray) -> list:
        """:func:`benes_switches` of ``perm``, remembered in ``switch_cache`` (one compile routes the same
        permutations in several passes)."""
        key = perm.tobytes()
        if key not in self.switch_cache:
            self.switch_cache[key] = benes_switches(perm)
        return self.switch_cache[key]

    def emit(self, layer: Layer) -> None:
        """Append a layer built outside the stage machinery (the pending stage goes first)."""
        self.flush()
        self.layers.append(layer)

    def flush(self) -> None:
        """Emit the pending stages, consecutive ones merged where that saves layers (fewest layers overall).

        A group of consecutive stages becomes one stage (their composition) when it has at most
        ``merge`` shifts, none above ``merge_shift``; it costs one layer when its terms cannot
        collide, else two.  The grouping is chosen by dynamic programming over the pending run.
        """
        run, self._pending = self._pending, []
        if not run:
            return
        n = len(run)
        best = [0] + [None] * n          # best[j]: fewest layers for the first j stages
        choice: list = [None] * (n + 1)  # choice[j] = (i, terms, label): the last group is run[i:j]
        for i in range(n):
            if best[i] is None:
                continue
            terms, label, occ0 = run[i]
            comp = terms
            for j in range(i + 1, min(n, i + MERGE_RUN) + 1):
                if j > i + 1:
                    comp = _compose(comp, run[j - 1][0], occ0, self.K)
                    label = label + " + " + run[j - 1][1].rsplit(": ", 1)[-1]
                    if not comp or len(comp) > 2 * max(3, self.merge):
                        break
                c = self._cost(comp, occ0)
                if j > i + 1 and (any(abs(k) > self.merge_shift for k, _ in comp)
                                  or (c == 2 and len(comp) > self.merge)):
                    continue  # a merged group keeps the shifts and the spread regions of the stages apart
                cost = best[i] + c
                if best[j] is None or cost < best[j]:
                    best[j], choice[j] = cost, (i, comp, label)
        groups = []
        j = n
        while j > 0:
            i, comp, label = choice[j]
            groups.append((comp, label, run[i][2]))
            j = i
        for comp, label, occ0 in reversed(groups):
            self.occ = occ0
            self._emit_stage(comp, label)

    # -- raw layers
    def _col(self, D: np.ndarray, rows: int, offset: int = 0) -> np.ndarray:
        out = np.zeros((rows, self.d), dtype=D.dtype)
        out[offset:offset + self.K] = D
        return out

    def _filter(self, taps: dict) -> np.ndarray:
        h = np.zeros((max(taps) + 1, self.d), dtype=np.int8)
        for k, v in taps.items():
            h[k] = v
        return h

    def _W0(self) -> np.ndarray:
        return np.zeros((self.d, self.d), dtype=np.int8)

    @staticmethod
    def _compact(D: np.ndarray) -> np.ndarray:
        """Smallest dtype that holds the mask exactly (int8 for 0/±1, else object)."""
        if D.dtype != object:
            if D.dtype.kind in "iub" and D.size and D.min() >= -128 and D.max() <= 127:
                return D.astype(np.int8)
            return D
        try:
            vals = set(D.ravel().tolist())
        except TypeError:
            return D
        if vals <= {0, 1, -1}:
            return D.astype(np.int8)
        if all(isinstance(v, (int, np.integer)) and -(1 << 63) <= v < 1 << 63 for v in vals):
            return D.astype(np.int64)
        return D

    def stage(self, terms: Sequence[tuple[int, np.ndarray]], label: str) -> None:
        """y ← Σ_t D_t ⊙ shift_{k_t}(y) on the frame (k > 0: down, k < 0: up), |k| < K.

        In the lean layout the stage is held back until :meth:`flush`, which
        merges runs of held stages where that saves layers.
        """
        K = self.K
        terms = [(int(k), D) for k, D in terms if _nz(D).any()]
        for k, _ in terms:
            if not -K < k < K:
                raise HypothesisError(f"stage: shift {k} exceeds the frame K = {K}")
        if not self.lean:
            self._emit_stage(terms, label)
            return
        terms = [(k, self._compact(D)) for k, D in terms]  # integer masks as integer arrays (fast merging)
        if not terms:
            self.clear(label)
            return
        self._pending.append((terms, label, self.occ.copy()))
        self.occ = self._plan(terms, self.occ)[1]

    def _plan(self, terms: Sequence[tuple[int, np.ndarray]], occ: np.ndarray) -> tuple:
        """(b1 of the one layer, or None when the stage needs a spread; occupancy after; each term's occupied
        sources) of a stage applied to a state with occupancy ``occ``.

        One layer suffices if, at every destination, all terms with an occupied source share one
        weight and no term with weight 0 there has an occupied source.
        """
        K = self.K
        new_occ = np.zeros_like(occ)
        src_occ = []
        for k, D in terms:
            s = np.zeros_like(occ)
            if k >= 0:
                s[k:] = occ[:K - k]
            else:
                s[:K + k] = occ[-k:]
            src_occ.append(s)
            new_occ |= s & _nz(D)
        obj = any(D.dtype == object for _, D in terms)
        b1 = np.zeros((K, self.d), dtype=object if obj else np.int64)
        assigned = np.zeros((K, self.d), dtype=bool)
        for (k, D), s in zip(terms, src_occ):
            live = s & _nz(D)
            if (assigned & live & (b1 != D)).any():
                return None, new_occ, src_occ
            b1[live] = D[live]
            assigned |= live
        for (k, D), s in zip(terms, src_occ):
            if (s & ~_nz(D) & assigned).any():
                return None, new_occ, src_occ
        return b1, new_occ, src_occ

    def _cost(self, terms: Sequence[tuple[int, np.ndarray]], occ: np.ndarray) -> int:
        return 1 if self._plan(terms, occ)[0] is not None else 2

    def _emit_stage(self, terms: Sequence[tuple[int, np.ndarray]], label: str) -> None:
        K, N_int = self.K, self.N_int
        if not terms:
            self.clear(label)
            return
        b1, new_occ, src_occ = self._plan(terms, self.occ)
        ok = b1 is not None
        self.max_shift = max([self.max_shift] + [abs(k) for k, _ in terms])
        O = self.offset
        if not ok and (len(terms) * O > N_int or O < K + self.max_shift):
            raise HypothesisError(f"{label}: a spread over {len(terms)} regions {O} rows apart does not fit "
                                  f"N' = {N_int} (frame K = {K}, shift {self.max_shift})")
        if ok:
            taps = {k % N_int: 1 for k, _ in terms}
            self.layers.append(Layer(W=self._W0(), h=self._filter(taps), b1=self._compact(self._col(b1, N_int)),
                                     b2=np.zeros((1, 1), dtype=np.int8), conv="circular", label=label))
            reach = np.zeros_like(self.occ)
            for s in src_occ:
                reach |= s
            self._fold_at = (len(self.layers) - 1, "one", reach)
        else:
            self.spreads += 1
            self.max_terms = max(self.max_terms, len(terms))
            obj = any(D.dtype == object for _, D in terms)  # integer masks stay integer (fast _compact)
            b1 = np.zeros((N_int, self.d), dtype=object if obj else np.int64)
            b1[...] = 0
            taps = {}
            for t, (k, D) in enumerate(terms):
                b1[O * t:O * t + K] = D
                taps[(O * t + k) % N_int] = 1
            self.layers.append(Layer(W=self._W0(), h=self._filter(taps), b1=self._compact(b1),
                                     b2=np.zeros((1, 1), dtype=np.int8), conv="circular",
                                     label=label + " (spread)"))
            back = {(-O * t) % N_int: 1 for t in range(len(terms))}
            mask = np.zeros((N_int, 1), dtype=np.int8)
            mask[:K] = 1
            self.layers.append(Layer(W=self._W0(), h=self._filter(back), b1=mask,
                                     b2=np.zeros((1, 1), dtype=np.int8), conv="circular",
                                     label=label + " (sum)"))
            self._fold_at = (len(self.layers) - 1, "sum", None)
        self.occ = new_occ

    def fork(self) -> "Router":
        """A copy whose later stages do not touch this router (layers list and occupancy copied)."""
        r = Router.__new__(Router)
        r.__dict__.update(self.__dict__)
        r.layers, r.occ = list(self.layers), self.occ.copy()
        r._pending = list(self._pending)
        return r

    def adopt(self, other: "Router") -> None:
        """Take over the state of a fork."""
        self.__dict__.update(other.__dict__)

    def hadamard(self, D: np.ndarray, label: str) -> None:
        """y ← D ⊙ y on the frame (zero elsewhere)."""
        self.stage([(0, D)], label)

    def clear(self, label: str) -> None:
        self.flush()
        self.layers.append(Layer(W=self._W0(), h=np.zeros((1, self.d), dtype=np.int8),
                                 b1=np.zeros((1, 1), dtype=np.int8), b2=np.zeros((1, 1), dtype=np.int8),
                                 label=label + " (clear)"))
        self.occ[...] = False

    def keep_only(self, mask: np.ndarray, label: str) -> None:
        """Zero every frame entry outside ``mask`` (one layer, only when something is there)."""
        if (self.occ & ~mask).any():
            self.hadamard(mask.astype(np.int8), label + ": drop unused wires")

    def add_const(self, C: np.ndarray, label: str) -> None:
        """y ← y + C on the frame: (1 on the frame) ⊙ (e_0 * y + C)."""
        nz = _nz(C)
        if not nz.any():
            return
        self.flush()
        if self.lean and self._fold_into_last(C, nz):  # lean: constants go into the b2 of the layer before
            return
        keep = self.occ | nz
        b1 = np.zeros((self.N_int, self.d), dtype=np.int8)
        b1[:self.K] = keep
        b2 = np.zeros((self.N_int, self.d), dtype=object)
        b2[...] = 0
        b2[:self.K] = C
        self.layers.append(Layer(W=self._W0(), h=self._filter({0: 1}), b1=b1, b2=self._compact(b2),
                                 label=label + ": add constants"))
        self.occ = keep

    def _fold_into_last(self, C: np.ndarray, nz: np.ndarray) -> bool:
        """Add C through the b2 of the last layer, a W = 0 stage layer out = b1 ⊙ (h ⊛ y + b2); False if
        some row of C has b1 ≠ 1 there (a row with b1 = 0 that no source reaches takes b1 = 1)."""
        if self._fold_at is None or self._fold_at[0] != len(self.layers) - 1:
            return False
        idx, kind, reach = self._fold_at
        lay = self.layers[idx]
        N_int, d = self.N_int, self.d
        b1 = np.array(np.broadcast_to(np.asarray(lay.b1, dtype=object), (N_int, d)))
        b2 = np.array(np.broadcast_to(np.asarray(lay.b2, dtype=object), (N_int, d)))
        for i, c in zip(*np.nonzero(nz)):
            if b1[i, c] == 1:
                pass
            elif b1[i, c] == 0 and kind == "one" and not reach[i, c]:
                b1[i, c] = 1
            else:
                return False
            b2[i, c] = b2[i, c] + C[i, c]
        self.layers[idx] = Layer(W=lay.W, h=lay.h, b1=self._compact(b1), b2=self._compact(b2), conv=lay.conv,
                                 label=lay.label + " + constants")
        self.occ = self.occ | nz
        self._fold_at = None
        return True

    # -- moves of tracked elements (channel-wise lists of positions)
    def move(self, src: Sequence[Sequence[int]], dst: Sequence[Sequence[int]], label: str) -> None:
        """Move elements src[c][e] → dst[c][e] (each list strictly increasing), dropping the rest.

        Channels are moved one after the other; a stage keeps the other channels in place.
        """
        cur = [list(s) for s in src]
        tracked = np.zeros_like(self.occ)
        for c, s_ in enumerate(src):
            tracked[list(s_), c] = True
        moved_any = False
        for c in range(self.d):
            for shift, before, moved in _move_plan(src[c], dst[c]):
                D_stay = np.zeros((self.K, self.d), dtype=np.int8)
                D_move = np.zeros((self.K, self.d), dtype=np.int8)
                for cc in range(self.d):
                    if cc != c:
                        D_stay[cur[cc], cc] = 1
                pb, mv = np.asarray(before, dtype=np.int64), np.asarray(moved, dtype=bool)
                D_move[pb[mv] + shift, c] = 1
                D_stay[pb[~mv], c] = 1
                self.stage([(0, D_stay), (shift, D_move)], f"{label}: move by {shift}")
                cur[c] = (pb + shift * mv).tolist()
                moved_any = True
        if not moved_any:
            self.keep_only(tracked, label)


def _shift_rows(D: np.ndarray, k: int) -> np.ndarray:
    """shift_k(D): row a holds D[a − k] (zero where a − k leaves the frame)."""
    K = D.shape[0]
    out = np.zeros_like(D)  # object arrays too: filled with int 0
    if k >= 0:
        out[k:] = D[:K - k]
    else:
        out[:K + k] = D[-k:]
    return out


def _compose(t1: Sequence[tuple[int, np.ndarray]], t2: Sequence[tuple[int, np.ndarray]], occ: np.ndarray,
             K: int) -> list:
    """The terms of stage t2 after stage t1 on a state with occupancy ``occ``: Σ_{i,j} (D2_j ⊙ shift_{k2_j}(D1_i
    restricted to occupied sources)) ⊙ shift_{k1_i + k2_j}, one term per total shift.

    >>> one = np.ones((4, 1), dtype=np.int8)
    >>> [(k, D[:, 0].tolist()) for k, D in _compose([(1, one)], [(1, one)], np.ones((4, 1), bool), 4)]
    [(2, [0, 0, 1, 1])]
    """
    exact = any(D.dtype == object for _, D in list(t1) + list(t2))
    if not exact:  # integer masks: int64 unless the products could overflow it
        big = [max((int(np.abs(D).max()) for _, D in t if D.size), default=0) for t in (t1, t2)]
        exact = big[0] * big[1] * max(len(t1), 1) * max(len(t2), 1) >= 1 << 62
    res: dict = {}
    for k1, D1 in t1:
        live = _shift_rows(occ, k1) & _nz(D1)
        if not live.any():
            continue
        A = np.where(live, D1, 0).astype(object if exact else np.int64)
        for k2, D2 in t2:
            M = D2.astype(object if exact else np.int64) * _shift_rows(A, k2)
            if not _nz(M).any():
                continue
            k = k1 + k2
            res[k] = res[k] + M if k in res else M
    return [(k, M) for k, M in sorted(res.items()) if _nz(M).any()]


def _simulate(src: list[int], offsets: list[int], bits: list[int], sign: int) -> list | None:
    """Stages moving each element by sign·(bit of its offset); None if two ever collide."""
    pos = list(src)
    plan = []
    for b in bits:
        step = 1 << b
        moved = [bool(o >> b & 1) for o in offsets]
        if not any(moved):
            continue
        plan.append((sign * step, list(pos), moved))
        pos = [p + sign * step if m else p for p, m in zip(pos, moved)]
        if len(set(pos)) != len(pos) or min(pos, default=0) < 0:
            return None
    return plan


def _move_plan(src: Sequence[int], dst: Sequence[int]) -> list:
    """Stages (shift, positions before, moved flags) taking src to dst, order kept, no collisions."""
    src, dst = list(src), list(dst)
    if len(src) != len(dst):
        raise HypothesisError("move: source and destination lists differ in length")
    if any(b <= a for a, b in zip(src, src[1:])) or any(b <= a for a, b in zip(dst, dst[1:])):
        raise HypothesisError("move: positions must be strictly increasing (an order-keeping move)")
    if not src:
        return []
    off = [t - s for s, t in zip(src, dst)]
    if len(set(off)) == 1:
        return [] if off[0] == 0 else [(off[0], src, [True] * len(src))]
    top = max(max(abs(o) for o in off), 1).bit_length()
    if min(off) >= 0:
        p = _simulate(src, off, list(range(top - 1, -1, -1)), +1)
        if p is not None:
            return p
    if max(off) <= 0:
        p = _simulate(src, [-o for o in off], list(range(top)), -1)
        if p is not None:
            return p
    # general: compact to ranks (up, low bits first), then spread (down, high bits first)
    rank = list(range(len(src)))
    up = [s - r for s, r in zip(src, rank)]
    down = [t - r for t, r in zip(dst, rank)]
    p1 = _simulate(src, up, list(range(max(max(up), 1).bit_length())), -1)
    p2 = _simulate(rank, down, list(range(max(max(down), 1).bit_length() - 1, -1, -1)), +1)
    if p1 is None or p2 is None:  # pragma: no cover - excluded by the monotone argument
        raise RuntimeError("routing collision")
    return p1 + p2


# ---------------------------------------------------------------- linear maps of the wire vector

def route_affine(R: Router, pos: dict, targets: Sequence[tuple[int, Affine]], label: str,
                 tight: bool = False, _tail: bool = False) -> dict:
    """Realise new[t_pos] = form(old wires) for all targets on channel 0; returns {target pos: True}.

    ``pos`` maps wire → row of its value now.  Everything not a target ends zero.
    ``tight=True``: where rows j·M + t (M = last target row + 1, j < the most
    terms of a target) fit the Beneš network the copies need anyway, that
    network sends term j of target t straight to row j·M + t, its last stage
    carries the coefficients, and the terms are summed onto rows t by doubling
    shifts of M (one layer each, no collision): no coefficient layer and no
    placing moves.  Both routes are built and the one with fewer layers kept;
    otherwise the steps are those of the default.
    """
    entries = []  # (source row, target row, coeff)
    consts = np.zeros((R.K, R.d), dtype=object)
    consts[...] = 0
    tpos_seen = set()
    for tp, form in targets:
        if tp in tpos_seen:
            raise HypothesisError(f"{label}: two targets at row {tp}")
        tpos_seen.add(tp)
        for w, c in form.terms:
            if w not in pos:
                raise HypothesisError(f"{label}: wire {w} is not in the state")
            entries.append((pos[w], tp, c))
        if not _zero(form.c0):
            consts[tp, 0] = form.c0
    if not entries:
        R.clear(label)
        R.add_const(consts, label)
        return {}
    if tight:
        M = 1 + max(e[1] for e in entries)
        per_target: dict = {}
        for e in entries:
            per_target[e[1]] = per_target.get(e[1], 0) + 1
        J = max(per_target.values())
        if _pow2(J * M) <= max(2, _pow2(len(entries))):  # rows j·M + t fit the network the copies need
            done = []                              # both routes; keep the one with fewer layers
            for tail in (False, True):
                f = R.fork()
                try:  # a route whose spread does not fit this router's N' is not a candidate
                    route_affine(f, pos, targets, label, _tail=tail)
                    f.flush()
                    done.append((len(f.layers), tail, f))
                except HypothesisError:
                    if tail and not done:
                        raise
            _, _, best = min(done, key=lambda x: (x[0], x[1]))
            R.adopt(best)
            return {t: True for t in sorted({e[1] for e in entries})}
    ch = [[] for _ in range(R.d)]
    # 1. one copy of each used source per use, in source order
    by_src = sorted(entries, key=lambda e: (e[0], e[1]))
    srcs = sorted({e[0] for e in entries})
    start, count = {}, {}
    for r, (q, t, c) in enumerate(by_src):
        start.setdefault(q, r)
        count[q] = count.get(q, 0) + 1
    nE = len(by_src)
    crow = list(range(nE))  # the row of copy r (by_src order): its rank, after the copy moves
    if R.direct and not _tail and all(q + count[q] <= b for q, b in zip(srcs, srcs[1:] + [R.K])) \
            and max(2, _pow2(max(q + count[q] for q in srcs))) <= R.K:
        first = dict(start)          # gapped layout: each source already has a free row per copy after it
        start = {q: q for q in srcs}
        crow = [q + r - first[q] for r, (q, _t, _c) in enumerate(by_src)]
    only = [[] for _ in range(R.d)]
    only[0] = srcs
    dst = [[] for _ in range(R.d)]
    dst[0] = [start[q] for q in srcs]
    R.move(only, dst, f"{label}: copies")
    run_off = np.zeros(R.K, dtype=np.int64)
    cused = np.zeros(R.K, dtype=bool)
    for q in srcs:
        for j in range(count[q]):
            run_off[start[q] + j] = j
            cused[start[q] + j] = True
    b = 0
    while (1 << b) < max(count.values()):
        s = 1 << b
        stay = np.zeros((R.K, R.d), dtype=np.int8)
        mv = np.zeros((R.K, R.d), dtype=np.int8)
        stay[:, 0] = cused & (run_off < s)
        mv[:, 0] = cused & (run_off >= s) & (run_off < 2 * s)
        R.stage([(0, stay), (s, mv)], f"{label}: fill copies ({s})")
        b += 1
    if _tail:
        _tight_tail(R, by_src, nE, label)
        R.add_const(consts, label)
        return {t: True for t in sorted({e[1] for e in entries})}
    # 2. permute copies into target order (Beneš); where the targets' runs [t, t + terms) are
    #    disjoint and fit the frame, straight onto those runs (no placing moves afterwards)
    by_tgt = sorted(range(nE), key=lambda r: (by_src[r][1], by_src[r][0]))
    tg = [by_src[r][1] for r in by_tgt]
    tstart, tlen = {}, {}
    for o, t in enumerate(tg):
        tstart.setdefault(t, o)
        tlen[t] = tlen.get(t, 0) + 1
    row = list(range(nE))  # the row of the o-th copy in target order
    P = max(2, _pow2(max([nE] + [c + 1 for c in crow])))
    runs = sorted(tstart)
    if R.direct and _direct_runs(runs, tlen, P, R.K):
        P = max(2, _pow2(max([P] + [t + tlen[t] for t in runs])))
        row = [t + o - tstart[t] for o, t in enumerate(tg)]
        tstart = {t: t for t in runs}
    perm = np.full(P, -1, dtype=np.int64)  # y[o] = x[perm[o]]
    perm[row] = [crow[r] for r in by_tgt]
    perm[perm < 0] = sorted(set(range(P)) - set(crow))
    if not np.array_equal(perm, np.arange(P)):
        for k, cross in R.switches(perm):
            if cross.any():
                R.stage(_benes_stage(R, k, cross), f"{label}: Beneš stage k={k}")
    # 3. scale by the coefficients
    coeffs = [by_src[r][2] for r in by_tgt]
    if any(not (isinstance(c, (int, Fraction)) and c == 1) for c in coeffs):
        D = np.zeros((R.K, R.d), dtype=object)
        D[...] = 0
        for o, c in enumerate(coeffs):
            D[row[o], 0] = c
        R.hadamard(D, f"{label}: coefficients")
    # 4. add each target's copies (doubling), sums land at the run starts
    toff = np.zeros(R.K, dtype=np.int64)
    tl = np.zeros(R.K, dtype=np.int64)
    used = np.zeros(R.K, dtype=bool)
    for o, t in enumerate(tg):
        toff[row[o]], tl[row[o]], used[row[o]] = row[o] - tstart[t], tlen[t], True
    b = 0
    while (1 << b) < max(tlen.values()):
        s = 1 << b
        stay = np.zeros((R.K, R.d), dtype=np.int8)
        mv = np.zeros((R.K, R.d), dtype=np.int8)
        stay[used, 0] = 1
        mv[:, 0] = used & (toff % (2 * s) == 0) & (toff + s < tl)
        R.stage([(0, stay), (-s, mv)], f"{label}: add copies ({s})")
        b += 1
    # 5. sums to their rows; drop the rest
    tsorted = sorted(tstart)
    src5 = [[] for _ in range(R.d)]
    dst5 = [[] for _ in range(R.d)]
    src5[0] = [tstart[t] for t in tsorted]
    dst5[0] = tsorted
    R.move(src5, dst5, f"{label}: place")
    # 6. constants
    R.add_const(consts, label)
    return {t: True for t in tsorted}


def _direct_runs(runs: Sequence[int], tlen: dict, nE: int, K: int) -> bool:
    """Whether each target t's terms can sit on rows t .. t + terms − 1: runs disjoint, the network in the frame."""
    if any(a + tlen[a] > b for a, b in zip(runs, runs[1:])):
        return False
    return max(2, _pow2(max([nE] + [t + tlen[t] for t in runs]))) <= K


def _tight_tail(R: Router, by_src: list, nE: int, label: str) -> None:
    """Beneš from copy order to rows j·M + t (coefficients in its last stage), then sums onto rows t."""
    M = 1 + max(t for _, t, _ in by_src)
    term: dict = {}
    out_pos = []
    for r in sorted(range(nE), key=lambda r: (by_src[r][1], by_src[r][0])):
        t = by_src[r][1]
        j = term.get(t, 0)
        term[t] = j + 1
        out_pos.append((j * M + t, r))
    J = max(term.values())
    P = max(2, _pow2(max(nE, J * M)))
    if P > R.K:
        raise HypothesisError(f"{label}: the Beneš network needs {P} rows, the frame has {R.K}")
    coeff = np.zeros(R.K, dtype=object)
    coeff[...] = 0
    perm = np.full(P, -1, dtype=np.int64)
    for o, r in out_pos:
        perm[o] = r
        coeff[o] = by_src[r][2]
    perm[perm < 0] = np.arange(nE, P)  # the empty rows fill the unused outputs
    ones = all(isinstance(c, (int, Fraction)) and c == 1 for _, r in out_pos for c in [by_src[r][2]])
    stages = []
    if not np.array_equal(perm, np.arange(P)):
        for k, cross in R.switches(perm):
            if cross.any():
                stages.append((k, _benes_stage(R, k, cross)))
    if stages and not ones:  # the last stage puts every copy in its row: scale it there
        k, terms = stages[-1]
        scaled = []
        for sh, D in terms:
            E = D.astype(object)
            E[:, 0] = E[:, 0] * coeff
            scaled.append((sh, Router._compact(E)))
        stages[-1] = (k, scaled)
    for k, terms in stages:
        R.stage(terms, f"{label}: Beneš stage k={k}")
    if not stages and not ones:
        D = np.zeros((R.K, R.d), dtype=object)
        D[...] = 0
        D[:, 0] = coeff
        R.hadamard(D, f"{label}: coefficients")
    b = 0
    while (1 << b) < J:
        s_ = 1 << b
        stay = np.zeros((R.K, R.d), dtype=np.int8)
        mv = np.zeros((R.K, R.d), dtype=np.int8)
        for t, n_t in term.items():
            for j in range(0, n_t, 2 * s_):
                stay[j * M + t, 0] = 1
                if j + s_ < n_t:
                    mv[j * M + t, 0] = 1
        R.stage([(0, stay), (-s_ * M, mv)], f"{label}: add terms ({s_})")
        b += 1


# ---------------------------------------------------------------- the compiler

@dataclass(frozen=True, eq=False)
class CompiledCircuit:
    """A compiled circuit: the stack and what the compiler measured on the way."""

    circuit: Circuit
    stack: Stack
    n: int
    d: int
    K: int
    L_C: int
    layer_kinds: tuple
    counts: dict = field(default_factory=dict)

    def report(self) -> dict:
        """Sizes of the circuit and the stack's (N, L, d, N', d') against Theorem H.21."""
        s = self.circuit.sizes()
        w, D = s["width"], s["depth"]
        sig = self.stack.signature
        return {"n·d": s["n"], "s": s["s"], "Δ": D, "w": w, "L_C": self.L_C,
                "N": sig.N, "L": sig.L, "d": sig.d, "N'": sig.N_int, "d'": sig.d_int,
                "L/(Δ·log2 w)": round(sig.L / max(1, D * max(1.0, math.log2(max(w, 2)))), 2),
                "N'/w": round(sig.N_int / max(w, 1), 2)}


def _cells(circuit: Circuit, n: int, d: int, seed: int, lay: Any, seconds: float = 120.0) -> CompiledCircuit:
    """layout="cells" (:func:`~symconv.constructions.cells.compile_cells`, its search stopped after ``seconds``)."""
    from .cells import compile_cells

    cc = compile_cells(circuit, seed=seed, d=d, seconds=seconds)
    return CompiledCircuit(circuit, cc.stack, n, d, cc.M, lay.L_C, tuple(l.kind for l in lay.layers),
                           {"linear": "routing", "layout": "cells", "budget": cc.budget, "steps": cc.steps})


def _best(circuit: Circuit, n: int, d: int, merge_linear: bool, seed: int) -> CompiledCircuit:
    """layout="best": lean if it meets both bounds, else the first cell-layout stack that does (see
    :func:`compile_arithmetic`)."""
    import dataclasses

    from ..circuits import theorem_bounds
    from .cells import NoPlan

    L_bound, N_bound = theorem_bounds(circuit)

    def worst(cc: CompiledCircuit) -> float:
        """The larger of built/bound for L and N' (a circuit of depth 0 has bound 0: any layer misses it)."""
        sig = cc.stack.signature
        return max(v / b if b else (math.inf if v else 0.0) for v, b in ((sig.L, L_bound), (sig.N_int, N_bound)))

    built = [("lean", None, compile_arithmetic(circuit, n, d, merge_linear, layout="lean"))]
    tried = ["lean"]
    if merge_linear:  # the cell layout takes the gates as they are
        tried.append("cells: not tried (merge_linear=True)")
    elif worst(built[0][2]) > 1:
        lay = layering(circuit, False)
        deadline = time.perf_counter() + BEST_SECONDS
        for s in range(seed, seed + BEST_SEEDS):
            left = deadline - time.perf_counter()
            if left <= 0:
                tried.append(f"cells: stopped, the {BEST_SECONDS:g} s of the search used up")
                break
            try:
                cc = _cells(circuit, n, d, s, lay, seconds=left)
            except NoPlan as e:  # the search found nothing: another seed may
                tried.append(f"cells (seed {s}): {e}")
                continue
            except HypothesisError as e:  # refused (a constant gate, too few layers, its time limit): no seed helps
                tried.append(f"cells: {e}")
                break
            tried.append(f"cells (seed {s})")
            built.append(("cells", s, cc))
            if worst(cc) <= 1:
                break
    chosen, s, cc = min(built, key=lambda b: worst(b[2]))  # min keeps the first on ties: lean before cells
    counts = {**cc.counts, "layout": "best", "chosen": chosen, "tried": tuple(tried),
              "bounds": (L_bound, N_bound)}
    if s is not None:
        counts["seed"] = s
    return dataclasses.replace(cc, counts=counts)


def frame_size(circuit: Circuit, n: int, d: int, merge_linear: bool = False) -> int:
    """The frame K (a power of two) the compiled circuit needs (routing backend).

    >>> from symconv.circuits import product_circuit
    >>> frame_size(product_circuit(4), 4, 1)
    8
    """
    from ..model import check_size

    if not isinstance(circuit, Circuit):
        raise HypothesisError(f"circuit: expected a Circuit, got {type(circuit).__name__}")
    n, d = check_size(n, "n"), check_size(d, "d")
    return _pow2(max(_compile(circuit, n, d, merge_linear, _Planner(1))))


def compile_arithmetic(circuit: Circuit, n: int, d: int = 1, merge_linear: bool = False,
                       linear: str = "routing", layout: str = "proof", shifts: int | None = None,
                       seed: int = 0) -> CompiledCircuit:
    """Theorem H.21: a BaseConv stack computing the circuit.

    The circuit's inputs are the row-major form of u ∈ R^{n×d} (n·d inputs);
    its outputs come out row-major in the n×d output (at most n·d of them,
    the rest zero).  Exact for numeric and sympy coefficients.

    ``linear="routing"`` (default): linear layers by symconv's wire routing;
    the stack is (n, L, d, 6K, d).  ``linear="H.20"``: every linear layer is a
    matrix compiled by Corollary H.20 (:func:`~symconv.constructions.linear_circuits.compile_matrix`),
    as the paper's proof does; the wires then fill the state row-major and the
    stack is (n, L, d, N', 3·2^⌈log d⌉) — compile_matrix works on three blocks
    of channels, so d' = d does not hold on that route.

    ``layout="tight"`` (routing only) packs each multiplication layer as
    v2 | v3 | v1 (2m + r rows, shift T = m + r, causal), sizes the frame K to
    the rows really used (not a power of two), and, when no routing stage
    needs a spread, runs on N' = K + S rows (S the largest shift), else on
    N' = t·(K + S) with t the most terms of a spread stage (2 for moves,
    3 for Beneš stages) instead of 6K.  The layers are the same otherwise,
    except that for d > 1 a first multiplication level whose pairs each sit in
    one row of u is one layer (u·W) ⊙ (e_0 * u), W taking each pair's partner
    channel onto its host channel (x·y with d = 2: one layer).

    ``layout="lean"`` is ``"tight"`` with consecutive routing stages merged
    (:meth:`Router.flush`): a run of stages becomes one stage, its
    composition, when it costs fewer layers and, if it needs a spread, has at most
    ``shifts`` shifts (default 3, the regions a Beneš stage needs anyway); with the
    default no merged shift exceeds tight's largest, so N' is tight's.
    Constants are added through the b2 of the layer before.  ``shifts=k > 3``
    lifts the shift cap and widens the state to N' = t·(K + S) ≤ k·(K + S)
    (t the most terms of a merged stage that needs a spread).

    >>> from symconv.circuits import random_circuit
    >>> rc = random_circuit(4, 4, 2, seed=6, n_outputs=4)
    >>> [compile_arithmetic(rc, 4, 1, layout=lay).stack.signature.L for lay in ("tight", "lean")]
    [57, 22]

    ``layout="cells"`` (:mod:`symconv.constructions.cells`; d' = d, channel 0 carries the cells): N' = 4w rows (w the cut
    width) and at most 4Δ⌈log₂ w⌉ layers, planned by a seeded search (``seed``) that may find no
    plan (a HypothesisError, which proves nothing about the circuit).

    ``layout="best"``: ``"lean"`` when its stack meets Theorem H.21's bounds with the constant 4,
    L ≤ 4Δ⌈log₂ w⌉ and N' ≤ 4w (:func:`~symconv.circuits.theorem_bounds`); otherwise the first
    cell-layout stack within both, searched with seeds ``seed``, ``seed + 1``, … (``BEST_SEEDS`` of them,
    ``BEST_SECONDS`` in all: a search that this limit stops counts as finding nothing, so a slower machine
    may return an earlier stack where a faster one finds a cell stack);
    when none is, the stack whose larger ratio to its bound is smallest.  ``counts["chosen"]`` names the
    layout taken (and ``counts["seed"]`` the cell search's seed).  Each stack is one of the other layouts',
    so it is exactly what that layout builds; only the choice is new.

    ``layout="gapped"`` is ``"tight"`` with v1 | v3 | v2 multiplication
    layers (a circular tap −T) whose rows leave, after each wire, one row per
    use in the next route and per term of its own form (counted by a first
    pass): the copies then need no moves, and the Beneš network sends each
    target's terms onto rows t, t + 1, … so the sums need no placing moves.

    >>> import sympy
    >>> from symconv.circuits import from_polynomials
    >>> a, b = sympy.symbols("a b")
    >>> cc = compile_arithmetic(from_polynomials([a * b + 1, a - b], [a, b]), 1, 2)
    >>> import numpy as np
    >>> from symconv.numeric import run
    >>> run(cc.stack, np.array([[3.0, 4.0]])).round(9).tolist()
    [[13.0, -1.0]]
    """
    if not isinstance(circuit, Circuit):
        raise HypothesisError(f"circuit: expected a Circuit, got {type(circuit).__name__}")
    for pname, v in (("n", n), ("d", d)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
            raise HypothesisError(f"{pname}: must be a positive integer, got {v!r}")
    if circuit.n_inputs != n * d:
        raise HypothesisError(
            f"circuit: has {circuit.n_inputs} inputs but u ∈ R^{{{n}×{d}}} gives n·d = {n * d} "
            "(hypothesis: the circuit reads the row-major form of u)")
    if len(circuit.outputs) > n * d:
        raise HypothesisError(
            f"circuit: {len(circuit.outputs)} outputs do not fit the n×d = {n * d} output")
    if linear not in ("routing", "H.20"):
        raise HypothesisError(f"linear: expected 'routing' or 'H.20', got {linear!r}")
    if layout not in LAYOUTS:
        raise HypothesisError(f"layout: expected one of {', '.join(map(repr, LAYOUTS))}, got {layout!r}")
    if layout != "proof" and linear != "routing":
        raise HypothesisError(f"layout: {layout!r} needs linear='routing'")
    if layout == "cells" and merge_linear:
        raise HypothesisError("merge_linear: layout 'cells' takes the circuit's gates as they are (merge_linear=False)")
    if seed != 0 and layout not in ("cells", "best"):
        raise HypothesisError(f"seed: only layout='cells' (or 'best', through it) searches (got layout={layout!r})")
    if shifts is not None and layout != "lean":
        raise HypothesisError(f"shifts: only layout='lean' merges routing stages (got layout={layout!r})")
    if shifts is None:
        shifts = 3
    if not isinstance(shifts, (int, np.integer)) or isinstance(shifts, bool) or shifts < 2:
        raise HypothesisError(f"shifts: must be an integer >= 2, got {shifts!r}")
    if layout == "best":
        return _best(circuit, n, d, merge_linear, seed)
    lay = layering(circuit, merge_linear)
    if layout == "cells":
        return _cells(circuit, n, d, seed, lay)
    if layout in ("tight", "gapped", "lean"):
        lean = layout == "lean"
        fan: dict | None = None
        if layout == "gapped":  # a first pass counts each wire's uses in the route after it is made
            fan = {}
            _compile(circuit, n, d, merge_linear, _Planner(1), tight=True, record=fan, lay=lay)
        best = None
        switch_cache: dict = {}  # Beneš settings, shared by this call's passes (freed with it)
        for up in (False, True):  # in-place products on the lower or (tap −T) the upper operand's row
            planner = _Planner(1)
            K = max(_compile(circuit, n, d, merge_linear, planner, tight=True, fan=fan, up=up, lay=lay))
            if up and not planner.in_place:
                break
            cap, merge, plain = K, 0, None
            if lean:  # merged stages keep the tight layout's largest shift and spread regions (same N')
                plain = Router(K, d)
                plain.switch_cache = switch_cache
                _compile(circuit, n, d, merge_linear, plain, tight=True, fan=fan, up=up, lay=lay)
                cap = plain.max_shift if shifts <= 3 else K
                if plain.spreads:  # more than 3 shifts widen the state: N' = shifts·(K + S)
                    # a stage's shifts are distinct and |k| < K: more than 2K − 1 can never be used
                    merge = min(shifts, 2 * K - 1) if shifts > 3 else min(shifts, plain.max_terms)

            def build(N_int: int | None, offset: int | None = None) -> Router:
                r = Router(K, d, N_int, offset)
                r.switch_cache = switch_cache
                r.direct = fan is not None
                r.lean, r.merge, r.merge_shift = lean, merge, cap
                _compile(circuit, n, d, merge_linear, r, tight=True, fan=fan, up=up, lay=lay)
                if d > 1 and not r.channels_out:
                    _gather_channels(r, n, d)
                r.flush()
                return r

            def sized(r: Router) -> tuple:
                """(N', offset): regions O = K + S rows apart, one per term of the widest spread stage."""
                O = K + max(1, r.max_shift)
                return (r.max_terms if r.spreads else 1) * O, O

            backend = None
            if plain is not None and shifts <= 3:  # lean: first on tight's N' (one pass fewer, as a rule)
                try:
                    backend = build(*sized(plain))
                except HypothesisError:
                    backend = None
                if backend is not None and sized(backend)[0] < backend.N_int:
                    try:  # merging left a narrower state enough
                        backend = build(*sized(backend))
                    except HypothesisError:
                        pass
            if backend is None:
                backend = build(*sized(build(max(3, merge) * 2 * K)))
            if best is None or (len(backend.layers), backend.N_int) < (len(best[1].layers), best[1].N_int):
                best = (K, backend)
        K, backend = best
        stack = Stack(n, d, tuple(backend.layers), backend.N_int, d,
                      name=f"H.21 {layout}({circuit.name or 'circuit'})")
        return CompiledCircuit(circuit, stack, n, d, K, lay.L_C, tuple(l.kind for l in lay.layers),
                               {"linear": linear, "layout": layout, "spread stages": backend.spreads})
    if linear == "routing":
        K = _pow2(max(_compile(circuit, n, d, merge_linear, _Planner(1), lay=lay)))
        backend: Any = Router(K, d)
        _compile(circuit, n, d, merge_linear, backend, lay=lay)
        if d > 1:
            _gather_output(backend, n, d)
        stack = Stack(n, d, tuple(backend.layers), backend.N_int, d, name=f"H.21({circuit.name or 'circuit'})")
    else:
        rows = -(-max(_compile(circuit, n, d, merge_linear, _Planner(d), lay=lay)) // d)
        backend = _H20(max(rows, n), n, d)
        _compile(circuit, n, d, merge_linear, backend, lay=lay)
        stack = backend.stack(f"H.21 via H.20({circuit.name or 'circuit'})")
        K = backend.F
    return CompiledCircuit(circuit, stack, n, d, K, lay.L_C, tuple(l.kind for l in lay.layers),
                           {"linear": linear})


class _Planner:
    """Records the extent each step needs (first pass)."""

    def __init__(self, unit: int) -> None:
        self.unit = unit
        self.channels_out = False
        self.in_place = False

    def linear(self, pos, targets, label):
        pass

    def mul(self, T, m, a, r, label):
        pass


class _H20:
    """Backend of the paper's route: each linear layer is compile_matrix(M) on the F×d frame, row-major."""

    def __init__(self, F: int, n: int, d: int) -> None:
        self.F, self.n, self.d, self.unit = F, n, d, d
        self.steps: list = []

    def linear(self, pos, targets, label):
        P = self.F * self.d
        M = np.zeros((P, P), dtype=object)
        M[...] = 0
        c = np.zeros(P, dtype=object)
        c[...] = 0
        for tp, form in targets:
            for w, coeff in form.terms:
                M[tp, pos[w]] = M[tp, pos[w]] + coeff
            c[tp] = form.c0
        self.steps.append(("linear", M, c, label))

    def mul(self, T, m, a, r, label):
        self.steps.append(("mul", T, m, a, r, label))

    def stack(self, name: str) -> Stack:
        from .linear_circuits import compile_matrix, plan_matrix

        F, d = self.F, self.d
        plans = [plan_matrix(_exact(st[1]), F, d) for st in self.steps if st[0] == "linear"]
        N_int = max([F] + [p.N_int for p in plans])
        d_int = plans[0].d_int if plans else 3 * _pow2(d)
        layers: list[Layer] = []
        for st in self.steps:
            if st[0] == "linear":
                _, M, c, label = st
                layers += list(compile_matrix(_exact(M), F, d, N_int=N_int).layers)
                if any(not _zero(v) for v in c):
                    b2 = np.zeros((N_int, d_int), dtype=object)
                    b2[...] = 0
                    b2[:F, :d] = np.array(c, dtype=object).reshape(F, d)
                    h = np.zeros((1, d_int), dtype=np.int8)
                    h[0] = 1
                    layers.append(Layer(W=np.zeros((d_int, d_int), dtype=np.int8), h=h,
                                        b1=np.ones((1, 1), dtype=np.int8), b2=Router._compact(b2),
                                        label=label + ": add constants"))
            else:
                _, T, m, a, r, label = st
                W = np.zeros((d_int, d_int), dtype=np.int8)
                W[np.arange(d), np.arange(d)] = 1
                h = np.zeros((T + 1, d_int), dtype=np.int8)
                h[T, :d] = 1
                b2 = np.zeros((N_int, d_int), dtype=np.int8)
                for j in range(r):
                    q = a * d + j
                    b2[q // d, q % d] = 1
                layers.append(Layer(W=W, h=h, b1=np.zeros((1, 1), dtype=np.int8), b2=b2,
                                    label=f"{label}: v1 ⊙ v2, keep v3"))
        return Stack(self.n, d, tuple(layers), N_int, d_int, name=name)


def _exact(M: np.ndarray) -> np.ndarray:
    """Fractions as sympy Rationals (compile_matrix's entry types)."""
    out = M.copy()
    for idx, v in np.ndenumerate(out):
        if isinstance(v, Fraction):
            out[idx] = sympy.Rational(v.numerator, v.denominator)
    return out


def _compile(circuit: Circuit, n: int, d: int, merge_linear: bool, R: Any, tight: bool = False,
             fan: dict | None = None, record: dict | None = None, up: bool = False, lay: Any = None) -> list:
    """Walk the layering, calling the backend R for every linear and multiplication step.

    Positions are indices of the wire vector: rows of channel 0 for the
    routing backend (unit 1), row-major indices of the F×d frame for H.20
    (unit d).  Returns the extents the steps need.  ``lay``: the circuit's layering when the
    caller has it (compile_arithmetic walks one circuit several times).
    """
    if lay is None:
        lay = layering(circuit, merge_linear)
    u_ = R.unit
    need = [n * d, len(circuit.outputs), 2]
    pos = {w: w for w in range(circuit.n_inputs)}  # x[k] sits at index k
    blocks = tight and d > 1  # tight, d > 1: x[i·d + c] = u[i, c] sits at row c·n + i (channel blocks)
    occupied = set(range(n * d))  # rows that may be non-zero (tracked wires and left-over products)
    if blocks:
        pos = {w: (w % d) * n + w // d for w in range(circuit.n_inputs)}
    # tight, d > 1: a first multiplication level whose pairs sit in one row of u is one channel-mix layer
    mix = _channel_mix(lay.layers[0], n, d) if blocks and lay.layers and lay.layers[0].kind == "mul" else None
    channels_out = mix is not None and _outputs_in_place(lay.layers, mix, n, d)
    R.channels_out = channels_out  # the outputs already sit at (k div d, k mod d): no gather
    if isinstance(R, Router):
        R.occ[:n, :] = True
        if mix is not None:
            _mul_channels(R, mix, "C1 (mul)")
        if blocks and not channels_out:
            _spread_channels(R, n, d)
        elif d > 1 and not blocks:
            _spread_input(R, n, d)
    start = 0
    if mix is not None:
        if channels_out:
            return need
        start = 1
        entry = mix[0]
        pos = {w: c * n + i for w, (i, c) in entry.items()}
        occupied = {c * n + i for c in mix[2] for i in range(n)} | set(pos.values())
    virtual: dict | None = None  # pending linear layer: wire → Affine over pos-wires

    def compose(forms: dict) -> dict:
        if virtual is None:
            return forms
        out = {}
        for w, f in forms.items():
            terms: dict = {}
            c0 = f.c0
            for v, c in f.terms:
                g = virtual.get(v, Affine(((v, 1),)))
                c0 = c0 + c * g.c0
                for u2, cu in g.terms:
                    terms[u2] = terms.get(u2, 0) + c * cu
            out[w] = Affine(tuple(sorted((k, v) for k, v in terms.items() if not _zero(v))), c0)
        return out

    def nnz(forms: dict) -> int:
        return sum(len(f.terms) for f in forms.values())

    def realise(targets: list, label: str) -> None:
        """targets: [(index, Affine over pos wires)]"""
        nE = sum(len(f.terms) for _, f in targets)
        if record is not None:  # uses of each wire in this route, for a later pass's gaps
            uses: dict = {}
            for _, f in targets:
                for w, _c in f.terms:
                    uses[w] = uses.get(w, 0) + 1
            record[cur_li] = uses
        need.append(nE)
        if tight:
            need.append(max(2, _pow2(nE)))  # the Beneš network's positions
        need.extend(t + 1 for t, _ in targets)
        if isinstance(R, Router):
            route_affine(R, pos, targets, label, tight=tight)
        else:
            R.linear(pos, targets, label)

    def resolve(w: int) -> Affine:
        if virtual is not None and w in virtual:
            return virtual[w]
        return Affine(((w, 1),))

    cur_li = -1
    for li, layer in list(enumerate(lay.layers))[start:]:
        cur_li = li
        label = f"C{li + 1} ({layer.kind})"
        if layer.kind == "linear":
            if li == lay.L_C - 1:
                comp = compose({k: f for k, f in enumerate(layer.forms)})
                if blocks:  # output k of u's row-major form at row (k mod d)·n + k div d
                    comp = {(k % d) * n + k // d: f for k, f in comp.items()}
                realise(sorted(comp.items()), label + " outputs")
                virtual = None
                continue
            new = {**{w: f for w, f in zip(layer.targets, layer.forms)},
                   **{w: Affine(((w, 1),)) for w in layer.carried}}
            composed = compose(new)
            if virtual is not None and nnz(composed) > nnz(virtual) + nnz(new):
                # composing would densify: realise the pending layer first
                order = sorted(virtual)
                rows = {w: r for r, w in enumerate(order)}
                realise([(rows[w], virtual[w]) for w in order], label + " (pending)")
                pos = rows
                composed = new
            virtual = composed
        else:
            m, r = len(layer.pairs), len(layer.carried)
            ip = _in_place(layer, resolve, pos, occupied, up) if tight else None
            if ip is not None:                   # operands already T rows apart: multiply where they are
                T, prows, crows = ip
                R.in_place = True
                if isinstance(R, Router):
                    _mul_in_place(R, T, crows, label, up)
                need.append(max(prows + crows) + 1)
                sgn = -1 if up else 1
                occupied = {q for q in occupied if q - sgn * T in occupied or q in crows}
                pos = dict(zip(layer.products, prows))
                pos.update({w: pos_c for w, pos_c in zip(layer.carried, crows)})
                virtual = None
                continue
            later = sorted(k for k in (fan or {}) if k > li)
            if tight and later:                  # gapped v1 | v3 | v2: each wire followed by a row per later use
                uses = fan[later[0]]
                terms = [max(len(resolve(w1).terms), len(resolve(w2).terms)) for w1, w2 in layer.pairs]
                terms += [len(resolve(w).terms) for w in layer.carried]
                cnt = [max(1, uses.get(w, 1), t) for w, t in zip(layer.products + layer.carried, terms)]
                rows = [sum(cnt[:k]) for k in range(len(cnt))]
                G, T = sum(cnt[:m]), sum(cnt)
                targets = []
                for k, (w1, w2) in enumerate(layer.pairs):
                    f1, f2 = resolve(w1), resolve(w2)
                    if _top_row(f1, pos) > _top_row(f2, pos):  # the operand higher up stays in the upper block
                        f1, f2 = f2, f1
                    targets += [(rows[k], f1), (T + rows[k], f2)]
                targets += [(rows[m + j], resolve(w)) for j, w in enumerate(layer.carried)]
                targets.sort(key=lambda t: t[0])
                realise(targets, label + " operands")
                need.append(T + G)
                if isinstance(R, Router):
                    _mul_up(R, T, rows[:m], rows[m:], label)
                pos = dict(zip(layer.products + layer.carried, rows))
                occupied = set(rows)
                virtual = None
                continue
            if tight:                            # v2 | v3 | v1: v1 sits T = m + r below v2
                T, a = m + r, m
            else:
                T = -(-max(m, r, 1) // u_)       # rows between the blocks
                a = 2 * T + -(-m // u_)          # first row of v3
            targets = []
            for k, (w1, w2) in enumerate(layer.pairs):
                f1, f2 = resolve(w1), resolve(w2)
                if tight and _top_row(f1, pos) < _top_row(f2, pos):  # a·b = b·a: the operand higher up
                    f1, f2 = f2, f1                                     # goes to the upper block v2
                targets.append((k, f2))
                targets.append((T * u_ + k, f1))
            for j, w in enumerate(layer.carried):
                targets.append((a * u_ + j, resolve(w)))
            targets.sort(key=lambda t: t[0])
            realise(targets, label + " operands")
            occupied = {t for t, _ in targets}
            virtual = None
            need.append(a * u_ + r)
            need.append(T * u_ + m)
            if isinstance(R, Router):
                _mul_layer(R, T, m, a, r, label)
            else:
                R.mul(T, m, a, r, label)
            pos = {w: T * u_ + k for k, w in enumerate(layer.products)}
            pos.update({w: a * u_ + j for j, w in enumerate(layer.carried)})
    return need


def _mul_up(R: Router, T: int, prows: Sequence[int], crows: Sequence[int], label: str) -> None:
    """(y·I) ⊙ (e_{−T} ⊛ y + 1 on the carried rows), circular: the product of rows p and p + T lands on p.

    The carried rows c read y[c + T], past the last operand row (empty); an
    operand row p + T reads y[p + 2T], also empty as N' ≥ K + T.
    """
    b2 = np.zeros((R.N_int, R.d), dtype=np.int8)
    b2[list(crows), 0] = 1
    h = np.zeros((R.N_int - T + 1, R.d), dtype=np.int8)
    h[-1] = 1  # the tap N' − T, i.e. −T circularly
    R.max_shift = max(R.max_shift, T)
    R.emit(Layer(W=np.eye(R.d, dtype=np.int8), h=h, b1=np.zeros((1, 1), dtype=np.int8), b2=b2,
                          conv="circular", label=f"{label}: v1 ⊙ v2 on rows p ⊙ p + {T}, keep v3"))
    occ = np.zeros_like(R.occ)
    occ[list(prows) + list(crows), 0] = True
    R.occ = occ


def _channel_mix(layer: Any, n: int, d: int) -> tuple | None:
    """(entry of each product and carried wire, partner σ, product channels) for a first mul level
    whose pairs each sit in one row of u (different channels), else None.

    Input wire k is u[k div d, k mod d].  The product of a pair lands on one of its
    channels c (the host), which reads its partner σ(c) through W; σ is one map
    for all rows, and no carried wire may sit in a host channel (W's column c is
    not zero there).
    """
    if any(w >= n * d for pr in layer.pairs for w in pr) or any(w >= n * d for w in layer.carried):
        return None
    carried_ch = {w % d for w in layer.carried}
    sigma: dict = {}
    entry: dict = {w: (w // d, w % d) for w in layer.carried}
    taken = set(entry.values())
    for (w1, w2), p in zip(layer.pairs, layer.products):
        if w1 // d != w2 // d or w1 % d == w2 % d:
            return None
        i = w1 // d
        for host, partner in ((w1 % d, w2 % d), (w2 % d, w1 % d)):
            if host not in carried_ch and sigma.get(host, partner) == partner and (i, host) not in taken:
                sigma[host] = partner
                entry[p] = (i, host)
                taken.add((i, host))
                break
        else:
            return None
    return entry, sigma, sorted(sigma)


def _outputs_in_place(layers: Sequence, mix: tuple, n: int, d: int) -> bool:
    """True when the channel-mix layer leaves exactly the outputs: a final linear layer that reads
    output k as the plain wire at (k div d, k mod d), and nothing else non-zero."""
    if len(layers) != 2 or layers[1].kind != "linear":
        return False
    entry, _, hosts = mix
    live = {(i, c) for c in hosts for i in range(n)} | set(entry.values())
    want = {}
    for k, f in enumerate(layers[1].forms):
        if not _zero(f.c0) or len(f.terms) != 1:
            return False
        (w, c), = f.terms
        if not (isinstance(c, (int, Fraction)) and c == 1) or entry.get(w) != (k // d, k % d):
            return False
        want[(k // d, k % d)] = w
    return live == set(want)


def _mul_channels(R: Router, mix: tuple, label: str) -> None:
    """(u·W + 1 on the carried entries) ⊙ (e_0 * u): u[i, c]·u[i, σ(c)] on the host channels, carried kept."""
    entry, sigma, hosts = mix
    d = R.d
    W = np.zeros((d, d), dtype=np.int8)
    for c, p in sigma.items():
        W[p, c] = 1
    b1 = np.zeros((R.N_int, d), dtype=np.int8)
    occ = np.zeros_like(R.occ)
    for i, c in entry.values():
        if c not in sigma:  # a carried entry: (0 + 1)·u[i, c]
            b1[i, c] = 1
            occ[i, c] = True
    occ[:, hosts] = R.occ[:, hosts]
    R.emit(Layer(W=W, h=np.ones((1, d), dtype=np.int8), b1=b1, b2=np.zeros((1, 1), dtype=np.int8),
                          label=f"{label}: u[i, c]·u[i, σ(c)] in one layer (channel mix), keep carried"))
    R.occ = occ


def _in_place(layer: Any, resolve: Any, pos: dict, occupied: set, up: bool = False) -> tuple | None:
    """(T, product rows, carried rows) when the layer can multiply its operands where they sit, else None.

    Every operand and carried wire must be a plain wire of the state, all pairs T
    rows apart (the product lands on the lower row, which reads y[row − T]; with
    ``up`` on the upper row, which reads y[row + T] circularly), the
    product rows distinct and apart from the carried rows, and the row T above a
    carried wire empty (it keeps y·(0 + 1)).  Other rows may keep left-over
    products; the next routing drops them.
    """
    def row(w: int) -> int | None:
        f = resolve(w)
        if len(f.terms) != 1 or not _zero(f.c0):
            return None
        (v, c), = f.terms
        return pos.get(v) if isinstance(c, (int, Fraction)) and c == 1 else None

    prows, Ts = [], set()
    for w1, w2 in layer.pairs:
        r1, r2 = row(w1), row(w2)
        if r1 is None or r2 is None:
            return None
        Ts.add(abs(r1 - r2))
        prows.append(min(r1, r2) if up else max(r1, r2))
    crows = [row(w) for w in layer.carried]
    if len(Ts) != 1 or None in crows or len(set(prows)) != len(prows) or set(prows) & set(crows):
        return None
    T = Ts.pop()
    if any(c + (T if up else -T) in occupied for c in crows):
        return None
    return T, prows, crows


def _mul_in_place(R: Router, T: int, crows: Sequence[int], label: str, up: bool = False) -> None:
    """(y·I) ⊙ (e_T * y + 1 on the carried rows): products on the rows of their lower operands.

    ``up``: the tap −T (circular, N' ≥ K + T so nothing wraps into the frame), products on the
    rows of their upper operands.
    """
    b2 = np.zeros((R.N_int, R.d), dtype=np.int8)
    b2[list(crows), 0] = 1
    if up:
        h = np.zeros((R.N_int - T + 1, R.d), dtype=np.int8)
        R.max_shift = max(R.max_shift, T)
    else:
        h = np.zeros((T + 1, R.d), dtype=np.int8)
    h[-1] = 1  # the tap T (up: N' − T)
    R.emit(Layer(W=np.eye(R.d, dtype=np.int8), h=h, b1=np.zeros((1, 1), dtype=np.int8), b2=b2,
                          conv="circular" if up else "causal",
                          label=f"{label}: v1 ⊙ v2 in place (T = {-T if up else T}), keep v3"))
    near = np.zeros_like(R.occ)
    if up:
        near[:R.K - T] = R.occ[T:]
    else:
        near[T:] = R.occ[:R.K - T]
    R.occ = R.occ & (near | b2[:R.K].astype(bool))



def _benes_stage(R: Any, k: int, cross: np.ndarray) -> list:
    """The (shift, mask) terms of one Beneš stage of block size k: a switch that crosses sends
    row a to a + k/2 and back; one that does not keeps both rows."""
    h = k // 2
    stay = np.zeros((R.K, R.d), dtype=np.int8)
    up = np.zeros((R.K, R.d), dtype=np.int8)
    dn = np.zeros((R.K, R.d), dtype=np.int8)
    sw = np.arange(len(cross))
    a = (sw // h) * k + sw % h  # the upper row of each switch
    x = np.asarray(cross) != 0
    up[a[x], 0] = 1          # a receives y[a + h]
    dn[a[x] + h, 0] = 1      # a + h receives y[a]
    stay[a[~x], 0] = stay[a[~x] + h, 0] = 1
    return [(0, stay), (-h, up), (h, dn)]

def _top_row(f: Affine, pos: dict) -> float:
    """The smallest row an affine form reads (inf for a constant)."""
    return min((pos[w] for w in f.wires() if w in pos), default=float("inf"))


def _mul_layer(R: Router, T: int, m: int, a: int, r: int, label: str) -> None:
    """(y·I) ⊙ (e_T * y + 1 on rows [a, a+r)): v1 ⊙ v2 in rows [T, T+m), v3 kept."""
    b2 = np.zeros((R.N_int, R.d), dtype=np.int8)
    b2[a:a + r, 0] = 1
    h = np.zeros((T + 1, R.d), dtype=np.int8)
    h[T] = 1
    R.emit(Layer(W=np.eye(R.d, dtype=np.int8), h=h, b1=np.zeros((1, 1), dtype=np.int8), b2=b2,
                          label=f"{label}: v1 ⊙ v2, keep v3"))
    occ = np.zeros_like(R.occ)
    occ[T:T + m, 0] = True
    occ[a:a + r, 0] = True
    R.occ = occ


def _spread_channels(R: Router, n: int, d: int) -> None:
    """u[i, c] → row c·n + i of channel 0: channel c shifted down by c·n, then the channels summed (2 layers)."""
    h = np.zeros(((d - 1) * n + 1, d), dtype=np.int8)
    for c in range(d):
        h[c * n, c] = 1
    R.emit(Layer(W=np.zeros((d, d), dtype=np.int8), h=h, b1=np.ones((1, 1), dtype=np.int8),
                          b2=np.zeros((1, 1), dtype=np.int8), label="channel c down by c·n"))
    W = np.zeros((d, d), dtype=np.int8)
    W[:, :1] = 1  # every channel into channel 0
    R.emit(Layer(W=W, h=np.zeros((1, d), dtype=np.int8), b1=np.zeros((1, 1), dtype=np.int8),
                          b2=np.ones((1, 1), dtype=np.int8), label="channels → channel 0"))
    occ = np.zeros_like(R.occ)
    occ[:n * d, 0] = True
    R.occ = occ


def _gather_channels(R: Router, n: int, d: int) -> None:
    """Rows c·n + i of channel 0 → (i, c): channel 0 copied to channel c on its block, then up by c·n (2 layers)."""
    W = np.zeros((d, d), dtype=np.int8)
    W[0, :] = 1
    b2 = np.zeros((R.N_int, d), dtype=np.int8)
    for c in range(d):
        b2[c * n:(c + 1) * n, c] = 1
    R.emit(Layer(W=W, h=np.zeros((1, d), dtype=np.int8), b1=np.zeros((1, 1), dtype=np.int8),
                          b2=b2, label="channel 0 → channel c on rows c·n .. c·n + n"))
    h = np.zeros((R.N_int, d), dtype=np.int8)
    for c in range(d):
        h[(-c * n) % R.N_int, c] = 1
    b1 = np.zeros((R.N_int, d), dtype=np.int8)
    b1[:n] = 1
    R.emit(Layer(W=np.zeros((d, d), dtype=np.int8), h=h, b1=b1, b2=np.zeros((1, 1), dtype=np.int8),
                          conv="circular", label="channel c up by c·n"))
    occ = np.zeros_like(R.occ)
    occ[:n] = True
    R.occ = occ


def _spread_input(R: Router, n: int, d: int) -> None:
    """u[i, c] (row i, channel c) → row i·d + c of channel c, then all channels summed into channel 0."""
    src = [list(range(n)) for _ in range(d)]
    dst = [[i * d + c for i in range(n)] for c in range(d)]
    R.move(src, dst, "spread u row-major")
    W = np.zeros((d, d), dtype=np.int8)
    W[:, 0] = 1
    R.emit(Layer(W=W, h=np.zeros((1, d), dtype=np.int8), b1=np.zeros((1, 1), dtype=np.int8),
                          b2=np.ones((1, 1), dtype=np.int8), label="channels → channel 0"))
    occ = np.zeros_like(R.occ)
    occ[:, 0] = R.occ.any(axis=1)
    R.occ = occ


def _gather_output(R: Router, n: int, d: int) -> None:
    """Row k of channel 0 → (k // d, k % d): broadcast to the channels, then move up."""
    W = np.zeros((d, d), dtype=np.int8)
    W[0, :] = 1
    b2 = np.zeros((R.N_int, d), dtype=np.int8)
    for k in range(n * d):
        b2[k, k % d] = 1
    R.emit(Layer(W=W, h=np.zeros((1, d), dtype=np.int8), b1=np.zeros((1, 1), dtype=np.int8),
                          b2=b2, label="channel 0 → channel k mod d"))
    occ = np.zeros_like(R.occ)
    occ[:n * d] = b2[:n * d].astype(bool) & R.occ[:n * d, :1]
    R.occ = occ
    src = [[i * d + c for i in range(n)] for c in range(d)]
    dst = [list(range(n)) for _ in range(d)]
    R.move(src, dst, "gather outputs")
