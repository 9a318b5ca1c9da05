"""Prop. H.12 (Hyena → BaseConv) at N = 4 on 2N = 8 rows, for the filters its step solver handles.

The route is the 2N-row route of :mod:`.hyena_2n_rows` with a three-layer linear step
(u | z) ↦ (u | h * z) found per channel by solving for masks, not in closed form:

* a **unit** with ratio ρ is two masked convolutions, filter 1 − ρX with masks (1⁴ | ε) and filter
  1/(1 − ρX) with masks (1⁴ | γ), ε₀ = 1: the top block sees (1 − ρX)/(1 − ρX) = 1 and nothing of
  it leaks into the bottom block, which is mapped by D_γ·A_ρ⁻¹·D_ε·A_ρ (A_ρ = I − ρS);
* two units with γ = 1 in the first merge into three layers: (1 − ρ₁X; 1⁴ | ε₁),
  ((1 − ρ₂X)/(1 − ρ₁X); 1⁴ | ε₂), (1/(1 − ρ₂X); 1⁴ | γ);
* for fixed ρ₁, ρ₂, the equation D_γ·A₂⁻¹D_{ε₂}A₂·A₁⁻¹D_{ε₁}A₁ = T_h is solved row by row
  (:func:`unit_masks`): with γ' = 1/γ, row i is linear in (ε₂ᵢ, γ'ᵢ) once rows < i are known, ε₁ᵢ
  follows from the diagonal, row 1 leaves one unknown t free and row 3 has one equation too many,
  a polynomial in t whose rational roots are tried.  Pairs (ρ₁, ρ₂) are tried in the order of
  :data:`RATIOS`.

Every step is multiplied out as an 8×8 matrix, exactly, before it is used.  A filter with
h₁ = h₂ = h₃ = 0 gets the one-layer step (1; 1⁴ | h₀).  **Filters the solver does not handle are
refused**, naming them: every filter with h₀ = 0 other than h = 0, and among the 192 filters with
h₀ ∈ {1, −2, 3} and h₁, h₂, h₃ ∈ {0, 1, −2, 3} the 21 with h₁ = h₂ = 0 ≠ h₃, with h₂ = h₃ = 0 ≠ h₁,
or h = h₀(1, 1, 1, 1); the other 171 are handled (3 by the one-layer step;
``tests/test_hyena_eight_rows.py``).  For the refused filters the claim stays open at N = 4.

Layers: 2 + Σ_{ℓ<L}(multiply ℓ + 3) at most: 4L − 2 for d = 1 and 5L − 3 for invertible W^ℓ.

>>> step = linear_step([(2, 1, 3, -1)], 2)
>>> [l.label for l in step]
['layer 2, linear step 1/3', 'layer 2, linear step 2/3', 'layer 2, linear step 3/3']
"""
from __future__ import annotations

import sympy

from ..hyena import HyenaStack
from ..model import HypothesisError, Stack
from .hyena import _check_model
from .hyena_2n_rows import masked_layers, quotient_taps, route_on_2n_rows, step_target
from .hyena_2n_rows import step_matrix as _matrix
from .params import rational

__all__ = ["RATIOS", "baseconv_on_eight_rows", "linear_step", "unit_masks"]

WHY_H = "the eight-row route's linear step is solved from the filter's taps, so the filter must be numeric"
N = 4
#: the (ρ₁, ρ₂) pairs tried, in order
RATIOS = tuple((sympy.Rational(a), sympy.Rational(b)) for a, b in
               ((1, 2), (2, -1), ("1/2", 3), (-1, 3), (3, 1), (-2, 1), (2, 1), (1, -1)))


def unit_masks(h: tuple, r1, r2):
    """Masks (ε₁, ε₂, γ) of the bottom block (N entries each, ε₁₀ = ε₂₀ = 1) with
    D_γ·A₂⁻¹D_{ε₂}A₂·A₁⁻¹D_{ε₁}A₁ = T_h for ratios r1, r2 (module text), or None when this pair
    gives none.  Needs h₀ ≠ 0.

    >>> unit_masks((1, 0, 0, 0), 1, 2) is None    # h = 1: no solution with these ratios
    True
    """
    n, t, x, y = len(h), *sympy.symbols("t x y")
    g = quotient_taps((1, -r2), r1, n)          # (1 − r₂X)/(1 − r₁X)
    eta = quotient_taps(tuple(h), r1, n)        # h/(1 − r₁X)
    e1, e2, gp = [sympy.Integer(1)] * n, [sympy.Integer(1)] * n, [1 / sympy.Integer(h[0])] + [None] * (n - 1)
    extra = []
    for i in range(1, n):
        eqs = [sympy.expand(x * e1[j] * g[i - j] - y * eta[i - j] + r2 * gp[i - 1] * eta[i - 1 - j])
               for j in range(i)]
        A = sympy.Matrix([[e.coeff(x), e.coeff(y)] for e in eqs])
        c = sympy.Matrix([-e.subs({x: 0, y: 0}) for e in eqs])
        if i == 1:
            if A[0, 1] == 0:
                return None
            sol = (t, sympy.cancel((c[0] - A[0, 0] * t) / A[0, 1]))
        else:
            if sympy.cancel(A[:2, :].det()) == 0:
                return None
            v = A[:2, :].LUsolve(c[:2, :])
            sol = (sympy.cancel(v[0]), sympy.cancel(v[1]))
            extra += [sympy.numer(sympy.together(e.subs({x: sol[0], y: sol[1]}))) for e in eqs[2:]]
        e2[i], gp[i] = sol
        if e2[i] == 0:
            return None
        e1[i] = sympy.cancel(gp[i] * eta[0] / e2[i])
    extra = [sympy.expand(e) for e in extra if sympy.expand(e) != 0]
    if extra:
        P = sympy.Poly(sympy.gcd_list(extra) if len(extra) > 1 else extra[0], t)
        candidates = list(P.ground_roots()) if P.degree() > 0 else []
    else:
        candidates = [sympy.Integer(1), sympy.Integer(2)]
    for tv in candidates:
        try:
            vals = [[sympy.cancel(v.subs(t, tv)) if isinstance(v, sympy.Basic) else v for v in arr]
                    for arr in (e1, e2, gp)]
        except ZeroDivisionError:
            continue
        if any(not v.is_Rational for arr in vals for v in arr) or any(v == 0 for v in vals[2]):
            continue
        return tuple(vals[0]), tuple(vals[1]), tuple(1 / v for v in vals[2])
    return None


def _layers(r1, r2, masks) -> tuple:
    one = sympy.Integer(1)
    e1, e2, gamma = masks
    return (((one, -r1), (one,) * N + e1),
            (quotient_taps((1, -r2), r1, 2 * N), (one,) * N + e2),
            (quotient_taps((1,), r2, 2 * N), (one,) * N + gamma))


def step_matrix(layers) -> sympy.Matrix:
    """The 8×8 matrix of (filter, mask) pairs applied in order."""
    return _matrix(layers, 2 * N)



def _step_channel(h: tuple, where: str) -> tuple:
    one = sympy.Integer(1)
    if all(v == 0 for v in h[1:]):
        return (((one,), (one,) * N + (h[0],) * N),)
    if h[0] != 0:
        for r1, r2 in RATIOS:
            masks = unit_masks(h, r1, r2)
            if masks is not None:
                layers = _layers(r1, r2, masks)
                if step_matrix(layers) == step_target(h):
                    return layers
    raise HypothesisError(f"{where}: no linear step (u | z) -> (u | h * z) on 8 rows is known for h = "
                          f"({', '.join(map(str, h))}); the step solver handles most filters with h0 != 0, not "
                          f"h0 = 0, h1 = h2 = 0 != h3, h2 = h3 = 0 != h1 or h = h0(1, 1, 1, 1): open at N = 4")


def linear_step(h: list, ell: int) -> tuple:
    """The layers (u | z) ↦ (u | h * z) on 8 rows, one filter (h₀, h₁, h₂, h₃) per channel (module text)."""
    per = []
    for c, taps in enumerate(h):
        taps = tuple(sympy.Rational(rational(v, f"h (channel {c})", WHY_H)) for v in taps)
        if len(taps) != N:
            raise HypothesisError(f"h (channel {c}): the eight-row step takes 4 filter taps, got {len(taps)}")
        per.append(_step_channel(taps, f"h (channel {c}) of layer {ell}"))
    return masked_layers(per, ell, 2 * N)


def baseconv_on_eight_rows(model: HyenaStack) -> Stack:
    """Prop. H.12 (Hyena → BaseConv) for N = 4 on eight rows, for the filters the step handles (module text).

    >>> from symconv.hyena import HyenaLayer, HyenaStack
    >>> baseconv_on_eight_rows(HyenaStack(4, 1, (HyenaLayer([[2]], [[1]], [[1], [1]]),))).signature
    Signature(N=4, L=2, d=1, N_int=8, d_int=1)
    """
    _check_model(model)
    if model.N != N:
        raise HypothesisError(f"model.N: the eight-row route is for N = 4, got N = {model.N}")
    return route_on_2n_rows(model, N, linear_step, WHY_H)
