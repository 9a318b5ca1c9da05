"""Claims, variants, verdicts and ``verify``.

A :class:`Claim` is a numbered result as data: its reference (``"H.9"``), a
statement, the size parameters and hypotheses, the claimed signature, and one
or more :class:`Variant` s (``"as printed"``: the paper's literal parameters;
``"corrected"``: symconv's fix).  A variant's ``build`` turns concrete sizes
into an :class:`Instance`: symbolic input, stack, expected output, and
optionally the intermediate states (:class:`Step`) the proof claims.

:func:`verify` runs the exact interpreter over a sweep of sizes, small to
large, and returns one :class:`Verdict` per variant: it holds for every size
checked, or the first size, layer and coefficient where it fails, with got,
expected and a concrete integer counterexample.

Example:
    >>> from symconv.blocks import sym
    >>> from symconv.constructions.shifts import shift_down
    >>> from symconv.blocks import zeros
    >>> def build(s):
    ...     y = sym("y", s["N"])
    ...     return Instance(y, shift_down(s["N"], 1), zeros(1) | sym("y", s["N"] - 1))
    >>> c = Claim("X.1", "shift by one", "shift_down by 1", sizes=(SizeParam("N", 2),),
    ...           claimed=lambda s: Signature(s["N"], 1, 1, s["N"], 1),
    ...           variants=(Variant("corrected", build),))
    >>> [v.verdict for v in verify(c, max_size=4)]
    ['holds']
"""
from __future__ import annotations

import itertools
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import sympy

from .blocks import Block
from .model import HypothesisError, Signature, Stack
from .checking import Failure, StepResult, check_instance


@dataclass(frozen=True)
class SizeParam:
    """A size of the claim swept from ``lo`` to min(``hi``, max_size)."""

    name: str
    lo: int = 1
    hi: int | None = None


@dataclass(frozen=True)
class Hypothesis:
    """A hypothesis on the sizes, as text and as a predicate."""

    text: str
    check: Callable[[Mapping[str, int]], bool]


@dataclass(frozen=True, eq=False)
class Step:
    """A state the proof claims after the first ``layers`` layers (full N'×d' state)."""

    label: str
    layers: int
    expected: Block


@dataclass(frozen=True, eq=False)
class Instance:
    """One concrete check: input block (N×d), stack, expected output (N×d), steps."""

    input: Block
    stack: Stack
    expected: Block
    steps: tuple = ()


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
    """One way to build the construction; ``expect`` is the verdict the proof records.

    ``numeric(N, d, batch, rng)``, when given, builds a :class:`NumericCase` whose
    sequence length is about N (the variant picks its sizes from N and d), for
    numeric cross-checks at scale.
    """

    name: str
    build: Callable[[Mapping[str, int]], Instance]
    expect: str = "holds"
    note: str = ""
    numeric: Callable[..., NumericCase] | None = None
    parametric: Callable[..., Any] | None = None  # size symbols -> symconv.parametric.Description
    where: Hypothesis | None = None

    def applies(self, sizes: Mapping[str, int]) -> bool:
        """Whether the variant covers these sizes (``where`` narrows the claim's sweep)."""
        return self.where is None or bool(self.where.check(sizes))


@dataclass(frozen=True, eq=False)
class Claim:
    """A numbered result: reference, statement, sizes, hypotheses, signature, variants."""

    id: str
    name: str
    statement: str
    sizes: tuple = ()
    claimed: Callable[[Mapping[str, int]], Signature] | None = None
    variants: tuple = ()
    hypotheses: tuple = ()
    assumptions: tuple = ()

    def holds_for(self, sizes: Mapping[str, int]) -> bool:
        return all(h.check(sizes) for h in self.hypotheses)

    def check_hypotheses(self, sizes: Mapping[str, int]) -> None:
        """Raise a HypothesisError naming the first hypothesis the sizes violate."""
        for h in self.hypotheses:
            if not h.check(sizes):
                raise HypothesisError(f"{self.id} {self.name}: hypothesis {h.text} violated by {dict(sizes)}")

    def sweep(self, max_size: int) -> list[dict]:
        """All size assignments within bounds that satisfy the hypotheses, small first."""
        ranges = [range(p.lo, min(p.hi if p.hi is not None else max_size, max_size) + 1) for p in self.sizes]
        names = [p.name for p in self.sizes]
        out = [dict(zip(names, combo)) for combo in itertools.product(*ranges)]
        out = [s for s in out if self.holds_for(s)]
        out.sort(key=lambda s: (sum(s.values()), tuple(s.values())))
        return out


@dataclass(frozen=True)
class Verdict:
    """The outcome of verifying one variant of a claim over a sweep."""

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

    @property
    def ok(self) -> bool:
        """The verdict is the one the proof file records."""
        return self.verdict == self.expect

    @property
    def holds(self) -> bool:
        """The variant holds on everything checked (``bool(verdict)`` is the same)."""
        return self.verdict == "holds"

    def __bool__(self) -> bool:
        return self.holds

    def _repr_markdown_(self) -> str:
        """Jupyter: one line with verdict, scope and failure (see :mod:`symconv.latex`)."""
        from .latex import verdict_markdown

        return verdict_markdown(self)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        d["holds"] = self.holds
        if self.failure is not None:
            f = self.failure
            d["failure"] = f.as_dict() if hasattr(f, "as_dict") else asdict(f)
            d["failure"]["position"] = list(f.position)
        return d


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


def verify(claim: Claim, max_size: int = 8, variants: Sequence[str] | None = None,
           sizes: Iterable[Mapping[str, int]] | None = None, executor: Any = None) -> "Verdicts":
    """Verify every variant of ``claim`` over the sweep of sizes up to ``max_size``.

    ``sizes`` replaces the sweep with explicit assignments (hypotheses still checked).
    ``executor`` (any ``concurrent.futures.Executor``) checks the sizes of a sweep in
    parallel; see :func:`check_sizes`.
    """
    if max_size < 1:
        raise HypothesisError(f"max_size: must be at least 1, got {max_size}")
    if sizes is None:
        sweep = claim.sweep(max_size)
        scope = f"sizes <= {max_size}"
    else:
        sweep = [dict(s) for s in sizes]
        for s in sweep:
            claim.check_hypotheses(s)
        scope = "sizes " + "; ".join(",".join(f"{k}={v}" for k, v in s.items()) for s in sweep)
    names = [v.name for v in claim.variants]
    for v in variants or ():
        if v not in names:
            raise HypothesisError(f"variants: {claim.id} has no variant {v!r} (has {names})")
    out = []
    for variant in claim.variants:
        if variants and variant.name not in variants:
            continue
        mine = [z for z in sweep if variant.applies(z)]
        where = f" with {variant.where.text}" if variant.where is not None else ""
        out.append(_verify_variant(claim, variant, mine, scope + where, executor))
    return Verdicts(out)


def _claim_ref(claim: Claim) -> Any:
    """A picklable handle on ``claim``: (proof file, index in its CLAIMS) when it has one."""
    import sys as _sys

    for v in claim.variants:
        mod = _sys.modules.get(getattr(v.build, "__module__", ""), None)
        claims = getattr(mod, "CLAIMS", None)
        if getattr(mod, "__file__", None) and isinstance(claims, (list, tuple)):
            for i, c in enumerate(claims):
                if c is claim:
                    return ("proof file", mod.__file__, i)
    return claim


def _check_sizes_task(ref: Any, vindex: int, sizes: dict) -> tuple:
    """Worker side of :func:`check_sizes`: build and check one size assignment."""
    if isinstance(ref, tuple) and ref[:1] == ("proof file",):
        from pathlib import Path

        from .registry import load_module  # lazy: registry imports this module

        ref = load_module(Path(ref[1])).CLAIMS[ref[2]]
    inst = ref.variants[vindex].build(sizes)
    f, steps = check_instance(inst, sizes)
    return str(inst.stack.signature), f, steps


def check_sizes(claim: Claim, variant: Variant, sweep: list[dict], executor: Any = None) -> Iterable[tuple]:
    """(built signature, failure, step results) for each size of ``sweep``, in order.

    Without ``executor`` the sizes are checked one by one, lazily.  With one
    (``concurrent.futures.ProcessPoolExecutor``, or a Dask cluster's
    ``Client.get_executor()`` for sweeps that outgrow one machine) every size is
    submitted at once.  A claim from a proof file travels as (file, index) and
    is re-imported by the worker, so workers need the proofs at the same path;
    other claims travel pickled (Dask's cloudpickle handles their lambdas).
    With a Dask cluster (``pip install distributed``; the workers share the
    checkout's path)::

        from dask.distributed import Client
        client = Client("tcp://scheduler:8786")
        verdicts = verify(claim, max_size=16, executor=client.get_executor())

        >>> from concurrent.futures import ThreadPoolExecutor
        >>> from symconv.blocks import sym, zeros
        >>> from symconv.constructions.shifts import shift_down
        >>> def build(s):
        ...     y = sym("y", s["N"])
        ...     return Instance(y, shift_down(s["N"], 1), zeros(1) | sym("y", s["N"] - 1))
        >>> c = Claim("X.1", "shift", "shift by one", sizes=(SizeParam("N", 2),),
        ...           variants=(Variant("corrected", build),))
        >>> with ThreadPoolExecutor(2) as ex:
        ...     [(sig, f) for sig, f, _ in check_sizes(c, c.variants[0], c.sweep(3), ex)]
        [('(2, 1, 1, 2, 1)', None), ('(3, 1, 1, 3, 1)', None)]
    """
    if executor is None:
        for sizes in sweep:
            inst = variant.build(sizes)
            f, steps = check_instance(inst, sizes)
            yield str(inst.stack.signature), f, steps
        return
    vindex = next(i for i, v in enumerate(claim.variants) if v is variant)
    ref = _claim_ref(claim)
    futures = [executor.submit(_check_sizes_task, ref, vindex, dict(s)) for s in sweep]
    for fut in futures:
        yield fut.result()


def _verify_variant(claim: Claim, variant: Variant, sweep: list[dict], scope: str,
                    executor: Any = None) -> Verdict:
    t0 = time.perf_counter()
    failure = None
    step_fail: dict[str, StepResult] = {}
    step_order: list[str] = []
    sig_claimed = sig_built = "-"
    checked = 0
    for sizes, (built, f, steps) in zip(sweep, check_sizes(claim, variant, sweep, executor)):
        checked += 1
        if claim.claimed is not None:
            sig_claimed = str(claim.claimed(sizes))
        sig_built = built
        for r in steps:
            if r.label not in step_fail:
                step_order.append(r.label)
                step_fail[r.label] = r
            elif step_fail[r.label].holds and not r.holds:
                step_fail[r.label] = r
        if f is not None and failure is None:
            failure = f
    if not sweep:
        raise HypothesisError(f"{claim.id}: no sizes satisfy the hypotheses within the sweep")
    shown = failure.sizes if failure else sweep[-1]
    if claim.claimed is not None:
        sig_claimed = str(claim.claimed(shown))
    sig_built = str(variant.build(shown).stack.signature) if failure else sig_built
    pnote = ""
    if getattr(variant, "parametric", None) is not None:
        from .parametric.scope import all_sizes  # lazy: the block algebra is optional

        pscope, pnote = all_sizes(claim, variant, sweep, failure is not None)
        where = getattr(variant, "where", None)
        scope = (pscope + (f" with {where.text}" if where is not None else "")) if pscope else scope
    return Verdict(
        id=claim.id,
        name=claim.name,
        variant=variant.name,
        verdict="fails" if failure else "holds",
        expect=variant.expect,
        scope=scope,
        sizes_checked=checked,
        signature_claimed=sig_claimed,
        signature_built=sig_built,
        seconds=round(time.perf_counter() - t0, 3),
        statement=claim.statement,
        failure=failure,
        steps=tuple(step_fail[k] for k in step_order),
        note=variant.note,
        parametric=pnote,
    )
