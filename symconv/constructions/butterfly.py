"""Def. H.14 butterflies as data, Prop. H.15, and Lemma H.16 compiled to BaseConv.

Data (Def. H.14).  A butterfly factor of size k is the 2×2 block matrix
[[D1, D2], [D3, D4]] of (k/2)×(k/2) diagonals.  A butterfly factor matrix
B_k^(n) (:class:`ButterflyFactorMatrix`) puts n/k such factors on the diagonal;
its entries are stored as an array ``D`` of shape (n/k, 4, k/2) holding the
diagonals of D1, D2, D3, D4 of each factor (numbers, or sympy symbols).  A
butterfly matrix B^(n) = B_n^(n) B_{n/2}^(n) ⋯ B_2^(n) is a :class:`Butterfly`.
Each has a plain reference product ``apply`` and a dense ``to_matrix``.

Shift direction.  ``shift_matrix(n, j)`` is S^j with (S^j x)_i = x_{i−j}: it
moves entries to later positions (down), zeros enter at the top; (S^j)ᵀ moves
them up.  Prop. H.15 as printed (B = S^{k/2} D₃ + D₂ S^{n/2} + D₁ with
d⁺ = (0, D2)) fails for every n = k ≥ 2 under either direction of S: D₂ is
zero on the top half of each block, so D₂·S^j has zero top rows whatever S^j
is, while B has D2 there.  What holds for all powers of two k ≤ n, with the
same d, d⁺, d⁻ taken block by block, is

    B_k^(n) = D₁ + S^{k/2} D₃ + (S^{k/2})ᵀ D₂          (S down).

Compilation (Lemma H.16).  x ∈ R^{nd} is the row-major form of u ∈ R^{n×d}
(x[i·d + j] = u[i, j]); n and d are powers of two.  A factor matrix B_k^(nd)
acts as y_q = d_q x_q + e_q x_{q XOR k/2}.  With s = k/2, the partner q XOR s
lies in the same row of u when s < d (a channel swap: a permutation W) and s/d
rows up or down when s ≥ d (a row shift: a circular convolution; no causal
stack can shift up).  The state has d' = 3d channels in three blocks whose sum
is the current vector; the input u sits in block 0.

* channel factor (s < d), one layer: (z·W) ⊙ b2 where W sums the blocks into
  block 0 and into block 1 with channels swapped j ↔ j XOR s; b2 = (d | e | 0).
* row factor (s = m·d), two layers: (z·W) ⊙ b2 puts (d ⊙ y | d⁻ ⊙ y | d⁺ ⊙ y)
  in the blocks, then 1 ⊙ (h ⊛ z) shifts block 1 down and block 2 up by m rows.
* one final layer (z·W) ⊙ 1 sums the blocks into block 0.

So B_k^(nd) takes 2 layers (k ≤ d) or 3 (k > d), and B^(nd) takes
log d + 2·log n + 1 layers, with N' = n and d' = 3d.

>>> import numpy as np
>>> from symconv.numeric import run
>>> B = random_butterfly(8, np.random.default_rng(0))
>>> u = np.arange(8.0).reshape(4, 2)
>>> bool(np.allclose(run(compile_butterfly(B, 4, 2), u).ravel(), B.apply(u.ravel())))
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import sympy

from ..exact import keep_exact
from ..model import HypothesisError, Layer, Stack


# ---------------------------------------------------------------- sizes

def is_pow2(v: Any) -> bool:
    """True for the integers 1, 2, 4, 8, ...

    >>> is_pow2(8), is_pow2(6), is_pow2(0)
    (True, False, False)
    """
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1 and (v & (v - 1)) == 0


def check_pow2(v: Any, pname: str, minimum: int = 1) -> int:
    """Return ``v`` if it is a power of two >= ``minimum``; raise a HypothesisError naming it.

    >>> check_pow2(4, "n")
    4
    """
    if not is_pow2(v) or v < minimum:
        raise HypothesisError(f"{pname}: must be a power of two >= {minimum} (Def. H.14), got {v!r}")
    return int(v)


def log2(v: int) -> int:
    """log₂ of a power of two.

    >>> log2(16)
    4
    """
    return check_pow2(v, "n").bit_length() - 1


def _param_array(values: Any, pname: str) -> np.ndarray:
    a = np.asarray(values)
    if a.dtype.kind in "USV":
        raise HypothesisError(f"{pname}: strings are not entries (got dtype {a.dtype})")
    if a.dtype.kind == "O":
        for v in a.flat:
            if isinstance(v, str):
                raise HypothesisError(f"{pname}: strings are not entries (never parsed), got {v!r}")
    elif a.dtype.kind not in "biuf":
        raise HypothesisError(f"{pname}: entries must be real numbers or sympy expressions, got {a.dtype}")
    a = a.copy()
    a.setflags(write=False)
    return a


# ---------------------------------------------------------------- data (Def. H.14)

@dataclass(frozen=True, eq=False)
class ButterflyFactorMatrix:
    """B_k^(n): n/k butterfly factors [[D1, D2], [D3, D4]] of size k on the diagonal (Def. H.14).

    ``D`` has shape (n/k, 4, k/2): ``D[b, t]`` is the diagonal of D_{t+1} in factor b.

    >>> F = ButterflyFactorMatrix(2, 2, [[[1], [2], [3], [4]]])
    >>> F.to_matrix().tolist()
    [[1, 2], [3, 4]]
    """

    n: int
    k: int
    D: Any

    def __post_init__(self) -> None:
        check_pow2(self.n, "n", 2)
        check_pow2(self.k, "k", 2)
        if self.k > self.n:
            raise HypothesisError(f"k: block size k = {self.k} exceeds n = {self.n} (need k <= n)")
        D = _param_array(self.D, "D")
        want = (self.n // self.k, 4, self.k // 2)
        if D.shape != want:
            raise HypothesisError(
                f"D: diagonals of B_{self.k}^({self.n}) need shape (n/k, 4, k/2) = {want}, got {D.shape}"
            )
        object.__setattr__(self, "D", D)

    @property
    def s(self) -> int:
        """The stride k/2: entry q is paired with q XOR k/2."""
        return self.k // 2

    def _vec(self, top: int | None, bottom: int | None) -> np.ndarray:
        zero = np.zeros_like(self.D[:, 0])
        a = self.D[:, top] if top is not None else zero
        b = self.D[:, bottom] if bottom is not None else zero
        return np.concatenate([a, b], axis=1).reshape(self.n)

    @property
    def d(self) -> np.ndarray:
        """(diag D1, diag D4) of every factor: the main diagonal (Prop. H.15's d)."""
        return self._vec(0, 3)

    @property
    def d_plus(self) -> np.ndarray:
        """(0^{k/2}, diag D2) of every factor (Prop. H.15's d⁺)."""
        return self._vec(None, 1)

    @property
    def d_minus(self) -> np.ndarray:
        """(diag D3, 0^{k/2}) of every factor (Prop. H.15's d⁻)."""
        return self._vec(2, None)

    @property
    def partner(self) -> np.ndarray:
        """e with y_q = d_q x_q + e_q x_{q XOR k/2}: (diag D2, diag D3) of every factor."""
        return self._vec(1, 2)

    def apply(self, x: Any) -> Any:
        """The reference product B_k^(n)·x over the last axis (numbers or objects).

        >>> ButterflyFactorMatrix(2, 2, [[[1], [2], [3], [4]]]).apply(np.array([1, 10])).tolist()
        [21, 43]
        """
        x = keep_exact(x)
        if x.shape[-1] != self.n:
            raise HypothesisError(f"x: last axis has length {x.shape[-1]}, B_k^(n) needs n = {self.n}")
        if x.dtype.kind in "bUS":
            raise HypothesisError(f"x: {x.dtype} entries are not numbers to multiply (dtype {x.dtype})")
        D = self.D
        # fixed-width integers would wrap around silently: multiply them exactly, as Python ints
        # (subclasses such as the field arrays of symconv.exact keep their own arithmetic)
        if type(x) is np.ndarray and x.dtype.kind in "iu" and D.dtype.kind in "iuO":
            x = x.astype(object)
        if D.dtype.kind in "iu" and (x.dtype == object or type(x) is np.ndarray and x.dtype.kind in "iu"):
            D = D.astype(object)
        lead = x.shape[:-1]
        xb = x.reshape(lead + (self.n // self.k, 2, self.s))
        top, bot = xb[..., 0, :], xb[..., 1, :]
        y_top = D[:, 0] * top + D[:, 1] * bot
        y_bot = D[:, 2] * top + D[:, 3] * bot
        return np.stack([y_top, y_bot], axis=-2).reshape(lead + (self.n,))

    def to_matrix(self) -> np.ndarray:
        """The dense n×n matrix (same dtype as ``D``)."""
        M = np.zeros((self.n, self.n), dtype=self.D.dtype)
        if M.dtype == object:
            M[...] = 0
        s = self.s
        for b in range(self.n // self.k):
            o = b * self.k
            for r in range(s):
                M[o + r, o + r] = self.D[b, 0, r]
                M[o + r, o + s + r] = self.D[b, 1, r]
                M[o + s + r, o + r] = self.D[b, 2, r]
                M[o + s + r, o + s + r] = self.D[b, 3, r]
        return M

    def transpose(self) -> "ButterflyFactorMatrix":
        """B_k^(n)ᵀ, again a butterfly factor matrix (D2 and D3 swap)."""
        return ButterflyFactorMatrix(self.n, self.k, self.D[:, [0, 2, 1, 3]])

    def scale_rows(self, c: Any) -> "ButterflyFactorMatrix":
        """diag(c)·B_k^(n), again a butterfly factor matrix.

        >>> ButterflyFactorMatrix(2, 2, [[[1], [2], [3], [4]]]).scale_rows([10, 1]).to_matrix().tolist()
        [[10, 20], [3, 4]]
        """
        c = np.asarray(c)
        if c.shape != (self.n,):
            raise HypothesisError(f"c: row scales for B_{self.k}^({self.n}) need length n = {self.n}, got shape {c.shape}")
        c = c.reshape(self.n // self.k, 2, self.s)
        D = np.stack([self.D[:, 0] * c[:, 0], self.D[:, 1] * c[:, 0],
                      self.D[:, 2] * c[:, 1], self.D[:, 3] * c[:, 1]], axis=1)
        return ButterflyFactorMatrix(self.n, self.k, D)


@dataclass(frozen=True, eq=False)
class Butterfly:
    """B^(n) = B_n^(n) B_{n/2}^(n) ⋯ B_2^(n) (Def. H.14); ``factors`` in that printed order.

    >>> B = symbolic_butterfly(2, "a")
    >>> B.apply(np.array([1, 0], dtype=object)).tolist()
    [a[0,0,0], a[0,2,0]]
    """

    n: int
    factors: tuple

    def __post_init__(self) -> None:
        check_pow2(self.n, "n", 2)
        fs = tuple(self.factors)
        want = [self.n >> t for t in range(log2(self.n))]
        if [getattr(f, "k", None) for f in fs] != want or any(
                not isinstance(f, ButterflyFactorMatrix) or f.n != self.n for f in fs):
            raise HypothesisError(
                f"factors: B^({self.n}) is B_n^(n)⋯B_2^(n), factor matrices of size {self.n} "
                f"with k = {want}; got k = {[getattr(f, 'k', None) for f in fs]}"
            )
        object.__setattr__(self, "factors", fs)

    def applied(self) -> tuple:
        """The factors in the order they act on x (B_2 first)."""
        return tuple(reversed(self.factors))

    def apply(self, x: Any) -> Any:
        """The reference product B^(n)·x over the last axis."""
        for f in self.applied():
            x = f.apply(x)
        return x

    def to_matrix(self) -> np.ndarray:
        M = self.factors[0].to_matrix()
        for f in self.factors[1:]:
            M = M.dot(f.to_matrix())
        return M

    def transpose_factors(self) -> tuple:
        """B*'s factor matrices in acting order: B^ᵀ = B_2ᵀ ⋯ B_nᵀ, so B_nᵀ acts first."""
        return tuple(f.transpose() for f in self.factors)


def _symbol_array(name: str, shape: tuple) -> np.ndarray:
    a = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        a[idx] = sympy.Symbol(f"{name}[{','.join(map(str, idx))}]")
    return a


def symbolic_factor(n: int, k: int, name: str = "b") -> ButterflyFactorMatrix:
    """B_k^(n) with symbol entries ``name[b,t,r]`` (factor b, diagonal D_{t+1}, index r).

    >>> symbolic_factor(4, 2, "f").D[1, 3, 0]
    f[1,3,0]
    """
    check_pow2(n, "n", 2)
    check_pow2(k, "k", 2)
    if k > n:
        raise HypothesisError(f"k: block size k = {k} exceeds n = {n}")
    return ButterflyFactorMatrix(n, k, _symbol_array(name, (n // k, 4, k // 2)))


def random_factor(n: int, k: int, rng: np.random.Generator) -> ButterflyFactorMatrix:
    """B_k^(n) with entries drawn uniformly from [−1, 1].

    >>> random_factor(8, 4, np.random.default_rng(0)).D.shape
    (2, 4, 2)
    """
    check_pow2(n, "n", 2)
    check_pow2(k, "k", 2)
    if k > n:
        raise HypothesisError(f"k: block size k = {k} exceeds n = {n}")
    return ButterflyFactorMatrix(n, k, rng.uniform(-1.0, 1.0, (n // k, 4, k // 2)))


def symbolic_butterfly(n: int, name: str = "b") -> Butterfly:
    """B^(n) with symbol entries; factor B_k gets the names ``{name}{k}`` (``name`` alone for n = 2)."""
    check_pow2(n, "n", 2)
    ks = [n >> t for t in range(log2(n))]
    return Butterfly(n, tuple(symbolic_factor(n, k, name if n == 2 else f"{name}{k}") for k in ks))


def random_butterfly(n: int, rng: np.random.Generator) -> Butterfly:
    """B^(n) with entries uniform in [−1, 1]."""
    check_pow2(n, "n", 2)
    from ..budget import require

    require(16 * n * log2(n), f"n: the {log2(n)} random butterfly factors of size n = {n}")
    return Butterfly(n, tuple(random_factor(n, n >> t, rng) for t in range(log2(n))))


# ---------------------------------------------------------------- Prop. H.15

def shift_matrix(n: int, j: int, dtype: Any = object) -> np.ndarray:
    """S^j (n×n) with (S^j x)_i = x_{i−j}: moves entries down by j, zeros enter at the top.

    >>> shift_matrix(3, 1, int).dot([1, 2, 3]).tolist()
    [0, 1, 2]
    """
    if not isinstance(j, int) or j < 0:
        raise HypothesisError(f"j: shift must be a non-negative integer, got {j!r}")
    S = np.zeros((n, n), dtype=dtype)
    if S.dtype == object:
        S[...] = 0
    for i in range(j, n):
        S[i, i - j] = 1
    return S


def diag_matrix(v: Any) -> np.ndarray:
    """diag(v) as an object matrix (exact or symbolic entries).

    >>> diag_matrix([1, 2]).tolist()
    [[1, 0], [0, 2]]
    """
    M = np.zeros((len(v), len(v)), dtype=object)
    M[...] = 0
    for i, x in enumerate(v):
        M[i, i] = x
    return M


def prop_h15_rhs(F: ButterflyFactorMatrix, direction: str = "down") -> np.ndarray:
    """S^{k/2} D₃ + D₂ S^{n/2} + D₁ as printed (D's of equation 5), S moving ``direction``.

    ``direction="up"`` uses Sᵀ in both places.  For n = k = 2 the D2 entry lands
    below the diagonal instead of above it:

    >>> prop_h15_rhs(symbolic_factor(2, 2, "b")).tolist()
    [[b[0,0,0], 0], [b[0,1,0] + b[0,2,0], b[0,3,0]]]
    """
    if direction not in ("down", "up"):
        raise HypothesisError(f"direction: expected 'down' or 'up', got {direction!r}")

    def S(j):
        M = shift_matrix(F.n, j)
        return M if direction == "down" else M.T
    D1, D2, D3 = diag_matrix(F.d), diag_matrix(F.d_plus), diag_matrix(F.d_minus)
    return S(F.k // 2).dot(D3) + D2.dot(S(F.n // 2)) + D1


def prop_h15_corrected(F: ButterflyFactorMatrix) -> np.ndarray:
    """D₁ + S^{k/2} D₃ + (S^{k/2})ᵀ D₂ (S down): equal to B_k^(n) for all powers of two k ≤ n.

    >>> prop_h15_corrected(symbolic_factor(2, 2, "b")).tolist()
    [[b[0,0,0], b[0,1,0]], [b[0,2,0], b[0,3,0]]]
    """
    S = shift_matrix(F.n, F.k // 2)
    return diag_matrix(F.d) + S.dot(diag_matrix(F.d_minus)) + S.T.dot(diag_matrix(F.d_plus))


def prop_h15_table(max_n: int = 16) -> list[dict]:
    """For n = 2, 4, …, max_n and each power of two k ≤ n: does each form equal B_k^(n)?

    Checked symbolically (entries are symbols), so "holds" means for all entries.

    >>> [r["holds"] for r in prop_h15_table(2) if r["form"] != "corrected"]
    [False, False]
    """
    out = []
    n = 2
    while n <= max_n:
        k = 2
        while k <= n:
            F = symbolic_factor(n, k)
            B = F.to_matrix()
            forms = {"as printed, S down": prop_h15_rhs(F, "down"),
                     "as printed, S up": prop_h15_rhs(F, "up"),
                     "corrected": prop_h15_corrected(F)}
            for form, M in forms.items():
                diff = [(i, j) for i in range(n) for j in range(n) if sympy.expand(M[i, j] - B[i, j]) != 0]
                out.append({"n": n, "k": k, "form": form, "holds": not diff,
                            "first_wrong_entry": diff[0] if diff else None})
            k *= 2
        n *= 2
    return out


# ---------------------------------------------------------------- layouts

def row_major(u: Any) -> Any:
    """x with x[..., i·d + j] = u[..., i, j].

    >>> row_major(np.arange(4).reshape(2, 2)).tolist()
    [0, 1, 2, 3]
    """
    u = keep_exact(u)
    return u.reshape(u.shape[:-2] + (u.shape[-2] * u.shape[-1],))


def from_row_major(x: Any, n: int, d: int) -> Any:
    """u ∈ R^{n×d} from its row-major form x (inverse of :func:`row_major`).

    >>> from_row_major(np.arange(4), 2, 2).tolist()
    [[0, 1], [2, 3]]
    """
    x = keep_exact(x)
    if x.shape[-1] != n * d:
        raise HypothesisError(f"x: length {x.shape[-1]} is not n·d = {n * d}")
    return x.reshape(x.shape[:-1] + (n, d))


# ---------------------------------------------------------------- compilation (Lemma H.16)

def _zeros(shape: tuple, symbolic: bool) -> np.ndarray:
    if symbolic:
        a = np.empty(shape, dtype=object)
        a[...] = 0
        return a
    return np.zeros(shape)


def _is_symbolic(factors: Sequence[ButterflyFactorMatrix]) -> bool:
    return any(f.D.dtype == object for f in factors)


def _grid(v: np.ndarray, R: int, D: int, N_int: int, symbolic: bool) -> np.ndarray:
    """A length-R·D vector laid out row-major on the first R rows of an N'×D array."""
    g = _zeros((N_int, D), symbolic)
    g[:R] = np.asarray(v).reshape(R, D)
    return g


def _sum_W(D: int, targets: Sequence[tuple[int, Any]], symbolic: bool,
           sources: Sequence[int] = (0, 1, 2)) -> np.ndarray:
    """3D×3D W: the source blocks, summed, are sent to each (target block, channel perm)."""
    W = _zeros((3 * D, 3 * D), symbolic)
    j = np.arange(D)
    for a in sources:
        for blk, perm in targets:
            W[a * D + perm, blk * D + j] = 1
    return W


def factor_layers(F: ButterflyFactorMatrix, D: int, N_int: int, symbolic: bool,
                  sources: Sequence[int] = (0, 1, 2)) -> list[Layer]:
    """The layers of one factor matrix on an N'×3D state whose three blocks sum to the vector.

    One layer when k/2 < D (channel swap through W), two when k/2 is a multiple of D (row shift).
    ``sources`` are the blocks the first layer reads (block 0 alone for the first factor).

    >>> [l.conv for l in factor_layers(symbolic_factor(4, 4), 2, 2, True)]
    ['causal', 'circular']
    """
    R = F.n // D
    s = F.s
    if s < D:
        j = np.arange(D)
        W = _sum_W(D, [(0, j), (1, j ^ s)], symbolic, sources)
        b2 = np.concatenate([_grid(F.d, R, D, N_int, symbolic), _grid(F.partner, R, D, N_int, symbolic),
                             _zeros((N_int, D), symbolic)], axis=1)
        return [Layer(W=W, h=_zeros((1, 3 * D), symbolic), b1=_zeros((1, 1), symbolic), b2=b2,
                      label=f"B_{F.k}: (z·W) ⊙ (d | e | 0), channels j ↔ j XOR {s}")]
    m = s // D
    j = np.arange(D)
    W = _sum_W(D, [(0, j), (1, j), (2, j)], symbolic, sources)
    b2 = np.concatenate([_grid(F.d, R, D, N_int, symbolic), _grid(F.d_minus, R, D, N_int, symbolic),
                         _grid(F.d_plus, R, D, N_int, symbolic)], axis=1)
    gate = Layer(W=W, h=_zeros((1, 3 * D), symbolic), b1=_zeros((1, 1), symbolic), b2=b2,
                 label=f"B_{F.k}: (z·W) ⊙ (d | d⁻ | d⁺)")
    h = _zeros((N_int - m + 1, 3 * D), symbolic)
    h[0, :D] = 1
    h[m, D:2 * D] = 1
    h[N_int - m, 2 * D:] = 1
    ones = _zeros((1, 1), symbolic)
    ones[0, 0] = 1
    shift = Layer(W=_zeros((3 * D, 3 * D), symbolic), h=h, b1=ones, b2=_zeros((1, 1), symbolic),
                  conv="circular", label=f"B_{F.k}: shift block 1 down, block 2 up by {m} rows")
    return [gate, shift]


def sum_layer(D: int, symbolic: bool) -> Layer:
    """(z·W) ⊙ 1 with W summing the three blocks into block 0 (blocks 1, 2 become 0).

    >>> sum_layer(1, False).W.tolist()
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    W = _sum_W(D, [(0, np.arange(D))], symbolic)
    ones = _zeros((1, 1), symbolic)
    ones[0, 0] = 1
    return Layer(W=W, h=_zeros((1, 3 * D), symbolic), b1=_zeros((1, 1), symbolic), b2=ones,
                 label="sum the blocks")


def factor_layer_count(k: int, D: int) -> int:
    """Layers of one factor matrix of block size k on a grid of width D: 1 if k/2 < D, else 2.

    >>> factor_layer_count(2, 4), factor_layer_count(16, 4)
    (1, 2)
    """
    return 1 if k // 2 < D else 2



def _checked_factors(factors: Any, n: int, d: int, D: int | None) -> tuple:
    """(factors as a tuple, grid width D, rows R) after checking that the factors are butterfly
    factor matrices of one length that fills a whole number R ≥ n of rows of width D ≥ d."""
    if isinstance(factors, (str, bytes)) or not hasattr(factors, "__iter__"):
        raise HypothesisError(f"factors: expected a sequence of ButterflyFactorMatrix, got {type(factors).__name__}")
    factors = tuple(factors)
    if not factors:
        raise HypothesisError("factors: need at least one butterfly factor matrix")
    D = d if D is None else D
    check_pow2(D, "D (grid width)")
    if D < d:
        raise HypothesisError(f"D: grid width {D} is below d = {d}")
    size = factors[0].n
    for i, f in enumerate(factors):
        if not isinstance(f, ButterflyFactorMatrix):
            raise HypothesisError(f"factors[{i}]: expected a ButterflyFactorMatrix, got {type(f).__name__}")
        if f.n != size:
            raise HypothesisError(f"factors[{i}]: size {f.n} differs from {size} (one vector length)")
    if size % D or size // D < n:
        raise HypothesisError(
            f"n: the vector of length {size} fills {size // D if size % D == 0 else size / D} rows of "
            f"width D = {D}; it must be a whole number of rows, at least n = {n}"
        )
    R = size // D
    return factors, D, R


def compile_factors(factors: Sequence[ButterflyFactorMatrix], n: int, d: int, N_int: int | None = None,
                    D: int | None = None, name: str = "butterfly factors", final_sum: bool = True,
                    fresh: bool = True) -> Stack:
    """A stack computing F_last ⋯ F_1·x for factor matrices given in acting order.

    The factors have size R·D: the vector is laid out row-major on the first R
    rows of an N'×D grid (D ≥ d a power of two, default d; R ≥ n).  The input
    u (n×d) sits in the top-left corner, so x is u's row-major form when D = d
    and R = n, or is zero-padded otherwise.  State: N'×3D, N' = R unless given.
    Layers: Σ factor_layer_count + 1.  The first layer reads block 0 (channels
    0..D−1) only; after the last layer the whole state is zero outside the
    vector's region of block 0.  ``final_sum=False`` leaves
    the last layer out (the three blocks then sum to the result), so that a
    long sequence can be built and run in pieces with the same layers; a piece
    after the first takes ``fresh=False`` (its first layer reads all blocks).

    >>> s = compile_factors([symbolic_factor(4, 4)], 2, 2)
    >>> s.signature
    Signature(N=2, L=3, d=2, N_int=2, d_int=6)
    """
    factors, D, R = _checked_factors(factors, n, d, D)
    N_int = R if N_int is None else N_int
    if not isinstance(N_int, (int, np.integer)) or N_int < R:
        raise HypothesisError(f"N_int: N' = {N_int} is below the {R} rows the vector needs")
    symbolic = _is_symbolic(factors)
    from ..budget import require

    require(len(factors) * 9 * N_int * 3 * D * (64 if symbolic else 8),
            f"n: the layers of {len(factors)} butterfly factors on an N' = {N_int}, d' = {3 * D} state")
    layers: list[Layer] = []
    for i, f in enumerate(factors):
        layers += factor_layers(f, D, N_int, symbolic, (0,) if i == 0 and fresh else (0, 1, 2))
    if final_sum:
        layers.append(sum_layer(D, symbolic))
    return Stack(n, d, tuple(layers), N_int, 3 * D, name=name)


def compile_butterfly_factor(F: ButterflyFactorMatrix, n: int, d: int) -> Stack:
    """Lemma H.16 (1): B_k^(nd)·x on u ∈ R^{n×d}; 2 layers if k ≤ d, else 3; N' = n, d' = 3d.

    >>> F = ButterflyFactorMatrix(4, 4, np.ones((1, 4, 2)))
    >>> compile_butterfly_factor(F, 2, 2).L
    3
    """
    if not isinstance(F, ButterflyFactorMatrix):
        raise HypothesisError(f"F: expected a ButterflyFactorMatrix, got {type(F).__name__}")
    _check_grid(F.n, n, d)
    return compile_factors([F], n, d, name=f"B_{F.k}^({F.n})")


def compile_butterfly(B: Butterfly, n: int, d: int) -> Stack:
    """Lemma H.16 (2): B^(nd)·x on u ∈ R^{n×d}; log d + 2 log n + 1 layers; N' = n, d' = 3d.

    >>> compile_butterfly(symbolic_butterfly(8), 4, 2).L
    6
    """
    if not isinstance(B, Butterfly):
        raise HypothesisError(f"B: expected a Butterfly, got {type(B).__name__}")
    _check_grid(B.n, n, d)
    return compile_factors(B.applied(), n, d, name=f"B^({B.n})")


def _check_grid(size: int, n: int, d: int) -> None:
    check_pow2(n, "n")
    check_pow2(d, "d")
    if n * d != size:
        raise HypothesisError(f"n, d: the matrix acts on R^{size} but u is {n}×{d} (need n·d = {size})")


def butterfly_layer_count(n: int, d: int) -> int:
    """Layers of :func:`compile_butterfly` for B^(nd): log d + 2·log n + 1.

    >>> butterfly_layer_count(4, 2)
    6
    """
    return log2(d) + 2 * log2(n) + 1


# ---------------------------------------------------------------- the printed step of Lemma H.16 (1)

def printed_diagonals(F: ButterflyFactorMatrix) -> tuple:
    """d₁ = diag D₁, d₂ = 1·(D₂ S^{n/2}), d₃ = 1·(S^{k/2} D₃) (column sums), as the proof defines them.

    >>> [v.tolist() for v in printed_diagonals(symbolic_factor(2, 2, "b"))]
    [[b[0,0,0], b[0,3,0]], [b[0,1,0], 0], [b[0,2,0], 0]]
    """
    one = np.ones(F.n, dtype=object)
    S = shift_matrix
    d1 = F.d
    d2 = one.dot(diag_matrix(F.d_plus).dot(S(F.n, F.n // 2)))
    d3 = one.dot(S(F.n, F.k // 2).dot(diag_matrix(F.d_minus)))
    return d1, d2, d3


def printed_hadamard_sum(F: ButterflyFactorMatrix, n: int, d: int) -> Stack:
    """The proof's step B x ≡ D₁′⊙u + D₂′⊙u + D₃′⊙u, built: three Hadamard products, then a sum.

    Layer 1 puts D₁′⊙u, D₂′⊙u, D₃′⊙u in the three channel blocks (three Hadamard
    products side by side); layer 2 adds them.  It computes a diagonal matrix.

    >>> printed_hadamard_sum(symbolic_factor(4, 4), 2, 2).L
    2
    """
    _check_grid(F.n, n, d)
    d1, d2, d3 = printed_diagonals(F)
    j = np.arange(d)
    W = _sum_W(d, [(0, j), (1, j), (2, j)], True)
    b2 = np.concatenate([_grid(v, n, d, n, True) for v in (d1, d2, d3)], axis=1)
    had = Layer(W=W, h=_zeros((1, 3 * d), True), b1=_zeros((1, 1), True), b2=b2,
                label="(D₁′⊙u | D₂′⊙u | D₃′⊙u)")
    return Stack(n, d, (had, sum_layer(d, True)), n, 3 * d, name="printed Hadamard sum")


# ---------------------------------------------------------------- Lemma H.16 with d' = d (rows as the spare room)

def _circ_h(N_int: int, D: int, taps: Sequence[int], symbolic: bool) -> np.ndarray:
    """A circular filter with a 1 at each tap (mod N'), the same in every channel; rows up to the last tap."""
    taps = [t % N_int for t in taps]
    h = _zeros((max(taps) + 1, D), symbolic)
    for t in taps:
        h[t, :] = h[t, :] + 1
    return h


def _regions(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    return np.concatenate([top, bottom], axis=0)


def narrow_factor_layers(F: ButterflyFactorMatrix, D: int, symbolic: bool) -> list[Layer]:
    """The layers of one factor matrix on a 2R×D state (R = F.n/D rows of the vector, d' = D).

    The state has two regions of R rows, T (top) and B (bottom); before the
    factor, the vector is T + B row by row (B may be zero).  Each factor is
    split into two rank-one halves per pair q ↔ q XOR k/2: T computes the
    outputs at the lower index of each pair, B those at the upper index.

    * channel factor (k/2 < D), 2 layers: a circular layer 1 ⊙ (h ⊛ z) with
      h = e₀ + e_R and b1 = (α_T ; α_B) puts α_T ⊙ v in T and α_B ⊙ v in B;
      then (z·(I + P))⊙(β_T ; β_B), P swapping channels j ↔ j XOR k/2 and β
      masking the pair's lower (T) or upper (B) channel.  Afterwards T + B is
      the result again.
    * row factor (k/2 = m·D), 3 layers: the same first layer; a circular layer
      with h = e₀ + e_{2R−m} (row i gets rows i and i + m) masked to the top
      half of each block of 2m rows in both regions (T then holds the outputs
      at the top rows of each pair, B the outputs at the bottom rows, m rows
      early); a circular layer with h = e₀ + e_{R+m} masked to T adds them:
      T is the result, B is zero.

    >>> [l.conv for l in narrow_factor_layers(symbolic_factor(4, 4), 2, True)]
    ['circular', 'circular', 'circular']
    """
    R = F.n // D
    N_int = 2 * R
    s = F.s
    q = np.arange(F.n)
    lower = (q & s) == 0
    d, e = np.asarray(F.d), np.asarray(F.partner)
    e_partner = e[q ^ s]          # coefficient of x_q in the output at its partner q XOR s
    aT = np.where(lower, d, e_partner) if not symbolic else np.array(
        [d[i] if lower[i] else e_partner[i] for i in q], dtype=object)
    aB = np.where(lower, e_partner, d) if not symbolic else np.array(
        [e_partner[i] if lower[i] else d[i] for i in q], dtype=object)
    grid = lambda v: np.asarray(v).reshape(R, D)
    zero_W = _zeros((D, D), symbolic)
    zero1 = _zeros((1, 1), symbolic)
    spread = Layer(W=zero_W, h=_circ_h(N_int, D, (0, R), symbolic), b1=_regions(grid(aT), grid(aB)), b2=zero1,
                   conv="circular", label=f"B_{F.k}: T, B ← α_T ⊙ v, α_B ⊙ v (v = T + B)")
    one_T, one_B = _zeros((R, D), symbolic), _zeros((R, D), symbolic)
    if s < D:
        j = np.arange(D)
        W = _zeros((D, D), symbolic)
        W[j, j] = 1
        W[j ^ s, j] = 1
        one_T[:, (j & s) == 0] = 1
        one_B[:, (j & s) != 0] = 1
        mix = Layer(W=W, h=_zeros((1, D), symbolic), b1=zero1, b2=_regions(one_T, one_B),
                    label=f"B_{F.k}: (z·(I + P)) ⊙ mask, channels j ↔ j XOR {s}")
        return [spread, mix]
    m = s // D
    top_half = _zeros((R, 1), symbolic)
    top_half[(np.arange(R) & m) == 0] = 1
    pair = Layer(W=zero_W, h=_circ_h(N_int, D, (0, N_int - m), symbolic), b1=_regions(top_half, top_half), b2=zero1,
                 conv="circular", label=f"B_{F.k}: rows i + (i + {m}), top half of each pair")
    keep_T = _zeros((N_int, 1), symbolic)
    keep_T[:R] = 1
    join = Layer(W=zero_W, h=_circ_h(N_int, D, (0, R + m), symbolic), b1=keep_T, b2=zero1, conv="circular",
                 label=f"B_{F.k}: T += B moved down {m} rows; B ← 0")
    return [spread, pair, join]


def narrow_factor_layer_count(k: int, D: int) -> int:
    """Layers of one factor matrix in :func:`compile_factors_narrow`: 2 if k/2 < D, else 3.

    >>> narrow_factor_layer_count(2, 4), narrow_factor_layer_count(16, 4)
    (2, 3)
    """
    return 2 if k // 2 < D else 3


def narrow_layer_count(ks: Sequence[int], D: int) -> int:
    """Layers of :func:`compile_factors_narrow` for factors of block sizes ``ks`` (acting order).

    Σ narrow_factor_layer_count, plus one closing layer when the last factor is a channel factor.

    >>> narrow_layer_count([2, 4, 8], 2)
    8
    """
    ks = list(ks)
    return sum(narrow_factor_layer_count(k, D) for k in ks) + (1 if ks and ks[-1] // 2 < D else 0)


def compile_factors_narrow(factors: Sequence[ButterflyFactorMatrix], n: int, d: int,
                           D: int | None = None, name: str = "butterfly factors, d' = D") -> Stack:
    """Like :func:`compile_factors`, on d' = D channels: the spare room is R extra rows (N' = 2R).

    The vector (length R·D) is laid out row-major on the top R rows; the
    input u (n×d) sits in the top-left corner.  Layers:
    :func:`narrow_layer_count` (2 per channel factor, 3 per row factor, one
    closing layer after a final channel factor).  The final state is the
    result in the top R rows and zero below; all convolutions are circular.

    >>> compile_factors_narrow([symbolic_factor(4, 4)], 2, 2).signature
    Signature(N=2, L=3, d=2, N_int=4, d_int=2)
    """
    factors, D, R = _checked_factors(factors, n, d, D)
    symbolic = _is_symbolic(factors)
    from ..budget import require

    require(len(factors) * 8 * 2 * R * D * (64 if symbolic else 8),
            f"n: the layers of {len(factors)} butterfly factors on an N' = {2 * R}, d' = {D} state")
    layers: list[Layer] = []
    for f in factors:
        layers += narrow_factor_layers(f, D, symbolic)
    if factors[-1].s < D:
        keep_T = _zeros((2 * R, 1), symbolic)
        keep_T[:R] = 1
        layers.append(Layer(W=_zeros((D, D), symbolic), h=_circ_h(2 * R, D, (0, R), symbolic), b1=keep_T,
                            b2=_zeros((1, 1), symbolic), conv="circular", label="T += B; B ← 0"))
    return Stack(n, d, tuple(layers), 2 * R, D, name=name)


def compile_butterfly_factor_narrow(F: ButterflyFactorMatrix, n: int, d: int) -> Stack:
    """Lemma H.16 (1) with d' = d: B_k^(nd)·x in 3 layers on N' = 2n, d' = d.

    >>> compile_butterfly_factor_narrow(symbolic_factor(8, 2), 4, 2).signature
    Signature(N=4, L=3, d=2, N_int=8, d_int=2)
    """
    if not isinstance(F, ButterflyFactorMatrix):
        raise HypothesisError(f"F: expected a ButterflyFactorMatrix, got {type(F).__name__}")
    _check_grid(F.n, n, d)
    return compile_factors_narrow([F], n, d, name=f"B_{F.k}^({F.n}), d' = d")


def compile_butterfly_narrow(B: Butterfly, n: int, d: int) -> Stack:
    """Lemma H.16 (2) with d' = d: B^(nd)·x in 2·log d + 3·log n layers (+1 if n = 1), N' = 2n.

    >>> compile_butterfly_narrow(symbolic_butterfly(8), 4, 2).L
    8
    """
    if not isinstance(B, Butterfly):
        raise HypothesisError(f"B: expected a Butterfly, got {type(B).__name__}")
    _check_grid(B.n, n, d)
    return compile_factors_narrow(B.applied(), n, d, name=f"B^({B.n}), d' = d")


def butterfly_narrow_layer_count(n: int, d: int) -> int:
    """Layers of :func:`compile_butterfly_narrow`: 2·log d + 3·log n, plus 1 when n = 1.

    >>> butterfly_narrow_layer_count(4, 2), butterfly_narrow_layer_count(1, 4)
    (8, 5)
    """
    return narrow_layer_count([2 << t for t in range(log2(n * d))], d)
