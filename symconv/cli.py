"""The ``symconv`` command.

Each subcommand lives in its own module of :mod:`symconv.commands` and exposes
``add_parser(subparsers)`` and ``main(args) -> int``; modules are found at
run time, so a new subcommand never edits this file.

    symconv verify [IDS...] [--max-size K] [--format table|markdown|json]
    symconv bench core [--format json]
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import commands
from .model import HypothesisError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="symconv",
        description="Check gated-convolution constructions exactly, render them, run them at scale.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        p = module.add_parser(sub)
        p.set_defaults(_main=module.main)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_main", None):
        parser.print_help()
        return 2
    try:
        return int(args._main(args) or 0)
    except HypothesisError as exc:
        print(f"symconv: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
