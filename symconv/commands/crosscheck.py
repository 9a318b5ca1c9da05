"""``symconv crosscheck [IDS...] [--N N] [--d D] [--batch B] [--backend numpy|cupy|exact] ...``

Runs each claim's stack at scale, through its variants' ``numeric`` hooks, on
random inputs, and compares with the expected output the hook computes
directly from the definition (never through the stack).

* ``--backend numpy`` / ``cupy``: the FFT interpreter in float64 or float32.
  The maximum absolute error is checked against an a-priori rounding bound
  (``--explain-bound`` prints its derivation: FFT rounding grows like
  ε·log2 F times the norms of the state and the filter, propagated layer by
  layer through the gates).
* ``--backend exact``: the stack over F_p on random residues against the
  reference on the same residues; a polynomial identity test whose chance of
  passing a wrong stack is at most (degree/p)^trials (Schwartz–Zippel).
  Residues are drawn where the hook's input is nonzero: its zeros mark the
  block structure the claim assumes (e.g. y = (x | 0 | S | 0)).

A variant whose proof records ``fails`` (an erratum) is expected to disagree.
Exits 1 when an outcome differs from the one its proof records; claims without
a hook are listed as "no numeric hook" (an error only when every claim named
on the command line lacks one).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
import tracemalloc
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from tabulate import tabulate

from .. import exact, numeric
from ..claims import Claim, NumericCase, Variant
from ..model import HypothesisError, Stack
from ..registry import load_claims, select

BACKENDS = ("numpy", "cupy", "exact")


@dataclass
class Outcome:
    """One variant cross-checked on one backend."""

    id: str
    name: str
    variant: str
    backend: str
    status: str  # holds | fails | no numeric hook | not run
    expect: str
    N: int = 0
    d: int = 0
    batch: int = 0
    layers: int = 0
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    bound: float | None = None
    seconds: float | None = None
    peak_mib: float | None = None
    detail: str = ""

    @property
    def ok(self) -> bool | None:
        if self.status in ("no numeric hook", "not run"):
            return None
        return self.status == self.expect

    def as_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        return d


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("crosscheck", help="run claims at scale (FFT or mod p) against their direct reference")
    p.add_argument("ids", nargs="*", metavar="IDS", help="claim ids (H.9) or names (add_n); all if none")
    p.add_argument("--N", type=int, default=1 << 16, help="sequence length asked of the hooks (default 2^16)")
    p.add_argument("--d", type=int, default=4, help="channels asked of the hooks (default 4)")
    p.add_argument("--batch", type=int, default=1, help="inputs per check (default 1)")
    p.add_argument("--backend", choices=BACKENDS, default="numpy")
    p.add_argument("--dtype", choices=sorted(numeric.DTYPES), default="float64")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--trials", type=int, default=1, help="exact backend: independent random inputs")
    p.add_argument("--prime", type=int, default=exact.PRIME, help="exact backend: the prime p")
    p.add_argument("--method", choices=exact.METHODS, default="auto",
                   help="exact backend: python-flint (flint), numpy NTT (ntt), or auto")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--proofs", metavar="DIR", help="folder of proof files (default: the checkout's proofs/)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--explain-bound", action="store_true", help="print how the error bound is derived and exit")
    return p


def namespace(backend: str) -> Any:
    """The array namespace of a float backend (``cupy`` imported lazily).

    >>> namespace("numpy").__name__
    'numpy'
    """
    if backend == "numpy":
        return np
    if backend == "cupy":
        try:
            import cupy
        except ImportError as exc:
            raise HypothesisError("backend: cupy is not installed (pip install 'symconv[gpu]', needs a GPU)") from exc
        return cupy
    raise HypothesisError(f"backend: {backend!r} has no array namespace (expected numpy or cupy)")


def to_host(a: Any) -> np.ndarray:
    """An array of any namespace as a numpy array (CuPy's ``.get()`` when present)."""
    get = getattr(a, "get", None)
    return np.asarray(get() if callable(get) else a)


class Progress:
    """Plain-text progress on stderr: a bar redrawn in place on a terminal, lines otherwise."""

    def __init__(self, enabled: bool, stream=None) -> None:
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.tty = enabled and getattr(self.stream, "isatty", lambda: False)()
        self._last = -1

    def start(self, text: str) -> None:
        if self.enabled:
            self._last = -1
            self.stream.write(text + ("" if self.tty else "\n"))
            self.stream.flush()
            self._text = text

    def layer(self, i: int, L: int) -> None:
        if not self.enabled or L < 2:
            return
        tenth = (10 * i) // L
        if self.tty:
            bar = "#" * (20 * i // L)
            self.stream.write(f"\r{self._text} [{bar:<20}] layer {i}/{L}")
            self.stream.flush()
        elif tenth != self._last and L >= 10:
            self.stream.write(f"  layer {i}/{L}\n")
            self.stream.flush()
        self._last = tenth

    def done(self, text: str) -> None:
        if self.enabled:
            self.stream.write(("\r" + self._text + " " if self.tty else "  ") + text + "\n")
            self.stream.flush()


# Used only where the a-priori bound is at least max|reference| (deep stacks), so that the
# check can still fail: a working stack stays many orders of magnitude below these.
PRACTICAL_REL_TOL = {"float64": 1e-8, "float32": 1e-2}


def _case(claim: Claim, variant: Variant, N: int, d: int, batch: int, seed: int) -> NumericCase:
    rng = np.random.default_rng(seed)
    case = variant.numeric(N, d, batch, rng)
    if not isinstance(case, NumericCase) or not isinstance(case.stack, Stack):
        raise HypothesisError(f"{claim.id} {claim.name} [{variant.name}]: numeric hook must return a NumericCase")
    shape = np.shape(case.input)
    if len(shape) != 3 or shape[1:] != (case.stack.N, case.stack.d):
        raise HypothesisError(
            f"{claim.id} {claim.name} [{variant.name}]: input shape {shape} does not match the stack's "
            f"(B, N, d) = (B, {case.stack.N}, {case.stack.d})")
    return case


def check_float(case: NumericCase, backend: str = "numpy", dtype: str = "float64",
                progress: Progress | None = None) -> dict:
    """Run a case on a float backend; error, bound, time and peak memory.

    >>> from symconv.constructions.shifts import shift_down
    >>> def ref(u):
    ...     out = u * 0
    ...     out[:, 2:] = u[:, :-2]
    ...     return out
    >>> r = check_float(NumericCase(shift_down(64, 2), np.ones((1, 64, 1)), ref))
    >>> r["holds"], r["max_abs_error"] <= r["bound"], r["vacuous"]
    (True, True, False)
    """
    xp = namespace(backend)
    u = np.asarray(case.input, dtype=np.float64)
    ref = np.asarray(case.reference(u.copy()), dtype=np.float64)
    tracing = backend == "numpy" and not tracemalloc.is_tracing()
    if tracing:
        tracemalloc.start()
    try:
        t0 = time.perf_counter()
        prep = numeric.prepare(case.stack, xp, dtype)
        out, bound = numeric.run_bounded(prep, xp.asarray(u), progress=progress.layer if progress else None)
        out = to_host(out).astype(np.float64)
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] if tracing else None
    finally:
        if tracing:
            tracemalloc.stop()
    pool = getattr(xp, "get_default_memory_pool", None) if backend == "cupy" else None
    if pool is not None:  # CuPy: bytes held by its memory pool after the run
        peak = pool().total_bytes()
    if out.shape != ref.shape:
        raise HypothesisError(f"reference: returned shape {ref.shape}, the stack {out.shape}")
    ref_max = float(np.max(np.abs(ref))) if ref.size else 0.0
    err = float(np.max(np.abs(out - ref))) if ref.size else 0.0
    if not math.isfinite(err):
        err = math.inf
    bound += 4 * numeric.EPS["float64"] * case.stack.N_int * ref_max
    vacuous = not bound < ref_max
    rel = err / ref_max if ref_max > 0 else err
    return {
        "holds": rel <= PRACTICAL_REL_TOL[dtype] if vacuous else err <= bound,
        "vacuous": vacuous,
        "max_abs_error": err,
        "max_rel_error": err / ref_max if ref_max > 0 else err,
        "bound": bound,
        "seconds": seconds,
        "peak_mib": None if peak is None else peak / 2 ** 20,
    }


def crosscheck(claims: list[Claim], N: int = 1 << 16, d: int = 4, batch: int = 1, backend: str = "numpy",
               dtype: str = "float64", seed: int = 0, trials: int = 1, prime: int = exact.PRIME,
               method: str = "auto", progress: Progress | None = None) -> list[Outcome]:
    """Cross-check every variant of ``claims`` on one backend; one :class:`Outcome` each."""
    for name, v in (("N", N), ("d", d), ("batch", batch)):
        if not isinstance(v, int) or v < 1:
            raise HypothesisError(f"{name}: must be a positive integer, got {v!r}")
    if backend not in BACKENDS:
        raise HypothesisError(f"backend: expected one of {BACKENDS}, got {backend!r}")
    progress = progress or Progress(False)
    out = []
    for claim in claims:
        for variant in claim.variants:
            base = dict(id=claim.id, name=claim.name, variant=variant.name, backend=backend, expect=variant.expect)
            if variant.numeric is None:
                out.append(Outcome(status="no numeric hook", **base))
                continue
            try:
                case = _case(claim, variant, N, d, batch, seed)
            except HypothesisError as exc:  # e.g. a hook's size budget: say so, check the rest
                out.append(Outcome(status="not run", detail=str(exc), **base))
                continue
            st = case.stack
            size = dict(N=st.N, d=st.d, batch=int(np.shape(case.input)[0]), layers=st.L)
            progress.start(f"{claim.id} {claim.name} [{variant.name}] {backend} N={st.N} d={st.d} L={st.L}")
            if backend == "exact":
                support = np.asarray(case.input) != 0  # the hook's zeros are structural
                r = exact.check(st, case.reference, size["batch"], prime, trials, seed, method, support)
                o = Outcome(status="holds" if r.holds else "fails", seconds=r.seconds,
                            detail=r.describe(), **size, **base)
            else:
                r = check_float(case, backend, dtype, progress)
                note = (f"; a-priori bound not informative (>= max|reference|): checked against relative "
                        f"error <= {PRACTICAL_REL_TOL[dtype]:g} instead") if r.pop("vacuous") else ""
                o = Outcome(status="holds" if r.pop("holds") else "fails", detail=dtype + note, **size, **base, **r)
            progress.done(f"{o.status} ({o.seconds:.2f} s)")
            out.append(o)
    return out


def _fmt(v: Any) -> str:
    return "-" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v)


def render(outcomes: list[Outcome], fmt: str = "table") -> str:
    """The outcomes as a table (with notes) or as JSON."""
    if fmt == "json":
        return json.dumps([o.as_dict() for o in outcomes], indent=2)
    rows = []
    for o in outcomes:
        mark = "" if o.ok is not False else f"  <-- recorded: {o.expect}"
        rows.append([o.id, o.name, o.variant, o.status + mark, o.N or "-", o.d or "-", o.layers or "-",
                     _fmt(o.max_abs_error), _fmt(o.max_rel_error), _fmt(o.bound), _fmt(o.seconds),
                     _fmt(o.peak_mib)])
    headers = ["id", "name", "variant", "outcome", "N", "d", "L", "max abs err", "max rel err",
               "bound", "s", "peak MiB"]
    text = tabulate(rows, headers=headers, maxcolwidths=[None, None, 22] + [None] * 9)
    notes = [f"{o.id} {o.name} [{o.variant}]: {o.detail}" for o in outcomes
             if o.detail and (o.backend == "exact" or "not informative" in o.detail or o.status == "not run")]
    if any(o.backend != "exact" and o.status != "no numeric hook" for o in outcomes):
        notes.append("bound: a-priori rounding bound (ε·log2 F × norms, layer by layer); "
                     "see `symconv crosscheck --explain-bound`; peak MiB: numpy allocations (tracemalloc)")
    return text + ("\n\n" + "\n".join(notes) if notes else "")


def main(args: argparse.Namespace) -> int:
    if args.explain_bound:
        print(numeric.error_bound_doc())
        return 0
    claims = select(load_claims(args.proofs), args.ids)
    if args.ids and all(v.numeric is None for c in claims for v in c.variants):
        raise HypothesisError(f"IDS: no numeric hook in any variant of {', '.join(args.ids)}")
    outcomes = crosscheck(claims, args.N, args.d, args.batch, args.backend, args.dtype, args.seed,
                          args.trials, args.prime, args.method, Progress(not args.quiet))
    print(render(outcomes, args.format))
    bad = [o for o in outcomes if o.ok is False]
    if bad and args.format != "json":
        print(f"\n{len(bad)} outcome(s) differ from what their proofs record.", file=sys.stderr)
    return 1 if bad else 0
