"""The printed routes of Prop. H.8–H.10, written once with symbolic sizes, as the paper displays them.

Each route is a :class:`Route`: its layers in the paper's block notation
(:class:`Col` for a bias column such as (p | 0^{m+t} | 0^n | 0^s | 1^m | 0…),
:class:`Term` for a filter term such as X^{n+m+s+t} or h(X)), the input, the
claimed output and one :class:`~symconv.parametric.check.PStep` for every
displayed state that a block column can express.  ``Route.description()``
gives the :class:`~symconv.parametric.check.Description` the block algebra
checks; the repair search (:mod:`symconv.repair`) edits the route itself, so
every edit can be named in the paper's notation.

The functions ``*_printed`` return descriptions, ``*_route`` the routes.  Where
the printed blocks reach past N the concrete proof files cut them at N; a
route instead states that they fit (``Route.fits``: the block lengths, fill
lengths and filter offsets that must be >= 0), and the all-sizes check is
made under those conditions.

>>> from symconv.parametric import size
>>> r = add_n_route({"n": size("n"), "N": size("N")})
>>> r.layers[1].b2.text()
'(1^{n} | 1^{n} | 0…)'
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from ..model import HypothesisError
from .algebra import X, PSeq, fblock, pconv, phad, pones, psym, pzeros
from .check import Description, PLayer, PStep
from .linear import Facts, Lin, lin

__all__ = ["Blk", "Col", "Term", "RLayer", "Route", "shift_up_printed", "shift_up_route", "add_n_printed_call",
           "add_n_route", "remember_printed", "remember_route", "hyena_remember_printed", "lin_text"]

SUP = {1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵"}


def lin_text(v: Lin) -> str:
    """A size expression as the paper writes it (no spaces).

    >>> from symconv.parametric import size
    >>> lin_text(2 * size("n") + size("s") - 1)
    '2n+s-1'
    """
    return str(lin(v)).replace(" ", "")


@dataclass(frozen=True)
class Blk:
    """One block of a bias column: ``kind`` "0" (0^L), "1" (1^L) or "sym" (a named block, e.g. p)."""

    kind: str
    length: Lin
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("0", "1", "sym"):
            raise HypothesisError(f"kind: a block is '0', '1' or 'sym', got {self.kind!r}")
        object.__setattr__(self, "length", lin(self.length))

    def text(self) -> str:
        return self.name if self.kind == "sym" else f"{self.kind}^{{{lin_text(self.length)}}}"

    def pseq(self) -> PSeq:
        if self.kind == "sym":
            return psym(self.name, self.length)
        return pones(self.length) if self.kind == "1" else pzeros(self.length)


@dataclass(frozen=True)
class Col:
    """A bias column: blocks top to bottom, then zeros (0…) down to N'.

    >>> from symconv.parametric import size
    >>> Col((Blk("1", size("n")),)).text()
    '(1^{n} | 0…)'
    """

    blocks: tuple = ()
    name: str = ""

    def total(self) -> Lin:
        out = Lin()
        for b in self.blocks:
            out = out + b.length
        return out

    def pseq(self, N_int: Lin) -> PSeq:
        out = pzeros(0)
        for b in self.blocks:
            out = out | b.pseq()
        return out | pzeros(lin(N_int) - self.total())

    def text(self) -> str:
        if not self.blocks:
            return "0"
        return "(" + " | ".join([b.text() for b in self.blocks] + ["0…"]) + ")"


@dataclass(frozen=True)
class Term:
    """A filter term c·X^offset, or c·h(X)·X^offset for a named filter block of length ``length``."""

    offset: Lin
    coef: int = 1
    block: str = ""
    length: Lin | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "offset", lin(self.offset))

    def text(self) -> str:
        c = "" if self.coef == 1 else ("-" if self.coef == -1 else f"{self.coef}·")
        k = lin_text(self.offset)
        if self.block:
            return c + f"{self.block}(X)" + ("" if k == "0" else f"·X^{{{k}}}")
        if k == "0":
            return str(self.coef)
        return c + ("X" if k == "1" else f"X^{{{k}}}")

    def pfilter(self):
        f = fblock(self.block, self.length, self.offset) if self.block else X**self.offset
        return f * self.coef if self.coef != 1 else f


def filter_text(terms: tuple) -> str:
    """h(X) as a sum of terms, e.g. '1 + X^{n+m+s+t}'."""
    if not terms:
        return "0"
    return " + ".join(t.text() for t in terms).replace("+ -", "- ")


@dataclass(frozen=True)
class RLayer:
    """One layer b1 ⊙ (h * u + b2) (W = 0) in the paper's notation; ``index`` is its superscript."""

    h: tuple
    b1: Col
    b2: Col = Col()
    conv: str = "causal"
    index: int = 1
    label: str = ""

    def player(self, N_int: Lin) -> PLayer:
        f = self.h[0].pfilter() if self.h else 0
        for t in self.h[1:]:
            f = f + t.pfilter()
        if not self.h:
            f = X**0 * 0
        return PLayer(f, self.b1.pseq(N_int), self.b2.pseq(N_int), conv=self.conv, label=self.label)

    def names(self) -> dict:
        k = SUP.get(self.index, str(self.index))
        return {"h": f"h{k} (layer {self.index} filter)", "b1": f"b{k}₁ (layer {self.index} gate b1)",
                "b2": f"b{k}₂ (layer {self.index} bias b2)", "conv": f"layer {self.index} convolution"}


@dataclass(frozen=True)
class Route:
    """A printed route: input, layers, claimed output and states, hypotheses, internal length.

    ``biases``: the other bias columns the proof defines (candidates for a replaced argument);
    ``lower``: the least value of every size symbol; ``hypotheses``: the claim's, as forms >= 0.
    """

    name: str
    input: PSeq
    layers: tuple
    expected: PSeq
    steps: tuple = ()
    hypotheses: tuple = ()
    N_int: Lin = Lin()
    lower: Mapping = field(default_factory=dict)
    biases: tuple = ()
    note: str = ""

    def fits(self) -> tuple:
        """Forms that must be >= 0 for the route's blocks to be placed (fill lengths, offsets, lengths)."""
        forms = []
        for l in self.layers:
            for col in (l.b1, l.b2):
                if col.blocks:
                    forms.append(self.N_int - col.total())
                    forms += [b.length for b in col.blocks]
            forms += [t.offset for t in l.h]
        for col in [self.input, self.expected] + [s.expected for s in self.steps]:
            forms += list(col.nonneg)
            forms.append(self.N_int - col.length)
        base = self.base_facts()
        out = []
        for f in dict.fromkeys(lin(f) for f in forms):
            if not f.is_const() and not base.proves(f):
                out.append(f)
            elif f.is_const() and f.const < 0:
                out.append(f)
        return tuple(out)

    def base_facts(self) -> Facts:
        return Facts.of(*(_sym(k) - v for k, v in self.lower.items()), *self.hypotheses)

    def description(self, steps: tuple | None = None) -> Description:
        """The Description checked for all sizes: hypotheses plus the fit conditions as facts."""
        layers = tuple(l.player(self.N_int) for l in self.layers)
        st = self.steps if steps is None else steps
        return Description(self.input, layers, self.expected, st, facts=tuple(self.hypotheses) + self.fits(),
                           N_int=self.N_int, note=self.note)

    def with_layers(self, layers: tuple) -> "Route":
        return replace(self, layers=tuple(layers))


def _sym(name: str) -> Lin:
    return Lin(((name, 1),), 0)


# ---------------------------------------------------------------- Prop. H.8


def shift_up_route(z: Mapping[str, Lin], circ: str = "circular") -> Route:
    """H.8's printed shift_up: (⊛ e_0), shift_down(s), (⊛ e_0), every gate 1.

    The claimed Y0 (y ⊛ e_0 is the reversal of y) is not a block column of y
    (a reversal is no shift of a block), so that step is left out; Y1 =
    (0^s | y[0:N−s]) (the printed Y1[i] = Y0[N−1−i+s] with Y0 reversed) and
    Y2 = (y[s:N] | 0^s) are kept.

    >>> from symconv.parametric import size
    >>> [s.label for s in shift_up_route({"N": size("N"), "s": size("s")}).steps]
    ['Y1 = shift_down(Y0, s)', 'Y2 = Y1 ⊛ e_0']
    """
    if circ not in ("circular", "causal"):
        raise HypothesisError(f"circ: ⊛ is read 'circular' or 'causal', got {circ!r}")
    N, s = z["N"], z["s"]
    y = psym("y", N)
    one = Col((Blk("1", N),))
    layers = (RLayer((Term(0),), one, conv=circ, index=1, label="Y0 = y ⊛ e_0"),
              RLayer((Term(s),), one, conv="causal", index=2, label="Y1 = shift_down(Y0, s)"),
              RLayer((Term(0),), one, conv=circ, index=3, label="Y2 = Y1 ⊛ e_0"))
    up = y.rows(s, N) | pzeros(s)
    steps = (PStep("Y1 = shift_down(Y0, s)", 2, pzeros(s) | y.rows(0, N - s)), PStep("Y2 = Y1 ⊛ e_0", 3, up))
    from ..constructions.shifts import shift_hypothesis

    return Route(f"H.8 shift_up as printed (⊛ {circ})", y, layers, up, steps, shift_hypothesis(N, s).forms(), N,
                 {"N": 1, "s": 0}, note="the claimed reversal Y0 = y ⊛ e_0 is not a block column; step left out")


def shift_up_printed(z: Mapping[str, Lin], circ: str = "circular") -> Description:
    """The Description of :func:`shift_up_route` (steps Y1, Y2).

    >>> from symconv.parametric import size
    >>> len(shift_up_printed({"N": size("N"), "s": size("s")}).layers)
    3
    """
    return shift_up_route(z, circ).description()


# ---------------------------------------------------------------- Prop. H.9


def add_n_route(z: Mapping[str, Lin], call: str = "printed") -> Route:
    """H.9 with layer 2 called as displayed, BaseConv(z¹, 0, h², b²₁, b²₁) (``call="printed"``),
    or with the parameters as defined, b2 = b²₂ (``call="parameters"``).

    >>> from symconv.parametric import size
    >>> add_n_route({"n": size("n"), "N": size("N")}).layers[0].b1.text()
    '(0^{n} | 1^{n} | 0…)'
    """
    n, N = z["n"], z["N"]
    x, S, rest = psym("x", n), psym("S", n), pzeros(N - 2 * n)
    y = x | S | rest
    z1 = pzeros(n) | S + x | rest
    out = pones(n) | S + x | rest
    b11 = Col((Blk("0", n), Blk("1", n)), "b¹₁")
    b21 = Col((Blk("1", n), Blk("1", n)), "b²₁")
    b22 = Col((Blk("1", n),), "b²₂")
    second = b21 if call == "printed" else b22
    layers = (RLayer((Term(0), Term(n)), b11, index=1, label="z¹ = b¹₁ ⊙ (h¹ * y)"),
              RLayer((Term(0),), b21, second, index=2, label="z = b²₁ ⊙ (h² * z¹ + b²₂)"))
    return Route(f"H.9 add_n ({call} call)", y, layers, out,
                 (PStep("z¹ = b¹₁ ⊙ (h¹ * y) = (0^n | S + x | 0…)", 1, z1),
                  PStep("z = b²₁ ⊙ (h² * z¹ + b²₂) = (1^n | S + x | 0…)", 2, out)),
                 _add_n_forms(n, N), N, {"n": 1, "N": 2}, biases=(b11, b21, b22))


def _add_n_forms(n, N) -> tuple:
    from ..constructions.sums import add_n_hypothesis

    return add_n_hypothesis(n, N).forms()


def add_n_printed_call(z: Mapping[str, Lin]) -> Description:
    """H.9 with the second layer called as BaseConv(z¹, 0, h², b²₁, b²₁).

    >>> from symconv.parametric import size, check, base_facts
    >>> check(add_n_printed_call({"n": size("n"), "N": size("N")}), base_facts({"n": 1, "N": 2})).status
    'fails'
    """
    return add_n_route(z, "printed").description()


# ---------------------------------------------------------------- Prop. H.10


def remember_route(z: Mapping[str, Lin], shift_up: str = "H.8") -> Route:
    """H.10 as printed: h¹ = h(X) + X^{n+m+s+t}, b¹₁ = (p | 0^{m+t} | 0^n | 0^s | 1^m | 0…);
    h² = 1 + X^{n+m+s+t}, b²₁ = (0^{n+s} | 0^{m+t} | 0^n | 1^{n+s} | 1^m | 0…); then a shift_up
    by a = 2n+s+m+t: H.8's printed three layers (``"H.8"``, ⊛ circular) or one working circular
    layer (1^{N−a} | 0…) ⊙ (X^{N−a} ⊛ z²) (``"working"``).  Steps z¹, z², z.

    >>> from symconv.parametric import size
    >>> r = remember_route({k: size(k) for k in "nmstN"}, "working")
    >>> r.layers[1].b1.text()
    '(0^{n+s} | 0^{m+t} | 0^{n} | 1^{n+s} | 1^{m} | 0…)'
    """
    if shift_up not in ("H.8", "working"):
        raise HypothesisError(f"shift_up: expected 'H.8' or 'working', got {shift_up!r}")
    n, m, s, t, N = z["n"], z["m"], z["s"], z["t"], z["N"]
    x, v = psym("x", n), psym("v", m)
    phx = phad(psym("p", n + s), pconv(psym("h", n), x))          # p ⊙ (h ∗ x), n + s rows
    y = x | pzeros(s) | v | pzeros(N - n - s - m)
    far, a = n + m + s + t, 2 * n + s + m + t
    b11 = Col((Blk("sym", n + s, "p"), Blk("0", m + t), Blk("0", n), Blk("0", s), Blk("1", m)), "b¹₁")
    b21 = Col((Blk("0", n + s), Blk("0", m + t), Blk("0", n), Blk("1", n + s), Blk("1", m)), "b²₁")
    l1 = RLayer((Term(0, block="h", length=n), Term(far)), b11, index=1, label="z¹ = b¹₁ ⊙ (h¹ * y)")
    l2 = RLayer((Term(0), Term(far)), b21, index=2, label="z² = b²₁ ⊙ (h² * z¹)")
    one = Col((Blk("1", N),))
    if shift_up == "H.8":
        tail = (RLayer((Term(0),), one, conv="circular", index=3, label="⊛ e_0 (claimed reversal)"),
                RLayer((Term(a),), one, index=4, label="shift_down by 2n+s+m+t"),
                RLayer((Term(0),), one, conv="circular", index=5, label="⊛ e_0"))
    else:
        tail = (RLayer((Term(N - a),), Col((Blk("1", N - a),)), conv="circular", index=3,
                       label="shift_up by 2n+s+m+t"),)
    z1 = phx | pzeros(m + t) | pzeros(n) | pzeros(s) | v | pzeros(N - (2 * n + 2 * s + 2 * m + t))
    z2 = pzeros(n + s) | pzeros(m + t) | pzeros(n) | phx | v | pzeros(N - (3 * n + 2 * s + 2 * m + t))
    out = phx | v | pzeros(N - n - s - m)
    L = 2 + len(tail)
    steps = (PStep("z¹ = b¹₁ ⊙ (h¹ * y)", 1, z1), PStep("z² = b²₁ ⊙ (h² * z¹)", 2, z2),
             PStep("z = shift_up(z², 2n+s+m+t)", L, out))
    from ..constructions.remember import remember_hypotheses

    hyp = tuple(f for h in remember_hypotheses(n, m, s, t, N) for f in h.forms())
    return Route(f"H.10 remember as printed (shift_up: {shift_up})", y, (l1, l2) + tail, out, steps, hyp, N,
                 {"n": 1, "m": 1, "s": 0, "t": 0, "N": 2}, biases=(b11, b21))


def remember_printed(z: Mapping[str, Lin], shift_up: str = "H.8") -> Description:
    """The Description of :func:`remember_route` (under the fit condition N >= 3n+2s+2m+t).

    >>> from symconv.parametric import size
    >>> len(remember_printed({k: size(k) for k in "nmstN"}).layers)
    5
    """
    return remember_route(z, shift_up).description()


def hyena_remember_printed(z: Mapping[str, Lin]):
    """H.12's printed per-layer remember_{N,N,0,0}: not expressible as a block Description.

    With n = m = N and s = t = 0 on N' + N = 2N rows, the printed gate b¹₁ alone
    needs 2n + 2s + 2m + t = 4N rows, so the printed blocks cannot be placed in the
    state (the concrete proof file cuts them at 2N), and remember's hypothesis
    s >= n − 1 (x ∗ h ∈ R^{n+s}) holds only for N = 1.  Returns None and the reason.

    >>> from symconv.parametric import size
    >>> hyena_remember_printed({"N": size("N")})[0] is None
    True
    """
    return None, ("remember_{N,N,0,0} on 2N rows: b¹₁ needs 4N rows and s >= n-1 forces N = 1; "
                  "the printed blocks are cut, which a block column cannot state")
