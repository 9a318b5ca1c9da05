"""Assertions for a researcher's own test suite, and executors whose tasks may hold lambdas.

:func:`assert_holds` verifies a claim (or takes verdicts already computed) and
raises an ``AssertionError`` that spells out the first failure: the sizes, the
step and layer, the row and channel, the polynomial obtained and the one
claimed, and a concrete input on which they differ.  :func:`assert_fails_at`
checks that a claim fails, and at the step (and layer) you name, as an erratum
should.

>>> from symconv import Claim, Instance, SizeParam, Variant, sym
>>> from symconv.constructions.shifts import shift_down
>>> ident = Claim("X.1", "identity", "shift_down claimed to be the identity", (SizeParam("N", 2),),
...               variants=(Variant("construction", lambda z: Instance(sym("y", z["N"]),
...                         shift_down(z["N"], 1), sym("y", z["N"]))),))
>>> assert_fails_at(ident, "output", layer=1, max_size=3).failure.position
(0, 0)
>>> try:
...     assert_holds(ident, max_size=3)
... except AssertionError as e:
...     print(str(e).splitlines()[0].split(" (")[0])
X.1 identity [construction]: fails

:func:`pickling_executor` is a process pool whose tasks travel with
cloudpickle (``pip install cloudpickle``), so claims built from lambdas or
closures can be swept with several workers: ``verify(claim, executor=pickling_executor(4))``.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from .claims import Claim, Verdict, Verdicts, verify
from .model import HypothesisError

__all__ = ["assert_holds", "assert_fails_at", "describe_failure", "pickling_executor", "pickling"]


def _fmt_sizes(sizes: Mapping | None) -> str:
    return ", ".join(f"{k}={v}" for k, v in dict(sizes or {}).items()) or "-"


def describe_failure(f: Any, indent: str = "  ") -> str:
    """A failure (:class:`symconv.checking.Failure`) as labelled lines.

    >>> from symconv.checking import Failure
    >>> print(describe_failure(Failure({"N": 2}, "output", 1, (0, 0), "y0", "0", {"y0": 1}, "1", "0")))
      sizes:    N=2
      step:     output (after layer 1)
      position: row 0, channel 0
      got:      y0
      expected: 0
      e.g.:     with y0=1: got 1, expected 0
    """
    pos = tuple(getattr(f, "position", ()) or ())
    where = f"row {pos[0]}, channel {pos[1]}" if len(pos) == 2 else str(pos or "-")
    cx = dict(getattr(f, "counterexample", {}) or {})
    example = ("with " + ", ".join(f"{k}={v}" for k, v in cx.items()) if cx else "with any input")
    lines = [
        ("sizes", _fmt_sizes(getattr(f, "sizes", None))),
        ("step", f"{getattr(f, 'step', '?')} (after layer {getattr(f, 'layer', '?')})"),
        ("position", where),
        ("got", str(getattr(f, "got", "?"))),
        ("expected", str(getattr(f, "expected", "?"))),
        ("e.g.", f"{example}: got {getattr(f, 'got_value', '?')}, expected {getattr(f, 'expected_value', '?')}"),
    ]
    return "\n".join(f"{indent}{k + ':':<10}{v}" for k, v in lines)


def describe_verdict(v: Verdict) -> str:
    """A verdict as a headline, then its failure and its failing steps, one per line."""
    head = f"{v.id} {v.name} [{v.variant}]: {v.verdict} (checked {v.scope})"
    if v.verdict != v.expect:
        head += f"; the proof records {v.expect}"
    out = [head]
    if v.note:
        out.append(f"  note:     {v.note}")
    if v.failure is not None:
        out.append(describe_failure(v.failure))
    for s in getattr(v, "steps", ()) or ():
        if not getattr(s, "holds", True):
            out.append(f"  step {s.label} on its own (layers {s.first_layer}-{s.last_layer}, "
                       "from the claimed previous state) fails:")
            if s.failure is not None:
                out.append(describe_failure(s.failure, "    "))
    return "\n".join(out)


def _verdicts(claim: Claim | Verdict | Iterable[Verdict], variants, kw) -> list[Verdict]:
    if isinstance(claim, Verdict):
        return [claim]
    if isinstance(claim, Claim):
        if isinstance(variants, str):
            variants = [variants]
        return list(verify(claim, variants=variants, **kw))
    if isinstance(claim, (list, tuple, Verdicts)) and all(isinstance(v, Verdict) for v in claim):
        return list(claim)
    raise HypothesisError(f"claim: expected a Claim, a Verdict or a list of Verdict, got {type(claim).__name__}")


def assert_holds(claim: Claim | Verdict | Sequence[Verdict], variants: str | Sequence[str] | None = None,
                 max_size: int = 8, sizes: Iterable[Mapping[str, int]] | None = None,
                 executor: Any = None) -> Verdicts:
    """Verify ``claim`` (every variant, or those named) and raise AssertionError unless all hold.

    Returns the verdicts.  A Verdict or a list of them is checked as it is.
    """
    __tracebackhide__ = True  # pytest: show the message, not this frame
    vs = _verdicts(claim, variants, dict(max_size=max_size, sizes=sizes, executor=executor))
    if not vs:
        raise AssertionError("assert_holds: no variant was checked")
    bad = [v for v in vs if not v.holds]
    if bad:
        raise AssertionError("\n".join(describe_verdict(v) for v in bad))
    return Verdicts(vs)


def assert_fails_at(claim: Claim | Verdict, step: str, layer: int | None = None,
                    variant: str | None = None, max_size: int = 8,
                    sizes: Iterable[Mapping[str, int]] | None = None, executor: Any = None) -> Verdict:
    """Assert that ``claim`` fails, at the claimed state labelled ``step`` (``"output"`` for the
    final output), and after ``layer`` when given; returns the failing verdict.

    The step counts as failing when the run first departs from the proof there, or when the
    step checked on its own (from the claimed previous state) fails.  With several variants,
    name one with ``variant``.
    """
    __tracebackhide__ = True
    vs = _verdicts(claim, variant, dict(max_size=max_size, sizes=sizes, executor=executor))
    if len(vs) != 1:
        names = [v.variant for v in vs]
        raise HypothesisError(f"variant: name one of {names} (assert_fails_at checks one variant)")
    (v,) = vs
    if v.holds:
        raise AssertionError(f"{v.id} {v.name} [{v.variant}]: holds ({v.scope}), expected it to fail at {step}")
    fails = []
    if v.failure is not None:
        fails.append(v.failure)
    fails += [s.failure for s in getattr(v, "steps", ()) or () if not s.holds and s.failure is not None]
    for f in fails:
        if f.step == step and (layer is None or f.layer == layer):
            return v
    want = f"{step}" + (f" (after layer {layer})" if layer is not None else "")
    raise AssertionError(f"expected a failure at {want}, but:\n" + describe_verdict(v))


# ---------------------------------------------------------------- executors that cloudpickle


def _cloudpickle():
    try:
        import cloudpickle
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise HypothesisError("executor: sweeping claims built from lambdas needs cloudpickle "
                              "(pip install cloudpickle)") from exc
    return cloudpickle


def _run_pickled(payload: bytes) -> Any:
    import pickle

    fn, args, kwargs = pickle.loads(payload)
    return fn(*args, **kwargs)


class pickling:
    """Wrap any ``concurrent.futures`` executor so that each task (function and arguments)
    travels with cloudpickle; lambdas and closures then reach process workers.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with pickling(ThreadPoolExecutor(1)) as ex:
    ...     ex.submit(lambda x: x + 1, 41).result()
    42
    """

    def __init__(self, executor: Any):
        self.executor = executor

    def submit(self, fn: Callable, *args, **kwargs):
        payload = _cloudpickle().dumps((fn, args, kwargs))
        return self.executor.submit(_run_pickled, payload)

    def map(self, fn: Callable, *iterables, **kw):
        futures = [self.submit(fn, *a) for a in zip(*iterables)]
        return (f.result() for f in futures)

    def shutdown(self, wait: bool = True, **kw) -> None:
        self.executor.shutdown(wait=wait, **kw)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()


def pickling_executor(workers: int) -> pickling:
    """A process pool of ``workers`` processes whose tasks travel with cloudpickle."""
    from concurrent.futures import ProcessPoolExecutor

    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise HypothesisError(f"workers: must be an integer at least 1, got {workers!r}")
    _cloudpickle()
    return pickling(ProcessPoolExecutor(workers))
