"""Lemma H.7 as Appendix H uses it: one BaseConv layer for c ⊙ u, for u itself, and for u·W.

The statement of Lemma H.7 is in a part of the paper we do not have; the later
proofs (Lemma H.16) use it for Hadamard products with a constant, so that is
what is checked here, with symbolic constants, for all N and d (each layer is written
once with N as a symbol, in symconv.constructions.primitives):

    BaseConv(u, 0, e_0, c, 0) = c ⊙ (e_0 * u) = c ⊙ u,
    the identity is the case c = 1^{N×d},
    BaseConv(u, W, 0, 0, 1) = (u·W) ⊙ 1 = u·W.
"""
from symconv import Claim, Signature, SizeParam, Variant, verify
from symconv.claims import NumericCase
from symconv.constructions.primitives import (hadamard, hadamard_layer, identity, identity_layer, linear,
                                              linear_layer)
from symconv.parametric import Description, pmatmul, psym
from symconv.parametric.algebra import phad

SIZES = (SizeParam("N", 1), SizeParam("d", 1, 2))


def one_layer(s):
    return Signature(s["N"], 1, s["d"], s["N"], s["d"])


def with_constant(z):
    """c ⊙ u with c a named N×d block of symbols."""
    u, c = psym("u", z["N"]), psym("c", z["N"])
    return Description(u, (hadamard_layer(z["N"]),), phad(c, u))


def itself(z):
    u = psym("u", z["N"])
    return Description(u, (identity_layer(),), u)


def times_W(z):
    u = psym("u", z["N"])
    return Description(u, (linear_layer(),), pmatmul(u, "W"))


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
          (Variant("construction", construction=with_constant, numeric=numeric_hadamard),)),
    Claim("H.7", "identity", "u itself in one layer (c = 1)", SIZES, one_layer,
          (Variant("construction", construction=itself, numeric=numeric_identity),)),
    Claim("H.7", "linear", "u·W for W ∈ R^{d×d} in one layer", SIZES, one_layer,
          (Variant("construction", construction=times_W, numeric=numeric_linear),)),
]

if __name__ == "__main__":
    for claim in CLAIMS:
        for v in verify(claim, max_size=6):
            print(v.id, v.name, v.variant, v.verdict, v.scope)
