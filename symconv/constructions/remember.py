"""Prop. H.10: remember(y : x, v, h, p), as printed and corrected.

Input layout (both constructions): y ∈ R^{N×d} is
``(x | 0^s | v | 0^{N−n−s−m})``: x (n rows) at row 0, v (m rows) at row n+s,
zeros everywhere else (the layout behind the proof's y(X) = v(X)·X^{n+s} + x(X)).
h ∈ R^{n×d} is a filter, p ∈ R^{(n+s)×d} a gate; both are layer parameters,
numbers or sympy expressions.

Output layout: ``(p ⊙ (h ∗ x) | v | 0^{N−n−s−m})``, where h ∗ x means the
first n+s coefficients of h(X)·x(X) in every channel (the statement's
"x ∗ h ∈ R^{n+s}"; it is the whole product exactly when s ≥ n − 1).  So x is
replaced by its gated convolution and v stays where it was.

:func:`remember` (symconv's construction) is two layers on an N'×d state:

1. causal: filter h(X) + X^k, gate ``(p | 0 | 1^m on rows [c, c+m) | 0)``,
   with c = n + s + k; this keeps p ⊙ (h ∗ x) in rows [0, n+s) and a clean copy
   of v in rows [c, c+m), clear of h ∗ v (rows [n+s, 2n+s+m−1)) and of the
   copy x·X^k (rows [k, k+n));
2. circular: filter 1 + X^{N'−k}, gate ``(1^{n+s+m} | 0)``; the copy of v comes
   round to rows [n+s, n+s+m), the wrapped copy of p ⊙ (h ∗ x) lands in
   rows [N'−k, N'−k+n+s), which are masked.

It uses c = max(2n+s+m−1, 2n+2s) and works exactly when

    N' ≥ required_length(n, m, s) = max(2n + s + 2m − 1, 2n + 2s + m)

(the smallest N' for which any offset k of this two-layer family works, found
by an exact sweep in proofs/h10_remember.py).  With ``N_int=None`` it uses
N' = N and needs N itself that large.  t plays no part in it, so Prop. H.10's
hypothesis n + m + s + t ≤ N is enough exactly when t ≥ max(n+m−1, n+s);
otherwise pass a larger ``N_int``.  Layer 1 is causal, layer 2 circular.

:func:`remember_as_printed` builds the proof's five layers literally:
h¹ = h(X) + X^{n+m+s+t}, b¹₁ = (p | 0^{m+t} | 0^n | 0^s | 1^m | 0…) (causal);
h² = 1 + X^{n+m+s+t}, b²₁ = (0^{n+s} | 0^{m+t} | 0^n | 1^{n+s} | 1^m | 0…)
(causal); then Prop. H.8's three-layer shift_up by 2n+s+m+t (⊛ circular).
Blocks that reach past N are cut at N.  Both check Prop. H.10's hypotheses
(n + m + s + t ≤ N, p of length n + s, h of length n).

>>> from symconv.blocks import sym, zeros
>>> from symconv.symbolic import evaluate
>>> h, p = sym("h", 1).entries, sym("p", 1).entries
>>> y = sym("x", 1) | sym("v", 1) | zeros(3)
>>> evaluate(remember(5, 1, 1, 0, 0, h, p), y).entries[:, 0].tolist()
[h[0,0]*p[0,0]*x[0,0], v[0,0], 0, 0, 0]
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..model import HypothesisError, Layer, Stack, as_param
from ..parametric.algebra import X, fblock, pones, psym, pzeros
from ..parametric.check import PLayer, stack_at
from .params import gate_layer

__all__ = ["copy_offset", "remember", "remember_as_printed", "remember_family", "remember_layers", "required_length"]


def remember_hypotheses(n, m, s, t, N) -> tuple:
    """Prop. H.10's hypotheses, as data: n + m + s + t <= N, x∗h ∈ R^(n+s), v∗h ∈ R^(m+t).

    >>> from symconv.parametric import size
    >>> [h.text for h in remember_hypotheses(*(size(k) for k in "nmstN"))]
    ['n + m + s + t <= N', 's >= n - 1 (x∗h ∈ R^(n+s))', 't >= n - 1 (v∗h ∈ R^(m+t))']
    """
    from ..hypotheses import Hypothesis
    from ..parametric.linear import lin

    n, m, s, t, N = (lin(v) for v in (n, m, s, t, N))
    return (Hypothesis(n + m + s + t <= N), Hypothesis(s >= n - 1, why="x∗h ∈ R^(n+s)"),
            Hypothesis(t >= n - 1, why="v∗h ∈ R^(m+t)"))


def copy_rows(n, m, s) -> tuple:
    """The two candidate rows c of the copy of v, (2n+s+m−1, 2n+2s): c is their max (sizes symbols or ints).

    Below the first, v's copy would meet h ∗ v; below the second, the copy x·X^k.
    """
    return (2 * n + s + m - 1, 2 * n + 2 * s)


def length_bounds(n, m, s) -> tuple:
    """The internal lengths :func:`remember` needs, one per candidate copy row: c + m for each c of
    :func:`copy_rows`, i.e. (2n+s+2m−1, 2n+2s+m); N' must reach their max.

    This is the one source of the size condition: :func:`required_length`, :func:`fits_hypothesis`
    and the all-sizes description (:mod:`symconv.parametric.remember`) all derive from it.
    """
    return tuple(c + m for c in copy_rows(n, m, s))


def required_length(n: int, m: int, s: int) -> int:
    """The internal length N' that :func:`remember` needs: max(2n+s+2m−1, 2n+2s+m).

    >>> required_length(2, 2, 0), required_length(1, 1, 3)
    (7, 9)
    """
    _sizes(n=n, m=m, s=s)
    return max(length_bounds(n, m, s))


def fits_hypothesis(n, m, s, N):
    """N >= max(2n+s+2m−1, 2n+2s+m) as a Hypothesis (for remember at N' = N), from :func:`length_bounds`.

    >>> from symconv.parametric import size
    >>> fits_hypothesis(*(size(k) for k in "nmsN")).text
    'N >= 2n + s + 2m - 1, N >= 2n + 2s + m (N >= max(2n+s+2m-1, 2n+2s+m))'
    """
    from ..hypotheses import Hypothesis
    from ..parametric.linear import lin

    a, b = (lin(v) for v in length_bounds(n, m, s))
    return Hypothesis(lin(N) >= a, lin(N) >= b, why="N >= max(2n+s+2m-1, 2n+2s+m)")


def _sizes(**sizes: Any) -> None:
    for name, v in sizes.items():
        lo = 1 if name in ("n", "m", "N", "d") else 0
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < lo:
            raise HypothesisError(f"{name}: must be an integer >= {lo}, got {v!r}")


def _check(N: int, n: int, m: int, s: int, t: int, h: Any, p: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Prop. H.10's hypotheses; returns h (n×d) and p ((n+s)×d) as arrays."""
    _sizes(N=N, n=n, m=m, s=s, t=t, d=d)
    if n + m + s + t > N:
        raise HypothesisError(
            f"N: Prop. H.10 needs n + m + s + t <= N, got {n}+{m}+{s}+{t} = {n + m + s + t} > N = {N}"
        )
    h = as_param(h, "h")
    p = as_param(p, "p")
    if h.shape != (n, d):
        raise HypothesisError(f"h: the filter must be n×d = {(n, d)} (h ∈ R^(n×d)), got {h.shape}")
    if p.shape != (n + s, d):
        raise HypothesisError(
            f"p: the gate must be (n+s)×d = {(n + s, d)} (p ∈ R^((n+s)×d)), got {p.shape}"
        )
    return h, p


def remember_layers(n, m, s, M, k) -> tuple:
    """The two layers of the family behind :func:`remember`, with sizes as symbols or integers.

    Layer 1 (causal): (p | 0 | 1^m at row c = n+s+k | 0) ⊙ ((h + X^k) * y);
    layer 2 (circular): (1^{n+s+m} | 0) ⊙ ((1 + X^{M−k}) ⊛ z¹).  ``h`` (n rows) and
    ``p`` (n+s rows) are named blocks: symbols, or the values given to :func:`stack_at`.
    This is the one source of the construction: the all-sizes proof
    (:mod:`symconv.parametric.remember`) and the concrete stacks both use it.
    """
    c = n + s + k
    layer1 = PLayer(fblock("h", n) + X**k, psym("p", n + s) | pzeros(c - n - s) | pones(m) | pzeros(M - c - m),
                    label="(p | 0 | 1^m at c) ⊙ ((h + X^k) * y)")
    layer2 = PLayer(1 + X**(M - k), pones(n + s + m) | pzeros(M - n - s - m), conv="circular",
                    label="(1^{n+s+m} | 0) ⊙ ((1 + X^{N'-k}) ⊛ z¹)")
    return (layer1, layer2)


def copy_offset(n, m, s):
    """The copy offset k = c − n − s of :func:`remember`, c = max(2n+s+m−1, 2n+2s) (integers)."""
    return max(copy_rows(n, m, s)) - n - s


def remember_family(N_int: int, n: int, m: int, s: int, k: int, h: Any, p: Any, d: int = 1,
                    N: int | None = None) -> Stack:
    """The two-layer family behind :func:`remember`, for any copy offset 1 ≤ k < N'.

    Layer 1 (causal) keeps p ⊙ (h ∗ x) and v·X^k; layer 2 (circular) brings the copy
    of v back by N' − k.  It computes remember only for suitable (N', k); this is the
    family the size sweep of Prop. H.10 searches.

    >>> remember_family(7, 2, 2, 0, 3, [[1], [2]], [[1], [1]]).L
    2
    """
    N = N_int if N is None else N
    _sizes(N_int=N_int, n=n, m=m, s=s, d=d)
    c = n + s + k
    if not isinstance(k, (int, np.integer)) or not 1 <= k < N_int or c + m > N_int:
        raise HypothesisError(
            f"k: the copy of v at rows [n+s+k, n+s+k+m) must fit in N' = {N_int} with 1 <= k < N'; got k = {k!r}"
        )
    return stack_at(remember_layers(n, m, s, N_int, k), N, N_int, d=d, values={"h": h, "p": p},
                    name=f"remember(n={n}, m={m}, s={s}; k={k})")


def remember(N: int, n: int, m: int, s: int, t: int, h: Any, p: Any, d: int = 1,
             N_int: int | None = None) -> Stack:
    """Prop. H.10, corrected: (x | 0^s | v | 0) ↦ (p ⊙ (h ∗ x) | v | 0) in two layers.

    See the module docstring for the layouts.  Needs n + m + s + t ≤ N (the
    proposition's hypothesis) and N' = ``N_int`` (default N) at least
    :func:`required_length` (n, m, s).

    >>> remember(7, 2, 2, 0, 0, [[1], [1]], [[1], [1]]).signature
    Signature(N=7, L=2, d=1, N_int=7, d_int=1)
    """
    h, p = _check(N, n, m, s, t, h, p, d)
    N_int = N if N_int is None else N_int
    _sizes(N_int=N_int)
    if N_int < N:
        raise HypothesisError(f"N_int: internal length N' = {N_int} is below N = {N}")
    need = required_length(n, m, s)
    if N_int < need:
        raise HypothesisError(
            f"N_int: remember needs N' >= max(2n+s+2m-1, 2n+2s+m) = {need} for n={n}, m={m}, s={s}; "
            f"got N' = {N_int} (pass a larger N_int)"
        )
    st = remember_family(N_int, n, m, s, copy_offset(n, m, s), h, p, d, N=N)
    return Stack(N, d, st.layers, N_int, d, name=f"remember(n={n}, m={m}, s={s}, t={t})")


def printed_shift(n: int, m: int, s: int, t: int) -> int:
    """The amount 2n + s + m + t by which the printed proof shifts z² up."""
    return 2 * n + s + m + t


def remember_as_printed(N: int, n: int, m: int, s: int, t: int, h: Any, p: Any, d: int = 1,
                        shift_up: str = "H.8") -> Stack:
    """Prop. H.10's five layers exactly as printed (blocks cut at N).

    The layers are those of the printed route
    :func:`symconv.parametric.printed.remember_route` (the one source, which the
    repair search edits), instantiated with h and p; where the printed blocks reach
    past N (the hypothesis n + m + s + t <= N allows it) they are cut at N, as the
    printed state would be.  ``shift_up="H.8"`` ends with Prop. H.8's printed three
    layers (⊛ e_0, shift_down, ⊛ e_0); ``shift_up="working"`` ends with one working
    circular shift_up layer instead (three layers in all).

    >>> remember_as_printed(8, 1, 1, 0, 0, [[1]], [[1]]).L
    5
    """
    from ..parametric.printed import remember_route

    h, p = _check(N, n, m, s, t, h, p, d)
    if shift_up not in ("H.8", "working"):
        raise HypothesisError(f"shift_up: expected 'H.8' or 'working', got {shift_up!r}")
    amount = printed_shift(n, m, s, t)
    route = remember_route({"n": n, "m": m, "s": s, "t": t, "N": max(N, amount)}, shift_up)
    values = {"h": h, "p": p}
    layers = [_cut_layer(rl, N, d, values) for rl in route.layers[:2]]
    if shift_up == "working" and amount >= N:
        layers.append(gate_layer(np.zeros((1, d), dtype=int).astype(object), [[0]], 0, d=d,
                                 label=f"shift_up by {amount} >= N: zero"))
    elif shift_up == "working":
        layers += list(stack_at(tuple(l.player(N) for l in remember_route(
            {"n": n, "m": m, "s": s, "t": t, "N": N}, shift_up).layers[2:]), N, N, d=d).layers)
    else:
        layers += [_cut_layer(rl, N, d, values) for rl in route.layers[2:]]
    return Stack(N, d, tuple(layers), name=f"remember as printed (shift_up: {shift_up})")


def _cut_layer(rl, N: int, d: int, values: dict) -> Layer:
    """A printed layer at concrete sizes with its bias columns and causal filter cut at N rows."""
    from ..parametric.check import _constant_column, filter_taps, instantiate

    cols = {}
    for name in ("b1", "b2"):
        col = getattr(rl, name)
        seq = col.pseq(max(N, col.total().at({})))
        arr = _constant_column(seq, {})
        arr = instantiate(seq, {}, d, {k: as_param(v, k) for k, v in values.items()}) if arr is None else arr
        cols[name] = arr if arr.shape[0] == 1 else arr[:N]
    f = rl.h[0].pfilter()
    for term in rl.h[1:]:
        f = f + term.pfilter()
    taps = filter_taps(f, {}, d, {k: as_param(v, k) for k, v in values.items()})
    taps = taps[:N] if rl.conv == "causal" else taps
    if not taps.shape[0]:
        taps = np.zeros((1, d), dtype=int).astype(object)
    return Layer(W=np.zeros((d, d), dtype=int).astype(object), h=taps, b1=cols["b1"], b2=cols["b2"],
                 conv=rl.conv, label=rl.label)
