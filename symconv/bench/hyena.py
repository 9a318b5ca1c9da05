"""``symconv bench hyena``: numeric cross-checks of Prop. H.10 and Prop. H.12 at scale.

Every corrected variant of H.10 and H.12 that carries a ``numeric`` hook is run
at N = 2^16, d = 16 (by default) on random float64 input with the FFT
interpreter, and compared with the hook's direct reference (plain sums over
filter taps, never through the stack).  One more figure runs the BaseConv →
Hyena direction the other way round: the chain of Hyena models, by FFT,
against the direct definition of the BaseConv model.

Figure: the normwise relative error max|got − ref| / max|ref|.  Target: at most
``error_bound`` = 8·ε·L·log2(F), with ε = 2^−52, L the number of layers run and
F the longest FFT length; each FFT convolution contributes an error of order
ε·log2(F) relative to the size of its operands, and the layers add theirs.
This is a rule of thumb, not a proof; the rigorous a-priori bound of
:func:`symconv.numeric.run_bounded` (much looser) is shown beside each figure.

>>> error_bound(layers=2, fft_len=1 << 17) < 1e-13
True
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from . import Record, nonnegative_int, positive_int
from .. import numeric

DESCRIPTION = "max relative error of remember (H.10) and BaseConv <-> Hyena (H.12) at N = 2^16, d = 16"
EPS = 2.0 ** -52
IDS = ("H.10", "H.12")


def error_bound(layers: int, fft_len: int) -> float:
    """8·ε·L·log2(F): the bound each cross-check is held to."""
    return 8 * EPS * max(layers, 1) * math.log2(max(fft_len, 2))


def relative_error(got, ref) -> float:
    """max|got − ref| / max|ref| (0 when both vanish)."""
    scale = float(np.max(np.abs(ref)))
    diff = float(np.max(np.abs(np.asarray(got) - np.asarray(ref))))
    return diff / scale if scale else diff


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--N", type=positive_int, default=1 << 16, help="sequence length (default 65536)")
    p.add_argument("--d", type=positive_int, default=16, help="channels (default 16)")
    p.add_argument("--batch", type=positive_int, default=1, help="inputs per run (default 1)")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the random models and inputs (default 0)")
    p.add_argument("--proofs", default=None, help="folder of proof files")


def cases(N: int, d: int, batch: int, seed: int, proofs=None):
    """(label, NumericCase) for each distinct numeric hook of the H.10 and H.12 claims."""
    from ..registry import load_claims

    seen, out = set(), []
    for claim in load_claims(proofs):
        if claim.id not in IDS:
            continue
        for v in claim.variants:
            if v.numeric is None or v.numeric in seen:
                continue
            seen.add(v.numeric)
            rng = np.random.default_rng(seed)
            out.append((f"{claim.id} {claim.name} [{v.name}]", v.numeric(N, d, batch, rng)))
    return out


def _check(label, stack, u, ref_fn, runner) -> Record:
    t0 = time.perf_counter()
    got, layers, F, apriori = runner(stack, u)
    ref = ref_fn(u)
    err = relative_error(got, ref)
    bound = error_bound(layers, F)
    extra = f", a-priori bound {apriori / float(np.max(np.abs(ref))):.1e}" if apriori is not None else ""
    return Record(f"{label}: max rel. error", err, f"<= {bound:.2e} (8·ε·L·log2 F)", err <= bound,
                  detail=f"N={stack.N}, N'={stack.N_int}, d={stack.d}, L={layers}, F={F}{extra}, "
                         f"{time.perf_counter() - t0:.2f} s")


def _run_stack(stack, u):
    prep = numeric.prepare(stack)
    F = max(p.fft_len for p in prep.layers)
    if hasattr(numeric, "run_bounded"):  # rigorous but loose: shown beside the figure
        out, apriori = numeric.run_bounded(prep, u)
        return out, stack.L, F, apriori
    return numeric.run(prep, u), stack.L, F, None


def run(args: argparse.Namespace) -> list[Record]:
    from ..constructions.hyena import hyena_from_baseconv
    from ..hyena import run_nested

    records = []
    for label, case in cases(args.N, args.d, args.batch, args.seed, getattr(args, "proofs", None)):
        records.append(_check(label, case.stack, case.input, case.reference, _run_stack))
        if "BaseConv -> Hyena" in label:
            def chain(stack, u):
                models = hyena_from_baseconv(stack)
                F = max(numeric.fast_length(stack.N + l.h.shape[0] - 1) for l in stack.layers)
                return run_nested(models, u), stack.L, F, None
            records.append(_check(label.split(" [")[0] + " [Hyena chain by FFT vs direct BaseConv]", case.stack,
                                  case.input, case.reference, chain))
    return records
