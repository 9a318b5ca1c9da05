"""Prop. H.10: remember(y : x, v, h, p) in five layers, (N, 5, d, N, d).

Sizes: x ∈ R^{n×d}, v ∈ R^{m×d}, h ∈ R^{n×d}, p ∈ R^{(n+s)×d}, and the
hypothesis n + m + s + t ≤ N.  The input is y = (x | 0^s | v | 0…), i.e.
y(X) = v(X)·X^{n+s} + x(X); the claimed output is (p ⊙ (h ∗ x) | v | 0…),
h ∗ x cut to its first n+s rows.

As printed.  Layer 1: h¹ = (h | 0^m | e_{s+t} | 0…), so h¹(X) = h(X) + X^{n+m+s+t},
and b¹₁ = (p | 0^{m+t} | 0^n | 0^s | 1^m | 0…); the proof's product
(h + X^{n+m+s+t})(v·X^{n+s} + x) gives
z¹ = (p ⊙ (h ∗ x) | 0^{m+t} | 0^n | 0^s | v | 0…), v at row 2n+2s+m+t.
Layer 2: h² = (e_0 | 0^{m+t} | e_0 | 0…), i.e. 1 + X^{n+m+s+t}, and
b²₁ = (0^{n+s} | 0^{m+t} | 0^n | 1^{n+s} | 1^m | 0…), claimed to give
z² = (0^{n+s} | 0^{m+t} | 0^n | p ⊙ (h ∗ x) | v | 0…).  Then Prop. H.8's shift_up
by 2n + s + m + t.

What the check finds.  z¹ holds wherever its blocks fit in N (they need
2n+2s+2m+t rows; the hypothesis only gives n+m+s+t, and past N the printed
blocks are cut, so v is lost).  z² fails: X^{n+m+s+t} moves p ⊙ (h ∗ x) to row
n+m+s+t, not 2n+s+m+t, and leaves v at row 2n+2s+m+t, not 3n+2s+m+t; one
filter cannot move the two blocks by different amounts.  The last step fails
too: Prop. H.8's printed shift_up is a shift_down.  With a working shift_up the
last step holds from the claimed z², so z² is the printed step that is wrong.

Corrected (symconv.constructions.remember.remember): two layers,
(p | 0 | 1^m at row c) ⊙ ((h + X^k) * y) then (1^{n+s+m} | 0) ⊙ ((1 + X^{N'−k}) ⊛ z¹),
with c = n+s+k = max(2n+s+m−1, 2n+2s).  An exact sweep over every N' and every
offset k of this family (smallest_length below) finds the smallest internal
length at which it works:

    N' ≥ max(2n + s + 2m − 1, 2n + 2s + m),

so the proposition's hypothesis n + m + s + t ≤ N is enough for it exactly
when t ≥ max(n + m − 1, n + s); otherwise it is not (n = m = 2, s = t = 1
allows N = 6, this construction needs 8).  It is the bound of this family, not
of every construction: for n = 1, h is a scalar and one gate layer
(p·h | 1^m | 0) ⊙ (e_0 * y) does the job at N = n + s + m.  The first claim
checks it on the proposition's own sweep with N' = max(N, that bound); the
second at N' = N under the bound.

Small slips of the printed text, read through: layer 2's call writes h² ∗ y for
h² ∗ z¹ (and h² ⊙ z¹ for the convolution), z² names its mask b^1_2, and the last
display has p ⊙ (h ∗ u) for p ⊙ (h ∗ x).
"""
import numpy as np

from symconv.certificates.standard import at_sizes, both, least_one_layer, not_identity, signature_bounds
from symconv import Block, Claim, Hypothesis, Instance, Signature, SizeParam, Step, Variant, sym, verify, zeros
from symconv.claims import NumericCase, check_instance
from symconv.constructions.remember import (fits_hypothesis, remember, remember_as_printed, remember_family,
                                            remember_hypotheses, required_length)
from symconv.parametric import size
from symconv.parametric.remember import describe as remember_parametric
from symconv.sweep import Cap

n, m, s, t, N, d = (size(k) for k in ("n", "m", "s", "t", "N", "d"))
SIZES = (SizeParam("n", 1, 2), SizeParam("m", 1, 2), SizeParam("s", 0, 2), SizeParam("t", 0, 2),
         SizeParam("N", 2), SizeParam("d", 1, 2))
CAPS = (Cap(("N", "d"), 10),)   # d = 2 only for N <= 5: the symbolic check grows fast with N·d
PAPER, XH, VH = remember_hypotheses(n, m, s, t, N)
PRINTED_FITS = Hypothesis(N >= 3 * n + 2 * s + 2 * m + t, why="the printed z² fits in N")
FITS = fits_hypothesis(n, m, s, N)


# ---------------------------------------------------------------- input blocks

def blocks(z):
    """x, v, h, p as blocks of symbols, and y = (x | 0^s | v | 0…)."""
    n, m, s, N, d = z["n"], z["m"], z["s"], z["N"], z["d"]
    x, v, h, p = sym("x", n, d), sym("v", m, d), sym("h", n, d), sym("p", n + s, d)
    y = x | zeros(s, d) | v | zeros(N - n - s - m, d)
    return x, v, h, p, y


def gated(x, h, p):
    """p ⊙ (h ∗ x): the first n+s coefficients of h(X)·x(X), times p."""
    n, d = x.shape
    a = np.empty(p.shape, dtype=object)
    for j in range(d):
        for i in range(p.n):
            a[i, j] = sum(h.entries[k, j] * x.entries[i - k, j] for k in range(n) if 0 <= i - k < n)
    return p * Block(a, "h∗x")


def placed(N, d, *parts):
    """An N×d block with each (row, block) of ``parts`` in place, cut at N."""
    a = np.zeros((N, d), dtype=int).astype(object)
    for row, b in parts:
        for i in range(b.n):
            if row + i < N:
                a[row + i] = b.entries[i]
    return Block(a, " + ".join(f"{b.name}@{r}" for r, b in parts))


def claimed_output(z, x, v, h, p):
    return placed(z["N"], z["d"], (0, gated(x, h, p)), (z["n"] + z["s"], v))


# ---------------------------------------------------------------- as printed

def conv_full(a, b):
    """The full product a(X)·b(X) of two blocks, channel by channel (len a + len b − 1 rows)."""
    na, nb, dd = a.n, b.n, a.d
    out = np.zeros((na + nb - 1, dd), dtype=int).astype(object)
    for j in range(dd):
        for i in range(na):
            for k in range(nb):
                out[i + k, j] = out[i + k, j] + a.entries[i, j] * b.entries[k, j]
    return Block(out, f"{a.name}∗{b.name}")


def printed_steps(z, x, v, h, p, last):
    """Every displayed formula of the printed proof: products, the convolutions before the masks, states, count."""
    n, m, s, t, N, d = z["n"], z["m"], z["s"], z["t"], z["N"], z["d"]
    phx = gated(x, h, p)
    far = n + m + s + t
    z1 = placed(N, d, (0, phx), (2 * n + 2 * s + m + t, v))
    z2 = placed(N, d, (2 * n + s + m + t, phx), (3 * n + 2 * s + m + t, v))
    K = max(n, far + 1) if far < N else n           # h¹ cut at N
    prod1 = placed(N + K - 1, d, (n + s, conv_full(h, v)), (0, conv_full(h, x)),
                   (2 * n + 2 * s + m + t, v), (far, x))
    conv1 = placed(N, d, (0, conv_full(h, x)), (n + s, conv_full(h, v)), (far, x), (2 * n + 2 * s + m + t, v))
    K2 = far + 1 if far < N else 1
    prod2 = placed(N + K2 - 1, d, (3 * n + 3 * s + 2 * m + 2 * t, v), (2 * n + 2 * s + m + t, v), (far, phx), (0, phx))
    conv2 = placed(N, d, (0, phx), (2 * n + s + m + t, phx), (3 * n + 2 * s + m + t, v))
    return (Step("(h¹ * y) = coeff((h + X^{n+m+s+t})(v X^{n+s} + x))", 1, prod1, kind="product"),
            Step("h¹ * y = (h∗x | h∗v | x | 0^s | v | ⋯)", 1, conv1, kind="conv"),
            Step("z¹ = b¹₁ ⊙ (h¹ * y)", 1, z1),
            Step("h²(X)·z¹(X) = coeff((X^{m+n+s+t} + 1)(v X^{2n+2s+m+t} + p⊙(h∗x)))", 2, prod2, kind="product"),
            Step("h² * z¹ = (p⊙(h∗x) | 0^{m+t} | 0^n | p⊙(h∗x) | v | ⋯)", 2, conv2, kind="conv"),
            Step("z² = b²₁ ⊙ (h² * z¹)", 2, z2),
            Step("z = shift_up(z², 2n+s+m+t)", last, claimed_output(z, x, v, h, p)),
            ) + ((Step("five layers", last, kind="count", count=5),) if last == 5 else ())


def build_printed(shift_up):
    def build(z):
        x, v, h, p, y = blocks(z)
        stack = remember_as_printed(z["N"], z["n"], z["m"], z["s"], z["t"], h.entries, p.entries, z["d"],
                                    shift_up=shift_up)
        return Instance(y, stack, claimed_output(z, x, v, h, p), printed_steps(z, x, v, h, p, stack.L))
    return build


# ---------------------------------------------------------------- corrected

def numeric_case(N, d, batch, rng):
    """remember at length N: n = N/64, s = n − 1 (the whole product kept), m = N/4, t = 0."""
    n = max(1, N // 64)
    s, m, t = n - 1, max(1, N // 4), 0
    h, p = rng.standard_normal((n, d)), rng.standard_normal((n + s, d))
    y = np.zeros((batch, N, d))
    y[:, :n] = rng.standard_normal((batch, n, d))
    y[:, n + s: n + s + m] = rng.standard_normal((batch, m, d))

    def reference(y):
        x = y[:, :n]
        hx = y[:, : n + s] * 0
        for k in range(n):  # the definition: (h ∗ x)[i] = Σ_k h[k]·x[i−k]
            hx[:, k: k + n] += h[k] * x[:, : n + s - k]
        out = y * 0
        out[:, : n + s] = p * hx
        out[:, n + s: n + s + m] = y[:, n + s: n + s + m]
        return out

    M = max(N, required_length(n, m, s))
    return NumericCase(remember(N, n, m, s, t, h, p, d, N_int=M), y, reference,
                       dict(N=N, N_int=M, n=n, m=m, s=s, t=t, d=d))


# ---------------------------------------------------------------- the size sweep

def holds(M, n, m, s, k, d=1):
    """Does the two-layer family with copy offset k compute remember at N' = M? (exact)"""
    if k < 1 or n + s + k + m > M:
        return False
    z = dict(n=n, m=m, s=s, t=0, N=M, d=d)
    x, v, h, p, y = blocks(z)
    inst = Instance(y, remember_family(M, n, m, s, k, h.entries, p.entries, d), claimed_output(z, x, v, h, p))
    return check_instance(inst, z)[0] is None


def smallest_length(n, m, s, limit=None):
    """The smallest N' at which some offset k makes the family work, and those k."""
    for M in range(n + s + m, limit or 3 * (n + s + m) + 2):
        ks = [k for k in range(1, M) if holds(M, n, m, s, k)]
        if ks:
            return M, ks
    return None, []


PROD1 = "(h¹ * y) = coeff((h + X^{n+m+s+t})(v X^{n+s} + x))"
PROD2 = "h²(X)·z¹(X) = coeff((X^{m+n+s+t} + 1)(v X^{2n+2s+m+t} + p⊙(h∗x)))"
CONV2 = "h² * z¹ = (p⊙(h∗x) | 0^{m+t} | 0^n | p⊙(h∗x) | v | ⋯)"
Z2, Z = "z² = b²₁ ⊙ (h² * z¹)", "z = shift_up(z², 2n+s+m+t)"
# where the printed blocks reach past N (allowed by n + m + s + t <= N) they are cut, so the products fail too
PRINTED_FAILS = (PROD1, PROD2, CONV2, Z2, Z)
WORKING_FAILS = PRINTED_FAILS
FIT_FAILS = (CONV2, Z2, Z)
FIT_WORKING_FAILS = (CONV2, Z2)

# where a one-layer model is excluded by a Gröbner basis (n = 2, m = 1, s = t = 0, N = 5: 16 unknowns)
LEAST_AT = {"n": 2, "m": 1, "s": 0, "t": 0, "N": 5, "d": 1}
L_CERTS = both(not_identity, least_one_layer)

CLAIMS = [
    Claim("H.10", "remember",
          "remember(y : x, v, h, p) = (p ⊙ (h ∗ x) | v | 0) in five layers",
          SIZES, lambda z: Signature(z["N"], 5, z["d"], z["N"], z["d"]),
          (Variant("as printed", build_printed("H.8"), expect="fails", fails_at=PRINTED_FAILS,
                   note="the block display of h² * z¹ is wrong (X^{n+m+s+t} moves p⊙(h∗x) to row n+m+s+t, "
                        "not 2n+s+m+t), so z² is; H.8's printed shift_up is a shift_down"),
           Variant("as printed, working shift_up", build_printed("working"), expect="fails", fails_at=WORKING_FAILS,
                   note="layers 1-2 as printed, then one circular shift_up by 2n+s+m+t: z² still fails"),
           Variant("corrected", construction=lambda z: remember_parametric(z, "max"), numeric=numeric_case,
                   note="two layers on N' = max(N, 2n+s+2m-1, 2n+2s+m) rows")),
          (PAPER, XH, VH), caps=CAPS,
          bounds=signature_bounds("five layers", "N' = N", "d' = d", expect={"N'": "met up to c"})),
    Claim("H.10", "remember (printed blocks fit)",
          "the same, at sizes where every block the printed proof writes fits in N",
          SIZES, lambda z: Signature(z["N"], 5, z["d"], z["N"], z["d"]),
          (Variant("as printed", build_printed("H.8"), expect="fails", fails_at=FIT_FAILS,
                   note="z¹ holds, the display of h² * z¹ and z² fail, the H.8 shift_up fails"),
           Variant("as printed, working shift_up", build_printed("working"), expect="fails", fails_at=FIT_WORKING_FAILS,
                   note="z¹ holds, z² fails, the shift_up step holds from the claimed z²"),
           Variant("corrected (N' = N)", construction=lambda z: remember_parametric(z, "N"), numeric=numeric_case,
                   note="the two-layer route on N rows of claim 'remember (N' = N)': where the printed blocks fit "
                        "(N >= 3n+2s+2m+t), N >= max(2n+s+2m-1, 2n+2s+m) holds too")),
          (PAPER, XH, VH, PRINTED_FITS), caps=CAPS,
          bounds=signature_bounds("five layers", "N' = N", "d' = d")),
    Claim("H.10", "remember (N' = N)",
          "remember(y : x, v, h, p) in two layers on N rows",
          SIZES, lambda z: Signature(z["N"], 5, z["d"], z["N"], z["d"]),
          (Variant("corrected", construction=lambda z: remember_parametric(z, "N"), numeric=numeric_case,
                   note="the size condition was found by an exact sweep (smallest_length)"),),
          (PAPER, FITS), caps=CAPS,
          bounds=signature_bounds("five layers", "N' = N", "d' = d", L_certs=L_CERTS, at_L=at_sizes(LEAST_AT))),
]

if __name__ == "__main__":
    for claim in CLAIMS:
        for v in verify(claim, max_size=8):
            print(v.id, v.name, v.variant, v.verdict, v.signature_built, v.failure.describe() if v.failure else "")
            for st in v.steps:
                print("   ", st.label, "holds" if st.holds else "fails " + st.failure.describe())
    print("n m s  smallest N'  offsets k  max(2n+s+2m-1, 2n+2s+m)")
    for n in (1, 2):
        for m in (1, 2):
            for s in (0, 1, 2):
                M, ks = smallest_length(n, m, s)
                print(n, m, s, " ", M, ks, required_length(n, m, s))
