"""Lemma H.11 within its claimed count: clearing the channels a model leaves beyond d.

Stacking f and g on one internal N'×d' state (Lemma H.11) computes g(f(u)) only
when g never sees what f leaves outside its N×d read-out.  For causal layers
rows ≥ N never reach rows < N, so only the extra channels (d' > d) matter, and
they can be cleared inside f's own last layer: zeroing the columns ≥ d of its W
and of its b1 makes its output vanish there, while its read-out (the top-left
N×d block) is unchanged.  :func:`clear_extra_channels` does that, so
``compose(clear_extra_channels(f), g)`` has L1 + L2 layers, the lemma's count.
Extra *rows* cannot be cleared the same way (W acts on channels, not rows).

>>> from symconv.constructions.random import random_stack
>>> f = random_stack(2, 1, 1, 3, 2, seed=1)
>>> clear_extra_channels(f).layers[-1].W[:, 1].tolist()
[0, 0]
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..model import HypothesisError, Stack


def clear_extra_channels(f: Stack) -> Stack:
    """f with its last layer's gate (W and b1) zero in the channels ≥ d: same read-out, zero extra channels."""
    if not isinstance(f, Stack) or not f.layers:
        raise HypothesisError("f: expected a Stack with at least one layer")
    last = f.layers[-1]
    d, di = f.d, f.d_int
    W = np.array(last.W, dtype=object)
    W[:, d:] = 0
    b1 = np.array(np.broadcast_to(last.b1, (last.b1.shape[0], di)), dtype=object)
    b1[:, d:] = 0
    layer = replace(last, W=W, b1=b1, label=(last.label + "; extra channels cleared").strip("; "))
    return replace(f, layers=f.layers[:-1] + (layer,), name=(f.name or "f") + " (extra channels cleared)")
