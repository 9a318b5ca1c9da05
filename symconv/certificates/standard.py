"""Ready-made certificate functions for :class:`~symconv.certificates.Bound` (``certificates=``).

Each is a function (sizes, instance getter) → certificates, computed from the
claim's own instance at those sizes (its input block, its expected output,
its built stack), so nothing about the target is written twice.

>>> from symconv.blocks import sym, zeros
>>> from symconv.claims import Instance
>>> from symconv.constructions.shifts import shift_down
>>> y = sym("y", 3)
>>> inst = Instance(y, shift_down(3, 1), zeros(1) | y[0:2])
>>> [c.lower for c in degree({}, lambda: inst) + not_identity({}, lambda: inst)]
[0, 1]
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from .base import TrivialCertificate
from .composition import CompositionCertificate, OneRowCertificate
from .degree import DegreeCertificate
from .dependency import CausalCertificate, required_pattern
from .dimension import DimensionCertificate
from .factor import TwoLayerCertificate
from .least import LeastSignatureCertificate


def degree(sizes: Mapping[str, int], instance: Callable[[], Any]) -> tuple:
    """The degree certificate of the target (with the built stack reported beside it)."""
    from ..exact import stack_degree

    inst = instance()
    cert = DegreeCertificate.of(inst.input, inst.expected)
    if stack_degree(inst.stack) >= cert.degree:  # a stack that cannot reach the degree is no construction of it
        cert = DegreeCertificate.of(inst.input, inst.expected, stack=inst.stack)
    return (cert,)


def not_identity(sizes: Mapping[str, int], instance: Callable[[], Any]) -> tuple:
    """L ≥ 1 when the target differs from the input (zero layers compute the identity)."""
    import sympy

    inst = instance()
    a, b = inst.input.entries, inst.expected.entries
    same = a.shape == b.shape and all(sympy.expand(x - y) == 0 for x, y in zip(a.flat, b.flat))
    if same:
        return ()
    return (TrivialCertificate("L", 1, "the target is not the identity, which is what zero layers compute"),)


def causal(sizes: Mapping[str, int], instance: Callable[[], Any]) -> tuple:
    """The causal-impossibility certificate when the target reads a later row (nothing otherwise)."""
    inst = instance()
    R = required_pattern(inst.input, inst.expected)
    if not any(j > i for i, j in zip(*R.nonzero())):
        return ()
    return (CausalCertificate.of(R),)


def _where_it_applies(issue: Callable[[Any], Any], instance: Callable[[], Any]) -> tuple:
    """(the certificate ``issue(instance())`` gives,), or () when it refuses to apply (a HypothesisError)."""
    from ..model import HypothesisError

    try:
        return (issue(instance()),)
    except HypothesisError:
        return ()


def composition(sizes: Mapping[str, int], instance: Callable[[], Any]) -> tuple:
    """The one-channel causal impossibility (:class:`CompositionCertificate`) where it applies: d = 1 and
    row 0 of the target of a degree in u[0, 0] that is not a power of two (nothing otherwise)."""
    return _where_it_applies(lambda i: CompositionCertificate.of(i.input, i.expected, stack=i.stack), instance)


def two_layers(sizes: Mapping[str, int], instance: Callable[[], Any]) -> tuple:
    """L ≥ 3 by :class:`TwoLayerCertificate` where it applies: every channel of row 0 (rows ≥ 1 of u zero)
    homogeneous of degree 3 or 4 and not divisible by its own input coordinate (nothing otherwise)."""
    return _where_it_applies(lambda i: TwoLayerCertificate.of(i.input, i.expected, stack=i.stack), instance)


def one_row(sizes: Mapping[str, int], instance: Callable[[], Any]) -> tuple:
    """N' ≥ 2 by :class:`OneRowCertificate` where it applies: N = d = 1 and a target degree that is not 0 or a
    power of two (for models with d' = 1; nothing otherwise)."""
    return _where_it_applies(lambda i: OneRowCertificate.of(i.input, i.expected), instance)


def rows_at_least_N(sizes: Mapping[str, int], instance: Callable[[], Any]) -> tuple:
    """N' ≥ N: the input is padded into the state (the model's definition)."""
    N = instance().stack.N
    return (TrivialCertificate("N'", N, f"the N = {N} input rows are padded into the N'×d' state: N' ≥ N"),)


def channels_at_least_d(sizes: Mapping[str, int], instance: Callable[[], Any]) -> tuple:
    """d' ≥ d: the input channels are padded into the state (the model's definition)."""
    d = instance().stack.d
    return (TrivialCertificate("d'", d, f"the d = {d} input channels are padded into the N'×d' state: d' ≥ d"),)


def both(*fns: Callable) -> Callable:
    """Several certificate functions as one."""
    def run(sizes, instance):
        out: tuple = ()
        for f in fns:
            out += tuple(f(sizes, instance))
        return out
    return run


def dimension(family: str, sizes_of: Callable[[Mapping[str, int]], Mapping[str, int]],
              state: Callable[[Mapping[str, int]], tuple] | None = None, formula: str = "",
              formula_value: Callable[[Mapping[str, int]], int] | None = None) -> Callable:
    """The dimension certificate of ``family`` at ``sizes_of(sizes)``; with ``state`` (sizes → (N', d'))
    it bounds layers at that state size."""
    def run(sizes, instance):
        s = dict(sizes_of(dict(sizes)))
        Ni, di = state(dict(sizes)) if state is not None else (None, None)
        fv = formula_value(dict(sizes)) if formula_value is not None else None
        return (DimensionCertificate.of(family, s, N_int=Ni, d_int=di, formula=formula, formula_value=fv),)
    return run


def least_one_layer(sizes: Mapping[str, int], instance: Callable[[], Any]) -> tuple:
    """No one-layer model at the built (N', d') (Gröbner), with the built stack as witness when it has 2 layers."""
    from .least import MAX_UNKNOWNS

    inst = instance()
    st = inst.stack
    Ni, di = st.N_int, st.d_int
    if 3 * Ni * di + di * di > MAX_UNKNOWNS:  # the built state is too large to search: the paper's N' = N, d' = d
        Ni, di = st.N, st.d
    witness = st if st.L == 2 and (st.N_int, st.d_int) == (Ni, di) else None
    return (LeastSignatureCertificate.of(inst.input, inst.expected, Ni, di, witness=witness),)


def at_sizes(*wanted: Mapping[str, int]) -> Callable[[list], list]:
    """``Bound.at``: the size points of the box equal to one of ``wanted`` (certificates computed there)."""
    keys = [dict(w) for w in wanted]
    return lambda points: [z for z in points if dict(z) in keys]


def signature_bounds(L: str, N_int: str, d_int: str, *, L_certs: Callable | None = not_identity,
                     big_o: tuple = (), expect: Mapping[str, str] | None = None, at_L: Callable | None = None,
                     notes: Mapping[str, str] | None = None, exclude: tuple = (),
                     covers: Mapping[str, str] | None = None) -> tuple:
    """The three bounds of a claimed (N, L, d, N', d') signature, read off the claim's signature.

    ``L``, ``N_int``, ``d_int``: the claim as the paper states it ("5L", "N' + N", "d' = d");
    ``big_o``: the quantities claimed only up to a constant ("L", "N'", "d'"); ``L_certs``: the
    certificates of the layer bound (N' ≥ N and d' ≥ d are by definition); ``expect``: the
    recorded verdicts (default "met"); ``exclude``: variants that are not models of the claim;
    ``covers``: per quantity, the models the construction is known to meet it for (``Bound.covers``).

    >>> [b.quantity for b in signature_bounds("2 layers", "N' = N", "d' = d")]
    ['L', "N'", "d'"]
    """
    from .bounds import Bound, last_point

    expect = dict(expect or {})
    notes = dict(notes or {})
    covers = dict(covers or {})
    return (Bound("L", L, big_o="L" in big_o, certificates=L_certs, at=at_L or last_point,
                  expect=expect.get("L", "met"), note=notes.get("L", ""), exclude=exclude, covers=covers.get("L", "")),
            Bound("N'", N_int, big_o="N'" in big_o, certificates=rows_at_least_N, expect=expect.get("N'", "met"),
                  note=notes.get("N'", ""), exclude=exclude, covers=covers.get("N'", "")),
            Bound("d'", d_int, big_o="d'" in big_o, certificates=channels_at_least_d,
                  expect=expect.get("d'", "met"), note=notes.get("d'", ""), exclude=exclude,
                  covers=covers.get("d'", "")))


def also(*pickers: Callable[[list], list]) -> Callable[[list], list]:
    """``Bound.at``: the points each picker chooses, each once, in order.

    >>> also(largest("L"), where(L=1))([{"L": 1}, {"L": 2}])
    [{'L': 2}, {'L': 1}]
    """
    def pick(points: list) -> list:
        out: list = []
        for f in pickers:
            out += [z for z in f(points) if z not in out]
        return out
    return pick


def where(**fixed: int) -> Callable[[list], list]:
    """``Bound.at``: the first point whose sizes include ``fixed`` (none when no point does)."""
    return lambda points: [z for z in points if all(z.get(k) == v for k, v in fixed.items())][:1]


def largest(name: str) -> Callable[[list], list]:
    """``Bound.at``: the last size point with the largest value of ``name`` (e.g. the deepest Hyena)."""
    def pick(points: list) -> list:
        if not points:
            return []
        top = max(z[name] for z in points)
        return [[z for z in points if z[name] == top][-1]]
    return pick
