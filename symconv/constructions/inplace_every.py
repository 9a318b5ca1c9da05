"""Every butterfly factor in place: three passes whose pair blocks all lie in the in-place set.

The in-place forms of :mod:`symconv.constructions.inplace` need every pair
block G = [[a, b], [c, e]] (a = D1, b = D2, c = D3, e = D4) in the set
U = {a, b, c ≠ 0}.  Every 2×2 matrix is a product A·B·C of three blocks of U
(C acts first), by cases on the zero rows of G, with S = [[1, 1], [1, 1]]:

* no zero row: C = C0 = [[1, 1], [1, 2]] (invertible), G' = G·C0⁻¹ has no zero
  row; B = [[1, s], [1, t]] and A = G'·B⁻¹ = [[a't − b', b' − a's], [c't − e',
  e' − c's]]/(t − s).  A ∈ U needs b' ≠ a's, a't ≠ b', c't ≠ e': each rules out
  at most one value (none when a' = 0 or c' = 0, since then b' or e' ≠ 0), so
  s ∈ {1, 2} and t ∈ {1, 2, 3, 4} \\ {s} always leave a choice;
* first row zero: C = [[c + k, 1], [−k, e − 1]] (k ∈ {1, 2}, c + k ≠ 0), so
  S·C = [[c, e], [c, e]], B = S, A = [[1, −1], [1, 0]];
* second row zero: C = [[a + k, 1], [−k, b − 1]], B = S, A = [[2, −1], [1, −1]];
* G = 0: C = [[1, 1], [−1, −1]] (S·C = 0), B = S, A = S.

So a factor F becomes three factors of the same stride (``split_factor``), each
with D1, D2, D3 ≠ 0, and the in-place route computes any M, at three times the
layers.  The choice is made per pair from the entries' values, so the entries
must be numbers (ints, Fractions and rationals exactly; floats as floats); a
symbolic entry cannot be tested for zero and is refused.  The case analysis is a
proof by hand; ``split_block`` re-checks the product and the membership in U
for every block it splits.

>>> A, B, C = split_block(0, 0, 3, 0)        # a block with a zero row and a zero in the other
>>> [x for blk in (A, B, C) for x in blk[:3]].count(0)
0
>>> F = ButterflyFactorMatrix(2, 2, [[[0], [0], [3], [0]]])
>>> compile_factors_inplace_every([F], 1, 2).signature
Signature(N=1, L=7, d=2, N_int=1, d_int=2)
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import sympy

from ..model import HypothesisError, Stack
from .butterfly import Butterfly, ButterflyFactorMatrix, log2
from .inplace import compile_factors_inplace

S = (1, 1, 1, 1)


def _number(x: Any, where: str) -> Any:
    """An entry as a Fraction (exact kinds) or a float; symbolic entries are refused."""
    if isinstance(x, (bool, np.bool_)):
        raise HypothesisError(f"{where}: {x!r} is a boolean, not a matrix entry")
    if isinstance(x, (int, np.integer, Fraction)):
        return Fraction(x)
    if isinstance(x, (float, np.floating)):
        if not np.isfinite(x):
            raise HypothesisError(f"{where}: {x!r} is not a finite number")
        return float(x)
    if isinstance(x, sympy.Basic) and x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    raise HypothesisError(f"{where}: {type(x).__name__} {str(x)[:40]} is not a number; the split into three "
                          "passes decides which entries are 0, which needs numbers")


def _mul(X: tuple, Y: tuple) -> tuple:
    a, b, c, e = X
    p, q, r, s = Y
    return (a * p + b * r, a * q + b * s, c * p + e * r, c * q + e * s)


def in_u(G: tuple) -> bool:
    """Is the block (D1, D2, D3, D4) in U (D1, D2, D3 all non-zero)?

    >>> in_u((1, 2, 3, 0)), in_u((0, 1, 1, 1))
    (True, False)
    """
    return all(x != 0 for x in G[:3])


def split_block(a: Any, b: Any, c: Any, e: Any) -> tuple:
    """(A, B, C) with A·B·C = [[a, b], [c, e]] (C acts first), each a block (D1, D2, D3, D4) in U.

    >>> A, B, C = split_block(1, 2, 3, 4)
    >>> _mul(A, _mul(B, C)) == (1, 2, 3, 4) and all(map(in_u, (A, B, C)))
    True
    """
    a, b, c, e = (_number(x, n) for x, n in zip((a, b, c, e), ("D1", "D2", "D3", "D4")))
    G = (a, b, c, e)
    if (a, b) != (0, 0) and (c, e) != (0, 0):
        C = (1, 1, 1, 2)
        a1, b1, c1, e1 = _mul(G, (2, -1, -1, 1))               # G·C0⁻¹
        s = next(v for v in (1, 2) if b1 != a1 * v)
        t = next(v for v in (1, 2, 3, 4) if v != s and a1 * v != b1 and c1 * v != e1)
        B = (1, s, 1, t)
        A = tuple(x / (t - s) for x in (a1 * t - b1, b1 - a1 * s, c1 * t - e1, e1 - c1 * s))
    elif (a, b) == (0, 0) and (c, e) != (0, 0):
        k = 1 if c + 1 != 0 else 2
        C, B, A = (c + k, 1, -k, e - 1), S, (1, -1, 1, 0)
    elif (c, e) == (0, 0) and (a, b) != (0, 0):
        k = 1 if a + 1 != 0 else 2
        C, B, A = (a + k, 1, -k, b - 1), S, (2, -1, 1, -1)
    else:
        C, B, A = (1, 1, -1, -1), S, S
    exact = not any(isinstance(x, float) for x in G)
    if not all(map(in_u, (A, B, C))) or (exact and _mul(A, _mul(B, C)) != G):
        raise HypothesisError(f"G: the split of [[{a}, {b}], [{c}, {e}]] into three blocks failed")  # pragma: no cover
    return A, B, C


def split_factor(F: ButterflyFactorMatrix) -> tuple:
    """(F1, F2, F3) of F's size and stride with F = F3·F2·F1 (F1 acts first), every pair block in U.

    >>> F = ButterflyFactorMatrix(4, 2, [[[0], [0], [0], [0]], [[1], [0], [0], [1]]])
    >>> F1, F2, F3 = split_factor(F)
    >>> bool((F3.to_matrix() @ F2.to_matrix() @ F1.to_matrix() == F.to_matrix()).all())
    True
    """
    if not isinstance(F, ButterflyFactorMatrix):
        raise HypothesisError(f"F: expected a ButterflyFactorMatrix, got {type(F).__name__}")
    parts = [np.empty(F.D.shape, dtype=object) for _ in range(3)]
    for b in range(F.D.shape[0]):
        for r in range(F.D.shape[2]):
            A, B, C = split_block(*(F.D[b, t, r] for t in range(4)))
            for part, blk in zip(parts, (C, B, A)):
                part[b, :, r] = blk
    return tuple(ButterflyFactorMatrix(F.n, F.k, p) for p in parts)


def compile_factors_inplace_every(factors: Sequence[ButterflyFactorMatrix], n: int, d: int,
                                  D: int | None = None, name: str = "butterfly factors, in place (any entries)") -> Stack:
    """F_last ⋯ F_1·x in place (N' = R, d' = D) for factors with any numeric entries: each factor as its
    three passes of :func:`split_factor`, then :func:`symconv.constructions.inplace.compile_factors_inplace`."""
    passes = [p for F in factors for p in split_factor(F)]
    return compile_factors_inplace(passes, n, d, D, name=name)


def compile_kaleidoscope_inplace_every(K: Any, n: int, d: int) -> Stack:
    """Lemma H.18 in place (N' = en, d' = d) for every M ∈ (BB*)^w_e with numeric entries (d ≥ 2)."""
    from .kaleidoscope import _check_fits

    _check_fits(K, n, d)
    return compile_factors_inplace_every(K.factors(), n, d, D=d, name=f"(BB*)^{K.w}_{K.e}, in place (any M)")


def integer_kaleidoscope(n: int, e: int, w: int, rng: np.random.Generator, values: Sequence[int] = (-2, -1, 0, 0, 1, 2)):
    """M ∈ (BB*)^w_e of size n×n whose butterfly entries are drawn from ``values`` (zeros likely: every
    case of :func:`split_block` occurs at moderate sizes).

    >>> integer_kaleidoscope(4, 1, 1, np.random.default_rng(0)).to_matrix().shape
    (4, 4)
    """
    from ..budget import require
    from .butterfly import check_pow2
    from .kaleidoscope import BBStar, Kaleidoscope

    check_pow2(n, "n", 2)
    check_pow2(e, "e")
    if isinstance(w, bool) or not isinstance(w, int) or w < 1:
        raise HypothesisError(f"w: width must be a positive integer, got {w!r}")
    vals = np.asarray(values, dtype=object)
    if vals.ndim != 1 or vals.size == 0:
        raise HypothesisError(f"values: expected a non-empty list of numbers, got {values!r}")
    for v in vals:
        _number(v, "values")
    m = e * n
    require(2 * w * 16 * m * max(1, m.bit_length() - 1),
            f"n: the {2 * w} butterflies of size e·n = {m} of a kaleidoscope")

    def butterfly() -> Butterfly:
        return Butterfly(m, tuple(ButterflyFactorMatrix(m, m >> t, rng.choice(vals, (1 << t, 4, m >> (t + 1))))
                                  for t in range(log2(m))))
    return Kaleidoscope(n, e, tuple(BBStar(butterfly(), butterfly()) for _ in range(w)))
