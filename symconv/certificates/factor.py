"""Factorisation certificates: targets that no two-layer model computes, whatever its N' and d'.

Put u[i, :] = 0 for every row i ≥ 1 and look at row 0 of a two-layer model
(any N', any d', causal or circular filters).  Only row 0 of the state is
non-zero before layer 1, so row 0 of channel c after it is
``s_c = (a_c·u₀ + β_c)(g_c·u₀[c] + ε_c)`` (u₀ = u[0, :]; the convolution at
row 0 reads row 0 of channel c only), and every other row r of channel c is
affine in u₀[c] alone.  Row 0 of output channel c is ``G_c·H_c``: G_c affine in
(s_0, …, s_{d'−1}), H_c affine in s_c and in u₀[c] (the rest of channel c).

Let every target channel y_c (row 0, rows ≥ 1 of u zero) be a non-zero
*homogeneous* polynomial of degree 3 or 4 in u₀ that u₀[c] does not divide.
Then G_c, H_c are homogeneous (factors of a homogeneous polynomial are), and
if s_c were not affine (a_c ≠ 0 and g_c ≠ 0), H_c would be either a multiple of
u₀[c] (when it does not use s_c) or contain the quadratic part of s_c, which is
a multiple of u₀[c], so H_c = that part; either way u₀[c] divides y_c, a
contradiction.  (H_c constant would leave G_c of degree ≥ 3 > 2; G_c or H_c constant at
the top level is the same case.  A model with L ≤ 1 has degree ≤ 2.)  So every
s_c with c < d is affine, and channels c ≥ d are affine anyway (their
convolution reads zeros).  Then G_c and H_c are affine and y_c has degree
≤ 2: no two-layer model computes the target, so L ≥ 3.

The target's parameters (weights, γ, …) are fixed at recorded random integer
values, so the certificate is about that member of the family: a claim that
*every* member is computed within L layers needs L ≥ 3.  The test is exact
over ℚ (sympy polynomials): homogeneity, the degree, and y_c(u₀[c] = 0) ≠ 0.

>>> from symconv.blocks import sym
>>> u = sym("u", 1, 2)
>>> x, y = u.entries[0]
>>> from symconv.blocks import Block
>>> c = TwoLayerCertificate.of(u, Block([[x * x * y + y ** 3, x ** 3 + x * y * y]]))
>>> c.lower, c.degrees
(3, (3, 3))
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from ..blocks import Block
from ..model import HypothesisError, Stack
from .base import CertificateError


def row0_polys(inp: Block, expected: Block, values: tuple) -> list:
    """Row 0 of each target channel c < d as a sympy Poly over ℚ in u[0, 0..d−1], rows ≥ 1 of the
    input 0 and every other symbol at ``values`` ((name, integer) pairs).

    >>> from symconv.blocks import sym
    >>> u = sym("u", 2, 1)
    >>> [p.as_expr() for p in row0_polys(u, u * u, ())]
    [u[0,0]**2]
    """
    if inp.entries.size == 0 or expected.entries.size == 0:
        raise HypothesisError("input, expected: the target has no entries")
    if expected.d != inp.d:
        raise HypothesisError(f"expected: {expected.d} channels, but the model's output has the input's d = {inp.d}")
    gens = list(inp.entries[0, :])
    if not all(getattr(g, "is_Symbol", False) for g in gens) or len(set(gens)) != len(gens):
        raise HypothesisError("input[0, :]: must be distinct symbols")
    sub: dict = {s: 0 for s in inp.free_symbols() if s not in gens}
    for (r, c), x in np.ndenumerate(inp.entries[1:]):  # the argument needs rows ≥ 1 of the input zero
        if sympy.sympify(x, strict=True).xreplace(sub) != 0:
            raise HypothesisError(f"input[{r + 1}, {c}]: must not depend on row 0 (rows ≥ 1 are set to 0)")
    by_name = dict(values)
    out = []
    for c in range(inp.d):
        e = sympy.sympify(expected.entries[0, c], strict=True).xreplace(sub)
        e = e.xreplace({s: sympy.Integer(by_name[s.name]) for s in e.free_symbols if s.name in by_name})
        extra = e.free_symbols - set(gens)
        if extra:
            raise HypothesisError(f"expected[0, {c}]: symbols {sorted(map(str, extra))} have no recorded value")
        try:
            out.append(sympy.Poly(sympy.expand(e), *gens, domain="QQ"))
        except (sympy.PolynomialError, sympy.CoercionFailed, ValueError) as err:
            raise HypothesisError(f"expected[0, {c}]: not a polynomial over ℚ in u[0, :] ({err})") from None
    return out


def _why_not(polys: list) -> str | None:
    """Why the factorisation argument does not apply (None when it does)."""
    if len(polys) < 2:
        return "d = 1: u[0, 0] divides every homogeneous polynomial in one variable"
    gens = polys[0].gens
    for c, P in enumerate(polys):
        if P.is_zero:
            return f"channel {c} is 0 at row 0"
        if not P.is_homogeneous:
            return f"channel {c} is not homogeneous in u[0, :]"
        if P.total_degree() not in (3, 4):
            return f"channel {c} has degree {P.total_degree()}, not 3 or 4"
        if sympy.expand(P.as_expr().xreplace({gens[c]: 0})) == 0:
            return f"u[0, {c}] divides channel {c}"
    return None


@dataclass(frozen=True, eq=False)
class TwoLayerCertificate:
    """No two-layer BaseConv model (any N', d', causal or circular) computes the target's member with
    parameters ``values``: L ≥ 3 (module docstring).  ``stack``: a built stack, which must then have ≥ 3 layers."""

    input: Block
    expected: Block
    values: tuple
    degrees: tuple
    seed: int = 0
    stack: Stack | None = None
    quantity: str = "L"
    lower: int = 3
    kind: str = "factorization"

    @classmethod
    def of(cls, inp: Block, expected: Block, stack: Stack | None = None, seed: int = 0) -> "TwoLayerCertificate":
        """The certificate at random integer parameter values in [1, 9] (seeded), or a HypothesisError
        saying why the argument does not apply."""
        gens = set(inp.entries[0, :])
        rng = np.random.default_rng(seed)
        others = sorted({s for e in expected.entries[0, : inp.d].flat
                         for s in sympy.sympify(e, strict=True).free_symbols} - gens - inp.free_symbols(),
                        key=str)
        values = tuple((s.name, int(rng.integers(1, 10))) for s in others)
        polys = row0_polys(inp, expected, values)
        why = _why_not(polys)
        if why is not None:
            raise HypothesisError(f"expected: the two-layer factorisation argument does not apply ({why})")
        return cls(inp, expected, values, tuple(P.total_degree() for P in polys), seed, stack)

    @property
    def proves(self) -> str:
        vals = ", ".join(f"{k} = {v}" for k, v in self.values) or "none"
        text = (f"with rows ≥ 1 of u zero and the parameters at integers ({vals}), row 0 of every output channel c "
                f"is a non-zero homogeneous polynomial of degree {'/'.join(map(str, sorted(set(self.degrees))))} in "
                "u[0, :] not divisible by u[0, c] (exact, over ℚ); in a two-layer model row 0 of channel c is G·H "
                "with H affine in channel c of layer 1, so unique factorisation makes every channel of layer 1 "
                "affine at row 0 and the output of degree ≤ 2: no two-layer model of any N', d' (causal or "
                "circular) computes this member, L ≥ 3")
        if self.stack is not None:
            text += f"; the built stack has {self.stack.L} layers"
        return text

    def check(self) -> "TwoLayerCertificate":
        polys = row0_polys(self.input, self.expected, self.values)
        why = _why_not(polys)
        if why is not None or tuple(P.total_degree() for P in polys) != self.degrees or self.lower != 3 \
                or self.quantity != "L":
            raise CertificateError(f"TwoLayerCertificate: does not hold as recorded ({why or 'degrees or bound differ'})")
        if self.stack is not None and self.stack.L < 3:
            raise CertificateError(f"TwoLayerCertificate: the built stack has {self.stack.L} layers, which the "
                                   "certificate says cannot compute the target")
        return self
