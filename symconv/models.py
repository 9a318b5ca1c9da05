"""The model types of Appendix H, side by side.

symconv runs four kinds of model, each plain data interpreted by the same
backends (:mod:`symconv.symbolic`, :mod:`symconv.numeric`, :mod:`symconv.exact`):

* **BaseConv stacks** (:mod:`symconv.model`): :class:`Layer` is one layer
  ``(u·W + b1) ⊙ (h * u + b2)``, :class:`Stack` an ``(N, L, d, N', d')`` model,
  :func:`compose` stacking (Lemma H.11);
* **Hyena** (:mod:`symconv.hyena`, Prop. H.12): :class:`HyenaLayer`,
  :class:`HyenaStack`, gates that read the original input;
* **arithmetic circuits** (:mod:`symconv.circuits`, Def. H.13, Theorem H.21):
  :class:`Circuit` of :class:`Gate` s, built with :class:`CircuitBuilder`;
* **RetNet** (:mod:`symconv.retnet`, Section H.6): the recurrence (equation 6) and
  its circuit, :func:`retnet_circuit` and :func:`retnet_model`.

>>> from symconv.models import Layer, Stack, HyenaStack, Circuit
>>> Stack(N=2, d=1, layers=(Layer(W=[[0]], h=[[1]], b1=[[1]], b2=[[0]]),)).signature.L
1
"""
from .circuits import Circuit, CircuitBuilder, Gate
from .hyena import HyenaLayer, HyenaStack
from .model import Layer, Signature, Stack, compose
from .retnet import recurrence, retnet_circuit, retnet_model

__all__ = ["Circuit", "CircuitBuilder", "Gate", "HyenaLayer", "HyenaStack", "Layer", "Signature", "Stack",
           "compose", "recurrence", "retnet_circuit", "retnet_model"]
