"""Exact interpreter: polynomial products and coefficient extraction.

Every entry of a sequence is an element of a sparse polynomial ring
QQ[symbols]; column j of a sequence is the polynomial u_j(X) = Σ_i u[i, j] X^i,
stored as its coefficient list.  A causal convolution keeps the coefficients
of h_j(X)·u_j(X) below X^N'; a circular one folds exponent i onto i mod N'
(the product mod X^N' − 1).  W acts row by row; every operation is exact.

Two ring backends do the arithmetic:

* ``"flint"``: python-flint's ``fmpq_mpoly`` (C, extra ``exact``), chosen
  automatically when python-flint is installed;
* ``"sympy"``: sympy's sparse ``PolyRing`` (pure Python, always available).

``SYMCONV_BACKEND=sympy|flint|auto`` or :func:`set_backend` /
:func:`use_backend` picks one.  :func:`make_ring` returns sympy's ring unless
asked for another (``backend=None`` means the active one); every other
function here takes a ring of either kind.  Entries of a flint ring have no
``as_expr`` method: use :func:`as_expr` (or :meth:`ExactSeq.to_block`).

Example:
    >>> from symconv.blocks import sym, zeros
    >>> from symconv.constructions.shifts import shift_down
    >>> out = evaluate(shift_down(3, 1, 1), sym("y", 3, 1))
    >>> out.entries[:, 0].tolist()
    [0, y[0,0], y[1,0]]
"""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import sympy
from sympy import QQ
from sympy.polys.rings import PolyElement, PolyRing

from .blocks import Block
from .model import HypothesisError, Layer, Stack

BACKENDS = ("auto", "flint", "sympy")
_chosen: list[str] = []


# --------------------------------------------------------------------------- backends


def have_flint() -> bool:
    """Whether python-flint (extra ``exact``) is importable.

    >>> isinstance(have_flint(), bool)
    True
    """
    try:
        import flint  # noqa: F401
    except ImportError:
        return False
    return True


def _resolve(name: str | None) -> str:
    name = "auto" if name is None else name
    if name not in BACKENDS:
        raise HypothesisError(f"backend: expected one of {BACKENDS}, got {name!r}")
    if name == "auto":
        return "flint" if have_flint() else "sympy"
    if name == "flint" and not have_flint():
        raise HypothesisError("backend: python-flint is not installed (pip install 'symconv[exact]')")
    return name


def active_backend() -> str:
    """The active ring backend: :func:`set_backend`'s, else ``SYMCONV_BACKEND``, else auto.

    >>> backend() in ("flint", "sympy")
    True
    """
    if _chosen:
        return _chosen[-1]
    return _resolve(os.environ.get("SYMCONV_BACKEND") or "auto")


backend = active_backend


def set_backend(name: str | None) -> str:
    """Make ``name`` (``auto``, ``flint``, ``sympy``; None: back to the default) active; returns it."""
    _chosen.clear()
    if name is not None:
        _chosen.append(_resolve(name))
    return backend()


@contextlib.contextmanager
def use_backend(name: str) -> Iterator[str]:
    """Within the block, the active backend is ``name``.

    >>> with use_backend("sympy"):
    ...     backend()
    'sympy'
    """
    _chosen.append(_resolve(name))
    try:
        yield _chosen[-1]
    finally:
        _chosen.pop()


class FlintRing:
    """QQ[symbols] over python-flint's ``fmpq_mpoly``: the part of PolyRing's interface symconv uses.

    Elements are plain ``fmpq_mpoly`` values (``+``, ``-``, ``*``, ``**``, ``==``, truth value).
    """

    backend = "flint"

    def __init__(self, symbols: Sequence[sympy.Symbol]) -> None:
        import flint

        self.symbols = tuple(symbols)
        names = [s.name for s in self.symbols]
        if len(set(names)) != len(names):  # same name, other assumptions: keep them apart
            names = [f"{n}#{k}" for k, n in enumerate(names)]
        self.ctx = flint.fmpq_mpoly_ctx.get(tuple(names), "lex")
        self.ngens = len(self.symbols)
        self.gens = tuple(self.ctx.gens())
        self.zero = self.ctx.from_dict({})
        self.one = self.ctx.constant(1)
        self._fmpq = flint.fmpq
        self._type = flint.fmpq_mpoly

    def constant(self, num: int, den: int = 1) -> Any:
        return self.ctx.constant(self._fmpq(num, den))

    def __repr__(self) -> str:
        return f"FlintRing({self.ngens} symbols)"


_RINGS: dict = {}


def make_ring(symbols: Iterable[sympy.Symbol], backend: str | None = "sympy") -> Any:
    """The ring QQ[symbols] (symbols sorted by name; at least one generator).

    ``backend``: ``"sympy"`` (default: sympy's ``PolyRing``), ``"flint"``,
    ``"auto"``, or None for the active backend (:func:`backend`).

    >>> make_ring([sympy.Symbol("b"), sympy.Symbol("a")]).symbols
    (a, b)
    """
    syms = sorted(set(symbols), key=lambda s: (s.name, str(s.assumptions0)))
    if not syms:
        syms = [sympy.Symbol("_unused")]
    name = active_backend() if backend is None else _resolve(backend)
    if name == "sympy":
        return PolyRing(syms, QQ)
    key = tuple(syms)
    R = _RINGS.get(key)
    if R is None:
        if len(_RINGS) > 64:
            _RINGS.clear()
        R = _RINGS[key] = FlintRing(syms)
    return R


def is_flint(R: Any) -> bool:
    return isinstance(R, FlintRing)


def stack_symbols(stack: Stack) -> set:
    """Free symbols appearing in any parameter of the stack."""
    out: set = set()
    for layer in stack.layers:
        for name in ("W", "h", "b1", "b2"):
            a = getattr(layer, name)
            if a.dtype == object:
                for v in a.flat:
                    fs = getattr(v, "free_symbols", None)
                    if fs:
                        out |= fs
    return out


def _per_ring(cache: dict, R: Any, make) -> Any:
    """``make(R)``, computed once per ring (keyed by identity; the cache is bounded)."""
    m = cache.get(id(R))
    if m is None or m[0] is not R:
        if len(cache) > 256:
            cache.clear()
        m = cache[id(R)] = (R, make(R))
    return m[1]


_GEN_MAPS: dict = {}


def _gen_map(R: Any) -> dict:
    """symbol → generator of the ring R."""
    return _per_ring(_GEN_MAPS, R, lambda r: dict(zip(r.symbols, r.gens)))


def _const(R: Any, num: int, den: int = 1) -> Any:
    if isinstance(R, FlintRing):
        return R.constant(num, den)
    return R.ground_new(QQ(num, den))


def to_ring(R: Any, v: Any) -> Any:
    """Convert a number or sympy expression to an element of R, exactly.

    >>> R = make_ring([sympy.Symbol("x")])
    >>> to_ring(R, sympy.Symbol("x") / 2 + 1)
    1/2*x + 1
    """
    if isinstance(R, FlintRing):
        if isinstance(v, R._type):
            return v
    elif isinstance(v, PolyElement):
        return v
    if isinstance(v, sympy.Symbol):
        gen = _gen_map(R).get(v)
        if gen is not None:
            return gen
    if isinstance(v, sympy.Rational):
        if v.is_zero:
            return R.zero
        return _const(R, int(v.p), int(v.q))
    if isinstance(v, (bool, np.bool_)):
        raise HypothesisError(f"parameter: booleans are not numbers ({v!r})")
    if isinstance(v, (int, np.integer)):
        return _const(R, int(v))
    if isinstance(v, Fraction):
        return _const(R, v.numerator, v.denominator)
    if isinstance(v, (float, np.floating)):
        f = Fraction(float(v))
        return _const(R, f.numerator, f.denominator)
    if isinstance(v, sympy.Basic):
        return _expr_to_ring(R, v, _gen_map(R))
    raise HypothesisError(f"parameter: cannot use {type(v).__name__} {v!r} as a number")


class ForeignSymbol(HypothesisError):
    """An expression uses a symbol that is not a generator of the ring."""


def _monomial(R: Any, e: sympy.Basic, index: dict) -> tuple | None:
    """(sparse exponents ((k, a), ...), coefficient) of a monomial c·x^a·y^b…, or None if ``e`` is not one."""
    coef: Any = 1
    expo: dict = {}
    for f in (e.args if e.is_Mul else (e,)):
        if f.is_Symbol:
            k = index.get(f)
            if k is None:
                return None
            expo[k] = expo.get(k, 0) + 1
        elif f.is_Rational:
            coef = coef * (int(f.p) if f.is_Integer else Fraction(int(f.p), int(f.q)))
        elif f.is_Pow and f.base.is_Symbol and f.exp.is_Integer and f.exp > 0:
            k = index.get(f.base)
            if k is None:
                return None
            expo[k] = expo.get(k, 0) + int(f.exp)
        else:
            return None
    return tuple(sorted(expo.items())) if len(expo) > 1 else tuple(expo.items()), coef


def _sum(items: list) -> Any:
    """Pairwise sum (each addition merges two sorted term lists of similar length)."""
    while len(items) > 1:
        items = [items[i] + items[i + 1] if i + 1 < len(items) else items[i] for i in range(0, len(items), 2)]
    return items[0]


def _from_terms(R: Any, terms: dict) -> Any:
    if isinstance(R, FlintRing):
        gens, fq = R.gens, R._fmpq
        parts = []
        for m, c in terms.items():
            if not c:
                continue
            t = None
            for k, a in m:
                g = gens[k] if a == 1 else gens[k] ** a
                t = g if t is None else t * g
            c = fq(c) if type(c) is int else fq(c.numerator, c.denominator)
            parts.append(R.ctx.constant(c) if t is None else (t if c == 1 else t * c))
        return _sum(parts) if parts else R.zero
    n = R.ngens
    dense = {}
    for m, c in terms.items():
        if c:
            e = [0] * n
            for k, a in m:
                e[k] = a
            dense[tuple(e)] = QQ(c.numerator, c.denominator)
    return R.from_dict(dense) if dense else R.zero


_INDEX: dict = {}


def _gen_index(R: Any) -> dict:
    """symbol → index of its generator in the ring R."""
    return _per_ring(_INDEX, R, lambda r: {s: k for k, s in enumerate(r.symbols)})


def _expr_to_ring(R: Any, e: sympy.Basic, gens: dict) -> Any:
    """A sympy polynomial expression (Add/Mul/Pow of symbols and rationals) as a ring element.

    Sums of monomials (the common, expanded case) are built in one step from
    their terms; other shapes recursively.
    """
    if e.is_Symbol:
        if e in gens:
            return gens[e]
        raise ForeignSymbol(f"parameter: symbol {e} is not one of the ring's symbols")
    if e.is_Rational:
        return _const(R, int(e.p), int(e.q))
    if e.is_Add or e.is_Mul:
        index = _gen_index(R)
        terms: dict = {}
        rest = []
        for a in (e.args if e.is_Add else (e,)):
            mono = _monomial(R, a, index)
            if mono is None:
                rest.append(a)
            else:
                m, c = mono
                if m in terms:
                    terms[m] = terms[m] + c
                else:
                    terms[m] = c
        out = _from_terms(R, terms) if terms else None
        for a in rest:
            if a.is_Mul:
                t = None
                for f in a.args:
                    x = _expr_to_ring(R, f, gens)
                    t = x if t is None else t * x
            else:
                t = _expr_to_ring(R, a, gens)
            out = t if out is None else out + t
        return out
    if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
        return _expr_to_ring(R, e.base, gens) ** int(e.exp)
    raise HypothesisError(f"parameter: {e} is not a polynomial with rational coefficients")


def as_expr(v: Any, R: Any = None) -> sympy.Expr:
    """A ring element (either backend) as a sympy expression.

    >>> R = make_ring([sympy.Symbol("x")], backend="auto")
    >>> as_expr(R.gens[0] * 2 + 1, R)
    2*x + 1
    """
    if isinstance(v, PolyElement):
        return v.as_expr()
    if R is None:
        raise HypothesisError("ring: as_expr of a flint element needs its ring")
    syms = R.symbols
    terms = []
    for monom, c in v.terms():
        coef = sympy.Rational(int(c.p), int(c.q))
        factors = [s ** e if e != 1 else s for s, e in zip(syms, monom) if e]
        terms.append(sympy.Mul(coef, *factors))
    return sympy.Add(*terms)


def is_constant(v: Any) -> bool:
    """Whether a ring element is a constant (zero included)."""
    if isinstance(v, PolyElement):
        return v.is_ground
    return v.is_constant()


def value_at(v: Any, R: Any, values: Sequence[int]) -> Fraction:
    """The element at a point (one integer per generator of R, in order), as a Fraction."""
    if isinstance(R, FlintRing):
        r = v(*[R._fmpq(x) for x in values]) if R.ngens else v
        return Fraction(int(r.p), int(r.q))
    r = v.evaluate(list(zip(R.gens, values)))
    r = r if not isinstance(r, PolyElement) else (r.LC if r else 0)
    return Fraction(int(r.numerator), int(r.denominator)) if not isinstance(r, int) else Fraction(r)


def used_generators(v: Any, R: Any) -> list[int]:
    """Indices of the generators that appear in ``v``."""
    if isinstance(R, FlintRing):
        return [k for k, e in enumerate(v.degrees()) if e > 0]
    used: set = set()
    for monom in v.monoms():
        used.update(k for k, e in enumerate(monom) if e)
    return sorted(used)


# --------------------------------------------------------------------------- sequences


class RingBlock(Block):
    """An n×d block given directly in ring form, for large expected outputs.

    ``build(r)`` returns n rows of d entries, where ``r(v)`` maps a sympy
    symbol or a number to the ring element; entries are then combined with
    ``+``, ``-``, ``*``, ``**`` in the ring, never as sympy expressions.  Give
    it to an ``Instance`` (or a state ``Step``) as ``expected`` where
    expanding the claimed output with sympy would dominate the check: the
    check builds it in its own ring (either backend).  It is a
    :class:`~symconv.blocks.Block`; ``entries`` (sympy expressions) is
    computed only when something reads it (a display, a block operation).

    >>> x = sympy.Symbol("x")
    >>> blk = RingBlock((1, 1), [x], lambda r: [[(r(x) + 1) ** 2]])
    >>> blk.shape, blk.entries[0, 0]
    ((1, 1), x**2 + 2*x + 1)
    """

    def __init__(self, shape: tuple, symbols: Iterable[sympy.Symbol],
                 build: Callable[[Callable[[Any], Any]], Sequence[Sequence[Any]]], name: str = "") -> None:
        n, d = (int(v) for v in shape)
        if n < 0 or d < 0:
            raise HypothesisError(f"shape: a block has n, d >= 0, got {shape!r}")
        if not callable(build):
            raise HypothesisError(f"build: expected a function of the ring converter, got {type(build).__name__}")
        syms = frozenset(symbols)
        if not all(isinstance(s, sympy.Symbol) for s in syms):
            raise HypothesisError("symbols: expected sympy Symbols")
        object.__setattr__(self, "_shape", (n, d))
        object.__setattr__(self, "symbols", syms)
        object.__setattr__(self, "build", build)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_entries", None)

    @property
    def shape(self) -> tuple[int, int]:
        return self._shape

    @property
    def n(self) -> int:
        return self._shape[0]

    @property
    def d(self) -> int:
        return self._shape[1]

    def free_symbols(self) -> set:
        return set(self.symbols)

    def columns(self, R: Any) -> tuple:
        """The block's columns as elements of R."""
        rows = self.build(lambda v: to_ring(R, v))
        n, d = self._shape
        if len(rows) != n or any(len(r) != d for r in rows):
            raise HypothesisError(f"{self.name or 'RingBlock'}: build returned rows that are not {n}×{d}")
        return tuple(tuple(to_ring(R, rows[i][j]) for i in range(n)) for j in range(d))

    @property
    def entries(self) -> np.ndarray:  # type: ignore[override]
        if self._entries is None:
            R = make_ring(self.symbols, backend=None)
            object.__setattr__(self, "_entries", ExactSeq(R, self.columns(R)).to_block(self.name).entries)
        return self._entries

    def __repr__(self) -> str:
        return f"RingBlock({self.name or '?'}, shape={self._shape})"


@dataclass(frozen=True, eq=False)
class ExactSeq:
    """A sequence with entries in a polynomial ring: ``cols[j][i]`` = u[i, j]."""

    ring: Any
    cols: tuple

    @property
    def N(self) -> int:
        return len(self.cols[0]) if self.cols else 0

    @property
    def d(self) -> int:
        return len(self.cols)

    @classmethod
    def from_block(cls, R: Any, block: "Block | RingBlock") -> "ExactSeq":
        if isinstance(block, RingBlock):
            return cls(R, block.columns(R))
        n, d = block.shape
        zero = R.zero
        ent = block.entries
        memo: dict = {}
        cols = []
        for j in range(d):
            col = []
            for i in range(n):
                v = ent[i, j]
                if v is sympy.S.Zero:
                    col.append(zero)
                    continue
                r = memo.get(v)
                if r is None:
                    r = memo[v] = to_ring(R, v)
                col.append(r)
            cols.append(tuple(col))
        return cls(R, tuple(cols))

    def to_block(self, name: str = "") -> Block:
        a = np.empty((self.N, self.d), dtype=object)
        for j, col in enumerate(self.cols):
            for i, v in enumerate(col):
                a[i, j] = as_expr(v, self.ring) if v else sympy.S.Zero
        return Block(a, name)

    def pad(self, N_int: int, d_int: int) -> "ExactSeq":
        """Zero-pad into the top-left corner of an N'×d' state."""
        zero = self.ring.zero
        cols = [tuple(c) + (zero,) * (N_int - self.N) for c in self.cols]
        cols += [(zero,) * N_int] * (d_int - self.d)
        return ExactSeq(self.ring, tuple(cols))

    def top_left(self, N: int, d: int) -> "ExactSeq":
        """The top-left N×d block (the model's read-out)."""
        return ExactSeq(self.ring, tuple(tuple(c[:N]) for c in self.cols[:d]))

    def first_difference(self, other: "ExactSeq") -> tuple[int, int] | None:
        """(row, channel) of the first entry that differs, scanning rows first."""
        bad = [next((i for i, (a, b) in enumerate(zip(ca, cb)) if a != b), None)
               for ca, cb in zip(self.cols, other.cols)]
        best = None
        for j, i in enumerate(bad):
            if i is not None and (best is None or i < best[0]):
                best = (i, j)
        return best

    def nbytes(self) -> int:
        """A rough size of the entries in memory (for budgets)."""
        return estimate_state_bytes(self.N, self.d, self.ring)


def estimate_state_bytes(N: int, d: int, R: Any = None) -> int:
    """Bytes an N×d exact state takes at least: one reference per entry plus a small polynomial.

    >>> estimate_state_bytes(1000, 2) > 0
    True
    """
    per = 8 + (96 if isinstance(R, FlintRing) else 240)
    return int(N) * int(d) * per


# --------------------------------------------------------------------------- parameters


class _Ops:
    """Scalar arithmetic of one ring: which elements are constants, and c·v for a constant c."""

    def __init__(self, R: Any) -> None:
        self.R = R
        self.flint = isinstance(R, FlintRing)

    def scalar(self, c: Any) -> Any:
        """The rational of a constant element (a ground element for sympy), or None if not constant."""
        if self.flint:
            return c.leading_coefficient() if c.is_constant() else None
        return (c.LC if c else QQ(0)) if c.is_ground else None


@dataclass(frozen=True, eq=False)
class LayerParams:
    """A layer's parameters in one ring, converted once: taps, W columns, biases.

    ``taps[j]``: nonzero (k, c, is_scalar) of channel j's filter; ``W[j]``:
    nonzero (k, w, is_scalar) with gate_j = b1_j + Σ_k z_k·w; ``b1[j]``,
    ``b2[j]``: a tuple of N' elements, or one element broadcast over rows.
    """

    taps: tuple
    W: tuple
    b1: tuple
    b2: tuple


def _convert_columns(R: Any, a: np.ndarray) -> list:
    """The columns of a parameter array as lists of elements of R (each distinct value converted once)."""
    zero = R.zero
    memo: dict = {}
    cols = []
    if a.dtype.kind in "iuf":  # numbers: only the nonzero entries are converted
        for j in range(a.shape[1]):
            col = a[:, j]
            nz = np.flatnonzero(col)
            out = [zero] * len(col)
            for i, v in zip(nz.tolist(), col[nz].tolist()):
                r = memo.get(v)
                if r is None:
                    r = memo[v] = to_ring(R, v)
                out[i] = r
            cols.append(out)
        return cols
    for col in a.T.tolist():
        out = []
        for v in col:
            if v is _ZERO or (v.__class__ is int and v == 0):
                out.append(zero)
                continue
            try:
                key = (v.__class__, v)
                r = memo.get(key)
            except TypeError:
                key, r = None, None
            if r is None:
                r = to_ring(R, v)
                if key is not None:
                    memo[key] = r
            out.append(r)
        cols.append(out)
    return cols


_ZERO = sympy.S.Zero


def _pairs(R: Any, ops: _Ops, vals: Sequence[Any]) -> tuple:
    out = []
    for k, c in enumerate(vals):
        if not c:
            continue
        s = ops.scalar(c)
        if s is not None:
            if s == 1:
                out.append((k, None, True))  # c = 1: the term itself
            else:
                out.append((k, s, True))
        else:
            out.append((k, c, False))
    return tuple(out)


def _bias(cols: list, j: int, rows: int) -> Any:
    col = cols[j if len(cols) > 1 else 0]
    if len(col) == 1:
        return col[0]
    if len(col) != rows:
        raise HypothesisError(f"bias: has {len(col)} rows, the state has {rows}")
    return tuple(col)


_PARAMS: dict = {}


def layer_params(layer: Layer, R: Any, N_int: int) -> LayerParams:
    """``layer``'s parameters as elements of R, cached per (layer, ring): converted once."""
    key = (id(layer), id(R), N_int)
    hit = _PARAMS.get(key)
    if hit is not None and hit[0] is layer and hit[1] is R:
        return hit[2]
    ops = _Ops(R)
    d = layer.W.shape[0]
    W = np.empty(layer.W.shape, dtype=object)  # d'×d' (small): W[:, j] is what gate channel j reads
    for j, col in enumerate(_convert_columns(R, layer.W)):
        for i, v in enumerate(col):
            W[i, j] = v
    h = _convert_columns(R, layer.h)
    b1 = _convert_columns(R, layer.b1)
    b2 = _convert_columns(R, layer.b2)
    taps = tuple(_pairs(R, ops, h[j if len(h) > 1 else 0]) for j in range(d))
    Wc = tuple(_pairs(R, ops, list(W[:, j])) for j in range(d))
    p = LayerParams(taps, Wc, tuple(_bias(b1, j, N_int) for j in range(d)),
                    tuple(_bias(b2, j, N_int) for j in range(d)))
    if len(_PARAMS) > 512:
        _PARAMS.clear()
    _PARAMS[key] = (layer, R, p)
    return p


# --------------------------------------------------------------------------- the interpreter


def scale(c: Any, v: Any) -> Any:
    """c·v, with a fast path when c is a constant (the common case for filters and masks)."""
    if isinstance(c, PolyElement):
        if c.is_ground:
            k = c.LC if c else 0
            if k == 1:
                return v
            return v.mul_ground(k) if k else c.ring.zero
        return c * v
    if c.is_constant():
        if c.is_one():
            return v
        return v * c.leading_coefficient() if c else c
    return c * v


def _is_one(c: Any) -> bool:
    if isinstance(c, PolyElement):
        return c.is_ground and c.LC == 1 if c else False
    return c.is_one()


def _mul(v: Any, c: Any, is_scalar: bool, flint: bool) -> Any:
    if c is None:
        return v
    if is_scalar:
        return v * c if flint else v.mul_ground(c)
    return c * v


def _convolve_pairs(taps: tuple, u: Sequence[Any], N: int, mode: str, R: Any, flint: bool) -> list:
    acc: list = [None] * N
    vals = [(i, v) for i, v in enumerate(u) if v]
    circular = mode == "circular"
    for k, c, is_scalar in taps:
        for i, v in vals:
            pos = i + k
            if pos >= N:
                if not circular:
                    break
                pos %= N
            if c is None:
                t = v
            elif is_scalar:
                t = v * c if flint else v.mul_ground(c)
            else:
                t = c * v
            a = acc[pos]
            if a is None:
                acc[pos] = [t]
            else:
                a.append(t)
    zero = R.zero  # sums of many terms pairwise: each addition merges operands of similar size
    return [zero if a is None else a[0] if len(a) == 1 else _sum(a) for a in acc]


def convolve(h: Sequence[Any], u: Sequence[Any], N: int, mode: str, R: Any) -> list:
    """Coefficients 0..N−1 of h(X)·u(X) mod X^N (causal) or mod X^N − 1 (circular).

    >>> from sympy import QQ
    >>> from sympy.polys.rings import ring
    >>> R, a, b = ring("a,b", QQ)
    >>> convolve([R(0), R(1)], [a, b, R(0)], 3, "circular", R)
    [0, a, b]
    """
    ops = _Ops(R)
    return _convolve_pairs(_pairs(R, ops, list(h)), u, N, mode, R, ops.flint)


def apply_layer(layer: Layer, state: ExactSeq) -> ExactSeq:
    """One BaseConv layer on an exact N'×d' state."""
    R = state.ring
    flint = isinstance(R, FlintRing)
    N, d = state.N, state.d
    P = layer_params(layer, R, N)
    zero = R.zero
    cols = []
    for j in range(d):
        conv = _convolve_pairs(P.taps[j], state.cols[j], N, layer.conv, R, flint)
        b1, b2 = P.b1[j], P.b2[j]
        if isinstance(b2, tuple):
            second = [c + b if b else c for c, b in zip(conv, b2)]
        elif b2:
            second = [c + b2 for c in conv]
        else:
            second = conv
        wj = P.W[j]
        b1_rows = isinstance(b1, tuple)
        if not wj:  # the gate is b1 alone (a mask or a constant): no sum per row
            if b1_rows:
                cols.append(tuple(scale(g, s) if s and g else zero for g, s in zip(b1, second)))
            elif not b1:
                cols.append((zero,) * N)
            elif _is_one(b1):
                cols.append(tuple(s if s else zero for s in second))
            else:
                cols.append(tuple(scale(b1, s) if s else zero for s in second))
            continue
        col = []
        for i in range(N):
            s = second[i]
            if not s:
                col.append(zero)
                continue
            gate = b1[i] if b1_rows else b1
            for k, w, is_scalar in wj:
                z = state.cols[k][i]
                if z:
                    t = _mul(z, w, is_scalar, flint)
                    gate = t if not gate else gate + t
            if not gate:
                col.append(zero)
            else:
                col.append(scale(gate, s))
        cols.append(tuple(col))
    return ExactSeq(R, tuple(cols))


def run_state(stack: Stack, state: ExactSeq, start: int = 0, stop: int | None = None) -> ExactSeq:
    """Apply layers ``start..stop−1`` to an internal N'×d' state."""
    if (state.N, state.d) != (stack.N_int, stack.d_int):
        raise HypothesisError(
            f"state: shape {(state.N, state.d)} is not the internal shape "
            f"(N', d') = {(stack.N_int, stack.d_int)}"
        )
    for layer in stack.layers[start:stop]:
        state = apply_layer(layer, state)
    return state


def check_input(stack: Stack, u: Block) -> None:
    if u.shape != (stack.N, stack.d):
        raise HypothesisError(
            f"u: input has shape {u.shape} but the stack takes N×d = {(stack.N, stack.d)}"
        )


def require_state(stack: Stack, what: str, budget: Any = None, states: int = 2, R: Any = None) -> int:
    """Refuse (HypothesisError) an exact run whose states would not fit the memory budget."""
    from .budget import require

    need = states * estimate_state_bytes(stack.N_int, stack.d_int, R)
    return require(need, f"{what}: exact state at N' = {stack.N_int}, d' = {stack.d_int}", budget)


def evaluate(stack: Stack, u: Block, ring: Any = None, *, budget: Any = None) -> Block:
    """The stack's N×d output on a symbolic input block, as a Block of sympy expressions.

    ``ring``: the ring to compute in (default: one of the active backend);
    ``budget``: memory budget in bytes (see :mod:`symconv.budget`).
    """
    check_input(stack, u)
    require_state(stack, "stack", budget, R=ring)
    R = ring or make_ring(u.free_symbols() | stack_symbols(stack), backend=None)
    state = ExactSeq.from_block(R, u).pad(stack.N_int, stack.d_int)
    out = run_state(stack, state).top_left(stack.N, stack.d)
    return out.to_block(f"{stack.name or 'stack'}({u.name})")
