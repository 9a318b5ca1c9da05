"""Mutation test of the verifier: does ``symconv verify`` alone notice a broken proof?

Each mutant of ``tests/mutants.py`` is one small exact-text edit of one file of
the repository (a sign flipped, a filter tap or a block offset moved by one, a
mask block resized, two biases swapped, a layer dropped, a hypothesis narrowed,
a claimed step changed, an interpreter broken).  For each mutant this script

1. takes a private copy of the checkout (the files ``git ls-files`` lists,
   tracked and untracked-but-not-ignored, so work in progress is included),
   one copy per worker process;
2. applies the edit there, refusing a mutant whose old text does not occur
   exactly once in the current file ("stale");
3. runs ``symconv verify IDS --format json --proofs <copy>/proofs`` in a fresh
   interpreter with ``PYTHONPATH=<copy>`` and the copy as working directory,
   restricted to the claims the mutant declares (every run prints the path of
   the ``symconv`` package it imported; a run that imported anything but the
   copy aborts the whole test);
4. compares the outcome with the unmutated baseline run of the same IDS.

A mutant is *killed* when verify exits non-zero ("exit": verify flags it by
itself), when a verdict, the first failing step or a step's verdict differs
from the baseline ("verdict"), or when only the box of sizes a verdict reports
as checked differs (its scope, number of size points; "box").  It *survives*
when everything compared is the same, and a run that does not finish within
``--timeout`` counts as killed ("timeout").  Mutants declared equivalent in the
list are run too (a declared-equivalent mutant that is killed is reported as a
wrong declaration) but are left out of the score:

    score = killed / (mutants - equivalent - stale)

Usage::

    python3 tests/mutation.py                  # the full run (see the README)
    python3 tests/mutation.py --check          # only: does every mutant apply exactly once?
    python3 tests/mutation.py --sample 10 --seed 1 --jobs 2
    python3 tests/mutation.py --only sums-h1-tap --format json

Exit status: 0 when no mutant is stale, every baseline run passed and the
score reaches ``--target`` (default 0.95); 1 otherwise (``--check``: 1 when a
mutant is stale or malformed).

>>> apply_text("a = 1 + 2", Mutant("x", "f.py", "1 + 2", "1 - 2", ("H.7",), "sign", ""))
'a = 1 - 2'
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TARGET = 0.95
# Fields of a verdict record compared with the baseline, by what a difference means.
VERDICT_FIELDS = ("verdict", "expect", "ok", "grade", "failing_steps")
BOX_FIELDS = ("scope", "sizes_checked", "points", "checked", "capped_by")
_SECONDS = re.compile(r"\d+(?:\.\d+)?\s*(?:s|sec|seconds|min|minutes|h|hours)\b")
TIMED = ("second", "time", "estimate")  # keys of box fields that hold run times, not sizes
# Shown for survivors only (not part of the kill criterion): what else a mutant changed.
UNSCORED_FIELDS = ("signature_built", "signature_claimed", "statement", "failure")


def _load_mutants_module():
    """tests/mutants.py by path (the tests folder is not a package)."""
    spec = importlib.util.spec_from_file_location("symconv_mutants", HERE / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("symconv_mutants", module)
    spec.loader.exec_module(module)
    return module


_MUTANTS_MODULE = _load_mutants_module()
Mutant = _MUTANTS_MODULE.Mutant


def load_mutants() -> list:
    """The fixed list of mutants (``tests/mutants.py``), validated: unique ids, real edits."""
    mutants = list(_MUTANTS_MODULE.MUTANTS)
    seen: set = set()
    for m in mutants:
        if not isinstance(m, Mutant):
            raise ValueError(f"mutants: expected Mutant records, got {type(m).__name__}")
        if m.id in seen:
            raise ValueError(f"mutants: id {m.id!r} is used twice")
        seen.add(m.id)
        if m.old == m.new or not m.old:
            raise ValueError(f"mutant {m.id}: old text must be non-empty and differ from the new text")
        if not m.claims:
            raise ValueError(f"mutant {m.id}: claims must name at least one claim id or name")
        if m.kind not in _MUTANTS_MODULE.KINDS:
            raise ValueError(f"mutant {m.id}: kind {m.kind!r} is not one of {_MUTANTS_MODULE.KINDS}")
    return mutants


# ------------------------------------------------------------------------- files and edits


def repo_files(repo: Path = REPO, rev: str | None = None) -> list[str]:
    """The files to copy: at ``rev`` (a git revision) its tracked files; else the tracked and
    untracked-but-not-ignored files of the working tree that exist on disk."""
    if rev:
        out = subprocess.run(["git", "ls-tree", "-r", "-z", "--name-only", rev], cwd=repo, check=True,
                             capture_output=True).stdout.decode()
        return sorted(n for n in out.split("\0") if n)
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=repo, check=True, capture_output=True).stdout.decode()
    names = sorted({n for n in out.split("\0") if n})
    return [n for n in names if (repo / n).is_file()]


def copy_tree(dest: Path, files: Sequence[str], repo: Path = REPO, rev: str | None = None) -> Path:
    """Copy ``files`` (relative to ``repo``; at ``rev`` when given) into ``dest``; returns ``dest``."""
    if rev:
        import io
        import tarfile

        data = subprocess.run(["git", "archive", "--format=tar", rev], cwd=repo, check=True,
                              capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(dest, filter="data")
        return dest
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(repo / name, target)
    return dest


def read_file(name: str, repo: Path = REPO, rev: str | None = None) -> str | None:
    """The text of ``name`` in the working tree (or at ``rev``); None when it does not exist."""
    if rev:
        p = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=repo, capture_output=True)
        return p.stdout.decode("utf-8") if p.returncode == 0 else None
    path = repo / name
    return path.read_text(encoding="utf-8") if path.is_file() else None


def occurrences(text: str, m) -> int:
    return text.count(m.old)


def apply_text(text: str, m) -> str:
    """``text`` with the mutant's one occurrence of ``old`` replaced; ValueError when not exactly one."""
    n = occurrences(text, m)
    if n != 1:
        raise ValueError(f"mutant {m.id}: old text occurs {n} times in {m.file} (must be exactly once)")
    return text.replace(m.old, m.new, 1)


def stale_reason(m, root: Path = REPO, rev: str | None = None) -> str | None:
    """Why the mutant no longer applies to the files under ``root`` (at ``rev``), or None."""
    text = read_file(m.file, root, rev)
    if text is None:
        return f"{m.file} does not exist"
    n = occurrences(text, m)
    if n != 1:
        return f"old text found {n} times in {m.file}"
    return None


# ------------------------------------------------------------------------- running verify

_RUNNER = ("import sys, symconv; print('symconv-imported-from', symconv.__file__, file=sys.stderr, flush=True); "
           "from symconv.cli import main; sys.exit(main(sys.argv[1:]))")


@dataclass(frozen=True)
class Run:
    """One ``symconv verify`` run on a copy."""

    rc: int
    records: tuple          # parsed JSON records (dicts), () when the output was not JSON
    imported: str           # the symconv package the run imported
    seconds: float
    stderr_tail: str
    timed_out: bool = False


def run_verify(root: Path, ids: Sequence[str], timeout: float, max_size: int | None = None) -> Run:
    """``symconv verify IDS --format json`` on the copy at ``root``, importing the copy's package."""
    env = {k: v for k, v in os.environ.items() if k not in ("SYMCONV_PROOFS", "PYTHONPATH", "PYTHONHOME")}
    env.update(PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, "-c", _RUNNER, "verify", *ids, "--format", "json", "--proofs", str(root / "proofs")]
    if max_size is not None:
        cmd += ["--max-size", str(max_size)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return Run(-1, (), _imported(err), time.perf_counter() - t0, err[-400:], timed_out=True)
    try:
        records = json.loads(p.stdout) if p.stdout.strip() else []
        if not isinstance(records, list):
            records = []
    except json.JSONDecodeError:
        records = []
    return Run(p.returncode, tuple(records), _imported(p.stderr), time.perf_counter() - t0, p.stderr[-600:])


def _imported(stderr: str) -> str:
    for line in stderr.splitlines():
        if line.startswith("symconv-imported-from "):
            return line.split(" ", 1)[1].strip()
    return ""


def _key(r: dict) -> tuple:
    return (r.get("id"), r.get("name"), r.get("variant"))


def _outcome(r: dict) -> dict:
    """What is compared: verdict fields, first failing step and layer, step verdicts, the box."""
    f = r.get("failure") or {}
    return {
        "verdict": {k: _sorted(r.get(k)) for k in VERDICT_FIELDS if k in r},
        "failure": (f.get("step"), f.get("layer")) if f else None,
        "steps": sorted((str(s.get("label")), bool(s.get("holds"))) for s in r.get("steps") or ()),
        "box": {k: _untimed(r.get(k)) for k in BOX_FIELDS if k in r},
    }


def _sorted(v: Any) -> Any:
    """Lists compared as multisets (the order of steps follows the sweep, not the proof)."""
    return sorted(map(str, v)) if isinstance(v, (list, tuple)) else v


def _untimed(v: Any) -> Any:
    """``v`` without its measured or estimated times (they vary from run to run)."""
    if isinstance(v, dict):
        return {k: _untimed(x) for k, x in v.items() if not any(t in k for t in TIMED)}
    if isinstance(v, (list, tuple)):
        return [_untimed(x) for x in v]
    if isinstance(v, str):
        return _SECONDS.sub("<t>", v)
    return v


def compare(base: Run, run: Run) -> tuple[str, str]:
    """(how, detail): how in {"exit", "timeout", "verdict", "box", ""} ("" = no difference)."""
    if run.timed_out:
        return "timeout", "verify did not finish"
    if run.rc != 0:
        tail = run.stderr_tail.strip().splitlines()
        last = tail[-1] if tail else ""
        bad = []
        for r in run.records:
            if not r.get("ok", True):
                bad.append(f"{r.get('id')} {r.get('name')} [{r.get('variant')}]: {r.get('verdict')} "
                           f"(recorded {r.get('expect')})")
        return "exit", f"rc {run.rc}: " + ("; ".join(bad[:3]) if bad else last[:200])
    b = {_key(r): _outcome(r) for r in base.records}
    m = {_key(r): _outcome(r) for r in run.records}
    if set(b) != set(m):
        gone, new = sorted(map(str, set(b) - set(m))), sorted(map(str, set(m) - set(b)))
        return "verdict", f"records differ: missing {gone[:2]}, new {new[:2]}"
    box = ""
    for k in b:
        ob, om = b[k], m[k]
        for part in ("verdict", "failure", "steps"):
            if ob[part] != om[part]:
                return "verdict", f"{k[0]} {k[1]} [{k[2]}]: {part} {ob[part]} -> {om[part]}"
        if ob["box"] != om["box"] and not box:
            diff = {f: (ob["box"].get(f), om["box"].get(f)) for f in ob["box"] if ob["box"].get(f) != om["box"].get(f)}
            box = f"{k[0]} {k[1]} [{k[2]}]: " + ", ".join(f"{f} {a!r} -> {c!r}" for f, (a, c) in diff.items())
    return ("box", box) if box else ("", _unscored_diff(base, run))


def _unscored_diff(base: Run, run: Run) -> str:
    """For a survivor: which fields that are not compared changed (evidence for judging it)."""
    m = {_key(r): r for r in run.records}
    seen = []
    for r in base.records:
        o = m.get(_key(r), {})
        for f in UNSCORED_FIELDS:
            a, b = r.get(f), o.get(f)
            if f == "failure":
                a = {k: (a or {}).get(k) for k in ("sizes", "position", "got")} if a else None
                b = {k: (b or {}).get(k) for k in ("sizes", "position", "got")} if b else None
            if a != b:
                seen.append(f"{r.get('name')} [{r.get('variant')}] {f}: {str(a)[:40]} -> {str(b)[:40]}")
    return ("not compared, but changed: " + "; ".join(seen[:2])) if seen else "no field of the records changed"


# ------------------------------------------------------------------------- workers

_COPY: Path | None = None


def _init_worker(root: str, files: Sequence[str], repo: str, rev: str | None) -> None:
    """Each worker process gets its own pristine copy of the checkout under ``root``."""
    global _COPY
    _COPY = copy_tree(Path(tempfile.mkdtemp(prefix="copy-", dir=root)), files, Path(repo), rev)


def _baseline_task(ids: tuple, timeout: float, max_size: int | None) -> tuple[str, Run]:
    return str(_COPY), run_verify(_COPY, ids, timeout, max_size)


def _mutant_task(spec: dict, timeout: float, max_size: int | None) -> tuple[str, str | None, Run | None]:
    """Apply the mutant ``spec`` (a Mutant as a dict) to this worker's copy, run verify, restore the file."""
    m = Mutant(**spec)
    path = _COPY / m.file
    if not path.is_file():
        return str(_COPY), f"{m.file} does not exist", None
    original = path.read_text(encoding="utf-8")
    if occurrences(original, m) != 1:
        return str(_COPY), f"old text found {occurrences(original, m)} times in {m.file}", None
    try:
        path.write_text(apply_text(original, m), encoding="utf-8")
        return str(_COPY), None, run_verify(_COPY, m.claims, timeout, max_size)
    finally:
        path.write_text(original, encoding="utf-8")


@dataclass
class Result:
    """The outcome of one mutant."""

    id: str
    file: str
    kind: str
    claims: tuple
    status: str             # killed | survived | stale | equivalent | error
    how: str = ""           # exit | verdict | box | timeout (killed); "" otherwise
    detail: str = ""
    seconds: float = 0.0
    equivalent: str | None = None
    note: str = ""


def classify(m, stale: str | None, base: Run | None, run: Run | None) -> Result:
    """Turn one mutant's runs into a :class:`Result`."""
    r = Result(m.id, m.file, m.kind, tuple(m.claims), "error", note=m.note, equivalent=m.equivalent)
    if stale is not None:
        r.status, r.detail = "stale", stale
        return r
    if base is None or base.rc != 0 or base.timed_out or not base.records:
        r.detail = "baseline run failed: " + (base.stderr_tail.strip().splitlines() or [""])[-1] if base else "no baseline"
        return r
    how, detail = compare(base, run)
    r.seconds = round(run.seconds, 2)
    if m.equivalent:
        r.status = "equivalent"
        r.how, r.detail = how, (f"declared equivalent but killed ({how}: {detail})" if how else "survived, as declared")
        return r
    r.status = "killed" if how else "survived"
    r.how, r.detail = how, detail
    return r


def run_mutants(mutants: Sequence, jobs: int = 2, timeout: float = 300.0, max_size: int | None = None,
                repo: Path = REPO, progress: bool = False, rev: str | None = None) -> tuple[list[Result], dict]:
    """Run every mutant (and one baseline per distinct claim set); returns results and run facts.

    The copies hold the working tree's files, or the tracked files at git revision ``rev``.
    """
    files = repo_files(repo, rev)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="symconv-mutation-") as root:
        ctx = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
        with ProcessPoolExecutor(max(1, jobs), mp_context=ctx, initializer=_init_worker,
                                 initargs=(root, files, str(repo), rev)) as ex:
            id_sets = sorted({tuple(m.claims) for m in mutants})
            base_f = {ids: ex.submit(_baseline_task, ids, timeout, max_size) for ids in id_sets}
            mut_f = [(m, ex.submit(_mutant_task, asdict(m), timeout, max_size)) for m in mutants]
            bases = {ids: f.result() for ids, f in base_f.items()}
            results, imported = [], set()
            for copy, b in bases.values():
                _check_import(copy, b)
                imported.add(b.imported)
            for i, (m, f) in enumerate(mut_f, 1):
                copy, stale, run = f.result()
                if run is not None:
                    _check_import(copy, run)
                res = classify(m, stale, bases[tuple(m.claims)][1], run)
                results.append(res)
                if progress and sys.stderr.isatty():
                    print(f"\r{i}/{len(mut_f)} {res.id}: {res.status}".ljust(70), end="", file=sys.stderr, flush=True)
    if progress and sys.stderr.isatty():
        print(file=sys.stderr)
    facts = {"seconds": round(time.perf_counter() - t0, 1), "jobs": jobs, "files_copied": len(files),
             "source": f"git revision {rev}" if rev else "working tree",
             "baselines": {" ".join(ids): round(b.seconds, 2) for ids, (_, b) in bases.items()},
             "imported": sorted(imported)}
    return results, facts


def _check_import(copy: str, run: Run) -> None:
    if run.timed_out and not run.imported:
        return
    if not run.imported or not Path(run.imported).resolve().is_relative_to(Path(copy).resolve()):
        raise SystemExit(f"mutation: verify imported symconv from {run.imported or '?'}, not from the copy {copy}; "
                         "the mutants would not be tested (is PYTHONPATH ignored?)")


def summarise(results: Sequence[Result]) -> dict:
    """Counts per status and kill route, and the score killed / (non-equivalent, non-stale)."""
    count = lambda st: sum(r.status == st for r in results)
    killed = [r for r in results if r.status == "killed"]
    scored = killed + [r for r in results if r.status == "survived"]
    by_how = {h: sum(r.how == h for r in killed) for h in ("exit", "verdict", "box", "timeout")}
    return {
        "mutants": len(results), "killed": len(killed), "survived": count("survived"),
        "stale": count("stale"), "equivalent": count("equivalent"), "error": count("error"),
        "killed_by": by_how,
        "score": round(len(killed) / len(scored), 4) if scored else None,
        "score_exit_only": round(by_how["exit"] / len(scored), 4) if scored else None,
        "wrong_equivalences": [r.id for r in results if r.status == "equivalent" and r.how],
        "survivors": [r.id for r in results if r.status == "survived"],
    }


def render(results: Sequence[Result], summary: dict, facts: dict, fmt: str = "table") -> str:
    if fmt == "json":
        return json.dumps({"summary": summary, "run": facts, "mutants": [asdict(r) for r in results]},
                          indent=2, default=str)
    from tabulate import tabulate

    rows = [[r.id, r.file, r.kind, " ".join(r.claims), r.status + (f" ({r.how})" if r.how else ""),
             f"{r.seconds:.1f}", (r.detail or "")[:90]] for r in results]
    table = tabulate(rows, headers=["mutant", "file", "kind", "claims", "status", "s", "detail"],
                     maxcolwidths=[None, 32, None, 24, None, None, 90])
    s = summary
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"
    lines = [table, "",
             f"{s['mutants']} mutants: {s['killed']} killed (exit {s['killed_by']['exit']}, verdict "
             f"{s['killed_by']['verdict']}, box {s['killed_by']['box']}, timeout {s['killed_by']['timeout']}), "
             f"{s['survived']} survived, {s['equivalent']} equivalent, {s['stale']} stale, {s['error']} error",
             f"score {pct(s['score'])} (target {pct(TARGET)}); by verify's exit status alone {pct(s['score_exit_only'])}",
             f"{facts.get('seconds', 0)} s with {facts.get('jobs')} jobs; symconv imported from the copies: "
             f"{', '.join(facts.get('imported', [])) or '-'}"]
    if s["survivors"]:
        lines.append("survivors: " + ", ".join(s["survivors"]))
    if s["wrong_equivalences"]:
        lines.append("declared equivalent but killed: " + ", ".join(s["wrong_equivalences"]))
    return "\n".join(lines)


def check(mutants: Sequence, repo: Path = REPO, rev: str | None = None) -> list[tuple[str, str]]:
    """(mutant id, reason) for every mutant that does not apply exactly once to the checkout (at ``rev``)."""
    return [(m.id, why) for m in mutants if (why := stale_reason(m, repo, rev)) is not None]


def select(mutants: Sequence, only: Iterable[str] = (), sample: int | None = None, seed: int = 0) -> list:
    """The mutants named in ``only`` (all when empty), then a seeded random sample of ``sample``."""
    only = [i for o in only for i in o.split(",") if i]
    if only:
        known = {m.id: m for m in mutants}
        missing = [i for i in only if i not in known]
        if missing:
            raise SystemExit(f"mutation: --only: no mutant {', '.join(missing)}")
        mutants = [known[i] for i in only]
    if sample is not None and sample < len(mutants):
        mutants = random.Random(seed).sample(list(mutants), sample)
    return list(mutants)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tests/mutation.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", type=int, metavar="K", help="run a random sample of K mutants")
    ap.add_argument("--seed", type=int, default=0, metavar="S", help="seed of --sample (default 0)")
    ap.add_argument("--only", action="append", default=[], metavar="ID", help="run these mutants (repeat or comma-separate)")
    ap.add_argument("--check", action="store_true", help="only check that every mutant applies exactly once")
    ap.add_argument("--jobs", type=int, default=2, metavar="J", help="worker processes, one copy each (default 2)")
    ap.add_argument("--timeout", type=float, default=300.0, metavar="T", help="seconds per verify run (default 300)")
    ap.add_argument("--max-size", type=int, metavar="K", help="passed to verify (default: verify's own)")
    ap.add_argument("--rev", metavar="REV", help="mutate the tracked files at git revision REV (default: the working tree)")
    ap.add_argument("--format", choices=("table", "json"), default="table")
    ap.add_argument("--target", type=float, default=TARGET, help="score needed for exit status 0 (default 0.95)")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error(f"--jobs: must be at least 1, got {args.jobs}")
    mutants = select(load_mutants(), args.only, args.sample, args.seed)
    if args.check:
        bad = check(mutants, rev=args.rev)
        for mid, why in bad:
            print(f"stale {mid}: {why}")
        print(f"{len(mutants) - len(bad)} of {len(mutants)} mutants apply exactly once")
        return 1 if bad else 0
    results, facts = run_mutants(mutants, args.jobs, args.timeout, args.max_size, progress=True, rev=args.rev)
    summary = summarise(results)
    print(render(results, summary, facts, args.format))
    ok = (summary["stale"] == 0 and summary["error"] == 0 and summary["score"] is not None
          and summary["score"] >= args.target)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
