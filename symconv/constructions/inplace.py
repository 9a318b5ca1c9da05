"""Butterfly factors computed in place: N' = R rows, d' = D channels, the state is exactly the vector.

Lemma H.18 states N' = en with d' = d: the state then has exactly as many
entries as E's vector, so every butterfly factor of E must be applied in
place (no spare rows, no spare channels).  This module builds every
butterfly factor in place on an R×D state (D >= 2; at D = 1 only channel-free
half-turns), with *rational* parameters, valid on an open set of factors:

* a channel factor (stride s = k/2 < D): each row's pairs (j, j XOR s) get
  G = diag(γ)·L·diag(β)·U·diag(α), with U = [[1, 1], [0, 1]], L = [[1, 0],
  [1, 1]] (one shared W each) and α, β, γ per entry: 3 layers (2 when the
  diag(α) layer merges into the previous factor's last layer);
* the half-turn row factor (stride k/2 = R·D/2, pairs of rows r, r + R/2):
  per channel G = diag(γ)·Q·diag(β)·Q·diag(α), Q = K·diag(−t², 1)·K, K the
  circulant with taps h[0] = 1, h[R/2] = t (t = 2), so Q = t(1 − t²)·[[0, 1],
  [1, w]] with w = (1 + t²)/t: 5 layers (4 merged);
* any other row factor (stride m rows, 1 <= m < R/2), routed through the
  channel pairs (j, j+1), j even: an exchange (odd channels down m rows, a
  per-row swap of j, j+1 on the lower row of each row pair, odd channels up
  m) puts rows r, r + m of channel j in row r and those of channel j + 1 in
  row r + m, as channel pairs; a channel factor; the exchange again (it is an
  involution).  The per-row swap (identity on upper rows) is two channel
  passes P, then P⁻¹ or X·P⁻¹ with P = [[1, 1], [1, 2]]: 14 layers, no
  leading diagonal.

For a pair block G = [[a, b], [c, e]] (a = D1, b = D2, c = D3, e = D4 of its
factor) the parameters are α = (a, b/w)/σ, γ = (1, c/(w·a)), β = (1,
w²(ae − bc)/(bc)) (β's two entries swapped for the half-turn), with w = σ = 1
for channel factors and w = 5/2, σ = κ² = 36 for the half-turn (γ = 1 at the
lower index of both forms: no coordinate is a fixed fraction such as 1/κ²).
These formulas need a, b, c ≠ 0 (e and ae − bc may be 0).  Off that
open dense set :func:`inplace_coordinates` raises a HypothesisError naming
the zero entry; some such blocks (e.g. a = c = 0) are reachable by the same
forms with other parameters, others (a = 0 with b, c ≠ 0) are not, and symconv
builds none of them.

(A circulant with taps {0, ±m} alone would add the neighbouring pair into
each row; the routing avoids that.)

Float path: factors whose ``D`` is a numpy float array (and float
coordinates) are handled by vectorised numpy, with the same formulas in the
same order of operations, so each coordinate is the float computation of its
exact value; ints, Fractions and sympy entries (``object`` or integer arrays)
take the exact per-pair path.

>>> import numpy as np
>>> from symconv.numeric import run
>>> from symconv.constructions.butterfly import random_factor
>>> F = random_factor(8, 2, np.random.default_rng(1))
>>> s = compile_factors_inplace([F], 4, 2)
>>> s.signature
Signature(N=4, L=3, d=2, N_int=4, d_int=2)
>>> u = np.arange(8.0).reshape(4, 2)
>>> bool(np.allclose(run(s, u).ravel(), F.apply(u.ravel())))
True
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import sympy

from ..model import HypothesisError, Layer, Stack
from .butterfly import ButterflyFactorMatrix, _checked_factors, _is_symbolic, _zeros, check_pow2

T_TAP = 2                               # the off-centre tap t of the half-turn circulant K
KAPPA = T_TAP * (1 - T_TAP ** 2)        # Q = K·diag(−t², 1)·K = κ·[[0, 1], [1, w]]
W_HALF = Fraction(1 + T_TAP ** 2, T_TAP)
CHANNEL, HALF_TURN, ROUTED = "channel", "half-turn", "routed"


def factor_kind(k: int, D: int, R: int) -> str:
    """``"channel"`` (k/2 < D), ``"half-turn"`` (k/2 = R·D/2), ``"routed"`` (other row strides, D >= 2).

    >>> factor_kind(2, 2, 4), factor_kind(8, 2, 4), factor_kind(4, 2, 4)
    ('channel', 'half-turn', 'routed')
    """
    s = k // 2
    if s < D:
        return CHANNEL
    if R >= 2 and 2 * s == R * D:
        return HALF_TURN
    if D >= 2:
        return ROUTED
    raise HypothesisError(
        f"k: B_{k} on an R×D = {R}×1 grid pairs rows {s} apart; in place with one channel symconv builds "
        f"only the half-turn (k/2 = R/2 = {R // 2}); other row strides are routed through a second channel")


def _div(x: Any, y: Any) -> Any:
    """x / y exactly for ints, Fractions and sympy; as floats for floats."""
    if isinstance(x, sympy.Basic) or isinstance(y, sympy.Basic):
        return sympy.cancel(_to_sym(x) / _to_sym(y))
    if isinstance(x, (float, np.floating)) or isinstance(y, (float, np.floating)):
        return float(x) / float(y)
    return Fraction(x) / Fraction(y)


def _to_sym(x: Any) -> Any:
    """A number as a sympy number (Fractions exactly); sympy objects unchanged; never text."""
    if isinstance(x, sympy.Basic):
        return x
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    if isinstance(x, (int, np.integer)):
        return sympy.Integer(int(x))
    if isinstance(x, (float, np.floating)):
        return sympy.Float(float(x))
    raise HypothesisError(f"entry: {type(x).__name__} {x!r} is not a number or sympy expression")


def _is_zero(x: Any) -> bool:
    if isinstance(x, sympy.Basic):
        return bool(x.is_zero)
    return x == 0


def inplace_coordinates(F: ButterflyFactorMatrix, D: int) -> tuple:
    """(α, β, γ), each of length F.n (vector order), such that the in-place layers compute F.

    Rational in the entries; defined exactly when every D1, D2, D3 entry of F is
    non-zero (raises a HypothesisError naming the first zero entry otherwise).

    >>> F = ButterflyFactorMatrix(2, 2, [[[1], [2], [3], [4]]])
    >>> [list(map(str, v)) for v in inplace_coordinates(F, 2)]
    [['1', '2'], ['1', '-1/3'], ['1', '3']]
    """
    R = F.n // D
    kind = factor_kind(F.k, D, R)
    if kind == ROUTED:
        return inplace_coordinates(routed_channel_factor(F, D), D)
    if _is_float(F.D):
        return _float_coordinates(F, kind)
    w = 1 if kind == CHANNEL else W_HALF
    sc = 1 if kind == CHANNEL else KAPPA ** 2      # the half-turn's κ² goes into α (γ = 1 at the lower index)
    n, s = F.n, F.s
    alpha, beta, gamma = (np.empty(n, dtype=object) for _ in range(3))
    for b in range(n // F.k):
        for r in range(s):
            a, bb, c, e = (F.D[b, t, r] for t in range(4))
            for t, v in zip("123", (a, bb, c)):
                if _is_zero(v):
                    raise _zero_entry_error(b, int(t) - 1, r)
            lo = b * F.k + r
            hi = lo + s
            alpha[lo], alpha[hi] = (a, bb) if kind == CHANNEL else (_div(a, sc), _div(bb, w * sc))
            flex = _div((a * e - bb * c) * w * w, bb * c)
            beta[lo], beta[hi] = (1, flex) if kind == CHANNEL else (flex, 1)
            gamma[lo], gamma[hi] = 1, _div(c, w * a)
    return alpha, beta, gamma


def _is_float(a: Any) -> bool:
    """Is ``a`` a numpy float array (the vectorised float path)?"""
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


def _zero_entry_error(b: int, t: int, r: int) -> HypothesisError:
    return HypothesisError(
        f"F.D[{b},{t},{r}]: entry D{t + 1} of factor {b} is 0; the in-place forms need "
        f"D1, D2, D3 ≠ 0 in every pair (an open dense set, not every matrix)")


def _float_coordinates(F: ButterflyFactorMatrix, kind: str) -> tuple:
    """:func:`inplace_coordinates` of a channel or half-turn factor with float entries, vectorised.

    The same formulas as the exact path, in the same order of operations.

    >>> F = ButterflyFactorMatrix(2, 2, np.array([[[1.0], [2.0], [3.0], [4.0]]]))
    >>> [v.tolist() for v in _float_coordinates(F, CHANNEL)]
    [[1.0, 2.0], [1.0, -0.3333333333333333], [1.0, 3.0]]
    """
    G = F.D
    bad = np.argwhere(~np.isfinite(G))
    if len(bad):
        b, t, r = (int(i) for i in bad[0])
        raise HypothesisError(f"F.D[{b},{t},{r}]: entry D{t + 1} of factor {b} is {float(G[b, t, r])}, not a finite number")
    zero = np.transpose(G[:, :3, :] == 0, (0, 2, 1))        # the exact path's order: factor, offset, entry
    if zero.any():
        b, r, t = (int(i) for i in np.argwhere(zero)[0])
        raise _zero_entry_error(b, t, r)
    a, bb, c, e = G[:, 0], G[:, 1], G[:, 2], G[:, 3]
    w = 1.0 if kind == CHANNEL else float(W_HALF)
    sc = 1.0 if kind == CHANNEL else float(KAPPA ** 2)
    with np.errstate(over="ignore", invalid="ignore"):
        flex = (a * e - bb * c) * w * w / (bb * c)
        one = np.ones_like(a)
        alpha = np.stack([a, bb] if kind == CHANNEL else [a / sc, bb / (w * sc)], axis=1)
        beta = np.stack([one, flex] if kind == CHANNEL else [flex, one], axis=1)
        gamma = np.stack([one, c / (w * a)], axis=1)
    out = tuple(v.reshape(F.n) for v in (alpha, beta, gamma))
    for v in out:
        if not np.isfinite(v).all():
            raise HypothesisError("F: a float in-place coordinate is not finite (overflow: entries too large "
                                  "or too small for float64)")
    return out


def factor_from_coordinates(n: int, k: int, D: int, alpha: Any, beta: Any, gamma: Any) -> ButterflyFactorMatrix:
    """The factor B_k^(n) that the in-place layers with parameters (α, β, γ) compute (polynomial in them).

    >>> F = factor_from_coordinates(2, 2, 2, [1, 2], [1, -Fraction(1, 3)], [1, 3])
    >>> [[str(x) for x in row] for row in F.to_matrix()]
    [['1', '2'], ['3', '4']]
    """
    check_pow2(n, "n", 2)
    check_pow2(k, "k", 2)
    R = n // D
    kind = factor_kind(k, D, R)
    if kind == ROUTED:
        return row_factor_from_routed(factor_from_coordinates(n, 2, D, alpha, beta, gamma), k, D)
    for name, v in (("alpha", alpha), ("beta", beta), ("gamma", gamma)):
        if isinstance(v, (str, bytes)) or np.shape(v) != (n,):
            raise HypothesisError(f"{name}: expected {n} coordinates (one per index of B_k^(n)), "
                                  f"got {type(v).__name__} of shape {np.shape(v)}")
    w = 1 if kind == CHANNEL else W_HALF
    sc = 1 if kind == CHANNEL else KAPPA ** 2
    s = k // 2
    if all(_is_float(v) for v in (alpha, beta, gamma)):
        return _float_factor(n, k, kind, alpha, beta, gamma)
    alpha, beta, gamma = (np.asarray(v, dtype=object) for v in (alpha, beta, gamma))
    if any(isinstance(x, sympy.Basic) for v in (alpha, beta, gamma) for x in v.flat):
        w = _to_sym(w)
    Dg = np.empty((n // k, 4, s), dtype=object)
    for b in range(n // k):
        for r in range(s):
            lo, hi = b * k + r, b * k + r + s
            if kind == CHANNEL:       # L·diag(β)·U = [[β0, β0], [β0, β0 + β1]]
                M = ((beta[lo], beta[lo]), (beta[lo], beta[lo] + beta[hi]))
            else:                     # Q·diag(β)·Q / κ² = [[β1, wβ1], [wβ1, β0 + w²β1]]
                M = ((beta[hi], w * beta[hi]), (w * beta[hi], beta[lo] + w * w * beta[hi]))
            g, a = (gamma[lo], gamma[hi]), (alpha[lo], alpha[hi])
            Dg[b, 0, r] = sc * g[0] * M[0][0] * a[0]
            Dg[b, 1, r] = sc * g[0] * M[0][1] * a[1]
            Dg[b, 2, r] = sc * g[1] * M[1][0] * a[0]
            Dg[b, 3, r] = sc * g[1] * M[1][1] * a[1]
    if any(isinstance(x, sympy.Basic) for x in Dg.flat):
        Dg = np.vectorize(lambda x: sympy.expand(_to_sym(x)), otypes=[object])(Dg)
    return ButterflyFactorMatrix(n, k, Dg)


def _float_factor(n: int, k: int, kind: str, alpha: np.ndarray, beta: np.ndarray,
                  gamma: np.ndarray) -> ButterflyFactorMatrix:
    """:func:`factor_from_coordinates` for float coordinates (channel or half-turn), vectorised."""
    s = k // 2
    a0, a1, b0, b1, g0, g1 = (v.reshape(n // k, 2, s)[:, i] for v in (alpha, beta, gamma) for i in (0, 1))
    if kind == CHANNEL:
        sc, M = 1, ((b0, b0), (b0, b0 + b1))
    else:
        w = float(W_HALF)
        sc, M = KAPPA ** 2, ((b1, w * b1), (w * b1, b0 + w * w * b1))
    Dg = np.stack([sc * g0 * M[0][0] * a0, sc * g0 * M[0][1] * a1,
                   sc * g1 * M[1][0] * a0, sc * g1 * M[1][1] * a1], axis=1)
    return ButterflyFactorMatrix(n, k, Dg)


def symbolic_inplace_factor(n: int, k: int, D: int, name: str = "c") -> tuple:
    """(F, (α, β, γ)): a factor whose entries are polynomials in free coordinate symbols.

    α_q, β_q, γ_q are symbols except the entries each form fixes (β, γ at the
    lower index of a channel pair, β at the upper index and γ at the lower index
    of a half-turn pair).  The exact check of the layers on these symbols covers
    every (α, β, γ); :func:`inplace_coordinates` maps every factor with D1, D2,
    D3 ≠ 0 to such coordinates.

    >>> F, (a, b, g) = symbolic_inplace_factor(2, 2, 2)
    >>> F.D[0, 3, 0]
    c_a[1]*c_b[1]*c_g[1] + c_a[1]*c_g[1]
    """
    R = n // D
    kind = factor_kind(k, D, R)
    if kind == ROUTED:
        G, coords = symbolic_inplace_factor(n, 2, D, name)
        return row_factor_from_routed(G, k, D), coords
    s = k // 2
    sy = lambda tag, q: sympy.Symbol(f"{name}_{tag}[{q}]")
    alpha = np.array([sy("a", q) for q in range(n)], dtype=object)
    beta, gamma = np.empty(n, dtype=object), np.empty(n, dtype=object)
    for q in range(n):
        lo = (q & s) == 0
        if kind == CHANNEL:
            beta[q] = 1 if lo else sy("b", q)
            gamma[q] = 1 if lo else sy("g", q)
        else:
            beta[q] = sy("b", q) if lo else 1
            gamma[q] = 1 if lo else sy("g", q)
    return factor_from_coordinates(n, k, D, alpha, beta, gamma), (alpha, beta, gamma)


def _num(x: Any, symbolic: bool) -> Any:
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator) if symbolic else x
    return x


def _grid(v: Any, R: int, D: int, symbolic: bool) -> np.ndarray:
    if not symbolic and _is_float(v):
        return v.reshape(R, D)
    a = np.empty(R * D, dtype=object)
    for i, x in enumerate(np.asarray(v, dtype=object)):
        a[i] = _num(x, symbolic)
    return a.reshape(R, D)


def _float_or_object(a: np.ndarray, symbolic: bool) -> np.ndarray:
    if a.dtype.kind == "f":
        return a
    if symbolic or any(isinstance(x, (Fraction, sympy.Basic)) for x in a.flat):
        return a
    return a.astype(float)


def inplace_factor_layers(k: int, R: int, D: int, beta: Any, gamma: Any, symbolic: bool,
                          after: Any = None) -> list[Layer]:
    """The layers of one factor after its diag(α): 2 (channel), 4 (half-turn); ``after`` scales the last.

    A routed row factor has no leading diag(α); use :func:`routed_row_layers` (14 layers).

    ``after`` (length R·D) is the next factor's α, merged into this factor's last
    diagonal (the result is diag(after)·G·(input)).

    >>> len(inplace_factor_layers(2, 2, 2, [1, 1, 1, 1], [1, 1, 1, 1], False))
    2
    """
    kind = factor_kind(k, D, R)
    s = k // 2
    if _is_float(gamma) and (after is None or _is_float(after)):
        if after is not None:                     # the float path
            gamma = gamma * after
    else:
        gamma = np.asarray(gamma, dtype=object)
        if after is not None:
            gamma = gamma * np.asarray(after, dtype=object)
    B, G = _grid(beta, R, D, symbolic), _grid(gamma, R, D, symbolic)
    zero1 = _zeros((1, 1), symbolic)
    if kind == CHANNEL:
        j = np.arange(D)
        lo = j[(j & s) == 0]
        WU, WL = _zeros((D, D), symbolic), _zeros((D, D), symbolic)
        WU[j, j] = 1
        WU[lo + s, lo] = 1            # (x·W_U)_lo = x_lo + x_hi
        WL[j, j] = 1
        WL[lo, lo + s] = 1            # (x·W_L)_hi = x_lo + x_hi
        hz = _zeros((1, D), symbolic)
        return [Layer(W=WU, h=hz, b1=zero1, b2=_float_or_object(B, symbolic),
                      label=f"B_{k}: (x·U) ⊙ β, pairs j, j XOR {s}"),
                Layer(W=WL, h=hz, b1=zero1, b2=_float_or_object(G, symbolic),
                      label=f"B_{k}: (x·L) ⊙ γ")]
    half = R // 2
    h = _zeros((half + 1, D), symbolic)
    h[0, :] = 1
    h[half, :] = T_TAP                # row r ← x_r + t·x_{r ± R/2}
    fixed = _zeros((R, 1), symbolic)
    fixed[:half] = -T_TAP ** 2
    fixed[half:] = 1
    zW = _zeros((D, D), symbolic)

    def circ(b1: Any, label: str) -> Layer:
        return Layer(W=zW, h=h, b1=b1, b2=zero1, conv="circular", label=f"B_{k}: {label}")
    return [circ(fixed, "K, then diag(−t², 1)"), circ(_float_or_object(B, symbolic), "K, then β"),
            circ(fixed, "K, then diag(−t², 1)"), circ(_float_or_object(G, symbolic), "K, then γ")]


def inplace_layer_count(ks: Sequence[int], D: int, R: int) -> int:
    """Layers of :func:`compile_factors_inplace`: 1 + Σ (2 per channel factor, 4 per half-turn, 14 routed).

    >>> inplace_layer_count([2, 4, 8], 4, 2)
    9
    """
    return 1 + sum({CHANNEL: 2, HALF_TURN: 4, ROUTED: 14}[factor_kind(k, D, R)] for k in ks)


def compile_factors_inplace(factors: Sequence[ButterflyFactorMatrix], n: int, d: int, D: int | None = None,
                            coordinates: Sequence[tuple] | None = None,
                            name: str = "butterfly factors, in place") -> Stack:
    """F_last ⋯ F_1·x (acting order) on an R×D state exactly the vector's size (N' = R, d' = D).

    Each factor must be a channel factor or the half-turn (:func:`factor_kind`)
    with D1, D2, D3 ≠ 0 (:func:`inplace_coordinates`), or come with its
    ``coordinates`` (α, β, γ).  Layers: :func:`inplace_layer_count`.
    Parameters are rational in the entries (exact for ints, Fractions, sympy;
    floats for floats).

    >>> from symconv.constructions.butterfly import symbolic_factor
    >>> compile_factors_inplace([symbolic_factor(4, 4)], 1, 2, D=2).signature
    Signature(N=1, L=5, d=2, N_int=2, d_int=2)
    """
    factors, D, R = _checked_factors(factors, n, d, D)
    for f in factors:
        factor_kind(f.k, D, R)
    if coordinates is None:
        coordinates = [inplace_coordinates(f, D) for f in factors]
    coordinates = list(coordinates)
    if len(coordinates) != len(factors):
        raise HypothesisError(f"coordinates: {len(coordinates)} given for {len(factors)} factors")
    symbolic = _is_symbolic(factors) or any(_has_symbols(v) for c in coordinates for v in c)
    from ..budget import require

    require((1 + 4 * len(factors)) * 3 * R * D * (64 if symbolic else 8),
            f"n: the in-place layers of {len(factors)} butterfly factors on an N' = {R}, d' = {D} state")
    I = _zeros((D, D), symbolic)
    I[np.arange(D), np.arange(D)] = 1
    a0 = _float_or_object(_grid(_lead_alpha(factors[0].k, D, R, coordinates[0]), R, D, symbolic), symbolic)
    layers = [Layer(W=I, h=_zeros((1, D), symbolic), b1=_zeros((1, 1), symbolic), b2=a0, label="x ⊙ α")]
    for i, (f, (alpha, beta, gamma)) in enumerate(zip(factors, coordinates)):
        nxt = _lead_alpha(factors[i + 1].k, D, R, coordinates[i + 1]) if i + 1 < len(factors) else None
        if factor_kind(f.k, D, R) == ROUTED:
            layers += routed_row_layers(f.k, R, D, (alpha, beta, gamma), symbolic, after=nxt)
        else:
            layers += inplace_factor_layers(f.k, R, D, beta, gamma, symbolic, after=nxt)
    return Stack(n, d, tuple(layers), R, D, name=name)


def compile_butterfly_factor_inplace(F: ButterflyFactorMatrix, n: int, d: int) -> Stack:
    """Lemma H.16 (1) in place (N' = n, d' = d): 3 layers (k ≤ d), 5 (k = nd), 15 (else); D1, D2, D3 ≠ 0.

    >>> from symconv.constructions.butterfly import random_factor
    >>> compile_butterfly_factor_inplace(random_factor(8, 8, np.random.default_rng(0)), 4, 2).L
    5
    """
    if not isinstance(F, ButterflyFactorMatrix):
        raise HypothesisError(f"F: expected a ButterflyFactorMatrix, got {type(F).__name__}")
    if F.n != n * d:
        raise HypothesisError(f"n, d: the factor acts on R^{F.n} but u is {n}×{d} (need n·d = {F.n})")
    return compile_factors_inplace([F], n, d, name=f"B_{F.k}^({F.n}), in place")


def symbolic_inplace_butterfly(n: int, D: int, name: str = "c") -> tuple:
    """(B, coordinates): B^(n) whose factors are :func:`symbolic_inplace_factor` (acting order B_2 first).

    >>> B, coords = symbolic_inplace_butterfly(4, 2)
    >>> [f.k for f in B.applied()], len(coords)
    ([2, 4], 2)
    """
    from .butterfly import Butterfly, log2

    ks = [2 << t for t in range(log2(n))]
    made = [symbolic_inplace_factor(n, k, D, f"{name}{k}") for k in ks]
    return Butterfly(n, tuple(F for F, _ in reversed(made))), [c for _, c in made]


def _inplace_kaleidoscope(n: int, e: int, w: int, make: Any) -> tuple:
    """(K, coordinates) from ``make(k, tag) -> (F, coords)``; M₂'s factors are stored transposed."""
    from .butterfly import Butterfly, log2
    from .kaleidoscope import BBStar, Kaleidoscope

    m = e * n
    ks = [2 << t for t in range(log2(m))]
    terms, coords = [], []
    for i in range(w):
        star = [make(k, f"{i}s{k}") for k in reversed(ks)]   # M₂ᵀ acts first, B_m first
        one = [make(k, f"{i}a{k}") for k in ks]              # then M₁, B_2 first
        M2 = Butterfly(m, tuple(F.transpose() for F, _ in star))
        M1 = Butterfly(m, tuple(F for F, _ in reversed(one)))
        terms.append(BBStar(M1, M2))
        coords += [c for _, c in star] + [c for _, c in one]
    return Kaleidoscope(n, e, tuple(terms)), coords


def symbolic_inplace_kaleidoscope(n: int, e: int, w: int, D: int, name: str = "k") -> tuple:
    """(K, coordinates): M ∈ (BB*)^w_e whose 2w·log(en·D) factors (acting order) have coordinate symbols.

    Each term is M₁M₂ᵀ; M₂'s factors are stored transposed so that the factors
    acting on the vector (``K.factors()``) are the coordinate factors.

    >>> K, coords = symbolic_inplace_kaleidoscope(4, 1, 1, 2)
    >>> len(K.factors()) == len(coords) == 4
    True
    """
    return _inplace_kaleidoscope(n, e, w, lambda k, tag: symbolic_inplace_factor(e * n, k, D, f"{name}{tag}"))


def random_inplace_kaleidoscope(n: int, e: int, w: int, D: int, rng: np.random.Generator) -> tuple:
    """(K, coordinates) like :func:`symbolic_inplace_kaleidoscope`, from :func:`random_inplace_factor`.

    >>> K, c = random_inplace_kaleidoscope(4, 1, 1, 2, np.random.default_rng(0))
    >>> compile_kaleidoscope_inplace(K, 2, 2, c).L
    13
    """
    return _inplace_kaleidoscope(n, e, w, lambda k, tag: random_inplace_factor(e * n, k, D, rng))


def compile_kaleidoscope_inplace(K: Any, n: int, d: int, coordinates: Sequence[tuple] | None = None) -> Stack:
    """Lemma H.18 in place: M·x for M ∈ (BB*)^w_e on N' = en, d' = d (d >= 2).

    Layers: 1 + 2w·(2·log d + 4 + 14·(log(en) − 1)) for en >= 2 (each butterfly: log d channel
    factors, the half-turn, log(en) − 1 routed row factors).  Hypothesis: every D1, D2, D3 entry of
    every factor is non-zero (or ``coordinates`` given).

    >>> K, c = symbolic_inplace_kaleidoscope(4, 1, 1, 2)
    >>> compile_kaleidoscope_inplace(K, 2, 2, c).signature
    Signature(N=2, L=13, d=2, N_int=2, d_int=2)
    """
    from .kaleidoscope import _check_fits

    _check_fits(K, n, d)
    return compile_factors_inplace(K.factors(), n, d, D=d, coordinates=coordinates,
                                   name=f"(BB*)^{K.w}_{K.e}, in place")


def check_round_trip(F: ButterflyFactorMatrix, D: int) -> bool:
    """True when the coordinates of F give back F exactly (sympy ``cancel`` on each entry); else a HypothesisError.

    With symbol entries this checks the rational identity for every factor with D1, D2, D3 ≠ 0.

    >>> from symconv.constructions.butterfly import symbolic_factor
    >>> check_round_trip(symbolic_factor(4, 4, "f"), 2)
    True
    """
    G = factor_from_coordinates(F.n, F.k, D, *inplace_coordinates(F, D))
    for idx in np.ndindex(*F.D.shape):
        if sympy.cancel(_to_sym(G.D[idx]) - _to_sym(F.D[idx])) != 0:
            raise HypothesisError(f"F.D[{','.join(map(str, idx))}]: the in-place coordinates do not give the entry back")
    return True


# ---------------------------------------------------------------- numeric search (least squares, scipy)

def _layer_matrix(kind: str, p: np.ndarray, R: int, D: int) -> np.ndarray:
    """The R·D × R·D matrix (row-major vector) of one linear in-place layer.

    ``"A"``: (x·W) ⊙ b (W D×D shared by the rows, b per entry);
    ``"B"``: b ⊙ (h ⊛ x) (a circular filter per channel, b per entry).
    """
    if kind == "A":
        W, b = p[:D * D].reshape(D, D), p[D * D:]
        return b[:, None] * np.kron(np.eye(R), W.T)
    H, b = p[:R * D].reshape(R, D), p[R * D:]
    M = np.zeros((R * D, R * D))
    rows = np.arange(R)
    for j in range(D):
        idx = rows * D + j
        C = np.zeros((R, R))
        for t in range(R):
            C[rows, (rows - t) % R] += H[t, j]
        M[np.ix_(idx, idx)] = C
    return b[:, None] * M


def _n_params(kind: str, R: int, D: int) -> int:
    return D * D + R * D if kind == "A" else 2 * R * D


def fit_inplace(kinds: str, target: Any, R: int, D: int, restarts: int = 8, seed: int = 0) -> float:
    """Least residual ‖stack − target‖_F found for in-place linear layers of the given kinds (acting order).

    ``kinds`` is a string over {"A", "B"} (see :func:`_layer_matrix`); real
    parameters, scipy's least squares from ``restarts`` random starts.  A
    residual ~1e-15 says a real solution exists at this target; a residual
    bounded away from 0 is numerical evidence only, never a proof.  Needs scipy
    (extra ``test``).
    """
    try:
        from scipy.optimize import least_squares
    except ImportError:  # pragma: no cover - scipy is in the test extra
        raise ImportError("fit_inplace needs scipy: pip install scipy (or the extra symconv[test])") from None
    if not kinds or set(kinds) - {"A", "B"}:
        raise HypothesisError(f"kinds: expected a non-empty string over 'A' (W layer) and 'B' (filter layer), got {kinds!r}")
    T = np.asarray(target, dtype=float)
    if T.shape != (R * D, R * D):
        raise HypothesisError(f"target: expected shape {(R * D, R * D)}, got {T.shape}")
    sizes = [_n_params(k, R, D) for k in kinds]

    def residual(theta: np.ndarray) -> np.ndarray:
        M, o = np.eye(R * D), 0
        for k, n in zip(kinds, sizes):
            M = _layer_matrix(k, theta[o:o + n], R, D) @ M
            o += n
        return (M - T).ravel()
    rng = np.random.default_rng(seed)
    best = np.inf
    for _ in range(restarts):
        r = least_squares(residual, rng.standard_normal(sum(sizes)), method="trf", max_nfev=5000,
                          xtol=1e-15, ftol=1e-15, gtol=1e-15)
        best = min(best, float(np.linalg.norm(r.fun)))
        if best < 1e-10:
            break
    return best


def random_inplace_factor(n: int, k: int, D: int, rng: np.random.Generator) -> tuple:
    """(F, (α, β, γ)) with random dyadic coordinates ±j/16 (j = 1..16), so F and every layer are exact floats.

    Used by the numeric cross-checks: the float stack then equals F exactly in
    the rationals, so an exact check mod p of the float parameters can pass.

    >>> F, c = random_inplace_factor(4, 4, 2, np.random.default_rng(0))
    >>> bool(np.allclose(compile_factors_inplace([F], 2, 2, coordinates=[c]).layers[0].b2.ravel(), c[0]))
    True
    """
    factor_kind(k, D, n // D)
    draw = lambda: rng.integers(1, 17, n) * rng.choice([-1.0, 1.0], n) / 16.0
    alpha, beta, gamma = draw(), draw(), draw()
    return factor_from_coordinates(n, k, D, alpha, beta, gamma), (alpha, beta, gamma)


def _lead_alpha(k: int, D: int, R: int, coords: tuple) -> Any:
    """The diagonal a factor needs applied to its input (merged into the layer before it)."""
    if factor_kind(k, D, R) == ROUTED:
        return np.ones(R * D, dtype=float if _is_float(coords[0]) else object)
    return coords[0]


def _has_symbols(v: Any) -> bool:
    a = np.asarray(v)
    return a.dtype == object and any(isinstance(x, sympy.Basic) for x in a.flat)


# ---------------------------------------------------------------- any row stride, by routing through the channels

_P = ((1, 1), (1, 2))              # a block with D1, D2, D3 ≠ 0 whose inverse has them too
_P_INV = ((2, -1), (-1, 1))
_X_P_INV = ((-1, 1), (2, -1))      # swap · P⁻¹


def _const_factor(n: int, D: int, rows_top: np.ndarray, top: tuple, bottom: tuple,
                  floats: bool = False) -> ButterflyFactorMatrix:
    """B_2^(n) (channel pairs 2i, 2i+1) with block ``top`` on the rows in ``rows_top`` and ``bottom`` elsewhere.

    Entries are Python ints (object array), or floats with ``floats=True``.
    """
    dtype = float if floats else object
    flat = lambda G: np.array([G[0][0], G[0][1], G[1][0], G[1][1]], dtype=dtype)
    on_top = np.asarray(rows_top)[(2 * np.arange(n // 2)) // D]
    Dg = np.where(on_top[:, None], flat(top)[None, :], flat(bottom)[None, :])
    return ButterflyFactorMatrix(n, 2, Dg[:, :, None])


def _top_rows(R: int, m: int) -> np.ndarray:
    return (np.arange(R) & m) == 0


def routed_channel_factor(F: ButterflyFactorMatrix, D: int) -> ButterflyFactorMatrix:
    """The channel factor (pairs 2i, 2i+1) that a row factor F of stride m = k/(2D) becomes after the exchange.

    After the exchange row r (top) holds channel j of rows r, r + m in channels (j, j+1) (j even), and
    row r + m holds channel j + 1 of rows r, r + m: each gets F's block of that pair.

    >>> from symconv.constructions.butterfly import symbolic_factor
    >>> routed_channel_factor(symbolic_factor(8, 8, "f"), 2).D[0, :, 0].tolist()
    [f[0,0,0], f[0,1,0], f[0,2,0], f[0,3,0]]
    """
    R, m = F.n // D, F.s // D
    q = _routed_pairs(R, D, m)                   # F's pair (q, q + s) for channel pair (r, j), j even
    Dg = F.D[q // F.k, :, q % F.k]               # (R, D/2, 4): pair (r, j) at index (r·D + j)/2
    return ButterflyFactorMatrix(F.n, 2, Dg.reshape(F.n // 2, 4, 1))


def _routed_pairs(R: int, D: int, m: int) -> np.ndarray:
    """q[r, j/2] = the lower index of the row factor's pair that channel pair (r, j) holds after the exchange."""
    r = np.arange(R)[:, None]
    j = np.arange(0, D, 2)[None, :]
    top = _top_rows(R, m)[:, None]
    return np.where(top, r, r - m) * D + np.where(top, j, j + 1)


def row_factor_from_routed(G: ButterflyFactorMatrix, k: int, D: int) -> ButterflyFactorMatrix:
    """Inverse of :func:`routed_channel_factor`: the row factor B_k whose routed channel factor is G."""
    R, s = G.n // D, k // 2
    m = s // D
    q = _routed_pairs(R, D, m)
    Dg = np.empty((G.n // k, 4, s), dtype=float if _is_float(G.D) else object)
    Dg[q // k, :, q % k] = G.D[:, :, 0].reshape(R, D // 2, 4)
    return ButterflyFactorMatrix(G.n, k, Dg)


def _skew_layer(R: int, D: int, shift: int, b1: Any, symbolic: bool, label: str) -> Layer:
    """b1 ⊙ (h ⊛ x): even channels kept, odd channels moved down by ``shift`` rows (circularly)."""
    t = shift % R
    h = _zeros((t + 1, D), symbolic)
    h[0, 0::2] = 1
    h[t, 1::2] = h[t, 1::2] + 1
    return Layer(W=_zeros((D, D), symbolic), h=h, b1=b1, b2=_zeros((1, 1), symbolic), conv="circular", label=label)


def routed_row_layers(k: int, R: int, D: int, coords_G: tuple, symbolic: bool, after: Any = None) -> list[Layer]:
    """14 layers computing a row factor of stride m = k/(2D) in place (D >= 2), from its routed factor's coordinates.

    Exchange (odd channels down m; swap channels j, j+1 on the bottom rows of each pair of rows, as
    P then P⁻¹ or X·P⁻¹; odd channels up m), the routed channel factor, the exchange again.

    >>> len(routed_row_layers(4, 4, 2, tuple(np.ones(8) for _ in range(3)), False))
    14
    """
    if D < 2:
        raise HypothesisError(f"D: routing a row factor through the channels needs D >= 2, got {D}")
    n, m = R * D, k // (2 * D)
    top = _top_rows(R, m)
    floats = not symbolic and all(_is_float(v) for v in coords_G) and (after is None or _is_float(after))
    first = inplace_coordinates(_const_factor(n, D, top, _P, _P, floats), D)
    second = inplace_coordinates(_const_factor(n, D, top, _P_INV, _X_P_INV, floats), D)
    aG, bG, gG = coords_G

    kind = float if floats else object

    def exchange(alpha_in_skew: Any, after_unskew: Any, tag: str) -> list[Layer]:
        out = [_skew_layer(R, D, m, _grid(first[0] * np.asarray(alpha_in_skew, dtype=kind), R, D, symbolic),
                           symbolic, f"B_{k}: {tag} odd channels down {m}")]
        out += inplace_factor_layers(2, R, D, first[1], first[2], symbolic, after=second[0])
        out += inplace_factor_layers(2, R, D, second[1], second[2], symbolic)
        ones = np.ones(n, dtype=kind) if after_unskew is None else after_unskew
        out.append(_skew_layer(R, D, -m, _grid(ones, R, D, symbolic), symbolic, f"B_{k}: {tag} odd channels up {m}"))
        return out
    ones = np.ones(n, dtype=kind)
    layers = exchange(ones, aG, "exchange:")
    layers += inplace_factor_layers(2, R, D, bG, gG, symbolic)
    layers += exchange(ones, after, "exchange back:")
    return [l if symbolic else _floatify(l) for l in layers]


def _floatify(l: Layer) -> Layer:
    def f(a: np.ndarray) -> np.ndarray:
        if a.dtype == object and not any(isinstance(x, sympy.Basic) for x in a.flat) and \
                any(isinstance(x, float) for x in a.flat):
            return a.astype(float)
        return a
    return Layer(W=f(l.W), h=f(l.h), b1=f(l.b1), b2=f(l.b2), conv=l.conv, label=l.label)
