"""Benchmark suites for ``symconv bench SUITE``: one module each, found at run time.

A suite module defines ``DESCRIPTION`` and ``run(args) -> list[Record]``; it may
define ``add_arguments(parser)`` for options of its own.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass


def _int_at_least(least: int, what: str):
    """An argparse type: an integer ≥ ``least``, or a usage error (argparse names the option)."""
    import argparse

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be a {what} integer, got {value}")
        return value
    return parse


#: argparse type of a count option (``--repeats``, ``--d``, …): ``positive_int("3") == 3``; 0 is refused
positive_int = _int_at_least(1, "positive")
#: argparse type of a seed: an integer ≥ 0
nonnegative_int = _int_at_least(0, "non-negative")


#: one dense numeric layer over the bare rfft + irfft floor of the same shapes: the target that
#: ``bench core`` and ``bench numeric`` both hold it to (one source, so the two cannot disagree)
LAYER_FLOOR_TARGET = 1.15


@dataclass(frozen=True)
class Record:
    """One measured figure: ``value`` against ``target`` (``ok`` when met).

    ``value`` is None (JSON ``null``) for a figure that could not be measured;
    ``detail`` then says why.
    """

    name: str
    value: float | None
    target: str
    ok: bool | None
    unit: str = ""
    detail: str = ""

    def as_dict(self) -> dict:
        return asdict(self)
