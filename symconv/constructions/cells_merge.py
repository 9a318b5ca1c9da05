"""Greedy merging of consecutive W = 0 layers of one level into one masked convolution.

Two W = 0 layers D2·C2·D1·C1 become one layer D·C with C = C2*C1 (taps convolved, cyclic)
when, on the actual occupancy (affine forms over the level's start tokens), every row of
the merged layer's output is a multiple of the two-layer output plus a constant.

>>> from fractions import Fraction as F
>>> state = {0: ({"t": F(1)}, F(0))}                       # one token on row 0 of 4 rows
>>> apply_w0(state, {1: F(1)}, [F(1)] * 4, [F(0)] * 4, 4)   # shift it down by one
{1: ({'t': Fraction(1, 1)}, Fraction(0, 1))}
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..model import Layer


def _taps(L):
    return {t: Fraction(v) for t, v in enumerate(L.h[:, 0]) if v != 0}


def _vec(a, Np):
    return [Fraction(a[i if a.shape[0] > 1 else 0, 0]) for i in range(Np)]


def apply_w0(state, taps, b1, b2, Np):
    """state: {row: ({token: coeff}, const)} -> new state after b1 ⊙ (h ⊛ y + b2) (circular)."""
    out = {}
    for r in range(Np):
        if b1[r] == 0:
            continue
        acc, c0 = {}, Fraction(0)
        for t, hv in taps.items():
            src = state.get((r - t) % Np)
            if src is None:
                continue
            for k, v in src[0].items():
                acc[k] = acc.get(k, 0) + hv * v
            c0 += hv * src[1]
        c0 += b2[r]
        acc = {k: b1[r] * v for k, v in acc.items() if v != 0}
        c0 = b1[r] * c0
        if acc or c0:
            out[r] = (acc, c0)
    return out


def try_merge(state, L1, L2, Np):
    t1, t2 = _taps(L1), _taps(L2)
    b11, b21, b12, b22 = _vec(L1.b1, Np), _vec(L1.b2, Np), _vec(L2.b1, Np), _vec(L2.b2, Np)
    want = apply_w0(apply_w0(state, t1, b11, b21, Np), t2, b12, b22, Np)
    tm = {}
    for a, va in t1.items():
        for b, vb in t2.items():
            tm[(a + b) % Np] = tm.get((a + b) % Np, 0) + va * vb
    tm = {t: v for t, v in tm.items() if v != 0}
    ones = [Fraction(1)] * Np
    zeros = [Fraction(0)] * Np
    raw = apply_w0(state, tm, ones, zeros, Np)
    b1, b2 = [Fraction(0)] * Np, [Fraction(0)] * Np
    for r in range(Np):
        U = want.get(r)
        V = raw.get(r, ({}, Fraction(0)))
        if U is None:
            continue            # row cleared (b1 = 0)
        if not V[0]:
            return None         # wanted a token, merged layer delivers none
        if set(U[0]) != set(V[0]):
            return None
        lam = None
        for k in U[0]:
            q = U[0][k] / V[0][k]
            if lam is None:
                lam = q
            elif q != lam:
                return None
        b1[r] = lam
        b2[r] = U[1] / lam - V[1]
    T = max(tm) + 1
    h = np.zeros((T, 1), dtype=object); h[:, 0] = 0
    for t, v in tm.items():
        h[t, 0] = v
    B1 = np.zeros((Np, 1), dtype=object); B1[:, 0] = b1
    B2 = np.zeros((Np, 1), dtype=object); B2[:, 0] = b2
    return Layer(W=np.array([[0]], dtype=object), h=h, b1=B1, b2=B2, conv="circular",
                 label=L1.label + " + " + L2.label)


def merge_level(layers, start_rows, Np):
    """layers: one level's layers (W = 0 ones first, the W = 1 mul last); start_rows: occupied rows."""
    state = {r: ({("t", r): Fraction(1)}, Fraction(0)) for r in start_rows}
    out = []
    i = 0
    cur = None
    for L in layers:
        if L.W[0, 0] != 0:
            if cur is not None:
                out.append(cur)
            out.append(L)
            cur = None
            continue
        if cur is None:
            cur, cur_state = L, state
            continue
        m = try_merge(cur_state, cur, L, Np)
        if m is not None:
            cur = m
        else:
            out.append(cur)
            t, b1, b2 = _taps(cur), _vec(cur.b1, Np), _vec(cur.b2, Np)
            cur_state = apply_w0(cur_state, t, b1, b2, Np)
            cur = L
    if cur is not None:
        out.append(cur)
    return out
