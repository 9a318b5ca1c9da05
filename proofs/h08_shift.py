"""Prop. H.8: shift_down(y, s) in one layer; shift_up(y, s) as printed, and one that works.

shift_down: e_s(X)·y(X) = X^s·y(X), so BaseConv(y, 0, e_s, 1, 0) moves every
channel down by s rows, for 0 ≤ s < N.

shift_up, as printed, is three layers: Y0 = y ⊛ e_0 (claimed to reverse y),
Y1 = shift_down(Y0, s) (claimed: Y1[i] = Y0[N−1−i+s] for i ≥ s), and
Y2 = Y1 ⊛ e_0 (claimed: Y2[i] = y[i+s]).  A convolution with e_0 is the
identity under either reading of ⊛, so the printed route computes
shift_down(y, s): every step is checked on its own and the first one fails.

The working construction is one circular layer: (1^{N−s} | 0^s) ⊙ (e_{N−s} ⊛ y).
No causal stack computes shift_up for s ≥ 1, at any depth and internal size:
output row 0 must read input row s, and the dependency pattern of every
causal stack is lower triangular (``causal_reach`` shows it).
"""
from symconv import Claim, Hypothesis, Instance, Signature, SizeParam, Step, Variant, sym, verify, zeros
from symconv.blocks import reverse, rows
from symconv.claims import NumericCase
from symconv.constructions.shifts import shift_down, shift_up, shift_up_as_printed
from symconv.dependency import generic_dependencies, missing, shift_up_pattern
from symconv.parametric import X, Description, PLayer, gt, pones, psym, pzeros

SIZES = (SizeParam("N", 1), SizeParam("s", 0), SizeParam("d", 1, 2))
HYPOTHESES = (Hypothesis("0 <= s < N", lambda z: 0 <= z["s"] < z["N"]),)


def down_expected(y, s):
    return zeros(s, y.d) | rows(y, 0, y.n - s)


def up_expected(y, s):
    return rows(y, s, y.n) | zeros(s, y.d)


def build_down(z):
    N, s, d = z["N"], z["s"], z["d"]
    y = sym("y", N, d)
    return Instance(y, shift_down(N, s, d), down_expected(y, s))


def printed_steps(y, s):
    """The three states the printed proof claims."""
    Y0 = reverse(y)                                   # claimed: y ⊛ e_0 reverses y
    Y1 = zeros(s, y.d) | rows(reverse(Y0), 0, y.n - s)  # Y1[i] = Y0[N-1-i+s] for i >= s
    Y2 = up_expected(y, s)                            # Y2[i] = y[i+s]
    return (Step("Y0 = y ⊛ e_0", 1, Y0), Step("Y1 = shift_down(Y0, s)", 2, Y1), Step("Y2 = Y1 ⊛ e_0", 3, Y2))


def build_printed(circ):
    def build(z):
        N, s, d = z["N"], z["s"], z["d"]
        y = sym("y", N, d)
        return Instance(y, shift_up_as_printed(N, s, d, circ), up_expected(y, s), printed_steps(y, s))
    return build


def build_up(z):
    N, s, d = z["N"], z["s"], z["d"]
    y = sym("y", N, d)
    return Instance(y, shift_up(N, s, d), up_expected(y, s))


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


def describe_down(z):
    """shift_down with N and s as symbols: X^s·y(X), truncated below X^N."""
    N, s = z["N"], z["s"]
    y = psym("y", N)
    return Description(y, (PLayer(X**s, 1),), pzeros(s) | y.rows(0, N - s), facts=(gt(N, s),))


def describe_printed(circ):
    """The printed route without its claimed states (the reversal is not a block shift)."""
    def d(z):
        N, s = z["N"], z["s"]
        y = psym("y", N)
        layers = (PLayer(X**0, 1, conv=circ), PLayer(X**s, 1), PLayer(X**0, 1, conv=circ))
        return Description(y, layers, y.rows(s, N) | pzeros(s), facts=(gt(N, s),))
    return d


def describe_up(z):
    """The corrected shift_up: (1^{N-s} | 0^s) ⊙ (X^{N-s}·y(X) mod X^N − 1)."""
    N, s = z["N"], z["s"]
    y = psym("y", N)
    layer = PLayer(X**(N - s), pones(N - s) | pzeros(s), conv="circular")
    return Description(y, (layer,), y.rows(s, N) | pzeros(s), facts=(gt(N, s),))


def causal_reach(N, s, L):
    """Pairs (output row, input row) shift_up needs that no L-layer causal stack has."""
    return missing(shift_up_pattern(N, s), generic_dependencies(N, L, "causal"))


CLAIMS = [
    Claim("H.8", "shift_down", "shift_down(y, s): every channel moved down by s rows, in one layer",
          SIZES, lambda z: Signature(z["N"], 1, z["d"], z["N"], z["d"]),
          (Variant("construction", build_down, numeric=numeric_down, parametric=describe_down),), HYPOTHESES),
    Claim("H.8", "shift_up", "shift_up(y, s): every channel moved up by s rows, in three layers",
          SIZES, lambda z: Signature(z["N"], 3, z["d"], z["N"], z["d"]),
          (Variant("as printed, ⊛ circular", build_printed("circular"), expect="fails",
                   parametric=describe_printed("circular"),
                   note="a convolution with e_0 is the identity, not a reversal; the route computes shift_down"),
           Variant("as printed, ⊛ causal", build_printed("causal"), expect="fails",
                   parametric=describe_printed("causal"),
                   note="same route with ⊛ read as the causal product"),
           Variant("corrected", build_up, numeric=numeric_up, parametric=describe_up,
                   note="one circular layer (1^{N-s} | 0^s) ⊙ (e_{N-s} ⊛ y); no causal stack can shift up")),
          HYPOTHESES),
]

if __name__ == "__main__":
    for claim in CLAIMS:
        for v in verify(claim, max_size=6):
            print(v.id, v.name, v.variant, v.verdict, v.failure.describe() if v.failure else "")
    print("causal stacks cannot reach, e.g. (N=6, s=2, L=10):", causal_reach(6, 2, 10)[:3], "...")
