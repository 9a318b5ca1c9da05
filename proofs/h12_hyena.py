"""Prop. H.12: BaseConv and Hyena simulate each other.

Hyena (symconv.hyena, the working definition): z^ℓ = p^ℓ ⊙ (h^ℓ * z^{ℓ−1}) with
p^ℓ = u·W^ℓ + b^ℓ, an affine map of the original input u, row by row.

Hyena → BaseConv, claimed: an (N, L, d, N', d) Hyena model is an
(N, 5L, d, N' + N, d) BaseConv model.  The printed proof makes
u_BC = (u | 0^{N'−N} | u) with one layer, then applies
remember_{N,N,N'−N,N'−N}(u_BC : z^{ℓ−1}, u, h^ℓ, p^ℓ) (Prop. H.10) per layer,
claiming z^ℓ_BC = (z^ℓ | 0 | u).  Three things stand in the way: remember's
gate p is a layer parameter, so p^ℓ = Linear(u) can only enter as a constant
(W^ℓ = 0); remember's hypothesis n + m + s + t ≤ N' + N reads 2N' ≤ N' + N, so
only N' = N is covered; and remember as printed fails (see h10_remember.py).
The printed route is checked here for constant projections and N' = N: it fails.

Corrected (symconv.constructions.hyena.baseconv_from_hyena): 3L + 1 layers on
N' + N rows holding slots A = [0, N), B = [N, 2N), C = [2N, 3N): a prep layer
(u | u | 0); per Hyena layer a causal conv layer (0 | u | h^ℓ * z), then a
circular gate layer that rolls every row up by N and gates with W^ℓ and
b1 = (1 | b^ℓ | 0), giving (u | z^ℓ | 0) (a swap layer (u | z) → (z | u)
precedes the conv from the second layer on); a last layer brings z^L up to
rows [0, N).  It needs N' + N ≥ 3N, i.e. N' ≥ 2N.

N ≤ N' < 2N (claimed: N' + N < 3N rows), on 2N ≤ N' + N rows:

* N = 1 (N' = 1; claim "Hyena -> BaseConv (N = N' = 1)", symconv.constructions.hyena_two_rows):
  at most 2L − 1 layers when the middle W^ℓ are invertible, at most 3 + 2d(L − 2) for any
  rational middle W^ℓ, so the claim is met for every model with d ≤ 2, with invertible middle
  W^ℓ, or with d = 3 and L ≤ 9; beyond that the route can exceed 5L and the claim is open.
* N = 2 (N' = 2, 3; claim "Hyena -> BaseConv (N = 2, N' < 2N)",
  symconv.constructions.hyena_four_rows): a two-layer linear step (u | z) → (u | h * z) in closed
  form and the same twist; 3L − 1 layers for d = 1, at most 4L − 2 for invertible W^ℓ (ℓ < L):
  met for d = 1 and for invertible W^ℓ, open beyond.
* N = 3 (N' = 3, 4, 5; claim "Hyena -> BaseConv (N = 3, N' < 2N)",
  symconv.constructions.hyena_six_rows): the same route on 6 rows with a linear step of 1 to 3
  masked convolutions per channel, in closed form by the case of (h₀, h₁, h₂); at most 4L − 2
  layers for d = 1 and 5L − 3 for invertible W^ℓ (ℓ < L): met there, open beyond.
* N = 4 (N' = 4 … 7; claim "Hyena -> BaseConv (N = 4, N' < 2N)",
  symconv.constructions.hyena_eight_rows): the same route on 8 rows with a three-layer step whose
  masks are solved exactly per filter; met as at N = 3 for the filters the solver handles, open
  for those it refuses (h₀ = 0 among them).
* N ≥ 5: not decided.  The 3N-row route (more than claimed) is proved for all N, N' and L by
  the same induction; only rows [0, N) of b^ℓ and h^ℓ reach the output, so N' itself does not
  matter.

Why the 3N-row route needs 3N rows: the layer that applies W^ℓ gates every nonzero row i of
its state by (row i)·W^ℓ + b1[i]; it writes p^ℓ ⊙ (h^ℓ * z) on the N rows holding u, must read
z (N more rows, whose outputs are lost), and can keep u only on rows that are zero in its
state (N more), when W^ℓ is singular (W^ℓ invertible would let u survive twisted, as u·W^ℓ).
A causal product of N-row blocks also spills N − 1 rows past its block, which only the end of
the state absorbs.  This is an argument about routes of that shape, not a certificate.  The
twist of the N = 1 and N = 2 routes avoids it: a product layer whose gate reads h^ℓ * z
(twisted by an invertible G) and whose convolution reads p^ℓ channel by channel from a row
block holding u·G + g multiplies by p^ℓ and keeps u.  So for invertible W^ℓ a width d > 1
costs L − 1 layers more than d = 1, and what is missing for N ≥ 5 (and for some filters at N = 4) is the d = 1 linear step
(u | z) → (u | h^ℓ * z) on 2N rows within three layers (README, "Prop. H.12 with N ≤ N' < 2N").

Circular layers are needed, not a choice: with the paper's causal ``*`` alone the claim is false at
d = 1.  A causal layer maps row 0 by a polynomial in row 0 alone, of degree ≤ 2 when d' = 1, so row 0
of any causal (N, L', 1, N'', 1) BaseConv model has degree 0 or a power of two in u[0, 0], while row
0 of an L-layer Hyena model has degree L + 1 (3 at L = 2) for all weights off a hypersurface
(:class:`symconv.certificates.CompositionCertificate`, in the L bounds below).

BaseConv → Hyena, claimed: L Hyena layers compute an L-layer BaseConv model,
layer ℓ taking projection (W^ℓ, b₁^ℓ) and filter h^ℓ of BaseConv layer ℓ, each
projection reading the previous output (a chain of one-layer Hyena models).
The printed induction drops b₂: BaseConv computes (zW + b₁) ⊙ (h * z + b₂).
It fails whenever some b₂ ≠ 0 (a Hyena layer maps 0 to 0, BaseConv maps it to
b₁ ⊙ b₂); it holds for b₂ = 0.  Read as one L-layer Hyena model whose
projections all read the original input (the definition above), it fails for
L ≥ 2: layer 2's gate must be affine in z¹, not in u.
"""
from dataclasses import replace

import numpy as np

from symconv.certificates.standard import (also, both, composition, degree, largest, not_identity, one_row,
                                           rows_at_least_N, signature_bounds, where)
from symconv import Block, Claim, Hypothesis, Instance, Signature, SizeParam, Step, Variant, sym, verify
from symconv.parametric import size
from symconv.sweep import Cap
from symconv.claims import NumericCase
from symconv.constructions.hyena import (baseconv_from_hyena, baseconv_from_hyena_as_printed,
                                         hyena_chain_induction, hyena_from_baseconv, hyena_induction,
                                         hyena_rows)
from symconv.constructions.hyena_four_rows import baseconv_on_four_rows
from symconv.constructions.hyena_six_rows import baseconv_on_six_rows
from symconv.constructions.hyena_eight_rows import baseconv_on_eight_rows
from symconv.constructions.hyena_two_rows import baseconv_on_two_rows
from symconv.hyena import HyenaLayer, HyenaStack, evaluate as hyena_eval, evaluate_nested
from symconv.model import Layer, Stack

SIZES = (SizeParam("N", 1, 3), SizeParam("Np", 1, 6), SizeParam("L", 1, 3), SizeParam("d", 1, 2))
SIZES_SQUARE = (SizeParam("N", 1, 3), SizeParam("L", 1, 3), SizeParam("d", 1, 2))
N, Np = size("N"), size("Np")
N_LE_NP = Hypothesis(N <= Np)
WIDE = Hypothesis(Np >= 2 * N, why="symconv's construction")
NARROW = Hypothesis(Np < 2 * N)
CAPS = (Cap(("N", "L"), 4), Cap(("d", "L"), 4))   # symbolic layers: the polynomials grow like (N·d)^L


def cost(z):
    """Relative cost of one size point: the output polynomials of L symbolic layers."""
    return float((z["N"] * z["d"] + 1) ** (2 * z["L"]) * z.get("Np", z["N"]))


def zero(shape):
    return np.zeros(shape, dtype=int).astype(object)


# ---------------------------------------------------------------- Hyena → BaseConv

def hyena_model(z, Np=None, constant=False):
    """An (N, L, d, N', d) Hyena model with symbolic filters h^ℓ (N×d), W^ℓ (d×d), b^ℓ (N'×d)."""
    N, L, d = z["N"], z["L"], z["d"]
    Np = z["Np"] if Np is None else Np
    layers = tuple(
        HyenaLayer(W=zero((d, d)) if constant else sym(f"W{l}", d, d).entries,
                   b=sym(f"b{l}", Np, d).entries, h=sym(f"h{l}", N, d).entries, label=f"layer {l}")
        for l in range(1, L + 1))
    return HyenaStack(N, d, layers, N_int=Np, name=f"Hyena(L={L})")


def slots(M, d, *parts):
    """An M×d block holding each (row, block) of ``parts``."""
    a = zero((M, d))
    for row, b in parts:
        a[row: row + b.n] = b.entries
    return Block(a, " + ".join(f"{b.name}@{r}" for r, b in parts))


def build_hyena_to_baseconv(z):
    N, d = z["N"], z["d"]
    model = hyena_model(z)
    u = sym("u", N, d)
    stack = baseconv_from_hyena(model, N_int=hyena_rows(N, z["Np"]))
    outs = [hyena_eval(HyenaStack(N, d, model.layers[:l], N_int=model.N_int), u) for l in range(1, model.L + 1)]
    M = stack.N_int
    steps = [Step("prep: (u | u | 0)", 1, slots(M, d, (0, u), (N, u)))]
    for l, out in enumerate(outs, start=1):
        steps.append(Step("z^ℓ: (u | z^ℓ_Hyena | 0)", 3 * l, slots(M, d, (0, u), (N, out))))
    return Instance(u, stack, outs[-1], tuple(steps))


def build_printed_route(shift_up):
    def build(z):
        N, d = z["N"], z["d"]
        model = hyena_model(z, Np=N, constant=True)
        u = sym("u", N, d)
        stack = baseconv_from_hyena_as_printed(model, shift_up=shift_up)
        per = 5 if shift_up == "H.8" else 3
        steps = [Step("u_BC = (u | 0^{N'-N} | u)", 1, slots(2 * N, d, (0, u), (N, u)))]
        out = None
        for l in range(1, model.L + 1):
            out = hyena_eval(HyenaStack(N, d, model.layers[:l]), u)
            literal = hyena_eval(HyenaStack(N, d, model.layers[l - 1:l]), u)   # p^ℓ ⊙ (h^ℓ * u), read literally
            steps.append(Step("z^ℓ_BC = (p^ℓ ⊙ (h^ℓ * u) | u)", 1 + per * l, slots(2 * N, d, (0, literal), (N, u))))
            steps.append(Step("z^ℓ_BC = (z^ℓ_Hyena | u)", 1 + per * l, slots(2 * N, d, (0, out), (N, u))))
        if shift_up == "H.8":  # the statement's count: an (N, 5L, d, N' + N, d) model
            steps.append(Step("5L layers", stack.L, kind="count", count=5 * model.L))
        return Instance(u, stack, out, tuple(steps))
    return build


def hyena_numeric(N, d, batch, rng, L=2, K=128, Np=None):
    """Hyena (N' = 2N unless given, L layers, filters of K taps) against its direct definition."""
    Np, K = (2 * N if Np is None else Np), min(K, N)
    rows = hyena_rows(N, Np)
    layers = tuple(HyenaLayer(W=rng.standard_normal((d, d)) / np.sqrt(d), b=rng.standard_normal((Np, d)),
                              h=rng.standard_normal((K, d)) / np.sqrt(K)) for _ in range(L))
    model = HyenaStack(N, d, layers, N_int=Np)
    u = rng.standard_normal((batch, N, d))

    def reference(u):
        z = u
        for l in layers:
            conv = z * 0
            for k in range(K):  # (h * z)[i] = Σ_k h[k]·z[i−k]
                conv[:, k:] += l.h[k].astype(float) * z[:, : N - k]
            z = (u @ l.W.astype(float) + l.b[:N].astype(float)) * conv
        return z

    return NumericCase(baseconv_from_hyena(model, N_int=rows), u, reference, dict(N=N, Np=Np, L=L, d=d, K=K))


def hyena_numeric_narrow(N, d, batch, rng, L=2, K=128):
    """Hyena with N' = N + ⌊N/2⌋ (< 2N for N >= 2), run by the route on 3N rows, against its definition."""
    return hyena_numeric(N, d, batch, rng, L, K, Np=N + N // 2)


# ---------------------------------------------------------------- Hyena → BaseConv at N = N' = 1, on 2 rows

SIZES_ONE = (SizeParam("L", 1, 4), SizeParam("d", 1, 3))


def middle_weights(ell, d):
    """The fixed rational W^ℓ of a middle layer (1 < ℓ < L) of the N = 1 box.  For d ≥ 2: invertible and not
    diagonal at ℓ = 2 (one twist), rank one with every column nonzero at ℓ = 3 (d sets of columns, so d twists);
    for d = 1 both are scalars, which need no twist."""
    if ell == 2:
        return [[1 if i == j else (1 if j == i + 1 else 0) for j in range(d)] for i in range(d)] if d > 1 else [[3]]
    return [[(i + 1) * (j + 1) for j in range(d)] for i in range(d)]


def hyena_model_one(z):
    """An (1, L, d, 1, d) Hyena model: W^1 and W^L symbolic, middle W^ℓ fixed (middle_weights), b, h symbolic."""
    L, d = z["L"], z["d"]
    layers = tuple(
        HyenaLayer(W=sym(f"W{l}", d, d).entries if l in (1, L) else middle_weights(l, d),
                   b=sym(f"b{l}", 1, d).entries, h=sym(f"h{l}", 1, d).entries, label=f"layer {l}")
        for l in range(1, L + 1))
    return HyenaStack(1, d, layers, N_int=1, name=f"Hyena(L={L})")


def build_two_rows(z):
    model = hyena_model_one(z)
    u = sym("u", 1, z["d"])
    stack = baseconv_on_two_rows(model)
    outs = [hyena_eval(HyenaStack(1, z["d"], model.layers[:l], N_int=1), u) for l in range(1, model.L + 1)]
    steps = [Step("prep: (z^1 | u)", 1, slots(2, z["d"], (0, outs[0]), (1, u)))]
    done = 2 if model.L > 1 else 1
    if model.L > 1:
        steps.append(Step("swap: (u | z^1)", 2, slots(2, z["d"], (0, u), (1, outs[0]))))
    for l in range(2, model.L):
        done += sum(1 for layer in stack.layers if layer.label.startswith(f"layer {l},"))
        steps.append(Step("layer l (1 < l < L): (u | z^l)", done, slots(2, z["d"], (0, u), (1, outs[l - 1]))))
    return Instance(u, stack, outs[-1], tuple(steps))


def one_bounds():
    """5L, N' + N = 2 and d' = d; N' ≥ 2 is proved at L = 2, d = 1 (one row cannot reach degree 3)."""
    L, rows, chans = signature_bounds(
        "5L", "N' + N", "d' = d", L_certs=both(not_identity, degree), at_L=largest("L"),
        notes={"L": "met on the box and for every model with d <= 2, invertible middle W^l, or d = 3 and L <= 9 "
                    "(the route's count is at most 3 + 2d(L - 2)); for d >= 3 with singular middle W^l beyond that "
                    "it can exceed 5L (d = 4, L = 5, rank-one W: 27 layers), and 5L is open there"},
        covers={"L": "d <= 2, invertible middle W^l, or d = 3 with L <= 9"})
    return L, replace(rows, certificates=both(rows_at_least_N, one_row), at=where(L=2, d=1)), chans


# ---------------------------------------------------------------- Hyena → BaseConv at N = 2, N' < 2N, on 4 rows

SIZES_TWO = (SizeParam("Np", 2), SizeParam("L", 1, 3), SizeParam("d", 1, 2))


def filters_two(ell, d, Np=None):
    """Fixed rational filters (h₀, h₁) per channel for the N = 2 box: channel 1 of layer 2 has h₀ = 0 (the
    linear step's second branch); the others h₀ ≠ 0 (the same for every N')."""
    taps = [(3, -2), (1, 5), (-2, 1)]
    rows = [taps[(ell + c) % 3] if not (ell == 2 and c == 1) else (0, 4) for c in range(d)]
    return [[rows[c][t] for c in range(d)] for t in range(2)]


def build_on_2n_rows(N, model_of, route):
    """The builder of a 2N-row claim (N = 2, 3, 4): the model of the box point, its route, and the state
    (u | z^l) after each multiply as a step."""
    def build(z):
        model = model_of(z)
        d = z["d"]
        u = sym("u", N, d)
        stack = route(model)
        outs = [hyena_eval(HyenaStack(N, d, model.layers[:l], N_int=z["Np"]), u) for l in range(1, model.L + 1)]
        steps, done = [], 1
        for l in range(1, model.L):
            done += sum(1 for layer in stack.layers if layer.label.startswith(f"layer {l}, set"))
            steps.append(Step("multiply l < L: (u | z^l)", done, slots(2 * N, d, (0, u), (N, outs[l - 1]))))
            done += sum(1 for layer in stack.layers if layer.label.startswith(f"layer {l + 1}, linear step"))
        return Instance(u, stack, outs[-1], tuple(steps))
    return build


# ---------------------------------------------------------------- Hyena → BaseConv at N = 3, N' < 2N, on 6 rows

SIZES_THREE = (SizeParam("Np", 3), SizeParam("L", 1, 3), SizeParam("d", 1, 2))
# one filter (h₀, h₁, h₂) of each case of the six-row linear step: generic (k = 2), h₂ = 0 (k = 3), h₀ = 0 (k = 3),
# h₁ = 0, h₀ = h₁ = 0 (k = 2), h₁² = h₀h₂ (k = 3), h₁ = h₂ = 0 (k = 1)
TAPS_THREE = [(3, -2, 5), (2, 3, 0), (0, 5, 1), (-1, 0, 3), (0, 0, 4), (1, 2, 4), (2, 0, 0)]


def filters_three(ell, d, Np):
    """Fixed rational filters (h₀, h₁, h₂) per channel for the N = 3 box, taken in turn from TAPS_THREE (shifted
    by N') so that the steps of the box (layers 2 and 3, d = 2, N' = 3, 4, 5) meet every filter of it, with
    channels of one layer in different cases."""
    rows = [TAPS_THREE[(2 * ell + c + 4 * (Np - 3)) % len(TAPS_THREE)] for c in range(d)]
    return [[rows[c][t] for c in range(d)] for t in range(3)]


# ---------------------------------------------------------------- Hyena → BaseConv at N = 4, N' < 2N, on 8 rows

SIZES_FOUR = (SizeParam("Np", 4), SizeParam("L", 1, 3), SizeParam("d", 1, 2))
# filters (h₀, …, h₃) the eight-row step handles: six solved three-layer steps and h₁ = h₂ = h₃ = 0 (one layer)
TAPS_FOUR = [(3, -2, 5, 1), (1, 2, 3, -1), (2, 0, 0, 0), (-2, 1, 3, 3), (1, -1, 2, 5), (2, 3, -1, 1), (-1, 2, 2, -3)]


def filters_four(ell, d, Np):
    """Fixed rational filters per channel for the N = 4 box, from TAPS_FOUR in turn (shifted by N')."""
    rows = [TAPS_FOUR[(2 * ell + c + 4 * (Np - 4)) % len(TAPS_FOUR)] for c in range(d)]
    return [[rows[c][t] for c in range(d)] for t in range(4)]


FIXED_ONE = ("one model per size: W^1, W^L, b, h and u symbolic, the middle W^l fixed rationals "
             "(middle_weights)")
FIXED_2N = ("one model per size: W^L, b and u symbolic, the filters and W^1 … W^{L-1} fixed rationals "
            "(middle_weights and the box's filter table)")


def hyena_model_2n(N, filters):
    """The (N, L, d, N', d) Hyena model of a 2N-row box point: W^1 … W^{L-1} fixed (middle_weights: for d ≥ 2
    invertible at ℓ = 1, rank one at ℓ = 2), W^L and b symbolic, the filters fixed (``filters(ℓ, d, N')``)."""
    def model(z):
        L, d, Np = z["L"], z["d"], z["Np"]
        layers = tuple(
            HyenaLayer(W=sym(f"W{l}", d, d).entries if l == L else middle_weights(l + 1, d),
                       b=sym(f"b{l}", Np, d).entries, h=filters(l, d, Np), label=f"layer {l}")
            for l in range(1, L + 1))
        return HyenaStack(N, d, layers, N_int=Np, name=f"Hyena(L={L})")
    return model


def claim_on_2n_rows(N, route, variant, note, L_note, covers):
    """The claim "Hyena -> BaseConv (N = .., N' < 2N)" for one N, built on 2N rows by ``route``."""
    sizes = {2: SIZES_TWO, 3: SIZES_THREE, 4: SIZES_FOUR}[N]
    filters = {2: filters_two, 3: filters_three, 4: filters_four}[N]
    nps = {2: "2, 3", 3: "3, 4, 5", 4: "4 … 7"}[N]
    return Claim("H.12", f"Hyena -> BaseConv (N = {N}, N' < 2N)",
                 f"the case N <= N' < 2N at N = {N} (N' = {nps}): an ({N}, L, d, N', d) Hyena model is a "
                 f"({N}, 5L, d, N' + {N}, d) BaseConv model",
                 sizes, lambda z: claimed_5L({"N": N, **z}),
                 (Variant(variant, build_on_2n_rows(N, hyena_model_2n(N, filters), route), note=note,
                          instances=FIXED_2N),),
                 (Hypothesis(Np < 2 * N),), cost=lambda z: float((N * z["d"] + 1) ** (2 * z["L"])),
                 bounds=signature_bounds("5L", "N' + N", "d' = d", L_certs=both(not_identity, degree),
                                         at_L=largest("L"), notes={"L": L_note}, covers=covers))


# ---------------------------------------------------------------- BaseConv → Hyena

def baseconv_model(z, with_b2=True):
    """An (N, L, d, N, d) BaseConv model with symbolic W, h, b1 (and b2)."""
    N, L, d = z["N"], z["L"], z["d"]
    layers = tuple(
        Layer(W=sym(f"W{l}", d, d).entries, h=sym(f"h{l}", N, d).entries, b1=sym(f"c{l}", N, d).entries,
              b2=sym(f"e{l}", N, d).entries if with_b2 else [[0]], label=f"layer {l}")
        for l in range(1, L + 1))
    return Stack(N, d, layers, name=f"BaseConv(L={L})")


def build_baseconv_to_hyena(with_b2, chain=True):
    def build(z):
        stack = baseconv_model(z, with_b2)
        u = sym("u", z["N"], z["d"])
        models = hyena_from_baseconv(stack, drop_b2=True)
        if chain:
            outs = evaluate_nested(models, u)
        else:  # one L-layer Hyena model: every projection reads the original input
            one = HyenaStack(z["N"], z["d"], tuple(m.layers[0] for m in models))
            outs = [hyena_eval(HyenaStack(z["N"], z["d"], one.layers[:l]), u) for l in range(1, one.L + 1)]
        steps = tuple(Step("z^ℓ_BaseConv = Hyena^ℓ(u)", l, o) for l, o in enumerate(outs, start=1))
        return Instance(u, stack, outs[-1], steps)
    return build


def baseconv_numeric(N, d, batch, rng, L=2, K=128):
    """An L-layer BaseConv model with b2 = 0 against the direct definition of its Hyena chain."""
    K = min(K, N)
    layers = tuple(Layer(W=rng.standard_normal((d, d)) / np.sqrt(d), h=rng.standard_normal((K, d)) / np.sqrt(K),
                         b1=rng.standard_normal((N, d)), b2=[[0.0]]) for _ in range(L))
    stack = Stack(N, d, layers)
    u = rng.standard_normal((batch, N, d))

    def reference(u):
        z = u
        for l in layers:  # Hyena(z) = (z·W + b1) ⊙ (h * z), its projection reading its own input
            conv = z * 0
            for k in range(K):
                conv[:, k:] += l.h[k].astype(float) * z[:, : N - k]
            z = (z @ l.W.astype(float) + l.b1.astype(float)) * conv
        return z

    return NumericCase(stack, u, reference, dict(N=N, L=L, d=d, K=K))


# L: at the deepest Hyena (degree), and at d = 1, L = 2, where row 0 has degree 3 in u[0, 0], not a power
# of two: no causal BaseConv with d' = d = 1 computes it (composition), so the route's circular layers are needed
L_CERTS = both(not_identity, degree, composition)
L_AT = also(largest("L"), where(L=2, d=1))


def claimed_5L(z):
    return Signature(z["N"], 5 * z["L"], z["d"], z["Np"] + z["N"], z["d"])


CLAIMS = [
    Claim("H.12", "Hyena -> BaseConv",
          "an (N, L, d, N', d) Hyena model is an (N, 5L, d, N'+N, d) BaseConv model (here N' >= 2N)",
          SIZES, claimed_5L,
          (Variant("corrected", build_hyena_to_baseconv, numeric=hyena_numeric,
                   proof=lambda z: hyena_induction(z["N"], z["Np"]),
                   note="3L+1 layers on N'+N rows: prep, then (swap,) conv, gate per layer, then read-out; "
                        "proved for all N, N' >= 2N and L by induction on L"),),
          (N_LE_NP, WIDE), caps=CAPS, cost=cost,
          bounds=signature_bounds("5L", "N' + N", "d' = d", L_certs=L_CERTS, at_L=L_AT)),
    Claim("H.12", "Hyena -> BaseConv (N' < 2N)",
          "the same for N <= N' < 2N; this route builds it on 3N > N'+N rows, so the claimed N'+N "
          "rows is neither met nor refuted for N >= 5 (open); N = 1, 2, 3 and 4 are met on 2N rows by the claims "
          "'N = N' = 1', 'N = 2, N' < 2N', 'N = 3, N' < 2N' and 'N = 4, N' < 2N' (for d = 1, and for d >= 2, "
          "within their stated cases; at N = 4 for the filters its step solver handles)",
          SIZES, claimed_5L,
          (Variant("corrected, on 3N rows", build_hyena_to_baseconv, numeric=hyena_numeric_narrow,
                   proof=lambda z: hyena_induction(z["N"], 2 * z["N"]), proved_at="N' = 2N (N' < 2N by hand)",
                   note="the N' >= 2N route run on 3N rows, more than the claimed N'+N: proved for all N "
                        "and L by induction on L, every N <= N' < 2N by hand (rows [0, N) of b^l, h^l are all "
                        "that reach the output; the box checks N' exactly); for N >= 5 no construction on "
                        "N'+N < 3N rows and no certificate that none exists within 5L layers: the claimed row count "
                        "is open there (N = 1 to 4: the claims on 2N rows)"),),
          (N_LE_NP, NARROW), caps=CAPS, cost=cost,
          bounds=signature_bounds("5L", "N' + N", "d' = d", L_certs=L_CERTS, at_L=L_AT,
                                  expect={"N'": "met up to c"})),
    Claim("H.12", "Hyena -> BaseConv (N = N' = 1)",
          "the case N <= N' < 2N at N = 1 (so N' = 1): an (1, L, d, 1, d) Hyena model is a (1, 5L, d, 2, d) "
          "BaseConv model",
          SIZES_ONE, lambda z: claimed_5L({"N": 1, "Np": 1, **z}),
          (Variant("on N'+N = 2 rows", build_two_rows, instances=FIXED_ONE,
                   note="prep (z^1 | u), swap (u | z^1), per middle layer a twist u·G + g and a product with "
                        "W = G^-1 per set of independent columns of W^l, final gate on the top row: 2L - 1 layers "
                        "at most for invertible middle W^l, at most 3 + 2d(L - 2) (above 5L for some singular "
                        "middle W^l when d >= 3, outside the box); the box has W^1, W^L, b, h symbolic and the "
                        "middle W^l fixed (for d >= 2 invertible at l = 2, rank one at l = 3); every L by hand "
                        "(symconv.constructions.hyena_two_rows)"),),
          (), cost=lambda z: float((z["d"] + 1) ** (2 * z["L"])),
          bounds=one_bounds()),
    claim_on_2n_rows(2, baseconv_on_four_rows, "on 2N = 4 rows",
                     note="prep (u | h^1 * u); per layer l < L a multiply (twist u·G + g and product W = G^-1 per set "
                          "of independent columns of W^l) and a two-layer linear step (u | z) -> (u | h^l+1 * z) "
                          "(masked convolutions, closed form per channel, h_0 = 0 its own branch); final gate on "
                          "the top block: 3L - 1 layers for d = 1, at most 4L - 2 for invertible W^l (l < L); "
                          "the box has W^L, b and u symbolic, the filters and W^1 … W^{L-1} fixed rationals; "
                          "every L by hand (symconv.constructions.hyena_four_rows)",
                     L_note="met on the box, for every model with d = 1, and for invertible W^l (l < L); a singular "
                            "W^l with d >= 2 costs up to 2d layers, so the route can exceed 5L (d = 2 from L = 5, "
                            "d = 3 from L = 3) and 5L is open there",
                     covers={"L": "d = 1 or invertible W^l (l < L)"}),
    claim_on_2n_rows(3, baseconv_on_six_rows, "on 2N = 6 rows",
                     note="the N = 2 route on 6 rows with a linear step (u | z) -> (u | h^l+1 * z) of 1 to 3 masked "
                          "convolutions per channel (closed forms by the case of (h_0, h_1, h_2); each multiplied "
                          "out exactly when built): at most 4L - 2 layers for d = 1, at most 5L - 3 for invertible "
                          "W^l (l < L); the box has W^L, b and u symbolic, the filters (every case of the step) and "
                          "W^1 … W^{L-1} fixed rationals; every L by hand (symconv.constructions.hyena_six_rows)",
                     L_note="met on the box, for every model with d = 1, and for invertible W^l (l < L); a singular "
                            "W^l with d >= 2 costs up to 2d layers, so the route can exceed 5L and 5L is open "
                            "there",
                     covers={"L": "d = 1 or invertible W^l (l < L)"}),
    claim_on_2n_rows(4, baseconv_on_eight_rows, "on 2N = 8 rows, solved steps",
                     note="the 2N-row route on 8 rows with a three-layer linear step per channel whose masks are "
                          "solved exactly for the filter (two merged units; symconv.constructions.hyena_eight_rows): "
                          "at most 4L - 2 layers for d = 1, 5L - 3 for invertible W^l (l < L), for models whose "
                          "filters the solver handles (171 of 192 small filters with h_0 != 0); it refuses h_0 = 0 "
                          "(but h = 0), h_1 = h_2 = 0 != h_3, h_2 = h_3 = 0 != h_1 and h_0(1, 1, 1, 1): open there; "
                          "the box has W^L, b and u symbolic, the filters and W^1 … W^{L-1} fixed rationals",
                     L_note="met on the box; for every model with d = 1 or invertible W^l (l < L) whose filters the "
                            "step solver handles; open for the filters it refuses (h_0 = 0 among them) and, with "
                            "d >= 2, for singular W^l",
                     covers={"L": "d = 1 or invertible W^l (l < L) with filters the step solver handles",
                             "N'": "models whose filters the step solver handles",
                             "d'": "models whose filters the step solver handles"}),
    Claim("H.12", "Hyena -> BaseConv (printed route)",
          "prep layer, then remember_{N,N,0,0} per layer (N' = N, constant projections p^ℓ = b^ℓ)",
          SIZES_SQUARE, lambda z: Signature(z["N"], 5 * z["L"], z["d"], 2 * z["N"], z["d"]),
          (Variant("as printed", build_printed_route("H.8"), expect="fails",
                   fails_at=("z^ℓ_BC = (p^ℓ ⊙ (h^ℓ * u) | u)", "z^ℓ_BC = (z^ℓ_Hyena | u)", "5L layers"),
                   note="1 + 5L layers; fails at remember's z² (Prop. H.10)"),
           Variant("as printed, working shift_up", build_printed_route("working"), expect="fails",
                   fails_at=("z^ℓ_BC = (p^ℓ ⊙ (h^ℓ * u) | u)", "z^ℓ_BC = (z^ℓ_Hyena | u)"),
                   note="remember's last three layers replaced by one working shift_up: still fails")),
          (), caps=CAPS, cost=cost,
          bounds=signature_bounds("5L", "N' = 2N", "d' = d", L_certs=both(not_identity, degree), at_L=largest("L"),
                                  expect={"L": "not built", "N'": "not built", "d'": "not built"})),
    Claim("H.12", "BaseConv -> Hyena",
          "an L-layer BaseConv model is computed by L Hyena layers, Hyena(…Hyena(u))",
          SIZES_SQUARE, lambda z: Signature(z["N"], z["L"], z["d"], z["N"], z["d"]),
          (Variant("as printed", build_baseconv_to_hyena(True), expect="fails",
                   fails_at=("z^ℓ_BaseConv = Hyena^ℓ(u)",),
                   note="symbolic b2: the printed induction drops the bias inside the convolution"),
           Variant("corrected (b2 = 0)", build_baseconv_to_hyena(False), numeric=baseconv_numeric,
                   proof=lambda z: hyena_chain_induction(z["N"]), covers="b2 = 0",
                   note="a chain of one-layer Hyena models, projection (W, b1), filter h"),
           Variant("one L-layer Hyena (b2 = 0)", build_baseconv_to_hyena(False, chain=False), expect="fails",
                   fails_at=("z^ℓ_BaseConv = Hyena^ℓ(u)",),
                   reading="not stated in the paper: the paper chains one-layer Hyena models, Hyena(Hyena(…))",
                   note="projections of the original input cannot gate layer 2 by z¹")),
          (), caps=CAPS, cost=cost,
          bounds=signature_bounds("L Hyena layers", "N' = N", "d' = d")),
]

if __name__ == "__main__":
    for claim in CLAIMS:
        for v in verify(claim, max_size=8):
            print(v.id, v.name, "|", v.variant, v.verdict, v.signature_claimed, v.signature_built, v.seconds,
                  v.failure.describe() if v.failure else "")
            for st in v.steps:
                print("   ", st.label, "holds" if st.holds else "fails " + st.failure.describe())
