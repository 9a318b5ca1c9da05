"""Constructions from the paper: pure functions that return :class:`~symconv.model.Stack` data.

One module per family: ``primitives`` (Lemma H.7), ``shifts`` (Prop. H.8),
``sums`` (Prop. H.9).  Nothing here computes an output; the interpreters do.
"""
