"""Block algebra with symbolic sizes and proofs for all sizes (Prop. H.8–H.10 style).

Write the construction as the paper does, with sizes as symbols:

>>> n, N = size("n"), size("N")
>>> y = psym("x", n) | psym("S", n) | pzeros(N - 2 * n)
>>> layer = PLayer(1 + X**n, pzeros(n) | pones(n) | pzeros(N - 2 * n))
>>> desc = Description(y, (layer,), pzeros(n) | psym("S", n) + psym("x", n) | pzeros(N - 2 * n),
...                    facts=(ge(N, 2 * n),))
>>> check(desc, base_facts({"n": 1, "N": 2})).status
'holds'

Modules: :mod:`.linear` (offsets and their comparison), :mod:`.algebra`
(columns, filters, products, masks), :mod:`.check` (descriptions, the check,
instantiation), :mod:`.scope` (the hook used by ``verify``).
"""
from .algebra import (
    X, Atom, PFilter, PSeq, Piece, Unsupported, as_filter, causal, circular, fblock, hadamard,
    multiply, pconst, pmatmul, pones, psym, punit, pzeros, refine,
)
from .check import (
    Cases, Description, Mismatch, PLayer, PResult, PStep, apply, base_facts, check, compare, cross_check,
    filter_taps, instance_at, instantiate, layer_at, stack_at,
)
from .linear import Facts, Lin, Undecided, ge, gt, lin, size

__all__ = [
    "X", "Atom", "Cases", "Description", "Facts", "Lin", "Mismatch", "PFilter", "PLayer", "PResult", "PSeq",
    "PStep", "Piece", "Undecided", "Unsupported", "apply", "as_filter", "base_facts", "causal",
    "check", "circular", "compare", "cross_check", "fblock", "filter_taps", "ge", "gt", "hadamard",
    "instance_at", "instantiate", "layer_at", "lin", "multiply", "pconst", "pmatmul", "pones", "psym", "punit",
    "pzeros", "refine", "size", "stack_at",
]
