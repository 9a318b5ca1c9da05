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

* Memory: before a variant runs, its needs are estimated (the hook's input and
  reference before the hook is called, then the run once the stack is known:
  state, FFT buffers, cached spectra); a variant over the budget (``--memory``,
  ``SYMCONV_MEMORY``, else a fraction of the available memory) is reported as
  ``not run (needs X GiB, budget Y GiB)`` and the others still run.  A hook
  may declare its own estimate as an attribute ``memory_estimate(N, d, batch,
  dtype) -> bytes`` of the hook function.
* Rows are printed (and flushed) one by one as variants finish;
  ``--format jsonl`` writes one JSON object per line the same way, so that a
  crash or a kill never loses the variants already checked.
* float verdicts: where the a-priori bound of the run is below max|reference|,
  holds means max|out − reference| ≤ bound.  Where it is not (deep stacks), a
  float32 run is checked through a float64 run of the same stack on the same
  inputs: the float64 output must be within its own (informative) bound of the
  reference, and the float32 output within the float32 bound of the float64
  one.  Where even the float64 bound is uninformative, the stack is checked
  exactly mod p instead (as ``--backend exact``).  No fixed tolerance is used.

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

from . import nonnegative_int, positive_int
from .. import budget, exact, numeric
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
    status: str  # holds | fails | no numeric hook | not run | error
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
    asked_N: int = 0
    asked_d: int = 0
    need_bytes: int | None = None
    budget_bytes: int | None = None
    method: str = ""

    @property
    def ok(self) -> bool | None:
        if self.status in ("no numeric hook", "not run"):
            return None
        if self.status == "error":
            return False
        return self.status == self.expect

    @property
    def smaller(self) -> bool:
        """Whether the hook ran at a smaller N (or d) than asked."""
        return bool(self.N and ((self.asked_N and self.N < self.asked_N) or (self.asked_d and self.d < self.asked_d)))

    def outcome_text(self) -> str:
        """The outcome cell: status, budget figures, a smaller size than asked, a differing record."""
        text = self.status
        if self.status == "not run" and self.need_bytes is not None:
            text += f" (needs {_gib(self.need_bytes)}, budget {_gib(self.budget_bytes)})"
        if self.smaller:
            text += f" (ran at N={self.N}, d={self.d}; asked N={self.asked_N}, d={self.asked_d})"
        if self.ok is False:
            text += f"  <-- recorded: {self.expect}"
        return text

    def as_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        d["smaller_than_asked"] = self.smaller
        for k in ("max_abs_error", "max_rel_error", "bound"):  # strict JSON: no inf / nan
            if isinstance(d[k], float) and not math.isfinite(d[k]):
                d[k] = None if math.isnan(d[k]) else str(d[k])
        return d


def _gib(n: int | None) -> str:
    """``256 GiB``, ``1,280 GiB``, ``0.5 GiB``: three significant digits below 100 GiB, whole GiB above
    (no exponent notation).

    >>> _gib(1280 << 30), _gib(1 << 29), _gib(None)
    ('1,280 GiB', '0.5 GiB', '?')
    """
    if n is None:
        return "?"
    v = n / 2 ** 30
    return f"{v:.3g} GiB" if v < 100 else f"{v:,.0f} GiB"


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("crosscheck", help="run claims at scale (FFT or mod p) against their direct reference")
    p.add_argument("ids", nargs="*", metavar="IDS", help="claim ids (H.9) or names (add_n); all if none")
    p.add_argument("--N", type=positive_int, default=1 << 16, help="sequence length asked of the hooks (default 2^16)")
    p.add_argument("--d", type=positive_int, default=4, help="channels asked of the hooks (default 4)")
    p.add_argument("--batch", type=positive_int, default=1, help="inputs per check (default 1)")
    p.add_argument("--backend", choices=BACKENDS, default="numpy",
                   help="numpy (CPU FFTs), cupy (GPU) or exact (evaluation mod a prime); default numpy")
    p.add_argument("--dtype", choices=sorted(numeric.DTYPES), default="float64",
                   help="precision of the float backends (default float64)")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--trials", type=positive_int, default=1,
                   help="exact checks (--backend exact, and a float run decided mod p when its a-priori bound is "
                        "not informative): independent random inputs")
    p.add_argument("--prime", type=int, default=exact.PRIME, help="exact checks (as --trials): the prime p")
    p.add_argument("--method", choices=exact.METHODS, default="auto",
                   help="exact checks (as --trials): float64 FFTs of limbs (fft), python-flint (flint), numpy NTT "
                        "(ntt), or auto (fft)")
    p.add_argument("--format", choices=("table", "json", "jsonl"), default="table",
                   help="table and jsonl stream one row per variant as it finishes; json prints a list at the end")
    p.add_argument("--memory", metavar="SIZE", default=argparse.SUPPRESS,
                   help="memory budget (8GiB, 512MiB); variants that need more are reported as not run")
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


def _real_size(dtype: str) -> int:
    return 8 if dtype == "float64" else 4


def estimate_case(N: int, d: int, batch: int) -> int:
    """Bytes a hook needs at least before its stack is known: its input and reference (float64),
    and this module's float64 copies of both.

    >>> estimate_case(1 << 31, 4, 1) // 2 ** 30
    256
    """
    return 4 * batch * N * d * 8


def _param_bytes(stack: Stack, itemsize: int) -> int:
    return sum(itemsize * (l.h.size + l.b1.size + l.b2.size + l.W.size) for l in stack.layers)


def estimate_float(stack: Stack, batch: int, dtype: str = "float64") -> int:
    """Bytes of one run of ``stack`` by :func:`numeric.run_bounded` on ``batch`` inputs, and of the check.

    The state (B × d' × N'), the layer's gate and convolution buffers, the FFT
    blocks, the cached filter spectra (at most ``numeric.CACHE_BYTES``), the
    parameters converted to ``dtype``, and the float64 input, reference and output.

    >>> from symconv.constructions.shifts import shift_down
    >>> 0 < estimate_float(shift_down(1024, 1), 1) < 2 ** 20
    True
    """
    r = _real_size(dtype)
    F = max(numeric.fast_length(2 * stack.N_int), 2)
    state = batch * stack.d_int * stack.N_int * r
    fft_full = batch * stack.d_int * (F // 2 + 1) * 2 * r
    fft = min(fft_full, 3 * numeric.BLOCK_BYTES * max(1, numeric.default_workers())) + fft_full // 8
    spectra = min(numeric.CACHE_BYTES, stack.L * stack.d_int * (F // 2 + 1) * 2 * r)
    host = 3 * batch * stack.N * stack.d * 8
    return int(4 * state + 2 * fft + spectra + _param_bytes(stack, r) + host)


def estimate_exact(stack: Stack, batch: int, trials: int = 1) -> int:
    """Bytes of :func:`exact.check` on ``stack``: int64 states and NTT buffers, and the reference's arrays.

    >>> from symconv.constructions.shifts import shift_down
    >>> 0 < estimate_exact(shift_down(1024, 1), 1) < 2 ** 20
    True
    """
    F = max(numeric.fast_length(2 * stack.N_int), 2)
    state = batch * stack.d_int * stack.N_int * 8
    ntt = batch * stack.d_int * F * 8
    return int(5 * state + 3 * ntt + _param_bytes(stack, 8) + 4 * batch * stack.N * stack.d * 8)


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


def _run_float(stack: Stack, u: np.ndarray, xp: Any, dtype: str, progress: Progress | None):
    prep = numeric.prepare(stack, xp, dtype)
    out, bound = numeric.run_bounded(prep, xp.asarray(u), progress=progress.layer if progress else None)
    return to_host(out).astype(np.float64), float(bound)


def _max_abs(a: np.ndarray) -> float:
    if not a.size:
        return 0.0
    m = float(np.max(np.abs(a)))
    return m if math.isfinite(m) else math.inf


def check_float(case: NumericCase, backend: str = "numpy", dtype: str = "float64",
                progress: Progress | None = None, *, prime: int = exact.PRIME, seed: int = 0,
                method: str = "auto", trials: int = 1) -> dict:
    """Run a case on a float backend; error, bound, verdict, time and peak memory.

    ``holds`` is decided by the a-priori bound where it is informative (below
    max|reference|); otherwise by a float64 run of the same stack on the same
    inputs (float32 runs), or by the exact check mod p (see the module
    docstring); ``method`` in the result says which.  ``prime`` and ``trials`` are those of that exact check.

    >>> from symconv.constructions.shifts import shift_down
    >>> def ref(u):
    ...     out = u * 0
    ...     out[:, 2:] = u[:, :-2]
    ...     return out
    >>> r = check_float(NumericCase(shift_down(64, 2), np.ones((1, 64, 1)), ref))
    >>> r["holds"], r["max_abs_error"] <= r["bound"], r["vacuous"], r["method"]
    (True, True, False, 'a-priori bound')
    """
    xp = namespace(backend)
    if xp is np:  # choose the FFT library (imports, one timing) before tracing allocations
        numeric.CpuFFT("auto")
    u = np.asarray(case.input, dtype=np.float64)
    ref = np.asarray(case.reference(u.copy()), dtype=np.float64)
    tracing = backend == "numpy" and not tracemalloc.is_tracing()
    if tracing:
        tracemalloc.start()
    try:
        t0 = time.perf_counter()
        out, bound = _run_float(case.stack, u, xp, dtype, progress)
        if out.shape != ref.shape:
            raise HypothesisError(f"reference: returned shape {ref.shape}, the stack {out.shape}")
        ref_max = _max_abs(ref)
        ref_round = 4 * numeric.EPS["float64"] * case.stack.N_int * ref_max  # the reference's own rounding
        err = _max_abs(out - ref)
        bound += ref_round
        vacuous = not bound < ref_max
        extra: dict = {}
        if not vacuous:
            holds, method_used = err <= bound, "a-priori bound"
        else:
            holds, method_used, extra = _fallback(case, u, ref, out, bound, ref_max, ref_round, xp, dtype,
                                                  prime, seed, method, trials)
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] if tracing else None
    finally:
        if tracing:
            tracemalloc.stop()
    pool = getattr(xp, "get_default_memory_pool", None) if backend == "cupy" else None
    if pool is not None:  # CuPy: bytes held by its memory pool after the run
        peak = pool().total_bytes()
    return {
        "holds": holds,
        "vacuous": vacuous,
        "method": method_used,
        "max_abs_error": err,
        "max_rel_error": err / ref_max if ref_max > 0 else err,
        "bound": bound,
        "seconds": seconds,
        "peak_mib": None if peak is None else peak / 2 ** 20,
        **extra,
    }


def _fallback(case: NumericCase, u: np.ndarray, ref: np.ndarray, out: np.ndarray, bound: float, ref_max: float,
              ref_round: float, xp: Any, dtype: str, prime: int, seed: int, method: str, trials: int = 1) -> tuple:
    """The verdict where the run's own a-priori bound is not below max|reference|."""
    if dtype != "float64" and math.isfinite(bound):
        out64, bound64 = _run_float(case.stack, u, xp, "float64", None)
        bound64 += ref_round
        if bound64 < ref_max:
            err64 = _max_abs(out64 - ref)
            diff = _max_abs(out - out64)
            holds = err64 <= bound64 and math.isfinite(diff) and diff <= bound + bound64
            return holds, "float64 reference run", {
                "reference_error": err64, "reference_bound": bound64, "float64_difference": diff}
    # no informative float bound: decide exactly, mod p, on random residues (Schwartz–Zippel)
    support = np.asarray(case.input) != 0
    try:
        r = exact.check(case.stack, case.reference, int(np.shape(case.input)[0]), prime, trials, seed, method,
                        support)
    except (HypothesisError, ArithmeticError, TypeError, ValueError) as exc:  # e.g. a reference that is not exact
        return None, "undecided", {"exact_detail": f"the exact check could not run: {type(exc).__name__}: {exc}"}
    finite = bool(np.isfinite(out).all())  # an overflowed float run fails even if the stack is right
    return r.holds and finite, "exact mod p", {
        "exact_detail": r.describe() + ("" if finite else f"; the {dtype} run overflowed (non-finite output)")}


def _memory_refusal(need: int, what: str, limit: int) -> dict:
    return dict(status="not run", need_bytes=int(need), budget_bytes=int(limit),
                detail=f"{what}: needs {budget.fmt_bytes(need)}, over the memory budget of "
                       f"{budget.fmt_bytes(limit)} (--memory / SYMCONV_MEMORY)")


def _budget_figures(message: str) -> dict:
    """need/budget bytes from a budget.require message (as raised by constructors and interpreters)."""
    import re

    m = re.search(r"needs ([0-9.]+) (TiB|GiB|MiB|KiB|B), over the memory budget of ([0-9.]+) (TiB|GiB|MiB|KiB|B)",
                  message)
    if not m:
        return {}
    unit = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
    return {"need_bytes": int(float(m.group(1)) * unit[m.group(2)]),
            "budget_bytes": int(float(m.group(3)) * unit[m.group(4)])}


def iter_crosscheck(claims: list[Claim], N: int = 1 << 16, d: int = 4, batch: int = 1, backend: str = "numpy",
                    dtype: str = "float64", seed: int = 0, trials: int = 1, prime: int = exact.PRIME,
                    method: str = "auto", progress: Progress | None = None,
                    memory: int | str | None = None) -> Any:
    """Cross-check every variant of ``claims`` on one backend, yielding one :class:`Outcome` as each finishes.

    ``memory`` is the budget in bytes or as text (``"4GiB"``); default: the
    current budget of :mod:`symconv.budget`.
    """
    for name, v in (("N", N), ("d", d), ("batch", batch), ("trials", trials)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise HypothesisError(f"{name}: must be a positive integer, got {v!r}")
    if backend not in BACKENDS:
        raise HypothesisError(f"backend: expected one of {BACKENDS}, got {backend!r}")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise HypothesisError(f"seed: must be a non-negative integer, got {seed!r}")
    try:  # the exact backend and the exact fallback of float checks use it
        prime = exact.check_prime(prime)
    except HypothesisError as exc:
        raise HypothesisError(f"prime (--prime): {str(exc).partition(': ')[2]}") from None
    if method not in exact.METHODS:
        raise HypothesisError(f"method: expected one of {exact.METHODS}, got {method!r}")
    if dtype not in numeric.DTYPES:
        raise HypothesisError(f"dtype: expected one of {sorted(numeric.DTYPES)}, got {dtype!r}")
    if backend != "exact":
        namespace(backend)  # a missing CuPy is an error of the command, not of each variant
    limit = budget.current_budget(memory)
    progress = progress or Progress(False)
    for claim in claims:
        for variant in claim.variants:
            base = dict(id=claim.id, name=claim.name, variant=variant.name, backend=backend, expect=variant.expect,
                        asked_N=N, asked_d=d)
            if variant.numeric is None:
                yield Outcome(status="no numeric hook", **base)
                continue
            yield _one(claim, variant, base, N, d, batch, backend, dtype, seed, trials, prime, method, progress,
                       limit)


def _one(claim, variant, base, N, d, batch, backend, dtype, seed, trials, prime, method, progress, limit) -> Outcome:
    declared = getattr(variant.numeric, "memory_estimate", None)
    need = int(declared(N, d, batch, dtype)) if callable(declared) else estimate_case(N, d, batch)
    if need > limit:
        return Outcome(**_memory_refusal(need, f"N: the hook's input and reference at N = {N}, d = {d}, "
                                         f"batch = {batch}", limit), **base)
    try:
        with budget.use_budget(limit):
            case = _case(claim, variant, N, d, batch, seed)
    except HypothesisError as exc:  # e.g. a hook's size budget: say so, check the rest
        return Outcome(status="not run", detail=str(exc), **_budget_figures(str(exc)), **base)
    except MemoryError:
        return Outcome(status="not run", detail="the hook ran out of memory building its case", **base)
    st = case.stack
    size = dict(N=st.N, d=st.d, batch=int(np.shape(case.input)[0]), layers=st.L)
    run_need = (estimate_exact(st, size["batch"], trials) if backend == "exact"
                else estimate_float(st, size["batch"], dtype) * (2 if dtype != "float64" else 1))
    if run_need > limit:
        return Outcome(**_memory_refusal(run_need, f"N: the {backend} run at N' = {st.N_int}, d' = {st.d_int}, "
                                         f"L = {st.L}", limit), **size, **base)
    progress.start(f"{claim.id} {claim.name} [{variant.name}] {backend} N={st.N} d={st.d} L={st.L}")
    try:
        with budget.use_budget(limit):
            if backend == "exact":
                support = np.asarray(case.input) != 0  # the hook's zeros are structural
                r = exact.check(st, case.reference, size["batch"], prime, trials, seed, method, support)
                o = Outcome(status="holds" if r.holds else "fails", seconds=r.seconds, method="exact mod p",
                            detail=r.describe(), **size, **base)
            else:
                r = check_float(case, backend, dtype, progress, prime=prime, seed=seed, method=method, trials=trials)
                status = "not run" if r["holds"] is None else "holds" if r["holds"] else "fails"
                o = Outcome(status=status, detail=_float_note(r, dtype),
                            method=r["method"], max_abs_error=r["max_abs_error"],
                            max_rel_error=r["max_rel_error"], bound=r["bound"], seconds=r["seconds"],
                            peak_mib=r["peak_mib"], **size, **base)
    except HypothesisError as exc:
        o = Outcome(status="not run", detail=str(exc), **_budget_figures(str(exc)), **size, **base)
    except MemoryError:
        o = Outcome(status="not run", detail="ran out of memory during the run (set --memory lower to refuse "
                                             "such variants before they allocate)", **size, **base)
    except Exception as exc:  # noqa: BLE001 - one broken variant must not lose the others
        o = Outcome(status="error", detail=f"{type(exc).__name__}: {exc}", **size, **base)
    progress.done(f"{o.status}" + (f" ({o.seconds:.2f} s)" if o.seconds is not None else ""))
    return o


def _float_note(r: dict, dtype: str) -> str:
    if r["method"] == "a-priori bound":
        return dtype
    if r["method"] == "float64 reference run":
        return (f"{dtype}; a-priori {dtype} bound not informative (>= max|reference|): checked through a float64 "
                f"run of the same stack on the same inputs: |float64 - reference| = {r['reference_error']:.3g} "
                f"<= {r['reference_bound']:.3g} (float64 bound) and |{dtype} - float64| = "
                f"{r['float64_difference']:.3g} <= {dtype} bound + float64 bound")
    if r["method"] == "undecided":
        return (f"{dtype}; a-priori bound not informative (>= max|reference|) even in float64, and "
                f"{r['exact_detail']}: no verdict (the reference must run on integer arrays mod p)")
    return (f"{dtype}; a-priori bound not informative (>= max|reference|) even in float64: decided exactly "
            f"mod p instead: {r['exact_detail']}")


def crosscheck(claims: list[Claim], N: int = 1 << 16, d: int = 4, batch: int = 1, backend: str = "numpy",
               dtype: str = "float64", seed: int = 0, trials: int = 1, prime: int = exact.PRIME,
               method: str = "auto", progress: Progress | None = None,
               memory: int | str | None = None) -> list[Outcome]:
    """Cross-check every variant of ``claims`` on one backend; one :class:`Outcome` each (see :func:`iter_crosscheck`)."""
    return list(iter_crosscheck(claims, N, d, batch, backend, dtype, seed, trials, prime, method, progress, memory))


def _fmt(v: Any) -> str:
    return "-" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v)


HEADERS = ["id", "name", "variant", "N", "d", "L", "max abs err", "max rel err", "bound", "s", "peak MiB", "outcome"]


def _cells(o: Outcome) -> list[str]:
    return [o.id, o.name, o.variant, str(o.N or "-"), str(o.d or "-"), str(o.layers or "-"),
            _fmt(o.max_abs_error), _fmt(o.max_rel_error), _fmt(o.bound), _fmt(o.seconds), _fmt(o.peak_mib),
            o.outcome_text()]


class RowWriter:
    """Writes outcomes as they come: a table row each (widths fixed from the claims known up front), or JSON Lines.

    >>> import io
    >>> buf = io.StringIO()
    >>> w = RowWriter(buf, "jsonl", [])
    >>> w.write(Outcome("H.9", "add_n", "as printed", "numpy", "holds", "holds", N=8))
    >>> json.loads(buf.getvalue())["status"]
    'holds'
    """

    WIDE = {"N": 10, "d": 4, "L": 5, "max abs err": 11, "max rel err": 11, "bound": 9, "s": 7, "peak MiB": 8}

    def __init__(self, stream, fmt: str, claims: list[Claim]) -> None:
        self.stream, self.fmt, self.outcomes = stream, fmt, []
        keys = [(c.id, c.name, v.name) for c in claims for v in c.variants] or [("", "", "")]
        self.widths = [max(len(HEADERS[0]), *(len(k[0]) for k in keys)),
                       max(len(HEADERS[1]), *(min(len(k[1]), 28) for k in keys)),
                       max(len(HEADERS[2]), *(min(len(k[2]), 28) for k in keys))]
        self.widths += [max(len(h), self.WIDE[h]) for h in HEADERS[3:-1]]
        self.started = False

    def _line(self, cells: list[str]) -> str:
        parts = []
        for i, (c, w) in enumerate(zip(cells, self.widths)):
            c = c if len(c) <= w else c[: w - 1] + "…"
            parts.append(c.rjust(w) if 3 <= i else c.ljust(w))
        return "  ".join(parts + [cells[-1]]).rstrip()

    def write(self, o: Outcome) -> None:
        self.outcomes.append(o)
        if self.fmt == "jsonl":
            self.stream.write(json.dumps(o.as_dict()) + "\n")
        elif self.fmt == "table":
            if not self.started:
                self.stream.write(self._line(HEADERS) + "\n")
                self.stream.write(self._line(["-" * w for w in self.widths] + ["-" * 7]) + "\n")
                self.started = True
            self.stream.write(self._line(_cells(o)) + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.fmt == "json":
            self.stream.write(json.dumps([o.as_dict() for o in self.outcomes], indent=2) + "\n")
        elif self.fmt == "table":
            notes = _notes(self.outcomes)
            if notes:
                self.stream.write("\n" + "\n".join(notes) + "\n")
        self.stream.flush()


def _notes(outcomes: list[Outcome]) -> list[str]:
    notes = [f"{o.id} {o.name} [{o.variant}]: {o.detail}" for o in outcomes
             if o.detail and (o.backend == "exact" or o.method not in ("", "a-priori bound")
                              or o.status in ("not run", "error"))]
    if any(o.backend != "exact" and o.status not in ("no numeric hook", "not run") for o in outcomes):
        notes.append("bound: a-priori rounding bound (ε·log2 F × norms, layer by layer); "
                     "see `symconv crosscheck --explain-bound`; peak MiB: numpy allocations (tracemalloc)")
    return notes


def render(outcomes: list[Outcome], fmt: str = "table") -> str:
    """The outcomes as a table (with notes), as JSON, or as JSON Lines."""
    if fmt == "json":
        return json.dumps([o.as_dict() for o in outcomes], indent=2)
    if fmt == "jsonl":
        return "\n".join(json.dumps(o.as_dict()) for o in outcomes)
    text = tabulate([_cells(o) for o in outcomes], headers=HEADERS, maxcolwidths=[None, None, 22] + [None] * 9)
    notes = _notes(outcomes)
    return text + ("\n\n" + "\n".join(notes) if notes else "")


def _why(exc: HypothesisError) -> str:
    """A library message without its leading parameter name (``backend: cupy is not ...`` → ``cupy is not ...``)."""
    return str(exc).partition(": ")[2] or str(exc)


def check_options(args: argparse.Namespace) -> None:
    """Refuse, before any claim is loaded, a backend or method this machine lacks, naming the option typed.

    Left to :func:`iter_crosscheck`, a missing CuPy says ``backend: ...`` and a missing python-flint
    (``--method flint``) leaves every variant ``not run`` (exit 0).
    """
    if args.backend != "exact":
        try:
            namespace(args.backend)
        except HypothesisError as exc:
            raise HypothesisError(f"--backend: {_why(exc)}") from None
    try:  # the exact backend and the exact fallback of the float backends both use it
        exact.resolve_method(args.method)
    except HypothesisError as exc:
        raise HypothesisError(f"--method: {_why(exc)}") from None


def main(args: argparse.Namespace) -> int:
    if args.explain_bound:
        print(numeric.error_bound_doc())
        return 0
    check_options(args)
    claims = select(load_claims(args.proofs), args.ids)
    if args.ids and all(v.numeric is None for c in claims for v in c.variants):
        raise HypothesisError(f"IDS: no numeric hook in any variant of {', '.join(args.ids)}")
    writer = RowWriter(sys.stdout, args.format, claims)
    for o in iter_crosscheck(claims, args.N, args.d, args.batch, args.backend, args.dtype, args.seed,
                             args.trials, args.prime, args.method, Progress(not args.quiet),
                             getattr(args, "memory", None)):
        writer.write(o)
    writer.finish()
    bad = [o for o in writer.outcomes if o.ok is False]
    if bad and args.format == "table":
        print(f"\n{len(bad)} outcome(s) differ from what their proofs record.", file=sys.stderr)
    return 1 if bad else 0
