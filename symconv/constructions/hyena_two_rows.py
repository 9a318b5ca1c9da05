"""Prop. H.12 (Hyena → BaseConv) at N = 1 on N' + N = 2 rows.

For N = 1 the claim's case N ≤ N' < 2N is N' = 1, and the claimed model has N' + N = 2
rows, fewer than the 3N rows of :func:`~symconv.constructions.hyena.baseconv_from_hyena`.
Any N' is accepted (only row 0 of b^ℓ and tap 0 of h^ℓ reach the output at N = 1); the
stack has two rows whatever N' is.
At N = 1 a Hyena layer is z^ℓ = p^ℓ ⊙ h^ℓ₀ ⊙ z^{ℓ−1} with p^ℓ = u·W^ℓ + b^ℓ (one row), and
two rows suffice.  The state is (top | bottom), each a 1×d row:

* **prep** (causal, W = W¹, taps h¹₀ and 1, b1 = (b¹ | 1)): (u | 0) ↦ (z¹ | u).  The top row
  is (u·W¹ + b¹) ⊙ (h¹₀ ⊙ u); the bottom row's gate is constant (its state is 0) and its
  convolution reads u from the row above.
* **swap** (circular, taps 0 and 1): (z¹ | u) ↦ (u | z¹), when L ≥ 2.
* **middle layer ℓ** (1 < ℓ < L), from (u | z) to (u | z^ℓ): the nonzero columns of W^ℓ are
  split into sets S of linearly independent columns (:func:`column_passes`; one set when W^ℓ
  is invertible), and each set takes two layers:

  - *twist* (W = G, filter 0, b1 = (g | 0), b2 = 1): (u | z) ↦ (u·G + g | z·G), where G is
    invertible with column c equal to column c of W^ℓ for c ∈ S and g_c = b^ℓ_c, so channel
    c of the top row is p^ℓ_c;
  - *product* (causal, W = G⁻¹, tap 1 = h^ℓ₀ on S, b1 = (−g·G⁻¹ | 0)): the bottom row's gate
    is z·G·G⁻¹ = z and its convolution brings h^ℓ₀,c·p^ℓ_c from the top row channel by
    channel, so channel c ∈ S becomes h^ℓ₀,c·p^ℓ_c·z_c; the other channels read the
    constant 1 (zero columns of W^ℓ read h^ℓ₀,c·b^ℓ_c once).  The top row reads nothing
    (causal) and its gate gives u back exactly.

  A set whose columns are multiples of e_c at their own position needs no twist (the
  convolution scales u_c directly), so a diagonal W^ℓ costs one layer.
* **final** (circular, W = W^L, tap 1 = h^L₀, b1 = (b^L | 0)): the top row becomes
  (u·W^L + b^L) ⊙ (h^L₀ ⊙ z^{L−1}) = z^L, the output.

Layers: 1 for L = 1, and 3 + Σ_{1<ℓ<L} (layers of layer ℓ) for L ≥ 2, which is at most
2L − 1 when every middle W^ℓ is invertible (exactly 2L − 1 when none is diagonal), L + 1
when every one is diagonal, and at most 3 + 2d(L − 2) in any case (reached by rank-one
middle W^ℓ with no zero column).  So the route is within the claimed 5L for every model with
d ≤ 2, with every middle W^ℓ invertible, or with d = 3 and L ≤ 9; beyond that it can exceed
5L (d = 4, L = 5, rank-one middle W^ℓ: 27 layers), and whether 5L layers on two rows
suffice there is open.
W¹ and W^L enter as they are (they may be symbolic); a middle W^ℓ is split and inverted
exactly, so it must have rational entries.
Why it works: the gate reads a row and W mixes channels, the convolution reads the other
row channel by channel; the twist puts the mixed p^ℓ on the top row so that the
convolution only has to read one channel, and the product's W = G⁻¹ undoes the twist on
both rows.

>>> from symconv.blocks import sym
>>> from symconv.hyena import HyenaLayer, HyenaStack, evaluate as hyena_eval
>>> from symconv.symbolic import evaluate
>>> m = HyenaStack(1, 2, tuple(HyenaLayer([[1, 2], [1, -1]], [[1, 0]], [[2, 3]]) for _ in range(3)))
>>> st = baseconv_on_two_rows(m)
>>> st.signature
Signature(N=1, L=5, d=2, N_int=2, d_int=2)
>>> u = sym("u", 1, 2)
>>> evaluate(st, u).entries.tolist() == hyena_eval(m, u).entries.tolist()
True
"""
from __future__ import annotations

import numpy as np
import sympy

from ..hyena import HyenaStack
from ..model import HypothesisError, Layer, Stack
from .hyena import _check_model, _rows
from .params import rational, zero_W

__all__ = ["baseconv_on_two_rows", "column_passes", "multiply_layers", "two_row_layers"]


def _obj(rows) -> np.ndarray:
    return np.array(rows, dtype=object)


def _row0(a: np.ndarray, d: int) -> list:
    """Row 0 of a parameter broadcast to d channels, as Python numbers or sympy expressions (so that
    products of small numpy integers cannot overflow)."""
    return _rows(np.asarray(a), 1, d)[0].tolist()


WHY_W = "the route splits and inverts W^ℓ exactly (N = 1: 1 < ℓ < L; N = 2: ℓ < L)"


def _rational_matrix(W, where: str, why: str = WHY_W) -> sympy.Matrix:
    """W as an exact rational sympy matrix (each entry by :func:`.params.rational`, refused naming ``where``)."""
    return sympy.Matrix([[sympy.Rational(rational(v, where, why)) for v in row]
                         for row in np.asarray(W, dtype=object).tolist()])


def column_passes(W: sympy.Matrix) -> tuple:
    """The nonzero columns of W, split greedily into sets of linearly independent columns.

    >>> import sympy
    >>> column_passes(sympy.Matrix([[1, 2], [1, -1]])), column_passes(sympy.Matrix([[1, 2], [2, 4]]))
    (((0, 1),), ((0,), (1,)))
    """
    W = W if isinstance(W, sympy.MatrixBase) else _rational_matrix(W, "W")
    sets: list = []
    for c in range(W.cols):
        if not any(W[:, c]):
            continue
        for S in sets:
            if W[:, S + [c]].rank() == len(S) + 1:
                S.append(c)
                break
        else:
            sets.append([c])
    return tuple(tuple(S) for S in sets)


def _complete(W: sympy.Matrix, S: tuple) -> sympy.Matrix:
    """An invertible G with G[:, c] = W[:, c] for c in S, the other columns unit vectors."""
    d = W.rows
    G = sympy.zeros(d, d)
    for c in S:
        G[:, c] = W[:, c]
    free = [c for c in range(d) if c not in S]
    basis = [W[:, c] for c in S]
    for k in range(d):
        if not free:
            break
        e = sympy.zeros(d, 1)
        e[k] = 1
        if sympy.Matrix.hstack(*(basis + [e])).rank() == len(basis) + 1:
            basis.append(e)
            G[:, free.pop(0)] = e
    return G


def _is_own_axis(W: sympy.Matrix, c: int) -> bool:
    return all(W[k, c] == 0 for k in range(W.rows) if k != c)


def multiply_layers(W: sympy.Matrix, b: list, h: list, ell: int, N: int = 1) -> list:
    """The layers taking (u | y) to (u | (u·W + b) ⊙ h ⊙ y) on 2N rows (blocks of N rows).

    ``b``: the N rows of the bias (lists of d entries); ``h``: one factor per channel (h^ℓ₀ at
    N = 1; 1 where the filter was applied before).  Per set S of :func:`column_passes`: a twist
    (W = G, filter 0) puts p_c on the top block for c ∈ S, then a causal product (W = G⁻¹, filter
    X^N) gates the bottom block by y and reads p_c channel by channel from the rows N above; the
    top block reads nothing and gets u back.  A set of columns on their own axes needs no twist.
    """
    W = W if isinstance(W, sympy.MatrixBase) else _rational_matrix(W, "W")
    d = W.rows
    if len(b) != N or any(len(row) != d for row in b) or len(h) != d:
        raise HypothesisError(f"b, h: expected N = {N} bias rows of d = {W.rows} entries and {d} filter factors, "
                              f"got {len(b)} rows and {len(h)} factors")
    one, zero = sympy.Integer(1), sympy.Integer(0)
    passes = column_passes(W) or ((),)
    zero_cols = [c for c in range(d) if not any(W[:, c])]
    layers = []
    for i, S in enumerate(passes):
        r = [zero] * d                          # tap-N filter value per channel
        s = [[one] * d for _ in range(N)]       # the bottom block's b2
        if i == 0:
            for c in zero_cols:
                for row in range(N):
                    s[row][c] = h[c] * b[row][c]
        if all(_is_own_axis(W, c) for c in S):   # no twist: the top block holds u itself
            for c in S:
                r[c] = h[c] * W[c, c]
                for row in range(N):
                    s[row][c] = h[c] * b[row][c]
            G, g = sympy.eye(d), [[zero] * d for _ in range(N)]
        else:
            G = _complete(W, S)
            g = [[b[row][c] if c in S else zero for c in range(d)] for row in range(N)]
            for c in S:
                r[c] = h[c]
                for row in range(N):
                    s[row][c] = zero
            layers.append(Layer(W=_obj(G.tolist()), h=_obj([[zero] * d]), b1=_obj(g + [[zero] * d] * N),
                                b2=_obj([[one] * d]), label=f"layer {ell}, set {list(S)}: twist (u·G + g | z·G)"))
        Gi = G.inv()
        back = [[-sum((g[row][k] * Gi[k, c] for k in range(d)), zero) for c in range(d)] for row in range(N)]
        layers.append(Layer(W=_obj(Gi.tolist()), h=_obj([[zero] * d] * N + [r]), b1=_obj(back + [[zero] * d] * N),
                            b2=_obj([[one] * d] * N + s),
                            label=f"layer {ell}, set {list(S)}: product (u | p_S ⊙ h ⊙ z)"))
    return layers


def two_row_layers(model: HyenaStack) -> tuple:
    """The layers of :func:`baseconv_on_two_rows` (prep, swap, middle layers, final)."""
    d, L = model.d, model.L
    one, zero = sympy.Integer(1), sympy.Integer(0)
    hl = [_row0(l.h, d) for l in model.layers]   # tap 0 and row 0: all that reaches the output at N = 1
    bl = [_row0(l.b, d) for l in model.layers]
    first = model.layers[0]
    out = [Layer(W=np.asarray(first.W).tolist(), h=_obj([hl[0], [one] * d]),
                 b1=_obj([bl[0], [one] * d]), b2=[[0]], label="prep: (u | 0) -> (z^1 | u)")]
    if L == 1:
        return tuple(out)
    out.append(Layer(W=zero_W(d), h=_obj([[zero] * d, [one] * d]), b1=[[1]],
                     b2=[[0]], conv="circular", label="swap: (z^1 | u) -> (u | z^1)"))
    for ell in range(2, L):
        W = _rational_matrix(np.asarray(model.layers[ell - 1].W), f"model.layers[{ell - 1}].W")
        out += multiply_layers(W, [bl[ell - 1]], hl[ell - 1], ell)
    last = model.layers[-1]
    out.append(Layer(W=np.asarray(last.W).tolist(), h=_obj([[zero] * d, hl[-1]]),
                     b1=_obj([bl[-1], [zero] * d]), b2=[[0]], conv="circular",
                     label=f"final: top row (u·W^{L} + b^{L}) ⊙ (h^{L} ⊙ z^{L - 1})"))
    return tuple(out)


def baseconv_on_two_rows(model: HyenaStack) -> Stack:
    """Prop. H.12 (Hyena → BaseConv) for N = 1 on two rows (N' + N for N' = 1); see the module text.

    >>> from symconv.hyena import HyenaLayer, HyenaStack
    >>> baseconv_on_two_rows(HyenaStack(1, 1, (HyenaLayer([[2]], [[1]], [[1]]),) * 4)).signature
    Signature(N=1, L=5, d=1, N_int=2, d_int=1)
    """
    _check_model(model)
    if model.N != 1:
        raise HypothesisError(f"model.N: the two-row route is for N = 1 (Prop. H.12 with N' = N = 1), "
                              f"got N = {model.N}")
    return Stack(1, model.d, two_row_layers(model), 2, model.d,
                 name=f"BaseConv simulating {model.name or 'Hyena'} on 2 rows")
