"""The box of sizes a verdict covers: size parameters, cost caps, and what was really swept.

A claim's sizes are :class:`SizeParam` s (a name and a least value).  A proof
may cap a size (``hi``) or a product of sizes (:class:`Cap`, ``N·L <= 4``) to
keep its exact check affordable; such a cap is a *cost* cap, never a
hypothesis.  :func:`enumerate_box` lists the size assignments of a sweep, small
to large; :class:`Box` records what a verdict really checked: per parameter the
range swept, the number of points, the caps that made a range narrower than
``--max-size`` (with the estimated time of lifting them), and the random
instances used where parameters are random.

>>> params = (SizeParam("N", 1, 3), SizeParam("L", 1, 3))
>>> pts = enumerate_box(params, (Cap(("N", "L"), 4),), 8, lambda z: True)
>>> len(pts), pts[0], pts[-1]
(6, {'N': 1, 'L': 1}, {'N': 3, 'L': 1})
>>> box = Box.of(params, (Cap(("N", "L"), 4),), pts, 8)
>>> box.text()
'N ≤ 3, L ≤ 3 (caps: N ≤ 3, L ≤ 3, N·L ≤ 4); 6 points'
"""
from __future__ import annotations

import itertools
import math
import re
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from .model import HypothesisError

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
DEFAULT_MAX_SIZE = 8
DEFAULT_TIME_BUDGET = 20.0  # seconds per variant (the API's default)
DEFAULT_TOTAL_BUDGET = 45.0  # seconds lifting caps may take in a whole `symconv verify --max-size K` (the CLI default)
MAX_BOX = 1_000_000  # size assignments a sweep may enumerate before any is checked


class BoxTooLarge(HypothesisError):
    """``--max-size`` asks for more size assignments than a sweep may enumerate (a bad input, not a proof's)."""  # seconds of estimated extra checking a raised cap may cost, per variant


@dataclass(frozen=True)
class SizeParam:
    """A size of the claim, swept from ``lo`` up to ``--max-size``, or to its cost cap ``hi``.

    >>> SizeParam("N", 2).symbol.at({"N": 5})
    5
    """

    name: str
    lo: int = 1
    hi: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise HypothesisError(f"SizeParam.name: {self.name!r} must be letters and digits, starting with a letter")
        for f in ("lo", "hi"):
            v = getattr(self, f)
            if v is None and f == "hi":
                continue
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise HypothesisError(f"SizeParam.{f}: {self.name} needs a non-negative integer, got {v!r}")
        if self.hi is not None and self.hi < self.lo:
            raise HypothesisError(f"SizeParam.hi: cap {self.hi} of {self.name} is below its least value {self.lo}")

    @property
    def symbol(self):
        from .parametric.linear import size

        return size(self.name)


@dataclass(frozen=True)
class Cap:
    """A cost cap on a product of sizes: ``Cap(("N", "L"), 4)`` is N·L ≤ 4.

    >>> Cap(("N", "d"), 4).text, Cap(("N", "d"), 4).value({"N": 2, "d": 3})
    ('N·d ≤ 4', 6)
    """

    names: tuple
    limit: int

    def __post_init__(self) -> None:
        names = tuple(self.names) if not isinstance(self.names, str) else (self.names,)
        if not names or not all(isinstance(n, str) and _NAME.match(n) for n in names):
            raise HypothesisError(f"Cap.names: expected size names, got {self.names!r}")
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 1:
            raise HypothesisError(f"Cap.limit: expected a positive integer, got {self.limit!r}")
        object.__setattr__(self, "names", names)

    @property
    def text(self) -> str:
        return "·".join(self.names) + f" ≤ {self.limit}"

    def value(self, sizes: Mapping[str, int]) -> int:
        return math.prod(int(sizes[n]) for n in self.names)


@dataclass(frozen=True)
class CapStatus:
    """A cap that made the sweep narrower than ``--max-size``, and what lifting it would cost."""

    text: str
    raised: bool = False
    estimate_s: float | None = None  # estimated seconds to check the sizes it leaves out (up to --max-size)
    reason: str = ""

    def describe(self) -> str:
        if self.raised:
            return f"{self.text} raised to --max-size"
        est = "" if self.estimate_s is None else f"; lifting it to --max-size: est. {fmt_seconds(self.estimate_s)}"
        return f"{self.text} (cost cap{est}{'; ' + self.reason if self.reason else ''})"

    def as_dict(self) -> dict:
        return {"cap": self.text, "raised": self.raised,
                "estimated_seconds": None if self.estimate_s is None else round(self.estimate_s, 1),
                "reason": self.reason}


def fmt_seconds(s: float) -> str:
    """``0.4 s``, ``12 s``, ``3.2 min``, ``5.1 h``, ``2.0 days``.

    >>> fmt_seconds(0.42), fmt_seconds(190), fmt_seconds(7200)
    ('0.4 s', '3.2 min', '2.0 h')
    """
    if s < 10:
        return f"{s:.1f} s"
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200 and s / 60 < 120:
        return f"{s / 60:.1f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def _ranges(params: Sequence[SizeParam], max_size: int, raised: frozenset) -> list:
    out = []
    for p in params:
        top = max_size if (p.hi is None or p.name in raised) else min(p.hi, max_size)
        out.append(range(p.lo, max(top, p.lo - 1) + 1))
    return out


def _cap_bound(params: Sequence[SizeParam], ranges: list, live: Sequence[Cap]) -> int:
    """An upper bound on the assignments within ``ranges`` and the product caps (no enumeration)."""
    lo = {p.name: p.lo for p in params}
    total = 1
    for p, r in zip(params, ranges):
        top = r.stop - 1
        for c in live:
            if p.name in c.names:
                others = [lo.get(n, 0) for n in c.names if n != p.name]
                if all(v >= 1 for v in others):
                    top = min(top, c.limit // math.prod(others))
        total *= max(0, top - r.start + 1)
    return total


class OutOfTime(Exception):
    """The enumeration of a box passed its deadline."""


def enumerate_box(params: Sequence[SizeParam], caps: Sequence[Cap], max_size: int,
                  admits: Callable[[Mapping[str, int]], bool], raised: frozenset = frozenset(),
                  deadline: float | None = None) -> list:
    """Every size assignment within the ranges and caps (``raised``: names of lifted caps), small first.

    The product caps prune the enumeration: a range stops at the first value that breaks a cap
    whatever the sizes not yet chosen.  ``deadline`` (a ``time.perf_counter()`` value): raise
    :class:`OutOfTime` when passed.
    """
    names = [p.name for p in params]
    live = [c for c in caps if c.text not in raised]
    ranges = _ranges(params, max_size, raised)
    total = _cap_bound(params, ranges, live)
    if total > MAX_BOX:
        raise BoxTooLarge(f"max_size: a box of {total} size assignments (sizes {', '.join(names)} up to "
                              f"{max_size}) is more than {MAX_BOX} to enumerate; lower --max-size")
    lo = {p.name: p.lo for p in params}
    pos = {n: i for i, n in enumerate(names)}
    # per depth i: the caps on params[i], with the members chosen before it and the least values of the rest
    at_depth = []
    for i, n in enumerate(names):
        mine = []
        for c in live:
            if n in c.names and all(m in pos for m in c.names):
                before = tuple(m for m in c.names if m != n and pos[m] < i)
                after = math.prod(lo[m] for m in c.names if m != n and pos[m] > i)
                mine.append((c.limit, before, after, c.names.count(n)))
        at_depth.append(mine)
    pts: list = []
    z: dict = {}
    leaves = [0]

    def walk(i: int) -> None:
        if i == len(names):
            leaves[0] += 1
            if deadline is not None and not leaves[0] % 512 and time.perf_counter() > deadline:
                raise OutOfTime
            if all(c.value(z) <= c.limit for c in live) and admits(z):
                pts.append(dict(z))
            return
        n = names[i]
        for v in ranges[i]:
            z[n] = v
            stop = skip = False
            for limit, before, after, times in at_depth[i]:
                low = v ** times * after * math.prod(z[m] for m in before)
                if low > limit:
                    skip = True
                    if v > 0 and after > 0 and all(z[m] > 0 for m in before):
                        stop = True  # increasing in v from here on
            if stop:
                break
            if not skip:
                walk(i + 1)
        z.pop(n, None)

    walk(0)
    pts.sort(key=lambda s: (sum(s.values()), tuple(s.values())))
    return pts


def cap_names(params: Sequence[SizeParam], caps: Sequence[Cap], max_size: int) -> list:
    """The caps (size caps ``N ≤ 3`` by name, product caps by text) that narrow the sweep at ``max_size``."""
    out = [p.name for p in params if p.hi is not None and p.hi < max_size]
    out += [c.text for c in caps if c.limit < max_size ** len(c.names)]
    return out


def cap_text(params: Sequence[SizeParam], key: str) -> str:
    for p in params:
        if p.name == key:
            return f"{p.name} ≤ {p.hi}"
    return key


@dataclass(frozen=True)
class Box:
    """What a verdict checked: ranges per size, points, caps, random instances, narrowing.

    ``checked``: ((name, lo, hi), ...) over the points swept; ``caps``: the
    :class:`CapStatus` of every cap that kept a range below ``--max-size``.
    """

    checked: tuple
    points: int
    caps: tuple = ()
    instances: str = ""
    where: str = ""
    given: bool = False  # sizes given explicitly, not swept
    least: tuple = ()    # ((name, least value the claim allows), ...): a range starting there omits its lower end

    def _range(self, n: str, lo: int, hi: int, compact: bool) -> str:
        le = "≤" if compact else " ≤ "
        if lo == hi:
            return f"{n}={lo}" if compact else f"{n} = {lo}"
        if lo == dict(self.least).get(n, lo + 1) and lo <= 1:
            return f"{n}{le}{hi}"
        return f"{lo}{le}{n}{le}{hi}"

    @staticmethod
    def of(params: Sequence[SizeParam], caps: Sequence[Cap], points: Sequence[Mapping[str, int]], max_size: int,
           statuses: Sequence[CapStatus] | None = None, instances: str = "", where: str = "",
           given: bool = False) -> "Box":
        checked = []
        for p in params:
            vals = [z[p.name] for z in points if p.name in z]
            if vals:
                checked.append((p.name, min(vals), max(vals)))
        if statuses is None:
            statuses = [CapStatus(cap_text(params, k)) for k in cap_names(params, caps, max_size)]
        return Box(tuple(checked), len(points), tuple(statuses), instances, where, given,
                   tuple((p.name, p.lo) for p in params))

    def ranges(self) -> dict:
        return {n: [lo, hi] for n, lo, hi in self.checked}

    def text(self) -> str:
        """``N ≤ 3, L ≤ 3 (caps: N ≤ 3, L ≤ 3, N·L ≤ 4); 39 points``; a lower end is shown unless the
        range starts at the size's least value and that is 0 or 1."""
        if self.given:
            head = "given sizes"
        else:
            head = ", ".join(self._range(n, lo, hi, False) for n, lo, hi in self.checked) or "no sizes"
        kept = [c.text for c in self.caps if not c.raised]
        if kept:
            head += f" (caps: {', '.join(kept)})"
        if self.where:
            head += f" with {self.where}"
        tail = f"; {self.points} point{'s' if self.points != 1 else ''}"
        if self.instances:
            tail += f"; {self.instances}"
        return head + tail

    def short(self) -> str:
        """The ranges only, capped ones starred: ``N≤8,s≤7,d≤2*: 72 pts``; a dagger (``72 pts†``) where the
        points were checked on instances (some parameters fixed or random, see ``instances``)."""
        if self.given:
            return f"given: {self.points} pts"
        capped = {c.text.split(" ")[0] for c in self.caps if not c.raised}
        parts = []
        for n, lo, hi in self.checked:
            parts.append(self._range(n, lo, hi, True) + ("*" if n in capped else ""))
        prod = [c.text.replace(" ", "") for c in self.caps if not c.raised and "·" in c.text]
        body = ",".join(parts + prod)
        return f"{body}: {self.points} pts" + ("†" if self.instances else "")

    def as_dict(self) -> dict:
        return {"checked": self.ranges(), "points": self.points,
                "capped_by": [c.as_dict() for c in self.caps if not c.raised],
                "raised": [c.text for c in self.caps if c.raised],
                "instances": self.instances or None, "where": self.where or None}


def default_cost(sizes: Mapping[str, int]) -> float:
    """Relative cost of one size point when a claim declares none: Π (size + 1)²."""
    return float(math.prod((int(v) + 1) ** 2 for v in sizes.values())) or 1.0


def fit_rate(timed: Sequence[tuple], cost: Callable[[Mapping[str, int]], float]) -> float | None:
    """Seconds per unit of cost, from (sizes, seconds) of measured points: the median ratio over the
    costliest third of the points (those closest to the sizes being extrapolated to).

    >>> fit_rate([({"N": 1}, 0.004), ({"N": 3}, 0.016)], lambda z: z["N"] + 1)
    0.004
    """
    pts = sorted(((cost(z), t) for z, t in timed), key=lambda p: p[0])
    top = [(c, t) for c, t in pts[len(pts) - max(1, len(pts) // 3):] if t >= 1e-4]
    if not top:
        total = sum(t for _, t in pts)
        units = sum(c for c, _ in pts)
        return total / units if units > 0 and total > 0 else None
    return statistics.median(t / max(c, 1e-12) for c, t in top)


class TimeBudget:
    """Seconds of extra checking that lifting cost caps may take, shared by the variants of one run.

    Each variant is allotted up to four times what is left divided by the
    variants still to come (:meth:`allot`), so time one variant does not use
    passes on to the next; :meth:`spend` records what it really took.  The
    total is never exceeded by more than one size point's time.

    >>> b = TimeBudget(60, parts=8)
    >>> b.allot(); b.spend(10.0); b.allot()
    30.0
    28.571428571428573
    """

    GREED = 4  # a variant may take several even shares: most variants spend none

    def __init__(self, total_s: float, parts: int = 1) -> None:
        if isinstance(total_s, bool) or not isinstance(total_s, (int, float)) or not total_s > 0:
            raise HypothesisError(f"time_budget: must be a positive number of seconds, got {total_s!r}")
        self.total = float(total_s)
        self.left = float(total_s)
        self.parts = max(1, int(parts))

    def allot(self) -> float:
        """This variant's share: up to ``GREED`` times what is left over the variants still to come."""
        left = max(0.0, self.left)
        return min(left, self.GREED * left / self.parts)

    def spend(self, seconds: float) -> None:
        """One variant is done, having spent ``seconds`` lifting caps."""
        self.left -= max(0.0, seconds)
        self.parts = max(1, self.parts - 1)


@dataclass(frozen=True)
class Plan:
    """The outcome of lifting caps (see :func:`plan_raise`): the extra points checked and kept, small
    first, the status of every cap, and the seconds spent."""

    extra: tuple = field(default_factory=tuple)
    statuses: tuple = ()
    seconds: float = 0.0


def _key(z: Mapping[str, int]) -> tuple:
    return tuple(sorted(z.items()))


def plan_raise(params: Sequence[SizeParam], caps: Sequence[Cap], max_size: int,
               admits: Callable[[Mapping[str, int]], bool], done: Sequence[Mapping[str, int]],
               timed: Sequence[tuple], cost: Callable[[Mapping[str, int]], float] | None,
               budget_s: float, raise_caps: bool,
               check: Callable[[list], Iterable[tuple]] | None = None) -> Plan:
    """Decide, cap by cap, whether lifting it to ``max_size`` fits the time budget, and lift it.

    Without ``raise_caps`` nothing is lifted; each cap's status still carries
    the estimated time of lifting it.  With it, caps are tried in order: the
    points a cap adds are estimated (seconds per unit of ``cost``, fitted on the
    points timed so far) and, if the estimate fits what is left of
    ``budget_s``, checked small first by ``check(points)``, which yields
    ``(sizes, seconds, decisive)`` per point.  Before each point the estimate
    is refitted on every point timed so far; when the next point would pass
    the budget the lift stops and the cap is *kept*: its points are dropped
    from the box (kept only if one of them is ``decisive``, i.e. changes the
    verdict) and its status says why.  A cap whose lifted box would be too
    large to enumerate is kept too.  ``Plan.extra`` lists the points kept.
    """
    t0 = time.perf_counter()
    cost = cost or default_cost
    timed = list(timed)
    known: dict = {}  # admits(z), once per size point: every cap's box repeats most points

    def admits_once(z: Mapping[str, int]) -> bool:
        k = tuple(z.values())
        r = known.get(k)
        if r is None:
            r = known[k] = bool(admits(z))
        return r

    seen = {_key(z) for z in done}
    keys = cap_names(params, caps, max_size)

    def extra_for(raised: frozenset) -> list:
        deadline = t0 + budget_s if raise_caps else None
        return [z for z in enumerate_box(params, caps, max_size, admits_once, raised, deadline)
                if _key(z) not in seen]

    def estimate(points: list) -> float | None:
        rate = fit_rate(timed, cost)
        return None if rate is None else rate * sum(cost(z) for z in points)

    too_big = f"kept: lifting it would enumerate more than {MAX_BOX} size assignments"
    statuses, raised, kept_pts = [], frozenset(), []
    for k in keys:
        text = cap_text(params, k)
        trial = frozenset({k}) if not raise_caps else raised | {k}
        try:
            pts = extra_for(trial)
        except BoxTooLarge:
            statuses.append(CapStatus(text, False, None, too_big))
            continue
        except OutOfTime:
            statuses.append(CapStatus(text, False, None, "kept: its sizes could not be listed within the time "
                                      f"budget of {fmt_seconds(budget_s)} (--time-budget)"))
            continue
        est = estimate(pts)
        if not raise_caps:
            statuses.append(CapStatus(text, False, est, "kept without --max-size"))
            continue
        left = budget_s - (time.perf_counter() - t0)
        if est is None or est > left:
            why = (f"kept: lifting it would take est. {fmt_seconds(est)}, over the time budget left to this "
                   f"variant ({fmt_seconds(max(0.0, left))} of {fmt_seconds(budget_s)}; --time-budget)"
                   if est is not None else "kept: no timing to estimate from")
            if est is not None and left <= 0.05:
                why = (f"kept: lifting it would take est. {fmt_seconds(est)}, over the time budget: none is left "
                       "to this variant (--time-budget)")
            statuses.append(CapStatus(text, False, est, why))
            continue
        done_now, decisive, stopped = [], False, False
        results = iter(check(pts)) if check is not None and pts else iter(())
        for i, z in enumerate(pts):
            rate = fit_rate(timed, cost)
            left = budget_s - (time.perf_counter() - t0)
            if i and rate is not None and rate * cost(z) > left:
                stopped = True
                break
            zz, secs, dec = next(results)
            timed.append((zz, secs))
            done_now.append(zz)
            decisive = decisive or bool(dec)
        close = getattr(results, "close", None)
        if close is not None:
            close()
        if stopped:
            if decisive:
                kept_pts += done_now
                seen.update(_key(z) for z in done_now)
            why = (f"kept: lifting it stopped after {len(done_now)} of {len(pts)} extra points "
                   f"({fmt_seconds(time.perf_counter() - t0)} spent), as the next would pass the time budget of "
                   f"{fmt_seconds(budget_s)} (--time-budget); est. was {fmt_seconds(est)}"
                   + ("; those checked are in the box, as one of them fails" if decisive else ""))
            statuses.append(CapStatus(text, False, est, why))
            continue
        raised = trial
        kept_pts += done_now
        seen.update(_key(z) for z in done_now)
        statuses.append(CapStatus(text, True, est))
    return Plan(tuple(kept_pts), tuple(statuses), time.perf_counter() - t0)
