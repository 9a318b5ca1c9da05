"""Prop. H.9: the running sum add_n(y : x, S) in two layers.

Sizes: x, S ∈ R^{n×d} inside y = (x | S | 0^{N−2n}), so 2n ≤ N.

Layer 1: h¹ = (e_0 | e_0 | 0…), i.e. h¹(X) = X^n + 1, and
(X^n + 1)(S(X)X^n + x(X)) = S(X)X^{2n} + (S + x)(X)X^n + x(X); the mask
b¹₁ = (0^n | 1^n | 0…) keeps z¹ = (0^n | S + x | 0…).
Layer 2: h² = e_0, b²₁ = (1^n | 1^n | 0…), b²₂ = (1^n | 0…), giving
z = b²₁ ⊙ (z¹ + b²₂) = (1^n | S + x | 0…).

The displayed call for layer 2 reads BaseConv(z¹, 0, h², b²₁, b²₁): b²₁ in
both bias slots.  Taken literally, S + x comes out as S + x + 1^n; the variant
"printed call" checks exactly that.
"""
from symconv import Claim, Hypothesis, Instance, Signature, SizeParam, Step, Variant, ones, sym, verify, zeros
from symconv.claims import NumericCase
from symconv.constructions.sums import add_n
from symconv.parametric import X, Description, PLayer, PStep, ge, pones, psym, pzeros

SIZES = (SizeParam("n", 1), SizeParam("N", 2), SizeParam("d", 1, 2))
HYPOTHESES = (Hypothesis("2n <= N (x and S inside y)", lambda z: 2 * z["n"] <= z["N"]),)


def build(literal_call):
    def b(z):
        n, N, d = z["n"], z["N"], z["d"]
        x, S = sym("x", n, d), sym("S", n, d)
        y = x | S | zeros(N - 2 * n, d)
        z1 = zeros(n, d) | (S + x) | zeros(N - 2 * n, d)
        out = ones(n, d) | (S + x) | zeros(N - 2 * n, d)
        return Instance(y, add_n(n, N, d, literal_call=literal_call), out,
                        (Step("z¹", 1, z1), Step("z", 2, out)))
    return b


def numeric(N, d, batch, rng):
    """add_n with n = N // 4 on a random y; rows beyond 2n do not matter to the output."""
    n = max(1, N // 4)

    def reference(y):
        out = y * 0
        out[:, :n] = 1
        out[:, n:2 * n] = y[:, :n] + y[:, n:2 * n]
        return out
    return NumericCase(add_n(n, N, d), rng.standard_normal((batch, N, d)), reference, {"n": n, "N": N, "d": d})


def describe(literal_call):
    """The same two layers with n and N left as symbols (checked for all sizes)."""
    def d(z):
        n, N = z["n"], z["N"]
        x, S, rest = psym("x", n), psym("S", n), pzeros(N - 2 * n)
        y = x | S | rest
        z1 = pzeros(n) | S + x | rest
        out = pones(n) | S + x | rest
        b21 = pones(n) | pones(n) | rest                      # (1^n | 1^n | 0…)
        b22 = b21 if literal_call else pones(n) | pzeros(N - n)
        layer1 = PLayer(1 + X**n, pzeros(n) | pones(n) | rest)  # h¹(X) = X^n + 1
        layer2 = PLayer(X**0, b21, b22)                       # h² = e_0
        return Description(y, (layer1, layer2), out, (PStep("z¹", 1, z1), PStep("z", 2, out)),
                           facts=(ge(N, 2 * n),))
    return d


CLAIMS = [
    Claim("H.9", "add_n", "add_n(y : x, S) = (1^n | S + x | 0…) in two layers",
          SIZES, lambda z: Signature(z["N"], 2, z["d"], z["N"], z["d"]),
          (Variant("as printed", build(False), numeric=numeric, note="layer parameters h², b²₁, b²₂ as displayed",
                   parametric=describe(False)),
           Variant("printed call", build(True), expect="fails",
                   note="BaseConv(z¹, 0, h², b²₁, b²₁) passes b²₁ as the second bias",
                   parametric=describe(True))),
          HYPOTHESES),
]

if __name__ == "__main__":
    for v in verify(CLAIMS[0], max_size=8):
        print(v.id, v.name, v.variant, v.verdict, v.failure.describe() if v.failure else "")
