"""Def. H.13 linear arithmetic circuits as data, and Corollary H.20: any linear map compiled to BaseConv.

Circuits.  A :class:`LinearCircuit` has ``n_inputs`` input wires 0..n−1 and
gates, each defining a new wire as a·x + b·y for fixed constants a, b and
earlier wires x, y (Def. H.13).  Gates may be listed in any order; a cycle, a
reference to an unknown wire, or a gate that is not linear (``op="mul"``) is a
:class:`~symconv.model.HypothesisError` naming the gate.  ``outputs`` lists the
wires read out.  Its sizes (n, s, Δ, w): n inputs, s gates, depth Δ (longest
path of gates), width w (most gates at one depth level).

Compilation route (ours; the paper only cites Theorem H.19).  The matrix M of
the map is compiled, not the gates:

1. embed: x ∈ R^{nd} is the row-major form of u ∈ R^{n×d}; on a grid of
   R₀ = 2^⌈log n⌉ rows and D = 2^⌈log d⌉ channels, entry (i, j) has index
   i·D + j; M becomes a P×P matrix, P = R₀·D (P ≥ 2);
2. split M = Σ_{c<C} diag(w_c)·Π_c (edge colouring of its non-zeros, C = the
   most non-zeros in one row or column; :mod:`.benes`);
3. expand: E = 2^⌈log C⌉ copies of the vector stacked in rows (N' = E·R₀):
   log E fan-out factor matrices copy x into every slot; slot c runs the
   Beneš network of Π_c (2 log P − 1 factor matrices, block diagonal across
   slots), its last stage scaled by w_c; log E fan-in factor matrices add the
   slots into slot 0;
4. compile that sequence of butterfly factor matrices with
   :func:`~symconv.constructions.butterfly.compile_factors`.

Layers: a factor of block size k costs 1 layer if k/2 < D, else 2, plus one
final layer, so L = 4·log E + (2 log D − 1) + 4·log R₀ + 1 when D ≥ 2, and
4·log E + 4·log R₀ − 1 when D = 1 (:func:`matrix_layer_count`).  State:
N' = E·R₀ rows, d' = 3D channels.  After the last layer the state is exactly
y = M·x in the top-left n×d block and zero elsewhere.

``compile_circuit(..., route="levels")`` instead compiles one such matrix per
depth level of the circuit (:func:`circuit_level_matrices`), all sharing one
expansion E: L = Δ·(4·log E + Beneš layers) + 1.

``narrow=True`` (either route) runs the same factor matrices on d' = D
channels (:func:`~symconv.constructions.butterfly.compile_factors_narrow`):
N' = 2·E·R₀, 2 layers a channel factor, 3 a row factor
(:func:`narrow_matrix_layer_count`).

>>> import numpy as np
>>> from symconv.numeric import run
>>> M = np.array([[1., 2., 0., 0.], [0., 1., 0., 0.], [0., 0., 0., 3.], [4., 0., 0., 1.]])
>>> u = np.array([[1., 2.], [3., 4.]])
>>> run(compile_matrix(M, 2, 2), u).round(6).tolist()
[[5.0, 2.0], [12.0, 8.0]]
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np
import sympy

from ..exact import keep_exact
from ..model import HypothesisError, Stack
from .benes import benes_switches, switch_factor, weighted_permutations, weighted_permutations_sparse
from .butterfly import ButterflyFactorMatrix, compile_factors, compile_factors_narrow, log2, narrow_layer_count


def next_pow2(v: int) -> int:
    """Smallest power of two >= v (>= 1).

    >>> next_pow2(5), next_pow2(8), next_pow2(1)
    (8, 8, 1)
    """
    return 1 << max(0, int(v - 1).bit_length())


# ---------------------------------------------------------------- compile_matrix

def _check_matrix(M: Any, n: int, d: int) -> np.ndarray:
    for pname, v in (("n", n), ("d", d)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
            raise HypothesisError(f"{pname}: must be a positive integer, got {v!r}")
    if isinstance(M, sympy.MatrixBase):
        M = np.array(M.tolist(), dtype=object)
    M = np.asarray(M)
    if M.dtype.kind in "USV" or (M.dtype == object and any(isinstance(v, str) for v in M.flat)):
        raise HypothesisError("M: strings are not matrix entries (never parsed)")
    if M.dtype.kind not in "biufO":
        raise HypothesisError(f"M: entries must be real numbers or sympy expressions, got dtype {M.dtype}")
    if M.shape != (n * d, n * d):
        raise HypothesisError(
            f"M: shape {M.shape} but x is the row-major form of an {n}×{d} input (need {(n * d, n * d)})"
        )
    if M.dtype == object:
        M = M.copy()
        for idx, v in np.ndenumerate(M):
            if isinstance(v, Fraction):
                M[idx] = sympy.Rational(v.numerator, v.denominator)
            elif isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, float, np.floating, sympy.Basic)):
                raise HypothesisError(f"M[{idx[0]},{idx[1]}]: {v!r} is not a number or sympy expression")
    return M


@dataclass(frozen=True)
class MatrixPlan:
    """The sizes of :func:`compile_matrix` for one matrix: grid, colours, expansion, layers."""

    n: int
    d: int
    R0: int       # grid rows (power of two >= n)
    D: int        # grid width (power of two >= d)
    colours: int  # C: weighted permutations in the split
    E: int        # expansion: slots (power of two >= C)
    L: int        # layers
    N_int: int    # N' = E·R0
    d_int: int    # d' = 3D


def matrix_layer_count(R0: int, D: int, E: int) -> int:
    """Layers of :func:`compile_matrix` on an R₀×D grid with expansion E (see the module docstring).

    >>> matrix_layer_count(2, 2, 1)
    6
    """
    P = R0 * D
    ks = [P >> t for t in range(log2(P))] + [P >> t for t in range(log2(P) - 2, -1, -1)]
    benes = sum(1 if k // 2 < D else 2 for k in ks)
    return 4 * log2(E) + benes + 1


def route_block_sizes(R0: int, D: int, E: int) -> list[int]:
    """Block sizes k of the factor matrices of one matrix on an R₀×D grid with expansion E, acting order.

    log E fan-out factors, the 2·log P − 1 Beneš stages (P = R₀·D), log E fan-in factors.

    >>> route_block_sizes(2, 1, 2)
    [4, 2, 4]
    """
    P = R0 * D
    fan = [P << t for t in range(1, log2(E) + 1)]
    benes = [P >> t for t in range(log2(P))] + [P >> t for t in range(log2(P) - 2, -1, -1)]
    return fan + benes + fan


def narrow_matrix_layer_count(R0: int, D: int, E: int, levels: int = 1) -> int:
    """Layers of the d' = D route for ``levels`` matrices in a row (each R₀×D grid, expansion E).

    >>> narrow_matrix_layer_count(2, 2, 1), narrow_matrix_layer_count(2, 2, 1, levels=3)
    (8, 24)
    """
    return narrow_layer_count(route_block_sizes(R0, D, E) * max(1, levels), D)


def plan_matrix(M: Any, n: int, d: int, narrow: bool = False) -> MatrixPlan:
    """The sizes :func:`compile_matrix` will use for M, without building layers.

    C is the most non-zeros in one row or column (König: that many colours suffice).

    >>> plan_matrix(np.eye(6), 3, 2).L
    10
    """
    M = _check_matrix(M, n, d)
    R0, D = _grid(n, d)
    nz = np.vectorize(lambda v: v != 0, otypes=[bool])(M) if M.dtype == object else M != 0
    C = max(1, int(nz.sum(axis=0).max()), int(nz.sum(axis=1).max()))
    E = next_pow2(C)
    if narrow:
        return MatrixPlan(n, d, R0, D, C, E, narrow_matrix_layer_count(R0, D, E), 2 * E * R0, D)
    return MatrixPlan(n, d, R0, D, C, E, matrix_layer_count(R0, D, E), E * R0, 3 * D)


def _degree(A: dict, P: int) -> int:
    rows, cols = [0] * P, [0] * P
    for (r, c), v in A.items():
        if v != 0:
            rows[r] += 1
            cols[c] += 1
    return max(1, max(rows), max(cols))


def _grid(n: int, d: int) -> tuple[int, int]:
    R0, D = next_pow2(n), next_pow2(d)
    if R0 * D < 2:
        R0 = 2
    return R0, D


def _embed(M: np.ndarray, n: int, d: int, R0: int, D: int) -> np.ndarray:
    P = R0 * D
    Mp = np.zeros((P, P), dtype=M.dtype)
    if Mp.dtype == object:
        Mp[...] = 0
    idx = (np.arange(n)[:, None] * D + np.arange(d)[None, :]).ravel()
    Mp[np.ix_(idx, idx)] = M
    return Mp


def _dtype(M: np.ndarray) -> Any:
    if M.dtype == object:
        return object
    return np.int64 if M.dtype.kind in "biu" else np.float64


def _split(Mp: np.ndarray, dtype: Any) -> list:
    """Weighted permutations of Mp (one zero-weight identity when Mp = 0)."""
    parts = weighted_permutations(Mp)
    if not parts:
        w0 = np.zeros(len(Mp), dtype=dtype)
        if dtype is object:
            w0[...] = 0
        parts = [(np.arange(len(Mp)), w0)]
    return parts


def _split_sparse(A: dict, P: int, dtype: Any) -> list:
    parts = weighted_permutations_sparse(A, P, dtype)
    if not parts:
        w0 = np.zeros(P, dtype=dtype)
        if dtype is object:
            w0[...] = 0
        parts = [(np.arange(P), w0)]
    return parts


def slot_factors(parts: Sequence, P: int, E: int, dtype: Any = np.float64) -> list[ButterflyFactorMatrix]:
    """Factor matrices (size E·P, acting order) for Σ_c diag(w_c)·Π_c with the terms in E slots.

    ``parts`` is a list of (perm, w) with at most E entries: log E fan-out
    factors copy slot 0 into every slot, slot c runs the Beneš network of
    perm_c with its last stage scaled by w_c (unused slots get weight 0), and
    log E fan-in factors add all slots into slot 0 and clear the others.

    >>> fs = slot_factors([(np.array([1, 0]), np.array([2, 3]))], 2, 1, np.int64)
    >>> fs[0].apply(np.array([10, 20])).tolist()
    [40, 30]
    """
    if len(parts) > E:
        raise HypothesisError(f"E: {len(parts)} weighted permutations do not fit in E = {E} slots")
    size = E * P

    def blank(shape):
        a = np.zeros(shape, dtype=dtype)
        if dtype is object:
            a[...] = 0
        return a

    def const_factor(k: int, pattern: tuple) -> ButterflyFactorMatrix:
        D_ = blank((size // k, 4, k // 2))
        for t, v in enumerate(pattern):
            D_[:, t, :] = v
        return ButterflyFactorMatrix(size, k, D_)

    factors: list[ButterflyFactorMatrix] = []
    for t in range(1, log2(E) + 1):           # fan-out: bottom half := top half
        factors.append(const_factor(P << t, (1, 0, 1, 0)))
    routes = [benes_switches(perm) for perm, _ in parts]
    nstages = len(routes[0])
    for st in range(nstages):
        k = routes[0][st][0]
        blocks = []
        for slot in range(E):
            if slot < len(parts):
                Dslot = switch_factor(P, k, routes[slot][st][1]).D.astype(dtype)
                if dtype is object:
                    Dslot = np.vectorize(int, otypes=[object])(Dslot)
                if st == nstages - 1:
                    Dslot = ButterflyFactorMatrix(P, k, Dslot).scale_rows(parts[slot][1]).D
            else:  # unused slot: weight 0
                Dslot = blank((P // k, 4, k // 2))
            blocks.append(Dslot)
        factors.append(ButterflyFactorMatrix(size, k, np.concatenate(blocks, axis=0)))
    for t in range(1, log2(E) + 1):           # fan-in: top half += bottom half, bottom := 0
        factors.append(const_factor(P << t, (1, 1, 0, 0)))
    return factors


def matrix_factors(M: Any, n: int, d: int) -> tuple[list[ButterflyFactorMatrix], MatrixPlan]:
    """The butterfly factor matrices (acting order, size E·P) of the route, and its plan.

    Their product, restricted to slot 0 of the embedded vector, is M.

    >>> fs, plan = matrix_factors(np.array([[0, 2], [3, 0]]), 2, 1)
    >>> len(fs), fs[0].apply(np.array([10, 20])).tolist()
    (1, [40, 30])
    """
    M = _check_matrix(M, n, d)
    R0, D = _grid(n, d)
    P = R0 * D
    dtype = _dtype(M)
    parts = _split(_embed(M, n, d, R0, D), dtype)
    C = len(parts)
    E = next_pow2(C)
    factors = slot_factors(parts, P, E, dtype)
    plan = MatrixPlan(n, d, R0, D, C, E, matrix_layer_count(R0, D, E), E * R0, 3 * D)
    return factors, plan


def _narrow_stack(factors: list, plan: MatrixPlan, n: int, d: int, N_int: Any, name: str) -> Stack:
    if N_int is not None and N_int != 2 * plan.E * plan.R0:
        raise HypothesisError(f"N_int: the d' = D route uses exactly N' = 2·E·R₀ = {2 * plan.E * plan.R0} rows, "
                              f"got {N_int!r}")
    return compile_factors_narrow(factors, n, d, D=plan.D, name=name + ", d' = D")


def compile_matrix_narrow(M: Any, n: int, d: int) -> Stack:
    """:func:`compile_matrix` on d' = D channels: N' = 2·E·R₀, :func:`narrow_matrix_layer_count` layers.

    >>> compile_matrix_narrow(np.eye(4), 2, 2).signature
    Signature(N=2, L=8, d=2, N_int=4, d_int=2)
    """
    factors, plan = matrix_factors(M, n, d)
    return _narrow_stack(factors, plan, n, d, None, f"compile_matrix({n * d}×{n * d}, C={plan.colours})")


def compile_matrix(M: Any, n: int, d: int, N_int: int | None = None) -> Stack:
    """A BaseConv stack computing y = M·x, x and y the row-major forms of the n×d input and output.

    M is (n·d)×(n·d) with numeric or sympy entries; n, d need not be powers of
    two.  The stack has N = n, d = d, N' = max(N_int, E·R₀) and d' = 3·D with
    R₀ = 2^⌈log n⌉, D = 2^⌈log d⌉ and E = 2^⌈log C⌉, C the most non-zeros of M
    in one row or column.  It uses circular convolutions (shifting up needs
    them).  Layers: :func:`matrix_layer_count`, O(log C + log(nd)).  The first
    layer reads only the n×d input block (other entries of the state are
    ignored); the final state is y in the top-left n×d block and zero
    everywhere else.  To run it after another stack (Lemma H.11), pass that
    stack's N' as ``N_int`` and widen it with :func:`widen_channels`.

    >>> s = compile_matrix(np.eye(4), 2, 2)
    >>> s.signature
    Signature(N=2, L=6, d=2, N_int=2, d_int=6)
    """
    factors, plan = matrix_factors(M, n, d)
    if N_int is not None and (not isinstance(N_int, (int, np.integer)) or N_int < plan.N_int):
        raise HypothesisError(f"N_int: N' = {N_int!r} is below the {plan.N_int} rows this matrix needs")
    return compile_factors(factors, n, d, N_int=N_int or plan.N_int, D=plan.D,
                           name=f"compile_matrix({n * d}×{n * d}, C={plan.colours})")


def widen_channels(stack: Stack, d_int: int) -> Stack:
    """The same stack on d_int >= d' channels: the new channels stay 0 (for composing with compile_matrix).

    Parameters get zero columns (W also zero rows); broadcast biases are
    written out for the old channels first, so each new channel computes
    (0 + 0) ⊙ (0 + 0) = 0 and the old ones are unchanged.

    >>> from symconv.constructions.primitives import identity
    >>> widen_channels(identity(4, 1), 6).signature
    Signature(N=4, L=1, d=1, N_int=4, d_int=6)
    """
    from ..model import Layer
    old = stack.d_int
    if not isinstance(d_int, (int, np.integer)) or d_int < old:
        raise HypothesisError(f"d_int: cannot widen {old} channels to {d_int!r}")

    def pad(a, rows_too=False):
        a = np.asarray(a)
        if a.shape[1] == 1 and old > 1:
            a = np.repeat(a, old, axis=1)
        out = np.zeros((d_int if rows_too else a.shape[0], d_int), dtype=a.dtype)
        if out.dtype == object:
            out[...] = 0
        out[:a.shape[0], :a.shape[1]] = a
        return out

    layers = tuple(Layer(W=pad(l.W, True), h=pad(l.h), b1=pad(l.b1), b2=pad(l.b2), conv=l.conv, label=l.label)
                   for l in stack.layers)
    return Stack(stack.N, stack.d, layers, stack.N_int, d_int, name=stack.name)


# ---------------------------------------------------------------- circuits (Def. H.13)

def _constant(v: Any, where: str) -> Any:
    if isinstance(v, (bool, np.bool_)) or isinstance(v, str):
        raise HypothesisError(f"{where}: {v!r} is not a constant (numbers or sympy expressions; strings are never parsed)")
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    if isinstance(v, sympy.Basic):
        return v
    raise HypothesisError(f"{where}: {v!r} is not a constant")


@dataclass(frozen=True)
class Gate:
    """A gate defining wire ``wire``: a·x + b·y (``op="linear"``) or x·y (``op="mul"``, not linear).

    ``y`` may be None for a·x.

    >>> Gate(2, 1, 0, -1, 1)
    Gate(wire=2, a=1, x=0, b=-1, y=1, op='linear')
    """

    wire: int
    a: Any
    x: int
    b: Any = 0
    y: int | None = None
    op: str = "linear"


@dataclass(frozen=True)
class LinearCircuit:
    """A linear arithmetic circuit (Def. H.13): inputs 0..n−1, linear gates, output wires.

    >>> c = LinearCircuit(2, (Gate(2, 1, 0, 1, 1), Gate(3, 1, 0, -1, 1)), (2, 3))
    >>> c.evaluate(np.array([5, 3])).tolist(), c.sizes
    ([8, 2], (2, 2, 1, 2))
    """

    n_inputs: int
    gates: tuple
    outputs: tuple

    def __post_init__(self) -> None:
        n = self.n_inputs
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise HypothesisError(f"n_inputs: must be a positive integer, got {n!r}")
        gates = tuple(self.gates)
        defined = set(range(n))
        by_wire = {}
        for g in gates:
            if not isinstance(g, Gate):
                raise HypothesisError(f"gates: expected Gate records, got {type(g).__name__}")
            if g.op != "linear":
                raise HypothesisError(
                    f"gates: gate {g.wire} is {g.op!r}, not linear; Def. H.13 allows only a·x + b·y "
                    "with fixed constants a, b")
            if g.wire in defined or g.wire in by_wire:
                raise HypothesisError(f"gates: wire {g.wire} is defined twice (inputs are 0..{n - 1})")
            by_wire[g.wire] = Gate(g.wire, _constant(g.a, f"gate {g.wire}.a"), g.x,
                                   _constant(g.b, f"gate {g.wire}.b"), g.y, g.op)
        wires = defined | set(by_wire)
        for g in by_wire.values():
            for arg in (g.x,) + ((g.y,) if g.y is not None else ()):
                if arg not in wires:
                    raise HypothesisError(f"gates: gate {g.wire} reads wire {arg}, which nothing defines")
        order, level, state = [], {w: 0 for w in range(n)}, {}
        for start in by_wire:
            stack = [(start, False)]
            while stack:
                w, done = stack.pop()
                if w in level and not done:
                    continue
                if done:
                    g = by_wire[w]
                    level[w] = 1 + max(level[a] for a in (g.x, g.y) if a is not None)
                    state[w] = 2
                    order.append(g)
                    continue
                if state.get(w) == 1:
                    raise HypothesisError(f"gates: the circuit has a cycle through wire {w} (Def. H.13 needs a DAG)")
                state[w] = 1
                stack.append((w, True))
                g = by_wire[w]
                for a in (g.x, g.y):
                    if a is None or a in level:
                        continue
                    if state.get(a) == 1:
                        raise HypothesisError(f"gates: the circuit has a cycle through wires {a} and {w}")
                    stack.append((a, False))
        outs = tuple(self.outputs)
        for o in outs:
            if o not in wires:
                raise HypothesisError(f"outputs: wire {o} is not defined")
        object.__setattr__(self, "gates", tuple(order))
        object.__setattr__(self, "outputs", outs)
        object.__setattr__(self, "_level", level)

    @property
    def s(self) -> int:
        """Size: the number of gates."""
        return len(self.gates)

    @property
    def depth(self) -> int:
        """Δ: the longest path of gates from an input to any wire."""
        return max(self._level.values())

    @property
    def width(self) -> int:
        """w: the most gates at one depth level (n when there are no gates)."""
        if not self.gates:
            return self.n_inputs
        counts: dict = {}
        for g in self.gates:
            counts[self._level[g.wire]] = counts.get(self._level[g.wire], 0) + 1
        return max(counts.values())

    @property
    def sizes(self) -> tuple:
        """(n, s, Δ, w)."""
        return (self.n_inputs, self.s, self.depth, self.width)

    def evaluate(self, x: Any) -> Any:
        """Run the circuit on x (last axis of length n); returns the outputs on the last axis."""
        x = keep_exact(x)
        if x.shape[-1] != self.n_inputs:
            raise HypothesisError(f"x: last axis {x.shape[-1]} but the circuit has {self.n_inputs} inputs")
        val = {w: x[..., w] for w in range(self.n_inputs)}
        for g in self.gates:
            v = g.a * val[g.x]
            if g.y is not None:
                v = v + g.b * val[g.y]
            val[g.wire] = v
        return np.stack([keep_exact(val[o]) for o in self.outputs], axis=-1)

    def matrix(self) -> np.ndarray:
        """The matrix M with circuit(x) = M·x: object entries when every constant is exact, else floats."""
        exact = all(not isinstance(v, float) for g in self.gates for v in (g.a, g.b))
        I = np.eye(self.n_inputs, dtype=np.int64).astype(object) if exact else np.eye(self.n_inputs)
        return self.evaluate(I).T


ROUTES = ("matrix", "levels")


def circuit_level_matrices(circuit: "LinearCircuit", n: int, d: int) -> tuple[list[dict], int, int]:
    """One sparse P×P matrix {(row, col): value} per depth level, for the ``levels`` route; (mats, P, D).

    Between levels the live wires (computed, and read by a later level or an
    output) sit at positions 0, 1, … of the vector; the inputs start at their
    grid positions i·D + j and the outputs end there.  Level ℓ's matrix maps
    the positions before it to those after it: a gate's row holds a and b, a
    wire passed through holds a 1.  The product of the matrices (last first),
    restricted to the grid, is the circuit's matrix.

    >>> mats, P, D = circuit_level_matrices(LinearCircuit(2, (Gate(2, 1, 0, 1, 1),), (2, 1)), 2, 1)
    >>> len(mats), P, mats[0]
    (1, 2, {(0, 0): 1, (0, 1): 1, (1, 1): 1})
    """
    N = n * d
    R0, D = _grid(n, d)
    q = lambda p: (p // d) * D + p % d
    lv = circuit._level
    depth = circuit.depth
    gate_of = {g.wire: g for g in circuit.gates}
    last = {}
    for g in circuit.gates:
        for a in (g.x, g.y):
            if a is not None:
                last[a] = max(last.get(a, 0), lv[g.wire])
    for o in circuit.outputs:
        last[o] = depth + 1
    bounds = [{w: [q(w)] for w in range(N)}]
    for l in range(1, depth):
        live = sorted(w for w in lv if lv[w] <= l and last.get(w, 0) > l)
        bounds.append({w: [i] for i, w in enumerate(live)})
    final: dict = {}
    for o, w in enumerate(circuit.outputs):
        final.setdefault(w, []).append(q(o))
    bounds.append(final)
    P = next_pow2(max([R0 * D] + [len(b) for b in bounds]))
    mats = []
    for l in range(1, max(depth, 1) + 1):
        prev, nxt = bounds[l - 1], bounds[l]
        A: dict = {}
        for w, rows in nxt.items():
            for r in rows:
                if depth and lv[w] == l:
                    g = gate_of[w]
                    A[r, prev[g.x][0]] = A.get((r, prev[g.x][0]), 0) + g.a
                    if g.y is not None:
                        A[r, prev[g.y][0]] = A.get((r, prev[g.y][0]), 0) + g.b
                else:
                    A[r, prev[w][0]] = A.get((r, prev[w][0]), 0) + 1
        mats.append(A)
    return mats, P, D


def _check_circuit(circuit: Any, n: int, d: int, route: str) -> None:
    if route not in ROUTES:
        raise HypothesisError(f"route: expected one of {ROUTES}, got {route!r}")
    if not isinstance(circuit, LinearCircuit):
        raise HypothesisError(f"circuit: expected a LinearCircuit, got {type(circuit).__name__}")
    if circuit.n_inputs != n * d or len(circuit.outputs) != n * d:
        raise HypothesisError(
            f"circuit: has {circuit.n_inputs} inputs and {len(circuit.outputs)} outputs; "
            f"an {n}×{d} input needs {n * d} of each"
        )


def circuit_factors(circuit: "LinearCircuit", n: int, d: int, route: str = "matrix") -> tuple[list, MatrixPlan]:
    """The factor matrices (acting order) and plan of :func:`compile_circuit` for either route.

    >>> fs, plan = circuit_factors(LinearCircuit(2, (Gate(2, 1, 0, 1, 1),), (2, 1)), 2, 1, "levels")
    >>> plan.colours, len(fs)
    (2, 3)
    """
    _check_circuit(circuit, n, d, route)
    if route == "matrix" or circuit.depth == 0:
        return matrix_factors(circuit.matrix(), n, d)
    mats, P, D = circuit_level_matrices(circuit, n, d)
    exact = all(not isinstance(v, float) for g in circuit.gates for v in (g.a, g.b))
    dtype = object if exact else np.float64
    splits = [_split_sparse(A, P, dtype) for A in mats]
    C = max(len(p) for p in splits)
    E = next_pow2(C)
    factors = [f for parts in splits for f in slot_factors(parts, P, E, dtype)]
    R = P // D
    L = len(mats) * (matrix_layer_count(R, D, E) - 1) + 1
    return factors, MatrixPlan(n, d, R, D, C, E, L, E * R, 3 * D)


def plan_circuit(circuit: "LinearCircuit", n: int, d: int, route: str = "matrix",
                 narrow: bool = False) -> MatrixPlan:
    """The sizes :func:`compile_circuit` uses, from degrees alone (no layers built).

    ``colours`` is the most non-zeros in one row or column of any matrix of the route;
    ``narrow=True`` gives the sizes of the d' = D variant (``compile_circuit(..., narrow=True)``).

    >>> from symconv.constructions.linear_circuit_families import walsh_hadamard_circuit
    >>> plan_circuit(walsh_hadamard_circuit(8), 4, 2, "levels").L
    40
    """
    _check_circuit(circuit, n, d, route)
    if route == "matrix" or circuit.depth == 0:
        return plan_matrix(circuit.matrix(), n, d, narrow=narrow)
    mats, P, D = circuit_level_matrices(circuit, n, d)
    C = max(_degree(A, P) for A in mats)
    E = next_pow2(C)
    R = P // D
    if narrow:
        return MatrixPlan(n, d, R, D, C, E, narrow_matrix_layer_count(R, D, E, len(mats)), 2 * E * R, D)
    return MatrixPlan(n, d, R, D, C, E, len(mats) * (matrix_layer_count(R, D, E) - 1) + 1, E * R, 3 * D)


def compile_circuit(circuit: LinearCircuit, n: int, d: int, N_int: int | None = None,
                    route: str = "matrix", narrow: bool = False) -> Stack:
    """Corollary H.20: the circuit's map on x (row-major form of u ∈ R^{n×d}) as a BaseConv stack.

    The circuit needs n·d inputs and n·d outputs.  ``route="matrix"`` compiles
    its matrix (:func:`compile_matrix`: L independent of the depth Δ, N' grows
    with the densest row or column); ``route="levels"`` compiles one matrix per
    depth level on a vector holding the live wires (P = 2^⌈log max(nd, live)⌉
    positions) with a shared expansion E (the most colours of any level):
    L = Δ·(4·log E + Beneš layers) + 1, N' = E·P/D, d' = 3D.  ``narrow=True``:
    the same factors on d' = D channels and N' = 2·E·P/D rows (``N_int``, if
    given, must be that), :func:`narrow_matrix_layer_count` layers.

    >>> c = LinearCircuit(2, (Gate(2, 1, 0, 1, 1),), (2, 1))
    >>> compile_circuit(c, 1, 2).L, compile_circuit(c, 1, 2, route="levels").L
    (6, 6)
    """
    factors, plan = circuit_factors(circuit, n, d, route)
    if narrow:
        return _narrow_stack(factors, plan, n, d, N_int, f"compile_circuit({route}, C={plan.colours})")
    if N_int is not None and (not isinstance(N_int, (int, np.integer)) or N_int < plan.N_int):
        raise HypothesisError(f"N_int: N' = {N_int!r} is below the {plan.N_int} rows this circuit needs")
    return compile_factors(factors, n, d, N_int=N_int or plan.N_int, D=plan.D,
                           name=f"compile_circuit({route}, C={plan.colours})")
