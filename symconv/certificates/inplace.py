"""No in-place channel factor from W layers with polynomial parameters (Lemma H.16/H.18, d' = d).

Class.  Stacks whose every layer has h = 0, i.e. ``(u·W + b1) ⊙ b2`` (one W
shared by all rows, biases per entry), any number of layers, any N', on d'
channels, with every parameter a *polynomial* in the entries of the target
factor matrix B_k^(nd), k ≤ d (a channel factor: each of the n rows of u
holds d/2 pairs j ↔ j XOR k/2).

Statement.  For n ≥ 2 rows, no stack of that class computes B_k^(nd)·x with
d' = d.  (symconv's d' = 3d route is in the class, so d' ≥ d + 1 is the bound
here; :mod:`symconv.constructions.inplace` reaches d' = d with *rational*
parameters, outside the class.)

Proof, whose algebraic premises :meth:`WOnlyInPlaceCertificate.check`
recomputes.  Specialise every pair but pair 0 of each row to the identity
block; the parameters stay polynomials.  The layers act row by row, so the
linear part on row r is G_r = Λ_{r,L} W_L ⋯ Λ_{r,1} W_1 (Λ diagonal), and
Π_r det G_r = Π_i (det W_i)^n · Π_{r,i} det Λ_{r,i}.  (i) The left side is the
product of the n pair determinants Δ_r = a_r e_r − b_r c_r, irreducible and
distinct, so it is square-free; n ≥ 2 forces every det W_i to be a non-zero
constant (W_i is invertible over the polynomial ring), and then each row's
diagonal entries multiply to c·Δ_r: all are constants but one, c'·Δ_r.  So
G_r = U·diag(1, …, Δ_r, …, 1)·V with U, V invertible, whose ideal of
(d−1)-minors is the unit ideal.  (ii) The target blockdiag(G, I) has the ideal
of (d−1)-minors (a, b, c, e): all of them vanish at a = b = c = e = 0, so it
is proper.  Ideals of minors are unchanged by invertible factors:
contradiction.  Circular filters (det of a circulant factors further) and
quadratic layers are outside the class; the certificate says nothing there.

>>> WOnlyInPlaceCertificate(n=2, d=2, k=2).check().lower
3
"""
from __future__ import annotations

from dataclasses import dataclass, field
import sympy

from ..model import HypothesisError, check_size
from .base import CertificateError

CLASS = ("layers (u·W + b1) ⊙ b2 (h = 0), any L and N', parameters polynomial in the factor's entries")


def _pow2(v: int, name: str, minimum: int) -> int:
    v = check_size(v, name, minimum)
    if v & (v - 1):
        raise HypothesisError(f"{name}: must be a power of two >= {minimum}, got {v}")
    return v


def _premises(n: int, d: int, k: int) -> tuple:
    """(square-free: bool, proper: bool) for the specialised target on n rows of d channels."""
    a = [sympy.Symbol(f"a{r}") for r in range(n)]
    b = [sympy.Symbol(f"b{r}") for r in range(n)]
    c = [sympy.Symbol(f"c{r}") for r in range(n)]
    e = [sympy.Symbol(f"e{r}") for r in range(n)]
    dets = [sympy.expand(a[r] * e[r] - b[r] * c[r]) for r in range(n)]
    _, factors = sympy.factor_list(sympy.Mul(*dets))
    square_free = len(factors) == n and all(m == 1 for _, m in factors)
    s = k // 2
    G = sympy.eye(d)
    G[0, 0], G[0, s], G[s, 0], G[s, s] = a[0], b[0], c[0], e[0]   # pair (0, s) of row 0; the rest identity
    zero = {a[0]: 0, b[0]: 0, c[0]: 0, e[0]: 0}
    proper = all(G.extract([i for i in range(d) if i != p], [j for j in range(d) if j != q]).det().subs(zero) == 0
                 for p in range(d) for q in range(d))
    return square_free, proper


@dataclass(frozen=True)
class WOnlyInPlaceCertificate:
    """d' ≥ d + 1 for B_k^(nd) (k ≤ d, n ≥ 2) within :data:`CLASS`; ``check()`` recomputes the premises.

    Fields: the sizes n, d, k; ``square_free`` (premise i) and ``proper``
    (premise ii) as recorded; ``quantity``, ``lower``, ``proves``, ``kind``.
    """

    n: int
    d: int
    k: int
    square_free: bool | None = None
    proper: bool | None = None
    quantity: str = "d'"
    kind: str = "algebraic"
    lower: int = field(init=False)
    proves: str = field(init=False)

    def __post_init__(self) -> None:
        _pow2(self.n, "n", 2)
        _pow2(self.d, "d", 2)
        _pow2(self.k, "k", 2)
        if self.k > self.d:
            raise HypothesisError(f"k: a channel factor needs k <= d, got k = {self.k} > d = {self.d}")
        if self.square_free is None or self.proper is None:
            sf, pr = _premises(self.n, self.d, self.k)
            object.__setattr__(self, "square_free", sf)
            object.__setattr__(self, "proper", pr)
        object.__setattr__(self, "lower", self.d + 1)
        object.__setattr__(self, "proves", (
            f"no stack of {CLASS} computes B_{self.k}^({self.n * self.d}) on u ∈ R^{{{self.n}×{self.d}}} "
            f"with d' = {self.d}: d' >= {self.d + 1} in that class (premises: the {self.n} pair determinants "
            f"are distinct irreducibles; the (d−1)-minors of blockdiag(G, I) vanish at G = 0)"))

    def check(self) -> "WOnlyInPlaceCertificate":
        """Recompute both premises; raise CertificateError when a recorded one differs or fails."""
        sf, pr = _premises(self.n, self.d, self.k)
        if (sf, pr) != (self.square_free, self.proper):
            raise CertificateError(f"WOnlyInPlaceCertificate: recorded premises {(self.square_free, self.proper)}, "
                                   f"recomputed {(sf, pr)}")
        if not (sf and pr):
            raise CertificateError(f"WOnlyInPlaceCertificate: a premise fails at n = {self.n}, d = {self.d}, "
                                   f"k = {self.k} (square-free {sf}, proper ideal {pr})")
        return self
