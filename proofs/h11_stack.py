"""Lemma H.11: stacking models with the same (N, d, N', d') composes their functions.

Sizes: N ≤ N' and d ≤ d'.  f and g are BaseConv models (here random ones with
small integer parameters, so that nothing about them is special), of L1 and
L2 ≤ 2 layers; the input u ∈ R^{N×d} is symbolic.  The claim: running f's layers and
then g's layers on one internal N'×d' state gives g(f(u)), where f(u) is f's
N×d read-out, with L1 + L2 layers.

Taken literally this needs what f leaves outside the top-left N×d block to be
invisible to g.  It is when N' = N and d' = d, and it is for causal layers
with d' = d (rows below N never reach rows above).  It is not in general: a
circular layer of g wraps rows ≥ N round to the top, and W mixes the extra
channels in.  The corrected stacking inserts one masking layer between the
models where that can matter (``compose(f, g, reset="auto")``): L1 + L2 + 1.
"""
from symconv.certificates.standard import signature_bounds
from symconv import Cap, Claim, Hypothesis, Instance, Signature, SizeParam, Variant, compose, sym, verify
from symconv.hypotheses import eq
from symconv.parametric import size
from symconv.constructions.random import random_stack
from symconv.constructions.stacking import clear_extra_channels
from symconv.symbolic import evaluate

SIZES = (SizeParam("N", 1, 4), SizeParam("Np", 1, 5), SizeParam("d", 1, 1), SizeParam("dp", 1, 2),
         SizeParam("L1", 1, 2), SizeParam("L2", 1, 2))
#: cost caps: two-layer models on one side at a time, and on the small N only
CAPS = (Cap(("L1", "L2"), 2), Cap(("N", "L1", "L2"), 4))
N, Np, d, dp = size("N"), size("Np"), size("d"), size("dp")
HYPOTHESES = (Hypothesis(N <= Np), Hypothesis(d <= dp))
NO_PADDING = Hypothesis(eq(Np, N), eq(dp, d))
SAME_WIDTH = Hypothesis(eq(dp, d))


def models(z, conv):
    """f and g: random models of L1 and L2 layers, on the shared internal N'×d' state."""
    N, Np, d, dp = z["N"], z["Np"], z["d"], z["dp"]
    seed = N + 10 * Np + 100 * dp + 1000 * (2 * z["L1"] + z["L2"])
    f = random_stack(N, d, z["L1"], Np, dp, conv=conv, seed=seed)
    g = random_stack(N, d, z["L2"], Np, dp, conv=conv, seed=seed + 1)
    return f, g


def build(conv, reset, adjust=False):
    def b(z):
        f, g = models(z, conv)
        u = sym("u", z["N"], z["d"])
        expected = evaluate(g, evaluate(f, u))       # g(f(u)), each model read out on its own
        if adjust:  # the same f (its read-out is unchanged), its last layer clearing the channels >= d
            assert evaluate(clear_extra_channels(f), u).entries.tolist() == evaluate(f, u).entries.tolist()
            f = clear_extra_channels(f)
        return Instance(u, compose(f, g, reset=reset), expected)
    return b


RANDOM = ("1 random f and g per size, of L1 and L2 layers (integers in [-2, 2], seed N + 10·N' + 100·d' + "
          "1000·(2·L1 + L2))")


CLAIMS = [
    Claim("H.11", "stacking", "running f's then g's layers computes g(f(u)), with L1 + L2 layers",
          SIZES, lambda z: Signature(z["N"], z["L1"] + z["L2"], z["d"], z["Np"], z["dp"]),
          (Variant("as printed, causal, d' = d", build("causal", False), where=SAME_WIDTH, instances=RANDOM),
           Variant("as printed, circular, no padding", build("circular", False), where=NO_PADDING, instances=RANDOM),
           Variant("as printed, causal, any d'", build("causal", False), expect="fails", fails_at=("output",),
                   instances=RANDOM, reading="literal stacking of the given parameters; the adjusted variant "
                                             "below holds within the claimed L1 + L2",
                   note="extra channels (d' > d) left by f reach g's output through W"),
           Variant("adjusted, causal, any d' (L1 + L2)", build("causal", False, adjust=True), instances=RANDOM,
                   note="the same f with its last layer clearing the channels >= d (W, b1 columns zeroed): "
                        "L1 + L2 layers, the lemma's count"),
           Variant("as printed, circular, N' > N", build("circular", False), expect="fails", where=SAME_WIDTH,
                   fails_at=("output",), instances=RANDOM,
                   note="rows >= N left by f wrap round to the top in g's circular convolution; f's last layer "
                        "cannot clear rows (W acts on channels), so no adjustment within L1 + L2 was found"),
           Variant("corrected, causal", build("causal", "auto"), instances=RANDOM,
                   note="one masking layer between f and g, only where d' > d"),
           Variant("corrected, circular", build("circular", "auto"), instances=RANDOM,
                   note="one masking layer between f and g where N' > N or d' > d")),
          HYPOTHESES, caps=CAPS,
          bounds=signature_bounds("L1 + L2", "the models' N'", "the models' d'", L_certs=None,
                                  notes={"L": "met at every size by a variant that holds there (causal, or circular "
                                              "with N' = N); circular f, g with N' > N take L1 + L2 + 1 in "
                                              "symconv (no route within L1 + L2 found, and no certificate "
                                              "that none exists)"})),
]

if __name__ == "__main__":
    for v in verify(CLAIMS[0]):
        print(v.id, v.name, v.variant, v.scope, v.verdict, v.failure.describe() if v.failure else "")
