"""``symconv bench circuits``: the Theorem H.21 compiler and the RetNet model (Corollary H.22) at size.

Signature ratios (first, no timing): for the named circuits (x·y, product,
Horner, powers, matmul, det3) and random circuits of width w ∈ {4, 8, 16, …,
``--max-w``} and depth Δ ∈ {2, 4, 8} (sparse: products read an input, so
inputs stay alive; dense: two wires of the level below), the compiled stack's
L / (4·Δ·⌈log₂ w⌉), N' / (4w) and d' / d, target ≤ 1 each (the issue's
reading of Theorem H.21's orders with constant 4).  Δ and w are those of
:func:`symconv.circuits.paper_sizes`: fan-in-2 depth and cut width (wires
alive across a level); the detail also shows the level width (gates per
level).  ``--layout`` picks the compiler's layout (default ``best``: the
lean stack where it meets both bounds, else the first cell-layout stack that does, the
layout taken named in each row's detail; ``lean``: as few layers as ``tight`` or fewer, on
the same N', on every circuit of the table; ``--shifts k`` lets its merged stages take k
shifts, N' ≤ k·(K + S)); ``--layout cells`` (circuits with numeric coefficients; a seeded
search that may find no plan) meets both bounds on the random circuits; circuits it cannot
compile are reported as not built (ratio inf).  ``--plot FILE.png`` draws the three ratios against w (matplotlib).
``--ratios-only`` skips the timed figures below.

Figures (one run):

* exact: compile a random circuit of width 16 and depth 8 (sparse products,
  16 inputs, d = 2) and verify the stack's output against the circuit's
  polynomials by the exact interpreter; seconds, target ≤ 10 s;
* numeric: compile the product of ``--width`` inputs (default 4096 = 2^12,
  a width-4096 circuit) and run it in float64; compile and run seconds
  (targets ≤ 10 s each), relative error against the circuit evaluated
  directly (target ≤ 1e-9), and the time of the layers (filter spectra
  prepared beforehand, reported apart) over the bare FFT floor of the same
  shapes (L forward+inverse real FFTs of the (d', N') state with the same
  library; target ≤ 2);
* signatures: L/(Δ·log₂ w) (the constant in Δ' = O(Δ log w); target ≤ 16)
  and N'/w (the constant in N' = O(w); target ≤ 48), for both circuits;
* RetNet: the scan-form model at N = ``--retnet-n`` (default 1024), d = 1,
  against equation 6 run directly; relative error (target ≤ 1e-9) and the
  layer count over N·log₂(2d) (Corollary H.22's O(N log d); reported).
"""
from __future__ import annotations

import math
import time

import numpy as np

from . import Record, int_at_least, positive_int

DESCRIPTION = "Theorem H.21 compiler: exact width-16 check, numeric width-4096 run, RetNet at N=1024"


def add_arguments(p) -> None:
    p.add_argument("--layout", choices=("best", "lean", "tight", "gapped", "proof", "cells"), default=None,
                   help="compiler layout for the signature ratios (default best: lean where it meets both bounds, else "
                        "the cell layout's first stack within them; lean with --shifts; cells: a seeded search that may find "
                        "no plan)")
    p.add_argument("--shifts", type=int, default=None,
                   help="lean layout: the most shifts of a merged routing stage that needs a spread (default 3: tight's N'; "
                        "more: fewer layers on N' <= shifts·(K + S) rows)")
    p.add_argument("--max-w", type=int_at_least(4), default=16,
                   help="widest level of the random circuits of the ratios, at least 4 (default 16); their cut "
                        "width w, which the labels and bounds use, can be larger")
    p.add_argument("--plot", metavar="FILE.png", help="draw L, N' and d' ratios against w (matplotlib)")
    p.add_argument("--ratios-only", action="store_true", help="only the signature ratios (no timed figures)")
    p.add_argument("--width", type=positive_int, default=4096, help="inputs of the numeric product circuit (default 4096)")
    p.add_argument("--retnet-n", type=positive_int, default=1024, help="sequence length of the RetNet check (default 1024)")
    p.add_argument("--skip-retnet", action="store_true", help="leave out the RetNet figures")


def _fft_floor(N_int: int, d: int, L: int) -> float:
    from ..numeric import CpuFFT

    fft = CpuFFT()
    z = np.random.default_rng(0).standard_normal((1, d, N_int))
    t0 = time.perf_counter()
    for _ in range(3):
        fft.irfft(fft.rfft(z, N_int), N_int)
    return (time.perf_counter() - t0) / 3 * L


def _named():
    import sympy

    from ..circuits import det3_circuit, horner_circuit, matmul_circuit, powers_circuit, product_circuit

    out = [("x·y", product_circuit(2), 2, 1), ("x·y", product_circuit(2), 1, 2)]
    out += [("product", product_circuit(k), k, 1) for k in (4, 16, 64)]
    out += [("product d=2", product_circuit(k), k // 2, 2) for k in (4, 16)]
    out += [("Horner", horner_circuit(list(sympy.symbols(f"c0:{k + 1}"))), 1, 1) for k in (2, 8)]
    out += [("powers", powers_circuit(k), 1, 1) for k in (2, 4, 8)]
    out += [("matmul", matmul_circuit(2), 4, 2), ("det3", det3_circuit(), 3, 3)]
    return out


def _random(max_w: int):
    from ..circuits import random_circuit

    out = []
    w = 4
    while w <= max_w:
        for D in (2, 4, 8):
            for sparse in (True, False):
                c = random_circuit(w, w, D, seed=w + D, n_outputs=min(w, 4), sparse=sparse)
                out.append((f"random {'sparse' if sparse else 'dense'} Δ={D}", c, w, 1))
        w *= 2
    return out


def signature_ratios(args) -> tuple[list[Record], dict]:
    """Records of built/claimed L, N', d' per circuit, and the plot series {ratio: {family: [(w, r)]}}."""
    from ..circuits import paper_sizes, theorem_bounds
    from ..constructions.arithmetic import compile_arithmetic
    from ..model import HypothesisError

    if not isinstance(args.max_w, int) or args.max_w < 4:
        raise HypothesisError(f"--max-w: must be an integer >= 4, got {args.max_w!r}")
    shifts = getattr(args, "shifts", None)
    layout = getattr(args, "layout", None) or ("lean" if shifts is not None else "best")
    if shifts is not None and layout != "lean":
        raise HypothesisError(f"--shifts: only --layout lean merges routing stages (got --layout {layout})")
    extra = {} if shifts is None else {"shifts": shifts}
    recs: list[Record] = []
    series: dict = {"L / 4Δ⌈log₂w⌉": {}, "N' / 4w": {}, "d' / d": {}}
    for fam, c, n, d in _named() + _random(args.max_w):
        ps = paper_sizes(c)
        w, D = ps["cut_width"], ps["depth"]
        L_bound, N_bound = theorem_bounds(c)
        where = f"{fam}, w={w}, Δ={D}, d={d}"
        try:
            cc = compile_arithmetic(c, n, d, layout=layout, **extra)
        except HypothesisError as e:
            if layout != "cells":
                raise
            for key in series:  # no plan, or a circuit the cells layout does not take
                recs.append(Record(f"{key}: {where}", math.inf, "<= 1", False, "", f"not built: {e}"))
            continue
        sig = cc.stack.signature
        ratios = {"L / 4Δ⌈log₂w⌉": sig.L / L_bound, "N' / 4w": sig.N_int / N_bound, "d' / d": sig.d_int / d}
        how = ""
        if layout == "best":
            how = f" by {cc.counts['chosen']}" + (f" (seed {cc.counts['seed']})" if "seed" in cc.counts else "")
        detail = (f"built {sig}{how}; Δ={D}, cut width {w}, level width {ps['level_width']}; "
                  f"bounds L ≤ {L_bound}, N' ≤ {N_bound}")
        for key, r in ratios.items():
            recs.append(Record(f"{key}: {where}", r, "<= 1", bool(r <= 1), "", detail))
            if math.isfinite(r):
                series[key].setdefault(fam if d == 1 else f"{fam} (d={d})", []).append((w, r))
    return recs, series


def plot_ratios(series: dict, path: str) -> None:
    """Three panels (L, N', d' ratios against the cut width w), one line per family; written whole or not."""
    from ..fileio import check_target
    from ..plot import _save, ratio_axes, require_matplotlib

    check_target(path, "--plot")
    plt = require_matplotlib()
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.8), squeeze=False)
    for ax, (key, fams) in zip(axes[0], series.items()):
        for fam, pts in sorted(fams.items()):
            xs, ys = zip(*sorted(pts))
            ax.plot(xs, ys, marker="o", markersize=3, label=fam)
        ratio_axes(ax, "w (cut width)", f"{key} (Theorem H.21, constant 4)", ylabel="built / bound")
    fig.tight_layout()
    _save(fig, path, plt)


def run(args) -> list[Record]:
    recs, series = signature_ratios(args)
    if getattr(args, "plot", None):
        plot_ratios(series, args.plot)
    if args.ratios_only:
        return recs
    return recs + timed(args)


def timed(args) -> list[Record]:
    from ..blocks import sym
    from ..circuits import evaluate_numeric, expected_block, product_circuit, random_circuit
    from ..claims import Instance, check_instance
    from ..constructions.arithmetic import compile_arithmetic
    from ..numeric import run as run_numeric

    out: list[Record] = []
    # exact, width 16 depth 8
    c = random_circuit(16, 16, 8, seed=3, n_outputs=4, sparse=True)
    t0 = time.perf_counter()
    cc = compile_arithmetic(c, 8, 2)
    u = sym("u", 8, 2)
    failure, _ = check_instance(Instance(u, cc.stack, expected_block(c, u)), {})
    t_exact = time.perf_counter() - t0
    rep = cc.report()
    out.append(Record("exact: compile + verify, w=16, Δ=8", t_exact, "<= 10 s", t_exact <= 10 and failure is None,
                      "s", f"{'holds' if failure is None else 'FAILS'}; signature {cc.stack.signature}"))
    out.append(Record("L/(Δ log2 w), w=16", rep["L/(Δ·log2 w)"], "<= 16", rep["L/(Δ·log2 w)"] <= 16, "",
                      f"L={rep['L']}, Δ={rep['Δ']}, L_C={rep['L_C']}"))
    out.append(Record("N'/w, w=16", rep["N'/w"], "<= 48", rep["N'/w"] <= 48, "", f"N'={rep[chr(78) + chr(39)]}"))
    # numeric, width 4096
    W = args.width
    c = product_circuit(W)
    t0 = time.perf_counter()
    cc = compile_arithmetic(c, W, 1)
    t_comp = time.perf_counter() - t0
    X = np.random.default_rng(0).uniform(0.95, 1.05, size=(1, W))
    from ..numeric import prepare

    t0 = time.perf_counter()
    prep = prepare(cc.stack)
    t_prep = time.perf_counter() - t0
    got = run_numeric(prep, X.reshape(1, W, 1))[0, 0, 0]
    t_run = time.perf_counter() - t0
    t_apply = t_run - t_prep
    ref = evaluate_numeric(c, X)[0, 0]
    err = abs(got - ref) / abs(ref)
    sig = cc.stack.signature
    floor = _fft_floor(sig.N_int, sig.d_int, sig.L)
    rep = cc.report()
    out.append(Record(f"numeric: compile, product of {W}", t_comp, "<= 10 s", t_comp <= 10, "s",
                      f"signature {sig}"))
    out.append(Record(f"numeric: run, product of {W}", t_run, "<= 10 s", t_run <= 10, "s",
                      f"{sig.L} layers, N'={sig.N_int}"))
    out.append(Record("numeric: relative error", err, "<= 1e-9", err <= 1e-9, "", "against direct evaluation"))
    out.append(Record("numeric: apply / FFT floor", t_apply / floor, "<= 2", t_apply / floor <= 2, "",
                      f"floor {floor:.3g} s = L × (rfft + irfft); prepare (filter spectra) {t_prep:.3g} s apart"))
    out.append(Record(f"L/(Δ log2 w), w={W}", rep["L/(Δ·log2 w)"], "<= 16", rep["L/(Δ·log2 w)"] <= 16, "",
                      f"L={rep['L']}, Δ={rep['Δ']}"))
    out.append(Record(f"N'/w, w={W}", rep["N'/w"], "<= 48", rep["N'/w"] <= 48, ""))
    if not args.skip_retnet:
        from ..retnet import recurrence_numeric, retnet_circuit

        N = args.retnet_n
        Ws = ([[1.5]], [[-1.0]], [[0.5]])
        t0 = time.perf_counter()
        cc = compile_arithmetic(retnet_circuit(N, 1, *Ws, 0.9, "scan"), N, 1)
        u = np.random.default_rng(1).uniform(-1, 1, size=(1, N, 1))
        y = run_numeric(cc.stack, u)
        t_r = time.perf_counter() - t0
        ref = recurrence_numeric(u, *Ws, 0.9)
        err = float(np.abs(y - ref).max() / np.abs(ref).max())
        sig = cc.stack.signature
        out.append(Record(f"RetNet N={N}, d=1: relative error", err, "<= 1e-9", err <= 1e-9, "",
                          f"compile + run {t_r:.3g} s; signature {sig}"))
        out.append(Record(f"RetNet N={N}: L / (N log2 2d)", sig.L / (N * math.log2(2)), "reported", None, "",
                          f"Corollary H.22 claims O(N log d) layers; scan form depth {cc.circuit.depth}"))
    return [Record(r.name, float(r.value), r.target, None if r.ok is None else bool(r.ok), r.unit, r.detail)
            for r in out]
