"""The all-sizes check behind ``verify``: scope of a verdict for a variant with a description.

A :class:`~symconv.claims.Variant` may carry ``parametric``: a callable taking
the size symbols (a dict name → :class:`~symconv.parametric.linear.Lin`) and
returning a :class:`~symconv.parametric.check.Description` (or
:class:`~symconv.parametric.check.Cases`).  :func:`all_sizes` checks it for
every size the hypotheses allow and decides the scope of the verdict.  It
trusts the description only after comparing it with what the variant builds
at every swept size (input, layers, expected output, steps) and checking, on
the swept box, that its hypotheses admit every size the claim's do (it may
prove more than is claimed, never less); the concrete sweep always runs too,
and the two answers must agree.

>>> from symconv.registry import load_claims
>>> from symconv.claims import verify
>>> c = [c for c in load_claims() if c.name == "add_n"][0]
>>> verify(c, max_size=4)[0].scope
'all sizes'
"""
from __future__ import annotations

import itertools
from typing import Any, Mapping, Sequence

from ..model import HypothesisError
from .check import Cases, Description, PResult, base_facts, check, cross_check
from .algebra import PSeq
from .linear import Facts, lin, size


def symbols_for(claim) -> dict:
    """The size symbols of a claim, by name.

    >>> from symconv.registry import load_claims
    >>> sorted(symbols_for([c for c in load_claims() if c.name == "add_n"][0]))
    ['N', 'd', 'n']
    """
    return {p.name: size(p.name) for p in claim.sizes}


def facts_for(claim, desc) -> Facts:
    """The claim's least sizes (for the sizes the description uses) plus its common hypotheses.

    A SizeParam's ``hi`` only bounds the sweep, so it is not a hypothesis here.

    >>> from symconv.registry import load_claims
    >>> c = [c for c in load_claims() if c.name == "add_n"][0]
    >>> str(describe(c, c.variants[0])[1])
    'n - 1 >= 0, N - 2 >= 0, N - 2n >= 0'
    """
    used = desc_symbols(desc)
    lower = {p.name: p.lo for p in claim.sizes if p.name in used}
    return base_facts(lower) + Facts.of(*desc.facts)


def holds_at(desc, facts: Facts, sizes: Mapping[str, int]) -> bool:
    """Whether concrete sizes satisfy the facts and the hypotheses of their branch.

    >>> from symconv.parametric import psym, size
    >>> d = Description(psym("u", size("N")), (), psym("u", size("N")))
    >>> holds_at(d, Facts.of(size("N") - 2), {"N": 1})
    False
    """
    if not facts.holds_at(sizes):
        return False
    if isinstance(desc, Cases):
        desc = desc.pick(sizes)
    return Facts.of(*desc.facts).holds_at(sizes)


def desc_symbols(desc) -> set:
    """Every size symbol a description (or every branch of Cases) mentions.

    >>> from symconv.parametric import psym, pzeros, size
    >>> sorted(desc_symbols(Description(psym("u", size("N")), (), pzeros(size("s")) | psym("u", size("N") - size("s")))))
    ['N', 's']
    """
    if isinstance(desc, Cases):
        return (desc_symbols(desc.le) | desc_symbols(desc.gt) | desc.a.symbols | desc.b.symbols
                | set().union(*(lin(f).symbols for f in desc.facts)))
    forms = [desc.N_int, *desc.facts]
    cols = [desc.input, desc.expected, *(s.expected for s in desc.steps)]
    for l in desc.layers:
        cols += [l.b1, l.b2]
        for t in l.h.terms:
            forms.append(t.offset)
            if t.atom is not None:
                forms.append(t.atom.length)
    for c in cols:
        if isinstance(c, PSeq):
            forms.append(c.length)
            for p in c.pieces:
                forms += [p.start, p.length, p.lo]
                if p.atom is not None:
                    forms.append(p.atom.length)
    return set().union(*(lin(f).symbols for f in forms))


def describe(claim, variant) -> tuple[Description, Facts] | None:
    """The description of a variant and its facts, or None when it has none.

    >>> from symconv.registry import load_claims
    >>> c = [c for c in load_claims() if c.name == "hadamard"][0]
    >>> describe(c, c.variants[0]) is None
    True
    """
    fn = getattr(variant, "parametric", None)
    if fn is None:
        return None
    desc = fn(symbols_for(claim))
    if not isinstance(desc, (Description, Cases)):
        raise HypothesisError(
            f"{claim.id} {variant.name}: parametric must return a Description or Cases, got {type(desc).__name__}"
        )
    return desc, facts_for(claim, desc)


def _box(claim, sweep: Sequence[Mapping[str, int]]) -> list[dict]:
    top = max((max(s.values()) for s in sweep if s), default=1)
    ranges = [range(p.lo, min(p.hi if p.hi is not None else top, top) + 1) for p in claim.sizes]
    names = [p.name for p in claim.sizes]
    return [dict(zip(names, combo)) for combo in itertools.product(*ranges)]


def all_sizes(claim, variant, sweep: Sequence[Mapping[str, int]], concrete_fails: bool) -> tuple[str | None, str]:
    """(scope or None, note) for a variant: "all sizes" when the description decides it.

    None keeps the concrete sweep's scope; the note says why (the undecided
    comparison, a description that does not match the built stack, ...).

    >>> from symconv.registry import load_claims
    >>> c = [c for c in load_claims() if c.name == "shift_down"][0]
    >>> all_sizes(c, c.variants[0], c.sweep(3), False)[0]
    'all sizes'
    """
    got = describe(claim, variant)
    if got is None:
        return None, ""
    desc, facts = got
    for s in _box(claim, sweep):
        applies = variant.applies(s) if hasattr(variant, "applies") else True
        if claim.holds_for(s) and applies and not holds_at(desc, facts, s):  # proving less than claimed
            return None, (f"parametric: hypotheses {facts} leave out {s}, which the claim allows; "
                          "verdict from the concrete sweep")
    for s in sweep:
        why = cross_check(desc, variant.build(s), s)
        if why:
            return None, f"parametric: description does not match the built stack at {s}: {why}"
    try:
        res = check(desc, facts)
    except HypothesisError as exc:  # a malformed description must not stop the concrete verdict
        return None, f"parametric: description rejected: {exc}; verdict from the concrete sweep"
    scope, note = _scope(res, concrete_fails, len(sweep))
    if scope and res.status == "fails":  # "fails for all sizes": every swept size must fail too
        from ..claims import check_instance

        for s in sweep:
            if check_instance(variant.build(s), s)[0] is None:
                return None, f"parametric: claims a failure for all sizes but {s} holds (a defect); concrete verdict kept"
    return scope, note


def _scope(res: PResult, concrete_fails: bool, n: int) -> tuple[str | None, str]:
    cross = f"cross-checked against the concrete sweep ({n} sizes)"
    if res.status == "undecided":
        return None, f"parametric: undecided, cannot decide {res.question}; verdict from the concrete sweep"
    if res.status == "holds":
        if concrete_fails:
            return None, "parametric: holds for all sizes but the concrete sweep fails (a defect); concrete verdict kept"
        return "all sizes", f"parametric: holds for all sizes with {res.facts}; {cross}"
    m = res.mismatch
    if not concrete_fails:
        if m.everywhere and m.certain:
            return None, f"parametric: fails ({m.describe()}) but the concrete sweep holds (a defect)"
        return None, f"parametric: may fail ({m.describe()}); the concrete sweep found no failure"
    if m.everywhere and m.certain:
        return "all sizes", f"parametric: {m.describe()}; {cross}"
    return None, f"parametric: fails {m.describe()}; verdict from the concrete sweep"
