"""Def. H.17 the kaleidoscope hierarchy as data, and Lemma H.18 compiled to BaseConv.

* :class:`BBStar`: M = M₁·M₂* for butterfly matrices M₁, M₂ (real entries, so
  M₂* = M₂ᵀ; B^ᵀ = B₂ᵀ ⋯ B_nᵀ is again a product of factor matrices).
* :class:`Kaleidoscope`: (BB*)^w_e: M = S·E·Sᵀ, the upper-left n×n corner of
  E = E_w ⋯ E₁ ∈ (BB*)^w acting on R^{en}.  ``terms`` lists E₁, …, E_w in the
  order they act (E₁ first); e = 1 is (BB*)^w itself.

Lemma H.18: for M ∈ (BB*)^w_e of size nd×nd and x the row-major form of
u ∈ R^{n×d}, the padded vector (x, 0) ∈ R^{end} is the row-major form of the
en×d state holding u in its top rows, so E's 2w·log(end) factor matrices are
compiled on an N' = en state (:func:`~symconv.constructions.butterfly.compile_factors`):
L = 2w·(log d + 2·log(en)) + 1 layers, d' = 3d.  With d' = d
(:func:`compile_kaleidoscope_narrow`) the spare room is en more rows:
L = 2w·(2·log d + 3·log(en)), N' = 2en.

>>> import numpy as np
>>> from symconv.numeric import run
>>> K = random_kaleidoscope(4, 2, 1, np.random.default_rng(0))
>>> u = np.arange(4.0).reshape(2, 2)
>>> bool(np.allclose(run(compile_kaleidoscope(K, 2, 2), u).ravel(), K.apply(u.ravel())))
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exact import keep_exact
from ..model import HypothesisError, Stack
from .butterfly import (Butterfly, check_pow2, compile_factors, compile_factors_narrow, log2,
                        narrow_layer_count, random_butterfly, symbolic_butterfly)


@dataclass(frozen=True, eq=False)
class BBStar:
    """M = M₁·M₂ᵀ with M₁, M₂ butterfly matrices of one size (Def. H.17).

    >>> M = BBStar(symbolic_butterfly(2, "a"), symbolic_butterfly(2, "b"))
    >>> len(M.applied())
    2
    """

    M1: Butterfly
    M2: Butterfly

    def __post_init__(self) -> None:
        for pname in ("M1", "M2"):
            if not isinstance(getattr(self, pname), Butterfly):
                raise HypothesisError(f"{pname}: expected a Butterfly, got {type(getattr(self, pname)).__name__}")
        if self.M1.n != self.M2.n:
            raise HypothesisError(f"M2: size {self.M2.n} differs from M1's {self.M1.n}")

    @property
    def n(self) -> int:
        return self.M1.n

    def applied(self) -> tuple:
        """Factor matrices in acting order: M₂ᵀ's (B_nᵀ first), then M₁'s (B₂ first)."""
        return self.M2.transpose_factors() + self.M1.applied()

    def apply(self, x: Any) -> Any:
        """Reference product M₁·(M₂ᵀ·x) over the last axis."""
        for f in self.applied():
            x = f.apply(x)
        return x

    def to_matrix(self) -> np.ndarray:
        return self.M1.to_matrix().dot(self.M2.to_matrix().T)


@dataclass(frozen=True, eq=False)
class Kaleidoscope:
    """M ∈ (BB*)^w_e: the upper-left n×n corner of E = E_w ⋯ E₁, each E_i ∈ BB* of size e·n.

    >>> K = Kaleidoscope(2, 2, (BBStar(symbolic_butterfly(4, "a"), symbolic_butterfly(4, "b")),))
    >>> (K.w, K.e, K.to_matrix().shape)
    (1, 2, (2, 2))
    """

    n: int
    e: int
    terms: tuple

    def __post_init__(self) -> None:
        check_pow2(self.n, "n")
        check_pow2(self.e, "e")
        terms = tuple(self.terms)
        if not terms:
            raise HypothesisError("terms: (BB*)^w needs w >= 1 factors in BB*")
        for i, t in enumerate(terms):
            if not isinstance(t, BBStar):
                raise HypothesisError(f"terms[{i}]: expected a BBStar, got {type(t).__name__}")
            if t.n != self.e * self.n:
                raise HypothesisError(f"terms[{i}]: size {t.n}, but E is e·n = {self.e * self.n} square")
        object.__setattr__(self, "terms", terms)

    @property
    def w(self) -> int:
        return len(self.terms)

    def factors(self) -> tuple:
        """All 2w·log(en) factor matrices of E, in acting order."""
        return tuple(f for t in self.terms for f in t.applied())

    def apply(self, x: Any) -> Any:
        """Reference product S·E·Sᵀ·x over the last axis (x of length n)."""
        x = keep_exact(x)
        if x.shape[-1] != self.n:
            raise HypothesisError(f"x: last axis {x.shape[-1]} but M is {self.n}×{self.n}")
        pad = np.zeros_like(x, shape=x.shape[:-1] + (self.e * self.n - self.n,))
        z = np.concatenate([x, pad], axis=-1)
        for t in self.terms:
            z = t.apply(z)
        return z[..., : self.n]

    def to_matrix(self) -> np.ndarray:
        E = self.terms[0].to_matrix()
        for t in self.terms[1:]:
            E = t.to_matrix().dot(E)
        return E[: self.n, : self.n]


def random_kaleidoscope(n: int, e: int, w: int, rng: np.random.Generator) -> Kaleidoscope:
    """M ∈ (BB*)^w_e of size n×n with butterfly entries uniform in [−1, 1]."""
    check_pow2(n, "n")
    check_pow2(e, "e")
    if not isinstance(w, int) or w < 1:
        raise HypothesisError(f"w: width must be a positive integer, got {w!r}")
    from ..budget import require

    require(2 * w * 16 * e * n * max(1, (e * n).bit_length() - 1),
            f"n: the {2 * w} random butterflies of size e·n = {e * n} of a kaleidoscope")
    terms = tuple(BBStar(random_butterfly(e * n, rng), random_butterfly(e * n, rng)) for _ in range(w))
    return Kaleidoscope(n, e, terms)


def symbolic_kaleidoscope(n: int, e: int, w: int, name: str = "k") -> Kaleidoscope:
    """M ∈ (BB*)^w_e with symbol entries ``{name}{i}a…`` / ``{name}{i}b…`` for term i."""
    check_pow2(n, "n")
    check_pow2(e, "e")
    if not isinstance(w, int) or w < 1:
        raise HypothesisError(f"w: width must be a positive integer, got {w!r}")
    terms = tuple(BBStar(symbolic_butterfly(e * n, f"{name}{i}a"), symbolic_butterfly(e * n, f"{name}{i}b"))
                  for i in range(w))
    return Kaleidoscope(n, e, terms)



def _check_fits(K: Any, n: int, d: int) -> None:
    """K is a Kaleidoscope whose nd×nd matrix acts on u ∈ R^{n×d}, n and d powers of two."""
    if not isinstance(K, Kaleidoscope):
        raise HypothesisError(f"K: expected a Kaleidoscope, got {type(K).__name__}")
    check_pow2(n, "n")
    check_pow2(d, "d")
    if K.n != n * d:
        raise HypothesisError(f"n, d: M is {K.n}×{K.n} but u is {n}×{d} (need n·d = {K.n})")


def compile_kaleidoscope(K: Kaleidoscope, n: int, d: int) -> Stack:
    """Lemma H.18: M·x for M ∈ (BB*)^w_e (nd×nd) on u ∈ R^{n×d}; N' = en, d' = 3d.

    >>> compile_kaleidoscope(symbolic_kaleidoscope(4, 2, 1), 2, 2).signature
    Signature(N=2, L=11, d=2, N_int=4, d_int=6)
    """
    _check_fits(K, n, d)
    return compile_factors(K.factors(), n, d, N_int=K.e * n, D=d, name=f"(BB*)^{K.w}_{K.e}")


def kaleidoscope_layer_count(n: int, d: int, e: int, w: int) -> int:
    """Layers of :func:`compile_kaleidoscope`: 2w·(log d + 2·log(en)) + 1.

    >>> kaleidoscope_layer_count(2, 2, 2, 1)
    11
    """
    return 2 * w * (log2(d) + 2 * log2(e * n)) + 1


def compile_kaleidoscope_narrow(K: Kaleidoscope, n: int, d: int) -> Stack:
    """Lemma H.18 with d' = d: M·x on N' = 2en rows (the factors of E on :func:`compile_factors_narrow`).

    >>> compile_kaleidoscope_narrow(symbolic_kaleidoscope(4, 2, 1), 2, 2).signature
    Signature(N=2, L=16, d=2, N_int=8, d_int=2)
    """
    _check_fits(K, n, d)
    return compile_factors_narrow(K.factors(), n, d, D=d, name=f"(BB*)^{K.w}_{K.e}, d' = d")


def kaleidoscope_narrow_layer_count(n: int, d: int, e: int, w: int) -> int:
    """Layers of :func:`compile_kaleidoscope_narrow`: 2w·(2·log d + 3·log(en)) (+1 when en = 1).

    >>> kaleidoscope_narrow_layer_count(2, 2, 2, 1)
    16
    """
    end = e * n * d
    one = [end >> t for t in range(log2(end))] + [2 << t for t in range(log2(end))]
    return narrow_layer_count(one * w, d)


def _pad_identity(B: Butterfly) -> Butterfly:
    """diag(B, I) as a butterfly of twice the size: B_2m = I, each smaller factor gets identity blocks."""
    from .butterfly import ButterflyFactorMatrix

    m = B.n
    factors = []
    ident = lambda k, count: np.tile(np.array([1, 0, 0, 1], dtype=object).reshape(1, 4, 1), (count, 1, k // 2))
    factors.append(ButterflyFactorMatrix(2 * m, 2 * m, ident(2 * m, 1)))
    for f in B.factors:
        D = np.concatenate([np.asarray(f.D, dtype=object), ident(f.k, m // f.k)], axis=0)
        factors.append(ButterflyFactorMatrix(2 * m, f.k, D))
    return Butterfly(2 * m, tuple(factors))


def double_expansion(K: Kaleidoscope) -> Kaleidoscope:
    """The same n×n matrix as an element of (BB*)^w_{2e}: each E_i becomes diag(E_i, I) (Def. H.17).

    So a stack with N' = 2en rows meets "N' = e′n" for the expansion e′ = 2e that M also has.

    >>> K = symbolic_kaleidoscope(2, 1, 1)
    >>> K2 = double_expansion(K)
    >>> K2.e, bool((K2.to_matrix() == K.to_matrix()).all())
    (2, True)
    """
    if not isinstance(K, Kaleidoscope):
        raise HypothesisError(f"K: expected a Kaleidoscope, got {type(K).__name__}")
    terms = tuple(BBStar(_pad_identity(t.M1), _pad_identity(t.M2)) for t in K.terms)
    return Kaleidoscope(K.n, 2 * K.e, terms)
