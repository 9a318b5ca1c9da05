"""Volume: 1,000 random stacks with rational parameters, three interpreters, one answer.

For each stack (causal, circular or mixed modes, 1 to 4 layers, N' ≥ N and d' ≥ d) and
one random integer input u:

* symbolic (``symconv.symbolic.evaluate``) gives the exact output, rationals;
* exact mod p (``symconv.exact.run_mod``) must equal those rationals mapped to F_p;
* numeric (``symconv.numeric.run_bounded``, float64) must be within its own a-priori
  bound of the exact output.
"""
import random
from fractions import Fraction

import numpy as np

from symconv import exact, numeric
from symconv.blocks import from_array
from symconv.constructions.random import random_stack
from symconv.symbolic import evaluate

P = exact.PRIME
COUNT = 1000


def _cases():
    rng = random.Random(20261201)
    for seed in range(COUNT):
        N, d = rng.randint(1, 4), rng.randint(1, 2)
        N_int, d_int = N + rng.randint(0, 2), d + rng.randint(0, 1)
        conv = ("causal", "circular", "mixed")[seed % 3]
        stack = random_stack(N, d, rng.randint(1, 4), N_int, d_int, conv=conv, seed=seed, rational=True)
        u = np.array([[rng.randint(-3, 3) for _ in range(d)] for _ in range(N)], dtype=object)
        yield seed, stack, u


def test_a_thousand_random_stacks_agree_across_interpreters():
    modes, checked, nonzero, fractional = set(), 0, 0, 0
    for seed, stack, u in _cases():
        modes |= stack.modes()
        want = evaluate(stack, from_array(u, "u")).entries  # exact rationals
        assert all(isinstance(v.p, int) and isinstance(v.q, int) for v in want.flat), seed
        got_mod = exact.run_mod(stack, u.astype(np.int64), P)
        assert (got_mod == exact.to_field(want, P)).all(), f"seed {seed}: mod p differs from symbolic"
        out, bound = numeric.run_bounded(stack, u.astype(np.float64))
        ref = np.array([[float(Fraction(int(v.p), int(v.q))) for v in row] for row in want])
        err = float(np.max(np.abs(out - ref))) if ref.size else 0.0
        # the reference's own rounding: one float conversion per entry
        assert err <= bound + 2 * numeric.EPS["float64"] * float(np.max(np.abs(ref), initial=0.0)), \
            f"seed {seed}: float error {err} over its bound {bound}"
        checked += 1
        nonzero += bool(np.any(ref))
        fractional += any(v.q != 1 for v in want.flat)
    assert checked == COUNT and modes == {"causal", "circular"}
    assert nonzero > COUNT // 2  # the stacks compute something (not all-zero outputs)
    assert fractional > COUNT // 4  # and rational parameters reach the outputs
