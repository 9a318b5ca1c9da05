"""Degree certificates: how many layers with W ≠ 0 a target of degree k needs.

With its parameters fixed, a layer ``(z·W + b1) ⊙ (h * z + b2)`` with W = 0 is
affine in its state, so it keeps the degree in the input u; a layer with W ≠ 0
multiplies two affine images of the state, so it at most doubles it.  The input
has degree 1, so a stack with G layers with W ≠ 0 has degree ≤ 2^G, and a target
of degree k needs G ≥ ⌈log₂ k⌉ such layers (so L ≥ ⌈log₂ k⌉); a route of W = 0
layers only is affine and cannot multiply two inputs.  Symbolic parameters are
fine: the bound holds for every value they take.

The target's degree is found exactly, without expanding: its entries are
evaluated over F_p on a random line u = a + t·b (other symbols, such as γ,
random too) at D + 1 values of t, D an upper bound on the degree read off the
expression tree, and interpolated.  The degree found along the line is a proved
lower bound on the degree (a non-zero coefficient of t^k mod p is a non-zero
rational coefficient), and equals it unless the line is unlucky (probability
≤ D/p); the certificate records the bound it proved, and the tree bound.

>>> from symconv.blocks import sym
>>> x = sym("x", 3)
>>> c = DegreeCertificate.of(x, x * x * x)
>>> c.degree, c.lower, c.check().proves
(3, 2, 'the target has degree ≥ 3 in the input (on a random line over F_p, p = 2013265921, seed 0, any other symbols at random values); a layer with W = 0 keeps the degree, one with W ≠ 0 at most doubles it: at least 2 layers with W ≠ 0')
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from ..blocks import Block
from ..exact import PRIME, check_prime, stack_degree
from ..model import HypothesisError, Stack
from .base import CertificateError, log2_ceil

MAX_DEGREE = 4096


def tree_degree(e, gens: set) -> int:
    """An upper bound on the degree of ``e`` in ``gens`` read off the expression tree (-1 for 0)."""
    memo: dict = {}

    def go(x) -> int:
        if x in memo:
            return memo[x]
        if x.is_Number:
            r = -1 if x == 0 else 0
        elif x.is_Symbol:
            r = 1 if x in gens else 0
        elif x.is_Add:
            r = max(go(a) for a in x.args)
        elif x.is_Mul:
            ds = [go(a) for a in x.args]
            r = -1 if min(ds) < 0 else sum(ds)
        elif x.is_Pow and x.exp.is_Integer and x.exp >= 0:
            b = go(x.base)
            r = b * int(x.exp) if b >= 0 else (0 if x.exp == 0 else -1)
        elif not (x.free_symbols & gens):
            r = 0
        else:
            raise HypothesisError(f"degree: {type(x).__name__} {str(x)[:60]} is not a polynomial in the input")
        memo[x] = r
        return r
    return go(sympy.sympify(e, strict=True) if not isinstance(e, sympy.Basic) else e)


def eval_mod(e, values: dict, p: int, shape: tuple):
    """``e`` evaluated over F_p with each symbol's values (int64 arrays of ``shape``); no eval of text."""
    memo: dict = {}

    def go(x):
        if x in memo:
            return memo[x]
        if x.is_Integer:
            r = np.full(shape, int(x) % p, dtype=np.int64)
        elif x.is_Rational:
            r = np.full(shape, int(x.p) * pow(int(x.q), -1, p) % p, dtype=np.int64)
        elif x.is_Symbol:
            if x not in values:
                raise HypothesisError(f"degree: no value for symbol {x}")
            r = values[x]
        elif x.is_Add:
            r = np.zeros(shape, dtype=np.int64)
            for a in x.args:
                r = (r + go(a)) % p
        elif x.is_Mul:
            r = np.ones(shape, dtype=np.int64)
            for a in x.args:
                r = r * go(a) % p
        elif x.is_Pow and x.exp.is_Integer and x.exp >= 0:
            b, k, r = go(x.base), int(x.exp), np.ones(shape, dtype=np.int64)
            while k:
                if k & 1:
                    r = r * b % p
                b, k = b * b % p, k >> 1
        else:
            raise HypothesisError(f"degree: cannot evaluate {type(x).__name__} {str(x)[:60]} over F_p")
        memo[x] = r
        return r
    if not isinstance(e, sympy.Basic):
        e = sympy.Integer(e) if isinstance(e, (int, np.integer)) else sympy.Rational(e)
    return go(e)


def _interp_degree(vals: np.ndarray, p: int) -> int:
    """Degree of the polynomial through (t, vals[t]) for t = 0..D over F_p (-1 if zero), by differences."""
    D = len(vals) - 1
    # Newton forward differences: the polynomial has degree k iff Δ^k ≠ 0 and Δ^j = 0 for j > k
    diffs = [int(vals[0])]
    row = vals.astype(np.int64) % p
    for _ in range(D):
        row = (row[1:] - row[:-1]) % p
        diffs.append(int(row[0]))
    nz = [k for k, v in enumerate(diffs) if v]
    return max(nz) if nz else -1


def line_degree(inp: Block, expected: Block, p: int = PRIME, seed: int = 0) -> tuple[int, int]:
    """(degree along a random line, tree upper bound) of the target's entries in the input's symbols."""
    p = check_prime(p)
    gens = set(inp.free_symbols())
    if not gens:
        raise HypothesisError("input: the input block has no symbols")
    ub = max([tree_degree(v, gens) for v in expected.entries.flat] + [-1])
    if ub < 0:
        return -1, -1
    if ub > MAX_DEGREE:
        raise HypothesisError(f"expected: degree bound {ub} exceeds {MAX_DEGREE}; too costly to interpolate")
    rng = np.random.default_rng(seed)
    t = np.arange(ub + 1, dtype=np.int64)
    values = {}
    for s in sorted(expected.free_symbols() | gens, key=str):
        a, b = (int(x) for x in rng.integers(1, p, 2))
        values[s] = (a + b * t) % p if s in gens else np.full(t.shape, a, dtype=np.int64)
    best = -1
    for v in expected.entries.flat:
        if v == 0:
            continue
        best = max(best, _interp_degree(eval_mod(v, values, p, t.shape), p))
    return best, ub


@dataclass(frozen=True, eq=False)
class DegreeCertificate:
    """Layers with W ≠ 0 that a target needs: ⌈log₂ k⌉ for a target of degree ≥ k.

    ``input`` and ``expected``: the target's input block and output polynomials;
    ``degree``: the degree proved (along a random line over F_p, ``seed``),
    ``upper``: the expression tree's bound; ``lower`` = ⌈log₂ degree⌉, a bound
    on the layers with W ≠ 0 and so on L.  ``stack`` (optional): a built stack,
    whose count of layers with W ≠ 0 and degree bound 2^G are reported
    (:attr:`general_layers`, :attr:`stack_bound`) and must not fall below.
    """

    input: Block
    expected: Block
    degree: int
    upper: int
    lower: int
    p: int = PRIME
    seed: int = 0
    stack: Stack | None = None
    quantity: str = "general layers"
    kind: str = "degree"

    @classmethod
    def of(cls, inp: Block, expected: Block, stack: Stack | None = None, p: int = PRIME,
           seed: int = 0) -> "DegreeCertificate":
        deg, ub = line_degree(inp, expected, p, seed)
        return cls(inp, expected, deg, ub, log2_ceil(max(deg, 1)), p, seed, stack)

    @property
    def general_layers(self) -> int | None:
        """Layers of the built stack with W ≠ 0 (None without a stack)."""
        if self.stack is None:
            return None
        return sum(1 for layer in self.stack.layers if np.any(layer.W != 0))

    @property
    def stack_bound(self) -> int | None:
        """The built stack's degree bound, layer by layer (:func:`symconv.exact.stack_degree`)."""
        return None if self.stack is None else stack_degree(self.stack)

    @property
    def proves(self) -> str:
        text = (f"the target has degree ≥ {self.degree} in the input (on a random line over F_p, p = {self.p}, "
                f"seed {self.seed}, any other symbols at random values); a layer with W = 0 keeps the degree, one with W ≠ 0 at most doubles it: "
                f"at least {self.lower} layer{'s' if self.lower != 1 else ''} with W ≠ 0")
        if self.stack is not None:
            text += f"; the built stack has {self.general_layers} (degree ≤ {self.stack_bound})"
        return text

    def check(self) -> "DegreeCertificate":
        deg, ub = line_degree(self.input, self.expected, self.p, self.seed)
        if (deg, ub) != (self.degree, self.upper) or self.lower != log2_ceil(max(deg, 1)):
            raise CertificateError(f"DegreeCertificate: recorded degree {self.degree} (bound {self.upper}, "
                                   f"lower {self.lower}), recomputed degree {deg} (bound {ub})")
        if self.stack is not None and (self.general_layers < self.lower or self.stack_bound < self.degree):
            raise CertificateError(f"DegreeCertificate: the stack has {self.general_layers} layers with W ≠ 0 "
                                   f"(degree ≤ {self.stack_bound}), below what degree {self.degree} needs")
        return self


def stack_line_degree(stack: Stack, p: int = PRIME, seed: int = 0, max_degree: int = 256) -> tuple[int, int]:
    """(degree of the stack's output along a random line over F_p, the layer-by-layer bound).

    The first is a proved lower bound on the output's degree in u (for the
    parameters given, which must be numbers); equal to it unless the line is
    unlucky.  Raises when the bound exceeds ``max_degree`` (too many points).

    >>> from symconv.constructions.sums import add_n
    >>> stack_line_degree(add_n(1, 4))
    (1, 1)
    """
    from ..exact import run_mod

    ub = stack_degree(stack)
    if ub > max_degree:
        raise HypothesisError(f"stack: degree bound {ub} exceeds max_degree = {max_degree}")
    rng = np.random.default_rng(seed)
    a = rng.integers(0, p, (stack.N, stack.d))
    b = rng.integers(0, p, (stack.N, stack.d))
    t = np.arange(ub + 1, dtype=np.int64)
    u = (a[None] + t[:, None, None] * b[None]) % p
    out = run_mod(stack, u, p)
    best = -1
    for idx in np.ndindex(stack.N, stack.d):
        best = max(best, _interp_degree(out[(slice(None),) + idx], p))
    return best, ub
