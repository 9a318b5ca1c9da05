"""What every lower-bound certificate shares: what it bounds, the bound, and a re-check.

A certificate is a frozen dataclass holding its inputs and its result.  Its
``check()`` recomputes the result from the inputs and raises
:class:`CertificateError` when the recorded result is not what the inputs give
(a tampered or stale certificate); it returns the certificate itself when the
result stands, so ``cert.check().lower`` is a re-checked bound.

``quantity`` names what is bounded below: ``"L"`` (layers), ``"general
layers"`` (layers with W ≠ 0), ``"N'"``, ``"d'"`` or ``"parameters"``.
``lower`` is the bound, ``proves`` says in words what was proved and where
(which sizes, which field, which search space), and ``kind`` is one of
:data:`KINDS`.

>>> TrivialCertificate("L", 1, "the target is not the identity").check().lower
1
"""
from __future__ import annotations

from dataclasses import dataclass

from ..model import HypothesisError

KINDS = ("trivial", "dependency", "degree", "composition", "factorization", "dimension", "least signature",
         "algebraic")
QUANTITIES = ("L", "general layers", "N'", "d'", "parameters")


class CertificateError(HypothesisError):
    """A certificate's recorded result is not what its inputs give."""


def check_quantity(q: str, where: str) -> str:
    if q not in QUANTITIES:
        raise HypothesisError(f"{where}.quantity: expected one of {QUANTITIES}, got {q!r}")
    return q


def log2_ceil(k: int) -> int:
    """⌈log₂ k⌉ for k ≥ 1 (0 for k = 1).

    >>> [log2_ceil(k) for k in (1, 2, 3, 4, 5)]
    [0, 1, 2, 2, 3]
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise HypothesisError(f"k: expected an integer >= 1, got {k!r}")
    return (k - 1).bit_length()


@dataclass(frozen=True)
class TrivialCertificate:
    """A bound by definition: N' ≥ N, d' ≥ d, L ≥ 1 for a target other than the identity.

    ``check`` re-reads nothing: the bound is the definition it cites.
    """

    quantity: str
    lower: int
    proves: str
    kind: str = "trivial"

    def __post_init__(self) -> None:
        check_quantity(self.quantity, "TrivialCertificate")

    def check(self) -> "TrivialCertificate":
        if self.kind != "trivial" or isinstance(self.lower, bool) or not isinstance(self.lower, int) or self.lower < 0:
            raise CertificateError(f"TrivialCertificate: malformed ({self.kind!r}, lower {self.lower!r})")
        return self
