"""Plots of the numeric benchmark: time against N per backend and floor, error against N.

matplotlib is an optional extra (``pip install 'symconv[plot]'``), imported
only when a plot is drawn.

>>> require_matplotlib.__name__
'require_matplotlib'
"""
from __future__ import annotations

import os
from typing import Any

from .model import HypothesisError


def require_matplotlib() -> Any:
    """Import matplotlib with a non-interactive backend, or raise a clear error."""
    try:
        import matplotlib
    except ImportError as exc:
        raise HypothesisError(
            "plot: matplotlib is not installed; pip install 'symconv[plot]' (or matplotlib)") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_numeric(series: dict, path: str | os.PathLike) -> None:
    """Draw ``series["time"]`` and ``series["error"]`` ({label: [(N, value), ...]}) to ``path``.

    Either panel may be missing; the file is written whole or not at all.
    """
    plt = require_matplotlib()
    panels = [(k, series[k]) for k in ("time", "error") if series.get(k)]
    if not panels:
        raise HypothesisError("plot: nothing to draw (run the scaling or error figures)")
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    for ax, (kind, data) in zip(axes[0], panels):
        for label, pts in data.items():
            if not pts:
                continue
            xs, ys = zip(*pts)
            style = "--" if ("bound" in label or "floor" in label) else "-"
            ax.loglog(xs, ys, style, marker="o", markersize=3, label=label, base=2 if kind == "time" else 10)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("N")
        ax.set_ylabel("seconds per layer" if kind == "time" else "max |float - exact|")
        ax.set_title("time against N" if kind == "time" else "error against N")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    tmp = f"{os.fspath(path)}.tmp.png"
    try:
        fig.savefig(tmp, dpi=120)
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.remove(tmp)
