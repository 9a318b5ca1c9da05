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
for every block it splits.  A factor whose ``D`` is a numpy float array is split
by ``split_float`` (the same cases and choices, vectorised over the pairs, the
same float operations in the same order, and the membership in U re-checked);
then :func:`symconv.constructions.inplace.compile_factors_inplace` takes its
float path too.  A half-turn factor's passes are scaled (:data:`HALF_TURN_SCALES`).

Numeric test matrices: the split divides by t − s (up to 3) and the coordinates by
D1 and D2·D3, so most integer matrices give rounded float parameters, which an
exact check mod p of the float stack (``symconv crosscheck`` on deep stacks)
rightly reports as wrong.  :func:`dyadic_factor`, :func:`dyadic_butterfly` and
:func:`dyadic_kaleidoscope` draw matrices (zeros of every kind included) whose
passes, coordinates and layer parameters are all dyadic, hence exact in
float64; :func:`check_dyadic_parameters` guards a stack against rounded ones.

>>> A, B, C = split_block(0, 0, 3, 0)        # a block with a zero row and a zero in the other
>>> [x for blk in (A, B, C) for x in blk[:3]].count(0)
0
>>> F = ButterflyFactorMatrix(2, 2, [[[0], [0], [3], [0]]])
>>> compile_factors_inplace_every([F], 1, 2).signature
Signature(N=1, L=7, d=2, N_int=1, d_int=2)
"""
from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import sympy

from ..model import HypothesisError, Stack
from .butterfly import Butterfly, ButterflyFactorMatrix, log2
from .inplace import compile_factors_inplace, inplace_coordinates

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
    if F.D.dtype.kind == "f":
        return split_float(F)
    parts = [np.empty(F.D.shape, dtype=object) for _ in range(3)]
    for b in range(F.D.shape[0]):
        for r in range(F.D.shape[2]):
            A, B, C = split_block(*(F.D[b, t, r] for t in range(4)))
            for part, blk in zip(parts, (C, B, A)):
                part[b, :, r] = blk
    return tuple(ButterflyFactorMatrix(F.n, F.k, p) for p in parts)


def split_float(F: ButterflyFactorMatrix) -> tuple:
    """:func:`split_factor` for a factor with float entries, vectorised over its pairs (the cases of
    :func:`split_block`, the same choices of s, t and k, the same float operations).

    >>> F = ButterflyFactorMatrix(4, 2, np.array([[[0.0], [0.0], [0.0], [0.0]], [[1.0], [0.0], [0.0], [1.0]]]))
    >>> F1, F2, F3 = split_float(F)
    >>> bool(np.allclose(F3.to_matrix() @ F2.to_matrix() @ F1.to_matrix(), F.to_matrix()))
    True
    """
    G = F.D
    bad = np.transpose(~np.isfinite(G), (0, 2, 1))          # split_block's order: factor, offset, entry
    if bad.any():
        b, r, t = (int(i) for i in np.argwhere(bad)[0])
        raise HypothesisError(f"D{t + 1}: {float(G[b, t, r])!r} is not a finite number")
    a, b, c, e = G[:, 0], G[:, 1], G[:, 2], G[:, 3]
    top, bottom = (a != 0) | (b != 0), (c != 0) | (e != 0)
    with np.errstate(over="ignore", invalid="ignore"):
        # no zero row: C = C0, G' = G·C0⁻¹, B = [[1, s], [1, t]], A = G'·B⁻¹
        a1, b1, c1, e1 = a * 2 + b * -1, a * -1 + b * 1, c * 2 + e * -1, c * -1 + e * 1
        s = np.where(b1 != a1 * 1, 1, 2)
        t = np.zeros_like(s)
        for v in (4, 3, 2, 1):
            t = np.where((v != s) & (a1 * v != b1) & (c1 * v != e1), v, t)
        ts = np.where(t > 0, t - s, 1)
        A_gen = ((a1 * t - b1) / ts, (b1 - a1 * s) / ts, (c1 * t - e1) / ts, (e1 - c1 * s) / ts)
        one = np.ones_like(a)
        k_top, k_bot = np.where(c + 1 != 0, 1, 2), np.where(a + 1 != 0, 1, 2)
        cases = [top & bottom, ~top & bottom, top & ~bottom]
        C = [np.select(cases, [one, c + k_top, a + k_bot], one),
             one,
             np.select(cases, [one, -k_top * one, -k_bot * one], -one),
             np.select(cases, [2 * one, e - 1, b - 1], -one)]
        B = [one, np.where(cases[0], s * one, one), one, np.where(cases[0], t * one, one)]
        A = [np.select(cases, [A_gen[i], fix1 * one, fix2 * one], one)
             for i, (fix1, fix2) in enumerate(zip((1, -1, 1, 0), (2, -1, 1, -1)))]
    parts = [np.stack(blk, axis=1) for blk in (C, B, A)]
    failed = (cases[0] & (t == 0)).any()
    for part in parts:
        if failed or not (np.isfinite(part).all() and (part[:, :3] != 0).all()):
            raise HypothesisError("F: the float split into three blocks failed (overflow: entries too large "
                                  "for float64)")
    return tuple(ButterflyFactorMatrix(F.n, F.k, p) for p in parts)


HALF_TURN_SCALES = (45, 225)
"""(μ, λ): a half-turn factor's passes (C, B, A) run as (μ·C, λ·B, A/(λμ)) (the same product, still in U).

The half-turn's layers carry κ² = 36 and κ²·w = 90 (:mod:`symconv.constructions.inplace`), so the
coordinates of the fixed blocks C0 = [[1, 1], [1, 2]] and B = [[1, s], [1, t]] of the split have
denominators 9 and 45 unscaled.  With μ = κ²w/2 = 45 and λ = κ²w² = 225 every layer parameter of the
factor is dyadic (α of μ·C0 is (5/4, 1/2); the merged γ(μ·C0)⊙α(λ·B) is (25/4, s)) whenever A/(λμ) has
the form [[9a, 225b], [45c, 45e]] with a, b, c, e dyadic (:func:`dyadic_half_turn_factor`).  In floats
the pass coordinate 2/5 of γ(μ·C0) is rounded, but it only enters a layer multiplied by 5/2 (or 5b/2,
|b| <= 2), whose correctly rounded product is the exact value; tests compare every parameter with the
exact path.  Exact entries are unaffected; floats stay floats (A is divided by λμ, not multiplied by a
rounded 1/(λμ))."""


def _scaled(F: ButterflyFactorMatrix, c: int, divide: bool = False) -> ButterflyFactorMatrix:
    if F.D.dtype.kind == "f":
        return ButterflyFactorMatrix(F.n, F.k, F.D / c if divide else F.D * c)
    return ButterflyFactorMatrix(F.n, F.k, F.D * (Fraction(1, c) if divide else c))


def inplace_every_passes(factors: Sequence[ButterflyFactorMatrix], D: int) -> list:
    """The passes (acting order) that :func:`compile_factors_inplace_every` runs on an R×D grid: each
    factor's :func:`split_factor`, a half-turn's scaled by :data:`HALF_TURN_SCALES`.

    >>> F = ButterflyFactorMatrix(4, 4, [[[1, 2], [1, 2], [1, 2], [1, 2]]])
    >>> [str(p.D[0, 0, 0]) for p in inplace_every_passes([F], 2)]
    ['45', '225', '2/10125']
    """
    from .inplace import HALF_TURN, factor_kind

    mu, lam = HALF_TURN_SCALES
    passes = []
    for F in factors:
        F1, F2, F3 = split_factor(F)
        if factor_kind(F.k, D, F.n // D) == HALF_TURN:
            F1, F2, F3 = _scaled(F1, mu), _scaled(F2, lam), _scaled(F3, lam * mu, divide=True)
        passes += [F1, F2, F3]
    return passes


def compile_factors_inplace_every(factors: Sequence[ButterflyFactorMatrix], n: int, d: int,
                                  D: int | None = None, name: str = "butterfly factors, in place (any entries)") -> Stack:
    """F_last ⋯ F_1·x in place (N' = R, d' = D) for factors with any numeric entries: each factor as its
    three passes of :func:`split_factor` (:func:`inplace_every_passes`), then
    :func:`symconv.constructions.inplace.compile_factors_inplace`."""
    from .butterfly import _checked_factors

    factors, D, _ = _checked_factors(factors, n, d, D)
    return compile_factors_inplace(inplace_every_passes(factors, D), n, d, D, name=name)


def compile_kaleidoscope_inplace_every(K: Any, n: int, d: int) -> Stack:
    """Lemma H.18 in place (N' = en, d' = d) for every M ∈ (BB*)^w_e with numeric entries (d ≥ 2)."""
    from .kaleidoscope import _check_fits

    _check_fits(K, n, d)
    return compile_factors_inplace_every(K.factors(), n, d, D=d, name=f"(BB*)^{K.w}_{K.e}, in place (any M)")


PATTERNS = ((0, 0, 1, 2), (1, -1, 0, 0), (0, 0, 0, 0), (2, 0, 1, 1), (0, 1, 1, 1), (1, 1, 0, 2))
"""Pair blocks (D1, D2, D3, D4) that :func:`integer_factor` puts first: a zero first row, a zero second
row, the zero block, then blocks with no zero row and one zero among D1, D2, D3 (none of them in U)."""


def _checked_values(values: Sequence[Any]) -> np.ndarray:
    vals = np.asarray(values, dtype=object)
    if vals.ndim != 1 or vals.size == 0:
        raise HypothesisError(f"values: expected a non-empty list of numbers, got {values!r}")
    for v in vals:
        _number(v, "values")
    if all(isinstance(v, (float, np.floating)) for v in vals):
        vals = vals.astype(float)           # float entries: a float array (the vectorised float path)
    return vals


def integer_factor(n: int, k: int, rng: np.random.Generator, values: Sequence[Any] = (-2, -1, 0, 0, 1, 2),
                   patterns: bool = True) -> ButterflyFactorMatrix:
    """B_k^(n) with entries drawn from ``values``; with ``patterns`` its first pair blocks (in the order
    factor, offset) are :data:`PATTERNS` (as many as there are pairs), so every case of
    :func:`split_block` occurs once n/2 >= 4.

    >>> F = integer_factor(8, 4, np.random.default_rng(0))
    >>> F.D[0, :, 0].tolist(), F.D[0, :, 1].tolist()
    ([0, 0, 1, 2], [1, -1, 0, 0])
    """
    from ..budget import require
    from .butterfly import check_pow2

    check_pow2(n, "n", 2)
    check_pow2(k, "k", 2)
    if k > n:
        raise HypothesisError(f"k: block size k = {k} exceeds n = {n} (need k <= n)")
    vals = _checked_values(values)
    require(16 * n, f"n: a butterfly factor of size {n}")
    D = rng.choice(vals, (n // k, 4, k // 2))
    if not isinstance(patterns, bool):
        raise HypothesisError(f"patterns: expected True or False, got {patterns!r}")
    if patterns:
        flat = np.transpose(D, (0, 2, 1)).reshape(-1, 4)      # pairs in the order factor, offset
        m = min(len(PATTERNS), len(flat))
        flat[:m] = np.asarray(PATTERNS[:m], dtype=D.dtype)
        D = np.transpose(flat.reshape(n // k, k // 2, 4), (0, 2, 1))
    return ButterflyFactorMatrix(n, k, D)


def integer_butterfly(n: int, rng: np.random.Generator, values: Sequence[Any] = (-2, -1, 0, 0, 1, 2),
                      patterns: bool = True) -> Butterfly:
    """B^(n) whose log n factors are :func:`integer_factor` (each with the :data:`PATTERNS` first).

    >>> [f.k for f in integer_butterfly(8, np.random.default_rng(0)).applied()]
    [2, 4, 8]
    """
    from .butterfly import check_pow2

    check_pow2(n, "n", 2)
    return Butterfly(n, tuple(integer_factor(n, n >> t, rng, values, patterns) for t in range(log2(n))))


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
    vals = _checked_values(values)
    m = e * n
    require(2 * w * 16 * m * max(1, m.bit_length() - 1),
            f"n: the {2 * w} butterflies of size e·n = {m} of a kaleidoscope")

    def butterfly() -> Butterfly:
        return Butterfly(m, tuple(ButterflyFactorMatrix(m, m >> t, rng.choice(vals, (1 << t, 4, m >> (t + 1))))
                                  for t in range(log2(m))))
    return Kaleidoscope(n, e, tuple(BBStar(butterfly(), butterfly()) for _ in range(w)))


# ---------------------------------------------------------------- test matrices with dyadic parameters

DYADIC_PATTERNS = ((0, 0, 1, 2), (1, -1, 0, 0), (0, 0, 0, 0), (0, 1, 3, 1), (1, 0, 1, 0), (2, 3, 0, 1))
"""Pair blocks that :func:`dyadic_factor` puts first: a zero first row, a zero second row, the zero block,
then blocks with no zero row and a zero at D1, at D2 (D4 = 0 too: a zero column) and at D3; each has
dyadic passes and coordinates (no block of {−2, …, 2} with one zero at D1 or D3 has; these take a 3)."""


def _dyadic(x: Fraction) -> bool:
    q = Fraction(x).denominator
    return q & (q - 1) == 0


def _channel_coordinates(G: tuple) -> tuple:
    """The in-place coordinates (α, β, γ) of G as a channel factor (:func:`~.inplace.inplace_coordinates`)."""
    F = ButterflyFactorMatrix(2, 2, [[[x] for x in G]])
    return tuple(x for v in inplace_coordinates(F, 2) for x in v)


@functools.lru_cache(maxsize=None)
def dyadic_blocks() -> tuple:
    """The blocks (D1, D2, D3, D4) in {−2, …, 2}⁴ whose three passes (:func:`split_block`) and the passes'
    channel coordinates (α, β, γ of :mod:`~symconv.constructions.inplace`) are all dyadic rationals:
    a channel or routed factor made of them has exact float64 parameters.

    >>> len(dyadic_blocks()), (0, 0, 0, 0) in dyadic_blocks(), (1, 1, 0, 2) in dyadic_blocks()
    (159, True, False)
    """
    import itertools

    out = []
    for G in itertools.product(range(-2, 3), repeat=4):
        passes = split_block(*G)
        if all(_dyadic(x) for P in passes for x in tuple(P) + _channel_coordinates(P)):
            out.append(G)
    return tuple(out)


def dyadic_half_turn_factor(n: int, rng: np.random.Generator) -> ButterflyFactorMatrix:
    """A half-turn factor B_n^(n) (float entries) whose passes have dyadic parameters: each pair block is
    G = A·B·C0 with B = C0 = [[1, 1], [1, 2]] (the split's choice s = 1, t = 2 for such G) and
    A = λμ·[[9a, 225b], [45c, 45e]], a, b, c ∈ {±1, ±2}, e ∈ {−2, …, 2} (:data:`HALF_TURN_SCALES`).
    No block has a zero: a half-turn pass with a zero row has a fixed block with D2 = 1 next to
    A = [[1, −1], [1, 0]] or S, and no scaling makes all three dyadic.

    >>> F = dyadic_half_turn_factor(4, np.random.default_rng(0))
    >>> [tuple(int(x) for x in blk) for blk in split_factor(F)[0].D[0].T]
    [(1, 1, 1, 2), (1, 1, 1, 2)]
    """
    from .butterfly import check_pow2

    from ..budget import require

    check_pow2(n, "n", 2)
    require(16 * n, f"n: a butterfly factor of size {n}")
    mu, lam = HALF_TURN_SCALES
    m = n // 2
    a, b, c = (rng.choice([-2, -1, 1, 2], m) for _ in range(3))
    e = rng.integers(-2, 3, m)
    A = lam * mu * np.array([[9 * a, 225 * b], [45 * c, 45 * e]], dtype=float)     # (2, 2, m)
    G = np.einsum("ijm,jk->ikm", A, np.array([[2.0, 3.0], [3.0, 5.0]]))              # A·(B·C0)
    return ButterflyFactorMatrix(n, n, G.reshape(4, m)[None])


def dyadic_factor(n: int, k: int, D: int, rng: np.random.Generator, patterns: bool = True) -> ButterflyFactorMatrix:
    """B_k^(n) with float entries for an R×D grid (R = n/D) whose in-place passes have dyadic parameters:
    channel and routed factors draw their pair blocks from :func:`dyadic_blocks` (with ``patterns``,
    :data:`DYADIC_PATTERNS` first, in the order factor, offset: every case of the split once n/2 >= 6);
    the half-turn is :func:`dyadic_half_turn_factor`.

    >>> F = dyadic_factor(16, 8, 2, np.random.default_rng(0))
    >>> F.D[0, :, 0].tolist(), F.D.dtype.kind
    ([0.0, 0.0, 1.0, 2.0], 'f')
    """
    from ..budget import require
    from .butterfly import check_pow2
    from .inplace import HALF_TURN, factor_kind

    check_pow2(n, "n", 2)
    check_pow2(k, "k", 2)
    if k > n:
        raise HypothesisError(f"k: block size k = {k} exceeds n = {n} (need k <= n)")
    check_pow2(D, "D")
    if n % D:
        raise HypothesisError(f"D: grid width {D} does not divide n = {n}")
    require(16 * n, f"n: a butterfly factor of size {n}")
    if factor_kind(k, D, n // D) == HALF_TURN:
        return dyadic_half_turn_factor(n, rng)
    pool = np.asarray(dyadic_blocks(), dtype=float)
    flat = pool[rng.integers(0, len(pool), (n // k) * (k // 2))]      # pairs in the order factor, offset
    if not isinstance(patterns, bool):
        raise HypothesisError(f"patterns: expected True or False, got {patterns!r}")
    if patterns:
        m = min(len(DYADIC_PATTERNS), len(flat))
        flat[:m] = np.asarray(DYADIC_PATTERNS[:m], dtype=float)
    return ButterflyFactorMatrix(n, k, np.transpose(flat.reshape(n // k, k // 2, 4), (0, 2, 1)))


def dyadic_butterfly(n: int, D: int, rng: np.random.Generator) -> Butterfly:
    """B^(n) whose log n factors are :func:`dyadic_factor` for an (n/D)×D grid.

    >>> [f.k for f in dyadic_butterfly(8, 2, np.random.default_rng(0)).applied()]
    [2, 4, 8]
    """
    from .butterfly import check_pow2

    check_pow2(n, "n", 2)
    return Butterfly(n, tuple(dyadic_factor(n, n >> t, D, rng) for t in range(log2(n))))


def dyadic_kaleidoscope(n: int, e: int, w: int, D: int, rng: np.random.Generator) -> Any:
    """M ∈ (BB*)^w_e of size n×n whose factors, in acting order, are :func:`dyadic_factor` on an
    (en/D)×D grid (M₂'s are stored transposed, as in
    :func:`~symconv.constructions.inplace.random_inplace_kaleidoscope`).

    >>> K = dyadic_kaleidoscope(4, 2, 1, 2, np.random.default_rng(0))
    >>> len(K.factors()), K.to_matrix().shape
    (6, (4, 4))
    """
    from .butterfly import check_pow2
    from .inplace import _inplace_kaleidoscope

    check_pow2(n, "n", 2)
    check_pow2(e, "e")
    if isinstance(w, bool) or not isinstance(w, int) or w < 1:
        raise HypothesisError(f"w: width must be a positive integer, got {w!r}")
    return _inplace_kaleidoscope(n, e, w, lambda k, tag: (dyadic_factor(e * n, k, D, rng), None))[0]


DYADIC_DENOMINATOR_BITS, DYADIC_BITS = 20, 40


def check_dyadic_parameters(stack: Stack) -> bool:
    """True when every float parameter of ``stack`` is m/2^20 with |m| < 2^40; else a HypothesisError
    naming the first layer and parameter that is not.

    A guard, vectorised: a float quotient that was rounded (1/3, 1/36, 2/5) has a full 53-bit mantissa
    and passes only if its last 13 bits happen to be 0, so a stack built from rounded parameters is
    refused (with overwhelming probability per rounded entry).  It does not prove the stack right: the
    exact check mod p of ``symconv crosscheck`` decides that, on these parameters read exactly.

    >>> from symconv.constructions.inplace import compile_factors_inplace
    >>> F = dyadic_factor(8, 4, 2, np.random.default_rng(1))
    >>> check_dyadic_parameters(compile_factors_inplace_every([F], 4, 2))
    True
    """
    scale, top = 2.0 ** DYADIC_DENOMINATOR_BITS, 2.0 ** DYADIC_BITS
    for i, layer in enumerate(stack.layers):
        for name in ("W", "h", "b1", "b2"):
            a = np.asarray(getattr(layer, name))
            if a.dtype.kind != "f":
                continue
            m = a * scale
            bad = ~((m == np.round(m)) & (np.abs(m) < top))
            if bad.any():
                idx = tuple(int(j) for j in np.argwhere(bad)[0])
                raise HypothesisError(
                    f"stack: layer {i} ({layer.label}) {name}{list(idx)} = {float(a[idx])!r} is not a dyadic "
                    f"m/2^{DYADIC_DENOMINATOR_BITS} with |m| < 2^{DYADIC_BITS} (a rounded float parameter)")
    return True
