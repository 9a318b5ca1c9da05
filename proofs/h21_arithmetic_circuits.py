"""Theorem H.21: any (nd, s, Δ, w) arithmetic circuit has an (N, Δ', d, N', d') BaseConv model
with N = n, Δ' = O(Δ log w), N' = O(w), d' = d.

Sizes.  The circuit reads x, the row-major form of u ∈ R^{n×d}, and writes its
outputs row-major into the n×d output.

Proof, as symconv follows it (symconv.constructions.arithmetic):

1. Layer the circuit (symconv.circuits.layering): layers of only linear gates
   and layers of only multiplication gates, each gate as early as possible,
   every wire carried to the last layer that reads it.  L_C ≤ 2Δ + 1.
2. A linear layer z ↦ M''z (+ constants) is compiled by wire routing: copies
   by monotone moves and doubling, a Beneš permutation, coefficients, doubling
   sums, placement: O(log K) layers, K = O(w) the frame, d' = d.  The paper
   calls Corollary H.20 here; the variant "linear layers by Cor. H.20" does
   exactly that (symconv.constructions.linear_circuits.compile_matrix on the
   row-major wire vector).  It holds too, but compile_matrix works on three
   blocks of 2^⌈log d⌉ channels, so that route gives d' = 3·2^⌈log d⌉, not
   d' = d.  The permutation R^ℓ of a multiplication layer is folded into the
   linear layer before it (one matrix R^ℓ·M'' instead of two).
3. A multiplication layer is one layer, (y·I) ⊙ (e_T * y + 1_{v3}), with
   v2 | v1 | v3 laid out T rows apart (T = max(#gates, #carried)).

Where following the proof literally does not give a working model: the
multiplication step calls remember(y : v2, v3, e_0, v1) with y = (v2, v3, 0),
after a projection that "extracts v1".  In Prop. H.10 the fourth argument p
is a gate *parameter*; a model whose parameters are the data v1 is not a
BaseConv model of u, and once the state is (v2 | v3 | 0) no later layer can
see v1.  The variant "remember(y : v2, v3, e_0, p) as printed" builds exactly
that (projection by a working shift_up, then Prop. H.10's corrected remember
with a symbolic constant p) and fails: it computes p ⊙ v2, not v1 ⊙ v2.  Its
printed displays are steps: y^ℓ ≡ (v2, v3, 0) after the one projection layer
(holds) and z^{ℓ+1} ≡ (v1 ⊙ (e_0 ∗ v2) | v3 | 0) ≡ (v1 ⊙ v2 | v3 | 0) (fails).  The
variant with the data v1 passed as p (the call taken literally) holds, but is
not a BaseConv model of the input.  The
product must come from the data branch u·W of the gate, as in step 3.

The claimed signature shown is the theorem's orders without constants,
(n, Δ·⌈log₂ w⌉, d, w, d), with Δ and w under explicit definitions
(symconv.circuits.paper_sizes): Δ the depth of the fan-in-2 form of the
circuit (Def. H.13's gates a·x + b·y), w its cut width (the most wires alive
across a level, inputs included).  The proof needs that width: its step
"w′ + s ≤ w as w is the width" is w ≥ cut width, and it fails for Horner's
rule when w is the most gates on one level (level width 1, two wires alive).
With the level width, 4·Δ·⌈log₂ w⌉ is 0 for Horner: no stack of 0 layers
computes a polynomial of degree ≥ 2 (one general layer at most doubles the
degree), so the bound with constant 4 is false under that definition.

The variant "tight layout" is the same construction with smaller sizes
(symconv.constructions.arithmetic, layout="tight"): v2 | v3 | v1
multiplication layers, or one layer in place when the operands already sit a
common distance apart, a state of t·(K + S) rows instead of 6K, terms routed
straight to their rows, and channel blocks for d > 1.  For d > 1, a first
multiplication level whose pairs each sit in one row of u is one layer
(u·W) ⊙ (e_0 * u) with W taking each pair's partner channel onto its host
channel: x·y with d = 2 is one layer.  The random family's variant "gapped
layout" (layout="gapped") leaves rows for the next route's copies and terms.
The variant "lean layout" (layout="lean") is tight with runs of consecutive
routing stages merged into one stage (their composition) where that saves
layers, with at most 3 shifts and none above tight's largest, so N' is
tight's; constants go into the b2 of the layer before.  The random family's
"lean layout, 9 shifts" lets a merged stage take 9 shifts (N' ≤ 9·(K + S)).
bound_table() compares L and N' with 4·Δ·⌈log₂ w⌉ and 4w under both width
definitions.
``python proofs/h21_arithmetic_circuits.py`` prints the table.
"""
import math
from dataclasses import replace
from functools import lru_cache

import numpy as np

from symconv.model import HypothesisError
import sympy

from symconv import Claim, Hypothesis, Instance, Signature, SizeParam, Step, Variant, sym, verify, zeros
from symconv.hypotheses import divides, pow2
from symconv.parametric import size
from symconv.circuits import (det3_circuit, evaluate, expected_block, horner_circuit,
                              matmul_circuit, paper_sizes, powers_circuit, product_circuit, random_circuit)
from symconv.certificates.standard import both, degree, not_identity, signature_bounds
from symconv.claims import NumericCase
from symconv.constructions.arithmetic import compile_arithmetic
from symconv.constructions.remember import remember, required_length
from symconv.constructions.shifts import shift_up
from symconv.model import Stack

D_SIZE = SizeParam("d", 1, 2)


# Theorem H.21's orders: L = O(Δ log w), N' = O(w), d' = d; layers bounded below by the target's degree
H21_BOUNDS = signature_bounds("O(Δ log w)", "O(w)", "d' = d", L_certs=both(not_identity, degree), big_o=("L", "N'"),
                              expect={"L": "met up to c", "N'": "met up to c"})


def claimed_for(circuit, n, d):
    """(n, Δ⌈log₂ w⌉, d, w, d): Δ, w = depth and cut width of the fan-in-2 form (paper_sizes)."""
    ps = paper_sizes(circuit)
    w, D = ps["cut_width"], ps["depth"]
    return Signature(n, D * max(1, math.ceil(math.log2(max(w, 2)))), d, w, d)


def bound(circuit, width="cut"):
    """(L bound 4·Δ·⌈log₂ w⌉, N' bound 4w) under the given width definition ("cut" or "level")."""
    ps = paper_sizes(circuit)
    w = ps["cut_width"] if width == "cut" else ps["level_width"]
    return 4 * ps["depth"] * math.ceil(math.log2(w)) if w > 1 else 0, 4 * w


@lru_cache(maxsize=64)
def compiled(key, n, d, merge=False, linear="routing", layout="proof", shifts=None, seed=0):
    return compile_arithmetic(build_circuit(key), n, d, merge, linear=linear, layout=layout, shifts=shifts, seed=seed)


def build_circuit(key):
    kind, k = key
    if kind == "xy":
        return product_circuit(2)
    if kind == "product":
        return product_circuit(k)
    if kind == "horner":
        return horner_circuit(list(sympy.symbols(f"c0:{k + 1}")))
    if kind == "matmul":
        return matmul_circuit(k)
    if kind == "det3":
        return det3_circuit()
    if kind == "powers":
        return powers_circuit(k)
    if kind == "random":
        return random_circuit(2 * k, 2 * k, k, seed=k, n_outputs=min(2 * k, 4), sparse=True)
    raise ValueError(kind)


def instance(key, n, d, merge=False, linear="routing", layout="proof", shifts=None, seed=0):
    cc = compiled(key, n, d, merge, linear, layout, shifts, seed)
    u = sym("u", n, d)
    return Instance(u, cc.stack, expected_block(cc.circuit, u))


NUMERIC_BUDGET = 1 << 16  # N·d: width N, d channels; about 550 layers on 12·N rows at the budget


CELLS_BUDGET = 16384  # N·d for the cells layout: M = 2w cells must stay within cells.MAX_CELLS (w ≈ 1.6·N here)


def numeric_for(kind, layout="proof"):
    """Numeric cases at scale: the product of N inputs (width N), or a random circuit of width ≈ N.

    The run costs about (layers)·(12·N rows)·d, so the hook refuses N·d above NUMERIC_BUDGET
    (CELLS_BUDGET for the cells layout, whose M = 2w cells are capped by cells.MAX_CELLS).
    """
    def numeric(N, d, batch, rng):
        if layout == "cells" and N * d > CELLS_BUDGET:
            raise HypothesisError(
                f"N: the cells layout plans every token's moves on M = 2w cells (at most 65536, w ≈ 1.6·N here); "
                f"this hook runs up to N·d = {CELLS_BUDGET} (e.g. --N 16384 --d 1), got N = {N}, d = {d}")
        if N * d > NUMERIC_BUDGET:
            raise HypothesisError(
                f"N: a circuit of width N = {N} compiled with d = {d} channels runs on about {12 * N} rows "
                f"and d channels for hundreds of layers; this hook runs up to N·d = {NUMERIC_BUDGET} "
                f"(e.g. --N 65536 --d 1)")
        n = max(1, N // d)
        if kind == "product":
            c = product_circuit(n * d)
            X = rng.uniform(0.9, 1.1, size=(batch, n * d))
        else:
            c = random_circuit(n * d, n * d, 3, seed=1, n_outputs=min(n * d, 16), sparse=True)
            X = rng.uniform(-1.0, 1.0, size=(batch, n * d))
        cc = compile_arithmetic(c, n, d, layout=layout)

        def reference(u):
            u = np.asanyarray(u)
            B = u.shape[0]
            vals = evaluate(c, [u[:, i // d, i % d] for i in range(n * d)])
            out = np.zeros((B, n * d), dtype=u.dtype)
            for k, v in enumerate(vals):
                out[:, k] = v
            return out.reshape(B, n, d)
        return NumericCase(cc.stack, X.reshape(batch, n, d), reference, {"n": n, "d": d, "w": c.width})
    return numeric


def family(name, statement, key_of, n_of, sizes, hypotheses=(), numeric=None, extra=(), h20_where=None,
           tight_numeric=None, bounds=H21_BOUNDS, lean_numeric=None, cells_where=None, cells_numeric=None,
           cells=True, cells_seed=None, instances=""):
    """The claim of one circuit family.  ``cells_seed``: {(size, value) pairs: seed} for the sizes where the
    cell search's seed 0 finds no plan (or is slow) and a recorded seed does: a witness of the search, the
    stack it gives being checked exactly like any other."""
    def builder(**how):
        """The variant's instance: the family's circuit compiled with ``how`` (linear=..., layout=...)."""
        return lambda s: instance(key_of(s), n_of(s), s.get("d", 1), **how)

    def build_cells(s):
        seed = next((v for k, v in (cells_seed or {}).items() if all(s.get(p) == x for p, x in k)), 0)
        return instance(key_of(s), n_of(s), s.get("d", 1), layout="cells", seed=seed)

    def claimed(s):
        return claimed_for(build_circuit(key_of(s)), n_of(s), s.get("d", 1))
    build, build_h20 = builder(), builder(linear="H.20")
    build_tight, build_lean = builder(layout="tight"), builder(layout="lean")
    variants = (Variant("construction", build, note="layered as in the proof; R^ℓ folded into the linear layer",
                        numeric=numeric),
                Variant("linear layers by Cor. H.20", build_h20,
                        note="the paper's route: each linear layer is compile_matrix(M''); d' = 3·2^⌈log d⌉, not d",
                        where=h20_where),
                Variant("tight layout", build_tight, numeric=tight_numeric,
                        note="v2 | v3 | v1 or in-place multiplication layers, N' = t·(K + S) instead of 6K, "
                             "channel blocks for d > 1; against L ≤ 4Δ⌈log₂w⌉ and N' ≤ 4w (w = cut width) see "
                             "bound_table()"),
                Variant("lean layout", build_lean, numeric=lean_numeric,
                        note="tight, with consecutive routing stages merged into one stage (at most 3 shifts when it needs a "
                             "spread; shifts no larger than tight's, so the same N') and constants added through the "
                             "b2 of the layer before: no more layers than tight (fewer on most circuits), same rows "
                             "(bench circuits --layout lean)"),
                ) + ((Variant("cells layout", build_cells, where=cells_where, numeric=cells_numeric,
                        note="N' = 2M rows, M = max(2w, n·d, 4) cells (w = cut width) and a spare region, on channel 0 (for d > 1 two "
                             "layers in and two out); masked shift "
                             "steps of two layers move any tokens by any shift, products in a two-layer gate "
                             "round; a seeded search plans every token's moves within 4Δ⌈log₂w⌉ layers (from "
                             "M = 512 cells a deterministic planner first; the box is below that)"
                             + ("; the search's seed is recorded where seed 0 finds no plan or is slow: "
                                + ", ".join(f"{', '.join(f'{p} = {x}' for p, x in k)}: seed {v}"
                                            for k, v in cells_seed.items()) if cells_seed else "")
                             + " (symconv.constructions.cells; bench circuits --layout cells)"),) if cells else ()
                ) + tuple(extra)
    if instances:  # a family drawn at random: every variant checks the same seeded circuit per size
        variants = tuple(replace(v, instances=instances) for v in variants)
    return Claim("H.21", name, statement, sizes, claimed, variants, hypotheses, bounds=bounds)


# ---- the multiplication step as printed: remember(y : v2, v3, e_0, p) after projecting v1 away

STEP_Y = "y^ℓ ≡ (v₂, v₃, 0) by an (n, 1, d, n, d) projection"
STEP_Z = "z^{ℓ+1} ≡ (v₁⊙(e₀∗v₂) | v₃ | 0) ≡ (v₁⊙v₂ | v₃ | 0)"


def printed_mult_layer(s, p_is_v1=False):
    """Input (v1 | v2 | v3 | 0) = R^ℓz^ℓ; projection = shift_up by m (y = (v2 | v3 | 0)); remember with p.

    ``p_is_v1``: pass the data v1 itself as Prop. H.10's gate parameter p (the literal call
    remember(y : v2, v3, e_0, v1)); otherwise p is a symbolic constant.  Steps: y^ℓ after the
    one projection layer, and z^{ℓ+1} after remember (its two ≡ forms are one state: e_0 ∗ v2 = v2).
    """
    m, r = s["m"], s["r"]
    N = max(2 * m + r, required_length(m, r, 0))
    v1, v2, v3 = sym("v1", m), sym("v2", m), sym("v3", r)
    y = v1 | v2 | v3 | zeros(N - 2 * m - r)
    p = v1 if p_is_v1 else sym("p", m)                # the gate parameter of Prop. H.10
    proj = shift_up(N, m)                             # (v2 | v3 | 0): v1 is gone
    rem = remember(N, m, r, 0, 0, [[1]] + [[0]] * (m - 1), p.entries, N_int=N)
    stack = Stack(N, 1, proj.layers + rem.layers, N, 1, name="projection ; remember(y : v2, v3, e_0, p)")
    expected = (v1 * v2) | v3 | zeros(N - m - r)
    steps = (Step(STEP_Y, len(proj.layers), v2 | v3 | zeros(N - m - r)),
             Step(STEP_Z, len(proj.layers) + len(rem.layers), expected))
    return Instance(y, stack, expected, steps)


def working_mult_layer(s, layout="proof"):
    """The same input through symconv's one multiplication layer (after the routing to T-apart blocks), or
    the layer as a circuit compiled with another ``layout``."""
    from symconv.circuits import CircuitBuilder

    m, r = s["m"], s["r"]
    b = CircuitBuilder(2 * m + r)
    outs = [b.mul(k, m + k) for k in range(m)] + list(range(2 * m, 2 * m + r))
    c = b.build(outs)
    N = 2 * m + r
    cc = compile_arithmetic(c, N, 1, layout=layout)
    v1, v2, v3 = sym("v1", m), sym("v2", m), sym("v3", r)
    y = v1 | v2 | v3
    return Instance(y, cc.stack, (v1 * v2) | v3 | zeros(N - m - r))


MULT_SIZES = (SizeParam("m", 1, 3), SizeParam("r", 1, 2))

CLAIMS = [
    family("x·y", "x·y, the smallest circuit with a multiplication", lambda s: ("xy", 2),
           lambda s: 2 // s["d"], (D_SIZE,), (Hypothesis(divides(size("d"), 2)),),
           # the tight layout builds x·y in one layer for d = 1 and d = 2: L = Δ⌈log₂w⌉ = 1, met without a constant
           bounds=signature_bounds("O(Δ log w)", "O(w)", "d' = d", L_certs=both(not_identity, degree),
                                   big_o=("L", "N'"), expect={"L": "met", "N'": "met up to c"}),
           cells_where=Hypothesis(size("d") <= 1, why="d = 2: the cells layout's 4 channel layers exceed "
                                                      "4Δ⌈log₂w⌉ = 4")),
    family("product", "x_0·…·x_{k−1} by a balanced tree (Δ = ⌈log₂ k⌉, w = k)", lambda s: ("product", s["k"]),
           lambda s: s["k"] // s["d"], (SizeParam("k", 2, 8), D_SIZE),
           (Hypothesis(divides(size("d"), size("k"))),), numeric=numeric_for("product"),
           tight_numeric=numeric_for("product", "tight"), cells_numeric=numeric_for("product", "cells"),
           cells_where=Hypothesis(size("k") >= 2 * size("d"), why="k = 2, d = 2 is x·y: the cells layout's 4 "
                                                                  "channel layers exceed 4Δ⌈log₂w⌉ = 4")),
    family("Horner", "Σ c_i x^i by Horner's rule, symbolic coefficients c_i (Δ = 2k)",
           lambda s: ("horner", s["k"]), lambda s: 1, (SizeParam("k", 1, 8),), cells=False),
    family("matmul", "C = A·B for p×p matrices (inputs A | B row-major)", lambda s: ("matmul", s["p"]),
           lambda s: 2 * s["p"] ** 2 // s["d"], (SizeParam("p", 1, 2), D_SIZE),
           (Hypothesis(divides(size("d"), 2, size("p"), size("p"))),),
           cells_where=Hypothesis(size("p") >= size("d"), why="p = 1, d = 2: the cells layout's 4 channel layers "
                                                              "exceed 4Δ⌈log₂w⌉ = 4"),
           cells_seed={(("p", 2), ("d", 1)): 1, (("p", 2), ("d", 2)): 3}),
    family("powers", "x² + x⁴ + … + x^(2^k), every power carried to a sum at the end "
           "(level width 1, cut width k)", lambda s: ("powers", s["k"]), lambda s: 1, (SizeParam("k", 1, 4),)),
    family("det3", "the 3×3 determinant (cofactor expansion)", lambda s: ("det3", 0),
           lambda s: 9 // s["d"], (SizeParam("d", 1, 3),),
           (Hypothesis(divides(size("d"), 9)),), cells_seed={(("d", 1),): 2}),
    family("random", "random circuits: width 2k, depth k, 2k inputs (k = 1, 2, 4, 8: width up to 16)",
           lambda s: ("random", s["k"]), lambda s: 2 * s["k"], (SizeParam("k", 1, 8),),
           (Hypothesis(pow2(size("k"))),),
           numeric=numeric_for("random"),
           h20_where=Hypothesis(size("k") <= 4, why="a cost limit of this variant, not a hypothesis of the claim: "
                                                    "k = 8 is not checked"),
           tight_numeric=numeric_for("random", "tight"), lean_numeric=numeric_for("random", "lean"),
           cells_numeric=numeric_for("random", "cells"),
           instances="one seeded sparse random circuit per size (random_circuit, seed k); its inputs symbolic",
           extra=(Variant("linear chains merged", lambda s: instance(("random", s["k"]), 2 * s["k"], 1, True),
                          note="layering(merge_linear=True): consecutive linear gates as one affine map"),
                  Variant("gapped layout", lambda s: instance(("random", s["k"]), 2 * s["k"], 1, layout="gapped"),
                          numeric=numeric_for("random", "gapped"),
                          note="tight, with v1 | v3 | v2 multiplication layers whose rows leave a gap per later "
                               "use and per term, so copies need no moves and the Beneš network lands each "
                               "target's terms on its own rows (no placing); fewer layers on some random "
                               "circuits, more rows on all (bench circuits --layout gapped)"),
                  Variant("lean layout, 9 shifts",
                          lambda s: instance(("random", s["k"]), 2 * s["k"], 1, layout="lean", shifts=9),
                          where=Hypothesis(size("k") <= 2, why="a cost limit of this variant, not a "
                                                               "hypothesis of the claim: k = 4, 8 are not checked"),
                          note="lean with merged stages of up to 9 shifts and no shift cap: L under "
                               "4Δ⌈log₂w⌉ on the random circuits, on N' ≤ 9·(K + S) rows, far above 4w "
                               "(bench circuits --shifts 9)"),)),
    Claim("H.21", "mult layer", "a layer of m multiplications v1 ⊙ v2 that keeps r carried wires v3",
          MULT_SIZES, lambda s: Signature(2 * s["m"] + s["r"], math.ceil(math.log2(2 * s["m"] + s["r"])), 1,
                                          2 * s["m"] + s["r"], 1),
          (Variant("remember(y : v2, v3, e_0, p) as printed", printed_mult_layer, expect="fails", fails_at=(STEP_Z,),
                   note="fails as printed: p is a parameter of Prop. H.10 (a bias); after the projection v1 is "
                        "not in the state, so the output is p ⊙ v2 for every choice of p.  The projection step "
                        "y^ℓ ≡ (v₂, v₃, 0) holds (one layer)"),
           Variant("remember(y : v2, v3, e_0, v1), v1 as the parameter p", lambda s: printed_mult_layer(s, True),
                   reading="literal call with the data v₁ passed as the gate parameter p of Prop. H.10: it "
                           "computes z^{ℓ+1}, but its parameters are then the input's values, so it is not a "
                           "BaseConv model of the input; with p fixed (a model) it fails (variant above)",
                   note="every step holds when p = v₁: the printed call is right except that p must be data"),
           Variant("construction", working_mult_layer,
                   note="routing to v2 | v1 | v3 blocks T apart, then (y·I) ⊙ (e_T * y + 1_{v3})"),
           *(Variant(f"{layout} layout", lambda s, layout=layout: working_mult_layer(s, layout),
                     note=f"the layer as a circuit, compiled with layout={layout!r} (as the families' variant "
                          f"'{layout} layout')") for layout in ("tight", "lean", "cells"))),
          bounds=signature_bounds("O(Δ log w)", "O(w)", "d' = d", L_certs=both(not_identity, degree),
                                  big_o=("L", "N'"), expect={"L": "met up to c", "N'": "met up to c"},
                                  exclude=("remember(y : v2, v3, e_0, v1), v1 as the parameter p",))),
]


NAMED = [("x·y", ("xy", 2), 2, 1), ("x·y", ("xy", 2), 1, 2), ("product", ("product", 8), 8, 1),
         ("product", ("product", 8), 4, 2), ("Horner", ("horner", 8), 1, 1), ("powers", ("powers", 4), 1, 1),
         ("matmul", ("matmul", 2), 4, 2), ("det3", ("det3", 0), 3, 3), ("random", ("random", 4), 8, 1),
         ("random", ("random", 8), 16, 1)]


def bound_table(rows=NAMED, layout="tight"):
    """Built L and N' against 4·Δ·⌈log₂ w⌉ and 4w, w = cut width and w = level width."""
    out = []
    for name, key, n, d in rows:
        c = build_circuit(key)
        ps = paper_sizes(c)
        sig = compiled(key, n, d, layout=layout).stack.signature
        (Lc, Nc), (Ll, Nl) = bound(c, "cut"), bound(c, "level")
        from symconv.certificates.degree import DegreeCertificate

        inst = instance(key, n, d, layout=layout)
        L_low = DegreeCertificate.of(inst.input, inst.expected).lower  # proved: L ≥ ⌈log₂ degree⌉
        out.append({"family": name, "n": n, "d": d, "Δ": ps["depth"], "w cut": ps["cut_width"],
                    "w level": ps["level_width"], "L": sig.L, "N'": sig.N_int, "d'": sig.d_int,
                    "L ≤ 4Δ⌈log₂w⌉ (cut)": f"{sig.L} ≤ {Lc}: {'met' if sig.L <= Lc else 'not met'}",
                    "N' ≤ 4w (cut)": f"{sig.N_int} ≤ {Nc}: {'met' if sig.N_int <= Nc else 'not met'}",
                    "degree cert. L ≥": L_low,
                    "L (level)": f"≤ {Ll}: {'met' if sig.L <= Ll else 'not met'}"
                                 + (" (false: < degree cert.)" if Ll < L_low else ""),
                    "N' (level)": f"≤ {Nl}: {'met' if sig.N_int <= Nl else 'not met'}"})
    return out


def signature_table(max_k: int = 8):
    """Rows of (family, n, d, s, Δ, w, L_C, built signature, L/(Δ log w), N'/w) for the report."""
    rows = []
    for name, key, n, d in [("x·y", ("xy", 2), 2, 1), ("product", ("product", 8), 8, 1),
                            ("product", ("product", 8), 4, 2), ("Horner", ("horner", 8), 1, 1),
                            ("matmul", ("matmul", 2), 4, 2), ("det3", ("det3", 0), 3, 3),
                            ("random", ("random", max_k), 2 * max_k, 1)]:
        rep = compiled(key, n, d).report()
        rows.append({"family": name, **rep})
    return rows


if __name__ == "__main__":
    from tabulate import tabulate

    for claim in CLAIMS:
        for v in verify(claim, max_size=8):
            print(v.id, v.name, v.variant, v.verdict, v.signature_claimed, v.signature_built,
                  v.failure.describe()[:200] if v.failure else "")
    print(tabulate(signature_table(), headers="keys"))
    print(tabulate(bound_table(), headers="keys"))
    print(tabulate(bound_table(layout="lean"), headers="keys"))
