"""Prop. H.8: shift_down(y, s) in one layer; shift_up(y, s) as printed, and one that works.

shift_down: e_s(X)·y(X) = X^s·y(X), so BaseConv(y, 0, e_s, 1, 0) moves every
channel down by s rows, for 0 ≤ s < N.

shift_up, as printed (the part we have starts inside this proof), is three
layers.  Its displayed formulas, each checked as a step from the claimed state
before it:

* the call BaseConv(y, 0, e_0, 1, 0) ≡ y ⊛ e_0 = Y0, and Y0[:, j] = coeff(Σ_i y[N−1−i, j] X^i)
  (a reversal);
* Y1 ≡ shift_down(Y0, s), and Y1[:, j] ≡ coeff(Σ_{i=s}^{N−1} Y0[N−1−(i−s), j] X^i)
  ≡ coeff(Σ_{i=s}^{N−1} Y0[N−1−i+s, j] X^i) (the two displayed forms are the same index);
* Y2 = Y1 ⊛ e_0 = coeff(Σ_i y[i+s, j] X^i);
* the count: "one and three layers".

A convolution with e_0 is the identity under either reading of ⊛, so the
route computes shift_down(y, s): the reversal step fails, and so do the
formula for Y1 (which, read with the claimed Y0, is y shifted down) and Y2.
The call Y1 ≡ shift_down(Y0, s) holds (layer 2 is shift_down).

The working construction is one circular layer (1^{N−s} | 0^s) ⊙ (e_{N−s} ⊛ y).
No causal stack computes shift_up for s ≥ 1, at any depth and internal size:
output row 0 must read input row s, and the dependency pattern of every causal
stack is lower triangular (``causal_reach`` shows it).

Every construction here is written once (symconv.constructions.shifts), with
N and s as symbols; the concrete stacks of the sweep are its instantiations.
"""
from symconv import Claim, Signature, SizeParam, Step, Variant, verify, zeros
from symconv.blocks import reverse, rows
from symconv.certificates.standard import both, causal, not_identity, signature_bounds
from symconv.claims import NumericCase
from symconv.constructions.shifts import (shift_down, shift_down_layer, shift_hypothesis, shift_up, shift_up_layer,
                                          shift_up_printed_layers)
from symconv.dependency import generic_dependencies, missing, shift_up_pattern
from symconv.parametric import Description, PStep, psym, pzeros, size
from symconv.constructions.params import gate_layer, unit_filter

N, s, d = size("N"), size("s"), size("d")
SIZES = (SizeParam("N", 1), SizeParam("s", 0), SizeParam("d", 1, 2))
HYPOTHESES = (shift_hypothesis(N, s),)


def down(z):
    """shift_down: X^s·y(X), cut below X^N."""
    y = psym("y", z["N"])
    return Description(y, (shift_down_layer(z["N"], z["s"]),), pzeros(z["s"]) | y.rows(0, z["N"] - z["s"]))


def up(z):
    """The working shift_up: (1^{N-s} | 0^s) ⊙ (X^{N-s}·y(X) mod X^N − 1)."""
    y = psym("y", z["N"])
    return Description(y, (shift_up_layer(z["N"], z["s"]),), y.rows(z["s"], z["N"]) | pzeros(z["s"]))


def printed(circ):
    """The printed three layers; its expressible claimed state is the output y[s:] (the reversals are not blocks)."""
    def construction(z):
        y = psym("y", z["N"])
        return Description(y, shift_up_printed_layers(z["N"], z["s"], circ), y.rows(z["s"], z["N"]) | pzeros(z["s"]),
                           (PStep("Y2 = Y1 ⊛ e_0 = coeff(Σ y[i+s] X^i)", 3, y.rows(z["s"], z["N"]) | pzeros(z["s"])),))
    return construction


def printed_steps(circ):
    """The displayed formulas that are not block columns (reversals), as concrete steps."""
    def steps(z, inst):
        n, k, dd = z["N"], z["s"], z["d"]
        y = inst.input
        Y0 = reverse(y)                                        # Y0[i] = y[N-1-i]
        Y1_call = zeros(k, dd) | rows(Y0, 0, n - k)            # shift_down(Y0, s)
        Y1_formula = zeros(k, dd) | rows(reverse(Y0), 0, n - k)  # Y1[i] = Y0[N-1-i+s] for i >= s
        call = gate_layer(unit_filter(0, dd), [[1]], 0, conv=circ, d=dd)
        return (Step("Y0 ≡ BaseConv(y, 0, e_0, 1, 0)", 1, Y0, kind="call", call=call),
                Step("Y0 = coeff(Σ y[N-1-i] X^i)", 1, Y0),
                Step("Y1 ≡ shift_down(Y0, s)", 2, Y1_call),
                Step("Y1 = coeff(Σ_{i>=s} Y0[N-1-i+s] X^i)", 2, Y1_formula),
                Step("shift_up in three layers", 3, kind="count", count=3))
    return steps


def numeric_down(N, d, batch, rng):
    s = N // 3

    def reference(u):
        out = u * 0
        out[:, s:] = u[:, : N - s]
        return out
    return NumericCase(shift_down(N, s, d), rng.standard_normal((batch, N, d)), reference, {"N": N, "s": s, "d": d})


def numeric_up(N, d, batch, rng):
    s = N // 3

    def reference(u):
        out = u * 0
        out[:, : N - s] = u[:, s:]
        return out
    return NumericCase(shift_up(N, s, d), rng.standard_normal((batch, N, d)), reference, {"N": N, "s": s, "d": d})


def causal_reach(N, s, L):
    """Pairs (output row, input row) shift_up needs that no L-layer causal stack has."""
    return missing(shift_up_pattern(N, s), generic_dependencies(N, L, "causal"))


PRINTED_FAILS = ("Y0 ≡ BaseConv(y, 0, e_0, 1, 0)", "Y0 = coeff(Σ y[N-1-i] X^i)",
                 "Y1 = coeff(Σ_{i>=s} Y0[N-1-i+s] X^i)", "Y2 = Y1 ⊛ e_0 = coeff(Σ y[i+s] X^i)")

CLAIMS = [
    Claim("H.8", "shift_down", "shift_down(y, s): every channel moved down by s rows, in one layer",
          SIZES, lambda z: Signature(z["N"], 1, z["d"], z["N"], z["d"]),
          (Variant("construction", construction=down, numeric=numeric_down),), HYPOTHESES,
          bounds=signature_bounds("one layer", "N' = N", "d' = d")),
    Claim("H.8", "shift_up", "shift_up(y, s): every channel moved up by s rows, in three layers",
          SIZES, lambda z: Signature(z["N"], 3, z["d"], z["N"], z["d"]),
          (Variant("as printed, ⊛ circular", construction=printed("circular"), expect="fails",
                   extra_steps=printed_steps("circular"), fails_at=PRINTED_FAILS,
                   note="a convolution with e_0 is the identity, not a reversal; the route computes shift_down"),
           Variant("as printed, ⊛ causal", construction=printed("causal"), expect="fails",
                   extra_steps=printed_steps("causal"), fails_at=PRINTED_FAILS,
                   note="same route with ⊛ read as the causal product"),
           Variant("corrected", construction=up, numeric=numeric_up,
                   note="one circular layer (1^{N-s} | 0^s) ⊙ (e_{N-s} ⊛ y); no causal stack can shift up")),
          HYPOTHESES, bounds=signature_bounds("three layers", "N' = N", "d' = d", L_certs=both(not_identity, causal))),
]

if __name__ == "__main__":
    for claim in CLAIMS:
        for v in verify(claim, max_size=6):
            print(v.id, v.name, v.variant, v.verdict, v.checked, v.failure.describe() if v.failure else "")
    print("causal stacks cannot reach, e.g. (N=6, s=2, L=10):", causal_reach(6, 2, 10)[:3], "...")
