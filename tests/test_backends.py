"""The two ring backends (python-flint, sympy) agree on every proof, and the glue around them."""
import pickle
from dataclasses import asdict

import numpy as np
import pytest
import sympy

from symconv import symbolic
from symconv.blocks import Block, ones, sym
from symconv.checking import Failure, check_instance
from symconv.claims import Instance, check_all, verify
from symconv.constructions.random import random_stack
from symconv.constructions.sums import add_n
from symconv.model import HypothesisError
from symconv.registry import load_claims

flint_only = pytest.mark.skipif(not symbolic.have_flint(), reason="python-flint not installed (extra exact)")


@flint_only
def test_backends_agree_on_every_proof():
    # every variant of every claim at its 3 smallest sizes: verdicts, failing step, position,
    # polynomials, counterexample (each instance built once, checked in both rings)
    compared = failures = 0
    for claim in load_claims():
        for variant in claim.variants:
            for z in [z for z in claim.sweep(3) if variant.applies(z)][:3]:
                inst = variant.instance(z, claim)
                got = {}
                for b in ("sympy", "flint"):
                    with symbolic.use_backend(b):
                        f, steps = check_all(inst, z)
                    got[b] = (f and f.as_dict(), [(s.label, s.holds, s.failure and s.failure.as_dict())
                                                  for s in steps])
                assert got["flint"] == got["sympy"], (claim.id, claim.name, variant.name, z)
                compared += 1
                failures += got["flint"][0] is not None
    assert compared > 100 and failures > 10  # the comparison covered holding and failing checks


@flint_only
def test_backends_agree_on_a_whole_verdict():
    claim = next(c for c in load_claims() if c.id == "H.9")
    out = {}
    for b in ("sympy", "flint"):
        with symbolic.use_backend(b):
            out[b] = [{k: v for k, v in r.as_dict().items() if k not in ("seconds", "capped_by")}  # timings
                      for r in verify(claim, max_size=4)]
    assert out["flint"] == out["sympy"]
    assert any(v["verdict"] == "fails" for v in out["flint"])


@flint_only
def test_random_stacks_evaluate_alike_in_both_rings():
    for seed in range(6):
        st = random_stack(N=4, d=2, L=2, conv="mixed", seed=seed)
        u = sym("u", 4, 2)
        a = symbolic.evaluate(st, u, symbolic.make_ring(u.free_symbols(), backend="flint"))
        b = symbolic.evaluate(st, u, symbolic.make_ring(u.free_symbols(), backend="sympy"))
        assert all(sympy.expand(x - y) == 0 for x, y in zip(a.entries.flat, b.entries.flat)), seed


def test_backend_selection(monkeypatch):
    with symbolic.use_backend("sympy"):
        assert symbolic.backend() == "sympy"
        R = symbolic.make_ring([sympy.Symbol("x")], backend=None)
        assert not symbolic.is_flint(R)
    monkeypatch.setenv("SYMCONV_BACKEND", "sympy")
    assert symbolic.backend() == "sympy"
    monkeypatch.setenv("SYMCONV_BACKEND", "magma")
    with pytest.raises(HypothesisError, match="backend"):
        symbolic.backend()
    with pytest.raises(HypothesisError, match="backend"):
        symbolic.set_backend("maple")


def test_failures_are_computed_lazily_and_travel_as_plain_data():
    n = 3
    x, S = sym("x", n), sym("S", n)
    inst = Instance(x | S, add_n(n, 2 * n), ones(n) | (S - x))  # wrong claim: S - x for S + x
    f, _ = check_instance(inst, {"n": n})
    assert f is not None and "_pending" in f.__dict__  # nothing derived yet
    assert f.got == "S[0,0] + x[0,0]" and f.expected == "S[0,0] - x[0,0]"
    assert "_pending" not in f.__dict__
    cx = f.counterexample
    assert set(cx) == {"x[0,0]"}  # the difference 2·x[0,0] involves x only; S is 0 there
    assert int(f.got_value) == cx["x[0,0]"] == -int(f.expected_value) != 0
    g = pickle.loads(pickle.dumps(f))
    assert g == f and asdict(g)["got"] == f.got and g.as_dict()["position"] == [n, 0]


def test_expected_output_in_ring_form():
    n = 4
    x, S = sym("x", n), sym("S", n)
    xs, Ss = list(x.entries[:, 0]), list(S.entries[:, 0])

    def build(r):
        return [[r(1)] for _ in range(n)] + [[r(Ss[i]) + r(xs[i])] for i in range(n)]

    good = symbolic.RingBlock((2 * n, 1), xs + Ss, build, "1^n | S + x")
    assert check_instance(Instance(x | S, add_n(n, 2 * n), good), {"n": n})[0] is None
    bad = symbolic.RingBlock((2 * n, 1), xs + Ss, lambda r: build(r)[:n] + [[r(Ss[i])] for i in range(n)])
    f = check_instance(Instance(x | S, add_n(n, 2 * n), bad), {"n": n})[0]
    assert f.position == (n, 0) and f.expected == "S[0,0]"
    assert bad.entries[n, 0] == Ss[0]  # displays still read sympy entries
    with pytest.raises(HypothesisError, match="rows"):
        check_instance(Instance(x | S, add_n(n, 2 * n), symbolic.RingBlock((2 * n, 1), xs, lambda r: [[1]])),
                       {"n": n})


def test_a_claimed_state_with_a_foreign_symbol_still_fails_cleanly():
    n = 2
    x, S = sym("x", n), sym("S", n)
    z = sympy.Symbol("zeta")
    exp = Block(np.array([[1], [1], [S.entries[0, 0] + x.entries[0, 0]], [z]], dtype=object))
    f = check_instance(Instance(x | S, add_n(n, 2 * n), exp), {"n": n})[0]
    assert f.position == (3, 0) and f.expected == "zeta"


def test_huge_symbolic_state_is_refused_before_allocating():
    from symconv.model import Layer, Stack

    layer = Layer(W=[[0]], h=[[1]], b1=[[1]], b2=[[0]])
    st = Stack(2, 1, (layer,), N_int=10 ** 7)  # a 2-row input on a 10^7-row internal state
    with pytest.raises(HypothesisError, match=r"exact state at N' = 10000000, d' = 1: needs .* budget of 1.0 MiB"):
        symbolic.evaluate(st, sym("y", 2), budget="1MiB")
    inst = Instance(sym("y", 2), st, sym("y", 2))
    with pytest.raises(HypothesisError, match=r"instance: exact state .*needs .*GiB, over the memory budget"):
        check_instance(inst, {}, budget="1GiB")


@pytest.mark.parametrize("backend", ["sympy", "flint"])
def test_layer_parameters_convert_entry_by_entry_alike(backend):
    """Numeric arrays convert only their nonzero entries; the columns equal to_ring of every entry."""
    import numpy as np
    import sympy

    from symconv.symbolic import _convert_columns, make_ring, to_ring

    if backend == "flint" and not symbolic.have_flint():
        pytest.skip("python-flint not installed")
    x = sympy.Symbol("x")
    R = make_ring([x], backend=backend)
    arrays = [np.array([[0, 3], [-2, 0], [0, 1]], dtype=np.int8), np.array([[0.5, 0.0], [0.0, -1.25]]),
              np.array([[0, x], [sympy.Rational(1, 3), sympy.S.Zero]], dtype=object)]
    for a in arrays:
        cols = _convert_columns(R, a)
        assert cols == [[to_ring(R, a[i, j]) for i in range(a.shape[0])] for j in range(a.shape[1])]
    with pytest.raises(HypothesisError, match="booleans"):
        _convert_columns(R, np.array([[True]], dtype=object))


@flint_only
def test_the_bench_ring_form_of_h10_is_the_proofs_output_and_holds_in_both_rings():
    """bench symbolic rebuilds H.10's expected output as ring programs: same entries, same verdicts."""
    from symconv.bench.symbolic import as_ring_block, h10_instance

    plain, z = h10_instance(4, False)
    ring, _ = h10_instance(4, True)
    assert all(sympy.expand(a - b) == 0 for a, b in zip(ring.expected.entries.flat, plain.expected.entries.flat))
    for b in ("sympy", "flint"):
        assert check_instance(ring, z, backend=b)[0] is None
    x = sympy.Symbol("x")
    blk = as_ring_block(Block(np.array([[x * (x + 1)], [x + 2]], dtype=object)))
    assert [sympy.expand(e) for e in blk.entries[:, 0]] == [x**2 + x, x + 2]
