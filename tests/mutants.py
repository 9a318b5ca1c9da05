"""The fixed list of mutants for ``tests/mutation.py``, as data.

Each :class:`Mutant` is one exact-text edit of one file: ``old`` must occur
exactly once in the current file (otherwise the mutant is "stale" and must be
rewritten against the new text), ``new`` replaces it.  ``claims`` are the claim
ids or names (``symconv verify IDS``) the edited code can affect, chosen to keep
each run short; ``kind`` is one of :data:`KINDS`; ``equivalent`` is None, or
the reason why the edit cannot change any verdict (such mutants are run, but
left out of the score).

>>> len({m.id for m in MUTANTS}) == len(MUTANTS)
True
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    """One small edit: in ``file``, replace the single occurrence of ``old`` by ``new``."""

    id: str
    file: str
    old: str
    new: str
    claims: tuple
    kind: str
    note: str
    equivalent: str | None = None


KINDS = (
    "sign",        # a sign flipped
    "tap",         # a filter tap moved by one or changed
    "offset",      # a block offset or shift amount moved by one
    "mask",        # a mask block grown or shrunk by one
    "bias-swap",   # two biases (or two roles) swapped
    "bias",        # a bias changed
    "layer-drop",  # a layer dropped
    "mode",        # causal <-> circular
    "hypothesis",  # a hypothesis (or sweep bound) narrowed
    "step",        # a claimed intermediate state changed
    "expected",    # a claimed output or its reference computation changed
    "param",       # another layer parameter changed (a W, a direction, a diagonal)
    "interpreter", # the exact interpreter (symbolic.py, hyena.py) broken
    "checker",     # the instance checker (checking.py) broken
)

SYM = "symconv/symbolic.py"
CHK = "symconv/checking.py"
HYE = "symconv/hyena.py"
PRIM = "symconv/constructions/primitives.py"
PAR = "symconv/constructions/params.py"
SHI = "symconv/constructions/shifts.py"
SUM = "symconv/constructions/sums.py"
REM = "symconv/constructions/remember.py"
HYC = "symconv/constructions/hyena.py"
BUT = "symconv/constructions/butterfly.py"
KAL = "symconv/constructions/kaleidoscope.py"
BEN = "symconv/constructions/benes.py"
LIN = "symconv/constructions/linear_circuits.py"
ARI = "symconv/constructions/arithmetic.py"
CIR = "symconv/circuits.py"
RET = "symconv/retnet.py"
ALG = "symconv/parametric/algebra.py"
PRINTED = "symconv/parametric/printed.py"
RETD = "symconv/constructions/retnet_direct.py"

M = Mutant

MUTANTS = (
    # ------------------------------------------------------------ the exact interpreter
    M("sym-conv-sign", SYM, "                a.append(t)\n", "                a.append(-t)\n",
      ("add_n",), "interpreter", "convolve subtracts every product term after the first at a row"),
    M("sym-conv-break", SYM, "                if not circular:\n                    break",
      "                if not circular:\n                    continue",
      ("H.8",), "interpreter", "causal convolution: continue instead of break past row N",
      equivalent="the inner loop runs over input rows in increasing order, so once i + k >= N every later "
                 "row is past N too: break and continue skip the same terms"),
    M("sym-conv-mode", SYM, "circular = mode == \"circular\"", "circular = mode != \"causal\"",
      ("H.8",), "interpreter", "the circular test written the other way round",
      equivalent="Layer accepts only the modes 'causal' and 'circular' (model.CONV_MODES), so the two tests agree"),
    M("sym-conv-wrap", SYM, "pos %= N", "pos -= N - 1",
      ("shift_up",), "offset", "circular wrap-around lands one row too low"),
    M("sym-conv-tap", SYM, "pos = i + k", "pos = i + k + 1",
      ("H.7",), "tap", "every filter tap acts one row further down"),
    M("sym-b2-sign", SYM, "second = [c + b if b else c for c, b in zip(conv, b2)]",
      "second = [c - b if b else c for c, b in zip(conv, b2)]",
      ("add_n",), "sign", "a row-wise bias inside the convolution enters with the wrong sign"),
    M("sym-b2-sign-const", SYM, "second = [c + b2 for c in conv]", "second = [c - b2 for c in conv]",
      ("linear",), "sign", "a broadcast bias inside the convolution enters with the wrong sign"),
    M("sym-gate-channel", SYM, "z = state.cols[k][i]", "z = state.cols[j][i]",
      ("linear",), "interpreter", "u·W reads the output channel instead of the input channel"),
    M("sym-W-transpose", SYM, "Wc = tuple(_pairs(R, ops, list(W[:, j])) for j in range(d))",
      "Wc = tuple(_pairs(R, ops, list(W[j, :])) for j in range(d))",
      ("linear",), "interpreter", "u·W computed as u·Wᵀ"),
    M("sym-b1-drop", SYM, "cols.append(tuple(scale(g, s) if s and g else zero for g, s in zip(b1, second)))",
      "cols.append(tuple(s if s else zero for g, s in zip(b1, second)))",
      ("hadamard",), "bias", "a row-wise gate bias b1 (W = 0) is ignored"),
    M("sym-b1-drop-const", SYM, "cols.append(tuple(scale(b1, s) if s else zero for s in second))",
      "cols.append(tuple(s if s else zero for s in second))",
      ("hadamard", "add_n"), "bias", "a constant gate bias b1 (W = 0) is taken as 1"),
    M("sym-b1-drop-w", SYM, "gate = b1[i] if b1_rows else b1", "gate = zero",
      ("H.12",), "bias", "the gate bias b1 is ignored where W ≠ 0"),
    M("sym-bias-swap", SYM, "b1, b2 = P.b1[j], P.b2[j]", "b1, b2 = P.b2[j], P.b1[j]",
      ("add_n",), "bias-swap", "the interpreter swaps b1 and b2"),
    M("sym-scale-one", SYM, "return v * c.leading_coefficient() if c else c",
      "return v * -c.leading_coefficient() if c else c",
      ("det3",), "sign", "a constant gate other than 1 multiplies with the wrong sign (flint backend)"),
    M("sym-first-diff", SYM, "if a != b), None)", "if a != b and i > 0), None)",
      ("shift_up",), "checker", "differences in row 0 are not seen"),
    M("sym-top-left", SYM, "tuple(tuple(c[:N]) for c in self.cols[:d])", "tuple(tuple(c[:N]) for c in self.cols[-d:])",
      ("butterfly_matrix",), "interpreter", "the read-out takes the last d channels of the state"),
    # ------------------------------------------------------------ the instance checker
    M("chk-step-from-actual", CHK, "prev, prev_layers = c, s.layers", "prev, prev_layers = got, s.layers",
      ("shift_up",), "checker", "each step checked from the actual previous state, not the claimed one"),
    M("chk-no-output", CHK, "failure = _compare(out, expected, dict(sizes), \"output\", stack.L)",
      "failure = None", ("equation 5",), "checker", "the end-to-end output is never compared"),
    M("chk-no-break", CHK, "        if failure:\n            break\n", "",
      ("shift_up",), "checker", "the first departure is overwritten by later steps"),
    # ------------------------------------------------------------ Hyena interpreter
    M("hy-proj-reads-z", HYE, "gate = symbolic.apply_layer(layer.projection_layer(), u0)",
      "gate = symbolic.apply_layer(layer.projection_layer(), z)",
      ("BaseConv -> Hyena",), "interpreter", "Hyena projections read the previous state instead of the input"),
    M("hy-conv-b2", HYE, "h=self.h, b1=[[1]], b2=[[0]],", "h=self.h, b1=[[1]], b2=[[1]],",
      ("BaseConv -> Hyena",), "bias", "a bias 1 inside every Hyena convolution"),
    M("hy-proj-b2", HYE, "b1=self.b, b2=[[1]],", "b1=self.b, b2=[[2]],",
      ("Hyena -> BaseConv",), "bias", "every Hyena gate doubled"),
    M("hy-hadamard", HYE, "tuple(x * y for x, y in zip(ca, cb))", "tuple(x + y for x, y in zip(ca, cb))",
      ("Hyena -> BaseConv",), "interpreter", "gate and convolution added instead of multiplied"),
    # ------------------------------------------------------------ Lemma H.7 primitives; instantiating the block algebra
    M("prim-had-tap", PRIM, "return PLayer(X**0, psym(\"c\", N), conv=conv, label=\"c ⊙ u\")",
      "return PLayer(X**1, psym(\"c\", N), conv=conv, label=\"c ⊙ u\")",
      ("hadamard",), "tap", "hadamard filter e_1 instead of e_0"),
    M("prim-id-sign", PRIM, "return PLayer(X**0, 1, conv=conv, label=\"identity\")",
      "return PLayer(X**0, -1, conv=conv, label=\"identity\")",
      ("identity",), "sign", "identity gate -1"),
    M("prim-lin-bias-swap", PRIM, "return PLayer(0, 0, 1, W=\"W\", label=\"u·W\")",
      "return PLayer(0, 1, 0, W=\"W\", label=\"u·W\")",
      ("linear",), "bias-swap", "linear: b1 and b2 swapped"),
    M("prim-lin-b1", PRIM, "return PLayer(0, 0, 1, W=\"W\", label=\"u·W\")",
      "return PLayer(0, 1, 1, W=\"W\", label=\"u·W\")",
      ("linear",), "bias", "linear computes u·W + 1"),
    M("pc-filter-offset", "symconv/parametric/check.py", "entries[(k, j)] = entries.get((k, j), 0) + c",
      "entries[(k + 1, j)] = entries.get((k + 1, j), 0) + c",
      ("remember",), "tap", "instantiating a filter with a named block puts its constant taps one row late"),
    M("pc-const-taps", "symconv/parametric/check.py", "entries[k] = entries.get(k, 0) + t.coef",
      "entries[k + 1] = entries.get(k + 1, 0) + t.coef",
      ("add_n",), "tap", "instantiating a constant filter puts each tap one row late"),
    M("pc-const-col", "symconv/parametric/check.py", "out[a:a + n, 0] = out[a:a + n, 0] + c",
      "out[a:a + n - 1, 0] = out[a:a + n - 1, 0] + c",
      ("add_n",), "mask", "instantiating a constant mask makes every run one row short"),
    M("pc-const-sign", "symconv/parametric/check.py", "                    v = c\n", "                    v = -c\n",
      ("add_n",), "sign", "instantiating a column negates its constant runs (gates and claimed states alike)"),
    # ------------------------------------------------------------ Prop. H.8 shifts
    M("sh-down-tap", SHI, "return PLayer(X**s, 1, label=\"e_s * y\")", "return PLayer(X**(s + 1), 1, label=\"e_s * y\")",
      ("shift_down",), "tap", "shift_down by s + 1"),
    M("sh-up-offset", SHI, "return PLayer(X**(N - s), pones(N - s) | pzeros(s),",
      "return PLayer(X**(N - s + 1), pones(N - s) | pzeros(s),",
      ("shift_up",), "offset", "corrected shift_up rotates by one row less"),
    M("sh-up-mask", SHI, "pones(N - s) | pzeros(s), conv=\"circular\"", "pones(N - s - 1) | pzeros(s + 1), conv=\"circular\"",
      ("shift_up",), "mask", "corrected shift_up masks one row too many"),
    M("sh-up-mode", SHI, "pzeros(s), conv=\"circular\", label=", "pzeros(s), conv=\"causal\", label=",
      ("shift_up",), "mode", "corrected shift_up made causal"),
    M("sh-printed-drop", PRINTED, ",\n              RLayer((Term(0),), one, conv=circ, index=3, label=\"Y2 = Y1 ⊛ e_0\"))",
      ")", ("shift_up",), "layer-drop", "printed shift_up without its last layer"),
    M("sh-printed-mode", PRINTED, "RLayer((Term(0),), one, conv=circ, index=1, label=\"Y0 = y ⊛ e_0\")",
      "RLayer((Term(0),), one, conv=\"causal\", index=1, label=\"Y0 = y ⊛ e_0\")",
      ("shift_up",), "mode", "the printed first ⊛ e_0 layer always causal",
      equivalent="a convolution with e_0 is the identity in either mode, so both printed variants compute the "
                 "same states, and the displayed call (built separately) is unchanged"),
    M("sh-printed-tap", PRINTED, "RLayer((Term(s),), one, conv=\"causal\", index=2,",
      "RLayer((Term(s + 1),), one, conv=\"causal\", index=2,",
      ("shift_up",), "tap", "printed shift_down step by s + 1"),
    M("sh-check-shift", SHI, "if s >= N:", "if s > N:",
      ("H.8",), "hypothesis", "shifts accept s = N",
      equivalent="the claims' hypothesis 0 <= s < N never builds a shift with s = N"),
    # ------------------------------------------------------------ Prop. H.9 add_n
    M("sum-h1-tap", PRINTED, "RLayer((Term(0), Term(n)), b11, index=1,", "RLayer((Term(0), Term(n + 1)), b11, index=1,",
      ("add_n",), "tap", "h¹ = X^{n+1} + 1"),
    M("sum-h1-sign", PRINTED, "RLayer((Term(0), Term(n)), b11, index=1,", "RLayer((Term(0, -1), Term(n)), b11, index=1,",
      ("add_n",), "sign", "h¹ = X^n − 1"),
    M("sum-mask1", PRINTED, "b11 = Col((Blk(\"0\", n), Blk(\"1\", n)), \"b¹₁\")",
      "b11 = Col((Blk(\"0\", n), Blk(\"1\", n - 1)), \"b¹₁\")",
      ("add_n",), "mask", "b¹₁ one row short"),
    M("sum-b21", PRINTED, "b21 = Col((Blk(\"1\", n), Blk(\"1\", n)), \"b²₁\")",
      "b21 = Col((Blk(\"0\", 1), Blk(\"1\", n - 1), Blk(\"1\", n)), \"b²₁\")",
      ("add_n",), "mask", "b²₁ starts one row late"),
    M("sum-b22", PRINTED, "b22 = Col((Blk(\"1\", n),), \"b²₂\")", "b22 = Col((Blk(\"1\", n - 1),), \"b²₂\")",
      ("add_n",), "mask", "b²₂ one row short"),
    M("sum-bias-swap", PRINTED, "RLayer((Term(0),), b21, second, index=2,", "RLayer((Term(0),), second, b21, index=2,",
      ("add_n",), "bias-swap", "layer 2: b²₁ and b²₂ swapped"),
    M("sum-drop", PRINTED, "return Route(f\"H.9 add_n ({call} call)\", y, layers, out,",
      "return Route(f\"H.9 add_n ({call} call)\", y, layers[:1], out,",
      ("add_n",), "layer-drop", "add_n without layer 2"),
    M("sum-literal", PRINTED, "second = b21 if call == \"printed\" else b22", "second = b21 if call != \"printed\" else b22",
      ("add_n",), "bias-swap", "the printed call and the layer parameters trade places"),
    M("sum-z1-step", PRINTED, "z1 = pzeros(n) | S + x | rest", "z1 = pzeros(n) | S + S | rest",
      ("add_n",), "step", "claimed z¹ with S + S"),
    # ------------------------------------------------------------ Prop. H.10 remember
    M("rem-c", REM, "return (2 * n + s + m - 1, 2 * n + 2 * s)", "return (2 * n + s + m - 2, 2 * n + 2 * s)",
      ("remember",), "offset", "the copy of v one row too high for s <= m - 1 (overlaps h ∗ v)"),
    M("rem-z1-step", "symconv/parametric/remember.py", "z1 = phx | pzeros(c - n - s) | v | pzeros(M - c - m)",
      "z1 = phx | pzeros(c - n - s + 1) | v | pzeros(M - c - m - 1)",
      ("remember (N' = N)",), "step", "claimed z¹ with v one row late"),
    M("rem-required", REM, "return tuple(c + m for c in copy_rows(n, m, s))",
      "return tuple(c + m - 1 for c in copy_rows(n, m, s))",
      ("remember (N' = N)",), "hypothesis", "the size condition (length_bounds, the one source) one too small"),
    M("rem-g1-tap", REM, "PLayer(fblock(\"h\", n) + X**k,", "PLayer(fblock(\"h\", n) + X**(k + 1),",
      ("remember",), "tap", "layer 1 copies v with X^{k+1}"),
    M("rem-b1-mask", REM, "pzeros(c - n - s) | pones(m) | pzeros(M - c - m)",
      "pzeros(c - n - s + 1) | pones(m) | pzeros(M - c - m - 1)",
      ("remember",), "mask", "layer 1 keeps the copy of v one row late"),
    M("rem-r", REM, "layer2 = PLayer(1 + X**(M - k),", "layer2 = PLayer(1 + X**(M - k + 1),",
      ("remember",), "offset", "layer 2 brings the copy back one row short"),
    M("rem-b2-mask", REM, "pones(n + s + m) | pzeros(M - n - s - m), conv=\"circular\"",
      "pones(n + s + m - 1) | pzeros(M - n - s - m + 1), conv=\"circular\"",
      ("remember",), "mask", "layer 2 mask one row short"),
    M("rem-l2-mode", REM, "pzeros(M - n - s - m), conv=\"circular\",", "pzeros(M - n - s - m), conv=\"causal\",",
      ("remember",), "mode", "layer 2 causal: the copy cannot come back up"),
    M("rem-printed-far", PRINTED, "far, a = n + m + s + t, 2 * n + s + m + t", "far, a = n + m + s + t + 1, 2 * n + s + m + t",
      ("remember (printed blocks fit)",), "tap", "printed h¹, h² with X^{n+m+s+t+1}"),
    M("rem-printed-b11", PRINTED, "Blk(\"0\", s), Blk(\"1\", m)), \"b¹₁\")", "Blk(\"0\", s + 1), Blk(\"1\", m)), \"b¹₁\")",
      ("remember (printed blocks fit)",), "mask", "printed b¹₁ keeps v one row late"),
    M("rem-printed-b21", PRINTED, "Blk(\"0\", n), Blk(\"1\", n + s), Blk(\"1\", m)), \"b²₁\")",
      "Blk(\"0\", n - 1), Blk(\"1\", n + s), Blk(\"1\", m)), \"b²₁\")",
      ("remember (printed blocks fit)",), "mask", "printed b²₁ one row early (z² already fails)"),
    M("rem-printed-shift", PRINTED, "far, a = n + m + s + t, 2 * n + s + m + t",
      "far, a = n + m + s + t, 2 * n + s + m + t + 1",
      ("remember (printed blocks fit)",), "offset", "the printed shift_up amount + 1"),
    M("rem-printed-drop", PRINTED, "(l1, l2) + tail, out, steps, hyp, N,", "(l1,) + tail, out, steps, hyp, N,",
      ("remember (printed blocks fit)",), "layer-drop", "printed remember without layer 2"),
    # ------------------------------------------------------------ Prop. H.12 constructions
    M("hc-prep-tap", HYC, "return PLayer(1 + X**N, pones(2 * N) | pzeros(M - 2 * N), label=\"prep",
      "return PLayer(1 + X**(N + 1), pones(2 * N) | pzeros(M - 2 * N), label=\"prep",
      ("Hyena -> BaseConv",), "tap", "prep layer copies u one row late"),
    M("hc-prep-mask", HYC, "pones(2 * N) | pzeros(M - 2 * N), label=\"prep",
      "pones(2 * N - 1) | pzeros(M - 2 * N + 1), label=\"prep",
      ("Hyena -> BaseConv",), "mask", "prep mask one row short"),
    M("hc-conv-sign", HYC, "PLayer(1 + fblock(f\"h{ell}\", N, 2 * N),", "PLayer(-1 + fblock(f\"h{ell}\", N, 2 * N),",
      ("Hyena -> BaseConv",), "sign", "conv layer carries -u"),
    M("hc-conv-mask", HYC, "pzeros(N) | pones(2 * N) | pzeros(M - 3 * N),", "pzeros(N + 1) | pones(2 * N - 1) | pzeros(M - 3 * N),",
      ("Hyena -> BaseConv",), "mask", "conv layer mask one row short"),
    M("hc-gate-b1", HYC, "pones(N) | psym(f\"b{ell}\", N) | pzeros(M - 2 * N), conv=\"circular\"",
      "pzeros(N) | psym(f\"b{ell}\", N) | pzeros(M - 2 * N), conv=\"circular\"",
      ("Hyena -> BaseConv",), "bias", "gate layer drops u from slot A"),
    M("hc-gate-W", HYC, "values[f\"W{ell}\"] = layer.W", "values[f\"W{ell}\"] = layer.W.T",
      ("Hyena -> BaseConv",), "param", "gate layer instantiated with W transposed"),
    M("hc-up", HYC, "return PLayer(X**(M - N), pones(N) | psym(", "return PLayer(X**(M - N - 1), pones(N) | psym(",
      ("Hyena -> BaseConv",), "offset", "gate layer rolls up by N - 1 rows"),
    M("hc-swap", HYC, "PLayer(X**N + X**(M - N), pones(2 * N)", "PLayer(X**N + X**(M - N + 1), pones(2 * N)",
      ("Hyena -> BaseConv",), "offset", "swap layer one row off"),
    M("hc-drop-readout", HYC, "    return tuple(layers + [readout_player(N, M)])", "    return tuple(layers)",
      ("Hyena -> BaseConv",), "layer-drop", "no read-out layer"),
    M("hc-h2b-bias", HYC, "hl = HyenaLayer(W=l.W, b=l.b1, h=l.h,", "hl = HyenaLayer(W=l.W, b=l.b2, h=l.h,",
      ("BaseConv -> Hyena",), "bias-swap", "Hyena projection takes b2 for b1"),
    M("hc-printed-gap", HYC, "layers = [prep_layer(N, M, d, gap=Np)]", "layers = [prep_layer(N, M, d, gap=Np - 1)]",
      ("Hyena -> BaseConv (printed route)",), "offset", "printed prep copies u one row early"),
    # ------------------------------------------------------------ Prop. H.15 / Lemma H.16 butterflies
    M("bf-apply", BUT, "y_top = D[:, 0] * top + D[:, 1] * bot", "y_top = D[:, 0] * top - D[:, 1] * bot",
      ("butterfly_factor_matrix",), "sign", "the reference product B·x subtracts D2"),
    M("bf-to-matrix", BUT, "M[o + r, o + s + r] = self.D[b, 1, r]", "M[o + r, o + s + r] = self.D[b, 2, r]",
      ("butterfly_factor_decomposition",), "bias-swap", "to_matrix puts D3 where D2 belongs"),
    M("bf-d-plus", BUT, "return self._vec(None, 1)", "return self._vec(1, None)",
      ("butterfly_factor_matrix",), "param", "d⁺ = (D2, 0) instead of (0, D2)"),
    M("bf-shift-down", BUT, "h[m, D:2 * D] = 1", "h[m + 1, D:2 * D] = 1",
      ("butterfly_factor_matrix",), "tap", "block 2 shifted down by m + 1"),
    M("bf-shift-up", BUT, "h[N_int - m, 2 * D:] = 1", "h[N_int - m - 1, 2 * D:] = 1",
      ("butterfly_factor_matrix",), "tap", "block 3 shifted up by m + 1"),
    M("bf-channel-swap", BUT, "W = _sum_W(D, [(0, j), (1, j ^ s)], symbolic, sources)",
      "W = _sum_W(D, [(0, j), (1, j)], symbolic, sources)",
      ("butterfly_factor_matrix",), "param", "k <= d: partner channel not swapped"),
    M("bf-sum-sources", BUT, "W = _sum_W(D, [(0, np.arange(D))], symbolic)",
      "W = _sum_W(D, [(0, np.arange(D))], symbolic, (0, 1))",
      ("butterfly_factor_matrix",), "mask", "the sum layer forgets block 3"),
    M("bf-drop-sum", BUT, "    if final_sum:\n        layers.append(sum_layer(D, symbolic))",
      "    if final_sum and False:\n        layers.append(sum_layer(D, symbolic))",
      ("butterfly_matrix",), "layer-drop", "no final sum layer"),
    M("bf-shift-matrix", BUT, "S[i, i - j] = 1", "S[i - j, i] = 1",
      ("equation 5",), "param", "S^j moves entries up instead of down"),
    M("bf-corrected-h15", BUT, "S.T.dot(diag_matrix(F.d_plus))", "S.dot(diag_matrix(F.d_plus))",
      ("butterfly_factor_decomposition",), "param", "corrected H.15 with (S^{k/2}) D₂ instead of its transpose"),
    M("kal-apply", KAL, "        for t in self.terms:\n            z = t.apply(z)",
      "        for t in self.terms[:1]:\n            z = t.apply(z)",
      ("H.18",), "expected", "the reference product drops every term but the first"),
    M("kal-N-int", KAL, "N_int=K.e * n, D=d,", "N_int=K.e * n + 1, D=d,",
      ("H.18",), "offset", "one more internal row than the butterflies are laid out on"),
    # ------------------------------------------------------------ Cor. H.20 linear circuits
    M("benes-switch", BEN, "np.stack([s, c, c, s], axis=1)", "np.stack([c, s, s, c], axis=1)",
      ("linear circuit: permutation",), "bias-swap", "Beneš switches straight and crossed swapped"),
    M("lc-fan-out", LIN, "factors.append(const_factor(P << t, (1, 0, 1, 0)))",
      "factors.append(const_factor(P << t, (1, 0, 0, 0)))",
      ("linear circuit: prefix sums",), "mask", "fan-out does not copy slot 0"),
    M("lc-fan-in", LIN, "factors.append(const_factor(P << t, (1, 1, 0, 0)))",
      "factors.append(const_factor(P << t, (1, 0, 0, 0)))",
      ("linear circuit: prefix sums",), "mask", "fan-in does not add the other slots"),
    # ------------------------------------------------------------ Thm H.21 circuits and compiler
    M("circ-eval-mul", CIR, "v = vals[g.args[0]] * vals[g.args[1]]", "v = vals[g.args[0]] * vals[g.args[0]]",
      ("x·y",), "expected", "the reference evaluator squares the first factor"),
    M("circ-eval-lin", CIR, "v = v + conv(c) * vals[a]", "v = v - conv(c) * vals[a]",
      ("Horner",), "sign", "the reference evaluator subtracts linear terms"),
    M("ar-mul-tap", ARI, "    h[T] = 1\n", "    h[T - 1] = 1\n",
      ("x·y",), "tap", "multiplication gadget reads v2 one row off"),
    M("ar-mul-keep", ARI, "b2[a:a + r, 0] = 1", "b2[a:a + r - 1, 0] = 1",
      ("mult layer",), "mask", "multiplication layer drops the last carried wire"),
    M("ar-mix-partner", ARI, "        W[p, c] = 1\n", "        W[c, p] = 1\n",
      ("x·y",), "bias-swap", "channel-mix layer reads the host channel into the partner (x·y with d = 2 gives 0)"),
    M("ar-up-tap", ARI, "    h = np.zeros((R.N_int - T + 1, R.d), dtype=np.int8)\n    h[-1] = 1  # the tap N' − T, i.e.",
      "    h = np.zeros((R.N_int - T + 2, R.d), dtype=np.int8)\n    h[-1] = 1  # the tap N' − T, i.e.",
      ("random",), "tap", "gapped multiplication layer reads v2 one row off (tap −T + 1)"),
    M("ar-in-place-up", ARI, "        h = np.zeros((R.N_int - T + 1, R.d), dtype=np.int8)\n        R.max_shift",
      "        h = np.zeros((R.N_int - T, R.d), dtype=np.int8)\n        R.max_shift",
      ("product",), "tap", "in-place multiplication onto the upper operand reads one row too far (tap −T − 1)"),
    M("ar-spread-sign", ARI, "    W[:, 0] = 1\n", "    W[:, 0] = -1\n",
      ("det3",), "sign", "inputs negated when spread to channel 0 (a product of an odd number of them changes sign)"),
    M("ar-stage-tap", ARI, "taps = {k % N_int: 1 for k, _ in terms}", "taps = {(k + 1) % N_int: 1 for k, _ in terms}",
      ("x·y",), "tap", "every routing stage shifts one row further"),
    M("ar-add-const", ARI, "b2[:self.K] = C", "b2[:self.K] = -C",
      ("Horner",), "sign", "constants added with the wrong sign"),
    M("ar-gather", ARI, "b2[k, k % d] = 1", "b2[k, (k + 1) % d] = 1",
      ("product",), "mask", "outputs gathered into the wrong channel"),
    # ------------------------------------------------------------ Cor. H.22 RetNet
    M("rn-scan-gamma", RET, "g = gamma ** s", "g = gamma ** (s + 1)",
      ("RetNet",), "param", "scan form decays by γ^{s+1}"),
    M("rn-rec-sign", RET, "b.linear({z[-1][k][j]: gamma, P[n][k][j]: 1})", "b.linear({z[-1][k][j]: gamma, P[n][k][j]: -1})",
      ("RetNet",), "sign", "recurrence form subtracts P_n"),
    M("rn-recurrence", RET, "z = gamma * z + A[n, :].T * V[n, :]", "z = gamma * z + A[n, :].T * C[n, :]",
      ("RetNet",), "expected", "equation 6 (the reference) uses C for V"),
    M("rn-unrolled", RET, "S += gamma ** (n - i) * U[i, :].T * U[i, :]", "S += gamma ** (n - i + 1) * U[i, :].T * U[i, :]",
      ("eq. 7",), "expected", "equation 7 with γ^{n-i+1}"),
    M("rn-printed-line", RET, "\"z1 line 3\": A_.T * (gamma * (c(0) * r(0)) + c(1) * r(1)) * V_,",
      "\"z1 line 3\": A_.T * (gamma * (c(0) * r(1)) + c(1) * r(1)) * V_,",
      ("eq. 7",), "step", "the printed z1 line 3 read with the wrong index"),
    # ------------------------------------------------------------ the all-sizes block algebra
    M("pa-causal-lo", ALG,
      "            out.append(Piece(p.start, N - p.start, p.coef, p.atom, p.lo))\n        else:\n"
      "            raise _straddle(p, N, facts)\n    return PSeq(N, tuple(out))\n\n\ndef circular",
      "            out.append(Piece(p.start, N - p.start, p.coef, p.atom, p.lo + 1))\n        else:\n"
      "            raise _straddle(p, N, facts)\n    return PSeq(N, tuple(out))\n\n\ndef circular",
      ("shift_down",), "offset", "causal truncation reads the block one row late"),
    M("pa-circ-fold", ALG, "again.append(p.moved(-N))", "again.append(p.moved(-N + 1))",
      ("remember",), "offset", "circular fold of a block wholly past N' lands one row low"),
    M("pa-circ-split", ALG, "again.append(Piece(Lin(), p.end - N, p.coef, p.atom, p.lo + N - p.start))",
      "again.append(Piece(Lin(), p.end - N, p.coef, p.atom, p.lo + N - p.start + 1))",
      ("shift_up",), "offset", "the wrapped part of a straddling block read one row late"),
    M("pa-mult-coef", ALG, "out.append(Piece(p.start + t.offset, p.length, p.coef * t.coef, p.atom, p.lo))",
      "out.append(Piece(p.start + t.offset, p.length, -p.coef * t.coef, p.atom, p.lo))",
      ("add_n",), "sign", "block algebra: filter terms negated"),
    M("pa-had-coef", ALG, "                if a1 is None:\n                    terms.append((a2, s2, c1 * c2))",
      "                if a1 is None:\n                    terms.append((a2, s2, -c1 * c2))",
      ("add_n",), "sign", "block algebra: constant ⊙ block negated"),
    M("pa-mult-block", ALG, "out.append(Piece(p.start + t.offset, a.length, p.coef * t.coef, a, Lin()))",
      "out.append(Piece(p.start + t.offset + 1, a.length, p.coef * t.coef, a, Lin()))",
      ("remember",), "offset", "block algebra: a filter block's product placed one row late"),
    # ------------------------------------------------------------ proofs: Lemma H.7
    M("p07-expected", "proofs/h07_hadamard.py", "return Description(u, (hadamard_layer(z[\"N\"]),), phad(c, u))",
      "return Description(u, (hadamard_layer(z[\"N\"]),), phad(c, c))",
      ("hadamard",), "expected", "claimed c ⊙ c"),
    M("p07-sizes", "proofs/h07_hadamard.py", "SIZES = (SizeParam(\"N\", 1), SizeParam(\"d\", 1, 2))",
      "SIZES = (SizeParam(\"N\", 1), SizeParam(\"d\", 1, 1))",
      ("H.7",), "hypothesis", "d swept up to 1 only"),
    M("p07-linear", "proofs/h07_hadamard.py", "return Description(u, (linear_layer(),), pmatmul(u, \"W\"))",
      "return Description(u, (linear_layer(),), pmatmul(u, \"V\"))",
      ("linear",), "expected", "claimed u·V for another matrix V"),
    # ------------------------------------------------------------ proofs: Prop. H.8
    M("p08-hyp", SHI, "return Hypothesis(lin(s) < lin(N))", "return Hypothesis(lin(s) < lin(N) - 1)",
      ("shift_down",), "hypothesis", "s < N narrowed to s < N - 1"),
    M("p08-Y0", "proofs/h08_shift.py", "Y0 = reverse(y)", "Y0 = y",
      ("shift_up",), "step", "claimed Y0 = y (no reversal)"),
    M("p08-Y1-layer", "proofs/h08_shift.py", "Step(\"Y1 ≡ shift_down(Y0, s)\", 2, Y1_call)",
      "Step(\"Y1 ≡ shift_down(Y0, s)\", 3, Y1_call)",
      ("shift_up",), "step", "the displayed call Y1 claimed after layer 3"),
    M("p08-down-expected", "proofs/h08_shift.py", "pzeros(z[\"s\"]) | y.rows(0, z[\"N\"] - z[\"s\"]))",
      "pzeros(z[\"s\"]) | y.rows(z[\"s\"], z[\"N\"]))",
      ("shift_down",), "expected", "claimed shift_down output (0^s | y[s:N])"),
    M("p08-count", "proofs/h08_shift.py", "Step(\"shift_up in three layers\", 3, kind=\"count\", count=3)",
      "Step(\"shift_up in three layers\", 3, kind=\"count\", count=2)",
      ("shift_up",), "step", "the printed layer count claimed as two"),
    M("p08-Y1-formula", "proofs/h08_shift.py", "Y1_formula = zeros(k, dd) | rows(reverse(Y0), 0, n - k)",
      "Y1_formula = zeros(k, dd) | rows(Y0, 0, n - k)",
      ("shift_up",), "step", "the printed Y1 formula read without its reversal (then it is the call)"),
    # ------------------------------------------------------------ proofs: Prop. H.9
    M("p09-hyp", SUM, "return Hypothesis(2 * lin(n) <= lin(N), why=", "return Hypothesis(2 * lin(n) < lin(N), why=",
      ("add_n",), "hypothesis", "2n <= N narrowed to 2n < N"),
    M("p09-z1", "symconv/parametric/printed.py", "z1 = pzeros(n) | S + x | rest", "z1 = pzeros(n) | S + S | rest",
      ("add_n",), "step", "claimed z¹ with S + S (the printed route's claimed state, one source)"),
    M("p09-product", "proofs/h09_add.py", "prod1 = x | (S + x) | S", "prod1 = x | (S + x) | x",
      ("add_n",), "step", "the displayed product h¹(X)·y(X) with x X^{2n} for S X^{2n}"),
    M("p09-count", "proofs/h09_add.py", "Step(\"two BaseConv layers\", 2, kind=\"count\", count=2)",
      "Step(\"two BaseConv layers\", 2, kind=\"count\", count=3)",
      ("add_n",), "step", "the layer count claimed as three"),
    M("p09-call", "proofs/h09_add.py", "mask(N, (0, 2 * n)), mask(N, (0, 2 * n)), d=d)",
      "mask(N, (0, 2 * n)), mask(N, (0, n)), d=d)",
      ("add_n",), "bias", "the printed call built with b²₂ (then it holds, though recorded failing)"),
    # ------------------------------------------------------------ proofs: Prop. H.10
    M("p10-paper-hyp", REM, "return (Hypothesis(n + m + s + t <= N), Hypothesis(",
      "return (Hypothesis(n + m + s + t < N), Hypothesis(",
      ("remember",), "hypothesis", "n + m + s + t <= N narrowed to < (the issue's example)"),
    M("p10-z1", "proofs/h10_remember.py", "z1 = placed(N, d, (0, phx), (2 * n + 2 * s + m + t, v))",
      "z1 = placed(N, d, (0, phx), (2 * n + 2 * s + m + t + 1, v))",
      ("remember (printed blocks fit)",), "step", "claimed z¹ with v one row late"),
    M("p10-corr-c", "proofs/h10_remember.py",
      "conv2 = placed(N, d, (0, phx), (2 * n + s + m + t, phx), (3 * n + 2 * s + m + t, v))",
      "conv2 = placed(N, d, (0, phx), (far, phx), (2 * n + 2 * s + m + t, v), (3 * n + 3 * s + 2 * m + 2 * t, v))",
      ("remember (printed blocks fit)",), "step",
      "the display of h² * z¹ replaced by the true product (recorded as failing, it now holds)"),
    M("p10-fits", REM, "    return Hypothesis(lin(N) >= a, lin(N) >= b, why=",
      "    return Hypothesis(lin(N) >= a + 1, lin(N) >= b, why=",
      ("remember (N' = N)",), "hypothesis", "N >= 2n+s+2m-1 narrowed to N >= 2n+s+2m"),
    M("p10-gated", "proofs/h10_remember.py", "for k in range(n) if 0 <= i - k < n)", "for k in range(n) if 0 < i - k < n)",
      ("remember (printed blocks fit)",), "expected", "claimed h ∗ x drops x[0]"),
    # ------------------------------------------------------------ proofs: Lemma H.11
    M("p11-seed", "proofs/h11_stack.py", "seed = N + 10 * Np + 100 * dp", "seed = N + 10 * Np + 100 * dp + 7",
      ("H.11",), "param", "other random models f, g",
      equivalent="another draw of the random one-layer models: the claim is about every f, g, and the failing "
                 "variants fail for generic ones"),
    M("p11-same-width", "proofs/h11_stack.py", "SAME_WIDTH = Hypothesis(eq(dp, d))", "SAME_WIDTH = Hypothesis(dp <= d)",
      ("H.11",), "hypothesis", "d' = d written as d' <= d",
      equivalent="the claim's hypothesis d <= d' makes d' <= d the same as d' = d"),
    M("p11-expected", "proofs/h11_stack.py", "expected = evaluate(g, evaluate(f, u))",
      "expected = evaluate(f, evaluate(g, u))",
      ("H.11",), "expected", "claimed f(g(u))"),
    M("p11-hyp", "proofs/h11_stack.py", "HYPOTHESES = (Hypothesis(N <= Np), Hypothesis(d <= dp))",
      "HYPOTHESES = (Hypothesis(N < Np), Hypothesis(d <= dp))",
      ("H.11",), "hypothesis", "N <= N' narrowed to N < N'"),
    # ------------------------------------------------------------ proofs: Prop. H.12
    M("p12-wide", "proofs/h12_hyena.py", "WIDE = Hypothesis(Np >= 2 * N, why=", "WIDE = Hypothesis(Np > 2 * N, why=",
      ("Hyena -> BaseConv",), "hypothesis", "N' >= 2N narrowed to N' > 2N"),
    M("p12-step-layer", "proofs/h12_hyena.py", "Step(\"z^ℓ: (u | z^ℓ_Hyena | 0)\", 3 * l,",
      "Step(\"z^ℓ: (u | z^ℓ_Hyena | 0)\", 3 * l - 1,",
      ("Hyena -> BaseConv",), "step", "z^ℓ claimed one layer early"),
    M("p12-printed-prep", "proofs/h12_hyena.py", "steps = [Step(\"u_BC = (u | 0^{N'-N} | u)\", 1, slots(2 * N, d, (0, u), (N, u)))]",
      "steps = [Step(\"u_BC = (u | 0^{N'-N} | u)\", 1, slots(2 * N, d, (0, u)))]",
      ("Hyena -> BaseConv (printed route)",), "step", "claimed u_BC without its second copy of u"),
    M("p12-b2", "proofs/h12_hyena.py", "b2=sym(f\"e{l}\", N, d).entries if with_b2 else [[0]]",
      "b2=sym(f\"e{l}\", N, d).entries if with_b2 else [[1]]",
      ("BaseConv -> Hyena",), "bias", "the b2 = 0 variant gets b2 = 1"),
    M("p12-small", "proofs/h12_hyena.py", "CAPS = (Cap((\"N\", \"L\"), 4), Cap((\"d\", \"L\"), 4))",
      "CAPS = (Cap((\"N\", \"L\"), 3), Cap((\"d\", \"L\"), 4))",
      ("BaseConv -> Hyena",), "hypothesis", "sweep cap N·L <= 4 lowered to 3"),
    # ------------------------------------------------------------ proofs: Prop. H.15, Lemma H.16, H.18
    M("p15-block", "proofs/h15_butterfly_factor.py", "\"D3\": (1, 0, 2)", "\"D3\": (1, 0, 1)",
      ("equation 5",), "expected", "claimed quadrant D3 filled with D2"),
    M("p15-n-eq-k", "proofs/h15_butterfly_factor.py", "N_EQ_K = Hypothesis(eq(n, k))",
      "N_EQ_K = Hypothesis(eq(n, k), n <= 4)",
      ("equation 5",), "hypothesis", "n = k narrowed to n = k <= 4"),
    M("p15-direction", "proofs/h15_butterfly_factor.py", "S = S if direction == \"down\" else S.T",
      "S = S.T if direction == \"down\" else S",
      ("equation 5",), "param", "equation 5 with the two directions of S swapped"),
    M("p16-step-down", "proofs/h16_butterfly.py", "down = np.concatenate([zero[:m], y2[:n - m]], axis=0)",
      "down = np.concatenate([y2[m:], zero[:m]], axis=0)",
      ("butterfly_factor_matrix",), "step", "claimed state: block 2 shifted up"),
    M("p16-hyp-k", "proofs/h16_butterfly.py", "Hypothesis(pow2(k), k >= 2, at_most_product(k, n, d))",
      "Hypothesis(pow2(k), k >= 4, at_most_product(k, n, d))",
      ("butterfly_factor_matrix",), "hypothesis", "k >= 2 narrowed to k >= 4"),
    M("p16-step-partner", "proofs/h16_butterfly.py", "grid(F.partner * swapped)", "grid(F.partner * x)",
      ("butterfly_factor_matrix",), "step", "claimed state: partner term without the swap"),
    M("p18-sweep", "proofs/h18_kaleidoscope.py", "CAPS = (Cap((\"w\", \"e\", \"n\", \"d\"), 8),)",
      "CAPS = (Cap((\"w\", \"e\", \"n\", \"d\"), 4),)",
      ("H.18",), "hypothesis", "sweep cap w·e·n·d <= 8 lowered to 4"),
    # ------------------------------------------------------------ proofs: Cor. H.20, Thm H.21, Cor. H.22
    M("p20-rng", "proofs/h20_linear_circuits.py", "np.random.default_rng(z[\"n\"] * 10 + z[\"d\"])",
      "np.random.default_rng(z[\"n\"] * 10 + z[\"d\"] + 1)",
      ("linear circuit: sparse random",), "param", "other random circuits",
      equivalent="another draw of the random circuits; the claim is about every circuit"),
    M("p20-route", "proofs/h20_linear_circuits.py", "Variant(\"levels route\", build(name, \"levels\"),",
      "Variant(\"levels route\", build(name, \"matrix\"),",
      ("linear circuit: prefix sums",), "param", "the 'levels route' variant builds the matrix route"),
    M("p21-mult", "proofs/h21_arithmetic_circuits.py", "return Instance(y, cc.stack, (v1 * v2) | v3 | zeros(N - m - r))",
      "return Instance(y, cc.stack, (v2 * v2) | v3 | zeros(N - m - r))",
      ("mult layer",), "expected", "claimed v2 ⊙ v2"),
    M("p21-h20-where", "proofs/h21_arithmetic_circuits.py", "h20_where=Hypothesis(size(\"k\") <= 4, why=\"time\")",
      "h20_where=Hypothesis(size(\"k\") <= 2, why=\"time\")",
      ("random",), "hypothesis", "H.20 route of random circuits capped at k <= 2"),
    M("p21-divides", "proofs/h21_arithmetic_circuits.py", "(Hypothesis(divides(size(\"d\"), size(\"k\"))),)",
      "(Hypothesis(divides(size(\"d\"), size(\"k\")), size(\"k\") >= 3),)",
      ("product",), "hypothesis", "products of k <= 2 inputs left out"),
    M("p22-weights", "proofs/h22_retnet.py", "rng = np.random.default_rng(100 + d)", "rng = np.random.default_rng(101 + d)",
      ("eq. 7",), "param", "other fixed weights",
      equivalent="another draw of the fixed non-degenerate weights (diagonals non-zero); every line is an "
                 "identity or a slip for generic weights"),
    M("p22-readout", "proofs/h22_retnet.py", "rows = [list(C[n, :] * states[n]) for n in range(u.n)]",
      "rows = [list(C[n, :] * states[0]) for n in range(u.n)]",
      ("RetNet",), "expected", "claimed read-out uses z^0 at every n"),
    # ------------------------------------------------------------ constructions of issue 11
    M("rd-decay", RETD, "            h[:, k * d + j] = taps", "            h[1:, k * d + j] = taps[:-1]",
      ("RetNet direct",), "tap", "the decay filter starts one row late (γ^{t-1} at t)"),
    M("rd-readout", RETD, "                W[k * d + j, j] = 1", "                W[k * d + j, k] = 1",
      ("RetNet direct",), "param", "the read-out sums over j instead of k"),
    M("bf-narrow-mix", BUT, "        W[j ^ s, j] = 1", "        W[j ^ s, j] = -1",
      ("butterfly_factor_matrix",), "sign", "the d' = d channel factor subtracts the partner channel"),
    M("ari-inplace-tap", ARI, "    h[-1] = 1  # the tap T", "    h[0] = 1  # the tap T",
      ("product",), "tap", "the in-place multiplication of the tight layout squares each row instead"),
    M("ip-shear", "symconv/constructions/inplace.py", "        WU[lo + s, lo] = 1", "        WU[lo, lo + s] = 1",
      ("butterfly_factor_matrix",), "param", "the in-place channel factor's U shear is L (both shears equal)"),
    M("ip-tap", "symconv/constructions/inplace.py", "    h[half, :] = T_TAP", "    h[half, :] = T_TAP + 1",
      ("butterfly_matrix", "kaleidoscope"), "tap", "the half-turn circulant K's tap t differs from the one "
      "Q = K·diag(−t², 1)·K assumes"),
    M("ip-merge", "symconv/constructions/inplace.py", "        gamma = gamma * np.asarray(after, dtype=object)",
      "        gamma = gamma", ("butterfly_matrix", "kaleidoscope"), "layer-drop",
      "the next factor's diag(α) is not merged into the last layer (dropped)"),
    M("ipe-zero-row", "symconv/constructions/inplace_every.py", "C, B, A = (c + k, 1, -k, e - 1), S, (1, -1, 1, 0)",
      "C, B, A = (c + k, 1, -k, e - 1), S, (1, 1, 1, 0)", ("kaleidoscope",), "param",
      "the split of a block whose first row is zero keeps that row (A = [[1, 1], [1, 0]])"),
    M("ip-coord", "symconv/constructions/inplace.py", "_div(c * c0, w * a)", "_div(c * c0, a)",
      ("butterfly_matrix", "kaleidoscope"), "param", "the coordinate γ of the upper index drops the 1/w"),
    M("ip-route-skew", "symconv/constructions/inplace.py", "    h[t, 1::2] = h[t, 1::2] + 1",
      "    h[t, 0::2] = h[t, 0::2] + 1", ("butterfly_factor_matrix",), "tap",
      "the exchange moves the even channels instead of the odd ones"),
    M("ip-route-swap", "symconv/constructions/inplace.py", "_X_P_INV = ((-1, 1), (2, -1))",
      "_X_P_INV = ((2, -1), (-1, 1))", ("butterfly_factor_matrix",), "param",
      "the per-row swap of the exchange is the identity on every row"),
)
