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
stays near one piece's parameters.
"""
from __future__ import annotations

import time

import numpy as np

from ..constructions.butterfly import (ButterflyFactorMatrix, compile_factors, from_row_major, random_butterfly,
                                       random_factor, row_major)
from ..constructions.kaleidoscope import random_kaleidoscope
from ..model import HypothesisError
from ..numeric import apply_prepared_layer, from_internal, prepare_layer, to_internal
from . import Record

DESCRIPTION = "compiled butterfly / kaleidoscope stacks vs the reference multiply, nd = 2^12..2^20, float64"
TOL = 1e-12


def add_arguments(p) -> None:
    p.add_argument("--min-log", type=int, default=12, help="smallest log2(nd) (default 12)")
    p.add_argument("--max-log", type=int, default=20, help="largest log2(nd) (default 20)")
    p.add_argument("--step", type=int, default=2, help="step in log2(nd) (default 2)")
    p.add_argument("--d", type=int, default=8, help="channels d, a power of two (default 8)")
    p.add_argument("--batch", type=int, default=1, help="inputs per run (default 1)")
    p.add_argument("--e", type=int, default=2, help="kaleidoscope expansion e (default 2)")
    p.add_argument("--w", type=int, default=1, help="kaleidoscope width w (default 1)")
    p.add_argument("--kaleidoscope-max-log", type=int, default=18,
                   help="largest log2(nd) for the kaleidoscope (default 18; 20 takes ~1 min and ~4 GB more)")
    p.add_argument("--chunk", type=int, default=8, help="factor matrices per piece (default 8)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random butterflies and inputs (default 0)")


def run_factors(factors, n: int, d: int, N_int: int, u: np.ndarray, chunk: int) -> tuple[np.ndarray, int]:
    """Run the stack of ``compile_factors(factors, n, d, N_int)`` piece by piece; (output, layers run)."""
    factors = list(factors)
    pieces = [factors[i:i + chunk] for i in range(0, len(factors), chunk)]
    z = squeeze = first = None
    layers = 0
    for p_i, piece in enumerate(pieces):
        stack = compile_factors(piece, n, d, N_int=N_int, final_sum=p_i == len(pieces) - 1, fresh=p_i == 0)
        if first is None:
            first = stack
            z, squeeze = to_internal(stack, u, np, np.float64)
        for i, layer in enumerate(stack.layers):
            z = apply_prepared_layer(prepare_layer(layer, N_int, np, np.float64, f"layers[{layers + i}]"), z, np)
        layers += stack.L
        del stack
    return from_internal(first, z, squeeze, np), layers


def _measure(name: str, factors, apply_ref, n: int, d: int, N_int: int, u: np.ndarray, chunk: int,
             records: list) -> None:
    t0 = time.perf_counter()
    got, L = run_factors(factors, n, d, N_int, u, chunk)
    t_stack = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = from_row_major(apply_ref(row_major(u)), n, d)
    t_ref = time.perf_counter() - t0
    err = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
    sig = f"(N, L, d, N', d') = ({n}, {L}, {d}, {N_int}, {3 * d})"
    records.append(Record(f"{name}: relative error", err, f"<= {TOL:g}", err <= TOL, "", sig))
    records.append(Record(f"{name}: time compiled / reference", t_stack / max(t_ref, 1e-9), "report", None, "x",
                          f"compiled (build + run) {t_stack:.3f} s, reference {t_ref:.4f} s, float64"))


def run(args) -> list[Record]:
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
        _measure(f"H.16(1) B_k^(nd), k = nd = 2^{lg}", [F], F.apply, n, d, n, u, args.chunk, records)
        B = random_butterfly(nd, rng)
        _measure(f"H.16(2) B^(nd), nd = 2^{lg}", B.applied(), B.apply, n, d, n, u, args.chunk, records)
        del B
        if lg <= args.kaleidoscope_max_log:
            K = random_kaleidoscope(nd, args.e, args.w, rng)
            _measure(f"H.18 (BB*)^{args.w}_{args.e}, nd = 2^{lg}", K.factors(), K.apply, n, d, args.e * n, u,
                     args.chunk, records)
            del K
    return records
