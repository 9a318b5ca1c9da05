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

Both routes also run on d' = D channels (variants "..., d' = d"): the same
factor matrices on H.16's d' = d route, N' = 2·E·R₀ (twice the rows),
about 1.5 times the layers (2 per channel factor, 3 per row factor).  Each
variant carries its route's layer count as a step, computed from the
circuit's matrices (most non-zeros per row or column of M, or of each
level's matrix) and the count formula, not from the built stack.

Checked exactly for six families at every n <= 4, d <= 2, both routes;
``h20_table`` reports the exact sizes against Δ·⌈log w⌉ (the claim with
constant 1) and N' = w, d' = d.
"""
import numpy as np

from symconv import Claim, Hypothesis, Instance, Signature, SizeParam, Variant, sym, verify
from symconv.hypotheses import pow2
from symconv.parametric import size
from symconv.blocks import from_array
from symconv.certificates.standard import signature_bounds
from symconv.claims import NumericCase
from symconv.constructions.butterfly import from_row_major, row_major
from symconv.constructions.linear_circuit_families import FAMILIES, h20_table, random_sparse_circuit
from symconv.constructions.linear_circuits import (Gate, LinearCircuit, circuit_level_matrices, compile_circuit,
                                                   compile_matrix,
                                                   compile_matrix_narrow, matrix_layer_count,
                                                   narrow_matrix_layer_count, next_pow2)
from symconv.claims import Step

SIZES = (SizeParam("n", 1, 4), SizeParam("d", 1, 2))
POW2 = Hypothesis(pow2(size("n"), size("d")), why="Walsh-Hadamard")


def circuit(family, z):
    return FAMILIES[family](z["n"] * z["d"], np.random.default_rng(z["n"] * 10 + z["d"]))


def _most_nonzeros(entries):
    """Most non-zeros in one row or column of a matrix given as {(row, col): value}."""
    rows, cols = {}, {}
    for (r, q), v in entries.items():
        if v != 0:
            rows[r] = rows.get(r, 0) + 1
            cols[q] = cols.get(q, 0) + 1
    return max([1] + list(rows.values()) + list(cols.values()))


def route_count(c, n, d, route, narrow):
    """The route's own layer count, from the circuit's matrices (not from the built stack).

    matrix route: one matrix M, E = 2^⌈log C⌉ (C its most non-zeros in a row or column),
    L = 4·log E + Beneš + 1 (d' = 3D) or the d' = D count; levels route: one matrix per depth
    level, E from the level with most colours, L = Δ·(4·log E + Beneš) + 1 (or the d' = D count).
    """
    R0, D = next_pow2(n), next_pow2(d)
    if R0 * D < 2:
        R0 = 2
    if route == "matrix" or c.depth == 0:
        M = c.matrix()
        E = next_pow2(_most_nonzeros({(i, j): M[i, j] for i in range(M.shape[0]) for j in range(M.shape[1])}))
        return narrow_matrix_layer_count(R0, D, E) if narrow else matrix_layer_count(R0, D, E)
    mats, P, D = circuit_level_matrices(c, n, d)
    E = next_pow2(max(_most_nonzeros(A) for A in mats))
    R = P // D
    if narrow:
        return narrow_matrix_layer_count(R, D, E, len(mats))
    return len(mats) * (matrix_layer_count(R, D, E) - 1) + 1


def build(family, route, narrow=False):
    def b(z):
        n, d = z["n"], z["d"]
        c = circuit(family, z)
        u = sym("u", n, d)
        expected = from_array(from_row_major(c.evaluate(row_major(u.entries)), n, d), "C(x)")
        label = (f"{route} route: {'levels × ' if route == 'levels' else ''}"
                 f"{'d′ = D' if narrow else 'd′ = 3D'} layer count")
        steps = (Step(label, 0, kind="count", count=route_count(c, n, d, route, narrow)),)
        return Instance(u, compile_circuit(c, n, d, route=route, narrow=narrow), expected, steps)
    return b


def claimed(family):
    def sig(z):
        c = circuit(family, z)
        _, s, depth, w = c.sizes
        return Signature(z["n"], max(1, depth * max(1, int(np.ceil(np.log2(max(w, 2)))))), z["d"],
                         max(w, z["n"]), z["d"])
    return sig


def _numeric_matrix(compile_fn, N, d, batch, rng):
    """A random sparse circuit (two levels) on nd <= 1024 wires, n about N, its matrix compiled by ``compile_fn``."""
    n = max(1, min(int(N), 1024 // max(1, int(d))))
    c = random_sparse_circuit(n * d, rng)
    M = c.evaluate(np.eye(n * d)).T

    def reference(u):
        return from_row_major(c.evaluate(row_major(u)), n, d)
    return NumericCase(compile_fn(M, n, d), rng.standard_normal((batch, n, d)), reference, {"n": n, "d": d})


def numeric(N, d, batch, rng):
    """The matrix route (d' = 3D) on a random sparse circuit of nd <= 1024 wires."""
    return _numeric_matrix(compile_matrix, N, d, batch, rng)


def numeric_levels(narrow):
    """The levels route on a random sparse circuit of n·d <= 2^16 wires (n about N), float constants.

    Unlike the matrix route, no dense nd×nd matrix is formed (each level's matrix is sparse), so this
    hook reaches N >= 2^14 (d = 1).
    """
    def hook(N, d, batch, rng):
        d = max(1, int(d))
        n = max(1, min(int(N), (1 << 16) // d))
        c = random_sparse_circuit(n * d, rng)
        c = LinearCircuit(c.n_inputs, tuple(Gate(g.wire, float(g.a), g.x, float(g.b), g.y) for g in c.gates),
                          c.outputs)

        def reference(u):
            return from_row_major(c.evaluate(row_major(u)), n, d)
        return NumericCase(compile_circuit(c, n, d, route="levels", narrow=narrow),
                           rng.standard_normal((batch, n, d)), reference, {"n": n, "d": d})
    return hook


def numeric_narrow(N, d, batch, rng):
    """As :func:`numeric`, on the d' = D route (N' = 2·E·R₀)."""
    return _numeric_matrix(compile_matrix_narrow, N, d, batch, rng)


#: the families drawn at random: each size point checks one seeded circuit (the input stays symbolic)
SEEDED = {"permutation": "one seeded permutation circuit per size (seed 10·n + d)",
          "sparse random": "one seeded sparse circuit per size (integer coefficients ±1…±3, seed 10·n + d)",
          "dense random": "one seeded dense circuit per size (integer coefficients ±1…±3, seed 10·n + d)"}


def variant(name, *args, **kw):
    """A Variant of family ``name``, saying which circuit it checks where the family is drawn at random."""
    return Variant(*args, instances=SEEDED.get(name, ""), **kw)


CLAIMS = [
    Claim("H.20", f"linear circuit: {name}",
          "an (nd, s, Δ, w)-linear circuit as an (n, Δ', d, w, d)-BaseConv, Δ' = O(Δ log w) "
          "(claimed L shown as Δ·⌈log w⌉)",
          SIZES, claimed(name),
          (variant(name, "matrix route", build(name, "matrix"), numeric=numeric if name == "sparse random" else None,
                   note="matrix split into weighted permutations, Beneš networks of butterfly factors; "
                        "N' = E·R₀, d' = 3D"),
           variant(name, "levels route", build(name, "levels"),
                   numeric=numeric_levels(False) if name == "sparse random" else None,
                   note="one matrix per depth level on the live wires; L = Δ·(4 log E + Beneš) + 1"),
           variant(name, "matrix route, d' = d", build(name, "matrix", True),
                   numeric=numeric_narrow if name == "sparse random" else None,
                   note="the matrix route's factors on H.16's d' = d route: N' = 2·E·R₀, d' = D "
                        "(= d for d a power of two); 2 layers a channel factor, 3 a row factor"),
           variant(name, "levels route, d' = d", build(name, "levels", True),
                   numeric=numeric_levels(True) if name == "sparse random" else None,
                   note="the levels route's factors on H.16's d' = d route: N' = 2·E·P/D, d' = D")),
          (POW2,) if name == "Walsh-Hadamard" else (),
          bounds=signature_bounds("O(Δ log w)", "N' = w", "d' = d", big_o=("L",),
                                  expect={"L": "met up to c", "N'": "met up to c"}))
    for name in FAMILIES
]

if __name__ == "__main__":
    from tabulate import tabulate
    print(tabulate(h20_table([(2, 2), (4, 4), (8, 8), (16, 16)]), headers="keys"))
    for claim in CLAIMS:
        for v in verify(claim, max_size=8):
            print(v.id, v.name, v.variant, v.verdict, v.seconds)
