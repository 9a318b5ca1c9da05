"""``symconv verify [IDS...] [--max-size K] [--time-budget S] [--format table|markdown|json] [--wide]``.

Runs every claim of every proof (or those named) through the exact checker and
prints one row per variant, sized to the terminal, then the details below the
table (statements, the box of sizes checked and its caps, failures, printed
steps), then a summary line.  Exits 1 when a verdict differs from what its proof
file records (a construction of symconv's own that fails, an erratum that holds,
or an erratum whose failing step moved), or when a proof file failed to load or
build; 2 on bad input.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import textwrap
import time

from tabulate import tabulate

from ..claims import Verdict, verify
from ..display import markdown_table
from ..model import HypothesisError
from ..progress import Progress
from ..sweep import DEFAULT_MAX_SIZE, DEFAULT_TOTAL_BUDGET, BoxTooLarge, TimeBudget

FORMATS = ("table", "markdown", "json")


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("verify", help="check every claim exactly over a sweep of sizes",
                       description="Check every claim exactly over a sweep of sizes (small to large).")
    p.add_argument("ids", nargs="*", metavar="IDS", help="claim ids (H.9) or names (add_n); all if none")
    p.add_argument("--max-size", type=int, default=None, metavar="K",
                   help=f"largest size swept (default {DEFAULT_MAX_SIZE}); given explicitly, it also lifts the "
                        "proofs' cost caps to K where the estimated time fits --time-budget")
    p.add_argument("--time-budget", type=float, default=None, metavar="S",
                   help="with --max-size: seconds that lifting caps may take in all, shared by the variants in turn "
                        "(each may use "
                        "up to 4x what is left over the variants to come; a cap that would not fit is kept and "
                        "named with its estimate; "
                        f"default {DEFAULT_TOTAL_BUDGET:g})")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    p.add_argument("--wide", action="store_true", help="the full table, statements included, whatever the width")
    p.add_argument("--proofs", metavar="DIR", action="append", default=[],
                   help="a folder of proof files, added to the paper's proofs (repeatable)")
    p.add_argument("--workers", type=int, default=1, metavar="K",
                   help="check the sizes of each sweep in K processes (default 1: in this process)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--bounds", action="store_true",
                   help="print only the table of claimed bounds (claimed | built | proved lower bound | verdict), "
                        "in Markdown (with --format json: a JSON list of the same rows)")
    return p


def _sig(text: str) -> list | None:
    """``(3, 2, 1, 3, 1)`` as [3, 2, 1, 3, 1] (None for "-")."""
    text = text.strip()
    if not text.startswith("("):
        return None
    return [int(x) for x in text.strip("()").split(",")]


def _record(v: Verdict) -> dict:
    d = v.as_dict()
    d["signature_claimed"] = _sig(v.signature_claimed)
    d["signature_built"] = _sig(v.signature_built)
    return d


def _width() -> int:
    cols = os.environ.get("COLUMNS")
    if cols and cols.isdigit():
        return max(60, int(cols))
    return max(60, shutil.get_terminal_size((100, 24)).columns)


def _verdict_cell(v: Verdict) -> str:
    if v.verdict == "unchecked":
        return "unchecked"
    if v.ok:
        return v.verdict + (" (rec.)" if v.expect == "fails" else "")
    if v.verdict != v.expect:
        return f"{v.verdict} <-- recorded: {v.expect}"
    return f"{v.verdict} <-- steps moved"


def _checked_cell(v: Verdict) -> str:
    box = v.box.short() if v.box is not None else f"{v.sizes_checked} pts"
    return (f"{v.scope}; " if v.scope.startswith("all sizes") else "") + box


def table(verdicts: list[Verdict], fmt: str = "table", wide: bool = False, width: int | None = None) -> str:
    """The verdict table: narrow by default (fits ``width`` columns), everything with ``wide``.

    ``checked`` says "all sizes" where the block algebra proved the variant for every
    size, then the ranges swept (a star marks a range kept below --max-size by a cost
    cap, detailed under the table) and the number of size points.
    """
    width = width or _width()
    lower = any(v.bounds for v in verdicts)  # the "proved lower bound" column, where a claim has bounds
    rows = []
    for v in verdicts:
        if wide:
            row = [v.id, v.name, v.statement, v.variant, _verdict_cell(v), v.scope, v.checked,
                   v.signature_claimed, v.signature_built] + ([_lower_cell(v)] if lower else []) + [f"{v.seconds:.2f}"]
        else:
            row = [v.id, v.name, v.variant, _verdict_cell(v), _checked_cell(v),
                   v.signature_claimed.replace(" ", ""), v.signature_built.replace(" ", "")] \
                + ([_lower_cell(v)] if lower else []) + [f"{v.seconds:.1f}"]
        rows.append(row)   # Markdown cells are escaped by display.markdown_table
    if wide:
        headers = ["id", "name", "statement", "variant", "verdict", "scope", "checked", "claimed (N,L,d,N',d')",
                   "built"] + (["proved lower bound"] if lower else []) + ["s"]
        widths = None
    elif lower:
        headers = ["id", "name", "variant", "verdict", "checked", "claimed", "built", "proved ≥", "s"]
        flex = max(30, width - (4 + 11 + 13 + 13 + 8 + 5 + 2 * 8))
        widths = [None, max(9, flex * 3 // 10), max(9, flex * 3 // 10), 11, max(12, flex * 4 // 10), 13, 13, 8,
                  None]
    else:
        headers = ["id", "name", "variant", "verdict", "checked", "claimed", "built", "s"]
        flex = max(30, width - (4 + 11 + 13 + 13 + 5 + 2 * 7))
        widths = [None, max(10, flex * 3 // 10), max(10, flex * 3 // 10), 11, max(14, flex * 4 // 10), 13, 13, None]
    if fmt == "markdown":  # a Markdown row must be one line: cells never wrapped (display.markdown_table)
        return markdown_table(rows, headers)
    return tabulate(rows, headers=headers, tablefmt="simple", maxcolwidths=widths, disable_numparse=True)


def _lower_cell(v: Verdict) -> str:
    """The proved lower bounds of a variant's claim that are not by definition (``L≥2 P≥8``), or -."""
    cells = [b.cell() for b in v.bounds if b.nontrivial]
    return " ".join(cells) or "-"


def bound_lines(verdicts: list[Verdict]) -> list[str]:
    """For one claim's verdicts: each bound's verdict for the claim (best variant), and its certificates."""
    from ..certificates.bounds import describe, summarise

    out: list = []
    n = max((len(v.bounds) for v in verdicts), default=0)
    for k in range(n):
        best = summarise([v.bounds[k] for v in verdicts if len(v.bounds) > k])
        if best is None:
            continue
        out.append(("bound " + describe(best), "  "))
        if best.refutation:
            out.append(("refuted: " + best.refutation, "    "))
        if best.verdict != best.expect:
            out.append((f"recorded verdict: {best.expect}", "    "))
        for text in dict.fromkeys(c.proves for c in best.certificates if c.kind != "trivial"):
            out.append(("certificate: " + text, "    "))
        if best.note:
            out.append(("note: " + best.note, "    "))
    return out


def details(verdicts: list[Verdict], width: int | None = None) -> list[str]:
    """The notes under the table: statements, caps kept, differences, failures, printed steps."""
    width = width or _width()
    wrap = lambda text, indent="  ": textwrap.fill(text, width - 2, initial_indent=indent,  # noqa: E731
                                                   subsequent_indent=indent + "  ", break_long_words=False)
    out = []
    seen = set()
    for v in verdicts:
        head = f"{v.id} {v.name} [{v.variant}]"
        lines = []
        if (v.id, v.name) not in seen:
            seen.add((v.id, v.name))
            out.append(textwrap.fill(f"{v.id} {v.name}: {v.statement}", width, subsequent_indent="    "))
            mine = [x for x in verdicts if (x.id, x.name) == (v.id, v.name)]
            out.extend(wrap(text, indent) for text, indent in bound_lines(mine))
        if v.reading:
            lines.append(wrap(f"reading: {v.reading}"))
        if v.grade:
            lines.append(wrap(f"grade: {v.grade}"))
        if v.repair is not None and v.repair.reading():
            lines.append(wrap(f"obvious reading: {v.repair.reading()}"))
        if v.repair is not None and v.repair.repairs:
            lines.append(wrap(f"closest repair: {v.repair.repairs[0].describe()} (searched "
                              f"{v.repair.searched} edit sets up to {v.repair.max_edits} edits, "
                              f"{v.repair.seconds:.1f} s)"))
        if v.box is not None and (any(not c.raised for c in v.box.caps) or v.box.where or v.box.instances):
            lines.append(wrap(f"checked: {v.box.text()}"))
            for c in v.box.caps:
                if not c.raised:
                    lines.append(wrap(f"cap {c.describe()}", "    "))
        for d in v.differences:
            lines.append(wrap(f"DIFFERS FROM THE RECORD: {d}"))
        bad_steps = [s for s in v.steps if not s.holds]
        if v.failure is not None or bad_steps:
            if v.note:
                lines.append(wrap(f"note: {v.note}"))
            if v.failure is not None:
                lines.append(wrap(f"fails {v.failure.describe()}"))
            held = [s.label for s in v.steps if s.holds]
            if held:
                lines.append(wrap(f"steps that hold (from the claimed previous state): {'; '.join(held)}"))
            for s in v.steps:
                if s.holds:
                    continue
                where = f"layers {s.first_layer}-{s.last_layer}" if s.last_layer > s.first_layer else f"layer {s.last_layer}"
                kind = s.kind
                lines.append(wrap(f"step [{kind}] {s.label} ({where}, from the claimed previous state): fails "
                                  + s.failure.describe()))
        if v.parametric and not v.scope.startswith("all sizes") and not v.parametric.startswith("no all-sizes"):
            lines.append(wrap(v.parametric))
        if lines:
            out.append(f"  {head}")
            out.extend(textwrap.indent(line, "  ") for line in lines)
    return out


def summary(verdicts: list[Verdict], problems: list, seconds: float) -> str:
    """``80 variants: 61 hold, 19 fail as recorded, 0 unexpected; 36 s``."""
    hold = sum(1 for v in verdicts if v.ok and v.verdict == "holds")
    fail = sum(1 for v in verdicts if v.ok and v.verdict == "fails")
    skip = sum(1 for v in verdicts if v.verdict == "unchecked")
    bad = sum(1 for v in verdicts if not v.ok)
    text = f"{len(verdicts)} variants: {hold} hold, {fail} fail as recorded, {bad} unexpected"
    if skip:
        text += f", {skip} unchecked (no size in the box)"
    if problems:
        text += f", {len(problems)} proof problem{'s' if len(problems) != 1 else ''}"
    return text + f"; {seconds:.0f} s"


def render(verdicts: list[Verdict], fmt: str, problems: list | None = None, seconds: float | None = None,
           wide: bool = False) -> str:
    """The verdicts as a table (with details and a summary line), a markdown table, or JSON."""
    problems = problems or []
    if fmt == "json":
        recs = [_record(v) for v in verdicts]
        recs += [{"id": None, "name": None, "variant": None, "verdict": "error", "ok": False,
                  "problem": {"path": p.path, "message": p.message}} for p in problems]
        return json.dumps(recs, indent=2, default=str, allow_nan=False, ensure_ascii=False)
    out = [table(verdicts, fmt, wide)]
    if fmt == "markdown" and any(v.bounds for v in verdicts):
        out.append(bounds_table(verdicts))
    notes = details(verdicts)
    notes += [f"PROOF PROBLEM {p.path}: {p.message}" for p in problems]
    if notes:
        out.append("\n".join(notes) if fmt == "table" else "```\n" + "\n".join(notes) + "\n```")
    if seconds is not None:
        out.append(summary(verdicts, problems, seconds))
    return "\n\n".join(out)


BOUNDS_HEADERS = ["id", "claim", "bound", "claimed", "claimed value", "built by symconv", "proved lower bound",
                  "verdict on the claim"]


def bounds_table(verdicts: list[Verdict], fmt: str = "markdown") -> str:
    """The claimed bounds, one row per claim and bound (``symconv verify --bounds``): Markdown, or with
    ``fmt="json"`` a JSON list of objects keyed by the Markdown headers."""
    from ..certificates.bounds import claim_rows

    if fmt == "json":
        return json.dumps([dict(zip(BOUNDS_HEADERS, row)) for row in claim_rows(verdicts)], indent=2)
    return markdown_table(claim_rows(verdicts), BOUNDS_HEADERS)


def _load(args):
    from .. import registry

    extra = list(args.proofs or [])
    claims, problems = registry.load_proofs(extra)
    try:
        return registry.select(claims, args.ids), list(problems)
    except HypothesisError as exc:
        if problems:  # the claim asked for may live in a proof file that failed to load
            raise HypothesisError(f"{exc}; proof files that failed to load: "
                                  + "; ".join(f"{p.path}: {p.message}" for p in problems)) from exc
        raise


class _BuildProblem:
    def __init__(self, path: str, message: str) -> None:
        self.path, self.message = path, message


def _run(claims, args, executor, progress) -> tuple[list, list]:
    verdicts, problems = [], []
    explicit = args.max_size is not None
    max_size = args.max_size if explicit else DEFAULT_MAX_SIZE
    total = DEFAULT_TOTAL_BUDGET if args.time_budget is None else args.time_budget
    budget = TimeBudget(total, sum(len(c.variants) for c in claims))  # one total for the command
    for c in claims:
        try:
            verdicts.extend(verify(c, max_size=max_size, executor=executor, raise_caps=explicit,
                                   time_budget=budget))
        except BoxTooLarge:
            raise
        except HypothesisError as exc:
            problems.append(_BuildProblem(f"{c.id} {c.name}", str(exc)))
        progress.update(1, f"{c.id} {c.name}")
    return verdicts, problems


def main(args: argparse.Namespace) -> int:
    if args.max_size is not None and args.max_size < 1:
        raise HypothesisError(f"--max-size: must be at least 1, got {args.max_size}")
    if args.time_budget is not None and not args.time_budget > 0:
        raise HypothesisError(f"--time-budget: must be a positive number of seconds, got {args.time_budget}")
    if args.time_budget is not None and args.max_size is None:
        raise HypothesisError("--time-budget: applies only with --max-size (it is the time for lifting the proofs' "
                              "cost caps, which only an explicit --max-size lifts); give --max-size K too")
    workers = getattr(args, "workers", 1)
    if workers < 1:
        raise HypothesisError(f"--workers: must be at least 1, got {workers}")
    claims, problems = _load(args)
    if not claims and not problems:
        raise HypothesisError("IDS: no claim selected (no proof defines one)")
    t0 = time.perf_counter()
    with Progress(len(claims), "verify", enabled=False if args.quiet else None) as bar:
        if workers == 1:
            verdicts, build_problems = _run(claims, args, None, bar)
        else:
            from concurrent.futures import ProcessPoolExecutor

            pool = ProcessPoolExecutor(workers)
            ex = pool
            try:  # tasks travel with cloudpickle where it is installed, so claims built from lambdas work too
                import cloudpickle  # noqa: F401  (only whether it is installed)

                from ..testing import pickling

                ex = pickling(pool)
            except ImportError:
                pass
            try:
                verdicts, build_problems = _run(claims, args, ex, bar)
            except BaseException:
                _kill_pool(pool)
                raise
            pool.shutdown(wait=True)
    problems += build_problems
    if getattr(args, "bounds", False):
        print(bounds_table(verdicts, "json" if args.format == "json" else "markdown"))
    else:
        print(render(verdicts, args.format, problems, time.perf_counter() - t0, args.wide))
    bad = [v for v in verdicts if not v.ok]
    if (bad or problems) and args.format != "json":
        print(f"\n{len(bad)} verdict(s) differ from what their proofs record; {len(problems)} proof problem(s).",
              file=sys.stderr)
    return 1 if bad or problems else 0


def _kill_pool(ex) -> None:
    """Stop a process pool at once (Ctrl-C, SIGTERM): cancel what is queued, end the workers."""
    procs = list(getattr(ex, "_processes", {}).values())
    try:
        ex.shutdown(wait=False, cancel_futures=True)
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(timeout=5)
