"""The all-sizes check behind ``verify``: the scope of a verdict for a variant with a construction.

A :class:`~symconv.claims.Variant` with a ``construction`` is written once with
symbolic sizes (a :class:`~symconv.parametric.check.Description` or
:class:`~symconv.parametric.check.Cases`).  Its concrete instances are
instantiations of it, and :func:`all_sizes` checks that same object for every
size the claim's hypotheses allow (the facts come from the claim's Hypothesis
objects, never from the description).  The concrete sweep always runs too, and
the two answers must agree.

>>> from symconv.registry import load_claims
>>> from symconv.claims import verify
>>> c = [c for c in load_claims() if c.name == "add_n"][0]
>>> verify(c, max_size=4)[0].scope
'all sizes'
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ..model import HypothesisError
from .check import Cases, Description, PResult, base_facts, check
from .algebra import PSeq
from .linear import Facts, lin, size


def symbols_for(claim) -> dict:
    """The size symbols of a claim, by name.

    >>> from symconv.registry import load_claims
    >>> sorted(symbols_for([c for c in load_claims() if c.name == "add_n"][0]))
    ['N', 'd', 'n']
    """
    return {p.name: size(p.name) for p in claim.sizes}


def facts_for(claim, desc, variant=None) -> Facts:
    """The facts of the all-sizes proof: least sizes, the claim's hypotheses, the variant's ``where``.

    Every fact comes from the claim's Hypothesis objects (written once), never from
    the description; a SizeParam's ``hi`` is a cost cap, so it is not a fact.

    >>> from symconv.registry import load_claims
    >>> c = [c for c in load_claims() if c.name == "add_n"][0]
    >>> str(describe(c, c.variants[0])[1])
    'n - 1 >= 0, N - 2 >= 0, d - 1 >= 0, N - 2n >= 0'
    """
    lower = {p.name: p.lo for p in claim.sizes}
    forms = [f for h in claim.hypotheses for f in h.forms()]
    where = getattr(variant, "where", None) if variant is not None else None
    if where is not None:
        forms += list(where.forms())
    return base_facts(lower) + Facts.of(*forms) + Facts.of(*getattr(desc, "facts", ()))


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
    """The construction of a variant at symbolic sizes and the facts of its proof, or None.

    >>> from symconv.registry import load_claims
    >>> c = [c for c in load_claims() if c.name == "stacking"][0]
    >>> describe(c, c.variants[0]) is None
    True
    """
    if getattr(variant, "construction", None) is None:
        return None
    desc = variant.symbolic(claim)
    if not isinstance(desc, (Description, Cases)):
        raise HypothesisError(
            f"{claim.id} {variant.name}: a construction must return a Description or Cases, got {type(desc).__name__}"
        )
    return desc, facts_for(claim, desc, variant)


def all_sizes(claim, variant, sweep: Sequence[Mapping[str, int]], concrete_fails: bool) -> tuple[str | None, str]:
    """(scope or None, note) for a variant with a construction: "all sizes" when the block algebra decides it.

    None keeps the concrete box as the scope; the note says why (the undecided
    comparison, ...).  The concrete instances of the sweep are instantiations of
    this same construction, so the two answers must agree; where they do not,
    the concrete verdict is kept and the note names the defect.

    >>> from symconv.registry import load_claims
    >>> c = [c for c in load_claims() if c.name == "shift_down"][0]
    >>> all_sizes(c, c.variants[0], c.sweep(3), False)[0]
    'all sizes'
    """
    got = describe(claim, variant)
    if got is None and getattr(variant, "proof", None) is not None:
        cache = variant.__dict__.setdefault("_symbolic", {})
        if "proof" not in cache:
            cache["proof"] = variant.proof(symbols_for(claim))
        got = cache["proof"], facts_for(claim, cache["proof"], variant)
    if got is None:
        return None, ""
    desc, facts = got
    try:
        res = check(desc, facts)
    except HypothesisError as exc:  # a malformed description must not stop the concrete verdict
        return None, f"parametric: description rejected: {exc}; verdict from the concrete sweep"
    scope, note = _scope(res, concrete_fails, len(sweep))
    at = getattr(variant, "proved_at", "")
    if scope and at:  # the proof is built at other sizes than all of the claim's: say so, not "all sizes"
        scope = f"all sizes at {at}"
        note = (f"parametric: {res.status} for all sizes at {at}: the proof is built at those sizes, not at all of "
                f"the claim's own, which rest on the argument by hand in the note and on the concrete sweep "
                f"({len(sweep)} sizes)")
    if scope and res.status == "fails":  # "fails for all sizes": every swept size must fail too
        from ..claims import check_all

        for s in sweep:
            if check_all(variant.instance(s, claim), s)[0] is None:
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
