"""``symconv bench SUITE [--format table|json]``: measured figures against their targets.

Suites are the modules of :mod:`symconv.bench` (``core``, ...).  Every figure
is a ratio measured in one run, so it does not depend on the machine's speed.
Exits 1 when a figure misses its target.  A suite's error that names one of its
options by the Python parameter and the value typed (``shifts: must be an integer >= 2,
got 1``) is reported under the option's name (``--shifts: ...``).
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import pkgutil
import re

from tabulate import tabulate

from .. import bench
from ..model import HypothesisError


def suites() -> dict:
    return {m.name: importlib.import_module(f"{bench.__name__}.{m.name}")
            for m in pkgutil.iter_modules(bench.__path__) if not m.name.startswith("_")}


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("bench", help="measure speed and memory as ratios, against targets")
    sp = p.add_subparsers(dest="suite", metavar="SUITE", required=True)
    for name, mod in sorted(suites().items()):
        q = sp.add_parser(name, help=mod.DESCRIPTION)
        q.add_argument("--format", choices=("table", "json"), default="table",
                       help="a table, or JSON records with name, value, target, ok (default table)")
        if hasattr(mod, "add_arguments"):
            mod.add_arguments(q)
        q.set_defaults(_suite=mod, _options={a.dest: max(a.option_strings, key=len) for a in q._actions
                                             if a.option_strings and a.dest != "help"})
    return p


def as_typed(exc: HypothesisError, args: argparse.Namespace) -> HypothesisError:
    """``exc`` with its leading Python parameter replaced by the option the user typed.

    Only where the parameter is a suite option's ``dest`` and the message quotes that option's value
    (``got 1``), so that an error about some other quantity of the same name keeps its name.

    >>> ns = argparse.Namespace(shifts=1, _options={"shifts": "--shifts"})
    >>> str(as_typed(HypothesisError("shifts: must be an integer >= 2, got 1"), ns))
    '--shifts: must be an integer >= 2, got 1'
    >>> str(as_typed(HypothesisError("shifts: must be an integer >= 2, got 10"), ns))
    'shifts: must be an integer >= 2, got 10'
    """
    name, sep, why = str(exc).partition(": ")
    option = (getattr(args, "_options", None) or {}).get(name)
    if not sep or option is None or not hasattr(args, name):
        return exc
    if not re.search(rf"\bgot {re.escape(repr(getattr(args, name)))}(?![\w.])", why):
        return exc
    return HypothesisError(f"{option}: {why}")


def _finite(d: dict) -> dict:
    """A record with any NaN or infinite value as null (JSON has neither)."""
    v = d.get("value")
    if isinstance(v, float) and not math.isfinite(v):
        d = dict(d, value=None, detail=(d.get("detail") or "") + f" (value was {v})")
    return d


def main(args: argparse.Namespace) -> int:
    try:
        records = args._suite.run(args)
    except HypothesisError as exc:
        typed = as_typed(exc, args)
        if typed is exc:
            raise
        raise typed from exc
    if args.format == "json":
        print(json.dumps([_finite(r.as_dict()) for r in records], indent=2, allow_nan=False))
    else:
        rows = [[r.name, "n/a" if r.value is None else f"{r.value:.3g}{(' ' + r.unit) if r.unit else ''}", r.target,
                 {True: "yes", False: "NO", None: "-"}[r.ok], r.detail] for r in records]
        print(tabulate(rows, headers=["figure", "value", "target", "met", "detail"]))
    return 1 if any(r.ok is False for r in records) else 0
