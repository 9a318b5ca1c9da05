"""symconv: executable, exactly checked proofs for gated-convolution constructions.

Write a construction as BaseConv layers (:class:`Layer`, :class:`Stack`), state
what it should compute (:class:`Claim`), and :func:`verify` it by polynomial
products and coefficient extraction; run the same stack numerically with
:func:`symconv.numeric.run`.

>>> from symconv import sym, zeros, evaluate
>>> from symconv.constructions.sums import add_n
>>> evaluate(add_n(1, 2), sym("x", 1) | sym("S", 1)).entries[:, 0].tolist()
[1, S[0,0] + x[0,0]]
"""
from .blocks import Block, const, from_array, ones, reverse, rows, sym, unit, vstack, zeros
from .claims import Claim, Instance, NumericCase, Step, Variant, Verdict, Verdicts, verify
from .hypotheses import Hypothesis, at_most_product, divides, eq, pow2
from .model import HypothesisError, Layer, Signature, Stack, check_size, compose
from .sweep import Cap, SizeParam
from .symbolic import evaluate

from . import display  # noqa: E402,F401 - notebook hooks, installed from the renderer side

__version__ = "0.8.0"

__all__ = [
    "Block", "Cap", "Claim", "Hypothesis", "HypothesisError", "Instance", "Layer", "NumericCase", "Signature",
    "SizeParam", "Stack", "Step", "Variant", "Verdict", "Verdicts", "at_most_product", "check_size", "compose",
    "const", "divides", "eq", "evaluate", "from_array", "ones", "pow2", "reverse", "rows", "sym", "unit", "verify",
    "vstack", "zeros",
]
