"""Prop. H.15 and equation 5: a butterfly factor matrix as diagonals and shifts.

Def. H.14: B_k^(n) = diag of n/k factors [[D1, D2], [D3, D4]] ((k/2)×(k/2) diagonals).
The proof before Prop. H.15 takes, per factor, d = (D1, D4), d⁺ = (0^{k/2}, D2),
d⁻ = (D3, 0^{k/2}), D₁ = diag(d), D₂ = diag(d⁺), D₃ = diag(d⁻) and states
(equation 5) D₁ ≡ [[D1, 0], [0, D4]], D₂ S^{n/2} ≡ [[0, D2], [0, 0]],
S^{n/2} D₃ ≡ [[0, 0], [D3, 0]]; Prop. H.15 then claims, for n = k,
B_k^(n) = S^{k/2} D₃ + D₂ S^{n/2} + D₁.

S^j is not defined in the parts we have.  Every formula with S is checked under
three readings, each labelled in its variant's ``reading``: down, (S^j x)_i = x_{i−j}
(zeros enter at the top); up, its transpose; cyclic, (S^j x)_i = x_{(i−j) mod n}.

How it is checked: each side is a matrix with symbolic entries; the left
side is realised as a BaseConv stack by ``compile_matrix`` (itself verified
in H.20) on a symbolic x ∈ R^n (N = n, d = 1), and its output is compared,
entry by entry, with the right side times x.  Equality for a symbolic x is
equality of the matrices.

Findings (every power of two n ≤ 8, every power of two k ≤ n):
* D₁ ≡ [[D1, 0], [0, D4]] holds; S^{n/2} D₃ ≡ [[0, 0], [D3, 0]] holds with
  S down or cyclic and fails with S up; D₂ S^{n/2} ≡ [[0, D2], [0, 0]] fails
  under every reading: D₂ vanishes on the top half, so D₂·S^j has zero top rows.
* Prop. H.15 as printed fails for every n = k ≥ 2 and for every k < n (not
  stated in the paper), under each reading (``prop_h15_table`` lists each (n, k)).  It holds exactly
  when every D2 block is zero (S down), or every D2 and D3 block (S up).
* What holds for all powers of two k ≤ n: B_k^(n) = D₁ + S^{k/2} D₃ + (S^{k/2})ᵀ D₂.
"""
import numpy as np

from symconv import Claim, Hypothesis, Instance, SizeParam, Variant, sym, verify
from symconv.hypotheses import eq, pow2
from symconv.parametric import size
from symconv.blocks import from_array
from symconv.constructions.butterfly import (diag_matrix, is_pow2, prop_h15_corrected, prop_h15_rhs,
                                             prop_h15_table, shift_matrix, symbolic_factor)
from symconv.constructions.linear_circuits import compile_matrix

SIZES = (SizeParam("n", 2, 8), SizeParam("k", 2, 8))
n, k = size("n"), size("k")
POW2 = Hypothesis(pow2(n), pow2(k), why="Def. H.14")
N_EQ_K = Hypothesis(eq(n, k))
K_LT_N = Hypothesis(k < n)


def matrix_instance(lhs, rhs, n):
    """Realise ``lhs`` as a stack on a symbolic x; expect ``rhs``·x."""
    x = sym("x", n, 1)
    expected = from_array(np.asarray(rhs).dot(x.entries[:, 0]).reshape(n, 1), "rhs·x")
    return Instance(x, compile_matrix(lhs, n, 1), expected)


def cyclic_shift(n, j):
    """C^j (n×n) with (C^j x)_i = x_{(i−j) mod n}: the cyclic reading of S^j."""
    C = shift_matrix(n, 0)
    return np.roll(C, j, axis=0)


def prop_h15_cyclic(F):
    """S^{k/2} D₃ + D₂ S^{n/2} + D₁ as printed, with S^j read as the cyclic shift C^j."""
    D1, D2, D3 = diag_matrix(F.d), diag_matrix(F.d_plus), diag_matrix(F.d_minus)
    return cyclic_shift(F.n, F.k // 2).dot(D3) + D2.dot(cyclic_shift(F.n, F.n // 2)) + D1


def build_prop(form):
    def build(z):
        F = symbolic_factor(z["n"], z["k"], "b")
        lhs = {"down": lambda: prop_h15_rhs(F, "down"), "up": lambda: prop_h15_rhs(F, "up"),
               "cyclic": lambda: prop_h15_cyclic(F),
               "corrected": lambda: prop_h15_corrected(F)}[form]()
        return matrix_instance(lhs, F.to_matrix(), z["n"])
    return build


def block(n, where, F):
    """[[., .], [., .]] with the diagonal D_i of the single factor (n = k) in quadrant ``where``."""
    M = diag_matrix(np.zeros(n, dtype=object))
    h = n // 2
    r, c, t = {"D1": (0, 0, 0), "D2": (0, 1, 1), "D3": (1, 0, 2), "D4": (1, 1, 3)}[where]
    for i in range(h):
        M[r * h + i, c * h + i] = F.D[0, t, i]
    return M


def build_eq5(which, direction="down"):
    def build(z):
        n = z["n"]
        F = symbolic_factor(n, n, "b")
        # the cyclic C^{n/2} is its own transpose, so only "down" and "up" differ below
        S = shift_matrix(n, n // 2) if direction != "cyclic" else cyclic_shift(n, n // 2)
        S = S if direction == "down" else S.T
        if which == "D1":
            lhs, rhs = diag_matrix(F.d), block(n, "D1", F) + block(n, "D4", F)
        elif which == "D2":
            lhs, rhs = diag_matrix(F.d_plus).dot(S), block(n, "D2", F)
        else:
            lhs, rhs = S.dot(diag_matrix(F.d_minus)), block(n, "D3", F)
        return matrix_instance(lhs, rhs, n)
    return build


PRINTED_NOTE = ("fails as printed under every reading of S (down, up, cyclic): d⁺ = (0, D2) vanishes on the "
                "top half, so D₂ S^{n/2} has zero top rows for any matrix S^{n/2}, while B has D2 there")
S_READING = "S^j is not defined in our parts: read as the {} shift, {}"
READ_DOWN = S_READING.format("down", "(S^j x)_i = x_{i−j}")
READ_UP = S_READING.format("up", "(S^j x)_i = x_{i+j}")
READ_CYC = S_READING.format("cyclic", "(S^j x)_i = x_{(i−j) mod n}")
EQ5_D2_NOTE = ("fails as printed under every reading of S: d⁺ = (0, D2) vanishes on the top half, so "
               "D₂ S^{n/2} has zero top rows whatever S^{n/2} is")
VARIANTS = (
    Variant("as printed, S down", build_prop("down"), expect="fails", fails_at=("output",), note=PRINTED_NOTE,
            reading=READ_DOWN),
    Variant("as printed, S up", build_prop("up"), expect="fails", fails_at=("output",), note=PRINTED_NOTE,
            reading=READ_UP),
    Variant("as printed, S cyclic", build_prop("cyclic"), expect="fails", fails_at=("output",), note=PRINTED_NOTE,
            reading=READ_CYC),
    Variant("corrected", build_prop("corrected"),
            note="B_k^(n) = D₁ + S^{k/2} D₃ + (S^{k/2})ᵀ D₂, S down: (S^j x)_i = x_{i−j}"),
)

CLAIMS = [
    Claim("H.15", "butterfly_factor_decomposition",
          "for n = k >= 2 powers of two, B_k^(n) = S^{k/2} D₃ + D₂ S^{n/2} + D₁ (D's of equation 5)",
          SIZES, None, VARIANTS, (POW2, N_EQ_K)),
    Claim("H.15", "butterfly_factor_decomposition (k < n)",
          "the same decomposition for every power of two k < n (d, d⁺, d⁻ taken factor by factor)",
          SIZES, None, tuple(Variant(v.name, v.build, v.expect, v.note, fails_at=v.fails_at,
                                     reading="not stated in the paper: Prop. H.15 is stated for n = k only"
                                             + (f"; {v.reading}" if v.reading else ""))
                             for v in VARIANTS), (POW2, K_LT_N)),
    Claim("H.15", "equation 5",
          "D₁ ≡ [[D1,0],[0,D4]], D₂ S^{n/2} ≡ [[0,D2],[0,0]], S^{n/2} D₃ ≡ [[0,0],[D3,0]] (n = k)",
          SIZES, None,
          (Variant("D₁ ≡ [[D1,0],[0,D4]]", build_eq5("D1")),
           Variant("D₂ S^{n/2} ≡ [[0,D2],[0,0]], S down", build_eq5("D2", "down"), expect="fails", fails_at=("output",),
                   note=EQ5_D2_NOTE, reading=READ_DOWN),
           Variant("D₂ S^{n/2} ≡ [[0,D2],[0,0]], S up", build_eq5("D2", "up"), expect="fails", fails_at=("output",),
                   note=EQ5_D2_NOTE, reading=READ_UP),
           Variant("D₂ S^{n/2} ≡ [[0,D2],[0,0]], S cyclic", build_eq5("D2", "cyclic"), expect="fails",
                   fails_at=("output",), note=EQ5_D2_NOTE, reading=READ_CYC),
           Variant("S^{n/2} D₃ ≡ [[0,0],[D3,0]], S down", build_eq5("D3", "down"), reading=READ_DOWN),
           Variant("S^{n/2} D₃ ≡ [[0,0],[D3,0]], S up", build_eq5("D3", "up"), expect="fails", fails_at=("output",),
                   note="fails as printed with S up (S up moves D3's rows above the matrix); holds with S down",
                   reading=READ_UP),
           Variant("S^{n/2} D₃ ≡ [[0,0],[D3,0]], S cyclic", build_eq5("D3", "cyclic"), reading=READ_CYC)),
          (POW2, N_EQ_K)),
]

if __name__ == "__main__":
    from tabulate import tabulate
    print(tabulate(prop_h15_table(16), headers="keys"))
    for claim in CLAIMS:
        for v in verify(claim, max_size=8):
            print(v.id, v.name, v.variant, v.verdict, v.failure.describe() if v.failure else "")
