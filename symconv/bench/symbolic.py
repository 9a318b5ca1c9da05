"""``symconv bench symbolic``: the exact checks in python-flint's ring against sympy's, and fair baselines.

Every figure is a ratio of times measured in this one run (best of
``--repeat``, default 3), each against the sympy-ring path of the same code:

* ``verify (every claim, default sizes): flint / sympy``: the whole default
  ``verify`` (the exact sweeps and the all-sizes block algebra, which does not
  use a ring) with each backend.  Target ≤ 0.3.  The exact sweeps alone are
  reported beside it.
* ``H.10 corrected at n = 64: sympy / flint``: one exact check of remember
  (n = m = s = t = 64, N = 4n, d = 1), with the expected output and z¹ built
  in the ring (:class:`symconv.symbolic.RingBlock`), and as the proof builds
  them (sympy expressions).  Target ≥ 20.
* ``verify --max-size 12``: every claim with the active backend, caps lifted
  as the CLI does (within the default total ``--time-budget``, shared by the
  variants); target ≤ 120 s; the slowest claim and the number of caps kept are named.
* ``H.9 at n = 256``: the ring check against the same sparse algorithm run
  on sympy expressions, and against ``sympy.expand`` of h(X)·u(X) with a
  ``Poly`` read-out of the coefficients; all three are reported.
"""
from __future__ import annotations

import argparse
import math
import time
from typing import Any, Callable

import sympy

from . import Record, positive_int
from .. import symbolic
from ..progress import Progress

DESCRIPTION = "exact checks: python-flint ring vs sympy ring; fair sympy baselines"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repeat", type=positive_int, default=3, help="timings per figure; the best is kept (3)")
    p.add_argument("--n", type=positive_int, default=64, help="block length of the H.10 figure (64)")
    p.add_argument("--h9-n", type=positive_int, default=256, help="block length of the H.9 baselines (256)")
    p.add_argument("--skip-verify", action="store_true", help="leave out the two whole-verify figures")


def _best(f: Callable[[], Any], repeat: int) -> float:
    best = math.inf
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def _claims() -> list:
    from ..registry import load_claims

    return load_claims()


def cold_caches() -> None:
    """Forget what earlier checks in this process left behind (repair searches, decisions, converted
    layers), so that each timed whole-verify run starts as a fresh ``symconv verify`` would."""
    from .. import repair
    from ..parametric import linear

    for v in vars(repair).values():
        if callable(getattr(v, "cache_clear", None)):
            v.cache_clear()
    repair._SEGMENT_CACHE.clear()
    linear._implies.cache_clear()
    linear._WITNESSES.clear()
    linear._SUMS.clear()
    symbolic._PARAMS.clear()


def _verify_all(claims: list, backend: str, max_size: int | None = None, lift: bool = False) -> dict:
    """Seconds per claim of ``verify`` (with ``max_size``: caps lifted as the CLI does, within its
    default total budget shared by every variant); ``_kept``: the caps kept, ``_errors``: what raised."""
    from ..claims import verify
    from ..sweep import DEFAULT_TOTAL_BUDGET, TimeBudget

    cold_caches()
    times, errors, kept = {}, {}, []
    budget = TimeBudget(DEFAULT_TOTAL_BUDGET, sum(len(c.variants) for c in claims))
    with symbolic.use_backend(backend):
        for c in claims:
            t0 = time.perf_counter()
            try:
                if max_size is None:
                    verify(c)
                else:
                    for v in verify(c, max_size=max_size, raise_caps=lift, time_budget=budget):
                        kept += [f"{c.id} {c.name} [{v.variant}]: {s.text}" for s in
                                 (v.box.caps if v.box is not None else ()) if not s.raised]
            except Exception as exc:  # noqa: BLE001 - a claim that cannot run at this size is reported
                errors[f"{c.id} {c.name}"] = f"{type(exc).__name__}: {exc}"[:160]
            times[f"{c.id} {c.name}"] = time.perf_counter() - t0
    times["_errors"] = errors
    times["_kept"] = kept
    return times


def _total(times: dict) -> float:
    return sum(v for k, v in times.items() if not k.startswith("_"))


def _sweeps(claims: list, backend: str) -> float:
    """Seconds of the exact sweeps alone (build and check every size of every variant)."""
    from ..claims import check_sizes

    cold_caches()
    t0 = time.perf_counter()
    with symbolic.use_backend(backend):
        for c in claims:
            for v in c.variants:
                sweep = [z for z in c.sweep(8) if v.applies(z)]
                for _ in check_sizes(c, v, sweep):
                    pass
    return time.perf_counter() - t0


def _program(e: Any, leaves: dict) -> Any:
    """A sympy polynomial expression as nested ring operations, in the shape it is written
    (``p·(h₀x₁ + h₁x₀)`` stays one product of a symbol and a sum).  Symbols and numbers become
    indices into ``leaves`` (each converted once per ring): ("l", k), ("+", parts),
    ("*", factors), ("^", base, exponent), and ("+*", ((k, k'), ...)) for a sum of products of two
    leaves (a convolution entry)."""
    if e.is_Symbol or e.is_Rational:
        return ("l", leaves.setdefault(e, len(leaves)))
    if e.is_Add:
        parts = tuple(_program(a, leaves) for a in e.args)
        if all(q[0] == "*" and len(q[1]) == 2 and q[1][0][0] == q[1][1][0] == "l" for q in parts):
            return ("+*", tuple((q[1][0][1], q[1][1][1]) for q in parts))
        return ("+", parts)
    if e.is_Mul:
        return ("*", tuple(_program(a, leaves) for a in e.args))
    if e.is_Pow and e.exp.is_Integer and e.exp > 0:
        return ("^", _program(e.base, leaves), int(e.exp))
    raise ValueError(f"not a polynomial expression: {e}")


def as_ring_block(block: Any) -> symbolic.RingBlock:
    """The same block given in ring form: each entry rebuilt by ring arithmetic, as it is written.

    A proof writing its expected output in ring form writes ``r(p[i]) * sum(r(h[k]) * r(x[i - k]) ...)``;
    here the bench derives that program once from the block's expressions (outside the timed
    check) and the check runs it in its own ring: the same operations in either backend.
    """
    leaves: dict = {}
    progs = [[_program(block.entries[i, j], leaves) for j in range(block.d)] for i in range(block.n)]
    order = sorted(leaves, key=leaves.get)

    def build(r: Callable[[Any], Any]) -> list:
        L = [r(v) for v in order]  # each symbol and number converted once, as a proof names its generators
        ssum = symbolic._sum

        def run(p: Any) -> Any:
            op = p[0]
            if op == "l":
                return L[p[1]]
            if op == "+*":
                return ssum([L[i] * L[j] for i, j in p[1]])
            if op == "+":
                return ssum([run(q) for q in p[1]])
            if op == "*":
                out = None
                for q in p[1]:
                    v = run(q)
                    out = v if out is None else out * v
                return out
            return run(p[1]) ** p[2]

        return [[run(p) for p in row] for row in progs]
    return symbolic.RingBlock(block.shape, frozenset(block.free_symbols()), build, block.name)


def h10_instance(n: int, ring_form: bool) -> tuple[Any, dict]:
    from ..claims import Instance, Step

    claim = next(c for c in _claims() if c.id == "H.10" and c.name == "remember")
    variant = next(v for v in claim.variants if v.name == "corrected")
    z = dict(n=n, m=n, s=n, t=n, N=4 * n, d=1)
    inst = variant.instance(z, claim)
    states = tuple(s for s in inst.steps if getattr(s, "kind", "state") == "state")
    inst = Instance(inst.input, inst.stack, inst.expected, states)  # the state steps: what check_instance checks
    if not ring_form:
        return inst, z
    steps = tuple(Step(s.label, s.layers, as_ring_block(s.expected)) for s in states)
    return Instance(inst.input, inst.stack, as_ring_block(inst.expected), steps), z


def fig_h10(n: int, repeat: int) -> list[Record]:
    from ..checking import check_instance

    out = []
    for ring_form in (True, False):
        inst, z = h10_instance(n, ring_form)
        t = {}
        verdicts = {}
        for b in ("sympy", "flint"):
            verdicts[b] = check_instance(inst, z, backend=b)[0] is None
            t[b] = _best(lambda b=b: check_instance(inst, z, backend=b), 3 * repeat)  # short runs: more tries
        r = t["sympy"] / t["flint"]
        form = "expected in ring form (RingBlock)" if ring_form else "expected as sympy expressions (as the proof builds it)"
        target = ">= 20" if ring_form else "-"
        out.append(Record(f"H.10 corrected, n={n}, {form}: sympy ring / flint", r, target,
                          (r >= 20 and all(verdicts.values())) if ring_form else None, "x",
                          f"flint {t['flint']:.4f} s, sympy {t['sympy']:.4f} s (best of {3 * repeat}); both hold: "
                          f"{all(verdicts.values())}"))
    return out


# ---------------------------------------------------------------- H.9 baselines


def h9_instance(n: int) -> Any:
    from ..blocks import ones, sym
    from ..claims import Instance
    from ..constructions.sums import add_n

    x, S = sym("x", n), sym("S", n)
    return Instance(x | S, add_n(n, 2 * n), ones(n) | (S + x))


def _entry(a: Any, i: int, j: int = 0) -> Any:
    return a[i if a.shape[0] > 1 else 0, j if a.shape[1] > 1 else 0]


def expression_check(inst: Any) -> bool:
    """The ring interpreter's sparse algorithm (nonzero taps × nonzero entries, scalar fast path,
    then the gate) on sympy expressions instead of ring elements; equality by ``expand(g − e) == 0``."""
    stack = inst.stack
    N = stack.N_int
    state = [sympy.sympify(v, strict=True) for v in inst.input.entries[:, 0]] + [sympy.S.Zero] * (N - stack.N)
    for layer in stack.layers:
        taps = [(k, sympy.sympify(layer.h[k, 0], strict=True)) for k in range(layer.h.shape[0]) if layer.h[k, 0] != 0]
        vals = [(i, v) for i, v in enumerate(state) if v != 0]
        acc: list = [None] * N
        for k, c in taps:
            for i, v in vals:
                pos = i + k
                if pos >= N:
                    if layer.conv == "causal":
                        break
                    pos %= N
                t = v if c == 1 else c * v
                acc[pos] = t if acc[pos] is None else acc[pos] + t
        w = sympy.sympify(layer.W[0, 0], strict=True)
        new = []
        for i in range(N):
            second = (acc[i] if acc[i] is not None else sympy.S.Zero) + sympy.sympify(_entry(layer.b2, i), strict=True)
            gate = sympy.sympify(_entry(layer.b1, i), strict=True) + (state[i] * w if w != 0 else 0)
            new.append(sympy.expand(gate * second) if second != 0 and gate != 0 else sympy.S.Zero)
        state = new
    return all(sympy.expand(g - e) == 0 for g, e in zip(state[: stack.N], inst.expected.entries[:, 0]))


def expand_poly_check(inst: Any) -> bool:
    """h(X)·u(X) by ``sympy.expand``, coefficients read off with ``Poly(…, X)``; gate entry by entry."""
    X = sympy.Symbol("X")
    stack = inst.stack
    N = stack.N_int
    state = [sympy.sympify(v, strict=True) for v in inst.input.entries[:, 0]] + [sympy.S.Zero] * (N - stack.N)
    for layer in stack.layers:
        h = sum(sympy.sympify(layer.h[k, 0], strict=True) * X**k for k in range(layer.h.shape[0]))
        u = sum(state[i] * X**i for i in range(N))
        P = sympy.Poly(sympy.expand(h * u), X)
        coeffs = [P.coeff_monomial(X**i) for i in range(N)]
        if layer.conv == "circular":
            coeffs = [coeffs[i] + sum(P.coeff_monomial(X**(i + q * N)) for q in range(1, 3)) for i in range(N)]
        w = sympy.sympify(layer.W[0, 0], strict=True)
        state = [sympy.expand((state[i] * w + sympy.sympify(_entry(layer.b1, i), strict=True))
                              * (coeffs[i] + sympy.sympify(_entry(layer.b2, i), strict=True))) for i in range(N)]
    return all(sympy.expand(g - e) == 0 for g, e in zip(state[: stack.N], inst.expected.entries[:, 0]))


def fig_h9(n: int, repeat: int) -> list[Record]:
    from ..checking import check_instance

    inst = h9_instance(n)
    z = {"n": n}
    runs = {
        "flint ring": lambda: check_instance(inst, z, backend="flint")[0] is None,
        "sympy ring": lambda: check_instance(inst, z, backend="sympy")[0] is None,
        "sparse algorithm on sympy expressions": lambda: expression_check(inst),
        "expand + Poly read-out": lambda: expand_poly_check(inst),
    }
    ok = {k: f() for k, f in runs.items()}
    t = {k: _best(f, repeat) for k, f in runs.items()}
    base = t[f"{symbolic.backend()} ring"]
    out = []
    for k in ("sympy ring", "sparse algorithm on sympy expressions", "expand + Poly read-out"):
        r = t[k] / base
        out.append(Record(f"H.9 check, n={n}: {k} / {symbolic.backend()} ring", r, "-", None, "x",
                          f"{k} {t[k]:.3f} s, ring {base:.3f} s (best of {repeat}); verdicts agree: "
                          f"{len(set(ok.values())) == 1}"))
    return out


def run(args: argparse.Namespace) -> list[Record]:
    if not symbolic.have_flint():
        return [Record("symbolic bench", None, "-", None, "", "not measured: python-flint is not installed "
                       "(pip install 'symconv[exact]')")]
    repeat = max(1, getattr(args, "repeat", 3))
    records: list[Record] = []
    skip = getattr(args, "skip_verify", False)
    with Progress(4 if skip else 6, "bench symbolic") as bar:
        records += fig_h10(getattr(args, "n", 64), repeat)
        bar.update(1, "H.10")
        records += fig_h9(getattr(args, "h9_n", 256), repeat)
        bar.update(1, "H.9")
        if not skip:
            claims = _claims()
            _verify_all(claims, "flint")  # warm-up: imports and first-use costs that no backend owns
            tv = {b: _total(_verify_all(claims, b)) for b in ("sympy", "flint")}
            bar.update(1, "verify")
            ts = {b: _sweeps(claims, b) for b in ("sympy", "flint")}
            bar.update(1, "sweeps")
            r = tv["flint"] / tv["sympy"]
            records.append(Record("verify (every claim, default sizes): flint / sympy ring", r, "<= 0.3", r <= 0.3,
                                  "x", f"flint {tv['flint']:.1f} s, sympy {tv['sympy']:.1f} s (once each after a warm-up, "
                                  "caches cleared before each; includes the all-sizes block algebra, the repair "
                                  "searches and building the instances, which use no ring)"))
            r = ts["flint"] / ts["sympy"]
            records.append(Record("exact sweeps alone (every claim, sizes <= 8): flint / sympy ring", r, "-", None,
                                  "x", f"flint {ts['flint']:.1f} s, sympy {ts['sympy']:.1f} s (build + check)"))
            t12 = _verify_all(claims, symbolic.backend(), 12, lift=True)
            errors = t12.pop("_errors")
            kept = t12.pop("_kept")
            total = sum(t12.values())
            worst = max(t12, key=t12.get)
            records.append(Record("verify --max-size 12, every claim", total, "<= 120", total <= 120 and not errors,
                                  "s", f"{symbolic.backend()} ring; caps lifted within --time-budget's default "
                                  f"total; {len(kept)} caps kept (named in each verdict's box); slowest: {worst} "
                                  f"{t12[worst]:.1f} s" + (f"; raised: {errors}" if errors else "")))
            bar.update(2, "max-size 12")
    return records
