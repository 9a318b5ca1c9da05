"""Lower-bound certificates, and claimed bounds checked against them.

Each certificate is a frozen dataclass that records its inputs and result,
says in words what it proves (``proves``), and re-checks itself (``check()``
recomputes the result and raises :class:`CertificateError` when it differs):

* :class:`CausalCertificate`, :class:`ReachCertificate` (dependency patterns);
* :class:`DegreeCertificate` (layers with W ≠ 0 a target of degree k needs);
* :class:`CompositionCertificate` (no causal stack with d' = 1 reaches a degree
  that is not a power of two in row 0), and :class:`OneRowCertificate` (nor does any
  one-row stack with d' = 1: N' ≥ 2 for such an N = 1 target);
* :class:`TwoLayerCertificate` (no two-layer model of any N', d' computes a target
  whose row-0 channels are homogeneous cubics or quartics not divisible by their own
  input coordinate: L ≥ 3);
* :class:`DimensionCertificate` (Jacobian rank of a family: parameters, and
  layers at a given state size, any parametrisation needs);
* :class:`LeastSignatureCertificate` (no one-layer model, by a Gröbner basis);
* :class:`WOnlyInPlaceCertificate` (no in-place channel factor from W-only layers
  with polynomial parameters: a class-restricted bound, not wired into bounds);
* :class:`TrivialCertificate` (a bound by definition).

:class:`Bound` attaches a claimed bound to a claim; ``verify`` assesses it
(:func:`assess`): met, met up to a constant, or false with a certificate.

>>> from symconv.blocks import sym
>>> x = sym("x", 2)
>>> DegreeCertificate.of(x, x * x).lower
1
"""
from .base import KINDS, QUANTITIES, CertificateError, TrivialCertificate, log2_ceil
from .bounds import (VERDICTS, Bound, BoundPoint, BoundResult, assess, describe, first_point, last_point,
                     model_params, summarise)
from .composition import CompositionCertificate, OneRowCertificate, row0_degree
from .degree import DegreeCertificate, line_degree, stack_line_degree
from .dependency import CausalCertificate, ReachCertificate, required_pattern
from .dimension import FAMILIES, DimensionCertificate, Jet, family_rank, layer_params, rank_mod
from .factor import TwoLayerCertificate, row0_polys
from .inplace import WOnlyInPlaceCertificate
from .least import LeastSignatureCertificate

__all__ = ["KINDS", "QUANTITIES", "VERDICTS", "Bound", "BoundPoint", "BoundResult", "CausalCertificate",
           "CertificateError", "CompositionCertificate", "DegreeCertificate", "DimensionCertificate", "FAMILIES", "Jet",
           "LeastSignatureCertificate", "OneRowCertificate", "ReachCertificate", "TrivialCertificate", "assess", "describe",
           "family_rank", "first_point", "last_point", "layer_params", "line_degree", "log2_ceil", "model_params",
           "rank_mod", "required_pattern", "row0_degree", "row0_polys", "stack_line_degree", "summarise",
           "TwoLayerCertificate", "WOnlyInPlaceCertificate"]
