"""Beneš networks as butterfly factor matrices, and a matrix split into weighted permutations.

Any permutation of P = 2^p positions is realised by a Beneš network: 2p − 1
stages of 2×2 switches.  Here stage t pairs positions q and q XOR k_t/2 inside
blocks of size k_t, with k = P, P/2, …, 2, …, P/2, P, so every stage is a
butterfly factor matrix B_k^(P) (Def. H.14) with 0/1 entries: a straight switch
is D1 = D4 = 1, a crossed one D2 = D3 = 1.  Switches are set by the looping
algorithm: the first stage sends one of each pair q, q + P/2 to each half, the
halves are routed recursively, and the last stage puts each output back.

A matrix M is split as Σ_c diag(w_c)·Π_c: colour the non-zero entries so that
no two in one row or one column share a colour (a bipartite edge colouring;
König's theorem gives max(row count, column count) colours, found here by
alternating paths); each colour is a partial permutation, completed to a full
one, weighted by its entries.

>>> perm = np.array([2, 0, 3, 1])           # y[o] = x[perm[o]]
>>> x = np.array([10, 11, 12, 13])
>>> y = x
>>> for F in benes_factors(perm):
...     y = F.apply(y)
>>> y.tolist()
[12, 10, 13, 11]
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..model import HypothesisError
from .butterfly import ButterflyFactorMatrix, check_pow2, log2


def _check_perm(perm: Any) -> np.ndarray:
    p = np.asarray(perm)
    if p.ndim != 1 or p.dtype.kind not in "iu":
        raise HypothesisError(f"perm: expected a 1-D integer array, got {p.dtype} of shape {p.shape}")
    P = len(p)
    check_pow2(P, "perm (length)", 2)
    if sorted(p.tolist()) != list(range(P)):
        raise HypothesisError(f"perm: is not a permutation of 0..{P - 1}")
    return p.astype(np.int64)


def benes_switches(perm: Any) -> list[tuple[int, np.ndarray]]:
    """Switch settings (k, cross) of the 2·log P − 1 stages routing y[o] = x[perm[o]].

    ``cross`` has length P/2, ordered block by block; 1 means the switch crosses.

    >>> [(k, c.tolist()) for k, c in benes_switches([1, 0])]
    [(2, [1])]
    """
    return _switches(_check_perm(perm).tolist())


def _switches(perm: list) -> list:
    """benes_switches on a checked permutation as a list.  Plain Python lists: the looping walk
    takes one entry at a time, where numpy's per-call cost dominates."""

    P = len(perm)
    p = log2(P)
    ks = [P >> t for t in range(p)] + [P >> t for t in range(p - 2, -1, -1)]
    stages = [[0] * (P // 2) for _ in ks]
    # work list: (depth, base, local permutation)
    work = [(0, 0, perm)]
    while work:
        depth, base, src = work.pop()
        m = len(src)
        if m == 2:
            stages[p - 1][base // 2] = int(src[0] == 1)
            continue
        h = m // 2
        inv = [0] * m
        for o, a in enumerate(src):
            inv[a] = o
        t = [-1] * m
        for start in range(m):
            a = start
            while t[a] == -1:
                t[a] = 0
                t[a ^ h] = 1
                o = inv[a ^ h]
                a = src[o ^ h]
        first, last = stages[depth], stages[len(ks) - 1 - depth]
        off = base // 2  # switch index of this block's first switch
        first[off:off + h] = t[:h]                      # cross when input r goes to the bottom half
        a_top, a_bot = [], []
        for o in range(h):
            top_is_src = t[src[o]] == 0                 # output o's input travels through the top half
            last[off + o] = 0 if top_is_src else 1
            lo, hi = (src[o], src[o + h]) if top_is_src else (src[o + h], src[o])
            a_top.append(lo % h)
            a_bot.append(hi % h)
        work.append((depth + 1, base, a_top))
        work.append((depth + 1, base + h, a_bot))
    return [(k, np.array(c, dtype=np.int64)) for k, c in zip(ks, stages)]


def switch_factor(P: int, k: int, cross: np.ndarray, dtype: Any = np.int64) -> ButterflyFactorMatrix:
    """The factor matrix B_k^(P) of one switch stage (straight: D1 = D4 = 1; crossed: D2 = D3 = 1).

    >>> switch_factor(2, 2, np.array([1])).to_matrix().tolist()
    [[0, 1], [1, 0]]
    """
    c = np.asarray(cross).reshape(P // k, k // 2).astype(dtype)
    s = (1 - c).astype(dtype)
    return ButterflyFactorMatrix(P, k, np.stack([s, c, c, s], axis=1))


def benes_factors(perm: Any) -> list[ButterflyFactorMatrix]:
    """Factor matrices, in acting order, whose product maps x to y with y[o] = x[perm[o]]."""
    perm = _check_perm(perm)
    return [switch_factor(len(perm), k, c) for k, c in benes_switches(perm)]


def edge_colouring(mask: Any) -> list[dict]:
    """Split the non-zero pattern of a matrix into matchings {row: column}, max-degree many.

    Bipartite edge colouring by alternating paths (König): every row and column
    meets each colour at most once.

    >>> edge_colouring(np.array([[1, 1], [0, 1]]))
    [{0: 0, 1: 1}, {0: 1}]
    """
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2:
        raise HypothesisError(f"mask: expected a 2-D pattern, got shape {mask.shape}")
    rows, cols = np.nonzero(mask)
    return colour_pairs(list(zip(rows.tolist(), cols.tolist())), mask.shape[0], mask.shape[1])


def colour_pairs(pairs: Sequence[tuple[int, int]], nrows: int, ncols: int) -> list[dict]:
    """:func:`edge_colouring` of the distinct (row, column) pairs of a sparse pattern.

    >>> colour_pairs([(0, 0), (0, 1), (1, 1)], 2, 2)
    [{0: 0, 1: 1}, {0: 1}]
    """
    if not pairs:
        return []
    rdeg, cdeg = [0] * nrows, [0] * ncols
    for r, c in pairs:
        rdeg[r] += 1
        cdeg[c] += 1
    delta = max(max(rdeg), max(cdeg))
    at_r = [dict() for _ in range(nrows)]   # colour -> column
    at_c = [dict() for _ in range(ncols)]   # colour -> row
    for r, c in pairs:
        a = next(x for x in range(delta) if x not in at_r[r])
        b = next(x for x in range(delta) if x not in at_c[c])
        if a not in at_c[c]:
            at_r[r][a] = c
            at_c[c][a] = r
            continue
        # flip the a/b path starting at column c with colour a
        path = []
        side, v, col = "c", c, a
        while True:
            table = at_c if side == "c" else at_r
            if col not in table[v]:
                break
            w = table[v][col]
            path.append((side, v, w, col))
            side, v, col = ("r" if side == "c" else "c"), w, (b if col == a else a)
        for side, v, w, col in path:
            rr, cc = (w, v) if side == "c" else (v, w)
            del at_r[rr][col]
            del at_c[cc][col]
        for side, v, w, col in path:
            new = b if col == a else a
            rr, cc = (w, v) if side == "c" else (v, w)
            at_r[rr][new] = cc
            at_c[cc][new] = rr
        at_r[r][a] = c
        at_c[c][a] = r
    out = [dict() for _ in range(delta)]
    for r, table in enumerate(at_r):
        for col, c in table.items():
            out[col][r] = c
    return [m for m in out if m]


def complete(matching: dict, P: int) -> np.ndarray:
    """A full permutation perm (y[o] = x[perm[o]]) extending a partial one {o: perm[o]}.

    >>> complete({0: 2}, 3).tolist()
    [2, 0, 1]
    """
    used = set(matching.values())
    free = iter(c for c in range(P) if c not in used)
    return np.array([matching[o] if o in matching else next(free) for o in range(P)], dtype=np.int64)


def weighted_permutations(M: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """M = Σ diag(w)·Π_perm as a list of (perm, w), one per colour of M's non-zeros.

    >>> [(p.tolist(), w.tolist()) for p, w in weighted_permutations(np.array([[0, 2], [3, 0]]))]
    [([1, 0], [2, 3])]
    """
    M = np.asarray(M)
    P = M.shape[0]
    nz = np.vectorize(lambda v: v != 0, otypes=[bool])(M) if M.dtype == object else M != 0
    if nz.any(axis=1).all() and nz.sum(axis=1).max() == P:
        # a full row: P colours are needed; the cyclic diagonals give them at once
        matchings = [{o: (o + t) % P for o in range(P) if nz[o, (o + t) % P]} for t in range(P)]
        matchings = [m for m in matchings if m]
    else:
        matchings = edge_colouring(nz)
    return _weigh(matchings, lambda o, c: M[o, c], P, M.dtype)


def weighted_permutations_sparse(entries: dict, P: int, dtype: Any = np.float64) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`weighted_permutations` of a P×P matrix given as {(row, column): value}.

    >>> [(p.tolist(), w.tolist()) for p, w in weighted_permutations_sparse({(0, 1): 2, (1, 0): 3}, 2, np.int64)]
    [([1, 0], [2, 3])]
    """
    nz = [(r, c) for (r, c), v in entries.items() if v != 0]
    return _weigh(colour_pairs(nz, P, P), lambda o, c: entries[(o, c)], P, dtype)


def _weigh(matchings: list, value, P: int, dtype: Any) -> list:
    out = []
    for matching in matchings:
        perm = complete(matching, P)
        w = np.zeros(P, dtype=dtype)
        if w.dtype == object:
            w[...] = 0
        for o, c in matching.items():
            w[o] = value(o, c)
        out.append((perm, w))
    return out
