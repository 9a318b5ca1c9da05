"""The exact check of one instance: end to end, and each claimed step on its own.

:func:`check_instance` runs a stack on its symbolic input with the exact
interpreter (:mod:`symconv.symbolic`, in the active ring backend) and compares
the result with the claimed output and with every claimed intermediate state
(:class:`~symconv.claims.Step`), each step starting from the *claimed*
previous state.  A difference is a :class:`Failure`: sizes, step, layer, the
first (row, channel) that differs, the polynomial obtained and the one
claimed, and a small integer input on which they differ.  The polynomials'
text and the counterexample are computed only when a failure is read (most
failures of a sweep are never reported).

>>> from symconv.blocks import sym, zeros
>>> from symconv.claims import Instance
>>> from symconv.constructions.shifts import shift_down
>>> y = sym("y", 3)
>>> check_instance(Instance(y, shift_down(3, 1), zeros(1) | sym("y", 2)), {"N": 3})[0] is None
True
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping

from .model import HypothesisError
from .symbolic import (ExactSeq, ForeignSymbol, as_expr, make_ring, require_state, run_state, stack_symbols,
                       used_generators, value_at)

_LAZY = ("got", "expected", "counterexample", "got_value", "expected_value")


class _Lazy:
    """A dataclass field computed on first read from the failure's pending ring elements."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.index = name, _LAZY.index(name)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:  # the field's default, as dataclasses sees it
            return None if self.name == "counterexample" else ""
        return obj._materialize()[self.index]

    def __set__(self, obj: Any, value: Any) -> None:
        if value is None and self.name == "counterexample":
            value = {}
        obj.__dict__.setdefault("_given", {})[self.name] = value


@dataclass(frozen=True)
class Failure:
    """Where a check failed: sizes, step, layer (1-based), position, got, expected, counterexample.

    ``got``, ``expected`` (text of the polynomials), ``counterexample`` (small
    integers for the symbols involved), ``got_value`` and ``expected_value``
    (both sides at that point) are computed on first read when the failure
    was made by :meth:`pending`.

    >>> f = Failure({"n": 1}, "output", 1, (0, 0), "x", "0", {"x": 1}, "1", "0")
    >>> f.describe()
    "at sizes {'n': 1}, output (after layer 1), row 0, channel 0: got x, expected 0; e.g. with {'x': 1} got 1, expected 0"
    """

    sizes: dict
    step: str
    layer: int
    position: tuple
    got: str = _Lazy()  # type: ignore[assignment]
    expected: str = _Lazy()  # type: ignore[assignment]
    counterexample: dict = _Lazy()  # type: ignore[assignment]
    got_value: str = _Lazy()  # type: ignore[assignment]
    expected_value: str = _Lazy()  # type: ignore[assignment]

    @classmethod
    def pending(cls, sizes: dict, step: str, layer: int, position: tuple, got: Any, expected: Any,
                ring: Any) -> "Failure":
        """A failure whose text and counterexample are derived from ring elements when first read."""
        f = cls(sizes, step, layer, tuple(position))
        f.__dict__["_pending"] = (got, expected, ring)
        return f

    def _materialize(self) -> tuple:
        d = self.__dict__
        pend = d.pop("_pending", None)
        if pend is not None:
            g, e, R = pend
            cx, gv, ev = _counterexample(g - e, g, e, R)
            d["_given"] = dict(zip(_LAZY, (str(as_expr(g, R)), str(as_expr(e, R)), cx, str(gv), str(ev))))
        given = d.get("_given", {})
        return tuple(given.get(k, {} if k == "counterexample" else "") for k in _LAZY)

    def as_dict(self) -> dict:
        """Every field as plain data (for JSON)."""
        d = {"sizes": dict(self.sizes), "step": self.step, "layer": self.layer, "position": list(self.position)}
        d.update(zip(_LAZY, self._materialize()))
        d["counterexample"] = dict(d["counterexample"])
        return d

    def describe(self) -> str:
        i, j = self.position
        return (
            f"at sizes {self.sizes}, {self.step} (after layer {self.layer}), row {i}, channel {j}: "
            f"got {self.got}, expected {self.expected}; e.g. with {self.counterexample or 'any input'} "
            f"got {self.got_value}, expected {self.expected_value}"
        )

    def __reduce__(self) -> tuple:  # pickled (process pools, deepcopy) as plain data
        return (Failure, (self.sizes, self.step, self.layer, self.position) + self._materialize())


@dataclass(frozen=True)
class StepResult:
    """A printed step checked on its own: from the claimed previous state through its layers."""

    label: str
    first_layer: int
    last_layer: int
    holds: bool
    failure: Failure | None = None
    kind: str = "state"   # the step's kind (see symconv.claims.Step): state, product, conv, call, count


def _counterexample(diff: Any, got: Any, exp: Any, R: Any, seed: int = 0) -> tuple[dict, Any, Any]:
    """Small integers for the symbols of ``diff`` (others 0) where got ≠ expected."""
    rng = random.Random(seed)
    syms = sorted((R.symbols[k] for k in used_generators(diff, R)), key=lambda s: s.name)
    index = {s: k for k, s in enumerate(R.symbols)}
    for trial in range(200):
        values = {s: rng.randint(1, 3 + trial) * rng.choice((1, -1)) for s in syms}
        point = [0] * R.ngens
        for s, v in values.items():
            point[index[s]] = v
        if value_at(diff, R, point) != 0:
            return ({str(s): v for s, v in values.items()}, value_at(got, R, point), value_at(exp, R, point))
    point = [0] * R.ngens
    return ({}, value_at(got, R, point), value_at(exp, R, point))


def _compare(got: ExactSeq, exp: ExactSeq, sizes: dict, label: str, layer: int) -> Failure | None:
    if (got.N, got.d) != (exp.N, exp.d):
        raise HypothesisError(
            f"{label}: expected block has shape {(exp.N, exp.d)} but the state is {(got.N, got.d)}"
        )
    pos = got.first_difference(exp)
    if pos is None:
        return None
    i, j = pos
    return Failure.pending(dict(sizes), label, layer, (i, j), got.cols[j][i], exp.cols[j][i], got.ring)


def _convert(inst: Any, syms: set, stack: Any, backend: str | None) -> tuple:
    R = make_ring(syms, backend=backend)
    x0 = ExactSeq.from_block(R, inst.input).pad(stack.N_int, stack.d_int)
    steps = sorted(inst.steps, key=lambda s: s.layers)
    for s in steps:
        if not 0 <= s.layers <= stack.L:
            raise HypothesisError(f"{s.label}: step after layer {s.layers} but the stack has {stack.L}")
    claimed = [ExactSeq.from_block(R, s.expected) for s in steps]
    return R, x0, claimed, ExactSeq.from_block(R, inst.expected)


def check_instance(inst: Any, sizes: Mapping[str, int], *, backend: str | None = None,
                   budget: Any = None) -> tuple[Failure | None, list[StepResult]]:
    """Check one instance exactly: end to end (first departure) and each step on its own.

    ``backend``: the ring backend (default: the active one, see
    :func:`symconv.symbolic.backend`); ``budget``: memory budget for the exact
    states (see :mod:`symconv.budget`).  An instance's ``expected`` (and a
    step's) may be a :class:`~symconv.symbolic.RingBlock`, built in the ring
    directly.
    """
    stack = inst.stack
    if inst.input.shape != (stack.N, stack.d):
        raise HypothesisError(f"input: shape {inst.input.shape} but the stack takes {(stack.N, stack.d)}")
    if tuple(inst.expected.shape) != (stack.N, stack.d):
        raise HypothesisError(
            f"expected: shape {inst.expected.shape} but the stack outputs {(stack.N, stack.d)}"
        )
    require_state(stack, "instance", budget, states=3 + len(inst.steps))
    base = inst.input.free_symbols() | stack_symbols(stack)
    try:  # the claims' symbols are usually the input's: scan them only when one is not
        R, x0, claimed, expected = _convert(inst, base, stack, backend)
    except ForeignSymbol:
        blocks = [inst.expected] + [s.expected for s in inst.steps]
        R, x0, claimed, expected = _convert(inst, base.union(*(b.free_symbols() for b in blocks)), stack, backend)
    steps = sorted(inst.steps, key=lambda s: s.layers)
    # end to end: first departure of the actual run from the claimed states
    failure = None
    state, done = x0, 0
    reached: list = []  # (state, failure) after each step while the run follows the claims
    for s, c in zip(steps, claimed):
        state = run_state(stack, state, done, s.layers)
        done = s.layers
        failure = _compare(state, c, dict(sizes), s.label, s.layers)
        reached.append(failure)
        if failure:
            break
    if failure is None:
        state = run_state(stack, state, done, None)
        out = state.top_left(stack.N, stack.d)
        failure = _compare(out, expected, dict(sizes), "output", stack.L)
    # each step on its own, from the claimed previous state
    results = []
    base, base_layers = x0, 0        # the claimed state at the largest layer count below the step's
    prev, prev_layers = x0, 0
    for k, (s, c) in enumerate(zip(steps, claimed)):
        if s.layers > prev_layers:   # steps stated at the same layer count all start from the same state
            base, base_layers = prev, prev_layers
        if k < len(reached):  # the run so far equals the claimed states: same start, same result
            f = reached[k]
        else:
            got = run_state(stack, base, base_layers, s.layers)
            f = _compare(got, c, dict(sizes), s.label, s.layers)
        results.append(StepResult(s.label, base_layers + 1, s.layers, f is None, f))
        prev, prev_layers = c, s.layers
    return failure, results
