"""Families of linear arithmetic circuits (Def. H.13) for Corollary H.20, and their compiled sizes.

Every family takes the number of wires N and returns a
:class:`~symconv.linear_circuits.LinearCircuit` with N inputs and N outputs and
integer constants (so its matrix is exact):

* :func:`identity_circuit`: no gates;
* :func:`permutation_circuit`: outputs are the inputs in a random order, no gates;
* :func:`prefix_sum_circuit`: running sums by doubling (Hillis–Steele), depth ⌈log N⌉;
* :func:`walsh_hadamard_circuit`: log N levels of x ± y (N a power of two);
* :func:`random_sparse_circuit`: levels of gates a·x + b·y on random wires of the previous level;
* :func:`dense_matrix_circuit`: y = M·x by a balanced sum tree per output.

>>> walsh_hadamard_circuit(2).matrix().tolist()
[[1, 1], [1, -1]]
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..model import HypothesisError
from .butterfly import check_pow2
from .linear_circuits import ROUTES, Gate, LinearCircuit, plan_circuit


def _check_N(N: Any) -> int:
    if not isinstance(N, (int, np.integer)) or isinstance(N, bool) or N < 1:
        raise HypothesisError(f"N: number of wires must be a positive integer, got {N!r}")
    return int(N)


def identity_circuit(N: int) -> LinearCircuit:
    """N inputs read straight out.

    >>> identity_circuit(3).sizes
    (3, 0, 0, 3)
    """
    N = _check_N(N)
    return LinearCircuit(N, (), tuple(range(N)))


def permutation_circuit(N: int, rng: np.random.Generator) -> LinearCircuit:
    """The inputs read out in a random order (no gates).

    >>> permutation_circuit(4, np.random.default_rng(0)).s
    0
    """
    N = _check_N(N)
    return LinearCircuit(N, (), tuple(int(i) for i in rng.permutation(N)))


def prefix_sum_circuit(N: int) -> LinearCircuit:
    """y_i = x_0 + ⋯ + x_i by doubling: at level t, v_i += v_{i−2^t} for i ≥ 2^t.

    >>> prefix_sum_circuit(4).evaluate(np.array([1, 2, 3, 4])).tolist()
    [1, 3, 6, 10]
    """
    N = _check_N(N)
    cur = list(range(N))
    gates, wire, step = [], N, 1
    while step < N:
        nxt = list(cur)
        for i in range(step, N):
            gates.append(Gate(wire, 1, cur[i], 1, cur[i - step]))
            nxt[i] = wire
            wire += 1
        cur, step = nxt, 2 * step
    return LinearCircuit(N, tuple(gates), tuple(cur))


def walsh_hadamard_circuit(N: int) -> LinearCircuit:
    """The Walsh–Hadamard transform H_N (Sylvester order): log N levels of (x + y, x − y).

    >>> walsh_hadamard_circuit(4).sizes
    (4, 8, 2, 4)
    """
    check_pow2(N, "N")
    cur = list(range(N))
    gates, wire, h = [], N, N // 2
    while h >= 1:
        nxt = list(cur)
        for i in range(N):
            if i & h:
                continue
            a, b = cur[i], cur[i + h]
            gates.append(Gate(wire, 1, a, 1, b))
            gates.append(Gate(wire + 1, 1, a, -1, b))
            nxt[i], nxt[i + h] = wire, wire + 1
            wire += 2
        cur, h = nxt, h // 2
    return LinearCircuit(N, tuple(gates), tuple(cur))


def random_sparse_circuit(N: int, rng: np.random.Generator, levels: int = 2) -> LinearCircuit:
    """``levels`` levels of N gates a·x + b·y (a, b in ±1..±3) on two random wires of the level before.

    >>> random_sparse_circuit(4, np.random.default_rng(0)).depth
    2
    """
    N = _check_N(N)
    cur = list(range(N))
    gates, wire = [], N
    coef = [-3, -2, -1, 1, 2, 3]
    for _ in range(levels):
        nxt = []
        for _ in range(N):
            x, y = (int(v) for v in rng.choice(N, size=2, replace=N < 2))
            gates.append(Gate(wire, int(rng.choice(coef)), cur[x], int(rng.choice(coef)), cur[y]))
            nxt.append(wire)
            wire += 1
        cur = nxt
    return LinearCircuit(N, tuple(gates), tuple(cur))


def dense_matrix_circuit(M: Any) -> LinearCircuit:
    """y = M·x for an integer N×N matrix: per output, scale pairs then add in a balanced tree.

    >>> dense_matrix_circuit(np.array([[1, 2], [3, 4]])).matrix().tolist()
    [[1, 2], [3, 4]]
    """
    M = np.asarray(M)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise HypothesisError(f"M: expected a square matrix, got shape {M.shape}")
    N = M.shape[0]
    gates, wire, outs = [], N, []
    for o in range(N):
        terms = []
        for j in range(0, N, 2):
            b, y = (int(M[o, j + 1]), j + 1) if j + 1 < N else (0, None)
            gates.append(Gate(wire, int(M[o, j]), j, b, y))
            terms.append(wire)
            wire += 1
        while len(terms) > 1:
            nxt = []
            for t in range(0, len(terms) - 1, 2):
                gates.append(Gate(wire, 1, terms[t], 1, terms[t + 1]))
                nxt.append(wire)
                wire += 1
            if len(terms) % 2:
                nxt.append(terms[-1])
            terms = nxt
        outs.append(terms[0])
    return LinearCircuit(N, tuple(gates), tuple(outs))


def random_dense_circuit(N: int, rng: np.random.Generator) -> LinearCircuit:
    """:func:`dense_matrix_circuit` of a random matrix with entries in ±1..±3 (no zeros)."""
    N = _check_N(N)
    M = rng.choice([-3, -2, -1, 1, 2, 3], size=(N, N))
    return dense_matrix_circuit(M)


FAMILIES = {
    "identity": lambda N, rng: identity_circuit(N),
    "permutation": permutation_circuit,
    "prefix sums": lambda N, rng: prefix_sum_circuit(N),
    "Walsh-Hadamard": lambda N, rng: walsh_hadamard_circuit(N),
    "sparse random": random_sparse_circuit,
    "dense random": random_dense_circuit,
}


def h20_table(shapes: list[tuple[int, int]], seed: int = 0, routes: tuple = ROUTES) -> list[dict]:
    """Sizes of each family's circuit and of its compiled stack, per (n, d) and route.

    ``claimed_L`` is Δ·⌈log₂ w⌉ (Corollary H.20's Δ' = O(Δ log w) with constant 1);
    the claimed state is N' = w, d' = d.  Sizes come from :func:`plan_circuit`
    (degrees only), so large shapes cost no layers.

    >>> [r["L"] for r in h20_table([(2, 1)]) if r["family"] == "identity"]
    [3, 3]
    """
    rows = []
    for n, d in shapes:
        N = n * d
        for name, make in FAMILIES.items():
            if name == "Walsh-Hadamard" and N & (N - 1):
                continue
            c = make(N, np.random.default_rng(seed))
            nI, s, depth, w = c.sizes
            for route in routes:
                plan = plan_circuit(c, n, d, route)
                rows.append({"family": name, "route": route, "n": n, "d": d, "nd": N, "s": s, "depth": depth,
                             "w": w, "colours": plan.colours, "E": plan.E, "L": plan.L, "N_int": plan.N_int,
                             "d_int": plan.d_int,
                             "claimed_L": depth * max(1, math.ceil(math.log2(max(w, 1)))),
                             "claimed_N_int": w, "claimed_d_int": d})
    return rows
