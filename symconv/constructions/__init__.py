"""Constructions from the paper: pure functions that return :class:`~symconv.model.Stack` data.

One module per family:

- ``params``: builders for filters, block masks and W matrices;
- ``primitives``: Lemma H.7 (Hadamard product with a constant, identity, u·W);
- ``shifts``: Prop. H.8 (shift_down; shift_up as printed and one that works);
- ``sums``: Prop. H.9 (add_n);
- ``remember``: Prop. H.10 (as printed and corrected);
- ``hyena``: Prop. H.12 (BaseConv ⇄ Hyena);
- ``butterfly``, ``benes``, ``kaleidoscope``: Def. H.14, Prop. H.15, Lemmas H.16 and H.18;
- ``linear_circuits``, ``linear_circuit_families``: Def. H.13 and Corollary H.20;
- ``arithmetic``: Theorem H.21 (arithmetic circuits to BaseConv);
- ``random``: random stacks for tests and for Lemma H.11.

Nothing here computes an output; the interpreters do.
"""
