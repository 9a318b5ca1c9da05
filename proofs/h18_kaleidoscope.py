"""Def. H.17 and Lemma H.18: BaseConv computes kaleidoscope matrices M ∈ (BB*)^w_e.

Sizes: u ∈ R^{n×d} with row-major form x; n, d >= 2 powers of two; e a power
of two (the expansion; the butterflies act on R^{end}); w >= 1 the width.

M = S·E·Sᵀ is the top-left nd×nd corner of E = E_w ⋯ E₁, each E_i = M₁M₂ᵀ with
M₁, M₂ butterfly matrices of size end (2·log(end) factor matrices).  The
padded vector (x, 0) is the row-major form of the en×d state holding u in its
top n rows, so the proof's route works as stated: compile E's 2w·log(end)
factor matrices on that state (Lemma H.16 and Lemma H.11) and read the top n
rows.  Built: L = 2w·(log d + 2·log(en)) + 1 layers, N' = en, d' = 3d
(the lemma states d' = d; the three channel blocks hold the three terms of
each factor).  The proof's count, with H.16 (2)'s five layers per factor,
is 10·w·log(end); that is the "claimed" L shown.

Variant "d' = d": the factors run on H.16's d' = d route instead (two row
regions of en rows each): L = 2w·(2·log d + 3·log(en)), N' = 2en, d' = d.
So d' = d is met at twice the stated N'.  Since diag(E_i, I) is again in
BB* (a butterfly of size 2m with B_2m = I is two independent butterflies of
size m), M ∈ (BB*)^w_e is also in (BB*)^w_{2e}, and for that expansion the
stack has exactly N' = (2e)·n and d' = d.

Variant "in place": N' = en with d' = d means computing every factor in
place (the state is exactly the vector).  symconv.constructions.inplace does
it with rational parameters, for every M whose factors have all D1, D2, D3
entries non-zero (a hypothesis added to the lemma): channel factors by
shared shears and diagonals, the half-turn by a circulant with taps
{0, en/2}, other row factors routed through channel pairs (d >= 2).
L = 1 + 2w·(2·log d + 4 + 14·(log(en) − 1)).  Variant "in place, any M" drops
the hypothesis: every 2×2 block is a product of three blocks with D1, D2,
D3 ≠ 0 (symconv.constructions.inplace_every, a case split by hand), so each
factor runs as three in-place passes; it is checked exactly on one integer M
with zeros per size.

The symbolic sweep is bounded by w·e·n·d <= 8 (a bound on the sweep, not a
hypothesis of the lemma); the numeric cross-check runs up to end = 2^20.
"""
import numpy as np

from symconv import Claim, Hypothesis, Instance, Signature, SizeParam, Step, Variant, sym, verify
from symconv.hypotheses import pow2
from symconv.constructions.butterfly import symbolic_factor
from symconv.constructions.inplace import (check_round_trip, compile_kaleidoscope_inplace,
                                           random_inplace_kaleidoscope, symbolic_inplace_kaleidoscope)
from symconv.constructions.inplace_every import (check_dyadic_parameters, compile_kaleidoscope_inplace_every,
                                                dyadic_kaleidoscope, integer_kaleidoscope)
from symconv.parametric import size
from symconv.sweep import Cap
from symconv.blocks import from_array
from symconv.certificates import Bound
from symconv.certificates.standard import both, dimension, not_identity, signature_bounds
from symconv.claims import NumericCase
from symconv.constructions.butterfly import (factor_layer_count, from_row_major, log2, row_major)
from symconv.constructions.kaleidoscope import (compile_kaleidoscope, compile_kaleidoscope_narrow,
                                                kaleidoscope_layer_count,
                                                random_kaleidoscope, symbolic_kaleidoscope)

SIZES = (SizeParam("n", 2, 4), SizeParam("d", 2, 4), SizeParam("e", 1, 2), SizeParam("w", 1, 2))
n, d, e = size("n"), size("d"), size("e")
HYP = (Hypothesis(pow2(n), pow2(d), pow2(e), n >= 2, d >= 2),)
CAPS = (Cap(("w", "e", "n", "d"), 8),)   # the symbolic kaleidoscope has w·e·n·d·log(end) symbols


def build(z):
    n, d, e, w = z["n"], z["d"], z["e"], z["w"]
    K = symbolic_kaleidoscope(n * d, e, w, "k")
    u = sym("u", n, d)
    expected = from_array(from_row_major(K.apply(row_major(u.entries)), n, d), "M·x")
    return Instance(u, compile_kaleidoscope(K, n, d), expected)


def build_narrow(z):
    """d' = d: E's factor matrices on the two-region state of H.16's d' = d route (N' = 2en)."""
    n, d, e, w = z["n"], z["d"], z["e"], z["w"]
    K = symbolic_kaleidoscope(n * d, e, w, "k")
    u = sym("u", n, d)
    expected = from_array(from_row_major(K.apply(row_major(u.entries)), n, d), "M·x")
    steps = (Step("2w·(2·log d + 3·log(en)) layers: 2 a channel factor, 3 a row factor", 0, kind="count",
                  count=2 * w * (2 * log2(d) + 3 * log2(e * n))),)
    return Instance(u, compile_kaleidoscope_narrow(K, n, d), expected, steps)


def printed_steps(z, inst):
    """The proof's displays as steps of the construction.

    * "E_i x′ by 2·log(end) factor matrices": after the layers of E_i's 2·log(end) butterfly
      factor matrices (each a Lemma H.16 (1) step on the shared three-block state), the three
      blocks sum to E_i ⋯ E_1 x′ (x′ = (x, 0) ∈ R^{end}); E_i's last factor is B_{end} of M₁,
      a row factor, so the blocks are (d ⊙ y | d⁻ ⊙ y moved down | d⁺ ⊙ y moved up) by en/2 rows,
      y its input.
    * the count: w terms E_i, 2·log(end) factor matrices each (sizes end, …, 2 of M₂ᵀ and of
      M₁), 1 or 2 layers a factor matrix, and one final sum layer.
    """
    n, d, e, w = z["n"], z["d"], z["e"], z["w"]
    K = symbolic_kaleidoscope(n * d, e, w, "k")
    x = np.zeros(e * n * d, dtype=object)
    x[...] = 0
    x[: n * d] = row_major(inst.input.entries)
    grid = lambda v: np.asarray(v, dtype=object).reshape(e * n, d)
    steps, done = [], 0
    for i, t in enumerate(K.terms):
        fs = t.applied()
        for f in fs:
            done += factor_layer_count(f.k, d)
            if f is not fs[-1]:
                x = f.apply(x)
        f, m = fs[-1], fs[-1].s // d
        state = np.concatenate([grid(f.d * x), np.roll(grid(f.d_minus * x), m, axis=0),
                                np.roll(grid(f.d_plus * x), -m, axis=0)], axis=1)
        steps.append(Step(f"E_{i + 1}x′ by 2·log(end) butterfly factor matrices (H.16)", done,
                          from_array(state, "state")))
        x = f.apply(x)
    end = e * n * d
    per_E = 2 * sum(factor_layer_count(end >> t, d) for t in range(log2(end)))
    steps.append(Step("w·2·log(end) butterfly factor matrices (H.11), one sum layer", 0, kind="count",
                      count=w * per_E + 1))
    return tuple(steps)


def _case(K, stack, n, d, batch, rng):
    """The numeric case of ``stack`` against K·x on random inputs u ∈ R^{batch×n×d}."""
    def reference(u):
        return from_row_major(K.apply(row_major(u)), n, d)
    return NumericCase(stack, rng.standard_normal((batch, n, d)), reference, {"n": n, "d": d, "e": K.e, "w": K.w})


def _numeric(compile_fn, N, d, batch, rng, e, w):
    """M ∈ (BB*)^w_e with random butterfly entries, compiled by ``compile_fn``; n the largest power of two <= N."""
    n = 1 << max(1, int(N).bit_length() - 1)
    d = 1 << max(0, int(d).bit_length() - 1)
    K = random_kaleidoscope(n * d, e, w, rng)
    return _case(K, compile_fn(K, n, d), n, d, batch, rng)


def _inplace_shape(N, d):
    """(n, d') for the in-place hooks: e = 2, n <= N/2 rows (a power of two), 2 <= d' <= d."""
    return 1 << max(1, int(N // 2).bit_length() - 1), 1 << max(1, int(d).bit_length() - 1)


def _target(K, n, d):
    """(u, M·x) for symbolic u ∈ R^{n×d}, exactly."""
    u = sym("u", n, d)
    return u, from_array(from_row_major(K.apply(row_major(u.entries)), n, d), "M·x")


def numeric(N, d, batch, rng, e=2, w=1):
    """M ∈ (BB*)^1_2 on the d' = 3d route (N' = en)."""
    return _numeric(compile_kaleidoscope, N, d, batch, rng, e, w)


def numeric_narrow(N, d, batch, rng, e=2, w=1):
    """As :func:`numeric`, on the d' = d route (N' = 2en)."""
    return _numeric(compile_kaleidoscope_narrow, N, d, batch, rng, e, w)


def build_inplace(z):
    """In place, N' = en, d' = d: E's factors as channel factors, half-turns and routed row factors."""
    n, d, e, w = z["n"], z["d"], z["e"], z["w"]
    for k in [2 << t for t in range(log2(e * n * d))]:
        check_round_trip(symbolic_factor(e * n * d, k, "f"), d)   # every factor with D1, D2, D3 ≠ 0
    K, coords = symbolic_inplace_kaleidoscope(n * d, e, w, d, "k")
    u, expected = _target(K, n, d)
    steps = (Step("1 + 2w·(2·log d + 4 + 14·(log(en) − 1)) layers", 0, kind="count",
                  count=1 + 2 * w * (2 * log2(d) + 4 + 14 * (log2(e * n) - 1))),)
    return Instance(u, compile_kaleidoscope_inplace(K, n, d, coords), expected, steps)


def build_inplace_every(z):
    """In place for any M: each factor as three passes with D1, D2, D3 ≠ 0 (inplace_every.split_factor),
    on one M with integer entries from {−2, …, 2}, zeros included (every case of the split)."""
    n, d, e, w = z["n"], z["d"], z["e"], z["w"]
    K = integer_kaleidoscope(n * d, e, w, np.random.default_rng([n, d, e, w]))
    u, expected = _target(K, n, d)
    steps = (Step("1 + 3·2w·(2·log d + 4 + 14·(log(en) − 1)) layers (three passes a factor)", 0, kind="count",
                  count=1 + 3 * 2 * w * (2 * log2(d) + 4 + 14 * (log2(e * n) - 1))),)
    return Instance(u, compile_kaleidoscope_inplace_every(K, n, d), expected, steps)


def numeric_inplace_every(N, d, batch, rng):
    """In place for any M (e = 2, w = 1), on the float path: a dyadic_kaleidoscope (channel and routed
    factors from inplace_every.dyadic_blocks, zeros of every kind included; half-turns from
    dyadic_half_turn_factor), so every layer parameter is a dyadic rational, exact in float64 (asserted:
    check_dyadic_parameters) and crosscheck's exact decision mod p is the stack's own."""
    n, d = _inplace_shape(N, d)
    K = dyadic_kaleidoscope(n * d, 2, 1, d, rng)
    stack = compile_kaleidoscope_inplace_every(K, n, d)
    check_dyadic_parameters(stack)
    return _case(K, stack, n, d, batch, rng)


def numeric_inplace(N, d, batch, rng):
    """In place (e = 2, w = 1) from random dyadic coordinates (exact floats)."""
    n, d = _inplace_shape(N, d)
    K, coords = random_inplace_kaleidoscope(n * d, 2, 1, d, rng)
    return _case(K, compile_kaleidoscope_inplace(K, n, d, coords), n, d, batch, rng)


def claimed(z):
    n, d, e, w = z["n"], z["d"], z["e"], z["w"]
    return Signature(n, 10 * w * log2(e * n * d), d, e * n, d)


CLAIMS = [
    Claim("H.18", "kaleidoscope",
          "M·x for M ∈ (BB*)^w_e (nd×nd) with L = O(w log(end)), N' = en, d' = d",
          SIZES, claimed,
          (Variant("construction", build, numeric=numeric, extra_steps=printed_steps,
                   note="the proof's route: E's 2w·log(end) factor matrices (H.16) on one state, stacked "
                        "(H.11); the state after each E_i and the count are steps.  2w·(log d + 2 log(en)) + 1 "
                        "layers (O(w log(end)): no constant stated), N' = en, d' = 3d (stated d' = d)"),
           Variant("d' = d", build_narrow, numeric=numeric_narrow,
                   note="the same factors on H.16's d' = d route (each pair's block as two rank-one halves in "
                        "two row regions): 2w·(2·log d + 3·log(en)) layers, N' = 2en, d' = d.  The pair "
                        "N' = en with d' = d: variants 'in place' and 'in place, any M'"),
           Variant("in place", build_inplace, numeric=numeric_inplace,
                   reading="N' = en and d' = d together; the hypothesis D1, D2, D3 ≠ 0 in every factor of E "
                           "is added",
                   note="E's factors on H.16 (1)'s in-place routes (channel factors, the half-turn, row factors "
                        "routed through channel pairs), on one en×d state: 1 + 2w·(2·log d + 4 + 14·(log(en) − 1)) "
                        "layers, N' = en, d' = d; rational parameters (D1, D2, D3 ≠ 0)"),
           Variant("in place, any M", build_inplace_every, numeric=numeric_inplace_every,
                   reading="N' = en and d' = d together for every M: checked exactly on one M per size with "
                           "integer entries in {−2, …, 2} (zeros included); every M by the split of each pair "
                           "block into three blocks with D1, D2, D3 ≠ 0 (by hand, inplace_every) with variant "
                           "'in place' (checked on free coordinates)",
                   instances="one integer M per size (integer_kaleidoscope, seeded by (n, d, e, w))",
                   note="each factor of E as three in-place passes (inplace_every.split_factor): "
                        "1 + 3·2w·(2·log d + 4 + 14·(log(en) − 1)) layers (3× the per-factor layers of 'in place'), "
                        "N' = en, d' = d")),
          HYP, caps=CAPS,
          bounds=(Bound("L", "O(w log(end))", claimed=lambda z: z["w"] * log2(z["e"] * z["n"] * z["d"]), big_o=True,
                        certificates=both(not_identity, dimension(
                            "kaleidoscope", lambda z: {"n": z["n"] * z["d"], "e": z["e"], "w": z["w"]},
                            state=lambda z: (z["e"] * z["n"], z["d"]))),
                        expect="met up to c",
                        note="f = w·log₂(end); the dimension certificate bounds L for models on N' = en, d' = d"),)
          + signature_bounds("O(w log(end))", "N' = en", "d' = d",
                             notes={"d'": "N' = en and d' = d together: variants 'in place' (for D1, D2, D3 ≠ 0) and "
                                          "'in place, any M' (every M, three passes per factor)"})[1:]),
]


def layer_table(cases=((2, 2, 1, 1), (4, 4, 2, 2), (32, 32, 1, 1), (16, 16, 4, 3), (512, 2, 1, 4))):
    """Exact layers against the proof's 10·w·log(end) and the order w·log(end)."""
    return [{"n": n, "d": d, "e": e, "w": w, "end": e * n * d, "L": kaleidoscope_layer_count(n, d, e, w),
             "w·log(end)": w * log2(e * n * d), "proof 10·w·log(end)": 10 * w * log2(e * n * d),
             "N'": e * n, "d'": 3 * d} for n, d, e, w in cases]


if __name__ == "__main__":
    from tabulate import tabulate
    print(tabulate(layer_table(), headers="keys"))
    for v in verify(CLAIMS[0], max_size=8):
        print(v.id, v.name, v.variant, v.verdict, v.seconds, v.failure.describe() if v.failure else "")
