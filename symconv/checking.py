"""The exact check of one instance: end to end, and each claimed step on its own.

:func:`check_instance` runs a stack on its symbolic input with the exact
interpreter (:mod:`symconv.symbolic`) and compares the result with the claimed
output and with every claimed intermediate state (:class:`~symconv.claims.Step`),
each step starting from the *claimed* previous state.  A difference is a
:class:`Failure`: sizes, step, layer, the first (row, channel) that differs,
the polynomial obtained and the one claimed, and a small integer input on which
they differ.

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
from .symbolic import ExactSeq, make_ring, run_state, stack_symbols


@dataclass(frozen=True)
class Failure:
    """Where a check failed: sizes, step, layer (1-based), position, got, expected, counterexample."""

    sizes: dict
    step: str
    layer: int
    position: tuple
    got: str
    expected: str
    counterexample: dict
    got_value: str
    expected_value: str

    def describe(self) -> str:
        i, j = self.position
        return (
            f"at sizes {self.sizes}, {self.step} (after layer {self.layer}), row {i}, channel {j}: "
            f"got {self.got}, expected {self.expected}; e.g. with {self.counterexample or 'any input'} "
            f"got {self.got_value}, expected {self.expected_value}"
        )


@dataclass(frozen=True)
class StepResult:
    """A printed step checked on its own: from the claimed previous state through its layers."""

    label: str
    first_layer: int
    last_layer: int
    holds: bool
    failure: Failure | None = None


def _counterexample(diff, got, exp, R, seed: int = 0) -> tuple[dict, Any, Any]:
    """Small integers for the symbols of ``diff`` (others 0) where got ≠ expected."""
    rng = random.Random(seed)
    syms = sorted((R.symbols[k] for k, e in enumerate(_used_gens(diff, R)) if e), key=lambda s: s.name)
    for trial in range(200):
        values = {s: rng.randint(1, 3 + trial) * rng.choice((1, -1)) for s in syms}
        point = [(g, values.get(R.symbols[k], 0)) for k, g in enumerate(R.gens)]
        if diff.evaluate(point) != 0:
            return ({str(s): v for s, v in values.items()}, got.evaluate(point), exp.evaluate(point))
    point = [(g, 0) for g in R.gens]
    return ({}, got.evaluate(point), exp.evaluate(point))


def _used_gens(p, R) -> list[int]:
    used = [0] * R.ngens
    for monom in p.monoms():
        for k, e in enumerate(monom):
            if e:
                used[k] = 1
    return used


def _compare(got: ExactSeq, exp: ExactSeq, sizes: dict, label: str, layer: int) -> Failure | None:
    if (got.N, got.d) != (exp.N, exp.d):
        raise HypothesisError(
            f"{label}: expected block has shape {(exp.N, exp.d)} but the state is {(got.N, got.d)}"
        )
    pos = got.first_difference(exp)
    if pos is None:
        return None
    i, j = pos
    g, e = got.cols[j][i], exp.cols[j][i]
    cx, gv, ev = _counterexample(g - e, g, e, got.ring)
    return Failure(dict(sizes), label, layer, (i, j), str(g.as_expr()), str(e.as_expr()), cx, str(gv), str(ev))


def check_instance(inst, sizes: Mapping[str, int]) -> tuple[Failure | None, list[StepResult]]:
    """Check one instance exactly: end to end (first departure) and each step on its own."""
    stack = inst.stack
    if inst.input.shape != (stack.N, stack.d):
        raise HypothesisError(f"input: shape {inst.input.shape} but the stack takes {(stack.N, stack.d)}")
    if inst.expected.shape != (stack.N, stack.d):
        raise HypothesisError(
            f"expected: shape {inst.expected.shape} but the stack outputs {(stack.N, stack.d)}"
        )
    blocks = [inst.input, inst.expected] + [s.expected for s in inst.steps]
    syms = set().union(*(b.free_symbols() for b in blocks)) | stack_symbols(stack)
    R = make_ring(syms)
    x0 = ExactSeq.from_block(R, inst.input).pad(stack.N_int, stack.d_int)
    steps = sorted(inst.steps, key=lambda s: s.layers)
    for s in steps:
        if not 0 <= s.layers <= stack.L:
            raise HypothesisError(f"{s.label}: step after layer {s.layers} but the stack has {stack.L}")
    claimed = [ExactSeq.from_block(R, s.expected) for s in steps]
    # end to end: first departure of the actual run from the claimed states
    failure = None
    state, done = x0, 0
    for s, c in zip(steps, claimed):
        state = run_state(stack, state, done, s.layers)
        done = s.layers
        failure = _compare(state, c, dict(sizes), s.label, s.layers)
        if failure:
            break
    if failure is None:
        state = run_state(stack, state, done, None)
        out = state.top_left(stack.N, stack.d)
        failure = _compare(out, ExactSeq.from_block(R, inst.expected), dict(sizes), "output", stack.L)
    # each step on its own, from the claimed previous state
    results = []
    prev, prev_layers = x0, 0
    for s, c in zip(steps, claimed):
        got = run_state(stack, prev, prev_layers, s.layers)
        f = _compare(got, c, dict(sizes), s.label, s.layers)
        results.append(StepResult(s.label, prev_layers + 1, s.layers, f is None, f))
        prev, prev_layers = c, s.layers
    return failure, results
