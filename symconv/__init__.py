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
from .blocks import Block, const, ones, sym, unit, vstack, zeros
from .claims import Claim, Hypothesis, Instance, SizeParam, Step, Variant, Verdict, Verdicts, verify
from .model import HypothesisError, Layer, Signature, Stack, compose
from .symbolic import evaluate

from . import display  # noqa: E402,F401 - notebook hooks, installed from the renderer side

__version__ = "0.1.0"

__all__ = [
    "Block", "Claim", "Hypothesis", "HypothesisError", "Instance", "Layer", "Signature",
    "SizeParam", "Stack", "Step", "Variant", "Verdict", "Verdicts", "compose", "const", "evaluate",
    "ones", "sym", "unit", "verify", "vstack", "zeros",
]
