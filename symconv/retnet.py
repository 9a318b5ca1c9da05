"""Section H.6: a RetNet layer as an arithmetic circuit, and its BaseConv model (Corollary H.22).

With A = u·W_A, C = u·W_C, V = u·W_V (u ∈ R^{N×d}), the state follows
equation 6, z^n = γ·z^{n−1} + A[n,:]ᵀ V[n,:] (z^{−1} = 0, z^n ∈ R^{d×d}), and
the read-out is y[n,:] = C[n,:]·z^n (the usual RetNet read-out; the paper
shows only the state).  Unrolled (equation 7):
z^n = W_Aᵀ (Σ_{i≤n} γ^{n−i} u[i,:]ᵀ u[i,:]) W_V.

* :func:`recurrence` / :func:`recurrence_numeric`: y (and the states) straight
  from equation 6, exactly (sympy) or in floating point (a batch);
* :func:`unrolled_state` and :func:`printed_lines`: equation 7 and every line
  of the printed derivation, to compare with equation 6;
* :func:`retnet_circuit`: the circuit for y, in two forms: ``"recurrence"``
  (equation 6 gate by gate: depth Θ(N)) and ``"scan"`` (the same sums by a
  doubling scan, S ← S + γ^{2^b}·shift_{2^b}(S): depth O(log N));
* :func:`retnet_model`: the circuit compiled by Theorem H.21;
* :func:`symconv.constructions.retnet_direct.retnet_direct`: the same layer
  built directly, not through Theorem H.21: four BaseConv layers on N' = N rows
  and d' = d² + d channels (two layers, d' = 2, for d = 1).

>>> import sympy
>>> g = sympy.Symbol("gamma")
>>> c = retnet_circuit(2, 1, [[1]], [[1]], [[1]], g)
>>> [sympy.expand(v) for v in evaluate_circuit(c, [2, 3])]
[8, 12*gamma + 27]
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

import numpy as np
import sympy

from .circuits import Circuit, CircuitBuilder
from .circuits import evaluate as evaluate_circuit
from .model import HypothesisError

__all__ = ["recurrence", "recurrence_numeric", "unrolled_state", "printed_lines", "retnet_circuit",
           "retnet_model", "evaluate_circuit", "parameter_count"]


def _entries(a: Any, name: str) -> list:
    """Nested lists of checked values: sympy.Matrix would parse strings, so they never reach it."""
    from .model import as_param

    return as_param(a, name).tolist()


def _gamma(gamma: Any) -> Any:
    from .model import value_problem

    why = value_problem(gamma)
    if why is not None:
        raise HypothesisError(f"gamma: {gamma!r} is not a decay value: {why}")
    return gamma


def _real_array(a: Any, name: str) -> np.ndarray:
    """A float array of finite real numbers (no text is converted: np.asarray(dtype=float) would parse it)."""
    from .model import _reject_strings_deep, check_values

    _reject_strings_deep(a, name)
    arr = np.asarray(a)
    if arr.dtype.kind not in "iuf":
        check_values(arr.reshape(1, -1) if arr.ndim else arr.reshape(1, 1), name)
    elif arr.dtype.kind == "f":
        check_values(arr.reshape(1, -1), name)
    return arr.astype(float)


def _mat(W: Any, d: int, name: str) -> sympy.Matrix:
    if isinstance(W, str):
        raise HypothesisError(f"{name}: strings are not weights (never parsed)")
    M = sympy.Matrix(_entries(W, name)) if not isinstance(W, sympy.MatrixBase) else sympy.Matrix(_entries(W, name))
    if M.shape != (d, d):
        raise HypothesisError(f"{name}: must be d×d = {d}×{d}, got {M.shape}")
    return M


def _u(u: Any) -> sympy.Matrix:
    if isinstance(u, str):
        raise HypothesisError("u: strings are not inputs (never parsed)")
    return sympy.Matrix(_entries(u, "u"))


def recurrence(u: Any, WA: Any, WC: Any, WV: Any, gamma: Any) -> tuple[sympy.Matrix, list]:
    """Equation 6 and the read-out, exactly: (y ∈ R^{N×d}, [z^0, …, z^{N−1}]).

    >>> y, z = recurrence([[2], [3]], [[1]], [[1]], [[1]], sympy.Symbol("g"))
    >>> y.T.tolist(), z[1]
    ([[8, 12*g + 27]], Matrix([[4*g + 9]]))
    """
    U = _u(u)
    gamma = _gamma(gamma)
    N, d = U.shape
    A, C, V = U * _mat(WA, d, "WA"), U * _mat(WC, d, "WC"), U * _mat(WV, d, "WV")
    z = sympy.zeros(d, d)
    states, rows = [], []
    for n in range(N):
        z = gamma * z + A[n, :].T * V[n, :]
        states.append(z)
        rows.append(C[n, :] * z)
    return sympy.Matrix.vstack(*rows), states


def recurrence_numeric(u: Any, WA: Any, WC: Any, WV: Any, gamma: Any) -> Any:
    """Equation 6 and the read-out for a batch u of shape (B, N, d): in floating point, or exactly.

    A numeric array runs in float64 (γ read as a float).  symconv's exact arrays, the ones an exact
    check mod p hands a claim's reference (:class:`~symconv.exact.FieldArray` residues,
    :class:`~symconv.exact.DegreeArray` degree trackers, object arrays of
    :class:`~symconv.exact.ModP` or :class:`~symconv.exact.Degree`), run in their own arithmetic
    with γ and the weights as given, so an exact γ (a Fraction) stays exact: the function is also
    the reference of :func:`symconv.exact.check`.

    >>> recurrence_numeric(np.array([[[2.0], [3.0]]]), [[1]], [[1]], [[1]], 0.5)[0, :, 0].tolist()
    [8.0, 33.0]
    >>> from fractions import Fraction
    >>> from symconv.exact import _as_field
    >>> recurrence_numeric(_as_field(np.array([[[2], [3]]]), 7), [[1]], [[1]], [[1]], Fraction(1, 2))[0, :, 0].tolist()
    [1, 5]
    """
    if _is_exact(u):
        return _recurrence_exact(u, WA, WC, WV, gamma)
    u = _real_array(u, "u")
    if u.ndim != 3:
        raise HypothesisError(f"u: expected shape (B, N, d), got {u.shape}")
    B, N, d = u.shape
    gamma = float(_gamma(gamma))
    WA, WC, WV = (_real_array(W, n) for W, n in ((WA, "WA"), (WC, "WC"), (WV, "WV")))
    A, C, V = u @ WA, u @ WC, u @ WV
    z = np.zeros((B, d, d))
    y = np.empty((B, N, d))
    for n in range(N):
        z = gamma * z + A[:, n, :, None] * V[:, n, None, :]
        y[:, n, :] = np.einsum("bk,bkj->bj", C[:, n, :], z)
    return y


def _is_exact(u: Any) -> bool:
    """Whether u is one of the exact arrays of :mod:`symconv.exact` (residues, degrees, ModP/Degree objects)."""
    from .exact import Degree, DegreeArray, FieldArray, ModP

    if isinstance(u, (FieldArray, DegreeArray)):
        return True
    return (isinstance(u, np.ndarray) and u.dtype == object and u.size > 0
            and all(isinstance(v, (ModP, Degree)) for v in u.flat))


def _recurrence_exact(u: Any, WA: Any, WC: Any, WV: Any, gamma: Any) -> Any:
    """Equation 6 and the read-out with only +, · and sums: the arithmetic of u's own entries."""
    from .model import as_param

    if u.ndim != 3:
        raise HypothesisError(f"u: expected shape (B, N, d), got {u.shape}")
    B, N, d = u.shape
    gamma = _gamma(gamma)
    Ws = []
    for W, name in ((WA, "WA"), (WC, "WC"), (WV, "WV")):
        if isinstance(W, str):
            raise HypothesisError(f"{name}: strings are not weights (never parsed)")
        a = as_param(W, name)
        if a.shape != (d, d):
            raise HypothesisError(f"{name}: must be d×d = {d}×{d}, got {a.shape}")
        Ws.append(a)
    A, C, V = (u @ W for W in Ws)
    rows, z = [], None
    for n in range(N):
        P = A[:, n, :, None] * V[:, n, None, :]  # A[n,:]ᵀ V[n,:], (B, d, d)
        z = P if z is None else gamma * z + P
        rows.append(np.sum(C[:, n, :, None] * z, axis=1))  # C[n,:]·z^n, (B, d)
    return np.stack(rows, axis=1)


def unrolled_state(u: Any, WA: Any, WV: Any, gamma: Any, n: int) -> sympy.Matrix:
    """Equation 7: z^n = W_Aᵀ (Σ_{i≤n} γ^{n−i} u[i,:]ᵀ u[i,:]) W_V."""
    U = _u(u)
    gamma = _gamma(gamma)
    d = U.shape[1]
    S = sympy.zeros(d, d)
    for i in range(n + 1):
        S += gamma ** (n - i) * U[i, :].T * U[i, :]
    return _mat(WA, d, "WA").T * S * _mat(WV, d, "WV")


def printed_lines(u: Any, WA: Any, WV: Any, gamma: Any) -> dict:
    """Each line of the printed unrolling for z^0 and z^1, literally (needs N ≥ 2).

    ``u^T[:, i]`` is column i of uᵀ, i.e. u[i,:]ᵀ.  The keys name the line.

    >>> L = printed_lines([[1], [2]], [[1]], [[1]], sympy.Symbol("g"))
    >>> L["z1 line 2"], L["z1 line 3"]
    (Matrix([[2*g + 4]]), Matrix([[g + 4]]))
    """
    U = _u(u)
    if U.shape[0] < 2:
        raise HypothesisError("u: the printed lines for z^1 need N >= 2")
    d = U.shape[1]
    A_, V_ = _mat(WA, d, "WA"), _mat(WV, d, "WV")
    r = lambda i: U[i, :]            # u[i, :], a row
    c = lambda i: U[i, :].T          # u^T[:, i], a column
    z0 = (U * A_)[0, :].T * (U * V_)[0, :]
    return {
        "z0 line 1": z0,
        "z0 line 2": (r(0) * A_).T * r(0) * V_,
        "z0 line 3": A_.T * r(0).T * r(0) * V_,
        "z0 line 4": A_.T * (c(0) * r(0)) * V_,
        "z1 line 1": gamma * z0 + A_.T * (c(1) * r(1)) * V_,
        "z1 line 2": gamma * (A_.T * (c(1) * r(0)) * V_) + A_.T * (c(1) * r(1)) * V_,
        "z1 line 3": A_.T * (gamma * (c(0) * r(0)) + c(1) * r(1)) * V_,
    }


def _lin(b: CircuitBuilder, terms: dict) -> int:
    terms = {w: c for w, c in terms.items() if not (c == 0)}
    return b.linear(terms)


def retnet_circuit(N: int, d: int, WA: Any, WC: Any, WV: Any, gamma: Any, form: str = "scan") -> Circuit:
    """The circuit for y (row-major, N·d outputs) on x = row-major(u) (N·d inputs).

    ``form="recurrence"``: z^n = γ·z^{n−1} + A[n,:]ᵀV[n,:] gate by gate.
    ``form="scan"``: z^n = Σ_{i≤n} γ^{n−i} P_i by log₂N doubling steps.
    """
    for pname, v in (("N", N), ("d", d)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
            raise HypothesisError(f"{pname}: must be a positive integer, got {v!r}")
    gamma = _gamma(gamma)
    if form not in ("scan", "recurrence"):
        raise HypothesisError(f"form: expected 'scan' or 'recurrence', got {form!r}")
    Ws = {}
    for name, W in (("WA", WA), ("WC", WC), ("WV", WV)):
        a = np.asarray(W, dtype=object)
        if a.shape != (d, d) or any(isinstance(v, str) for v in a.flat):
            raise HypothesisError(f"{name}: must be a d×d = {d}×{d} array of numbers, got shape {a.shape}")
        from .model import check_values

        check_values(a, name)
        Ws[name] = a
    b = CircuitBuilder(N * d, f"retnet(N={N}, d={d}, {form})")
    x = lambda n, j: n * d + j
    proj = {name: [[_lin(b, {x(n, j): W[j, k] for j in range(d)}) for k in range(d)] for n in range(N)]
            for name, W in Ws.items()}
    A, C, V = proj["WA"], proj["WC"], proj["WV"]
    P = [[[b.mul(A[n][k], V[n][j]) for j in range(d)] for k in range(d)] for n in range(N)]
    if form == "recurrence":
        z = [P[0]]
        for n in range(1, N):
            z.append([[b.linear({z[-1][k][j]: gamma, P[n][k][j]: 1}) for j in range(d)] for k in range(d)])
    else:
        S = P
        s = 1
        while s < N:
            g = gamma ** s
            S = [S[n] if n < s else
                 [[b.linear({S[n][k][j]: 1, S[n - s][k][j]: g}) for j in range(d)] for k in range(d)]
                 for n in range(N)]
            s *= 2
        z = S
    outs = []
    for n in range(N):
        for j in range(d):
            prods = [b.mul(C[n][k], z[n][k][j]) for k in range(d)]
            outs.append(prods[0] if d == 1 else b.add(*prods))
    return b.build(outs)


@lru_cache(maxsize=32)
def _model_cached(N: int, d: int, key: tuple, gamma: Any, form: str):
    from .constructions.arithmetic import compile_arithmetic

    WA, WC, WV = (np.array(k, dtype=object).reshape(d, d) for k in key)
    return compile_arithmetic(retnet_circuit(N, d, WA, WC, WV, gamma, form), N, d)


def retnet_model(N: int, d: int, WA: Any, WC: Any, WV: Any, gamma: Any, form: str = "scan"):
    """Corollary H.22: the RetNet circuit compiled by Theorem H.21 (a CompiledCircuit; cached).

    >>> import sympy
    >>> m = retnet_model(2, 1, [[1]], [[1]], [[1]], sympy.Symbol("g"))
    >>> m.stack.signature.N, m.stack.signature.d_int
    (2, 1)
    """
    key = tuple(tuple(np.asarray(W, dtype=object).reshape(-1).tolist()) for W in (WA, WC, WV))
    return _model_cached(N, d, key, gamma, form)


def parameter_count(stack: Any) -> dict:
    """Entries of all layer parameters as stored (W, h, b1, b2) and how many are non-zero."""
    total = nonzero = 0
    for layer in stack.layers:
        for name in ("W", "h", "b1", "b2"):
            a = getattr(layer, name)
            total += a.size
            nonzero += int(np.count_nonzero(a != 0)) if a.dtype != object else sum(1 for v in a.flat if v != 0)
    return {"stored": total, "nonzero": nonzero}
