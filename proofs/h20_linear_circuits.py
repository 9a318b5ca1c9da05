"""Def. H.13 and Corollary H.20: BaseConv computes any linear arithmetic circuit.

Sizes: u ∈ R^{n×d}, x its row-major form; the circuit has nd inputs and nd
outputs, s gates, depth Δ and width w.  The corollary claims an equivalent
(n, Δ', d, w, d)-BaseConv with Δ' = O(Δ log w), citing Theorem H.19
(circuits lie in the kaleidoscope hierarchy) with Lemma H.18; the parts we
have contain no construction for H.19.

symconv has two constructive routes, both through butterfly factor matrices:

* matrix route (``compile_matrix``): M = Σ_c diag(w_c)·Π_c over C colour
  classes of its non-zeros (C = most non-zeros in a row or column), each
  permutation a Beneš network of butterfly factor matrices, the C terms side
  by side in E = 2^⌈log C⌉ row slots with fan-out and fan-in factor matrices.
  On an R₀×D grid (powers of two >= n, d): L = 4·log E + (2·log D − 1) +
  4·log R₀ + 1, N' = E·R₀, d' = 3D.  L does not grow with Δ; N' grows with C
  (up to nd·R₀ for a dense M), against the claimed N' = w.
* levels route (``compile_circuit(..., route="levels")``): one matrix per
  depth level on a vector of P = 2^⌈log max(nd, live wires)⌉ positions, so
  L = Δ·(4·log E + Beneš layers) + 1 = O(Δ·(log E + log P)), E from the
  largest fan-in/fan-out of a level: the shape of the claim when fan-out is
  bounded (prefix sums, Walsh–Hadamard: E = 2, N' = 2P/D).

Checked exactly for six families at every n <= 4, d <= 2, both routes;
``h20_table`` reports the exact sizes against Δ·⌈log w⌉ (the claim with
constant 1) and N' = w, d' = d.
"""
import numpy as np

from symconv import Claim, Hypothesis, Instance, Signature, SizeParam, Variant, sym, verify
from symconv.hypotheses import pow2
from symconv.parametric import size
from symconv.blocks import from_array
from symconv.claims import NumericCase
from symconv.constructions.butterfly import from_row_major, row_major
from symconv.constructions.linear_circuit_families import FAMILIES, h20_table, random_sparse_circuit
from symconv.constructions.linear_circuits import compile_circuit, compile_matrix

SIZES = (SizeParam("n", 1, 4), SizeParam("d", 1, 2))
POW2 = Hypothesis(pow2(size("n"), size("d")), why="Walsh-Hadamard")


def circuit(family, z):
    return FAMILIES[family](z["n"] * z["d"], np.random.default_rng(z["n"] * 10 + z["d"]))


def build(family, route):
    def b(z):
        n, d = z["n"], z["d"]
        c = circuit(family, z)
        u = sym("u", n, d)
        expected = from_array(from_row_major(c.evaluate(row_major(u.entries)), n, d), "C(x)")
        return Instance(u, compile_circuit(c, n, d, route=route), expected)
    return b


def claimed(family):
    def sig(z):
        c = circuit(family, z)
        _, s, depth, w = c.sizes
        return Signature(z["n"], max(1, depth * max(1, int(np.ceil(np.log2(max(w, 2)))))), z["d"],
                         max(w, z["n"]), z["d"])
    return sig


def numeric(N, d, batch, rng):
    """A random sparse circuit (two levels) on nd <= 1024 wires, n about N."""
    n = max(1, min(int(N), 1024 // max(1, int(d))))
    c = random_sparse_circuit(n * d, rng)
    M = c.evaluate(np.eye(n * d)).T

    def reference(u):
        return from_row_major(c.evaluate(row_major(u)), n, d)
    return NumericCase(compile_matrix(M, n, d), rng.standard_normal((batch, n, d)), reference, {"n": n, "d": d})


CLAIMS = [
    Claim("H.20", f"linear circuit: {name}",
          "an (nd, s, Δ, w)-linear circuit as an (n, Δ', d, w, d)-BaseConv, Δ' = O(Δ log w) "
          "(claimed L shown as Δ·⌈log w⌉)",
          SIZES, claimed(name),
          (Variant("matrix route", build(name, "matrix"), numeric=numeric if name == "sparse random" else None,
                   note="matrix split into weighted permutations, Beneš networks of butterfly factors; "
                        "N' = E·R₀, d' = 3D"),
           Variant("levels route", build(name, "levels"),
                   note="one matrix per depth level on the live wires; L = Δ·(4 log E + Beneš) + 1")),
          (POW2,) if name == "Walsh-Hadamard" else ())
    for name in FAMILIES
]

if __name__ == "__main__":
    from tabulate import tabulate
    print(tabulate(h20_table([(2, 2), (4, 4), (8, 8), (16, 16)]), headers="keys"))
    for claim in CLAIMS:
        for v in verify(claim, max_size=8):
            print(v.id, v.name, v.variant, v.verdict, v.seconds)
