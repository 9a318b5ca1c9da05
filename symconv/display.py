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


def install() -> None:
    """Give the data classes their notebook hooks (idempotent)."""
    for cls, name, fn in HOOKS:
        setattr(cls, name, fn)


install()
