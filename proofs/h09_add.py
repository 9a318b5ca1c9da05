"""Prop. H.9: the running sum add_n(y : x, S) in two layers.

Sizes: x, S ∈ R^{n×d} inside y = (x | S | 0^{N−2n}), so 2n ≤ N.

Layer 1: h¹ = (e_0 | e_0 | 0…), i.e. h¹(X) = X^n + 1, and the displayed product
(X^n + 1)(S(X)X^n + x(X)) = S(X)X^{2n} + (S + x)(X)X^n + x(X); the mask
b¹₁ = (0^n | 1^n | 0…) keeps z¹ = (0^n | S + x | 0…).
Layer 2: h² = e_0, b²₁ = (1^n | 1^n | 0…), b²₂ = (1^n | 0…); the displayed
product h²(X)·z¹(X) = (S + x)(X)·X^n and z = b²₁ ⊙ (z¹ + b²₂) = (1^n | S + x | 0…).

Every displayed formula is a step: the two products, z¹, z, the layer count
("two BaseConv layers").  The displayed call for layer 2,
BaseConv(z¹, 0, h², b²₁, b²₁), passes b²₁ in both bias slots; taken literally S + x
comes out as S + x + 1^n.  The same display line goes on "≡ b²₁ ⊙ (h² ∗ y + b²₂)",
so the obvious reading is b²₂ for the second b²₁: the variant "printed call" is the
literal reading, graded as such.

The construction is written once (symconv.constructions.sums.add_n_layers) with n
and N as symbols; the concrete stacks are its instantiations.
"""
from symconv import Claim, Signature, SizeParam, Step, Variant, verify
from symconv.certificates import first_point
from symconv.certificates.standard import both, least_one_layer, not_identity, signature_bounds
from symconv.claims import NumericCase
from symconv.constructions.params import gate_layer, mask, unit_filter
from symconv.constructions.sums import add_n, add_n_hypothesis
from symconv.parametric import size
from symconv.parametric.printed import add_n_route

n, N, d = size("n"), size("N"), size("d")
SIZES = (SizeParam("n", 1), SizeParam("N", 2), SizeParam("d", 1, 2))
HYPOTHESES = (add_n_hypothesis(n, N),)


def route(literal_call):
    """The route as the paper displays it, with its claimed states z¹ and z: one source,
    :func:`symconv.parametric.printed.add_n_route` (which the repair search edits too)."""
    return lambda z: add_n_route(z, "printed" if literal_call else "parameters").description()


def printed_formulas(literal_call):
    """The displayed polynomial products, the displayed call and the layer count, at concrete sizes."""
    def steps(z, inst):
        n, N, d = z["n"], z["N"], z["d"]
        e = inst.input.entries
        x, S = inst.input.__class__(e[:n]), inst.input.__class__(e[n:2 * n])
        from symconv.blocks import zeros
        prod1 = x | (S + x) | S                                   # S X^{2n} + (S + x) X^n + x
        prod2 = zeros(n, d) | (S + x)                             # (S + x)(X)·X^n
        z_out = inst.steps[-1].expected
        call = gate_layer(unit_filter(0, d), mask(N, (0, 2 * n)), mask(N, (0, 2 * n)), d=d)
        out = (Step("h¹(X)·y(X) = S X^{2n} + (S + x) X^n + x", 1, prod1, kind="product"),
               Step("h²(X)·z¹(X) = (S + x)(X)·X^n", 2, prod2, kind="product"),
               Step("two BaseConv layers", 2, kind="count", count=2))
        if literal_call:
            out += (Step("z ≡ BaseConv(z¹, 0, h², b²₁, b²₁)", 2, z_out, kind="call", call=call),)
        return out
    return steps


def numeric(N, d, batch, rng):
    """add_n with n = N // 4 on a random y; rows beyond 2n do not matter to the output."""
    n = max(1, N // 4)

    def reference(y):
        out = y * 0
        out[:, :n] = 1
        out[:, n:2 * n] = y[:, :n] + y[:, n:2 * n]
        return out
    return NumericCase(add_n(n, N, d), rng.standard_normal((batch, N, d)), reference, {"n": n, "N": N, "d": d})


CLAIMS = [
    Claim("H.9", "add_n", "add_n(y : x, S) = (1^n | S + x | 0…) in two layers",
          SIZES, lambda z: Signature(z["N"], 2, z["d"], z["N"], z["d"]),
          (Variant("as printed", construction=route(False), numeric=numeric, extra_steps=printed_formulas(False),
                   note="layer parameters h², b²₁, b²₂ as displayed"),
           Variant("printed call", construction=route(True), expect="fails", extra_steps=printed_formulas(True),
                   fails_at=("z ≡ BaseConv(z¹, 0, h², b²₁, b²₁)", "z = b²₁ ⊙ (h² * z¹ + b²₂) = (1^n | S + x | 0…)"),
                   reading="literal: the display line's own second form has b²₂, the obvious reading, which holds",
                   note="BaseConv(z¹, 0, h², b²₁, b²₁) passes b²₁ as the second bias")),
          HYPOTHESES,
          bounds=signature_bounds("2 layers", "N' = N", "d' = d", L_certs=both(not_identity, least_one_layer),
                                  at_L=first_point)),
]

if __name__ == "__main__":
    for v in verify(CLAIMS[0], max_size=8):
        print(v.id, v.name, v.variant, v.verdict, v.checked, v.failure.describe() if v.failure else "")
