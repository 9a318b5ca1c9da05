"""Dimension certificates: how many parameters any polynomial parametrisation of a family needs.

A family of functions given by a polynomial map θ ↦ f_θ (θ ∈ F^P) has
dimension equal to the generic rank of its Jacobian ∂f/∂θ (taken on the
outputs at enough inputs, or on a matrix's entries).  The rank at any one
point is at most the generic rank, so a rank r found at a random point,
exactly over F_p, proves dim ≥ r over F_p; a rank over F_p is at most the rank
over ℚ of the same integer matrix, so it is also a proved lower bound on the
dimension over ℚ, ℝ or ℂ.  (The rank found can only fall short of the true
dimension, never exceed it.)

The image of a polynomial map from F^Q has dimension ≤ Q, so any
parametrisation of a family of dimension ≥ r (a BaseConv model of one
signature whose parameters realise every member, say) has ≥ r parameters.  A
BaseConv layer on an N'×d' state has d'² + 3N'd' parameters (W, h, b1, b2), so
realising the family at that state size needs L ≥ ⌈r / (d'² + 3N'd')⌉ layers
(:func:`layer_params`, :attr:`DimensionCertificate.layers_needed`).

The Jacobian is computed with dual numbers over F_p (:class:`Jet`: a value
and its derivative in every parameter), so it is exact.  Families are named
data (:data:`FAMILIES`): ``retnet`` (Section H.6: y from equation 6 and the
read-out, parameters W_A, W_C, W_V, γ), ``butterfly`` (Def. H.14: products of
the log₂ n butterfly factor matrices), ``kaleidoscope`` (Def. H.17:
(BB*)^w_e) and ``dense`` (all n×n matrices).

>>> c = DimensionCertificate.of("butterfly", {"n": 4})
>>> c.params, c.rank, c.check().lower
(16, 12, 12)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from ..exact import PRIME, check_prime
from ..model import HypothesisError, check_size
from .base import CertificateError


class Jet:
    """A value over F_p with its gradient in P parameters: ``v`` (shape S), ``g`` (shape S + (P,)).

    >>> x = Jet.variables(np.array([3, 5]), 7)
    >>> y = x * x
    >>> y.v.tolist(), y.g.tolist()
    ([2, 4], [[6, 0], [0, 3]])
    """

    __slots__ = ("v", "g", "p")

    def __init__(self, v: np.ndarray, g: np.ndarray, p: int) -> None:
        self.v, self.g, self.p = v % p, g % p, p

    @classmethod
    def variables(cls, values: np.ndarray, p: int) -> "Jet":
        v = np.asarray(values, dtype=np.int64).reshape(-1)
        return cls(v, np.eye(v.size, dtype=np.int64), p)

    @classmethod
    def const(cls, a: Any, P: int, p: int) -> "Jet":
        a = np.asarray(a, dtype=np.int64) % p
        return cls(a, np.zeros(a.shape + (P,), dtype=np.int64), p)

    @property
    def P(self) -> int:
        return self.g.shape[-1]

    def _lift(self, o: Any) -> "Jet":
        return o if isinstance(o, Jet) else Jet.const(o, self.P, self.p)

    def __getitem__(self, key: Any) -> "Jet":
        k = key if isinstance(key, tuple) else (key,)
        return Jet(self.v[k], self.g[k + (slice(None),)] if Ellipsis not in k else self.g[key], self.p)

    def reshape(self, *shape: int) -> "Jet":
        return Jet(self.v.reshape(*shape), self.g.reshape(*shape, self.P), self.p)

    @property
    def T(self) -> "Jet":
        return Jet(self.v.T, np.swapaxes(self.g, 0, 1), self.p)

    def __add__(self, o: Any) -> "Jet":
        o = self._lift(o)
        return Jet(self.v + o.v, self.g + o.g, self.p)

    __radd__ = __add__

    def __mul__(self, o: Any) -> "Jet":
        o = self._lift(o)
        return Jet(self.v * o.v, self.g * o.v[..., None] % self.p + o.g * self.v[..., None] % self.p, self.p)

    __rmul__ = __mul__

    def __matmul__(self, o: Any) -> "Jet":
        o = self._lift(o)
        return Jet(_mm(self.v, o.v, self.p), _mmg(self.g, o.v, self.p) + _mmg2(self.v, o.g, self.p), self.p)

    def __rmatmul__(self, o: Any) -> "Jet":
        return self._lift(o) @ self


def _mm(a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """a @ b mod p for residues < 2^31, without int64 overflow (16-bit limbs)."""
    lo, hi = b & 0xFFFF, b >> 16
    return ((a @ hi % p) * 65536 + a @ lo) % p


def _mmg(g: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:  # (m,k,P), (k,n) -> (m,n,P)
    return np.moveaxis(_mm(np.moveaxis(g, -1, 0), b, p), 0, -1)


def _mmg2(a: np.ndarray, g: np.ndarray, p: int) -> np.ndarray:  # (m,k), (k,n,P) -> (m,n,P)
    k, n, P = g.shape
    return _mm(a, g.reshape(k, n * P), p).reshape(a.shape[0], n, P)


def rank_mod(A: np.ndarray, p: int = PRIME) -> int:
    """Rank of an integer matrix over F_p (python-flint's nmod_mat when installed, else elimination).

    >>> rank_mod(np.array([[1, 2], [2, 4], [0, 1]]), 7)
    2
    """
    A = np.asarray(A, dtype=np.int64) % p
    try:
        import flint

        if A.size:
            return int(flint.nmod_mat(A.tolist(), p).rank())
        return 0
    except ImportError:
        pass
    A = A.copy()
    r = 0
    rows, cols = A.shape
    for c in range(cols):
        piv = np.flatnonzero(A[r:, c])
        if not piv.size:
            continue
        k = r + piv[0]
        A[[r, k]] = A[[k, r]]
        A[r] = A[r] * pow(int(A[r, c]), -1, p) % p
        f = A[:, c].copy()
        f[r] = 0
        A = (A - (f[:, None] * A[r][None, :]) % p) % p
        r += 1
        if r == rows:
            break
    return r


# ------------------------------------------------------------------ families


def _pow2(n: int, name: str) -> int:
    n = check_size(n, name, 2)
    if n & (n - 1):
        raise HypothesisError(f"{name}: must be a power of two >= 2, got {n}")
    return n


def _butterfly_factor(theta: Jet, n: int, k: int) -> Jet:
    """B_k^{(n)} from 2n parameters: n/k diagonal 2×2 blocks of diagonals (D1 D2; D3 D4), each k/2 long."""
    P, p = theta.P, theta.p
    M = Jet.const(np.zeros((n, n)), P, p)
    v, g = M.v.copy(), M.g.copy()
    h, t = k // 2, 0
    for blk in range(n // k):
        o = blk * k
        for a in range(h):
            for (r, c) in ((o + a, o + a), (o + a, o + a + h), (o + h + a, o + a), (o + h + a, o + a + h)):
                v[r, c] = theta.v[t]
                g[r, c] = theta.g[t]
                t += 1
    return Jet(v, g, p)


def _butterfly(theta: Jet, n: int) -> Jet:
    """B^{(n)} = B_n B_{n/2} ⋯ B_2 from 2n·log₂n parameters."""
    per = 2 * n
    out, t, k = None, 0, n
    while k >= 2:
        F = _butterfly_factor(theta[t: t + per], n, k)
        out = F if out is None else out @ F
        t, k = t + per, k // 2
    return out


def butterfly_params(n: int) -> int:
    return 2 * n * (n.bit_length() - 1)


def family_butterfly(s: Mapping[str, int]) -> tuple[int, Callable]:
    n = _pow2(s["n"], "n")
    return butterfly_params(n), lambda theta, rng: _butterfly(theta, n).reshape(n * n)


def family_kaleidoscope(s: Mapping[str, int]) -> tuple[int, Callable]:
    """(BB*)^w_e: the top-left n×n corner of E_w ⋯ E_1, each E_i = B·B'ᵀ of size en (Def. H.17)."""
    n, e, w = check_size(s["n"], "n"), check_size(s["e"], "e"), check_size(s["w"], "w")
    m = _pow2(n * e, "e·n")
    per = butterfly_params(m)

    def f(theta: Jet, rng) -> Jet:
        E, t = None, 0
        for _ in range(w):
            B1 = _butterfly(theta[t: t + per], m)
            B2 = _butterfly(theta[t + per: t + 2 * per], m)
            Ei = B1 @ B2.T
            E = Ei if E is None else Ei @ E
            t += 2 * per
        return E[:n, :n].reshape(n * n) if e > 1 else E.reshape(n * n)
    return 2 * w * per, f


def family_dense(s: Mapping[str, int]) -> tuple[int, Callable]:
    n = check_size(s["n"], "n")
    return n * n, lambda theta, rng: theta


def family_retnet(s: Mapping[str, int]) -> tuple[int, Callable]:
    """Section H.6: y[n,:] = C[n,:]·z^n, z^n = γ z^{n−1} + A[n,:]ᵀV[n,:], A = uW_A, C = uW_C, V = uW_V.

    Parameters (W_A, W_C, W_V, γ): 3d² + 1; outputs at random inputs u (N×d)."""
    N, d = check_size(s["N"], "N"), check_size(s["d"], "d")
    P = 3 * d * d + 1
    points = -(-P // (N * d)) + 2

    def f(theta: Jet, rng) -> Jet:
        p = theta.p
        WA = theta[0: d * d].reshape(d, d)
        WC = theta[d * d: 2 * d * d].reshape(d, d)
        WV = theta[2 * d * d: 3 * d * d].reshape(d, d)
        gamma = theta[3 * d * d: P]
        outs = []
        for _ in range(points):
            u = rng.integers(0, p, (N, d))
            A, C, V = (Jet.const(u, P, p) @ W for W in (WA, WC, WV))
            z = Jet.const(np.zeros((d, d)), P, p)
            for i in range(N):
                g = Jet(np.broadcast_to(gamma.v, (d, d)).copy(), np.broadcast_to(gamma.g, (d, d, P)).copy(), p)
                z = g * z + A[i: i + 1].T @ V[i: i + 1]
                outs.append((C[i: i + 1] @ z).reshape(d))
        v = np.concatenate([o.v for o in outs])
        g = np.concatenate([o.g for o in outs])
        return Jet(v, g, p)
    return P, f


#: name → (sizes → (number of parameters, θ-jet, rng → output jet)); what each family is, in words.
FAMILIES = {
    "butterfly": (family_butterfly, "butterfly matrices B^{(n)} (Def. H.14), 2n·log₂n twiddles"),
    "kaleidoscope": (family_kaleidoscope, "(BB*)^w_e (Def. H.17), 4·w·en·log₂(en) twiddles"),
    "dense": (family_dense, "all n×n matrices"),
    "retnet": (family_retnet, "RetNet y(u) (Section H.6, eq. 6 and the read-out), W_A, W_C, W_V and γ"),
}


def family_rank(family: str, sizes: Mapping[str, int], p: int = PRIME, seed: int = 0) -> tuple[int, int]:
    """(parameters, rank of the Jacobian at a random point over F_p) of a named family."""
    if family not in FAMILIES:
        raise HypothesisError(f"family: unknown family {family!r}; known: {sorted(FAMILIES)}")
    p = check_prime(p)
    if not isinstance(sizes, Mapping):
        raise HypothesisError(f"sizes: expected a mapping of size names to integers, got {type(sizes).__name__}")
    try:
        P, f = FAMILIES[family][0](dict(sizes))
    except KeyError as e:
        raise HypothesisError(f"sizes: the {family} family needs the size {e.args[0]!r}, got {sorted(sizes)}") from None
    from ..budget import require

    # every value carries a gradient of P entries, and the Jacobian has at least P rows to reach rank P
    require(2 * 8 * P * P, f"sizes: the Jacobian of the {family} family at {dict(sizes)} ({P} parameters)")
    rng = np.random.default_rng(seed)
    theta = Jet.variables(rng.integers(0, p, P), p)
    out = f(theta, rng)
    J = out.g.reshape(-1, P)
    return P, rank_mod(J, p)


def layer_params(N_int: int, d_int: int) -> int:
    """Parameters of one BaseConv layer on an N'×d' state: W (d'²), h, b1, b2 (N'd' each).

    >>> layer_params(4, 2)
    28
    """
    N_int, d_int = check_size(N_int, "N_int"), check_size(d_int, "d_int")
    return d_int * d_int + 3 * N_int * d_int


@dataclass(frozen=True)
class DimensionCertificate:
    """The family ``family`` at ``sizes`` has dimension ≥ ``rank`` (Jacobian rank at a random point mod p).

    ``params``: the family's own parameter count; ``lower`` = ``rank`` bounds the
    parameters of any polynomial parametrisation of the family.  With ``N_int``
    and ``d_int`` the certificate also bounds layers: ``layers_needed``.
    ``formula``/``formula_proof``: an all-sizes lower bound proved by hand, when
    one is given (checked against ``rank`` at these sizes).
    """

    family: str
    sizes: tuple
    params: int
    rank: int
    p: int = PRIME
    seed: int = 0
    N_int: int | None = None
    d_int: int | None = None
    formula: str = ""
    formula_value: int | None = None
    quantity: str = "parameters"
    kind: str = "dimension"

    @classmethod
    def of(cls, family: str, sizes: Mapping[str, int], p: int = PRIME, seed: int = 0, N_int: int | None = None,
           d_int: int | None = None, formula: str = "", formula_value: int | None = None) -> "DimensionCertificate":
        P, r = family_rank(family, sizes, p, seed)
        q = "L" if N_int is not None else "parameters"
        return cls(family, tuple(sorted(dict(sizes).items())), P, r, p, seed, N_int, d_int, formula,
                   formula_value, q)

    @property
    def lower(self) -> int:
        return self.layers_needed if self.quantity == "L" else self.rank

    @property
    def layers_needed(self) -> int | None:
        """⌈rank / (d'² + 3N'd')⌉: layers any BaseConv model on N'×d' realising the family needs."""
        if self.N_int is None or self.d_int is None:
            return None
        return -(-self.rank // layer_params(self.N_int, self.d_int))

    @property
    def proves(self) -> str:
        sz = ", ".join(f"{k} = {v}" for k, v in self.sizes)
        text = (f"the {FAMILIES[self.family][1]} at {sz} form a family of dimension ≥ {self.rank} (Jacobian rank "
                f"at a random point over F_p, p = {self.p}, seed {self.seed}; {self.params} parameters): any "
                f"polynomial parametrisation of it has ≥ {self.rank} parameters")
        if self.layers_needed is not None:
            text += (f"; at N' = {self.N_int}, d' = {self.d_int} a layer has {layer_params(self.N_int, self.d_int)}, "
                     f"so L ≥ {self.layers_needed}")
        if self.formula:
            text += f"; for all sizes, by hand: {self.formula}"
        return text

    def check(self) -> "DimensionCertificate":
        P, r = family_rank(self.family, dict(self.sizes), self.p, self.seed)
        if (P, r) != (self.params, self.rank):
            raise CertificateError(f"DimensionCertificate: recorded rank {self.rank} of {self.params} parameters, "
                                   f"recomputed {r} of {P}")
        if self.rank > self.params:
            raise CertificateError("DimensionCertificate: a rank above the parameter count")
        if self.formula_value is not None and self.formula_value > self.rank:
            raise CertificateError(f"DimensionCertificate: the hand bound {self.formula_value} exceeds the rank "
                                   f"{self.rank} found here")
        return self
