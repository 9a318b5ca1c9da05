"""Composition certificates: one channel and causal filters cannot reach degree 3 in row 0.

With causal filters, row 0 of ``(z·W + b1) ⊙ (h * z + b2)`` is
``(z₀·W + b1[0]) ⊙ (h[0] ⊙ z₀ + b2[0])``: it reads row 0 of the state and
nothing else.  With one channel (d' = 1) that is a polynomial of degree ≤ 2 in
the scalar z₀, with coefficients fixed by the layer.  So row 0 of a causal
stack with d' = 1, of any depth L and any internal size N', is a composition
f_L ∘ … ∘ f_1 of univariate polynomials of degree ≤ 2 applied to u[0, 0], and
its degree is 0 or a power of two (degrees multiply under composition).  A
target whose row 0, as a polynomial in u[0, 0] alone (every other input entry
0), has degree 3, 5, 6, 7, … is computed by no such stack: it needs a circular
layer or d' ≥ 2.  This bounds no count; it rules out a class of models.

The degree is found exactly: the entry is evaluated over F_p with u[0, 0] = t
for t = 0..D (every other symbol, such as a weight, at a random value), D the
expression tree's upper bound, and interpolated.  The certificate is issued
only when the degree found equals D: then D is the degree for every parameter
value off the hypersurface where its leading coefficient vanishes (a
polynomial that is non-zero at the random point), and D is not a power of two.

>>> from symconv.blocks import sym
>>> u = sym("u", 1)
>>> w = sym("w", 1)
>>> c = CompositionCertificate.of(u, u * (u * w + 1) * (u * w + 2))
>>> c.degree, c.check().lower
(3, 1)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..blocks import Block
from ..exact import PRIME, check_prime
from ..model import HypothesisError, Stack
from .base import CertificateError
from .degree import MAX_DEGREE, _interp_degree, eval_mod, tree_degree


def _power_of_two(k: int) -> bool:
    return k >= 1 and k & (k - 1) == 0


def row0_degree(inp: Block, expected: Block, p: int = PRIME, seed: int = 0) -> tuple[int, int]:
    """(degree over F_p, tree bound) of ``expected[0, 0]`` in ``inp[0, 0]``, every other input entry 0.

    >>> from symconv.blocks import sym
    >>> u = sym("u", 2)
    >>> row0_degree(u, u * u * u)
    (3, 3)
    """
    p = check_prime(p)
    if inp.entries.size == 0 or expected.entries.size == 0:
        raise HypothesisError("input, expected: the target has no entries")
    x = inp.entries[0, 0]
    if not getattr(x, "is_Symbol", False):
        raise HypothesisError(f"input[0, 0]: must be a symbol, got {x!r}")
    zero = {s: 0 for s in inp.free_symbols() if s != x}
    e = expected.entries[0, 0]
    e = e.xreplace(zero) if hasattr(e, "xreplace") else e
    ub = tree_degree(e, {x})
    if ub < 0:
        return -1, -1
    if ub > MAX_DEGREE:
        raise HypothesisError(f"expected[0, 0]: degree bound {ub} exceeds {MAX_DEGREE}; too costly to interpolate")
    rng = np.random.default_rng(seed)
    t = np.arange(ub + 1, dtype=np.int64)
    others = sorted(getattr(e, "free_symbols", set()) - {x}, key=str)
    values = {s: np.full(t.shape, int(rng.integers(1, p)), dtype=np.int64) for s in others}
    values[x] = t
    return _interp_degree(eval_mod(e, values, p, t.shape), p), ub


def _one_channel_causal(stack: Stack) -> bool:
    return stack.d_int == 1 and all(layer.conv == "causal" for layer in stack.layers)


@dataclass(frozen=True, eq=False)
class CompositionCertificate:
    """No causal stack with d' = 1 (any L, any N') computes the target: row 0 has degree ``degree`` in
    u[0, 0], not a power of two, while such stacks reach only 0 or powers of two.

    ``stack`` (optional): a built stack, which must therefore have a circular layer or d' ≥ 2
    (``check`` raises otherwise: the construction and the certificate contradict each other).
    """

    input: Block
    expected: Block
    degree: int
    p: int = PRIME
    seed: int = 0
    stack: Stack | None = None
    quantity: str = "L"
    lower: int = 1
    kind: str = "composition"

    @classmethod
    def of(cls, inp: Block, expected: Block, stack: Stack | None = None, p: int = PRIME,
           seed: int = 0) -> "CompositionCertificate":
        """The certificate, or a HypothesisError when it does not apply (d > 1, a power of two, or an
        inconclusive degree)."""
        if inp.d != 1:
            raise HypothesisError(f"input: d = {inp.d}; the certificate is about d' = 1, so it needs d = 1")
        deg, ub = row0_degree(inp, expected, p, seed)
        if deg != ub:
            raise HypothesisError(f"expected[0, 0]: degree {deg} found at a random point, below the bound {ub}: "
                                  "the degree is not certain there")
        if deg <= 0 or _power_of_two(deg):
            raise HypothesisError(f"expected[0, 0]: degree {deg} in u[0, 0] is 0 or a power of two, "
                                  "which a causal stack with d' = 1 may reach")
        return cls(inp, expected, deg, p, seed, stack)

    @property
    def proves(self) -> str:
        text = (f"row 0 of the target has degree exactly {self.degree} in u[0, 0] (the other input entries 0; over "
                f"F_p, p = {self.p}, seed {self.seed}, equal to the tree bound, so for all parameters off a "
                "hypersurface), not a power of two; with causal filters and one channel every layer maps row 0 "
                "by a polynomial of degree ≤ 2 in row 0 alone, so no causal stack with d' = 1, of any depth and "
                "internal size, computes it: it needs a circular layer or d' ≥ 2")
        if self.stack is not None:
            modes = sorted({layer.conv for layer in self.stack.layers})
            text += f"; the built stack has d' = {self.stack.d_int} and {'/'.join(modes)} layers"
        return text

    def check(self) -> "CompositionCertificate":
        deg, ub = row0_degree(self.input, self.expected, self.p, self.seed)
        if self.input.d != 1 or deg != self.degree or ub != deg or _power_of_two(deg) or deg <= 0 \
                or self.lower != 1:
            raise CertificateError(f"CompositionCertificate: recorded degree {self.degree}, recomputed {deg} "
                                   f"(bound {ub}, d = {self.input.d})")
        if self.stack is not None and _one_channel_causal(self.stack):
            raise CertificateError("CompositionCertificate: the built stack is causal with d' = 1, which the "
                                   "certificate says cannot compute the target")
        return self


@dataclass(frozen=True, eq=False)
class OneRowCertificate:
    """N' ≥ 2 for a target on N = 1 row with d' = d = 1 whose degree is not 0 or a power of two.

    On one row a filter has one tap, so a causal and a circular layer are the same map
    x ↦ (x·w + b1)·(h₀·x + b2), a polynomial of degree ≤ 2 in the scalar state; a one-row
    model with d' = 1 is a composition of such polynomials, of degree 0 or a power of two.  So
    a one-channel model of such a target needs at least two rows, whatever its depth.  This
    bounds N' only among models with d' = 1 (a claim with d' = d and d = 1).

    >>> from symconv.blocks import sym
    >>> u, w = sym("u", 1), sym("w", 1)
    >>> OneRowCertificate.of(u, u * (u * w + 1) * (u * w + 2)).check().lower
    2
    """

    input: Block
    expected: Block
    degree: int
    p: int = PRIME
    seed: int = 0
    quantity: str = "N'"
    lower: int = 2
    kind: str = "composition"

    @classmethod
    def of(cls, inp: Block, expected: Block, p: int = PRIME, seed: int = 0) -> "OneRowCertificate":
        """The certificate, or a HypothesisError when it does not apply (N ≠ 1, d ≠ 1, a power of two,
        or an inconclusive degree)."""
        if inp.entries.shape != (1, 1):
            raise HypothesisError(f"input: shape {inp.entries.shape}; the certificate is about N = d = 1")
        deg, ub = row0_degree(inp, expected, p, seed)
        if deg != ub or deg <= 0 or _power_of_two(deg):
            raise HypothesisError(f"expected[0, 0]: degree {deg} (bound {ub}) in u[0, 0] is not certain, or is 0 "
                                  "or a power of two, which one row may reach")
        return cls(inp, expected, deg, p, seed)

    @property
    def proves(self) -> str:
        return (f"the target has degree exactly {self.degree} in its one input entry (over F_p, p = {self.p}, "
                f"seed {self.seed}, equal to the tree bound), not a power of two; on one row a causal and a "
                "circular layer are the same map of degree ≤ 2 in the scalar state, so no model with N' = 1 and "
                "d' = 1, of any depth, computes it: with d' = d = 1, N' ≥ 2")

    def check(self) -> "OneRowCertificate":
        deg, ub = row0_degree(self.input, self.expected, self.p, self.seed)
        if self.input.entries.shape != (1, 1) or deg != self.degree or ub != deg or _power_of_two(deg) \
                or deg <= 0 or (self.quantity, self.lower) != ("N'", 2):
            raise CertificateError(f"OneRowCertificate: recorded degree {self.degree}, recomputed {deg} "
                                   f"(bound {ub}, input {self.input.entries.shape})")
        return self
