"""``symconv bench SUITE [--format table|json]``: measured figures against their targets.

Suites are the modules of :mod:`symconv.bench` (``core``, ...).  Every figure
is a ratio measured in one run, so it does not depend on the machine's speed.
Exits 1 when a figure misses its target.
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import pkgutil

from tabulate import tabulate

from .. import bench


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
        q.set_defaults(_suite=mod)
    return p


def _finite(d: dict) -> dict:
    """A record with any NaN or infinite value as null (JSON has neither)."""
    v = d.get("value")
    if isinstance(v, float) and not math.isfinite(v):
        d = dict(d, value=None, detail=(d.get("detail") or "") + f" (value was {v})")
    return d


def main(args: argparse.Namespace) -> int:
    records = args._suite.run(args)
    if args.format == "json":
        print(json.dumps([_finite(r.as_dict()) for r in records], indent=2, allow_nan=False))
    else:
        rows = [[r.name, "n/a" if r.value is None else f"{r.value:.3g}{(' ' + r.unit) if r.unit else ''}", r.target,
                 {True: "yes", False: "NO", None: "-"}[r.ok], r.detail] for r in records]
        print(tabulate(rows, headers=["figure", "value", "target", "met", "detail"]))
    return 1 if any(r.ok is False for r in records) else 0
