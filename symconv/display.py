"""Notebook displays, installed on the data classes from the renderer's side.

The data modules (:mod:`symconv.blocks`, :mod:`symconv.model`,
:mod:`symconv.claims`, :mod:`symconv.parametric`) import no renderer; this
module gives their classes Jupyter's ``_repr_latex_`` / ``_repr_markdown_``
hooks, drawn by :mod:`symconv.latex`.  ``import symconv`` installs them.  The
output uses only macros MathJax knows by default (see :data:`symconv.latex.MATHJAX_MACROS`).

>>> from symconv import sym
>>> sym("x", 1)._repr_latex_()
'$\\\\left(\\\\begin{array}{c}{x}_{0}\\\\end{array}\\\\right)$'
"""
from __future__ import annotations

from . import latex
from .blocks import Block
from .claims import Verdict, Verdicts
from .model import Stack
from .parametric.algebra import PSeq


def _block(self) -> str:
    """Jupyter: the entries as a column vector."""
    return "$" + latex.block_latex(self) + "$"


def _stack(self) -> str:
    """Jupyter: the layers as equations (long stacks: the first and last layers)."""
    return "$$" + latex.stack_latex(self) + "$$"


def _pseq(self) -> str:
    """Jupyter: a column at symbolic sizes as the paper's block vector."""
    return "$" + latex.pseq_latex(self) + "$"


def _verdict(self) -> str:
    """Jupyter: one line with verdict, scope and failure."""
    return latex.verdict_markdown(self)


def _verdicts(self) -> str:
    """Jupyter: one line per verdict."""
    return "\n\n".join(latex.verdict_markdown(v) for v in self) or "(no verdicts)"


HOOKS = (
    (Block, "_repr_latex_", _block),
    (Stack, "_repr_latex_", _stack),
    (PSeq, "_repr_latex_", _pseq),
    (Verdict, "_repr_markdown_", _verdict),
    (Verdicts, "_repr_markdown_", _verdicts),
)


def markdown_cell(value: object) -> str:
    r"""One Markdown table cell: on one line, its pipes escaped (a pipe already escaped stays as it is).

    >>> print(markdown_cell("a | b"), markdown_cell(r"x \| y"), markdown_cell("two\nlines"), sep="   ")
    a \| b   x \| y   two lines
    """
    import re

    text = " ".join(str(value).splitlines()).strip()
    return re.sub(r"(?<!\\)\|", r"\\|", text)


def markdown_table(rows: "list[list[object]]", headers: "list[object]") -> str:
    r"""A GitHub Markdown table, one line per row, cells never wrapped or padded: ``| a | b |``.

    A Markdown table row must be one line (a wrapped cell would start a row of its own), so
    cells are kept whole whatever their length, newlines become spaces and pipes are escaped
    (:func:`markdown_cell`).  Short rows are filled with empty cells, so every row has as
    many cells as the header.  The rows are compact, as in README.md: paste them as they are.

    >>> print(markdown_table([["H.9", "a | b"], ["H.22"]], ["id", "claim"]))
    | id | claim |
    | --- | --- |
    | H.9 | a \| b |
    | H.22 |  |
    """
    n = len(headers)
    line = lambda cells: "| " + " | ".join(cells) + " |"  # noqa: E731
    out = [line([markdown_cell(h) for h in headers]), line(["---"] * n)]
    for r in rows:
        cells = [markdown_cell(x) for x in r]
        if len(cells) > n:
            raise ValueError(f"markdown_table: a row has {len(cells)} cells, the header {n}")
        out.append(line(cells + [""] * (n - len(cells))))
    return "\n".join(out)


def install() -> None:
    """Give the data classes their notebook hooks (idempotent)."""
    for cls, name, fn in HOOKS:
        setattr(cls, name, fn)


install()
