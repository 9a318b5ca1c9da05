"""Benchmark suites for ``symconv bench SUITE``: one module each, found at run time.

A suite module defines ``DESCRIPTION`` and ``run(args) -> list[Record]``; it may
define ``add_arguments(parser)`` for options of its own.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ..commands import int_at_least, nonnegative_int, positive_int  # noqa: F401  (the bench modules' option types)

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
