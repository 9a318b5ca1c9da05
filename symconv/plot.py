"""Plots of the numeric benchmark: time against N per backend and floor, error against N.

matplotlib is an optional extra (``pip install 'symconv[plot]'``), imported
only when a plot is drawn.

>>> require_matplotlib.__name__
'require_matplotlib'
"""
from __future__ import annotations

import math
import os
from typing import Any

from .fileio import atomic_path, check_target
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


def _pairs(labels: list[str]) -> dict[str, str]:
    """One colour per measured quantity and its bound (or floor): "float32" and "float32 bound" alike."""
    base = []
    for lab in labels:
        key = lab.replace(" bound", "").replace("floor", "layer")
        if key not in base:
            base.append(key)
    cmap = ["C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7"]
    return {lab: cmap[base.index(lab.replace(" bound", "").replace("floor", "layer")) % len(cmap)]
            for lab in labels}


def plot_numeric(series: dict, path: str | os.PathLike, d: int | None = None, library: str | None = None) -> None:
    """Draw ``series["time"]`` and ``series["error"]`` ({label: [(N, value), ...]}) to ``path``.

    The time panel has an N log2 N reference line through the largest layer
    time; each error is drawn with its bound in one colour (solid: measured,
    dashed: bound or floor).  ``d`` and ``library`` go into the titles.
    Either panel may be missing; the file is written whole or not at all.
    """
    check_target(path, "--plot")  # a bad target fails before anything is drawn
    plt = require_matplotlib()
    panels = [(k, series[k]) for k in ("time", "error") if series.get(k)]
    if not panels:
        raise HypothesisError("plot: nothing to draw (run the scaling or error figures)")
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.8), squeeze=False)
    info = ", ".join(x for x in ((f"d = {d}" if d is not None else ""),
                                 (f"FFT: {library}" if library else "")) if x)
    for ax, (kind, data) in zip(axes[0], panels):
        colours = _pairs(list(data))
        for label, pts in data.items():
            if not pts:
                continue
            xs, ys = zip(*pts)
            style = "--" if ("bound" in label or "floor" in label) else "-"
            ax.plot(xs, ys, style, color=colours[label], marker="o", markersize=3, label=label)
        if kind == "time":
            ref = [pts for label, pts in data.items() if pts and "floor" not in label]
            if ref:
                N1, t1 = max(ref[0])
                xs = sorted({N for pts in data.values() for N, _ in pts})
                ax.plot(xs, [t1 * (N * math.log2(N)) / (N1 * math.log2(N1)) for N in xs], ":", color="gray",
                        label="∝ N log2 N (through the largest N)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("N")
        ax.set_ylabel("seconds per layer" if kind == "time" else "max |float - exact|")
        title = "time of one layer against N" if kind == "time" else "error and its a-priori bound"
        ax.set_title(title + (f" ({info})" if info and kind == "time" else " (d = 4)" if kind == "error" else ""),
                     fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, path, plt)


def ratio_axes(ax: Any, xlabel: str, title: str, ylabel: str = "built / claimed", yscale_log: bool = False) -> None:
    """Style one panel of a built/claimed ratio plot: the line ratio = 1, log₂ axes, grid, legend."""
    ax.axhline(1.0, color="gray", linestyle=":", label="ratio 1")
    ax.set_xscale("log", base=2)
    if yscale_log:
        ax.set_yscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6)


def _save(fig: Any, path: str | os.PathLike, plt: Any) -> None:
    """Write the figure through :func:`symconv.fileio.atomic_path`: whole or not at all."""
    try:
        with atomic_path(path, ".png", "--plot") as tmp:
            fig.savefig(tmp, dpi=120, format="png")
    finally:
        plt.close(fig)
