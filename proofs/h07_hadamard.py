"""Lemma H.7 as Appendix H uses it: one BaseConv layer for c ⊙ u, for u itself, and for u·W.

The statement of Lemma H.7 is in a part of the paper we do not have; the later
proofs (Lemma H.16) use it for Hadamard products with a constant, so that is
what is checked here, with symbolic constants:

    BaseConv(u, 0, e_0, c, 0) = c ⊙ (e_0 * u) = c ⊙ u,
    the identity is the case c = 1^{N×d},
    BaseConv(u, W, 0, 0, 1) = (u·W) ⊙ 1 = u·W.
"""
import numpy as np

from symconv import Claim, Instance, Signature, SizeParam, Variant, sym, verify
from symconv.blocks import Block
from symconv.claims import NumericCase
from symconv.constructions.primitives import hadamard, identity, linear

SIZES = (SizeParam("N", 1), SizeParam("d", 1, 2))


def one_layer(s):
    return Signature(s["N"], 1, s["d"], s["N"], s["d"])


def build_hadamard(s):
    N, d = s["N"], s["d"]
    u = sym("u", N, d)
    c = sym("c", N, d)                      # the constant, symbolic
    return Instance(u, hadamard(c.entries), c * u)


def build_identity(s):
    u = sym("u", s["N"], s["d"])
    return Instance(u, identity(s["N"], s["d"]), u)


def build_linear(s):
    N, d = s["N"], s["d"]
    u = sym("u", N, d)
    W = sym("W", d, d)
    uW = Block(np.dot(u.entries, W.entries), "u·W")
    return Instance(u, linear(W.entries, N), uW)


def numeric_hadamard(N, d, batch, rng):
    c = rng.integers(-3, 4, size=(N, d))
    return NumericCase(hadamard(c), rng.standard_normal((batch, N, d)), lambda u: c * u, {"N": N, "d": d})


def numeric_identity(N, d, batch, rng):
    return NumericCase(identity(N, d), rng.standard_normal((batch, N, d)), lambda u: u, {"N": N, "d": d})


def numeric_linear(N, d, batch, rng):
    W = rng.integers(-3, 4, size=(d, d))
    return NumericCase(linear(W, N), rng.standard_normal((batch, N, d)), lambda u: u @ W, {"N": N, "d": d})


CLAIMS = [
    Claim("H.7", "hadamard", "c ⊙ u for a constant c ∈ R^{N×d} in one layer", SIZES, one_layer,
          (Variant("construction", build_hadamard, numeric=numeric_hadamard),)),
    Claim("H.7", "identity", "u itself in one layer (c = 1)", SIZES, one_layer,
          (Variant("construction", build_identity, numeric=numeric_identity),)),
    Claim("H.7", "linear", "u·W for W ∈ R^{d×d} in one layer", SIZES, one_layer,
          (Variant("construction", build_linear, numeric=numeric_linear),)),
]

if __name__ == "__main__":
    for claim in CLAIMS:
        for v in verify(claim, max_size=6):
            print(v.id, v.name, v.variant, v.verdict, v.scope)
