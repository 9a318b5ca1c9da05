"""Small builders for layer parameters: unit filters, block masks, W matrices.

>>> unit_filter(2, 1).ravel().tolist()
[0, 0, 1]
>>> mask(5, (1, 3)).ravel().tolist()
[0, 1, 1, 0, 0]
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..model import HypothesisError, Layer, check_size


def _int_array(shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape, dtype=int).astype(object)


def unit_filter(k: int, d: int = 1) -> np.ndarray:
    """The filter e_k (a 1 at index k in every channel), as a (k+1)×d array."""
    k, d = check_size(k, "k", 0), check_size(d, "d")
    h = _int_array((k + 1, d))
    h[k, :] = 1
    return h


def taps(offsets: dict[int, Any], d: int = 1) -> np.ndarray:
    """A filter Σ c·X^k from {k: c}, as a (max k + 1)×d array (same c in every channel)."""
    d = check_size(d, "d")
    if not isinstance(offsets, dict) or not offsets:
        raise HypothesisError(f"offsets: need a non-empty {{offset: coefficient}} dict, got {offsets!r}")
    for k in offsets:
        check_size(k, "offsets", 0)
    h = _int_array((max(offsets) + 1, d))
    for k, c in offsets.items():
        h[k, :] = c
    return h


def mask(N: int, *spans: tuple[int, int], value: Any = 1) -> np.ndarray:
    """An N×1 column that is ``value`` on each half-open row span [a, b) and 0 elsewhere."""
    N = check_size(N, "N")
    m = _int_array((N, 1))
    for a, b in spans:
        check_size(a, "spans", 0), check_size(b, "spans", 0)
        if not 0 <= a <= b <= N:
            raise HypothesisError(f"spans: rows [{a}, {b}) do not fit in N = {N}")
        m[a:b, 0] = value
    return m


def rational(c: Any, where: str, why: str, what: str = "entry") -> Fraction:
    """``c`` as an exact Fraction: ints, Fractions, sympy rationals, and finite Python, numpy or sympy floats
    (read exactly, as their binary value); anything else (a symbol, an irrational, a string, a bool) is refused
    naming ``where`` and saying ``why`` a number is needed.

    >>> rational(0.5, "W", "it is inverted"), rational(3, "W", "it is inverted")
    (Fraction(1, 2), Fraction(3, 1))
    """
    if isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)):
        return Fraction(int(c))
    if isinstance(c, Fraction):
        return c
    if getattr(c, "is_Rational", False):
        return Fraction(int(c.p), int(c.q))
    if isinstance(c, (float, np.floating)) and math.isfinite(c):
        return Fraction(float(c))
    if getattr(c, "is_Float", False) and c.is_finite:
        import sympy

        r = sympy.Rational(c)   # exact: a sympy Float is a binary fraction
        return Fraction(int(r.p), int(r.q))
    raise HypothesisError(f"{where}: {what} {c!r} is not a rational number; {why}")


def zero_W(d: int) -> np.ndarray:
    d = check_size(d, "d")
    return _int_array((d, d))


def gate_layer(h: Any, b1: Any, b2: Any = 0, conv: str = "causal", d: int = 1, label: str = "") -> Layer:
    """A layer with W = 0: ``b1 ⊙ (h * u + b2)``, the form most of Appendix H uses."""
    return Layer(W=zero_W(d), h=h, b1=b1, b2=b2 if not np.isscalar(b2) else [[b2]], conv=conv, label=label)
