"""Least-signature certificates: no one-layer model at a given (N, N', d'), by a Gröbner basis.

For a tiny target the question "is there a one-layer BaseConv model on an
N'×d' state that computes it?" is a system of polynomial equations in the
layer's d'² + 3N'd' parameters: the coefficients, in the input symbols, of
output − target must all vanish.  If the reduced Gröbner basis of that system
over ℚ is {1}, the system has no solution over ℂ, so no model of that
signature exists, with any real or complex parameters (not a grid search: a
proof).  Symbols of the target other than the input (a parameter such as p or
h of remember) are first given fixed random integer values: no model computes
that instance, so none computes the claim for every value.

With a witness (a stack of ``lower`` layers at the same (N', d') whose output
is the target, checked exactly by :func:`symconv.symbolic.evaluate`) the bound
is the least L at that signature.  Only L = 1 is searched: larger L is out of
reach of Gröbner bases here; the certificate says so.

>>> from symconv.blocks import sym, ones
>>> y = sym("y", 2)
>>> c = LeastSignatureCertificate.of(y, ones(1) | (y[0:1] + y[1:2]))
>>> c.lower, c.check().modes
(2, ('causal', 'circular'))
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from ..blocks import Block
from ..model import HypothesisError, Layer, Stack, check_size
from .base import CertificateError

MAX_UNKNOWNS = 16


def _symbols(name: str, r: int, c: int) -> np.ndarray:
    return np.array([[sympy.Symbol(f"theta_{name}[{i},{j}]") for j in range(c)] for i in range(r)], dtype=object)


def one_layer_stack(N: int, d: int, N_int: int, d_int: int, conv: str) -> Stack:
    """The one-layer stack whose every parameter is a symbol (theta_W, theta_h, theta_b1, theta_b2)."""
    layer = Layer(_symbols("W", d_int, d_int), _symbols("h", N_int, d_int), _symbols("b1", N_int, d_int),
                  _symbols("b2", N_int, d_int), conv=conv)
    return Stack(N, d, (layer,), N_int, d_int)


def specialise(inp: Block, expected: Block, seed: int = 0) -> tuple[Block, tuple]:
    """(``expected`` with every symbol that is not the input's replaced by a fixed random integer in
    [2, 9], the values as (symbol, value) pairs)."""
    gens = inp.free_symbols()
    other = sorted(expected.free_symbols() - gens, key=str)
    rng = np.random.default_rng(seed)
    values = {s: sympy.Integer(int(rng.integers(2, 10))) for s in other}
    return _subs(expected, values), tuple(values.items())


def _subs(b: Block, values: dict) -> Block:
    return Block(np.array([[sympy.sympify(v, strict=True).xreplace(values) if values else v for v in row]
                           for row in b.entries], dtype=object), b.name)


def one_layer_basis(inp: Block, target: Block, N_int: int, d_int: int, conv: str) -> list:
    """The reduced Gröbner basis (grevlex) of "one layer on N'×d' computes target"."""
    from ..symbolic import evaluate

    N, d = inp.shape
    if (N_int * d_int * 3 + d_int * d_int) > MAX_UNKNOWNS:
        raise HypothesisError(f"N_int, d_int: {3 * N_int * d_int + d_int * d_int} unknowns exceed "
                              f"{MAX_UNKNOWNS}; a Gröbner basis is out of reach")
    st = one_layer_stack(N, d, N_int, d_int, conv)
    out = evaluate(st, inp)
    gens = sorted(inp.free_symbols(), key=str)
    eqs = []
    for e, t in zip(out.entries.flat, target.entries.flat):
        diff = sympy.expand(e - t)
        if diff != 0:
            eqs.extend(sympy.Poly(diff, *gens).coeffs())
    if not eqs:
        return [sympy.Integer(0)]
    params = sorted(set().union(*(sympy.sympify(e, strict=True).free_symbols for e in eqs)), key=str)
    if not params:
        return [sympy.Integer(1)] if any(e != 0 for e in eqs) else [sympy.Integer(0)]
    return list(sympy.groebner(eqs, *params, order="grevlex").exprs)


@dataclass(frozen=True, eq=False)
class LeastSignatureCertificate:
    """No one-layer model on N'×d' (each mode in ``modes``) computes the target: L ≥ 2.

    ``witness``: optionally a stack with ``lower`` layers at (N', d') that computes
    it, which makes ``lower`` the least L at this signature.
    """

    input: Block
    target: Block
    N_int: int
    d_int: int
    modes: tuple
    lower: int = 2
    witness: Stack | None = None
    values: tuple = ()  # the target's other symbols (parameters such as p, h) and the integers they were given
    quantity: str = "L"
    kind: str = "least signature"

    @classmethod
    def of(cls, inp: Block, expected: Block, N_int: int | None = None, d_int: int | None = None,
           modes: tuple = ("causal", "circular"), witness: Stack | None = None, seed: int = 0):
        N, d = inp.shape
        N_int = check_size(N if N_int is None else N_int, "N_int")
        d_int = check_size(d if d_int is None else d_int, "d_int")
        target, values = specialise(inp, expected, seed)
        for m in modes:
            basis = one_layer_basis(inp, target, N_int, d_int, m)
            if basis != [1]:
                raise HypothesisError(f"target: a one-layer {m} model on {N_int}×{d_int} may exist "
                                      f"(Gröbner basis {basis[:3]}...)")
        return cls(inp, target, N_int, d_int, tuple(modes), 2, witness, values)

    @property
    def least(self) -> int | None:
        """The least L at (N, N', d') when a witness meets the bound, else None."""
        return self.lower if self.witness is not None and self.witness.L == self.lower else None

    @property
    def proves(self) -> str:
        N, d = self.input.shape
        fixed = (" with " + ", ".join(f"{k} = {v}" for k, v in self.values)) if self.values else ""
        text = (f"no one-layer {'/'.join(self.modes)} model with signature (N, d, N', d') = ({N}, {d}, {self.N_int}, "
                f"{self.d_int}) computes the target{fixed} (Gröbner basis {{1}} over ℚ: no solution over ℂ), "
                "so L ≥ 2 there")
        if self.least is not None:
            text += f"; a {self.least}-layer model exists (checked exactly): the least L at this signature is {self.least}"
        return text

    def check(self) -> "LeastSignatureCertificate":
        from ..symbolic import evaluate

        if self.lower != 2:
            raise CertificateError(f"LeastSignatureCertificate: only L = 1 is searched, so the bound is 2, "
                                   f"not {self.lower}")
        for m in self.modes:
            basis = one_layer_basis(self.input, self.target, self.N_int, self.d_int, m)
            if basis != [1]:
                raise CertificateError(f"LeastSignatureCertificate: a one-layer {m} model is not excluded "
                                       f"(basis {basis[:3]})")
        if self.witness is not None:
            w = self.witness
            if (w.N_int, w.d_int) != (self.N_int, self.d_int):
                raise CertificateError("LeastSignatureCertificate: the witness has another internal size")
            out = _subs(evaluate(w, self.input), dict(self.values))
            if any(sympy.expand(a - b) != 0 for a, b in zip(out.entries.flat, self.target.entries.flat)):
                raise CertificateError("LeastSignatureCertificate: the witness does not compute the target")
        return self
