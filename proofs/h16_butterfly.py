"""Lemma H.16: BaseConv computes butterfly factor matrices (1) and butterfly matrices (2).

Sizes: u ∈ R^{n×d}, x its row-major form (x[i·d + j] = u[i, j]); n, d >= 2 and
powers of two (nd must be one for B^(nd) to exist); k a power of two <= nd.

(1) The proof writes B_k^(nd)·x ≡ D₁′⊙u + D₂′⊙u + D₃′⊙u, with D₁′, D₂′, D₃′
the row-major reshapes of d₁ = diag D₁, d₂ = 1·(D₂ S^{n/2}), d₃ = 1·(S^{k/2} D₃),
then spends three Hadamard layers and three add_n calls (six layers): nine in
all.  That step drops the shifts: the right side is a diagonal matrix, so the
variant "as printed" fails (built here as three Hadamard products side by side
and a sum).  The corrected construction (``compile_butterfly_factor``) keeps
them: y_q = d_q x_q + e_q x_{q XOR k/2}.
  * k ≤ d: the partner is in the same row of u, channels j ↔ j XOR k/2: one
    layer (z·W) ⊙ (d | e | 0) with a permutation inside W, then one sum layer.
  * k > d: the partner is m = k/(2d) rows away: (z·W) ⊙ (d | d⁻ | d⁺), then a
    circular layer shifting block 1 down and block 2 up by m rows, then the sum
    layer.  Shifting up needs the circular layer: no causal stack can (H.8).
  Layers: 2 or 3 (proof: 9); N' = n, d' = 3d.

(2) B^(nd) = B_nd ⋯ B_2: the factors share the three-block state, so each
costs 1 (k ≤ d) or 2 layers and one sum layer ends the stack:
L = log d + 2·log n + 1, against the proof's 5·log(nd) (and 9·log(nd) by its
own count in (1)).
"""
import numpy as np

from symconv import Claim, Hypothesis, Instance, Signature, SizeParam, Step, Variant, sym, verify
from symconv.hypotheses import at_most_product, pow2
from symconv.parametric import size
from symconv.blocks import from_array
from symconv.claims import NumericCase
from symconv.constructions.butterfly import (butterfly_layer_count, compile_butterfly,
                                             compile_butterfly_factor, factor_layer_count,
                                             from_row_major, is_pow2, log2, printed_hadamard_sum,
                                             random_butterfly, random_factor, row_major,
                                             symbolic_butterfly, symbolic_factor)

n, d, k = size("n"), size("d"), size("k")
HYP = (Hypothesis(pow2(n), pow2(d), n >= 2, d >= 2),)
HYP_K = HYP + (Hypothesis(pow2(k), k >= 2, at_most_product(k, n, d)),)
SIZES_1 = (SizeParam("n", 2, 4), SizeParam("d", 2, 4), SizeParam("k", 2, 16))
SIZES_2 = (SizeParam("n", 2, 4), SizeParam("d", 2, 4))
PROOF_LAYERS_1 = 3 + 6   # three Hadamard layers, three add_n calls of two layers each


def apply_rows(F, u):
    """B·x reshaped back to n×d, as a Block (the reference product)."""
    n, d = u.shape
    return from_array(from_row_major(F.apply(row_major(u.entries)), n, d), "B·x")


def state(n, blocks):
    """A full N'×3d state from three n×d arrays (the claimed intermediate state)."""
    return from_array(np.concatenate(blocks, axis=1), "state")


def build_factor(z):
    n, d, k = z["n"], z["d"], z["k"]
    F = symbolic_factor(n * d, k, "b")
    u = sym("u", n, d)
    stack = compile_butterfly_factor(F, n, d)
    x = row_major(u.entries)
    grid = lambda v: np.asarray(v).reshape(n, d)
    zero = np.zeros((n, d), dtype=object)
    zero[...] = 0
    if k // 2 < d:
        partner = x.reshape(-1, k // 2 * 2)  # swap halves of each length-k block: x[q XOR k/2]
        swapped = np.concatenate([partner[:, k // 2:], partner[:, :k // 2]], axis=1).ravel()
        steps = (Step("(d⊙x | e⊙x[q XOR k/2] | 0)", 1, state(n, [grid(F.d * x), grid(F.partner * swapped), zero])),)
    else:
        m = k // (2 * d)
        y1, y2, y3 = grid(F.d * x), grid(F.d_minus * x), grid(F.d_plus * x)
        down = np.concatenate([zero[:m], y2[:n - m]], axis=0)
        up = np.concatenate([y3[m:], zero[:m]], axis=0)
        steps = (Step("y₁ = D₁′⊙u, d⁻⊙u, d⁺⊙u", 1, state(n, [y1, y2, y3])),
                 Step(f"shift block 2 down, block 3 up by {m} rows", 2, state(n, [y1, down, up])))
    return Instance(u, stack, apply_rows(F, u), steps)


def build_factor_printed(z):
    n, d, k = z["n"], z["d"], z["k"]
    F = symbolic_factor(n * d, k, "b")
    u = sym("u", n, d)
    return Instance(u, printed_hadamard_sum(F, n, d), apply_rows(F, u))


def build_butterfly(z):
    n, d = z["n"], z["d"]
    B = symbolic_butterfly(n * d, "b")
    u = sym("u", n, d)
    return Instance(u, compile_butterfly(B, n, d), apply_rows(B, u))


def _shape(N, d):
    """Powers of two n <= N and d' <= d (at least 1 each, n·d >= 2)."""
    n = 1 << max(0, int(N).bit_length() - 1)
    dd = 1 << max(0, int(d).bit_length() - 1)
    if n * dd < 2:
        n = 2
    return n, dd


def _case(stack, M, n, d, batch, rng, sizes):
    def reference(u):
        return from_row_major(M.apply(row_major(u)), n, d)
    return NumericCase(stack, rng.standard_normal((batch, n, d)), reference, sizes)


def numeric_factor(N, d, batch, rng):
    """B_k^(nd) with k = nd (the longest row shift), random entries in [−1, 1]."""
    n, d = _shape(N, d)
    F = random_factor(n * d, n * d, rng)
    return _case(compile_butterfly_factor(F, n, d), F, n, d, batch, rng, {"n": n, "d": d, "k": n * d})


def numeric_butterfly(N, d, batch, rng):
    """B^(nd) with random entries in [−1, 1]."""
    n, d = _shape(N, d)
    B = random_butterfly(n * d, rng)
    return _case(compile_butterfly(B, n, d), B, n, d, batch, rng, {"n": n, "d": d})


CLAIMS = [
    Claim("H.16", "butterfly_factor_matrix",
          "(1) B_k^(nd)·x in O(1) layers, N' = O(n), d' = O(d) (proof: 3 Hadamard + 6 add_n layers)",
          SIZES_1, lambda z: Signature(z["n"], PROOF_LAYERS_1, z["d"], z["n"], z["d"]),
          (Variant("as printed", build_factor_printed, expect="fails", fails_at=("output",),
                   note="B x ≡ D₁′⊙u + D₂′⊙u + D₃′⊙u drops the shifts S^{k/2}, S^{n/2}: a diagonal map"),
           Variant("corrected", build_factor, numeric=numeric_factor,
                   note="y_q = d_q x_q + e_q x_{q XOR k/2}: channel swap via W (k <= d) or circular row "
                        "shifts (k > d); 2 or 3 layers, N' = n, d' = 3d")),
          HYP_K),
    Claim("H.16", "butterfly_matrix",
          "(2) B^(nd)·x in O(log nd) layers (proof: 5·log(nd)), N' = O(n), d' = O(d)",
          SIZES_2, lambda z: Signature(z["n"], 5 * log2(z["n"] * z["d"]), z["d"], z["n"], z["d"]),
          (Variant("construction", build_butterfly, numeric=numeric_butterfly,
                   note="log d + 2·log n + 1 layers, N' = n, d' = 3d"),),
          HYP),
]


def layer_table(shapes=((2, 2), (4, 4), (2, 64), (64, 2), (32, 32), (1024, 1024))):
    """Exact layer counts against the proof's counts, for a few (n, d)."""
    rows = []
    for n, d in shapes:
        ks = [2 << t for t in range(log2(n * d))]
        rows.append({"n": n, "d": d, "nd": n * d,
                     "B_k (k<=d) L": factor_layer_count(2, d) + 1,
                     "B_k (k>d) L": (factor_layer_count(n * d, d) + 1) if n > 1 else "-",
                     "proof (1) L": PROOF_LAYERS_1,
                     "B^(nd) L": butterfly_layer_count(n, d),
                     "printed 5·log(nd)": 5 * log2(n * d),
                     "proof's own 9·log(nd)": 9 * log2(n * d),
                     "H.11 stack of (1)": sum(factor_layer_count(k, d) + 1 for k in ks)})
    return rows


if __name__ == "__main__":
    from tabulate import tabulate
    print(tabulate(layer_table(), headers="keys"))
    for claim in CLAIMS:
        for v in verify(claim, max_size=8):
            print(v.id, v.name, v.variant, v.verdict, v.failure.describe() if v.failure else "")
