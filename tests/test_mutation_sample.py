"""The CI sample of the mutation test (tests/mutation.py): 10 fixed mutants must be killed.

The full run is ``python3 tests/mutation.py --jobs 2`` (see the README); here a
fixed seed picks 10 non-equivalent mutants among those whose claims are cheap
to verify (H.7, H.8, H.9: about a second each), each is applied to a private
copy of the checkout and ``symconv verify`` runs on it in a fresh interpreter.
"""
from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CHEAP = {"H.7", "hadamard", "identity", "linear", "H.8", "shift_down", "shift_up", "H.9", "add_n"}
SEED, SIZE = 20261201, 10


def _load():
    name = "symconv_mutation"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / "mutation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # the worker processes find the task functions by this name
    spec.loader.exec_module(module)
    return module


mutation = _load()


def sample() -> list:
    """The fixed sample: 10 non-equivalent mutants of cheap claims, by a fixed seed."""
    pool = sorted((m for m in mutation.load_mutants() if not m.equivalent and set(m.claims) <= CHEAP),
                  key=lambda m: m.id)
    return random.Random(SEED).sample(pool, SIZE)


def _in_checkout() -> bool:
    return subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], cwd=HERE.parent,
                          capture_output=True).returncode == 0


def test_sample_is_fixed_and_covers_several_kinds():
    s = sample()
    assert [m.id for m in s] == [m.id for m in sample()]
    assert len({m.id for m in s}) == SIZE
    assert len({m.kind for m in s}) >= 4
    assert not any(m.equivalent for m in s)


def test_compare_tells_exit_verdict_and_box_apart():
    Run = mutation.Run
    rec = {"id": "H.9", "name": "add_n", "variant": "as printed", "verdict": "holds", "expect": "holds",
           "ok": True, "scope": "all sizes", "sizes_checked": 30, "failure": None, "steps": []}
    base = Run(0, (rec,), "x", 1.0, "")
    assert mutation.compare(base, base)[0] == ""
    assert mutation.compare(base, Run(1, ({**rec, "verdict": "fails", "ok": False},), "x", 1.0, ""))[0] == "exit"
    moved = {**rec, "verdict": "fails", "expect": "fails", "failure": {"step": "z", "layer": 2}}
    base_f = Run(0, ({**moved, "failure": {"step": "z¹", "layer": 1}},), "x", 1.0, "")
    assert mutation.compare(base_f, Run(0, (moved,), "x", 1.0, ""))[0] == "verdict"
    how, detail = mutation.compare(base, Run(0, ({**rec, "sizes_checked": 20},), "x", 1.0, ""))
    assert how == "box" and "30 -> 20" in detail


def test_a_mutant_must_apply_exactly_once():
    m = mutation.Mutant("t", "f.py", "x + 1", "x - 1", ("H.9",), "sign", "")
    assert mutation.apply_text("y = x + 1", m) == "y = x - 1"
    for text in ("y = x", "x + 1; x + 1"):
        with pytest.raises(ValueError, match="exactly once"):
            mutation.apply_text(text, m)


@pytest.mark.skipif(not _in_checkout(), reason="needs a git checkout (the mutants are applied to a copy of it)")
def test_sample_of_ten_mutants_is_killed_by_verify():
    mutants = sample()
    stale = mutation.check(mutants)
    assert not stale, f"stale mutants (rewrite them in tests/mutants.py against the current text): {stale}"
    results, facts = mutation.run_mutants(mutants, jobs=2, timeout=120)
    assert len(facts["imported"]) >= 1 and all("symconv-mutation-" in p for p in facts["imported"])
    bad = [(r.id, r.status, r.detail) for r in results if r.status != "killed"]
    assert not bad, f"mutants not killed by symconv verify: {bad}"
