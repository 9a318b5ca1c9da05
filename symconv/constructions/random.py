"""Random stacks with small integer parameters, for tests and for Lemma H.11.

>>> s = random_stack(N=4, d=1, L=2, seed=0)
>>> s.signature.L, s.N_int
(2, 4)
"""
from __future__ import annotations

import random as _random
from fractions import Fraction

import numpy as np

from ..model import HypothesisError, Layer, Stack, check_size


def random_layer(N_int: int, d_int: int, conv: str, rng: _random.Random, lo: int = -2, hi: int = 2,
                 density: float = 1.0, rational: bool = False) -> Layer:
    """A layer whose W, h, b1, b2 entries are integers in [lo, hi] (h of random length).

    ``rational=True`` divides each entry by a random denominator in 1..3 (exact Fractions).
    """
    N_int, d_int = check_size(N_int, "N_int"), check_size(d_int, "d_int")
    if not (isinstance(density, (int, float)) and not isinstance(density, bool) and 0 <= density <= 1):
        raise HypothesisError(f"density: must be a number in [0, 1], got {density!r}")

    def draw(shape):
        a = np.zeros(shape, dtype=int).astype(object)
        for idx in np.ndindex(*shape):
            if rng.random() < density:
                a[idx] = Fraction(rng.randint(lo, hi), rng.randint(1, 3)) if rational else rng.randint(lo, hi)
        return a
    K = rng.randint(1, N_int)
    return Layer(W=draw((d_int, d_int)), h=draw((K, d_int)), b1=draw((N_int, d_int)),
                 b2=draw((N_int, d_int)), conv=conv, label="random")


def random_stack(N: int, d: int = 1, L: int = 1, N_int: int | None = None, d_int: int | None = None,
                 conv: str = "causal", seed: int = 0, density: float = 1.0, rational: bool = False) -> Stack:
    """L random integer (or, with ``rational=True``, rational) layers on an N'×d' state.

    ``conv="mixed"`` picks a mode per layer.
    """
    N, d, L = check_size(N, "N"), check_size(d, "d"), check_size(L, "L", 0)
    if conv not in ("causal", "circular", "mixed"):
        raise HypothesisError(f"conv: expected 'causal', 'circular' or 'mixed', got {conv!r}")
    rng = _random.Random(seed)
    N_int = N if N_int is None else N_int
    d_int = d if d_int is None else d_int
    layers = []
    for _ in range(L):
        mode = rng.choice(("causal", "circular")) if conv == "mixed" else conv
        layers.append(random_layer(N_int, d_int, mode, rng, density=density, rational=rational))
    return Stack(N, d, tuple(layers), N_int, d_int, name=f"random(seed={seed})")
