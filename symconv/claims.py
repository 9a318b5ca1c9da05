"""Claims, variants, verdicts and ``verify``.

A :class:`Claim` is a numbered result as data: its reference (``"H.9"``), a
statement, the size parameters (:class:`~symconv.sweep.SizeParam`, with any
cost caps) and the hypotheses (one :class:`~symconv.hypotheses.Hypothesis`
each, written once), the claimed signature, and one or more :class:`Variant` s
(``"as printed"``: the paper's literal route; ``"corrected"``: symconv's fix).
A variant is either a *construction* written once with symbolic sizes (a
:mod:`symconv.parametric` description: the concrete stack at given sizes is
its instantiation, and the all-sizes proof is about that very object) or a
``build`` function of concrete sizes (for constructions that are not block
structured, such as compiled circuits).

:func:`verify` checks every variant exactly over a sweep of sizes, small to
large, and returns one :class:`Verdict` per variant: it holds on the box of
sizes checked (:class:`~symconv.sweep.Box`, reported exactly), or the first
size, step, layer and coefficient where it fails, with a counterexample.  An
erratum (``expect="fails"``) records the steps where it must fail
(``fails_at``); the verdict differs from the record when those move.

Example:
    >>> from symconv.blocks import sym, zeros
    >>> from symconv.constructions.shifts import shift_down
    >>> def build(s):
    ...     y = sym("y", s["N"])
    ...     return Instance(y, shift_down(s["N"], 1), zeros(1) | sym("y", s["N"] - 1))
    >>> c = Claim("X.1", "shift by one", "shift_down by 1", sizes=(SizeParam("N", 2),),
    ...           claimed=lambda s: Signature(s["N"], 1, 1, s["N"], 1),
    ...           variants=(Variant("corrected", build),))
    >>> v = verify(c, max_size=4)[0]
    >>> v.verdict, v.box.text()
    ('holds', '2 ≤ N ≤ 4; 3 points')
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .blocks import Block
from .checking import Failure, StepResult, check_instance
from .hypotheses import Hypothesis
from .model import HypothesisError, Layer, Signature, Stack
from .sweep import (DEFAULT_MAX_SIZE, DEFAULT_TIME_BUDGET, Box, Cap, SizeParam, TimeBudget, enumerate_box,
                    plan_raise)

EXPECT = ("holds", "fails")
STEP_KINDS = ("state", "product", "conv", "call", "count")
OUTPUT = "output"

__all__ = ["Cap", "Claim", "Hypothesis", "Instance", "NumericCase", "SizeParam", "Step", "Variant", "Verdict",
           "Verdicts", "verify"]


@dataclass(frozen=True, eq=False)
class Step:
    """A printed formula of the proof, checked on its own from the claimed previous state.

    ``kind``:

    * ``"state"``: the full N'×d' state after the first ``layers`` layers is ``expected``;
    * ``"product"``: the polynomial product h(X)·z(X) of layer ``layers`` (1-based) with the
      claimed state before it, before any truncation or mask, is ``expected`` (its coefficients,
      as many rows as the product has);
    * ``"conv"``: the convolution h * z of layer ``layers`` with the claimed state before it
      (mod X^N', or folded for a circular layer), before the mask: an N'-row column;
    * ``"call"``: the displayed layer ``call`` (a :class:`~symconv.model.Layer`) applied to the
      claimed state after ``layers - 1`` layers gives ``expected`` (a display such as
      BaseConv(z¹, 0, h², b²₁, b²₁) checked as printed);
    * ``"count"``: the route has ``count`` layers (a printed layer count).
    """

    label: str
    layers: int
    expected: Block | None = None
    kind: str = "state"
    call: Layer | None = None
    count: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.label, str) or not self.label:
            raise HypothesisError(f"Step.label: a step needs a non-empty label, got {self.label!r}")
        if self.kind not in STEP_KINDS:
            raise HypothesisError(f"Step.kind: {self.label}: expected one of {STEP_KINDS}, got {self.kind!r}")
        if isinstance(self.layers, bool) or not isinstance(self.layers, (int, np.integer)) or self.layers < 0:
            raise HypothesisError(f"Step.layers: {self.label}: expected a layer count >= 0, got {self.layers!r}")
        if self.kind == "count":
            if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 0:
                raise HypothesisError(f"Step.count: {self.label}: a count step needs count >= 0, got {self.count!r}")
        elif not isinstance(self.expected, Block):
            raise HypothesisError(f"Step.expected: {self.label}: expected a Block, got {type(self.expected).__name__}")
        if self.kind == "call" and not isinstance(self.call, Layer):
            raise HypothesisError(f"Step.call: {self.label}: a call step needs the displayed Layer")
        if self.kind in ("product", "conv", "call") and self.layers < 1:
            raise HypothesisError(f"Step.layers: {self.label}: a {self.kind} step names a layer >= 1")


@dataclass(frozen=True, eq=False)
class Instance:
    """One concrete check: input block (N×d), stack, expected output (N×d), steps."""

    input: Block
    stack: Stack
    expected: Block
    steps: tuple = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", tuple(self.steps))
        for name, typ in (("input", Block), ("stack", Stack), ("expected", Block)):
            if not isinstance(getattr(self, name), typ):
                raise HypothesisError(f"Instance.{name}: expected a {typ.__name__}, got {type(getattr(self, name)).__name__}")
        for i, s in enumerate(self.steps):
            if not isinstance(s, Step):
                raise HypothesisError(f"Instance.steps[{i}]: expected a Step, got {type(s).__name__}")
        labels = [s.label for s in self.steps]
        if OUTPUT in labels:  # a label may repeat: one printed formula stated for every layer ℓ
            raise HypothesisError(f"Instance.steps: {OUTPUT!r} is reserved for the end-to-end check: {labels}")


@dataclass(frozen=True, eq=False)
class NumericCase:
    """A numeric instance for cross-checks at scale.

    ``stack`` has numeric parameters; ``input`` has shape (B, N, d); ``reference``
    computes the expected output (B, N, d) directly from the definition (never
    through the stack), with plain array operations (indexing, sums, products) so
    that it also runs on integer arrays for exact checks modulo a prime.
    """

    stack: Stack
    input: Any
    reference: Callable[[Any], Any]
    sizes: dict = field(default_factory=dict)

    @property
    def expected(self) -> Any:
        return self.reference(self.input)


@dataclass(frozen=True, eq=False)
class Variant:
    """One way to realise the claim; ``expect`` is the verdict the proof records.

    Give exactly one of ``construction`` (sizes → a :mod:`symconv.parametric`
    Description or Cases, written once with symbolic sizes; the concrete
    instance is derived from it) and ``build`` (concrete sizes → an
    :class:`Instance`).  ``fails_at`` (for ``expect="fails"``) names the steps
    that fail when checked from the claimed previous state, the first being
    where the route first departs (``"output"`` for a variant without printed
    steps).  ``reading`` says how the variant reads the paper when that is not
    literal (e.g. ``"not stated in the paper"``, ``"obvious reading: b²₂ for the
    second b²₁"``).  ``instances`` describes random parameters (count per size
    and seed).  ``covers`` names the models a holding variant is restricted to
    when they are fewer than the claim's (``"b2 = 0"``): a bound it meets is
    then reported as met for those models only.  ``proved_at`` (with ``proof``)
    names the sizes the all-sizes proof is built at when they are not all of the
    claim's (``"N' = 2N (N' < 2N by hand)"``, for a claim with N' < 2N): the scope
    is then ``all sizes at …``, and the claim's own sizes rest on the note's
    argument by hand.  ``numeric(N, d, batch, rng)`` builds a
    :class:`NumericCase` for cross-checks at scale.  ``proof`` (with ``build``) is an all-sizes proof of a
    route whose layer count is itself a size: sizes → a
    :class:`~symconv.parametric.check.Induction` over the same layer functions
    that ``build`` instantiates.
    """

    name: str
    build: Callable[[Mapping[str, int]], Instance] | None = None
    expect: str = "holds"
    note: str = ""
    numeric: Callable[..., NumericCase] | None = None
    construction: Callable[..., Any] | None = None
    where: Hypothesis | None = None
    fails_at: tuple = ()
    reading: str = ""
    instances: str = ""
    extra_steps: Callable[[Mapping[str, int], Instance], tuple] | None = None
    covers: str = ""
    proved_at: str = ""
    proof: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise HypothesisError(f"Variant.name: expected a non-empty name, got {self.name!r}")
        if self.expect not in EXPECT:
            raise HypothesisError(f"Variant.expect: {self.name}: expected one of {EXPECT}, got {self.expect!r}")
        if (self.build is None) == (self.construction is None):
            raise HypothesisError(f"Variant.build: {self.name}: give exactly one of build and construction")
        for f in ("build", "construction", "numeric", "extra_steps", "proof"):
            v = getattr(self, f)
            if v is not None and not callable(v):
                raise HypothesisError(f"Variant.{f}: {self.name}: expected a function, got {type(v).__name__}")
        if self.where is not None and not isinstance(self.where, Hypothesis):
            raise HypothesisError(f"Variant.where: {self.name}: expected a Hypothesis, got {type(self.where).__name__}")
        for f in ("note", "reading", "instances", "covers", "proved_at"):
            if not isinstance(getattr(self, f), str):
                raise HypothesisError(f"Variant.{f}: {self.name}: expected text, got {type(getattr(self, f)).__name__}")
        if self.proved_at and self.proof is None:
            raise HypothesisError(f"Variant.proved_at: {self.name}: names the sizes of an all-sizes proof; give proof")
        fa = (self.fails_at,) if isinstance(self.fails_at, str) else tuple(self.fails_at)
        if not all(isinstance(x, str) and x for x in fa):
            raise HypothesisError(f"Variant.fails_at: {self.name}: expected step labels, got {self.fails_at!r}")
        if self.expect == "holds" and fa:
            raise HypothesisError(f"Variant.fails_at: {self.name}: a variant that holds has no failing step")
        if self.expect == "fails" and not fa:
            raise HypothesisError(
                f"Variant.fails_at: {self.name}: an erratum must record the step(s) where it fails "
                f"(a step label, or {OUTPUT!r})")
        object.__setattr__(self, "fails_at", fa)

    def applies(self, sizes: Mapping[str, int]) -> bool:
        """Whether the variant covers these sizes (``where`` narrows the claim's sweep)."""
        return self.where is None or self.where.holds_at(sizes)

    def instance(self, sizes: Mapping[str, int], claim: "Claim | None" = None) -> Instance:
        """The concrete instance at ``sizes`` (from the construction, or ``build``), validated."""
        where = f"{claim.id} {claim.name} [{self.name}]" if claim is not None else self.name
        try:
            if self.construction is not None:
                from .parametric.check import instance_at

                inst = instance_at(self.symbolic(claim), sizes, int(sizes.get("d", 1)))
            else:
                inst = self.build(dict(sizes))
        except Exception as exc:
            raise HypothesisError(f"{where}: building at sizes {dict(sizes)} raised "
                                  f"{type(exc).__name__}: {exc}") from exc
        if not isinstance(inst, Instance):
            raise HypothesisError(f"Variant.build: {where}: returned {type(inst).__name__}, expected an Instance")
        if self.extra_steps is not None:
            extra = tuple(self.extra_steps(dict(sizes), inst))
            inst = Instance(inst.input, inst.stack, inst.expected, inst.steps + extra)
        rank = {"product": 0, "conv": 1, "call": 2, "state": 3, "count": 4}  # a product or call comes before its state
        steps = sorted(inst.steps, key=lambda s: (s.layers if s.kind != "count" else 1 << 30, rank[s.kind]))
        return Instance(inst.input, inst.stack, inst.expected, tuple(steps))

    def symbolic(self, claim: "Claim | None" = None):
        """The construction at symbolic sizes (computed once)."""
        cache = self.__dict__.setdefault("_symbolic", {})
        if "desc" not in cache:
            from .parametric.linear import size

            names = [p.name for p in claim.sizes] if claim is not None else []
            cache["desc"] = self.construction({n: size(n) for n in names})
        return cache["desc"]


@dataclass(frozen=True, eq=False)
class Claim:
    """A numbered result: reference, statement, sizes, hypotheses, signature, variants.

    ``statement`` is the result in words *without* its hypotheses: the printed
    statement (:attr:`full_statement`) appends them, derived from the
    Hypothesis objects.  ``caps`` are cost caps on products of sizes;
    ``cost(sizes)`` is the relative cost of one size point (default
    :func:`~symconv.sweep.default_cost`), used to estimate the time of lifting a cap.
    """

    id: str
    name: str
    statement: str
    sizes: tuple = ()
    claimed: Callable[[Mapping[str, int]], Signature] | None = None
    variants: tuple = ()
    hypotheses: tuple = ()
    assumptions: tuple = ()
    caps: tuple = ()
    cost: Callable[[Mapping[str, int]], float] | None = None
    bounds: tuple = ()  # claimed bounds on L, N', d', parameters (symconv.certificates.Bound)

    def __post_init__(self) -> None:
        for f in ("id", "name", "statement"):
            if not isinstance(getattr(self, f), str) or not getattr(self, f):
                raise HypothesisError(f"Claim.{f}: expected non-empty text, got {getattr(self, f)!r}")
        for f, typ in (("sizes", SizeParam), ("variants", Variant), ("hypotheses", Hypothesis), ("caps", Cap)):
            v = getattr(self, f)
            if isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
                raise HypothesisError(f"Claim.{f}: {self.id}: expected a tuple of {typ.__name__}, got {type(v).__name__}")
            v = tuple(v)
            for i, x in enumerate(v):
                if not isinstance(x, typ):
                    raise HypothesisError(f"Claim.{f}[{i}]: {self.id} {self.name}: expected a {typ.__name__}, "
                                          f"got {type(x).__name__} {x!r}")
            object.__setattr__(self, f, v)
        if not self.variants:
            raise HypothesisError(f"Claim.variants: {self.id} {self.name}: a claim needs at least one variant")
        names = [p.name for p in self.sizes]
        if len(set(names)) != len(names):
            raise HypothesisError(f"Claim.sizes: {self.id}: size names repeat: {names}")
        vnames = [v.name for v in self.variants]
        if len(set(vnames)) != len(vnames):
            raise HypothesisError(f"Claim.variants: {self.id} {self.name}: variant names repeat: {vnames}")
        known = set(names)
        for h in list(self.hypotheses) + [v.where for v in self.variants if v.where is not None]:
            extra = set(h.symbols) - known
            if extra:
                raise HypothesisError(f"Claim.hypotheses: {self.id}: {h.text} uses {sorted(extra)}, "
                                      f"not sizes of the claim ({names})")
        for c in self.caps:
            if set(c.names) - known:
                raise HypothesisError(f"Claim.caps: {self.id}: {c.text} names sizes the claim does not have")
        for f in ("claimed", "cost"):
            if getattr(self, f) is not None and not callable(getattr(self, f)):
                raise HypothesisError(f"Claim.{f}: {self.id}: expected a function of the sizes")
        from .certificates.bounds import Bound

        if isinstance(self.bounds, Bound) or not isinstance(self.bounds, Iterable):
            raise HypothesisError(f"Claim.bounds: {self.id}: expected a tuple of Bound")
        object.__setattr__(self, "bounds", tuple(self.bounds))
        for i, b in enumerate(self.bounds):
            if not isinstance(b, Bound):
                raise HypothesisError(f"Claim.bounds[{i}]: {self.id} {self.name}: expected a Bound, "
                                      f"got {type(b).__name__}")

    @property
    def full_statement(self) -> str:
        """The statement with its hypotheses, as printed in reports."""
        texts = [h.text for h in self.hypotheses if h.atoms]
        return f"{self.statement}, for {'; '.join(texts)}" if texts else self.statement

    def holds_for(self, sizes: Mapping[str, int]) -> bool:
        return all(h.holds_at(sizes) for h in self.hypotheses)

    def check_hypotheses(self, sizes: Mapping[str, int]) -> None:
        """Raise a HypothesisError naming the first hypothesis the sizes violate."""
        names = {p.name for p in self.sizes}
        missing = names - set(sizes)
        if missing:
            raise HypothesisError(f"sizes: {self.id} {self.name} needs values for {sorted(missing)}")
        for p in self.sizes:
            v = sizes[p.name]
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < p.lo:
                raise HypothesisError(f"sizes: {p.name} = {v!r}: {self.id} needs an integer >= {p.lo}")
        for h in self.hypotheses:
            if not h.holds_at(sizes):
                raise HypothesisError(f"{self.id} {self.name}: hypothesis {h.text} violated by {dict(sizes)}")

    def sweep(self, max_size: int) -> list[dict]:
        """The default box: every assignment within the caps that satisfies the hypotheses, small first."""
        return enumerate_box(self.sizes, self.caps, max_size, self.holds_for)

    def signature_at(self, sizes: Mapping[str, int]) -> str:
        if self.claimed is None:
            return "-"
        sig = self.claimed(dict(sizes))
        if not isinstance(sig, Signature):
            raise HypothesisError(f"Claim.claimed: {self.id} {self.name}: returned {type(sig).__name__}, "
                                  "expected a Signature")
        return str(sig)


@dataclass(frozen=True)
class Verdict:
    """The outcome of verifying one variant of a claim: verdict, the box checked, failure, steps."""

    id: str
    name: str
    variant: str
    verdict: str
    expect: str
    scope: str
    sizes_checked: int
    signature_claimed: str
    signature_built: str
    seconds: float
    statement: str = ""
    failure: Failure | None = None
    steps: tuple = ()
    note: str = ""
    parametric: str = ""  # the all-sizes check: what it proved, or the comparison it left open
    box: Box | None = None
    fails_at: tuple = ()        # what the proof records
    failing_steps: tuple = ()   # what failed this time, from the claimed previous state
    differences: tuple = ()     # how this verdict departs from the record
    reading: str = ""
    grade: str = ""             # an erratum's grade: "fails as printed; holds after a k-symbol repair", ...
    repair: Any = None          # its closest repair (symconv.repair.RepairReport), where a search applies
    bounds: tuple = ()          # symconv.certificates.BoundResult per claimed bound, for this variant
    points_built: tuple = ()    # (sizes, built signature) at every size point checked

    @property
    def ok(self) -> bool:
        """The verdict, and for an erratum its failing steps, are those the proof file records
        (a variant left unchecked, its box being empty at this --max-size, differs from nothing)."""
        return (self.verdict == self.expect and not self.differences) or self.verdict == "unchecked"

    @property
    def holds(self) -> bool:
        """The variant holds on everything checked (``bool(verdict)`` is the same)."""
        return self.verdict == "holds"

    def __bool__(self) -> bool:
        return self.holds

    @property
    def checked(self) -> str:
        """The box of sizes checked, in words (``N ≤ 3, L ≤ 3 (caps: ...); 39 points``)."""
        return self.box.text() if self.box is not None else f"{self.sizes_checked} points"

    def as_dict(self) -> dict:
        from dataclasses import replace as _replace

        d = asdict(_replace(self, bounds=(), points_built=()))
        d.pop("points_built", None)
        d.pop("bounds", None)
        d["lower_bounds"] = [b.as_dict() for b in self.bounds]
        d.pop("box", None)
        d["ok"] = self.ok
        d["holds"] = self.holds
        box = self.box.as_dict() if self.box is not None else {"checked": {}, "points": self.sizes_checked,
                                                                "capped_by": []}
        d.update(box)
        d["checked_text"] = self.checked
        d["fails_at"] = list(self.fails_at)
        d["failing_steps"] = list(self.failing_steps)
        d["differences"] = list(self.differences)
        if self.failure is not None:
            f = self.failure
            d["failure"] = f.as_dict() if hasattr(f, "as_dict") else asdict(f)
            d["failure"]["position"] = list(f.position)
        d["steps"] = [_step_dict(s) for s in self.steps]
        d["repair"] = self.repair.as_dict() if self.repair is not None else None
        return d


def _step_dict(s: StepResult) -> dict:
    out = {"label": s.label, "first_layer": s.first_layer, "last_layer": s.last_layer, "holds": s.holds,
           "kind": s.kind, "failure": None}
    if s.failure is not None:
        f = s.failure
        out["failure"] = f.as_dict() if hasattr(f, "as_dict") else asdict(f)
        out["failure"]["position"] = list(f.position)
    return out


class Verdicts(list):
    """The verdicts of :func:`verify`: a list with ``.holds`` (every variant holds) and ``.ok``.

    >>> Verdicts().holds, Verdicts().ok
    (True, True)
    """

    @property
    def holds(self) -> bool:
        """Every verdict holds."""
        return all(v.holds for v in self)

    @property
    def ok(self) -> bool:
        """Every verdict is the one its proof records."""
        return all(v.ok for v in self)

    def __bool__(self) -> bool:  # a list of verdicts is truthy when they all hold
        return self.holds


# ---------------------------------------------------------------- checking one instance


def check_all(inst: Instance, sizes: Mapping[str, int]) -> tuple[Failure | None, list[StepResult]]:
    """End-to-end failure and every printed step's result, in the order the steps are given.

    State steps go through :func:`symconv.checking.check_instance`; product, call
    and count steps are checked here, each from the claimed state before it.
    """
    order = sorted(range(len(inst.steps)), key=lambda i: inst.steps[i].layers)  # as check_instance orders them
    states = [i for i in order if inst.steps[i].kind == "state"]
    core = Instance(inst.input, inst.stack, inst.expected, tuple(inst.steps[i] for i in states))
    failure, results = check_instance(core, sizes)
    by_index = dict(zip(states, results))
    out = []
    for i, s in enumerate(inst.steps):
        out.append(by_index[i] if s.kind == "state" else _check_formula(inst, s, sizes))
    return failure, out


def _claimed_before(inst: Instance, layer: int, R):
    """The claimed state after ``layer`` layers: the input (padded) or the last state step at that layer."""
    from .symbolic import ExactSeq

    st = inst.stack
    x0 = ExactSeq.from_block(R, inst.input).pad(st.N_int, st.d_int)
    best = None
    for s in inst.steps:
        if s.kind == "state" and s.layers == layer:
            best = s
    if layer == 0:
        return x0
    if best is None:
        from .symbolic import run_state

        prev = [s for s in inst.steps if s.kind == "state" and s.layers < layer]
        start = max(prev, key=lambda s: s.layers) if prev else None
        state = ExactSeq.from_block(R, start.expected).pad(st.N_int, st.d_int) if start else x0
        return run_state(st, state, start.layers if start else 0, layer)
    return ExactSeq.from_block(R, best.expected).pad(st.N_int, st.d_int)


def _check_formula(inst: Instance, s: Step, sizes: Mapping[str, int]) -> StepResult:
    from .checking import _compare
    from .symbolic import ExactSeq, apply_layer, convolve, make_ring, stack_symbols, to_ring

    st = inst.stack
    if s.kind == "count":
        holds = s.count == st.L
        fail = None if holds else Failure(dict(sizes), s.label, st.L, (0, 0), f"{st.L} layers",
                                          f"{s.count} layers", {}, str(st.L), str(s.count))
        return StepResult(s.label, 1, st.L, holds, fail, "count")
    blocks = [inst.input, s.expected] + [t.expected for t in inst.steps if t.expected is not None]
    syms = set().union(*(b.free_symbols() for b in blocks)) | stack_symbols(st)
    if s.call is not None:
        syms |= stack_symbols(Stack(st.N, st.d, (s.call,), st.N_int, st.d_int))
    R = make_ring(syms, backend=None)  # the active backend, as the state steps use
    if not 1 <= s.layers <= st.L:
        raise HypothesisError(f"{s.label}: names layer {s.layers} but the stack has {st.L}")
    prev = _claimed_before(inst, s.layers - 1, R)
    if s.kind == "call":
        got = apply_layer(s.call, prev)
        exp = ExactSeq.from_block(R, s.expected).pad(st.N_int, st.d_int)
        f = _compare(got, exp, dict(sizes), s.label, s.layers)
        return StepResult(s.label, s.layers, s.layers, f is None, f, "call")
    layer = st.layers[s.layers - 1]
    h = layer.h
    cols = []
    full = st.N_int + h.shape[0] - 1 if s.kind == "product" else st.N_int
    mode = "causal" if s.kind == "product" else layer.conv
    for j in range(st.d_int):
        taps = [to_ring(R, h[k, j if h.shape[1] > 1 else 0]) for k in range(h.shape[0])]
        cols.append(tuple(convolve(taps, prev.cols[j], full, mode, R)))
    got = ExactSeq(R, tuple(cols))
    e = s.expected
    if e.n > full:
        raise HypothesisError(f"{s.label}: the claimed product has {e.n} rows, the product has {full}")
    exp = ExactSeq.from_block(R, e).pad(full, st.d_int)
    f = _compare(got, exp, dict(sizes), s.label, s.layers)
    return StepResult(s.label, s.layers, s.layers, f is None, f, s.kind)


# ---------------------------------------------------------------- verify


def verify(claim: Claim, max_size: int = DEFAULT_MAX_SIZE, variants: Sequence[str] | None = None,
           sizes: Iterable[Mapping[str, int]] | None = None, executor: Any = None, raise_caps: bool = False,
           time_budget: "float | TimeBudget" = DEFAULT_TIME_BUDGET) -> "Verdicts":
    """Verify every variant of ``claim`` over the sweep of sizes up to ``max_size``.

    The sweep keeps each cost cap of the proof unless ``raise_caps`` (the CLI's
    explicit ``--max-size``): then each cap is lifted to ``max_size`` if the
    estimated time of the extra sizes (fitted on the sizes already checked)
    stays within ``time_budget`` seconds, and kept otherwise; a lift whose
    sizes turn out slower than estimated stops at the budget and keeps the cap
    (its sizes leave the box).  The verdict's box says which caps were lifted
    and why each other was kept.  ``time_budget``: seconds per variant, or a
    :class:`~symconv.sweep.TimeBudget` shared by several calls (the CLI's total).  ``sizes`` replaces the sweep with explicit assignments
    (hypotheses still checked).  ``executor`` (any ``concurrent.futures``
    executor) checks the sizes of a sweep in parallel; see :func:`check_sizes`.
    """
    if isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)) or max_size < 1:
        raise HypothesisError(f"max_size: must be an integer >= 1, got {max_size!r}")
    if not isinstance(claim, Claim):
        raise HypothesisError(f"claim: expected a Claim, got {type(claim).__name__}")
    if not isinstance(time_budget, TimeBudget) and (isinstance(time_budget, bool) or not isinstance(
            time_budget, (int, float)) or not time_budget > 0):
        raise HypothesisError(f"time_budget: must be a positive number of seconds, got {time_budget!r}")
    if not isinstance(raise_caps, bool):
        raise HypothesisError(f"raise_caps: must be True or False, got {raise_caps!r}")
    given = sizes is not None
    if given:
        sweep = [dict(s) for s in sizes]
        for s in sweep:
            claim.check_hypotheses(s)
    else:
        sweep = claim.sweep(max_size)
    names = [v.name for v in claim.variants]
    for v in variants or ():
        if v not in names:
            raise HypothesisError(f"variants: {claim.id} has no variant {v!r} (has {names})")
    out = []
    for variant in claim.variants:
        if variants and variant.name not in variants:
            continue
        mine = [z for z in sweep if variant.applies(z)]
        out.append(_verify_variant(claim, variant, mine, int(max_size), executor, given, raise_caps, time_budget))
    if claim.bounds:
        from .certificates.bounds import assess

        # a bound's recorded verdict is the default box's: lifted caps give each variant the box its share of the
        # time budget reached, so which variant is checked where (and the least built there) depends on timing
        same_box = not raise_caps or all(c.raised for v in out if v.box is not None for c in v.box.caps)
        out = assess(claim, out, complete=not given and not variants and max_size >= DEFAULT_MAX_SIZE and same_box)
    return Verdicts(out)


def _claim_ref(claim: Claim) -> Any:
    """A picklable handle on ``claim``: (proof file, index in its CLAIMS) when it has one."""
    import sys as _sys

    for v in claim.variants:
        fn = v.build if v.build is not None else v.construction
        mod = _sys.modules.get(getattr(fn, "__module__", ""), None)
        claims = getattr(mod, "CLAIMS", None)
        if getattr(mod, "__file__", None) and isinstance(claims, (list, tuple)):
            for i, c in enumerate(claims):
                if c is claim:
                    return ("proof file", mod.__file__, i)
    return claim


def _check_point(claim: Claim, variant: Variant, sizes: dict) -> tuple:
    t0 = time.perf_counter()
    inst = variant.instance(sizes, claim)
    f, steps = check_all(inst, sizes)
    return str(inst.stack.signature), f, steps, time.perf_counter() - t0


def _check_sizes_task(ref: Any, vindex: int, sizes: dict) -> tuple:
    """Worker side of :func:`check_sizes`: build and check one size assignment."""
    if isinstance(ref, tuple) and ref[:1] == ("proof file",):
        from pathlib import Path

        from .registry import load_module  # lazy: registry imports this module

        ref = load_module(Path(ref[1])).CLAIMS[ref[2]]
    return _check_point(ref, ref.variants[vindex], sizes)


def check_sizes(claim: Claim, variant: Variant, sweep: list[dict], executor: Any = None) -> Iterable[tuple]:
    """(built signature, failure, step results, seconds) for each size of ``sweep``, in order.

    Without ``executor`` the sizes are checked one by one, lazily.  With one
    (``concurrent.futures.ProcessPoolExecutor``, or a Dask cluster's
    ``Client.get_executor()`` for sweeps that outgrow one machine) every size is
    submitted at once.  A claim from a proof file travels as (file, index) and
    is re-imported by the worker, so workers need the proofs at the same path;
    other claims travel pickled (Dask's cloudpickle handles their lambdas).

        >>> from concurrent.futures import ThreadPoolExecutor
        >>> from symconv.blocks import sym, zeros
        >>> from symconv.constructions.shifts import shift_down
        >>> def build(s):
        ...     y = sym("y", s["N"])
        ...     return Instance(y, shift_down(s["N"], 1), zeros(1) | sym("y", s["N"] - 1))
        >>> c = Claim("X.1", "shift", "shift by one", sizes=(SizeParam("N", 2),),
        ...           variants=(Variant("corrected", build),))
        >>> with ThreadPoolExecutor(2) as ex:
        ...     [(sig, f) for sig, f, _, _ in check_sizes(c, c.variants[0], c.sweep(3), ex)]
        [('(2, 1, 1, 2, 1)', None), ('(3, 1, 1, 3, 1)', None)]
    """
    if executor is None:
        for sizes in sweep:
            yield _check_point(claim, variant, dict(sizes))
        return
    vindex = next(i for i, v in enumerate(claim.variants) if v is variant)
    ref = _claim_ref(claim)
    futures = [executor.submit(_check_sizes_task, ref, vindex, dict(s)) for s in sweep]
    try:
        for fut in futures:
            yield fut.result()
    finally:
        for fut in futures:
            fut.cancel()


class _Tally:
    """Accumulates the per-size results of one variant."""

    def __init__(self, claim: Claim) -> None:
        self.claim = claim
        self.failure: Failure | None = None
        self.steps: dict = {}
        self.order: list = []
        self.timed: list = []   # (sizes, seconds) of every point checked, small first
        self.built = "-"
        self.sigs: list = []    # (sizes, built signature) of every point checked

    @property
    def points(self) -> list:
        return [z for z, _ in self.timed]

    def add(self, sizes: dict, built: str, f, steps, seconds: float) -> None:
        self.timed.append((sizes, seconds))
        self.built = built
        self.sigs.append((tuple(sorted(sizes.items())), built))
        for r in steps:
            if r.label not in self.steps:
                self.order.append(r.label)
                self.steps[r.label] = r
            elif self.steps[r.label].holds and not r.holds:
                self.steps[r.label] = r
        if f is not None and self.failure is None:
            self.failure = f


def _differences(variant: Variant, failure: Failure | None, steps: Sequence,
                 complete: bool = True) -> tuple[tuple, tuple]:
    """(failing steps observed, differences from the record) for one verdict.

    ``complete``: the box covers the default one, so a recorded failing step that
    holds (or a first failing step that moved) is a difference; on a smaller box
    (a lower --max-size, given sizes) a recorded failure may simply not be reached.
    """
    labels = [s.label for s in steps]
    failing = [s.label for s in steps if not s.holds]
    if failure is not None and not failing:
        failing = [OUTPUT]
    if variant.expect == "holds":
        return tuple(failing), ()
    diffs = []
    recorded = list(variant.fails_at)
    for r in recorded:
        if r != OUTPUT and r not in labels:
            diffs.append(f"recorded failing step {r!r} no longer exists (steps: {labels or 'none'})")
        elif r not in failing and failure is not None and complete:
            diffs.append(f"recorded failing step {r!r} now holds")
    if failure is not None:
        for r in failing:
            if r not in recorded:
                diffs.append(f"step {r!r} fails but is not recorded as failing")
        if complete and failing and recorded and failing[0] != recorded[0] and recorded[0] in failing:
            diffs.append(f"the first failing step moved from {recorded[0]!r} to {failing[0]!r}")
    return tuple(failing), tuple(dict.fromkeys(diffs))


def _verify_variant(claim: Claim, variant: Variant, sweep: list[dict], max_size: int, executor: Any,
                    given: bool, raise_caps: bool, time_budget: float) -> Verdict:
    t0 = time.perf_counter()
    if not sweep:
        where = f" and {variant.where.text}" if variant.where is not None else ""
        if given:
            raise HypothesisError(f"{claim.id} {claim.name} [{variant.name}]: none of the given sizes is "
                                  f"covered by the variant{where}")
        return Verdict(
            id=claim.id, name=claim.name, variant=variant.name, verdict="unchecked", expect=variant.expect,
            scope="box", sizes_checked=0, signature_claimed="-", signature_built="-", seconds=0.0,
            statement=claim.full_statement, note=variant.note, box=Box.of(claim.sizes, claim.caps, [], max_size),
            fails_at=variant.fails_at, reading=variant.reading,
            parametric=f"no size up to --max-size {max_size} satisfies the hypotheses{where}: nothing was checked")
    tally = _Tally(claim)
    for sizes, res in zip(sweep, check_sizes(claim, variant, sweep, executor)):
        tally.add(sizes, *res)
    statuses = None
    if not given:
        admits = lambda z: claim.holds_for(z) and variant.applies(z)  # noqa: E731
        staged: dict = {}

        def check(points: list):  # results staged: plan_raise decides which points the box keeps
            for z, res in zip(points, check_sizes(claim, variant, points, executor)):
                staged[tuple(sorted(z.items()))] = res
                failed_before = tally.failure is not None or any(not r.holds for r in tally.steps.values())
                yield z, res[3], not failed_before and (res[1] is not None or any(not r.holds for r in res[2]))

        share = time_budget.allot() if isinstance(time_budget, TimeBudget) else float(time_budget)
        plan = plan_raise(claim.sizes, claim.caps, max_size, admits, tally.points, tally.timed, claim.cost,
                          share, raise_caps, check)
        if isinstance(time_budget, TimeBudget):
            time_budget.spend(plan.seconds if raise_caps else 0.0)
        for sizes in plan.extra:
            tally.add(sizes, *staged[tuple(sorted(sizes.items()))])
        statuses = plan.statuses
    failure = tally.failure
    steps = tuple(tally.steps[k] for k in tally.order)
    if failure is None:  # a printed formula (a product, a call, a count) that fails makes the variant fail
        failure = next((s.failure for s in steps if not s.holds and s.failure is not None), None)
    box = Box.of(claim.sizes, claim.caps, tally.points, max_size, statuses, variant.instances,
                 variant.where.text if variant.where is not None else "", given)
    shown = failure.sizes if failure else tally.points[-1]
    sig_claimed = claim.signature_at(shown)
    sig_built = str(variant.instance(shown, claim).stack.signature) if failure else tally.built
    scope, pnote = ("given sizes" if given else "box"), ""
    if (variant.construction is not None or variant.proof is not None) and not given:
        from .parametric.scope import all_sizes  # lazy: the block algebra is optional

        pscope, pnote = all_sizes(claim, variant, tally.points, failure is not None)
        scope = pscope or scope
    elif not given:
        pnote = ("no all-sizes proof: the variant is built at concrete sizes only (not written in the block "
                 "algebra); the verdict covers the box checked")
    failing, diffs = _differences(variant, failure, steps, complete=not given and max_size >= DEFAULT_MAX_SIZE)
    grade, repair = _grade(claim, variant, failure is not None)
    return Verdict(
        id=claim.id, name=claim.name, variant=variant.name, verdict="fails" if failure else "holds",
        expect=variant.expect, scope=scope, sizes_checked=len(tally.points), signature_claimed=sig_claimed,
        signature_built=sig_built, seconds=round(time.perf_counter() - t0, 3), statement=claim.full_statement,
        failure=failure, steps=steps, note=variant.note, parametric=pnote, box=box, fails_at=variant.fails_at,
        failing_steps=failing, differences=diffs, reading=variant.reading, grade=grade, repair=repair,
        points_built=tuple(tally.sigs),
    )


NOT_IN_PAPER = "not stated in the paper"


def _grade(claim: Claim, variant: Variant, fails: bool) -> tuple[str, Any]:
    """(grade, closest repair) of a failing variant: an erratum's grade from the repair search.

    A variant whose ``reading`` says it tests a statement the paper does not make is
    not an erratum.  The search (:mod:`symconv.repair`) is looked up by (id, name,
    variant); an erratum with no search states why none applies.
    """
    if not fails:
        return "", None
    if variant.reading.startswith(NOT_IN_PAPER):
        return "not an erratum: a statement the paper does not make", None
    if variant.reading.startswith("obvious reading"):
        return "fails also under the " + variant.reading, None
    try:
        from .repair import NOT_SEARCHED, repair_for
    except ImportError:  # pragma: no cover - the search module is part of the package
        return "fails as printed", None
    key = (claim.id, claim.name, variant.name)
    try:
        rep = repair_for(*key)
    except Exception as exc:  # a failing search must not hide the verdict
        return f"fails as printed; the repair search failed: {type(exc).__name__}: {exc}", None
    if rep is not None:
        return rep.grade, rep
    why = NOT_SEARCHED.get(key)
    return ("fails as printed; no symbol-edit search applies: " + why) if why else "fails as printed", None
