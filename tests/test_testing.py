"""The test-suite API (issue 13.2): assert_holds, assert_fails_at, executors that cloudpickle."""
from concurrent.futures import ProcessPoolExecutor

import pytest

from symconv import Claim, Instance, Layer, Signature, SizeParam, Stack, Step, Variant, sym, verify, zeros
from symconv.blocks import rows
from symconv.constructions.shifts import shift_down
from symconv.model import HypothesisError
from symconv.testing import assert_fails_at, assert_holds, pickling_executor


def difference(offset=0):
    """y[i] - y[i-1] in one layer; ``offset`` adds a wrong constant to the claimed output."""
    def build(z):
        N = z["N"]
        y = sym("y", N)
        layer = Layer(W=[[0]], h=[[1], [-1]], b1=[[1]], b2=[[0]])
        expected = rows(y, 0, 1) | (rows(y, 1, N) - rows(y, 0, N - 1))
        if offset:
            expected = expected + offset
        return Instance(y, Stack(N, 1, (layer,)), expected)
    return Claim("mine.1", "difference", "y[i] - y[i-1]", (SizeParam("N", 2),),
                 lambda z: Signature(z["N"], 1, 1, z["N"], 1), (Variant("construction", build),))


def two_steps():
    """shift_down by 1, then by 1 again, with a wrong middle state z1 (claimed: the identity)."""
    def build(z):
        N = z["N"]
        y = sym("y", N)
        s = shift_down(N, 1)
        stack = Stack(N, 1, s.layers + s.layers)
        out = zeros(2) | rows(y, 0, N - 2)
        return Instance(y, stack, out, (Step("z1", 1, y),))
    return Claim("mine.2", "twice", "two shifts", (SizeParam("N", 3),), None,
                 (Variant("as printed", build),))


def test_assert_holds_returns_the_verdicts():
    vs = assert_holds(difference(), max_size=5)
    assert vs.holds and [v.sizes_checked for v in vs] == [4]


def test_assert_holds_message_spells_out_the_failure():
    with pytest.raises(AssertionError) as e:
        assert_holds(difference(offset=1), max_size=4)
    msg = str(e.value)
    assert msg.splitlines()[0].startswith("mine.1 difference [construction]: fails (checked ")
    assert "sizes:    N=2" in msg
    assert "step:     output (after layer 1)" in msg
    assert "position: row 0, channel 0" in msg
    assert "got:      y[0,0]" in msg and "expected: y[0,0] + 1" in msg
    assert "e.g.:" in msg and "expected" in msg
    assert "{" not in msg.split("e.g.")[0]  # no Python dicts in the description


def test_assert_holds_takes_verdicts_too():
    good, bad = verify(difference(), max_size=3)[0], verify(difference(2), max_size=3)[0]
    assert assert_holds([good]).holds
    with pytest.raises(AssertionError, match="expected: y"):
        assert_holds(bad)
    with pytest.raises(HypothesisError, match="claim: expected a Claim"):
        assert_holds("H.9")


def test_assert_fails_at_names_the_step():
    c = two_steps()
    v = assert_fails_at(c, "z1", layer=1, max_size=4)
    assert v.failure.step == "z1" and v.failure.layer == 1
    with pytest.raises(AssertionError, match=r"expected a failure at output \(after layer 2\), but:"):
        assert_fails_at(c, "output", layer=2, max_size=4)
    with pytest.raises(AssertionError, match="holds .*expected it to fail at output"):
        assert_fails_at(difference(), "output", max_size=3)


def test_assert_fails_at_wants_one_variant():
    c = difference()
    two = Claim(c.id, c.name, c.statement, c.sizes, c.claimed,
                (c.variants[0], Variant("again", c.variants[0].build)))
    with pytest.raises(HypothesisError, match="variant: name one of"):
        assert_fails_at(two, "output", max_size=3)
    with pytest.raises(AssertionError):
        assert_fails_at(two, "output", variant="again", max_size=3)


def test_lambdas_travel_to_process_workers():
    """A claim built from closures and lambdas: plain pickling fails, the pickling executor works."""
    claim = difference(offset=3)
    serial = verify(claim, max_size=5)
    with pickling_executor(2) as ex:
        parallel = verify(claim, max_size=5, executor=ex)
    assert [(v.verdict, v.failure, v.sizes_checked) for v in parallel] == \
           [(v.verdict, v.failure, v.sizes_checked) for v in serial]
    assert parallel[0].failure is not None
    with ProcessPoolExecutor(1) as ex, pytest.raises(Exception, match="pickle"):
        verify(claim, max_size=3, executor=ex)


def test_pickling_executor_rejects_bad_worker_counts():
    for bad in (0, -1, 1.5, True):
        with pytest.raises(HypothesisError, match="workers"):
            pickling_executor(bad)
