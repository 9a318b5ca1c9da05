"""Dependency certificates: which input rows an output row must read, and which stacks cannot.

Built on :mod:`symconv.dependency`.  The rows a target needs are read off its
polynomials: output row i needs input row j when some entry of row i has a
symbol of input row j (:func:`required_pattern`).  Two certificates:

* :class:`CausalCertificate`: the target needs some row j > i.  Every causal
  stack's pattern, at any depth and internal size, lies inside the generic
  causal pattern, which is lower triangular (zero padding adds no rows above),
  so no causal stack computes the target: a circular layer is needed (L ≥ 1).
* :class:`ReachCertificate`: with every filter supported on the taps given
  (e.g. short filters), the least depth at which the generic pattern contains
  the target's; depth ``lower − 1`` misses the pair ``witness``.  Filters of
  full length reach every earlier row in one layer, so the bound is only
  interesting for restricted supports.

>>> import numpy as np
>>> req = np.array([[False, True], [False, False]])
>>> CausalCertificate.of(req).check().witness
(0, 1)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..blocks import Block
from ..dependency import generic_dependencies, missing
from ..model import HypothesisError, check_size
from .base import CertificateError


def input_rows(inp: Block) -> dict:
    """Symbol → input row, for the symbols of an input block."""
    out = {}
    for (i, _), v in np.ndenumerate(inp.entries):
        for s in getattr(v, "free_symbols", ()):
            out.setdefault(s, i)
    return out


def required_pattern(inp: Block, expected: Block) -> np.ndarray:
    """Boolean n_out × n_in matrix: output row i of ``expected`` has a symbol of input row j.

    >>> from symconv.blocks import sym, zeros
    >>> y = sym("y", 2)
    >>> required_pattern(y, y[1:] | zeros(1)).astype(int).tolist()
    [[0, 1], [0, 0]]
    """
    rows = input_rows(inp)
    R = np.zeros((expected.n, inp.n), dtype=bool)
    for (i, _), v in np.ndenumerate(expected.entries):
        for s in getattr(v, "free_symbols", ()):
            if s in rows:
                R[i, rows[s]] = True
    return R


def _pairs(R: np.ndarray) -> tuple:
    return tuple((int(i), int(j)) for i, j in np.argwhere(R))


def _pattern(pairs: tuple, shape: tuple) -> np.ndarray:
    R = np.zeros(shape, dtype=bool)
    for i, j in pairs:
        R[i, j] = True
    return R


@dataclass(frozen=True)
class CausalCertificate:
    """No causal stack (any L, any N' ≥ N) computes a target that reads a later row.

    ``required``: the (output row, input row) pairs the target needs, ``shape``
    its pattern's shape, ``witness`` one needed pair (i, j) with j > i.
    """

    required: tuple
    shape: tuple
    witness: tuple
    quantity: str = "L"
    lower: int = 1
    kind: str = "dependency"

    @property
    def proves(self) -> str:
        i, j = self.witness
        return (f"output row {i} needs input row {j} > {i}; every causal stack's dependency pattern is lower "
                "triangular at every depth and internal size, so no causal stack computes the target: "
                "it needs a circular layer (L ≥ 1)")

    @classmethod
    def of(cls, required: np.ndarray) -> "CausalCertificate":
        """The certificate for a required pattern, or a HypothesisError when it is causal."""
        R = np.asarray(required, dtype=bool)
        above = [(i, j) for i, j in _pairs(R) if j > i]
        if not above:
            raise HypothesisError("required: the pattern is lower triangular; a causal stack may compute it")
        return cls(_pairs(R), tuple(R.shape), above[0])

    def check(self) -> "CausalCertificate":
        R = _pattern(self.required, self.shape)
        i, j = self.witness
        if self.witness not in self.required or not j > i:
            raise CertificateError(f"CausalCertificate: witness {self.witness} is not a needed pair above the diagonal")
        n = max(self.shape)
        gen = generic_dependencies(n, 2, "causal")[: self.shape[0], : self.shape[1]]
        if (i, j) not in missing(R, gen) or self.lower != 1:
            raise CertificateError("CausalCertificate: the generic causal pattern covers the witness")
        return self


def _reach(N_int: int, taps: tuple, L: int, conv: str, gate: bool) -> np.ndarray:
    i = np.arange(N_int)[:, None]
    j = np.arange(N_int)[None, :]
    diff = (i - j) if conv == "causal" else (i - j) % N_int
    one = np.isin(diff, taps)
    if gate:
        one |= np.eye(N_int, dtype=bool)
    D = np.eye(N_int, dtype=bool)
    for _ in range(L):
        D = (one.astype(np.int64) @ D.astype(np.int64)) > 0
    return D


@dataclass(frozen=True)
class ReachCertificate:
    """Least depth at which filters supported on ``taps`` let every needed pair be seen.

    ``lower`` layers are needed: at depth ``lower − 1`` the generic pattern (all
    taps and gates dense) misses ``witness``.  ``max_L``: the search gave up
    beyond it (then ``lower = max_L + 1`` and the pair is never reached up to max_L).
    """

    required: tuple
    shape: tuple
    N_int: int
    taps: tuple
    conv: str
    lower: int
    witness: tuple | None
    max_L: int
    quantity: str = "L"
    kind: str = "dependency"

    @property
    def proves(self) -> str:
        where = f"at depth {self.lower - 1} output row {self.witness[0]} cannot see input row {self.witness[1]}" \
            if self.witness else "depth 0 sees only the identity"
        return (f"with every {self.conv} filter supported on taps {list(self.taps)} (N' = {self.N_int}), "
                f"{where}: L ≥ {self.lower}")

    @classmethod
    def of(cls, required: np.ndarray, N_int: int, taps, conv: str = "causal", max_L: int = 64) -> "ReachCertificate":
        R = np.asarray(required, dtype=bool)
        N_int = check_size(N_int, "N_int")
        if conv not in ("causal", "circular"):
            raise HypothesisError(f"conv: unknown convolution mode {conv!r}")
        taps = tuple(sorted({int(t) for t in taps}))
        if any(t < 0 or t >= N_int for t in taps):
            raise HypothesisError(f"taps: every tap must lie in [0, N' = {N_int}), got {list(taps)}")
        if max(R.shape) > N_int:
            raise HypothesisError(f"required: pattern {R.shape} does not fit N' = {N_int}")
        witness = None
        for L in range(0, max_L + 1):
            D = _reach(N_int, taps, L, conv, True)[: R.shape[0], : R.shape[1]]
            miss = missing(R, D)
            if not miss:
                return cls(_pairs(R), tuple(R.shape), N_int, taps, conv, L, witness, max_L)
            witness = miss[0]
        return cls(_pairs(R), tuple(R.shape), N_int, taps, conv, max_L + 1, witness, max_L)

    def check(self) -> "ReachCertificate":
        R = _pattern(self.required, self.shape)
        fresh = ReachCertificate.of(R, self.N_int, self.taps, self.conv, self.max_L)
        if (fresh.lower, fresh.witness) != (self.lower, self.witness):
            raise CertificateError(f"ReachCertificate: recorded L ≥ {self.lower} (witness {self.witness}), "
                                   f"recomputed L ≥ {fresh.lower} (witness {fresh.witness})")
        return self
