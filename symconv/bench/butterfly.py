"""``symconv bench butterfly``: compiled butterfly and kaleidoscope stacks against the reference multiply.

For nd = 2^min … 2^max (u ∈ R^{n×d}, d fixed, float64, random entries in
[−1, 1]) it runs, through the FFT interpreter, the stacks of

* Lemma H.16 (1): one factor matrix B_k^(nd) with k = nd (the longest row shift),
* Lemma H.16 (2): a butterfly matrix B^(nd),
* Lemma H.18: M ∈ (BB*)^w_e (defaults e = 2, w = 1: the butterflies act on R^{2nd}),

and compares each with the plain reference product of the same matrix
(:meth:`ButterflyFactorMatrix.apply`).  Figures: the relative error
‖y − y_ref‖₂ / ‖y_ref‖₂ (target ≤ 1e-12) and the time of the compiled stack
as a ratio to the reference product (reported, no target), with the exact
signature in the detail.  Long stacks are built and run in pieces of
``--chunk`` factor matrices (the same layers, in the same order), so memory
stays near one piece's parameters.  Each stack runs twice: on d' = 3d (the
three-block state) and on d' = d (two row regions, N' doubled:
:func:`~symconv.constructions.butterfly.compile_factors_narrow`).

Signature ratios (first, no timing): built / claimed L, N' and d' for the
variants of Lemma H.16 (1) and (2), Lemma H.18 and Corollary H.20 across
sizes, the claimed signature taken from each claim itself (its ``claimed``
function in the proof file: H.16 (1) L = 9, (2) L = 5·log(nd), H.18
L = 10·w·log(end), N' = en, H.20 L = Δ·⌈log w⌉, N' = max(w, n); d' = d
throughout).  The built signature is that of the stack compiled with random
entries (H.16, H.18) or of :func:`~symconv.constructions.linear_circuits.plan_circuit`
(H.20: the same sizes without building, equal to the built stack's by test).
Targets: L ratio ≤ 1 for H.16 and H.18 (the paper's own constants), d'
ratio ≤ 1 for the d' = d variants; everything else is reported.  The in-place
routes of H.16 and H.18 (:mod:`~symconv.constructions.inplace`: "in place",
factors with D1, D2, D3 ≠ 0, and :mod:`~symconv.constructions.inplace_every`:
"in place, any M", every factor as three passes, built here on factors with
zero entries) have N' and d' ratio targets ≤ 1 (N' = n or en, d' = d); their
L ratio is reported (their per-factor constants, 2–14 layers and three passes,
exceed the proof's).  ``--plot FILE.png`` draws the three ratios against nd;
``--ratios-only`` skips the timed figures.
"""
from __future__ import annotations

import time

import numpy as np

import math

from ..constructions.butterfly import (ButterflyFactorMatrix, compile_butterfly, compile_butterfly_factor,
                                       compile_butterfly_factor_narrow, compile_butterfly_narrow, compile_factors,
                                       compile_factors_narrow, from_row_major, random_butterfly, random_factor,
                                       row_major)
from ..constructions.inplace import compile_factors_inplace, compile_kaleidoscope_inplace
from ..constructions.inplace_every import (compile_factors_inplace_every, compile_kaleidoscope_inplace_every,
                                           integer_butterfly, integer_factor, integer_kaleidoscope)
from ..constructions.kaleidoscope import compile_kaleidoscope, compile_kaleidoscope_narrow, random_kaleidoscope
from ..model import HypothesisError
from ..numeric import apply_prepared_layer, from_internal, prepare_layer, to_internal
from . import Record, nonnegative_int, positive_int

DESCRIPTION = "compiled butterfly / kaleidoscope stacks vs the reference multiply, nd = 2^12..2^20, float64"
TOL = 1e-12


def add_arguments(p) -> None:
    p.add_argument("--min-log", type=positive_int, default=12, help="smallest log2(nd) (default 12)")
    p.add_argument("--max-log", type=positive_int, default=20, help="largest log2(nd) (default 20)")
    p.add_argument("--step", type=positive_int, default=2, help="step in log2(nd) (default 2)")
    p.add_argument("--d", type=positive_int, default=8, help="channels d, a power of two (default 8)")
    p.add_argument("--batch", type=positive_int, default=1, help="inputs per run (default 1)")
    p.add_argument("--e", type=positive_int, default=2, help="kaleidoscope expansion e (default 2)")
    p.add_argument("--w", type=positive_int, default=1, help="kaleidoscope width w (default 1)")
    p.add_argument("--kaleidoscope-max-log", type=positive_int, default=18,
                   help="largest log2(nd) for the kaleidoscope (default 18; 20 takes ~1 min and ~4 GB more)")
    p.add_argument("--chunk", type=positive_int, default=8, help="factor matrices per piece (default 8)")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the random butterflies and inputs (default 0)")
    p.add_argument("--ratio-max-log", type=positive_int, default=10,
                   help="largest log2(nd) of the signature ratios (default 10; H.20's dense family stops at 6)")
    p.add_argument("--ratios-only", action="store_true", help="only the signature ratios (no timed figures)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the L, N' and d' ratios against nd (matplotlib)")


def run_factors(factors, n: int, d: int, N_int: int, u: np.ndarray, chunk: int,
                narrow: bool = False) -> tuple[np.ndarray, int, tuple]:
    """Run the stack of ``compile_factors(factors, n, d, N_int)`` piece by piece; (output, layers, (N', d')).

    ``narrow=True`` runs :func:`compile_factors_narrow` instead (each piece ends with the
    vector in the top rows and zeros below, so the pieces compose as they are; N' is 2·rows).
    """
    factors = list(factors)
    pieces = [factors[i:i + chunk] for i in range(0, len(factors), chunk)]
    z = squeeze = first = None
    layers = 0
    for p_i, piece in enumerate(pieces):
        if narrow:
            stack = compile_factors_narrow(piece, n, d)
        else:
            stack = compile_factors(piece, n, d, N_int=N_int, final_sum=p_i == len(pieces) - 1, fresh=p_i == 0)
        N_int = stack.N_int
        if first is None:
            first = stack
            z, squeeze = to_internal(stack, u, np, np.float64)
        for i, layer in enumerate(stack.layers):
            z = apply_prepared_layer(prepare_layer(layer, N_int, np, np.float64, f"layers[{layers + i}]"), z, np)
        layers += stack.L
        d_int = stack.d_int
        del stack
    return from_internal(first, z, squeeze, np), layers, (N_int, d_int)


def _measure(name: str, factors, apply_ref, n: int, d: int, N_int: int, u: np.ndarray, chunk: int,
             records: list, narrow: bool = False) -> None:
    name = f"{name}, d' = {'d' if narrow else '3d'}"
    t0 = time.perf_counter()
    got, L, (N_int, d_int) = run_factors(factors, n, d, N_int, u, chunk, narrow)
    t_stack = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = from_row_major(apply_ref(row_major(u)), n, d)
    t_ref = time.perf_counter() - t0
    err = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
    sig = f"(N, L, d, N', d') = ({n}, {L}, {d}, {N_int}, {d_int})"
    records.append(Record(f"{name}: relative error", err, f"<= {TOL:g}", err <= TOL, "", sig))
    records.append(Record(f"{name}: time compiled / reference", t_stack / max(t_ref, 1e-9), "report", None, "x",
                          f"compiled (build + run) {t_stack:.3f} s, reference {t_ref:.4f} s, float64"))


def _claims() -> dict:
    """The claims of H.16, H.18 and H.20 by (id, name), from the proof files."""
    from ..registry import load_proofs

    claims, _ = load_proofs()
    found = {(c.id, c.name): c for c in claims if c.id in ("H.16", "H.18", "H.20")}
    for need in (("H.16", "butterfly_factor_matrix"), ("H.16", "butterfly_matrix"), ("H.18", "kaleidoscope")):
        if need not in found:
            raise HypothesisError(f"claims: {need[0]} {need[1]} did not load (see symconv verify)")
    return found


H20_FAMILIES = ("prefix sums", "Walsh-Hadamard", "sparse random", "dense random")
IN_PLACE, ANY_M = "in place", "in place, any M"
WITH_ZEROS = (-2.0, -1.0, 0.0, 0.0, 1.0, 2.0)      # float entries with zeros: only the 'any M' route takes them


def _cases(max_log: int, e: int, w: int):
    """(label, claim key, sizes, {variant: (L, N', d')}) for each size of the ratio table."""
    from ..constructions.linear_circuit_families import FAMILIES
    from ..constructions.linear_circuits import plan_circuit

    rng = np.random.default_rng(0)
    sig = lambda s: (s.L, s.N_int, s.d_int)
    for lg in range(2, max_log + 1, 2):
        nd = 1 << lg
        for d in (2, 8):
            n = nd // d
            if n < 2:
                continue
            F = random_factor(nd, nd, rng)
            Fz = integer_factor(nd, nd, rng, WITH_ZEROS)
            yield ("H.16(1) B_nd", ("H.16", "butterfly_factor_matrix"), {"n": n, "d": d, "k": nd},
                   {"d' = 3d": sig(compile_butterfly_factor(F, n, d)),
                    "d' = d": sig(compile_butterfly_factor_narrow(F, n, d)),
                    IN_PLACE: sig(compile_factors_inplace([F], n, d)),
                    ANY_M: sig(compile_factors_inplace_every([Fz], n, d))})
            B = random_butterfly(nd, rng)
            Bz = integer_butterfly(nd, rng, WITH_ZEROS)
            yield ("H.16(2) B^(nd)", ("H.16", "butterfly_matrix"), {"n": n, "d": d},
                   {"d' = 3d": sig(compile_butterfly(B, n, d)), "d' = d": sig(compile_butterfly_narrow(B, n, d)),
                    IN_PLACE: sig(compile_factors_inplace(B.applied(), n, d)),
                    ANY_M: sig(compile_factors_inplace_every(Bz.applied(), n, d))})
            if e * nd <= (1 << max_log):
                K = random_kaleidoscope(nd, e, w, rng)
                Kz = integer_kaleidoscope(nd, e, w, rng, WITH_ZEROS)
                yield (f"H.18 (BB*)^{w}_{e}", ("H.18", "kaleidoscope"), {"n": n, "d": d, "e": e, "w": w},
                       {"d' = 3d": sig(compile_kaleidoscope(K, n, d)), "d' = d": sig(compile_kaleidoscope_narrow(K, n, d)),
                        IN_PLACE: sig(compile_kaleidoscope_inplace(K, n, d)),
                        ANY_M: sig(compile_kaleidoscope_inplace_every(Kz, n, d))})
        if lg > 8:
            continue
        n, d = nd // 2, 2
        for fam in H20_FAMILIES:
            if fam == "dense random" and lg > 6:
                continue
            c = FAMILIES[fam](n * d, np.random.default_rng(n * 10 + d))   # the proof file's circuits
            plans = {f"{route}, d' = {'d' if narrow else '3d'}": plan_circuit(c, n, d, route, narrow=narrow)
                     for route in ("matrix", "levels") for narrow in (False, True)}
            yield (f"H.20 {fam}", ("H.20", f"linear circuit: {fam}"), {"n": n, "d": d},
                   {k: (p.L, p.N_int, p.d_int) for k, p in plans.items()})


def signature_ratios(args) -> tuple[list[Record], dict]:
    """Records of built / claimed L, N', d', and the plot series {ratio: {label: [(nd, r)]}}."""
    if not isinstance(args.ratio_max_log, int) or args.ratio_max_log < 2:
        raise HypothesisError(f"--ratio-max-log: must be an integer >= 2, got {args.ratio_max_log!r}")
    claims = _claims()
    recs: list[Record] = []
    keys = ("L", "N'", "d'")
    series: dict = {k: {} for k in keys}
    for label, key, sizes, built in _cases(args.ratio_max_log, args.e, args.w):
        if key not in claims:
            recs.append(Record(f"{label}: claim", None, "-", None, "", f"{key[0]} {key[1]} did not load"))
            continue
        cl = claims[key].claimed(sizes)
        claimed = (cl.L, cl.N_int, cl.d_int)
        nd = sizes["n"] * sizes["d"]
        where = ", ".join(f"{k}={v}" for k, v in sizes.items())
        for variant, b in built.items():
            detail = f"built (L, N', d') = {b}, claimed {claimed}"
            for key_i, name in enumerate(keys):
                r = b[key_i] / claimed[key_i] if claimed[key_i] else math.inf
                in_place = variant in (IN_PLACE, ANY_M)
                if name == "L" and not label.startswith("H.20") and not in_place:
                    target, ok = "<= 1", bool(r <= 1)
                elif (name == "d'" and (variant.endswith("d' = d") or in_place)) or (name == "N'" and in_place):
                    target, ok = "<= 1", bool(r <= 1)
                else:
                    target, ok = "reported", None
                recs.append(Record(f"{name} ratio: {label} [{variant}], {where}",
                                   r if math.isfinite(r) else None, target, ok, "", detail))
                if math.isfinite(r):
                    tag = f"{label} [{variant}]" + (f" d={sizes['d']}" if not label.startswith("H.20") else "")
                    series[name].setdefault(tag, []).append((nd, r))
    return recs, series


def plot_ratios(series: dict, path: str) -> None:
    """A grid of panels: one row per result (H.16 (1), H.16 (2), H.18, H.20), one column per ratio.

    Solid lines: d' = 3d variants; dashed: d' = d; dotted: in place; dash-dot: in place, any M.
    Written whole or not at all.
    """
    from ..fileio import check_target
    from ..plot import _save, ratio_axes, require_matplotlib

    check_target(path, "--plot")
    plt = require_matplotlib()
    groups = sorted({tag.split(" ")[0] for lines in series.values() for tag in lines})
    if not groups:
        raise HypothesisError("plot: nothing to draw (no signature ratios)")
    fig, axes = plt.subplots(len(groups), 3, figsize=(17, 3.6 * len(groups)), squeeze=False)
    for col, (key, lines) in enumerate(series.items()):
        for row, group in enumerate(groups):
            ax = axes[row][col]
            for tag, pts in sorted(lines.items()):
                if tag.split(" ")[0] != group:
                    continue
                xs, ys = zip(*sorted(pts))
                ax.plot(xs, ys, marker="o", markersize=3, linestyle=_line_style(tag), label=tag[len(group) + 1:])
            ratio_axes(ax, "nd", f"{group}: {key} built / claimed", yscale_log=True)
    fig.tight_layout()
    _save(fig, path, plt)


def _line_style(tag: str) -> str:
    """The plot's line style of a series tag "<result> [<variant>] ..."."""
    if f"[{ANY_M}]" in tag:
        return "-."
    if f"[{IN_PLACE}]" in tag:
        return ":"
    return "--" if "d' = d]" in tag else "-"


def run(args) -> list[Record]:
    recs, series = signature_ratios(args)
    if getattr(args, "plot", None):
        plot_ratios(series, args.plot)
    if getattr(args, "ratios_only", False):
        return recs
    return recs + timed(args)


def timed(args) -> list[Record]:
    d = args.d
    if d < 1 or d & (d - 1):
        raise HypothesisError(f"--d: must be a power of two, got {d}")
    if not 1 <= args.min_log <= args.max_log or args.step < 1:
        raise HypothesisError("--min-log/--max-log/--step: need 1 <= min <= max and step >= 1")
    rng = np.random.default_rng(args.seed)
    records: list[Record] = []
    for lg in range(args.min_log, args.max_log + 1, args.step):
        nd = 1 << lg
        if nd < 2 * d:
            continue
        n = nd // d
        u = rng.standard_normal((args.batch, n, d))
        F = random_factor(nd, nd, rng)
        B = random_butterfly(nd, rng)
        K = random_kaleidoscope(nd, args.e, args.w, rng) if lg <= args.kaleidoscope_max_log else None
        for narrow in (False, True):
            _measure(f"H.16(1) B_k^(nd), k = nd = 2^{lg}", [F], F.apply, n, d, n, u, args.chunk, records, narrow)
            _measure(f"H.16(2) B^(nd), nd = 2^{lg}", B.applied(), B.apply, n, d, n, u, args.chunk, records, narrow)
            if K is not None:
                _measure(f"H.18 (BB*)^{args.w}_{args.e}, nd = 2^{lg}", K.factors(), K.apply, n, d, args.e * n, u,
                         args.chunk, records, narrow)
        del B, K
    return records
