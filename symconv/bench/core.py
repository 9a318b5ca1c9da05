"""``symconv bench core``: the two figures the core interpreters are held to.

(a) the exact check of Prop. H.9 at n = 256 (N = 512, d = 1) by the sparse
    polynomial-ring interpreter (active backend), against the same check
    written with ``sympy.expand`` on expression trees (each channel a
    polynomial in X, coefficients read off with ``coeff``): target at least
    20× faster.  Two fairer baselines are reported beside it: the same sparse
    algorithm on sympy expressions, and sympy's own ring (see
    ``symconv bench symbolic``);
(b) one numeric layer (dense W, full-length filter, full biases, B = 1,
    N = 2^20, d = 64, float64) on the (B, N, d) state, against the bare
    rfft + irfft of the same shapes and FFT length with the same library,
    buffers and threads (the timing functions of ``symconv bench numeric``):
    target at most ``LAYER_FLOOR_TARGET`` (1.15×) that floor, as in ``bench numeric``.
Each is a ratio of times measured in the same run (best of ``--repeat``).
"""
from __future__ import annotations

import time

import numpy as np
import sympy

from . import LAYER_FLOOR_TARGET, Record, positive_int

DESCRIPTION = "exact H.9 check vs sympy.expand; one FFT layer vs the bare FFT floor"


def add_arguments(p) -> None:
    p.add_argument("--n", type=positive_int, default=256, help="block length for the H.9 check (default 256)")
    p.add_argument("--log2N", type=positive_int, default=20, help="log2 of N for the numeric layer (default 20)")
    p.add_argument("--d", type=positive_int, default=64, help="channels for the numeric layer (default 64)")
    p.add_argument("--repeat", type=positive_int, default=2, help="timings per figure; the best is kept")


def _best(f, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def h9_instance(n: int):
    from ..blocks import ones, sym, zeros
    from ..claims import Instance
    from ..constructions.sums import add_n

    x, S = sym("x", n), sym("S", n)
    y = x | S
    return Instance(y, add_n(n, 2 * n), ones(n) | (S + x))


def expand_check(inst) -> bool:
    """The same check with expression trees: h(X)·u(X) expanded, coefficients read with coeff."""
    X = sympy.Symbol("X")
    stack = inst.stack
    N = stack.N
    state = [sympy.sympify(v, strict=True) for v in inst.input.entries[:, 0]]
    for layer in stack.layers:
        h = sum(sympy.sympify(layer.h[k, 0], strict=True) * X**k for k in range(layer.h.shape[0]))
        u = sum(state[i] * X**i for i in range(N))
        prod = sympy.expand(h * u)
        conv = [prod.coeff(X, i) for i in range(N)]
        b1 = [layer.b1[i if layer.b1.shape[0] > 1 else 0, 0] for i in range(N)]
        b2 = [layer.b2[i if layer.b2.shape[0] > 1 else 0, 0] for i in range(N)]
        w = layer.W[0, 0]
        state = [sympy.expand((state[i] * w + b1[i]) * (conv[i] + b2[i])) for i in range(N)]
    return all(sympy.expand(g - e) == 0 for g, e in zip(state, inst.expected.entries[:, 0]))


def run(args) -> list[Record]:
    from ..checking import check_instance
    from ..model import Layer, Stack
    from .. import numeric
    from .numeric import floor_fn, layer_fn
    from .symbolic import expression_check

    records = []
    inst = h9_instance(args.n)
    t_ring = _best(lambda: check_instance(inst, {"n": args.n}), args.repeat)
    ok_ring = check_instance(inst, {"n": args.n})[0] is None
    t_expand = _best(lambda: expand_check(inst), 1)
    ok_expand = expand_check(inst)
    ratio = t_expand / t_ring
    t_expr = _best(lambda: expression_check(inst), args.repeat)
    t_sympy = _best(lambda: check_instance(inst, {"n": args.n}, backend="sympy"), args.repeat)
    records.append(Record(f"H.9 exact check, n={args.n}: sympy.expand time / ring time", ratio, ">= 20",
                          ratio >= 20 and ok_ring and ok_expand, "x",
                          f"ring {t_ring:.3f} s, expand {t_expand:.3f} s; both agree: {ok_ring == ok_expand}; "
                          f"fair baselines: the same sparse algorithm on sympy expressions {t_expr / t_ring:.2g}x, "
                          f"sympy's ring {t_sympy / t_ring:.2g}x (see bench symbolic)"))

    N, d = 2 ** args.log2N, args.d
    rng = np.random.default_rng(0)
    layer = Layer(W=rng.standard_normal((d, d)), h=rng.standard_normal((N, d)),
                  b1=rng.standard_normal((N, d)), b2=rng.standard_normal((N, d)))
    stack = Stack(N, d, (layer,))
    prep = numeric.prepare(stack)
    z = rng.standard_normal((1, N, d))
    t_floor = t_layer = float("inf")
    with numeric._Runner(prep) as runner:
        floor, one_layer = floor_fn(prep, z, runner), layer_fn(prep, z, runner)
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            t_floor = min(t_floor, _best(floor, 1))
            t_layer = min(t_layer, _best(one_layer, 1))
    ratio = t_layer / t_floor
    records.append(Record(f"one layer, B=1 N=2^{args.log2N} d={d} float64: time / bare rfft+irfft", ratio,
                          f"<= {LAYER_FLOOR_TARGET}", ratio <= LAYER_FLOOR_TARGET, "x",
                          f"layer {t_layer:.3f} s, floor {t_floor:.3f} s ({prep.fft.library}, "
                          f"{prep.workers} threads, FFT length {prep.layers[0].fft_len})"))
    return records
