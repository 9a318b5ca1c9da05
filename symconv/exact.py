"""Exact modular checks: run a stack over the prime field F_p and compare.

A numeric cross-check in floating point can only say "equal up to rounding".
Here the stack is evaluated exactly modulo a prime p on random inputs drawn
uniformly from F_p, and compared with the expected output computed by the
claim's direct ``reference`` on the same inputs, also modulo p.  Both sides
are polynomials in the N·d input entries; if they differ as polynomials over
F_p, the Schwartz–Zippel lemma says a uniformly random input exposes the
difference except with probability at most deg/p, where deg bounds the degree
of the difference.  Each trial is independent, so T trials fail to expose it
with probability at most (deg/p)^T.  :func:`check` states the bound it used.

The degree of the stack's output is bounded layer by layer (a layer with
W ≠ 0 and h ≠ 0 adds the degrees of its gate and its convolution); the
degree of the reference is found by running it on symbols that only track
degrees (:class:`Degree`).

Convolutions modulo p are exact.  By default (``method="fft"``) they are
float64 FFTs of balanced limbs whose rounding error is proved below 1/2 on the
actual data before each result is rounded (:func:`limb_pair_bound`); the
vectorised numpy number-theoretic transform (NTT, ``"ntt"``) is the fallback,
and python-flint's ``nmod_poly`` products (``"flint"``, extra ``exact``) are
available.  The default prime p = 15·2^27 + 1 < 2^31 has
2^27-th roots of unity (NTT lengths up to 2^27) and keeps every product of two
residues below 2^62, inside int64.  Parameters that are Fractions, sympy
rationals or floats (read as the dyadic rationals they are) map to F_p by
modular inverses.

Example:
    >>> import numpy as np
    >>> from symconv.constructions.shifts import shift_down
    >>> def ref(u):
    ...     out = np.zeros_like(u)
    ...     out[:, 1:] = u[:, :-1]
    ...     return out
    >>> r = check(shift_down(64, 1), ref, batch=1, seed=0)
    >>> r.holds, r.degree, r.mismatches
    (True, 1, 0)
"""
from __future__ import annotations

import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .model import HypothesisError, Stack

#: Default prime, 15·2^27 + 1 (NTT-friendly; below 2^31).
PRIME = 2013265921
#: A generator of the multiplicative group of F_PRIME.
_GENERATORS = {17: 3, 2013265921: 31, 998244353: 3, 469762049: 3, 167772161: 3, 754974721: 11}
METHODS = ("auto", "fft", "flint", "ntt")


# --------------------------------------------------------------------------- field elements


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    for q in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % q == 0:
            return n == q
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def check_prime(p: Any) -> int:
    """Return ``p`` if it is a prime below 2^31 (products stay in int64), else raise.

    >>> check_prime(2013265921)
    2013265921
    """
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or not 2 < p < 2 ** 31 or not _is_prime(int(p)):
        raise HypothesisError(f"p: must be an odd prime below 2^31 (got {p!r})")
    return int(p)


def field_value(v: Any, p: int, where: str = "value") -> int:
    """An exact number (int, Fraction, sympy rational, float) as a residue mod p.

    >>> field_value(Fraction(1, 2), 7), field_value(0.25, 7), field_value(-1, 7)
    (4, 2, 6)
    """
    if isinstance(v, ModP):
        return v.v
    if isinstance(v, (bool, np.bool_)):
        raise HypothesisError(f"{where}: booleans are not numbers ({v!r})")
    if isinstance(v, (int, np.integer)):
        return int(v) % p
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(float(v)):
            raise HypothesisError(f"{where}: {v!r} is not finite")
        num, den = float(v).as_integer_ratio()  # den is a power of two, invertible mod odd p
        return num * pow(den, -1, p) % p
    elif not isinstance(v, Fraction):
        num, den = getattr(v, "p", None), getattr(v, "q", None)  # sympy Rational
        if getattr(v, "free_symbols", None):
            raise HypothesisError(f"{where}: has symbolic entry {v}; substitute numbers first (Stack.subs)")
        if num is None or den is None:
            raise HypothesisError(f"{where}: cannot map {type(v).__name__} {v!r} to F_p")
        v = Fraction(int(num), int(den))
    if v.denominator % p == 0:
        raise HypothesisError(f"{where}: denominator of {v} is divisible by p = {p}; pick another prime")
    return v.numerator * pow(v.denominator, -1, p) % p


def to_field(a: Any, p: int, where: str = "array") -> np.ndarray:
    """An array of exact numbers as int64 residues mod p (same shape).

    >>> to_field(np.array([[Fraction(1, 3), 2]], dtype=object), 7).tolist()
    [[5, 2]]
    """
    a = np.asarray(a)
    if a.dtype == object and a.size:
        kinds = set(map(type, a.flat))
        if kinds <= {int, np.int64, np.int32}:
            try:
                a = a.astype(np.int64)
            except OverflowError:
                pass
        elif kinds <= {float, np.float64}:
            a = a.astype(np.float64)
    if a.dtype.kind == "f":
        return _floats_to_field(a, p, where)
    if a.dtype.kind == "u":
        return (a % np.uint64(p)).astype(np.int64)
    if a.dtype.kind == "i":
        return np.mod(a.astype(np.int64), p)
    if a.dtype.kind == "b":
        raise HypothesisError(f"{where}: booleans are not numbers")
    out = np.empty(a.shape, dtype=np.int64)
    for idx, v in np.ndenumerate(a):
        out[idx] = field_value(v, p, where)
    return out


def _floats_to_field(a: np.ndarray, p: int, where: str) -> np.ndarray:
    """Floats as the dyadic rationals they are, mod p, vectorised: x = M·2^(e−53), |M| < 2^53."""
    a = np.asarray(a, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise HypothesisError(f"{where}: has entries that are not finite")
    mant, expo = np.frexp(a)
    M = np.mod((mant * 2.0 ** 53).astype(np.int64), p)
    k = expo.astype(np.int64) - 53
    out = np.empty(a.shape, dtype=np.int64)
    for e in np.unique(k):
        sel = k == e
        out[sel] = M[sel] * pow(2, int(e), p) % p
    return out


_FLOATS: dict = {}  # float constants of a reference, already mapped to F_p


class _NotInField(TypeError):
    """A reference used an operation the vectorised field arrays do not model."""


def _lift(x: Any, p: int) -> Any:
    """An operand of a field operation as plain int64 residues (or a Python int)."""
    if isinstance(x, FieldArray):
        if x.p != p:
            raise HypothesisError("reference: mixes elements of two different fields")
        return x.view(np.ndarray)
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, np.ndarray) and x.dtype.kind == "b"):
        raise _NotInField("booleans")
    if isinstance(x, (int, np.integer, float, np.floating, Fraction)):
        return field_value(x, p, "reference")
    if isinstance(x, np.ndarray):
        return to_field(x, p, "reference")
    raise _NotInField(type(x).__name__)


def _as_field(a: Any, p: int) -> "FieldArray":
    r = np.asarray(a).view(FieldArray)
    r.p = p
    return r


#: numpy functions that only move entries around: applied to the residues as they are.
_STRUCTURAL = {np.zeros_like, np.empty_like, np.copy, np.transpose, np.moveaxis, np.swapaxes, np.reshape,
               np.squeeze, np.expand_dims, np.broadcast_to, np.flip, np.roll, np.take, np.concatenate,
               np.stack, np.hstack, np.vstack, np.atleast_3d, np.ascontiguousarray, np.pad, np.tril, np.triu}



def _result(r: Any, out: Any, wrap: Any) -> Any:
    """A ufunc result: written into ``out`` when numpy passed one, else wrapped."""
    if out is not None:
        (o,) = out
        o.view(np.ndarray)[...] = r
        return o
    return wrap(r)


def keep_exact(x: Any) -> np.ndarray:
    """``np.asarray(x)``, except that symconv's exact arrays (:class:`FieldArray`,
    :class:`DegreeArray`) stay what they are, so a reference run on them stays vectorised.
    Other ndarray subclasses (``np.memmap``, ``np.matrix``, masked arrays) become plain arrays.

    >>> type(keep_exact(_as_field(np.array([1, 2]), 7))).__name__, type(keep_exact(np.ma.masked_array([1]))).__name__
    ('FieldArray', 'ndarray')
    """
    return x if isinstance(x, (FieldArray, DegreeArray)) else np.asarray(x)


class FieldArray(np.ndarray):
    """int64 residues mod p whose arithmetic (+, −, ·, /, @, sums) stays in F_p.

    The fast path for a claim's ``reference``: numpy operations run
    vectorised on residues; constants (ints, floats, Fractions, float
    arrays) are mapped exactly.  An operation with no meaning in F_p (a float
    conversion, a comparison-driven branch, an unlisted numpy function) raises
    a TypeError, and :func:`check` falls back to :class:`ModP` objects.

    >>> u = _as_field(np.array([3, 5]), 7)
    >>> (u * u + 0.5).tolist(), (u / 2).tolist(), int(np.sum(u))
    ([6, 1], [5, 6], 1)
    """

    def __array_finalize__(self, obj: Any) -> None:
        self.p = getattr(obj, "p", None)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.view(np.ndarray)[key] = _lift(value, self.p)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        if np.dtype(dtype) == np.int64 or np.dtype(dtype) == object:
            raise _NotInField("astype")
        raise _NotInField(f"astype({dtype})")

    def __float__(self):
        raise _NotInField("float")

    def dot(self, b: Any, out: Any = None) -> Any:
        if out is not None or self.ndim > 2 or np.ndim(b) > 2:
            raise _NotInField("dot")
        return _as_field(_field_matmul(np.asarray(self, dtype=np.int64), np.asarray(_lift(b, self.p), dtype=np.int64),
                                       self.p), self.p)

    def __int__(self):
        if self.ndim == 0:
            return int(self.view(np.ndarray))
        raise _NotInField("int")

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, out: Any = None, **kwargs: Any) -> Any:
        p = self.p
        args = [_lift(x, p) for x in inputs]
        if method == "__call__" and not kwargs:
            if ufunc is np.add:
                r = np.add(*args) % p
            elif ufunc is np.subtract:
                r = np.subtract(*args) % p
            elif ufunc is np.multiply:
                r = np.multiply(*args) % p
            elif ufunc is np.negative:
                r = np.negative(args[0]) % p
            elif ufunc is np.positive:
                r = np.array(args[0], copy=True)
            elif ufunc is np.true_divide:
                b = np.asarray(args[1], dtype=np.int64)
                if np.any(b % p == 0):
                    raise ZeroDivisionError("reference: division by an element that is 0 mod p")
                r = np.multiply(args[0], _inverse(b, p)) % p
            elif ufunc is np.matmul:
                r = _field_matmul(*(np.asarray(x, dtype=np.int64) for x in args), p)
            else:
                raise _NotInField(ufunc.__name__)
        elif ufunc is np.add and method in ("reduce", "accumulate") and not set(kwargs) - {"axis", "dtype", "keepdims"}:
            kwargs.pop("dtype", None)
            r = getattr(np.add, method)(np.asarray(args[0], dtype=np.int64), **kwargs) % p
        else:
            raise _NotInField(f"{ufunc.__name__}.{method}")
        return _result(r, out, lambda v: _as_field(v, p))

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        p = self.p
        if func in (np.sum, np.cumsum):
            a = _lift(args[0], p)
            return _as_field(func(np.asarray(a, dtype=np.int64), *args[1:], **kwargs) % p, p)
        if func not in _STRUCTURAL:
            raise _NotInField(func.__name__)

        def plain(x):
            if isinstance(x, (list, tuple)):
                return type(x)(plain(y) for y in x)
            return _lift(x, p) if isinstance(x, np.ndarray) else x
        r = func(*plain(list(args)), **kwargs)
        return _as_field(r, p) if isinstance(r, np.ndarray) else r


def _field_matmul(a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """(a @ b) mod p for int64 residues in [0, p), p < 2^31: a is split into 16-bit limbs and the
    inner dimension into blocks of 2^15, so no int64 sum overflows (terms below 2^47).  Splitting
    a, not b, keeps the temporaries small when a is a weight matrix and b the state.

    >>> _field_matmul(np.array([[3, 4]]), np.array([[5], [6]]), 7).tolist(), int(_field_matmul(np.array([3, 4]), np.array([5, 6]), 7))
    ([[4]], 4)
    """
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    r = None
    for s in range(0, max(a2.shape[-1], 1), 1 << 15):
        ab, bb = a2[..., s:s + (1 << 15)], b2[..., s:s + (1 << 15), :]
        part = ((np.matmul(ab >> 16, bb) % p) * 65536 + np.matmul(ab & 0xFFFF, bb)) % p
        r = part if r is None else (r + part) % p
    if b.ndim == 1:
        r = r[..., 0]
    if a.ndim == 1:
        r = r[..., 0, :] if b.ndim > 1 else r[..., 0]
    return r


def _inverse(b: np.ndarray, p: int) -> np.ndarray:
    """Elementwise b^(p−2) mod p (Fermat), vectorised by square and multiply."""
    result = np.ones_like(b)
    base = b % p
    e = p - 2
    while e:
        if e & 1:
            result = result * base % p
        base = base * base % p
        e >>= 1
    return result


class ModP:
    """An element of F_p that mixes exactly with ints, Fractions and floats.

    The claim's ``reference`` runs on arrays of these, so its constants
    (2, 1/2, 0.25) are read exactly.  Converting one to float or int raises:
    a reference must build arrays with ``np.zeros_like(u)``, not ``np.zeros``.

    >>> x = ModP(3, 7)
    >>> (x * 5 + 1).v, (x / 2).v, (1 - x).v
    (2, 5, 5)
    """

    __slots__ = ("v", "p")

    def __init__(self, v: int, p: int) -> None:
        self.v, self.p = v % p, p

    def _c(self, o: Any) -> int:
        t = type(o)
        if t is ModP:
            if o.p != self.p:
                raise HypothesisError("reference: mixes elements of two different fields")
            return o.v
        if t is int or t is np.int64:
            return int(o) % self.p
        try:  # constants repeat (a filter tap, a twiddle): map each once
            key = (o, self.p)
            v = _FLOATS.get(key)
        except TypeError:  # unhashable
            return field_value(o, self.p, "reference")
        if v is None:
            if len(_FLOATS) > 1 << 16:
                _FLOATS.clear()
            v = _FLOATS[key] = field_value(o, self.p, "reference")
        return v

    def __add__(self, o): return ModP(self.v + self._c(o), self.p)
    __radd__ = __add__
    def __sub__(self, o): return ModP(self.v - self._c(o), self.p)
    def __rsub__(self, o): return ModP(self._c(o) - self.v, self.p)
    def __mul__(self, o): return ModP(self.v * self._c(o), self.p)
    __rmul__ = __mul__
    def __neg__(self): return ModP(-self.v, self.p)
    def __pos__(self): return self

    def __truediv__(self, o):
        c = self._c(o)
        if c == 0:
            raise ZeroDivisionError("reference: division by an element that is 0 mod p")
        return ModP(self.v * pow(c, -1, self.p), self.p)

    def __rtruediv__(self, o):
        if self.v == 0:
            raise ZeroDivisionError("reference: division by an element that is 0 mod p")
        return ModP(self._c(o) * pow(self.v, -1, self.p), self.p)

    def __pow__(self, e):
        if not isinstance(e, (int, np.integer)) or e < 0:
            raise HypothesisError(f"reference: only non-negative integer powers are exact (got {e!r})")
        return ModP(pow(self.v, int(e), self.p), self.p)

    def __eq__(self, o):
        try:
            return self.v == self._c(o)
        except HypothesisError:
            return NotImplemented

    def __hash__(self):
        return hash((self.v, self.p))

    def __float__(self):
        raise TypeError("exact check: the reference converted a field element to float "
                        "(build arrays with np.zeros_like(u), not np.zeros)")

    def __int__(self):
        raise TypeError("exact check: the reference converted a field element to int "
                        "(build arrays with np.zeros_like(u), not np.zeros)")

    def __repr__(self):
        return f"ModP({self.v}, {self.p})"


class Degree:
    """A stand-in for a polynomial that tracks only (an upper bound on) its degree.

    >>> x = Degree(1)
    >>> (x * x + 3 * x - 1).d, (0 * x).d
    (2, -inf)
    """

    __slots__ = ("d",)

    def __init__(self, d: float) -> None:
        self.d = d

    @staticmethod
    def _c(o: Any) -> float:
        if isinstance(o, Degree):
            return o.d
        if isinstance(o, (bool, np.bool_)):
            raise TypeError("booleans")
        return -math.inf if o == 0 else 0

    def __add__(self, o): return Degree(max(self.d, self._c(o)))
    __radd__ = __add__
    __sub__ = __add__
    __rsub__ = __add__
    def __mul__(self, o): return Degree(self.d + self._c(o))
    __rmul__ = __mul__
    def __neg__(self): return self
    def __pos__(self): return self

    def __truediv__(self, o):
        if isinstance(o, Degree) and o.d != 0:
            raise TypeError("division by a non-constant")
        return self

    def __pow__(self, e): return Degree(self.d * int(e))

    def __float__(self):
        raise TypeError("degree tracker")

    __int__ = __float__


_ZERO_DEG = -(1 << 40)  # the degree of the zero polynomial, as an int64


def _deg_lift(x: Any) -> Any:
    if isinstance(x, DegreeArray):
        return x.view(np.ndarray)
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, np.ndarray) and x.dtype.kind == "b"):
        raise _NotInField("booleans")
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            raise _NotInField("object array")
        return np.where(x != 0, 0, _ZERO_DEG).astype(np.int64)
    if isinstance(x, (int, np.integer, float, np.floating, Fraction)):
        return 0 if x != 0 else _ZERO_DEG
    raise _NotInField(type(x).__name__)


def _as_deg(a: Any) -> "DegreeArray":
    return np.maximum(np.asarray(a, dtype=np.int64), _ZERO_DEG).view(DegreeArray)


class DegreeArray(np.ndarray):
    """Vectorised :class:`Degree`: int64 upper bounds on the degree of each entry.

    >>> x = _as_deg(np.ones((1, 3), dtype=np.int64))
    >>> (x * x + 2 * x).tolist(), (np.cumsum(x * 0.5, axis=1) @ np.ones((3, 1))).tolist()
    ([[2, 2, 2]], [[1]])
    """

    def __setitem__(self, key: Any, value: Any) -> None:
        self.view(np.ndarray)[key] = _deg_lift(value)

    def astype(self, *args: Any, **kwargs: Any) -> Any:
        raise _NotInField("astype")

    def __float__(self):
        raise _NotInField("float")

    def dot(self, *args: Any, **kwargs: Any) -> Any:  # would multiply degrees as numbers
        raise _NotInField("dot")

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, out: Any = None, **kwargs: Any) -> Any:
        args = [_deg_lift(x) for x in inputs]
        if method == "__call__" and not kwargs:
            if ufunc in (np.add, np.subtract):
                r = np.maximum(*args)
            elif ufunc is np.multiply:
                r = np.maximum(np.add(*args), _ZERO_DEG)
            elif ufunc in (np.negative, np.positive):
                r = np.array(args[0], copy=True)
            elif ufunc is np.true_divide:
                if np.any(np.asarray(args[1]) > 0):
                    raise _NotInField("division by a non-constant")
                r = np.array(args[0], copy=True)
            elif ufunc is np.matmul:
                a, b = (np.asarray(x, dtype=np.int64) for x in args)
                if a.ndim < 2 or b.ndim != 2:
                    raise _NotInField("matmul shapes")
                r = np.max(np.maximum(a[..., :, :, None] + b, _ZERO_DEG), axis=-2)
            else:
                raise _NotInField(ufunc.__name__)
        elif ufunc is np.add and method in ("reduce", "accumulate") and not set(kwargs) - {"axis", "dtype", "keepdims"}:
            kwargs.pop("dtype", None)
            r = getattr(np.maximum, method)(np.asarray(args[0], dtype=np.int64), **kwargs)
        else:
            raise _NotInField(f"{ufunc.__name__}.{method}")
        return _result(r, out, _as_deg)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func in (np.sum, np.cumsum):
            f = np.max if func is np.sum else np.maximum.accumulate
            kw = {k: v for k, v in kwargs.items() if k in ("axis", "keepdims") and not (f is not np.max and k == "keepdims")}
            a = np.asarray(_deg_lift(args[0]), dtype=np.int64)
            if func is np.cumsum and kw.get("axis") is None:
                a, kw = a.reshape(-1), {"axis": 0}
            return _as_deg(f(a, **kw))
        if func not in _STRUCTURAL:
            raise _NotInField(func.__name__)

        def plain(x):
            if isinstance(x, (list, tuple)):
                return type(x)(plain(y) for y in x)
            return _deg_lift(x) if isinstance(x, np.ndarray) else x
        r = func(*plain(list(args)), **kwargs)
        return _as_deg(r) if isinstance(r, np.ndarray) else r


def stack_degree(stack: Stack) -> int:
    """Upper bound on the degree of the stack's output as a polynomial in its input.

    A layer maps degree k to (k if W ≠ 0 else 0) + (k if h ≠ 0 else 0).

    >>> from symconv.constructions.sums import add_n
    >>> stack_degree(add_n(1, 4))
    1
    """
    k = 1
    for layer in stack.layers:
        g = k if np.any(layer.W != 0) else 0
        c = k if np.any(layer.h != 0) else 0
        k = g + c
    return k


def reference_degree(reference: Callable[[Any], Any], shape: tuple) -> int | None:
    """Degree of ``reference`` found by running it on degree trackers (None if it cannot run).

    >>> reference_degree(lambda u: u * u[:, ::-1] + 1, (1, 4, 1))
    2
    """
    try:
        out = reference(_as_deg(np.ones(shape, dtype=np.int64)))
        if isinstance(out, DegreeArray):
            m = int(np.max(out.view(np.ndarray))) if out.size else _ZERO_DEG
            return max(0, m)
    except Exception:  # noqa: BLE001 - fall back to degree objects
        pass
    u = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        u[idx] = Degree(1)
    try:
        out = np.asarray(reference(u), dtype=object)
    except Exception:  # noqa: BLE001 - any failure means "unknown"
        return None
    best = -math.inf
    for v in out.flat:
        best = max(best, Degree._c(v) if not isinstance(v, Degree) else v.d)
    return 0 if best == -math.inf else int(best)


# --------------------------------------------------------------------------- convolutions mod p


def _bitrev(n: int) -> np.ndarray:
    bits = n.bit_length() - 1
    idx = np.arange(n)
    rev = np.zeros(n, dtype=np.int64)
    for b in range(bits):
        rev |= ((idx >> b) & 1) << (bits - 1 - b)
    return rev


def _root_powers(g: int, half: int, p: int) -> np.ndarray:
    """[g^0, g^1, ..., g^(half-1)] mod p, by doubling."""
    w = np.ones(1, dtype=np.int64)
    while w.size < half:
        w = np.concatenate([w, w * pow(g, int(w.size), p) % p])
    return w[:half]


def ntt(a: np.ndarray, p: int, inverse: bool = False) -> np.ndarray:
    """Number-theoretic transform mod p over the last axis (length a power of two).

    >>> x = np.array([[1, 2, 3, 0]])
    >>> ntt(ntt(x, PRIME), PRIME, inverse=True).tolist()
    [[1, 2, 3, 0]]
    """
    n = a.shape[-1]
    if n & (n - 1):
        raise HypothesisError(f"n: NTT length must be a power of two, got {n}")
    if (p - 1) % n:
        raise HypothesisError(f"p: {p} - 1 is not divisible by the NTT length {n}; pick an NTT prime")
    if p not in _GENERATORS:
        raise HypothesisError(f"p: no known generator for {p}; use one of {sorted(_GENERATORS)}")
    g = pow(_GENERATORS[p], (p - 1) // n, p)
    if inverse:
        g = pow(g, -1, p)
    lead = a.shape[:-1]
    x = np.ascontiguousarray(a.reshape(-1, n)[:, _bitrev(n)]) if n > 1 else a.reshape(-1, n).copy()
    table = _root_powers(g, max(1, n // 2), p)
    length = 2
    while length <= n:
        half = length // 2
        w = table[:: n // length][:half]
        y = x.reshape(x.shape[0], n // length, 2, half)
        u = y[:, :, 0, :]
        v = y[:, :, 1, :] * w % p
        out = np.empty_like(y)
        np.add(u, v, out=out[:, :, 0, :])
        np.subtract(u, v, out=out[:, :, 1, :])
        x = (out % p).reshape(-1, n)
        length *= 2
    if inverse:
        x = x * pow(n, -1, p) % p
    return x.reshape(*lead, n)


def _conv_ntt(x: np.ndarray, h: np.ndarray, p: int) -> np.ndarray:
    """Full linear convolution of rows: x (B, d, N), h (d, K) → (B, d, N+K−1) mod p."""
    B, d, N = x.shape
    K = h.shape[-1]
    L = N + K - 1
    n = 1 << max(0, (L - 1).bit_length())
    H = ntt(np.pad(h, ((0, 0), (0, n - K))), p)
    out = np.empty((B, d, L), dtype=np.int64)
    rows = max(1, (1 << 22) // n)  # keep each block near 2^22 residues
    flat_x, flat_o = x.reshape(B * d, N), out.reshape(B * d, L)
    for r0 in range(0, B * d, rows):
        r1 = min(B * d, r0 + rows)
        X = ntt(np.pad(flat_x[r0:r1], ((0, 0), (0, n - N))), p)
        X = X * H[np.arange(r0, r1) % d] % p
        flat_o[r0:r1] = ntt(X, p, inverse=True)[:, :L]
    return out


def _conv_flint(x: np.ndarray, h: np.ndarray, p: int) -> np.ndarray:
    """Same as :func:`_conv_ntt`, one ``nmod_poly`` product per row (python-flint)."""
    import flint

    B, d, N = x.shape
    K = h.shape[-1]
    L = N + K - 1
    out = np.zeros((B, d, L), dtype=np.int64)
    hp = [flint.nmod_poly(h[j].tolist(), p) for j in range(d)]
    for b in range(B):
        for j in range(d):
            if not hp[j].length():
                continue
            c = (flint.nmod_poly(x[b, j].tolist(), p) * hp[j]).coeffs()
            if c:
                out[b, j, : len(c)] = list(map(int, c))
    return out


#: Largest planned rounding error of a limb split (the proved bound, checked after the transforms, must be < 1/2).
FFT_ERROR_TARGET = 0.35


def _balanced(a: np.ndarray, p: int) -> np.ndarray:
    """Residues as integers in (−p/2, p/2]."""
    if not (a.size and int(a.min()) >= 0 and int(a.max()) < p):  # already residues: no division
        a = np.mod(a, p)
    return np.where(a > p // 2, a - p, a)


def _digits(a: np.ndarray, bits: int, count: int | None = None) -> Any:
    """Balanced base-2^bits digits of int64 ``a``, low first (int64 arrays, one at a time).

    Every digit but the last has |digit| ≤ 2^(bits−1); with ``count`` there
    are exactly that many (the last takes the rest), else as many as ``a`` needs.

    >>> [d.tolist() for d in _digits(np.array([1000]), 4)]
    [[-8], [-1], [4]]
    """
    half, mask = 1 << (bits - 1), (1 << bits) - 1
    v = a.astype(np.int64, copy=True)
    k = 0
    while True:
        if count is not None and k == count - 1:
            yield v
            return
        r = v + half
        r &= mask
        r -= half
        yield r
        k += 1
        v -= r
        v >>= bits
        if count is None and not np.any(v):
            return


def _limbs(a: np.ndarray, bits: int, count: int | None = None) -> list[np.ndarray]:
    """:func:`_digits` as a list of float64 arrays.

    >>> [d.tolist() for d in _limbs(np.array([1000]), 4)]
    [[-8.0], [-1.0], [4.0]]
    """
    return [r.astype(np.float64) for r in _digits(a, bits, count)]


def _digit_bounds(R: int, bits: int) -> list[float]:
    """Bounds on |digit| of the balanced base-2^bits digits of any |r| ≤ R (as :func:`_limbs` makes them).

    >>> _digit_bounds(1000, 4)
    [8.0, 8.0, 4.0]
    """
    out, rest = [], R
    while rest > (1 << (bits - 1)):
        out.append(float(1 << (bits - 1)))
        rest = (rest + (1 << (bits - 1))) >> bits  # |(r − digit)/2^bits| ≤ (R + 2^(bits−1))/2^bits
    out.append(float(rest))
    return out


def fft_conv_bound(x1: float, x2: float, h1: float, h2: float, F: int) -> float:
    """A-priori bound on max |computed − exact| of one float64 FFT convolution of length F.

    ``x1, x2`` (``h1, h2``) bound the 1- and 2-norms of every row of the
    signal (filter).  The bound of :func:`symconv.numeric.error_bound_doc`
    with both spectra computed in float64: (2η + 3ε)·‖x‖₂‖h‖₁ + (η + ε)·‖x‖₁‖h‖₂,
    η = 7·ε·log2 F, ε = 2^−53 (Higham, Thm 24.2).

    >>> fft_conv_bound(2.0 ** 20, 2.0 ** 15, 2.0 ** 10, 2.0 ** 5, 2 ** 21) < 0.5
    True
    """
    eps = 2.0 ** -53
    eta = 7.0 * eps * math.log2(max(2, F))
    return (2 * eta + 3 * eps) * x2 * h1 + (eta + eps) * x1 * h2


def limb_pair_bound(x2: Any, Xinf: Any, h2: Any, Hinf: Any, F: int, m: int) -> Any:
    """One pair's share of the bound on max |computed − exact| of Σ_(a,b) x_a ⊛ h_b by float64 FFTs.

    The m pairs (a, b) of a sum share one inverse transform; the bound of the
    sum is the sum of the pairs' shares.  ``x2`` = ‖x_a‖₂, ``Xinf`` = max |X̂_a|
    (the computed spectrum's largest modulus), ``h2``, ``Hinf`` likewise; they
    broadcast (one entry per row).  F is a power of two, so the inverse's 1/F
    is exact.  With ε = 2^−53 and η = 7·ε·log2 F the normwise error of one
    FFT (Higham, Thm 24.2: ‖X̂ − X‖₂ ≤ η‖X‖₂, ‖X‖₂ = √F·‖x‖₂), and θ = (3 + 2m)·ε
    that of the m complex products and their sum (√5·ε per product,
    √2·γ_(m−1) for the sum), the output's error has 2-norm at most
    Σ ‖x_a‖₂‖Ĥ_b‖∞·(η + (1 + η)θ + η(1 + θ)(1 + η)) + η‖h_b‖₂·(‖X̂_a‖∞ + η√F‖x_a‖₂)
    (forward errors X̂−X times Ĥ, X times Ĥ−H with ‖X‖∞ ≤ ‖X̂‖∞ + η√F‖x‖₂;
    the products; the inverse), after the 1/√F the inverse applies to 2-norms;
    the 2-norm bounds the largest entry.  Widened by (1 + 8ε).

    >>> float(limb_pair_bound(2.0 ** 20, 2.0 ** 22, 2.0 ** 10, 2.0 ** 12, 2 ** 21, 1)) < 0.5
    True
    """
    eps = 2.0 ** -53
    eta = 7.0 * eps * math.log2(max(2, F))
    theta = (3 + 2 * m) * eps
    k = eta + (1 + eta) * theta + eta * (1 + theta) * (1 + eta)
    return (x2 * Hinf * k + eta * h2 * (Xinf + eta * math.sqrt(F) * x2)) * (1 + 8 * eps)


@dataclass(frozen=True)
class LimbPlan:
    """How one channel's exact convolution is split: digit bits of the signal and the filter (0: not split)."""

    x_bits: int
    x_count: int
    h_bits: int
    h_count: int

    def groups(self) -> dict[int, list[tuple[int, int]]]:
        """Pairs (signal limb, filter limb) by the exponent of their weight 2^e: one inverse FFT each."""
        out: dict[int, list] = {}
        for a in range(self.x_count):
            for b in range(self.h_count):
                out.setdefault(self.x_bits * a + self.h_bits * b, []).append((a, b))
        return out

    @property
    def transforms(self) -> int:
        return self.x_count + len(self.groups())


#: Digit sizes (bits) tried for the limbs, widest (fewest transforms) first.
_LIMB_BITS = tuple(range(26, 3, -1))


@dataclass(frozen=True)
class _Guess:
    """How limb norms are predicted when a split is planned: ‖v‖₂ ≈ rms·D√n and max |V̂| ≈ kappa·‖v‖₂
    for digits bounded by D (random-like data: rms ≈ 1/√3, kappa ≈ √(ln F)); ``kappa=None``: the worst case."""

    kappa: float | None
    rms: float


def _limb_norms(D: float, n: int, F: int, guess: _Guess) -> tuple[float, float]:
    """(‖v‖₂, max |V̂|) planned for n digits bounded by D."""
    if guess.kappa is None:
        eta = 7.0 * 2.0 ** -53 * math.log2(max(2, F))
        return D * math.sqrt(n), D * n + eta * math.sqrt(F * n) * D
    v2 = guess.rms * D * math.sqrt(n)
    return v2, min(D * n, guess.kappa * v2)


def _plan_bound(plan: LimbPlan, xn: list, hn: list, F: int) -> float:
    """The largest bound of a group of pairs, from planned (‖·‖₂, max |spectrum|) per signal and filter limb."""
    return max(sum(limb_pair_bound(xn[a][0], xn[a][1], hn[b][0], hn[b][1], F, len(pairs)) for a, b in pairs)
               for pairs in plan.groups().values())


def _choose_plan(R: int, hb: np.ndarray, N: int, F: int, guess: _Guess) -> LimbPlan | None:
    """The limb split with fewest transforms whose planned bound is below :data:`FFT_ERROR_TARGET`.

    The filter row ``hb`` (balanced residues) is either not split (one limb,
    its own norms and sum) or split with the signal's digit size; signal
    residues are bounded by R.  Norms are planned by ``guess``; the proved
    bound is checked after the transforms.  None when no split fits.
    """
    K = hb.shape[-1]
    hf = hb.astype(np.float64)
    h1 = float(np.sum(np.abs(hf)))
    h2 = math.sqrt(float(np.dot(hf, hf))) * (1 + (K + 2) * 2.0 ** -53)
    if guess.kappa is None:
        eta = 7.0 * 2.0 ** -53 * math.log2(max(2, F))
        whole = (h2, h1 + eta * math.sqrt(F) * h2)
    else:
        whole = (h2, min(h1, max(abs(float(np.sum(hf))), guess.kappa * h2)))
    hmax = int(np.max(np.abs(hb))) if hb.size else 0
    best = None
    for bits in _LIMB_BITS:
        xD = _digit_bounds(R, bits)
        xn = [_limb_norms(D, N, F, guess) for D in xD]
        cands = [(LimbPlan(bits, len(xD), 0, 1), [whole])]
        hD = _digit_bounds(hmax, bits)
        if len(hD) > 1:
            cands.append((LimbPlan(bits, len(xD), bits, len(hD)), [_limb_norms(D, K, F, guess) for D in hD]))
        for plan, hn in cands:
            if _plan_bound(plan, xn, hn, F) < FFT_ERROR_TARGET:
                cost = plan.h_count + plan.transforms
                if best is None or cost < best[0]:
                    best = (cost, plan)
    return None if best is None else best[1]


def _reduce_float(r: np.ndarray, p: int) -> np.ndarray:
    """Exact integers |r| < 2^52 (float64) → residues in [−p/2 − 1, p/2 + 1] (int64), by one rounded quotient."""
    q = np.rint(r * (1.0 / p))
    q *= p  # exact: |q·p| < 2^53
    r = r - q
    return r.astype(np.int64)


def _reduce_int(acc: np.ndarray, p: int) -> np.ndarray:
    """int64 |acc| < 2^63 → residues in [0, p) (float quotient, corrected once)."""
    q = np.rint(acc.astype(np.float64) * (1.0 / p)).astype(np.int64)
    q *= p
    r = acc - q  # |r| ≤ p/2 + 1
    r += p * (r < 0)
    return r


class _LimbFailed(Exception):
    """A proved bound of a limb plan was not below 1/2 on the actual data; carries the norms' measured ratios."""

    def __init__(self, bound: float, kappa: float, rms: float) -> None:
        super().__init__(f"limb product bound {bound:.3g} is not below 1/2")
        self.bound, self.kappa, self.rms = bound, kappa, rms


def _spectra(fplan: Any, digits: Any, n: int, slots: list, D: list) -> tuple[list, float, float]:
    """Forward FFTs of digit rows (length n each) into ``slots``; [(‖v‖₂, max |V̂|)], and the largest ratios
    max |V̂|/‖v‖₂ and ‖v‖₂/(D√n) seen (for replanning)."""
    eps = 2.0 ** -53
    norms, kappa, rms = [], 0.0, 0.0
    fplan.inp[0, n:] = 0
    v = fplan.inp[0, :n]
    for digit, S, bound in zip(digits, slots, D):
        v[...] = digit
        fplan.forward_into(S)
        v2 = math.sqrt(float(np.dot(v, v))) * (1 + (n + 2) * eps)  # γ_n of the dot product
        vinf = float(np.max(np.abs(S))) * (1 + 4 * eps)
        norms.append((v2, vinf))
        if v2 > 0:
            kappa = max(kappa, vinf / v2)
            rms = max(rms, v2 / (max(bound, 1.0) * math.sqrt(n)))
    return norms, kappa, rms


def _channel_fft(xb: np.ndarray, hb: np.ndarray, p: int, F: int, keep: int, plan: LimbPlan, fplan: Any,
                 out: np.ndarray) -> float:
    """out[r] = (x_r ⊛ h)[:keep] mod p for balanced residues xb (rows, N) and hb (K,); the worst proved bound.

    Raises :class:`_LimbFailed` when a proved bound is not below 1/2 (rows
    before the failing one are written).
    """
    rows, N = xb.shape
    K = hb.shape[0]
    R = p // 2
    hD = _digit_bounds(R if plan.h_bits else int(np.max(np.abs(hb))), plan.h_bits or 64)
    hl = _digits(hb, plan.h_bits, plan.h_count) if plan.h_bits else [hb]
    H = [fplan.spectrum_buffer() for _ in range(plan.h_count)]
    hn, hk, hr = _spectra(fplan, hl, K, H, hD)
    X = [fplan.spectrum_buffer() for _ in range(plan.x_count)]
    xD = _digit_bounds(R, plan.x_bits)
    groups = list(plan.groups().items())
    weights = [(pow(2, e, p) + p // 2) % p - p // 2 for e, _ in groups]  # balanced 2^e mod p
    spec = fplan.spec if getattr(fplan, "spec", None) is not None else fplan.spectrum_buffer()
    tmp = np.empty_like(spec[0])
    worst = 0.0
    for r in range(rows):
        xn, xk, xr = _spectra(fplan, _digits(xb[r], plan.x_bits, plan.x_count), N, X, xD)
        bound = max(sum(limb_pair_bound(xn[a][0], xn[a][1], hn[b][0], hn[b][1], F, len(pairs))
                        for a, b in pairs) for _, pairs in groups)
        if not bound < 0.5:
            raise _LimbFailed(bound, max(xk, hk), max(xr, hr))
        worst = max(worst, bound)
        acc = np.zeros(keep, dtype=np.int64)
        for i, ((_, pairs), w) in enumerate(zip(groups, weights)):
            a, b = pairs[0]
            np.multiply(X[a][0], H[b][0], out=spec[0])
            for a, b in pairs[1:]:
                np.multiply(X[a][0], H[b][0], out=tmp)
                spec[0] += tmp
            c = fplan.backward(spec)[0, :keep]
            # |c − exact| < 1/2, so rounding gives the exact sum (|exact| < 2^50: the bound is ≥ 7ε·|exact|)
            t = _reduce_float(np.rint(c), p)
            if w != 1:
                t *= w
            acc += t  # |t| ≤ (p/2 + 1)·p/2 < 2^60: 7 terms stay below 2^63
            if i % 7 == 6:
                acc = _reduce_int(acc, p)
        out[r] = _reduce_int(acc, p)
    return worst


#: Plans kept for reuse across calls, per (thread, length); two at most.
_PLANS: dict = {}


def _fft_plan_for(F: int) -> Any:
    from .numeric import CpuFFT

    key = (threading.get_ident(), F)
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= 2:
            _PLANS.pop(next(iter(_PLANS)))
        plan = _PLANS[key] = CpuFFT("auto").plan(1, F, np.float64)
    return plan


def _conv_fft(x: np.ndarray, h: np.ndarray, p: int, workers: int | None = None,
              keep: int | None = None, stats: dict | None = None) -> np.ndarray:
    """Same as :func:`_conv_ntt` (coefficients ``:keep``, default all), by float64 FFTs of balanced limbs.

    Per channel, residues in (−p/2, p/2] are split into balanced digits
    (:func:`_choose_plan`: fewest transforms whose planned bound is small); the
    products of limbs with the same weight 2^e are summed in the frequency
    domain and share one inverse FFT.  Before rounding, the proved bound of
    :func:`limb_pair_bound` is evaluated on the actual norms and spectra; when
    it is below 1/2 each sum is rounded to the exact integer, reduced mod p and
    recombined.  Otherwise the channel is replanned with the measured norms,
    then for the worst case, and done by the NTT when no split fits.
    ``stats``, when given, receives the plans used and the worst proved bound.
    """
    from .numeric import default_workers

    B, d, N = x.shape
    K = h.shape[-1]
    L = N + K - 1
    keep = L if keep is None else keep
    F = 1 << max(1, (L - 1).bit_length())
    R = p // 2
    xb = _balanced(x, p)
    hb = _balanced(h, p)
    out = np.empty((B, d, keep), dtype=np.int64)
    log = [] if stats is None else stats.setdefault("plans", [])

    def channel(j: int) -> None:
        if not np.any(hb[j]):
            out[:, j] = 0
            return
        guess = _Guess(1.25 * math.sqrt(math.log(F)), 1.1 / math.sqrt(3))
        for attempt in range(3):
            plan = _choose_plan(R, hb[j], N, F, guess)
            if plan is None:
                break
            try:
                bound = _channel_fft(xb[:, j], hb[j], p, F, keep, plan, _fft_plan_for(F), out[:, j])
                log.append((j, plan, bound))
                return
            except _LimbFailed as exc:
                log.append((j, plan, exc.bound))
                guess = _Guess(None, 1.0) if attempt else _Guess(1.25 * max(exc.kappa, guess.kappa),
                                                                 1.1 * max(exc.rms, guess.rms))
        log.append((j, "ntt", 0.0))
        out[:, j] = _conv_ntt(x[:, j:j + 1] % p, h[j:j + 1], p)[:, 0, :keep]

    workers = min(d, workers or default_workers())
    if workers <= 1:
        for j in range(d):
            channel(j)
    else:
        with ThreadPoolExecutor(workers) as pool:
            for f in [pool.submit(channel, j) for j in range(d)]:
                f.result()
    return out


def _have_flint() -> bool:
    try:
        import flint  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_method(method: str) -> str:
    """``auto`` → ``fft`` (float64 FFTs of limbs, rounded exactly: the fastest measured here;
    see ``symconv bench numeric``; filters with few non-zero taps by shifted sums, see
    :func:`convolve_mod`); ``flint`` and ``ntt`` on request.

    >>> resolve_method("auto"), resolve_method("ntt")
    ('fft', 'ntt')
    """
    if method not in METHODS:
        raise HypothesisError(f"method: expected one of {METHODS}, got {method!r}")
    if method == "auto":
        return "fft"
    if method == "flint" and not _have_flint():
        raise HypothesisError("method: python-flint is not installed (pip install 'symconv[exact]')")
    return method


#: Filters with at most this many non-zero taps are convolved by shifted sums (the ``fft`` method):
#: O(taps·N) integer operations, against several float FFTs of length 2N per limb.
DIRECT_TAPS = 24


def _by_shifts(h: np.ndarray) -> np.ndarray:
    """Which channels (rows of h, residues) the ``fft`` method convolves by shifted sums."""
    return np.count_nonzero(h, axis=-1) <= DIRECT_TAPS


def _conv_direct(x: np.ndarray, h: np.ndarray, p: int, mode: str) -> np.ndarray:
    """Per-channel convolution mod p by shifted sums over the non-zero taps (exact in int64:
    each product of residues is below 2^62).

    >>> _conv_direct(np.array([[[1, 2, 3]]]), np.array([[0, 1]]), 17, "circular").tolist()
    [[[3, 1, 2]]]
    """
    B, d, N = x.shape
    out = np.zeros_like(x)
    for j in range(d):
        acc = out[:, j]
        for k in np.flatnonzero(h[j]).tolist():
            c = int(h[j, k]) % p
            if mode == "causal":
                acc[:, k:] = (acc[:, k:] + c * x[:, j, : N - k]) % p
            else:
                acc[...] = (acc + c * np.roll(x[:, j], k, axis=-1)) % p
    return out


def convolve_mod(x: np.ndarray, h: np.ndarray, p: int, mode: str = "causal", method: str = "auto") -> np.ndarray:
    """Per-channel convolution mod p: x (B, d, N), h (d, K ≤ N) → (B, d, N).

    ``causal`` keeps coefficients 0..N−1 of h_j(X)·x_j(X); ``circular`` reduces
    the product mod X^N − 1.  With the ``fft`` method (the default), channels whose
    filter has at most :data:`DIRECT_TAPS` non-zero taps (routing shifts, masks)
    are summed directly instead.

    >>> x = np.array([[[1, 2, 3]]]); h = np.array([[0, 1]])
    >>> convolve_mod(x, h, 17, "causal", "ntt").tolist(), convolve_mod(x, h, 17, "circular", "ntt").tolist()
    ([[[0, 1, 2]]], [[[3, 1, 2]]])
    """
    method = resolve_method(method)
    N = x.shape[-1]
    if h.shape[-1] == 0 or not np.any(h):
        return np.zeros_like(x)
    if h.shape[-1] > N:
        raise HypothesisError(f"h: filter length {h.shape[-1]} exceeds N' = {N}")
    if method == "fft":
        few = _by_shifts(h)
        if np.any(few):  # the shifted sums need int64 residues in [0, p): reduce whatever came in
            x, h = (a % p if a.dtype == np.int64 else to_field(a, p, name) for a, name in ((x, "x"), (h, "h")))
        if np.all(few):
            return _conv_direct(x, h, p, mode)
        if np.any(few):
            out = np.empty_like(x)
            out[:, few] = _conv_direct(x[:, few], h[few], p, mode)
            out[:, ~few] = convolve_mod(x[:, ~few], h[~few], p, mode, "fft")
            return out
        full = _conv_fft(x, h, p, keep=N if mode == "causal" else None)
    else:
        full = {"flint": _conv_flint, "ntt": _conv_ntt}[method](x, h, p)
    out = full[..., :N].copy()
    if mode == "circular" and full.shape[-1] > N:
        tail = full[..., N:]
        out[..., : tail.shape[-1]] += tail
        out %= p
    return out


def conv_paths(stack: Stack, p: int = PRIME, method: str = "auto") -> str:
    """How :func:`run_mod` convolves ``stack``'s channels with ``method``: for ``fft``, how many of
    the layers' non-zero channel filters go by shifted sums (at most :data:`DIRECT_TAPS` non-zero
    taps mod p) and how many by limb FFTs.

    >>> from symconv.constructions.sums import add_n
    >>> conv_paths(add_n(2, 4))
    'fft: 2 of 2 channel filters by shifted sums (≤ 24 non-zero taps), 0 by limb FFTs'
    """
    method = resolve_method(method)
    if method != "fft":
        return method
    few = many = 0
    for i, layer in enumerate(stack.layers):
        hT = to_field(layer.h, p, f"layers[{i}].h").T
        hT = np.broadcast_to(hT, (stack.d_int, hT.shape[-1]))
        shifts = _by_shifts(hT)
        many += int(np.count_nonzero(~shifts))
        few += int(np.count_nonzero(shifts & np.any(hT, axis=-1)))
    return (f"fft: {few} of {few + many} channel filters by shifted sums (≤ {DIRECT_TAPS} non-zero taps), "
            f"{many} by limb FFTs")


def _matmul_mod(WT: np.ndarray, z: np.ndarray, p: int) -> np.ndarray:
    """(WT @ z) mod p: :func:`_field_matmul`, which splits the small WT into limbs (one block:
    ``run_mod`` refuses d' ≥ 2^15)."""
    return _field_matmul(WT, z, p)


def estimate_mod_bytes(stack: Stack, batch: int, method: str = "fft") -> int:
    """Bytes :func:`run_mod` needs: int64 states (input, state, gate, convolution) and the FFT blocks.

    >>> from symconv.constructions.shifts import shift_down
    >>> estimate_mod_bytes(shift_down(1 << 10, 1), 1) > 4 * 8 * (1 << 10)
    True
    """
    from .numeric import default_workers

    act = int(batch) * stack.N_int * stack.d_int * 8
    F = 1 << max(0, (2 * stack.N_int - 1).bit_length())
    # per channel thread of the fft method: a plan (3 rows of F), limb spectra (typically ≤ 8 of F/2
    # complex), the accumulator and its temporaries; the NTT's blocks are smaller
    blocks = min(default_workers(), max(1, stack.d_int)) * 12 * F * 8
    return 5 * act + blocks


def run_mod(stack: Stack, u: Any, p: int = PRIME, method: str = "auto", *, budget: Any = None) -> np.ndarray:
    """Run ``stack`` exactly over F_p on residues u of shape (B, N, d) or (N, d).

    ``budget``: the memory budget (see :mod:`symconv.budget`), checked before allocating.

    >>> from symconv.constructions.sums import add_n
    >>> run_mod(add_n(1, 3), np.array([[2], [5], [0]]), 17, "ntt")[:, 0].tolist()
    [1, 7, 0]
    """
    from .budget import require

    p = check_prime(p)
    if stack.d_int >= 1 << 15:
        raise HypothesisError(f"d_int: {stack.d_int} channels would overflow the int64 matmul mod p")
    shape = np.shape(u)
    B = int(shape[0]) if len(shape) == 3 else 1
    require(estimate_mod_bytes(stack, B), f"u: exact run mod p at B = {B}, N' = {stack.N_int}, "
            f"d' = {stack.d_int}", budget)
    u = to_field(u, p, "u")
    squeeze = u.ndim == 2
    if squeeze:
        u = u[None]
    if u.ndim != 3 or tuple(u.shape[1:]) != (stack.N, stack.d):
        raise HypothesisError(f"u: expected shape (B, N, d) with N×d = {(stack.N, stack.d)}, got {u.shape}")
    B = u.shape[0]
    z = np.zeros((B, stack.d_int, stack.N_int), dtype=np.int64)
    z[:, : stack.d, : stack.N] = np.transpose(u, (0, 2, 1))
    for i, layer in enumerate(stack.layers):
        where = f"layers[{i}]"
        W = to_field(layer.W, p, f"{where}.W")
        hT = np.ascontiguousarray(to_field(layer.h, p, f"{where}.h").T)
        b1 = np.ascontiguousarray(to_field(layer.b1, p, f"{where}.b1").T)
        b2 = np.ascontiguousarray(to_field(layer.b2, p, f"{where}.b2").T)
        conv = (convolve_mod(z, hT, p, layer.conv, method) + b2) % p
        if np.any(W):
            gate = (_matmul_mod(np.ascontiguousarray(W.T), z, p) + b1) % p
        else:
            gate = np.broadcast_to(b1, z.shape)
        z = gate * conv % p
    out = np.ascontiguousarray(np.transpose(z[:, : stack.d, : stack.N], (0, 2, 1)))
    return out[0] if squeeze else out


# --------------------------------------------------------------------------- the check


@dataclass(frozen=True)
class ExactReport:
    """Outcome of :func:`check`: agreement mod p on ``trials`` random inputs.

    ``error_probability`` bounds the chance that a stack which does not compute
    the reference passed every trial: (degree/p)^trials (Schwartz–Zippel);
    None when the reference's degree could not be traced.
    """

    holds: bool
    mismatches: int
    first: tuple | None
    got: int | None
    expected: int | None
    p: int
    degree: int | None
    stack_degree: int
    reference_degree: int | None
    trials: int
    method: str
    seconds: float
    paths: str = ""  #: how the convolutions ran (:func:`conv_paths`), e.g. shifted sums vs limb FFTs

    @property
    def error_probability(self) -> float | None:
        if self.degree is None:
            return None
        return min(1.0, self.degree / self.p) ** self.trials

    def describe(self) -> str:
        """One line for reports."""
        if self.degree is None:
            sz = "reference degree unknown: no Schwartz–Zippel bound"
        else:
            sz = (f"P(pass | wrong) <= (deg/p)^T = ({self.degree}/{self.p})^{self.trials} "
                  f"= {self.error_probability:.3g}")
        head = "agrees mod p" if self.holds else (
            f"{self.mismatches} mismatch(es) mod p; first at (batch, row, channel) = {self.first}: "
            f"got {self.got}, expected {self.expected}")
        return f"{head}; {sz} [{self.paths or self.method}]"


def _reference_mod(reference: Callable[[Any], Any], u: np.ndarray, p: int) -> np.ndarray:
    """The reference on residues u: vectorised :class:`FieldArray` first, :class:`ModP` objects if it balks."""
    try:
        r = reference(_as_field(u.copy(), p))
        if isinstance(r, FieldArray) and r.dtype == np.int64:
            return r.view(np.ndarray) % p
    except _NotInField:
        pass
    uo = np.empty(u.shape, dtype=object)
    uo.reshape(-1)[:] = [ModP(v, p) for v in u.reshape(-1).tolist()]
    return to_field(np.asarray(reference(uo), dtype=object), p, "reference")


def check(stack: Stack, reference: Callable[[Any], Any], batch: int = 1, p: int = PRIME,
          trials: int = 1, seed: int = 0, method: str = "auto", support: Any = None, *,
          budget: Any = None) -> ExactReport:
    """Compare ``stack`` with ``reference`` mod p on random inputs (a polynomial identity test).

    ``reference`` receives a (batch, N, d) object array of :class:`ModP`
    elements and returns the expected (batch, N, d) output.  ``support``, a
    boolean array broadcastable to (batch, N, d), restricts the random entries
    to where it is True (zeros elsewhere): for claims about inputs with a block
    structure, such as (x | 0 | S | 0).
    """
    p = check_prime(p)
    method = resolve_method(method)
    if not isinstance(trials, int) or trials < 1:
        raise HypothesisError(f"trials: must be a positive integer, got {trials!r}")
    if not isinstance(batch, int) or batch < 1:
        raise HypothesisError(f"batch: must be a positive integer, got {batch!r}")
    from .budget import require

    require(estimate_mod_bytes(stack, batch) + 3 * batch * stack.N * stack.d * 8,
            f"batch: exact check mod p at B = {batch}, N' = {stack.N_int}, d' = {stack.d_int}", budget)
    t0 = time.perf_counter()
    shape = (batch, stack.N, stack.d)
    rng = np.random.default_rng(seed)
    sdeg = stack_degree(stack)
    rdeg = reference_degree(reference, (1, stack.N, stack.d))
    mismatches, first, got_v, exp_v = 0, None, None, None
    for _ in range(trials):
        u = rng.integers(0, p, size=shape, dtype=np.int64)
        if support is not None:
            u = np.where(np.broadcast_to(np.asarray(support, dtype=bool), shape), u, 0)
        got = run_mod(stack, u, p, method, budget=budget)
        expected = _reference_mod(reference, u, p)
        if expected.shape != got.shape:
            raise HypothesisError(f"reference: returned shape {expected.shape}, expected {got.shape}")
        bad = np.argwhere(got != expected)
        mismatches += len(bad)
        if len(bad) and first is None:
            first = tuple(int(i) for i in bad[0])
            got_v, exp_v = int(got[first]), int(expected[first])
    degree = None if rdeg is None else max(sdeg, rdeg, 1)
    return ExactReport(mismatches == 0, mismatches, first, got_v, exp_v, p, degree, sdeg, rdeg,
                       trials, method, round(time.perf_counter() - t0, 3), conv_paths(stack, p, method))
