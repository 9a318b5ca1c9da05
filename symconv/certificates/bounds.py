"""Claimed bounds (layers, N', d', parameters) against what is built and what is proved.

A :class:`Bound` on a :class:`~symconv.claims.Claim` names a quantity, the
claimed value as a function of the sizes (by default read off the claim's
signature), whether the paper claims it only up to a constant (``big_o``), and
the certificates that prove a lower bound.  :func:`assess` compares, at every
size point of a verdict's box, the claimed value f, the value built by the
variant's stack b and the proved lower bound ℓ (where certificates were
computed), and gives one verdict:

* ``false``: a certificate refutes the claim: ℓ > f at some size (an exact
  claim), or, for an O(f) claim, ℓ > 0 = f at some size, or an all-sizes lower
  bound exceeding c·f for every c (``refute``: for each c, sizes where it does);
* ``met``: b ≤ f at every size checked;
* ``met up to c``: b ≤ c·f at every size checked, c the largest ratio b/f on
  the box (for an O(f) claim this is the constant measured on the box, not a
  proof of the asymptotic statement);
* ``not built``: no stack of this variant holds, and nothing refutes the claim.

The claim's verdict (:func:`summarise`) takes, size by size, the best variant that holds
there.  Where some sizes were checked only for variants that fail (an erratum's box can be
larger than a construction's), the verdict covers the sizes where a variant holds, and says
so (``unbuilt``: how many sizes it leaves out).  A
bound records the verdict it expects (``expect``); ``verify`` reports a
difference, and exits 1, only when the claim's verdict changes.

Parameters of a model are counted by the paper's definition of an
(N, L, d, N', d') model: every layer has W (d'²), h, b1 and b2 (N'd' each).

>>> b = Bound("L", "2 layers")
>>> b.quantity, b.big_o, b.expect
('L', False, 'met')
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from ..model import HypothesisError, Signature
from .base import QUANTITIES
from .dimension import layer_params

VERDICTS = ("met", "met up to c", "false", "not built")
BOUND_QUANTITIES = ("L", "N'", "d'", "parameters")
SHORT = {"L": "L", "N'": "N'", "d'": "d'", "parameters": "P"}


def last_point(points: list) -> list:
    """The largest size point checked, by the sum of its sizes (the last on ties): where certificates
    are computed by default."""
    if not points:
        return []
    best = max(range(len(points)), key=lambda i: (sum(v for v in points[i].values()), i))
    return [points[best]]


def first_point(points: list) -> list:
    return points[:1]


def model_params(sig: Signature) -> int:
    """Parameters of an (N, L, d, N', d') model: L·(d'² + 3N'd').

    >>> model_params(Signature(3, 2, 1, 4, 1))
    26
    """
    return sig.L * layer_params(sig.N_int, sig.d_int)


def quantity_of(sig: Signature, q: str) -> int:
    if q == "L":
        return sig.L
    if q == "N'":
        return sig.N_int
    if q == "d'":
        return sig.d_int
    return model_params(sig)


@dataclass(frozen=True, eq=False)
class Bound:
    """One claimed bound of a claim, with the certificates that bound it below.

    * ``quantity``: ``"L"``, ``"N'"``, ``"d'"`` or ``"parameters"``;
    * ``text``: the claim as the paper states it (``"5L"``, ``"O(log nd)"``);
    * ``claimed``: sizes → the claimed value f (for O(f), f without its
      constant); default: the quantity of the claim's signature;
    * ``big_o``: the paper claims it up to a constant only;
    * ``certificates``: (sizes, instance getter) → certificates, computed at the
      size points ``at`` picks from the box (default: the largest);
    * ``refute`` and ``lower_formula`` (O(f) claims): c → sizes, and a lower
      bound proved for all sizes (stated in the certificate); the bound is
      false when lower_formula > c·f at refute(c) for every c tried;
    * ``expect``: the claim's verdict recorded in the proof (one of VERDICTS);
    * ``covers``: the models for which the construction is known to meet the
      bound beyond the box, when they are fewer than the claim's (a met verdict
      then reads ``met on the box; beyond it, for <covers> only``);
      ``Variant.covers`` restricts a whole variant instead (``met for <covers> only``).
    """

    quantity: str
    text: str
    claimed: Callable[[Mapping[str, int]], float] | None = None
    big_o: bool = False
    certificates: Callable[..., Sequence] | None = None
    at: Callable[[list], list] = last_point
    expect: str = "met"
    refute: Callable[[float], Mapping[str, int]] | None = None
    lower_formula: Callable[[Mapping[str, int]], int] | None = None
    note: str = ""
    exclude: tuple = ()  # variants whose stacks are not models of the claim (their "built" is not counted)
    covers: str = ""     # the models the construction is known to meet it for, when fewer than the claim's

    def __post_init__(self) -> None:
        object.__setattr__(self, "exclude", (self.exclude,) if isinstance(self.exclude, str) else tuple(self.exclude))
        if self.quantity not in BOUND_QUANTITIES:
            raise HypothesisError(f"Bound.quantity: expected one of {BOUND_QUANTITIES}, got {self.quantity!r}")
        if not isinstance(self.text, str) or not self.text:
            raise HypothesisError("Bound.text: the claimed bound needs its text")
        if not isinstance(self.covers, str):
            raise HypothesisError(f"Bound.covers: expected text naming the models, got {type(self.covers).__name__}")
        if self.expect not in VERDICTS:
            raise HypothesisError(f"Bound.expect: expected one of {VERDICTS}, got {self.expect!r}")
        for f in ("claimed", "certificates", "at", "refute", "lower_formula"):
            v = getattr(self, f)
            if v is not None and not callable(v):
                raise HypothesisError(f"Bound.{f}: expected a function, got {type(v).__name__}")
        if (self.refute is None) != (self.lower_formula is None):
            raise HypothesisError("Bound.refute: give refute and lower_formula together")

    def claimed_at(self, claim: Any, sizes: Mapping[str, int], sig: Signature | None = None) -> float:
        """The claimed value at ``sizes`` (``sig``: the claim's signature there, when already computed)."""
        if self.claimed is not None:
            v = self.claimed(dict(sizes))
        elif claim.claimed is not None and self.quantity != "parameters":
            v = quantity_of(sig if sig is not None else claim.claimed(dict(sizes)), self.quantity)
        else:
            raise HypothesisError(f"Bound.claimed: {claim.id} {claim.name}: {self.quantity} has no claimed value "
                                  "(give claimed=)")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise HypothesisError(f"Bound.claimed: {claim.id}: expected a number >= 0, got {v!r}")
        return v


@dataclass(frozen=True)
class BoundPoint:
    """One size point: claimed f, built b (None when not built), proved lower bound ℓ (None: not computed)."""

    sizes: tuple
    claimed: float
    built: int | None
    lower: int | None = None
    lower_on: str = ""   # the models the lower bound is proved for, when fewer than the claim's (condition())


@dataclass(frozen=True)
class BoundResult:
    """The outcome of one bound for one variant (``verdict``, ``c``) with the points and certificates."""

    quantity: str
    text: str
    big_o: bool
    variant: str
    verdict: str
    c: float | None
    expect: str
    points: tuple = ()
    certificates: tuple = ()
    refutation: str = ""
    note: str = ""
    unbuilt: int = 0  # sizes checked only for variants that fail: the verdict does not cover them
    scope: str = ""   # the models the building variants are restricted to (Variant.covers), '' for all
    beyond: str = ""  # the models the construction is known to meet it for beyond the box (Bound.covers)

    @property
    def where(self) -> str:
        """'' or, appended to a met verdict: the models it covers when its variants are restricted
        (``for b2 = 0 only``), those the construction is known to meet it for beyond the box (``on the box;
        beyond it, for d = 1 only``), and which sizes, when some have no stack."""
        if self.verdict not in ("met", "met up to c"):
            return ""
        out = f" for {self.scope} only" if self.scope else ""
        if self.beyond:
            out += f" on the box; beyond it, for {self.beyond} only"
        if self.unbuilt:
            n = len(self.points)
            out += (f" where built ({n - self.unbuilt} of {n} sizes; the other {self.unbuilt} were checked only "
                    "for variants that fail)")
        return out

    @property
    def lower(self) -> int | None:
        ls = [p.lower for p in self.points if p.lower is not None]
        return max(ls) if ls else None

    @property
    def lower_point(self) -> BoundPoint | None:
        best = None
        for p in self.points:
            if p.lower is not None and (best is None or p.lower > best.lower):
                best = p
        return best

    @property
    def shown(self) -> BoundPoint:
        """The point shown: a refuting point, else the largest built/claimed ratio (the larger size on ties)."""
        for p in self.points:
            if p.lower is not None and (p.lower > p.claimed if not self.big_o else p.claimed == 0 < p.lower):
                return p
        worst = None
        for p in self.points:
            if p.built is not None:
                r = math.inf if p.claimed == 0 and p.built > 0 else (p.built / p.claimed if p.claimed else 1.0)
                if worst is None or r >= worst[0]:
                    worst = (r, p)
        return worst[1] if worst else self.points[-1]

    @property
    def shown_lower(self) -> tuple:
        """(lower bound, its sizes): at the shown point when computed there, unless a point with the same
        claimed and built values has a larger lower bound equal to what was built (tight there: that one);
        else the largest one."""
        sh = self.shown
        tight = [p for p in self.points if p.lower is not None and p.built is not None and p.lower == p.built
                 and (p.claimed, p.built) == (sh.claimed, sh.built)
                 and p.lower > (sh.lower if sh.lower is not None else -1)]
        if tight:
            return tight[-1].lower, tight[-1].sizes
        if sh.lower is not None:
            return sh.lower, sh.sizes
        lp = self.lower_point
        return (lp.lower, lp.sizes) if lp else (None, None)

    @property
    def shown_lower_on(self) -> str:
        """The condition of the shown lower bound ('' when it holds for every model of the claim)."""
        lo, at = self.shown_lower
        return next((p.lower_on for p in self.points if p.sizes == at and p.lower == lo), "") if lo is not None \
            else ""

    @property
    def kinds(self) -> list:
        """The kinds of the certificates that give the shown lower bound (all computed kinds when none does)."""
        lo = self.shown_lower[0]
        giving = {c.kind for c in self.certificates if lo is not None and int(c.lower) == lo}
        return sorted(giving or {c.kind for c in self.certificates})

    @property
    def nontrivial(self) -> bool:
        return any(c.kind != "trivial" for c in self.certificates)

    def cell(self) -> str:
        """``L≥2`` for the table (``L≥-`` when no certificate was computed); ``°`` marks a lower bound proved for
        some of the claim's models only (``shown_lower_on``), ``✗`` a refuted claim."""
        lo = self.shown_lower[0]
        return (f"{SHORT[self.quantity]}≥{lo if lo is not None else '-'}" + ("°" if self.shown_lower_on else "")
                + ("✗" if self.verdict == "false" else ""))

    def as_dict(self) -> dict:
        sh = self.shown
        lo, at = self.shown_lower
        return {"quantity": self.quantity, "claim_text": self.text, "big_o": self.big_o, "variant": self.variant,
                "claimed": sh.claimed, "built": sh.built, "at": dict(sh.sizes), "lower_bound": lo,
                "lower_bound_at": dict(at) if at else None, "lower_bound_on": self.shown_lower_on or None,
                "certificate": self.kinds, "verdict": self.verdict,
                "c": self.c if self.c is None or math.isfinite(self.c) else None,  # JSON has no infinity
                "c_unbounded": self.c is not None and not math.isfinite(self.c), "expect": self.expect,
                "unbuilt_sizes": self.unbuilt, "only_for": self.scope or None,
                "beyond_box_only_for": self.beyond or None,
                "proves": [c.proves for c in self.certificates], "refutation": self.refutation or None,
                "points": [{"sizes": dict(p.sizes), "claimed": p.claimed, "built": p.built, "lower": p.lower,
                            "lower_on": p.lower_on or None}
                           for p in self.points]}


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "∞ (claimed 0)"
    return str(int(x)) if float(x).is_integer() else f"{x:.3g}"


def describe(r: BoundResult) -> str:
    """One line: the claimed bound, built, proved lower bound, verdict."""
    sh = r.shown
    sz = ", ".join(f"{k}={v}" for k, v in sh.sizes)
    built = "-" if sh.built is None else _fmt(sh.built)
    lo, at = r.shown_lower
    on = f" {r.shown_lower_on} only" if r.shown_lower_on else ""
    lower = (f"proved lower bound {lo}{on} [{', '.join(r.kinds)}]"
             + (f" at {', '.join(f'{k}={v}' for k, v in at)}" if at != sh.sizes else "")
             if lo is not None else "no lower-bound certificate")
    shape = f"f = {_fmt(sh.claimed)}" if r.big_o else f"claimed {_fmt(sh.claimed)}"
    verdict = r.verdict if r.verdict != "met up to c" else f"met up to c = {_fmt(r.c)}"
    if r.big_o and r.verdict in ("met", "met up to c"):
        verdict += " (measured on the box)"
    verdict += r.where
    return (f"{r.quantity}: claimed {r.text} ({shape} at {sz}), built {built} [{r.variant}], {lower}: {verdict}")


def _points(bound: Bound, claim: Any, built: Sequence, lowers: Mapping, sigs: dict) -> tuple:
    out = []
    for sizes, sig in built:
        key = tuple(sorted(sizes.items()))
        b = None if sig is None else quantity_of(sig, bound.quantity)
        lo, on = lowers.get(key) or (None, "")
        base = None
        if claim.claimed is not None:
            if key not in sigs:
                sigs[key] = claim.claimed(dict(sizes))
            base = sigs[key]
        if bound.quantity in ("N'", "d'") and base is not None and bound.certificates is not None:
            by_def = base.N if bound.quantity == "N'" else base.d  # N' ≥ N, d' ≥ d by definition
            if lo is None or by_def >= lo:
                lo, on = by_def, ""
        out.append(BoundPoint(key, bound.claimed_at(claim, sizes, base), b, lo, on))
    return tuple(out)


def condition(cert: Any, fixed: tuple | None = None) -> str:
    """'' for a certificate that bounds every model of the claim, else the models it is proved for: a layer
    count from a dimension or least-signature certificate holds on the one internal size it was computed at
    (every model, when the claim itself fixes N' and d' to those: ``fixed``), a dependency bound for filters
    on given taps.

    >>> from types import SimpleNamespace as NS
    >>> cert = NS(kind="least signature", quantity="L", N_int=2, d_int=1)
    >>> condition(cert), condition(cert, fixed=(2, 1)), condition(NS(kind="degree"))
    ("on N' = 2, d' = 1", '', '')
    """
    taps = getattr(cert, "taps", None)
    if taps is not None:
        return f"for filters on taps {list(taps)}"
    if cert.kind in ("dimension", "least signature") and getattr(cert, "quantity", "") == "L":
        if fixed is not None and tuple(fixed) == (cert.N_int, cert.d_int):
            return ""
        return f"on N' = {cert.N_int}, d' = {cert.d_int}"
    return ""


def _fixed_internal(claim: Any, sizes: tuple) -> tuple | None:
    """(N', d') when the claim fixes both exactly at ``sizes`` (its N' and d' bounds are not O(·)), else None."""
    bounds = {b.quantity: b for b in getattr(claim, "bounds", ()) or ()}
    if getattr(claim, "claimed", None) is None or any(q not in bounds or bounds[q].big_o for q in ("N'", "d'")):
        return None
    sig = claim.claimed(dict(sizes))
    return sig.N_int, sig.d_int


def _lower_of(certs: Sequence, quantity: str, fixed: tuple | None = None) -> tuple | None:
    """(the largest lower bound of ``quantity`` among ``certs``, its condition), an unconditional one on ties;
    ``fixed``: the (N', d') the claim fixes at these sizes, if any."""
    vals = []
    for c in certs:
        q = c.quantity
        if q == quantity or (quantity == "L" and q == "general layers"):
            on = condition(c, fixed)
            vals.append((int(c.lower), on == "", on))
    if not vals:
        return None
    lo, _, on = max(vals)
    return lo, on


def _refutation(bound: Bound, claim: Any, points: tuple) -> str:
    for p in points:
        if p.lower is None or p.lower_on:   # proved for some models only: it cannot refute the claim
            continue
        if (not bound.big_o and p.lower > p.claimed) or (bound.big_o and p.claimed == 0 and p.lower > 0):
            sz = ", ".join(f"{k}={v}" for k, v in p.sizes)
            c = " for every constant c" if bound.big_o else ""
            return f"at {sz} the proved lower bound {p.lower} exceeds the claimed {_fmt(p.claimed)}{c}"
    if bound.refute is not None:
        seen = []
        for c in (1, 10, 100, 1000):
            z = dict(bound.refute(c))
            lo, f = bound.lower_formula(z), bound.claimed_at(claim, z)
            if not lo > c * f:
                return ""
            seen.append(f"c = {c}: at {', '.join(f'{k}={v}' for k, v in sorted(z.items()))} the all-sizes lower "
                        f"bound {lo} > c·f = {_fmt(c * f)}")
        return "for every c there are sizes where the all-sizes lower bound exceeds c·f (" + "; ".join(seen) + ")"
    return ""


def _verdict(points: tuple, refuted: str) -> tuple[str, float | None]:
    if refuted:
        return "false", None
    built = [p for p in points if p.built is not None]
    if not built:
        return "not built", None
    c = 1.0
    for p in built:
        if p.built > p.claimed:
            c = max(c, math.inf if p.claimed == 0 else p.built / p.claimed)
    return ("met", 1.0) if c == 1.0 else ("met up to c", c)


def certificates_at(bound: Bound, claim: Any, variant: Any, points: list, cache: dict | None = None) -> dict:
    """sizes key → certificates computed at the points ``bound.at`` picks (instances built once per
    variant and size, shared through ``cache``)."""
    out: dict = {}
    if bound.certificates is None or not points:
        return out
    cache = {} if cache is None else cache
    for z in bound.at(list(points)):
        key = (variant.name, tuple(sorted(z.items())))

        def get(z=z, key=key):
            if key not in cache:
                cache[key] = variant.instance(z, claim)
            return cache[key]
        certs = tuple(bound.certificates(dict(z), get))  # fresh: ``check()`` would recompute the same
        out[tuple(sorted(z.items()))] = certs
    return out


def assess_variant(bound: Bound, claim: Any, variant_name: str, built: Sequence, certs: Mapping,
                   sigs: dict | None = None) -> BoundResult:
    """The result of ``bound`` for one variant: ``built`` is [(sizes, Signature or None)] per point;
    ``sigs`` caches the claim's signature by size."""
    lowers = {k: _lower_of(v, bound.quantity, _fixed_internal(claim, k)) for k, v in certs.items()}
    lowers = {k: v for k, v in lowers.items() if v is not None}
    points = _points(bound, claim, built, lowers, {} if sigs is None else sigs)
    refuted = _refutation(bound, claim, points)
    verdict, c = _verdict(points, refuted)
    allc = tuple(x for v in certs.values() for x in v
                 if x.quantity == bound.quantity or (bound.quantity == "L" and x.quantity == "general layers"))
    scope = next((getattr(x, "covers", "") for x in getattr(claim, "variants", ()) if x.name == variant_name), "")
    return BoundResult(bound.quantity, bound.text, bound.big_o, variant_name, verdict, c, bound.expect, points, allc,
                       refuted, bound.note, scope=scope, beyond=bound.covers)


def summarise(results: Sequence[BoundResult]) -> BoundResult | None:
    """The claim's verdict on one bound from its variants' results, size point by size point.

    At every size point the built value is the least over the variants that hold there (variants
    may cover different parts of the box), the lower bound the largest; a refutation wins.
    """
    if not results:
        return None
    refuted = next((r for r in results if r.verdict == "false"), None)
    first = results[0]
    merged: dict = {}
    used: dict = {}
    for r in results:
        for p in r.points:
            q = merged.get(p.sizes)
            if q is None:
                merged[p.sizes] = p
                if p.built is not None:
                    used[p.sizes] = r.variant
                continue
            built = q.built
            if p.built is not None and (built is None or p.built < built):
                built = p.built
                used[p.sizes] = r.variant
            lows = [(x.lower, x.lower_on == "", x.lower_on) for x in (q, p) if x.lower is not None]
            lo, _, on = max(lows) if lows else (None, True, "")
            merged[p.sizes] = BoundPoint(p.sizes, q.claimed, built, lo, on)
    points = tuple(merged.values())
    # a refutation wins, but what is built stays the least over the variants that hold (not the refuted one's)
    verdict, c = ("false", refuted.c) if refuted is not None else _verdict(points, "")
    names = list(dict.fromkeys(used.values()))
    variant = names[0] if len(names) == 1 else ("; ".join(names) if names else first.variant)
    certs = tuple(dict.fromkeys(x for r in results for x in r.certificates))
    unbuilt = sum(p.built is None for p in points) if verdict != "not built" else 0
    scope = _restriction(results, points, (verdict, c))
    return BoundResult(first.quantity, first.text, first.big_o, variant, verdict, c, first.expect, points, certs,
                       refuted.refutation if refuted is not None else "", first.note, unbuilt, scope, first.beyond)


def _restriction(results: Sequence[BoundResult], points: tuple, outcome: tuple) -> str:
    """'' when the variants restricted to some models (``scope``) are not needed for ``outcome``: the
    unrestricted ones alone, point by point, give the same verdict and constant; else those restrictions."""
    restricted = [r for r in results if r.scope]
    if not restricted:
        return ""
    best: dict = {}
    for r in results:
        if not r.scope:
            for p in r.points:
                if p.built is not None and (best.get(p.sizes) is None or p.built < best[p.sizes]):
                    best[p.sizes] = p.built
    alone = tuple(replace(p, built=best.get(p.sizes)) for p in points)
    if outcome[0] == "false" or _verdict(alone, "") == outcome:
        return ""
    return "; ".join(dict.fromkeys(r.scope for r in restricted))


def signature_points(points: Sequence[tuple], holds: bool) -> list:
    """[(sizes, Signature or None)] from a verdict's per-point built signatures (None when it fails)."""
    out = []
    for sizes, text in points:
        sig = None
        if holds and isinstance(text, str) and text.startswith("("):
            v = [int(x) for x in text.strip("()").split(",")]
            sig = Signature(*v)
        out.append((dict(sizes), sig))
    return out


UNIVERSAL = ("trivial", "degree", "factorization")


def _universal(cert: Any, quantity: str) -> bool:
    """Does ``cert`` bound every model of the claim, whatever its N' and d'? (degree and trivial
    bounds do; a dimension bound on parameters does; bounds stated at one (N', d'), or for
    filters restricted to given taps, do not)."""
    q = cert.quantity
    if not (q == quantity or (quantity == "L" and q == "general layers")):
        return False
    return cert.kind in UNIVERSAL or (cert.kind == "dimension" and q == "parameters")


def contradictions(bound: Bound, result: BoundResult, certs: Mapping) -> tuple:
    """Points where a proved lower bound that holds for every model exceeds what a variant that
    holds there built: the certificate or the verdict is wrong, so ``verify`` reports it.

    >>> from symconv.certificates.base import TrivialCertificate
    >>> b = Bound("N'", "N' = N", claimed=lambda z: z["N"])
    >>> r = BoundResult("N'", "N' = N", False, "v", "met", 1.0, "met", (BoundPoint((("N", 4),), 4, 3, 4),))
    >>> msg, = contradictions(b, r, {(("N", 4),): (TrivialCertificate("N'", 4, "N' ≥ N"),)})
    >>> msg.split(": the")[0]
    "bound N' (N' = N): at N=4 a proved lower bound 4 exceeds the 3 built by variant 'v', which holds there"
    """
    out = []
    for p in result.points:
        if p.built is None or p.sizes not in certs:
            continue
        lows = [int(c.lower) for c in certs[p.sizes] if _universal(c, bound.quantity)]
        if lows and max(lows) > p.built:
            sz = ", ".join(f"{k}={v}" for k, v in p.sizes)
            out.append(f"bound {bound.quantity} ({bound.text}): at {sz} a proved lower bound {max(lows)} exceeds "
                       f"the {p.built} built by variant {result.variant!r}, which holds there: the certificate or "
                       "the verdict is wrong")
    return tuple(out)


def assess(claim: Any, verdicts: list, complete: bool) -> list:
    """Attach each bound's result to each verdict of ``claim``; a changed claim verdict is a difference."""
    if not claim.bounds:
        return verdicts
    verdicts = list(verdicts)
    per: list = [[] for _ in verdicts]
    diffs: list = [[] for _ in verdicts]
    instances: dict = {}
    sigs: dict = {}
    for bound in claim.bounds:
        source = next((v for v in verdicts if v.verdict == "holds" and v.variant not in bound.exclude),
                      verdicts[0] if verdicts else None)
        if source is None:
            continue
        var = next(x for x in claim.variants if x.name == source.variant)
        certs = certificates_at(bound, claim, var, [dict(s) for s, _ in source.points_built], instances)
        results = []
        for i, v in enumerate(verdicts):
            if v.verdict == "unchecked":
                continue
            counts = v.verdict == "holds" and v.variant not in bound.exclude
            r = assess_variant(bound, claim, v.variant, signature_points(v.points_built, counts), certs, sigs)
            if counts:
                diffs[i].extend(contradictions(bound, r, certs))
            per[i].append(r)
            results.append(r)
        best = summarise(results)
        if best is not None and complete and best.verdict != bound.expect:
            i = next((i for i, v in enumerate(verdicts) if v.variant == best.variant.split('; ')[0]), 0)
            diffs[i].append(f"bound {bound.quantity} ({bound.text}): the claim's verdict is {best.verdict!r}, "
                            f"recorded {bound.expect!r}")
    return [replace(v, bounds=tuple(per[i]), differences=v.differences + tuple(diffs[i]))
            for i, v in enumerate(verdicts)]


def claim_rows(verdicts: Sequence) -> list:
    """One row per (claim, bound): the claim's verdict (best variant), for the bounds table.

    Each row: id, name, quantity, claimed text, claimed value, built (variant), lower bound [kinds], verdict.
    """
    groups: dict = {}
    for v in verdicts:
        groups.setdefault((v.id, v.name), []).append(v)
    rows = []
    for (cid, name), vs in groups.items():
        n = max((len(v.bounds) for v in vs), default=0)
        for k in range(n):
            best = summarise([v.bounds[k] for v in vs if len(v.bounds) > k])
            if best is None:
                continue
            sh = best.shown
            lo, at = best.shown_lower
            sz = ", ".join(f"{a}={b}" for a, b in sh.sizes)
            where = "" if at is None or at == sh.sizes else " at " + ", ".join(f"{a}={b}" for a, b in at)
            built = "-" if sh.built is None else f"{_fmt(sh.built)} [{best.variant}]"
            verdict = best.verdict if best.verdict != "met up to c" else f"met up to c = {_fmt(best.c)}"
            verdict += best.where
            if best.refutation:
                verdict += ": " + best.refutation.split(" (")[0]
            kinds = ", ".join(best.kinds) or "-"
            on = f" {best.shown_lower_on} only" if best.shown_lower_on else ""
            rows.append([cid, name, best.quantity, best.text, f"{_fmt(sh.claimed)} at {sz}", built,
                         "-" if lo is None else f"{lo}{on}{where} ({kinds})", verdict])
    return rows


__all__ = ["Bound", "BoundPoint", "BoundResult", "VERDICTS", "assess", "assess_variant", "describe", "first_point",
           "last_point", "model_params", "summarise", "QUANTITIES", "claim_rows", "contradictions"]
