"""Exact interpreter: polynomial products and coefficient extraction.

Every entry of a sequence is an element of a sparse polynomial ring
QQ[symbols] (``sympy.polys.rings``); column j of a sequence is the polynomial
u_j(X) = Σ_i u[i, j] X^i, stored as its coefficient list.  A causal
convolution keeps the coefficients of h_j(X)·u_j(X) below X^N'; a circular one
folds exponent i onto i mod N' (the product mod X^N' − 1).  W acts row by row;
every operation is exact.

Example:
    >>> from symconv.blocks import sym, zeros
    >>> from symconv.constructions.shifts import shift_down
    >>> out = evaluate(shift_down(3, 1, 1), sym("y", 3, 1))
    >>> out.entries[:, 0].tolist()
    [0, y[0,0], y[1,0]]
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Sequence

import numpy as np
import sympy
from sympy import QQ
from sympy.polys.rings import PolyElement, PolyRing

from .blocks import Block
from .model import HypothesisError, Layer, Stack


def make_ring(symbols: Iterable[sympy.Symbol]) -> PolyRing:
    """The ring QQ[symbols] (symbols sorted by name; at least one generator)."""
    syms = sorted(set(symbols), key=lambda s: s.name)
    if not syms:
        syms = [sympy.Symbol("_unused")]
    return PolyRing(syms, QQ)


def stack_symbols(stack: Stack) -> set:
    """Free symbols appearing in any parameter of the stack."""
    out: set = set()
    for layer in stack.layers:
        for name in ("W", "h", "b1", "b2"):
            a = getattr(layer, name)
            if a.dtype == object:
                for v in a.flat:
                    out |= getattr(v, "free_symbols", set())
    return out


_GEN_MAPS: dict = {}


def _gen_map(R: PolyRing) -> dict:
    m = _GEN_MAPS.get(R)
    if m is None:
        m = _GEN_MAPS[R] = dict(zip(R.symbols, R.gens))
    return m


def to_ring(R: PolyRing, v: Any) -> PolyElement:
    """Convert a number or sympy expression to an element of R, exactly."""
    if isinstance(v, PolyElement):
        return v
    if isinstance(v, sympy.Symbol):
        gen = _gen_map(R).get(v)
        if gen is not None:
            return gen
    if isinstance(v, sympy.Rational):
        return R.ground_new(QQ(int(v.p), int(v.q)))
    if isinstance(v, (bool, np.bool_)):
        raise HypothesisError(f"parameter: booleans are not numbers ({v!r})")
    if isinstance(v, (int, np.integer)):
        return R.ground_new(QQ(int(v)))
    if isinstance(v, Fraction):
        return R.ground_new(QQ(v.numerator, v.denominator))
    if isinstance(v, (float, np.floating)):
        f = Fraction(float(v))
        return R.ground_new(QQ(f.numerator, f.denominator))
    if isinstance(v, sympy.Basic):
        return _expr_to_ring(R, v, _gen_map(R))
    raise HypothesisError(f"parameter: cannot use {type(v).__name__} {v!r} as a number")


def _expr_to_ring(R: PolyRing, e: sympy.Basic, gens: dict) -> PolyElement:
    """A sympy polynomial expression (Add/Mul/Pow of symbols and rationals) as a ring element."""
    if e.is_Symbol:
        if e in gens:
            return gens[e]
        raise HypothesisError(f"parameter: symbol {e} is not one of the ring's symbols")
    if e.is_Rational:
        return R.ground_new(QQ(int(e.p), int(e.q)))
    if e.is_Add:
        out = R.zero
        for a in e.args:
            out = out + _expr_to_ring(R, a, gens)
        return out
    if e.is_Mul:
        out = R.one
        for a in e.args:
            out = out * _expr_to_ring(R, a, gens)
        return out
    if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
        return _expr_to_ring(R, e.base, gens) ** int(e.exp)
    raise HypothesisError(f"parameter: {e} is not a polynomial with rational coefficients")


@dataclass(frozen=True, eq=False)
class ExactSeq:
    """A sequence with entries in a polynomial ring: ``cols[j][i]`` = u[i, j]."""

    ring: PolyRing
    cols: tuple

    @property
    def N(self) -> int:
        return len(self.cols[0]) if self.cols else 0

    @property
    def d(self) -> int:
        return len(self.cols)

    @classmethod
    def from_block(cls, R: PolyRing, block: Block) -> "ExactSeq":
        n, d = block.shape
        cols = tuple(tuple(to_ring(R, block.entries[i, j]) for i in range(n)) for j in range(d))
        return cls(R, cols)

    def to_block(self, name: str = "") -> Block:
        a = np.empty((self.N, self.d), dtype=object)
        for j, col in enumerate(self.cols):
            for i, v in enumerate(col):
                a[i, j] = v.as_expr()
        return Block(a, name)

    def pad(self, N_int: int, d_int: int) -> "ExactSeq":
        """Zero-pad into the top-left corner of an N'×d' state."""
        zero = self.ring.zero
        cols = [tuple(c) + (zero,) * (N_int - self.N) for c in self.cols]
        cols += [(zero,) * N_int] * (d_int - self.d)
        return ExactSeq(self.ring, tuple(cols))

    def top_left(self, N: int, d: int) -> "ExactSeq":
        """The top-left N×d block (the model's read-out)."""
        return ExactSeq(self.ring, tuple(tuple(c[:N]) for c in self.cols[:d]))

    def first_difference(self, other: "ExactSeq") -> tuple[int, int] | None:
        """(row, channel) of the first entry that differs, scanning rows first."""
        for i in range(self.N):
            for j in range(self.d):
                if self.cols[j][i] != other.cols[j][i]:
                    return (i, j)
        return None


def _param_cols(R: PolyRing, a: np.ndarray, rows: int, d: int) -> list[list[PolyElement]]:
    """Columns of a (possibly broadcast) parameter as ring elements, ``rows`` long."""
    cache: dict = {}

    def conv(v: Any) -> PolyElement:
        key = (type(v), v)
        try:
            return cache[key]
        except (KeyError, TypeError):
            pass
        r = to_ring(R, v)
        try:
            cache[key] = r
        except TypeError:
            pass
        return r

    out = []
    for j in range(d):
        jj = j if a.shape[1] > 1 else 0
        if a.shape[0] == 1:
            out.append([conv(a[0, jj])] * rows)
        else:
            out.append([conv(a[i, jj]) for i in range(a.shape[0])])
    return out


def scale(c: PolyElement, v: PolyElement) -> PolyElement:
    """c·v, with a fast path when c is a constant (the common case for filters and masks)."""
    if c.is_ground:
        k = c.LC if c else 0
        if k == 1:
            return v
        return v.mul_ground(k) if k else c.ring.zero
    return c * v


def convolve(h: Sequence[PolyElement], u: Sequence[PolyElement], N: int, mode: str, R: PolyRing) -> list:
    """Coefficients 0..N−1 of h(X)·u(X) mod X^N (causal) or mod X^N − 1 (circular).

    >>> from sympy import QQ
    >>> from sympy.polys.rings import ring
    >>> R, a, b = ring("a,b", QQ)
    >>> convolve([R(0), R(1)], [a, b, R(0)], 3, "circular", R)
    [0, a, b]
    """
    out = [R.zero] * N
    taps = [(k, c) for k, c in enumerate(h) if c]
    vals = [(i, v) for i, v in enumerate(u) if v]
    for k, c in taps:
        for i, v in vals:
            pos = i + k
            if pos >= N:
                if mode == "causal":
                    break
                pos %= N
            out[pos] = out[pos] + scale(c, v)
    return out


def apply_layer(layer: Layer, state: ExactSeq) -> ExactSeq:
    """One BaseConv layer on an exact N'×d' state."""
    R = state.ring
    N, d = state.N, state.d
    W = _param_cols(R, layer.W, d, d)  # W[j][k] = W[k, j]
    h = _param_cols(R, layer.h, layer.h.shape[0], d)
    b1 = _param_cols(R, layer.b1, N, d)
    b2 = _param_cols(R, layer.b2, N, d)
    cols = []
    for j in range(d):
        conv = convolve(h[j], state.cols[j], N, layer.conv, R)
        wj = [(k, w) for k, w in enumerate(W[j]) if w]
        col = []
        for i in range(N):
            second = conv[i] + b2[j][i]
            if not second:
                col.append(R.zero)
                continue
            gate = b1[j][i]
            for k, w in wj:
                gate = gate + state.cols[k][i] * w
            col.append(scale(gate, second))
        cols.append(tuple(col))
    return ExactSeq(R, tuple(cols))


def run_state(stack: Stack, state: ExactSeq, start: int = 0, stop: int | None = None) -> ExactSeq:
    """Apply layers ``start..stop−1`` to an internal N'×d' state."""
    if (state.N, state.d) != (stack.N_int, stack.d_int):
        raise HypothesisError(
            f"state: shape {(state.N, state.d)} is not the internal shape "
            f"(N', d') = {(stack.N_int, stack.d_int)}"
        )
    for layer in stack.layers[start:stop]:
        state = apply_layer(layer, state)
    return state


def check_input(stack: Stack, u: Block) -> None:
    if u.shape != (stack.N, stack.d):
        raise HypothesisError(
            f"u: input has shape {u.shape} but the stack takes N×d = {(stack.N, stack.d)}"
        )


def evaluate(stack: Stack, u: Block, ring: PolyRing | None = None) -> Block:
    """The stack's N×d output on a symbolic input block, as a Block of sympy expressions."""
    check_input(stack, u)
    R = ring or make_ring(u.free_symbols() | stack_symbols(stack))
    state = ExactSeq.from_block(R, u).pad(stack.N_int, stack.d_int)
    out = run_state(stack, state).top_left(stack.N, stack.d)
    return out.to_block(f"{stack.name or 'stack'}({u.name})")
