"""Prop. H.10 with symbolic sizes: symconv's two-layer ``remember`` for all n, m, s, t, N.

The corrected construction (:func:`symconv.constructions.remember.remember`)
copies v out of the way with the filter h(X) + X^k and brings it back with a
circular 1 + X^{N'−k}, keeping p ⊙ (h ∗ x) in rows [0, n+s).  Its offsets are
maxima of sizes, c = max(2n+s+m−1, 2n+2s) and N' = max(N, 2n+s+2m−1,
2n+2s+m); both switch at s = m − 1, so :func:`describe` is a
:class:`~symconv.parametric.check.Cases` on s <= m − 1 (and on N' = N or not).

>>> from symconv.parametric import size
>>> d = describe({k: size(k) for k in ("n", "m", "s", "t", "N")})
>>> str(d.a), str(d.b)
('s', 'm - 1')
"""
from __future__ import annotations

from typing import Mapping

from .algebra import pconv, phad, psym, pzeros
from .check import Cases, Description, PStep
from .linear import Lin

__all__ = ["describe"]


def describe(z: Mapping[str, Lin], internal: str = "max") -> Cases:
    """The corrected ``remember`` with sizes ``z`` (n, m, s, t, N as symbols).

    ``internal="max"``: N' = max(N, 2n+s+2m−1, 2n+2s+m) (the proof's own
    hypothesis n + m + s + t <= N only); ``internal="N"``: N' = N, with
    N >= max(2n+s+2m−1, 2n+2s+m) as a hypothesis.

    The layers are :func:`symconv.constructions.remember.remember_layers` (one source);
    the hypotheses (n + m + s + t <= N, and for ``"N"`` the size condition) are the
    claim's, not the description's.

    >>> from symconv.parametric import size
    >>> str(describe({k: size(k) for k in ("n", "m", "s", "t", "N")}, "N").le.N_int)
    'N'
    """
    if internal not in ("max", "N"):
        from ..model import HypothesisError

        raise HypothesisError(f"internal: expected 'max' or 'N', got {internal!r}")
    n, m, s, N = z["n"], z["m"], z["s"], z["N"]
    from ..constructions.remember import copy_rows, length_bounds, remember_layers

    def one(c: Lin, M: Lin) -> Description:
        x, v, p = psym("x", n), psym("v", m), psym("p", n + s)
        phx = phad(p, pconv(psym("h", n), x))            # p ⊙ (h ∗ x), n + s rows
        y = x | pzeros(s) | v | pzeros(N - n - s - m)
        z1 = phx | pzeros(c - n - s) | v | pzeros(M - c - m)
        out = phx | v | pzeros(N - n - s - m)
        return Description(y, remember_layers(n, m, s, M, c - n - s), out,
                           (PStep("z¹ = (p ⊙ (h∗x) | 0 | v at row c)", 1, z1),), N_int=M)

    def branch(c: Lin, need: Lin):
        if internal == "N":
            return one(c, N)
        return Cases(N, need, one(c, need), one(c, N))

    (c1, c2), (need1, need2) = copy_rows(n, m, s), length_bounds(n, m, s)
    return Cases(s, m - 1, branch(c1, need1), branch(c2, need2))
