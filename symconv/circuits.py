"""Arithmetic circuits as data: gates, sizes, evaluation, and the layering of Theorem H.21.

A :class:`Circuit` has ``n_inputs`` input wires (wire k is x[k]; for a model
input u ∈ R^{n×d}, x is its row-major form) and a tuple of :class:`Gate` s in
topological order, each defining the next wire:

* ``const``: a fixed number (or a sympy expression free of the inputs, e.g. γ);
* ``linear``: Σ c_i·wire_i + c₀ (fixed coefficients, any fan-in);
* ``mul``: wire_a · wire_b.

``outputs`` lists the wires read out.  Sizes (n, s, Δ, w) as in Theorem H.21:
n inputs, s gates (constants not counted), depth Δ (most linear or mul gates
on a path from an input to an output), width w (most wires on one depth
level, the inputs being level 0, so w ≥ n).

Circuits are built by hand (:class:`CircuitBuilder`) or from sympy polynomial
expressions (:func:`from_polynomials`, which walks the expression objects;
strings are refused, never parsed).  :func:`evaluate` runs a circuit on any
values that support + and · (ints, Fractions, sympy, ring elements, numpy
arrays for a batch).

:func:`layering` splits a circuit as the proof of Theorem H.21 does: layers
that hold only linear gates and layers that hold only multiplication gates,
alternating, every wire carried forward to the layers that still need it.

>>> import sympy
>>> x, y = sympy.symbols("x y")
>>> c = from_polynomials([x * y + 2], [x, y])
>>> (c.n_inputs, c.size, c.depth), evaluate(c, [3, 4])
((2, 2, 2), [14])
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import sympy

from .model import HypothesisError

OPS = ("const", "linear", "mul")


def _coeff(v: Any, where: str) -> Any:
    """A fixed coefficient: int, Fraction, sympy number or input-free sympy expression."""
    if isinstance(v, str):
        raise HypothesisError(f"{where}: strings are not coefficients (never parsed), got {v!r}")
    if isinstance(v, bool):
        raise HypothesisError(f"{where}: booleans are not coefficients")
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, Fraction):
        return int(v) if v.denominator == 1 else v
    if isinstance(v, (float, np.floating)):
        return _coeff(Fraction(float(v)), where)
    if isinstance(v, sympy.Basic):
        if v.is_Rational:
            return int(v.p) if v.q == 1 else Fraction(int(v.p), int(v.q))
        return v
    raise HypothesisError(f"{where}: cannot use {type(v).__name__} {v!r} as a coefficient")


@dataclass(frozen=True)
class Gate:
    """One gate: ``op`` in ("const", "linear", "mul"), operand wires, coefficients.

    ``const``: value = ``c0``.  ``linear``: Σ coeffs[i]·args[i] + c0.
    ``mul``: args[0]·args[1].

    >>> Gate("mul", (0, 1)).op
    'mul'
    """

    op: str
    args: tuple = ()
    coeffs: tuple = ()
    c0: Any = 0


@dataclass(frozen=True)
class Circuit:
    """An arithmetic circuit: inputs 0..n−1, gates defining wires n, n+1, …, outputs.

    >>> b = CircuitBuilder(2)
    >>> Circuit(2, (Gate("mul", (0, 1)),), (2,)).size
    1
    """

    n_inputs: int
    gates: tuple
    outputs: tuple
    name: str = ""

    def __post_init__(self) -> None:
        n = self.n_inputs
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise HypothesisError(f"n_inputs: must be a positive integer, got {n!r}")
        object.__setattr__(self, "gates", tuple(self.gates))
        object.__setattr__(self, "outputs", tuple(int(o) for o in self.outputs))
        for k, g in enumerate(self.gates):
            wire = n + k
            if not isinstance(g, Gate) or g.op not in OPS:
                raise HypothesisError(f"gates[{k}]: expected a Gate with op in {OPS}, got {g!r}")
            for a in g.args:
                if not isinstance(a, (int, np.integer)) or not 0 <= a < wire:
                    raise HypothesisError(
                        f"gates[{k}].args: operand {a!r} is not an earlier wire (wires 0..{wire - 1}); "
                        "gates must be in topological order"
                    )
            if g.op == "mul" and len(g.args) != 2:
                raise HypothesisError(f"gates[{k}]: a mul gate has exactly two operands, got {len(g.args)}")
            if g.op == "linear" and len(g.coeffs) != len(g.args):
                raise HypothesisError(f"gates[{k}].coeffs: {len(g.coeffs)} coefficients for {len(g.args)} operands")
            if g.op == "const" and g.args:
                raise HypothesisError(f"gates[{k}]: a const gate has no operands")
        if not self.outputs:
            raise HypothesisError("outputs: a circuit needs at least one output wire")
        for o in self.outputs:
            if not 0 <= o < self.n_wires:
                raise HypothesisError(f"outputs: wire {o} does not exist (wires 0..{self.n_wires - 1})")

    @property
    def n_wires(self) -> int:
        return self.n_inputs + len(self.gates)

    def gate(self, wire: int) -> Gate | None:
        """The gate defining ``wire`` (None for an input)."""
        return None if wire < self.n_inputs else self.gates[wire - self.n_inputs]

    @property
    def size(self) -> int:
        """s: the number of linear and multiplication gates."""
        return sum(g.op != "const" for g in self.gates)

    def levels(self) -> list[int]:
        """Depth level of every wire: inputs and constants 0, a gate 1 + its deepest operand."""
        lev = [0] * self.n_wires
        for k, g in enumerate(self.gates):
            if g.op != "const":
                lev[self.n_inputs + k] = 1 + max((lev[a] for a in g.args), default=0)
        return lev

    @property
    def depth(self) -> int:
        """Δ: the deepest output's level."""
        lev = self.levels()
        return max(lev[o] for o in self.outputs)

    @property
    def width(self) -> int:
        """w: the most wires (inputs included) on one depth level."""
        lev = self.levels()
        counts: dict[int, int] = {}
        for k, l in enumerate(lev):
            if k < self.n_inputs or self.gates[k - self.n_inputs].op != "const":
                counts[l] = counts.get(l, 0) + 1
        return max(counts.values())

    @property
    def level_width(self) -> int:
        """Gates per level: the most wires on one depth level (inputs at level 0); the same as :attr:`width`."""
        return self.width

    @property
    def cut_width(self) -> int:
        """Wires alive across a level: the most wires present right after some level ℓ is computed.

        Those are the wires made at level ℓ plus the wires of lower levels that a
        gate above ℓ (or the output) still reads; level 0 counts all the inputs.
        This is the proof of Theorem H.21's w′ + s (the gates of a layer plus the
        entries carried past it), so ``cut_width >= level_width``; the two differ
        when a wire skips levels (Horner: x is read at every level).
        """
        lev = self.levels()
        live = self._live()
        top = max(lev[k] for k in live) if live else 0
        last = self.last_use()
        best = self.n_inputs
        for l in range(1, top + 1):
            made = sum(1 for k in live if lev[k] == l)
            carried = sum(1 for k in live if lev[k] < l < last[k])
            best = max(best, made + carried)
        return best

    def _live(self) -> list[int]:
        """Inputs and non-constant gates (the wires a state has to hold)."""
        return [k for k in range(self.n_wires) if k < self.n_inputs or self.gates[k - self.n_inputs].op != "const"]

    def last_use(self) -> list[int]:
        """Per wire: the highest level of a gate that reads it (an output: one above the depth)."""
        lev = self.levels()
        last = [0] * self.n_wires
        for k, g in enumerate(self.gates):
            if g.op == "const":
                continue
            for a in g.args:
                last[a] = max(last[a], lev[self.n_inputs + k])
        top = max(lev) + 1
        for o in self.outputs:
            last[o] = top
        return last

    def widths(self) -> dict:
        """{"level": gates per level, "cut": wires alive across a level} (see :attr:`cut_width`).

        >>> horner_circuit([1, 2, 3]).widths()
        {'level': 1, 'cut': 2}
        """
        return {"level": self.level_width, "cut": self.cut_width}

    @property
    def mul_depth(self) -> int:
        """The most multiplication gates on one path."""
        md = [0] * self.n_wires
        for k, g in enumerate(self.gates):
            if g.args:
                md[self.n_inputs + k] = max(md[a] for a in g.args) + (g.op == "mul")
        return max(md[o] for o in self.outputs)

    def sizes(self) -> dict:
        """{"n", "s", "depth", "width", "mul_depth"} of the circuit."""
        return {"n": self.n_inputs, "s": self.size, "depth": self.depth, "width": self.width,
                "mul_depth": self.mul_depth}


class CircuitBuilder:
    """Build a :class:`Circuit` gate by gate; every method returns the new wire.

    >>> b = CircuitBuilder(2)
    >>> s = b.linear({0: 1, 1: 1})
    >>> evaluate(b.build([b.mul(s, s)]), [1, 2])
    [9]
    """

    def __init__(self, n_inputs: int, name: str = "") -> None:
        self.n_inputs = n_inputs
        self.gates: list[Gate] = []
        self.name = name
        self._consts: dict = {}

    def _add(self, g: Gate) -> int:
        self.gates.append(g)
        return self.n_inputs + len(self.gates) - 1

    def input(self, k: int) -> int:
        if not 0 <= k < self.n_inputs:
            raise HypothesisError(f"k: input {k} does not exist (0..{self.n_inputs - 1})")
        return k

    def const(self, c: Any) -> int:
        c = _coeff(c, "c")
        key = (type(c), c)
        if key not in self._consts:
            self._consts[key] = self._add(Gate("const", (), (), c))
        return self._consts[key]

    def linear(self, terms: Mapping[int, Any], c0: Any = 0) -> int:
        """Σ terms[wire]·wire + c0."""
        items = [(int(w), _coeff(c, f"terms[{w}]")) for w, c in terms.items()]
        items = [(w, c) for w, c in items if not (isinstance(c, (int, Fraction)) and c == 0)]
        return self._add(Gate("linear", tuple(w for w, _ in items), tuple(c for _, c in items),
                              _coeff(c0, "c0")))

    def add(self, *wires: int) -> int:
        terms: dict[int, Any] = {}
        for w in wires:
            terms[w] = terms.get(w, 0) + 1
        return self.linear(terms)

    def mul(self, a: int, b: int) -> int:
        return self._add(Gate("mul", (int(a), int(b))))

    def product(self, wires: Sequence[int]) -> int:
        """A balanced tree of multiplications (depth ⌈log₂ len⌉)."""
        ws = list(wires)
        if not ws:
            return self.const(1)
        while len(ws) > 1:
            nxt = [self.mul(ws[i], ws[i + 1]) for i in range(0, len(ws) - 1, 2)]
            if len(ws) % 2:
                nxt.append(ws[-1])
            ws = nxt
        return ws[0]

    def build(self, outputs: Sequence[int]) -> Circuit:
        return Circuit(self.n_inputs, tuple(self.gates), tuple(outputs), self.name)


# ---------------------------------------------------------------- from sympy expressions

def from_polynomials(exprs: Sequence[sympy.Expr], inputs: Sequence[sympy.Symbol], name: str = "") -> Circuit:
    """A circuit computing the given polynomial expressions, built from their expression trees.

    ``inputs[k]`` is input wire k.  Sums become linear gates, products balanced
    trees of multiplications (numeric factors go into a linear gate), integer
    powers repeated squaring; other symbols (e.g. γ) may appear only as
    coefficients.  Common subexpressions share wires.  Strings are refused.

    >>> import sympy
    >>> a, b = sympy.symbols("a b")
    >>> c = from_polynomials([(a + b) ** 2], [a, b])
    >>> c.sizes()["mul_depth"], evaluate(c, [1, 2])
    (1, [9])
    """
    if isinstance(exprs, (str, sympy.Basic)):
        raise HypothesisError("exprs: expected a sequence of sympy expressions")
    inputs = list(inputs)
    for s in inputs:
        if not isinstance(s, sympy.Symbol):
            raise HypothesisError(f"inputs: expected sympy Symbols, got {type(s).__name__} {s!r}")
    if len(set(inputs)) != len(inputs):
        raise HypothesisError("inputs: symbols must be distinct")
    index = {s: k for k, s in enumerate(inputs)}
    b = CircuitBuilder(len(inputs), name)
    memo: dict = {}

    def is_coeff(e: sympy.Basic) -> bool:
        return not (e.free_symbols & index.keys())

    def walk(e: Any) -> int:
        if isinstance(e, str) or not isinstance(e, sympy.Basic):
            raise HypothesisError(f"exprs: expected sympy expressions, got {type(e).__name__} {e!r} "
                                  "(strings are never parsed)")
        if e in memo:
            return memo[e]
        if e in index:
            w = index[e]
        elif is_coeff(e):
            w = b.const(e)
        elif isinstance(e, sympy.Add):
            terms: dict[int, Any] = {}
            c0: Any = 0
            for arg in e.args:
                if is_coeff(arg):
                    c0 = c0 + arg
                    continue
                coeff, rest = _split_coeff(arg, is_coeff)
                wi = walk(rest)
                terms[wi] = terms.get(wi, 0) + coeff
            w = b.linear(terms, c0)
        elif isinstance(e, sympy.Mul):
            coeff, rest = _split_coeff(e, is_coeff)
            if coeff != 1:
                w = b.linear({walk(rest): coeff})
            else:
                w = b.product([walk(f) for f in _factors(e)])
        elif isinstance(e, sympy.Pow):
            base, ex = e.args
            if not (ex.is_Integer and int(ex) >= 1):
                raise HypothesisError(f"exprs: {e} is not a polynomial (exponent {ex})")
            w = _power(b, walk(base), int(ex))
        else:
            raise HypothesisError(f"exprs: {e} ({type(e).__name__}) is not a polynomial in the inputs")
        memo[e] = w
        return w

    outs = [walk(e) for e in exprs]
    return b.build(outs)


def _split_coeff(e: sympy.Expr, is_coeff: Callable) -> tuple[Any, sympy.Expr]:
    if isinstance(e, sympy.Mul):
        c = [a for a in e.args if is_coeff(a)]
        r = [a for a in e.args if not is_coeff(a)]
        return sympy.Mul(*c), sympy.Mul(*r)
    return sympy.Integer(1), e


def _factors(e: sympy.Mul) -> list:
    out = []
    for a in e.args:
        out.append(a)
    return out


def _power(b: CircuitBuilder, w: int, k: int) -> int:
    result = None
    sq = w
    while k:
        if k & 1:
            result = sq if result is None else b.mul(result, sq)
        k >>= 1
        if k:
            sq = b.mul(sq, sq)
    return result


def binarize(circuit: Circuit) -> Circuit:
    """The same circuit with fan-in-2 linear gates (a·x + b·y + c), as Def. H.13's gates are.

    A linear gate with k > 2 operands becomes a balanced tree of ⌈log₂ k⌉
    levels of such gates; other gates are kept.  The paper's sizes (Δ, w) of
    a circuit are those of this form (:func:`paper_sizes`).

    >>> b = CircuitBuilder(4)
    >>> c = b.build([b.add(0, 1, 2, 3)])
    >>> c.depth, binarize(c).depth, evaluate(binarize(c), [1, 2, 3, 4])
    (1, 2, [10])
    """
    if not isinstance(circuit, Circuit):
        raise HypothesisError(f"circuit: expected a Circuit, got {type(circuit).__name__}")
    b = CircuitBuilder(circuit.n_inputs, circuit.name)
    new = list(range(circuit.n_inputs))
    for g in circuit.gates:
        if g.op == "linear" and len(g.args) > 2:
            terms = [(new[a], c) for a, c in zip(g.args, g.coeffs)]
            level = []
            for i in range(0, len(terms), 2):
                pair = dict()
                for w, c in terms[i:i + 2]:
                    pair[w] = pair.get(w, 0) + c
                level.append((b._add(Gate("linear", tuple(pair), tuple(pair.values()), 0)), 1))
            while len(level) > 2:
                nxt = []
                for i in range(0, len(level), 2):
                    part = level[i:i + 2]
                    nxt.append((part[0][0], 1) if len(part) == 1 else
                               (b._add(Gate("linear", (part[0][0], part[1][0]), (1, 1), 0)), 1))
                level = nxt
            ws = tuple(w for w, _ in level)
            new.append(b._add(Gate("linear", ws, (1,) * len(ws), g.c0)))
        else:
            new.append(b._add(Gate(g.op, tuple(new[a] for a in g.args), g.coeffs, g.c0)))
    return b.build([new[o] for o in circuit.outputs])


def paper_sizes(circuit: Circuit) -> dict:
    """(n, s, Δ, w) of Theorem H.21 under explicit definitions, on the fan-in-2 form.

    ``n`` inputs; ``s`` linear and multiplication gates; ``depth`` Δ (most such
    gates on an input–output path; constants are free); ``level_width`` (gates
    per level, inputs at level 0) and ``cut_width`` (wires alive across a level,
    the proof's w′ + s).  The proof's step "w′ + s ≤ w" holds exactly when w is
    at least ``cut_width``.

    >>> paper_sizes(horner_circuit([1, 2, 3]))
    {'n': 1, 's': 4, 'depth': 4, 'level_width': 1, 'cut_width': 2, 'mul_depth': 2}
    """
    c = binarize(circuit)
    return {"n": c.n_inputs, "s": c.size, "depth": c.depth, "level_width": c.level_width,
            "cut_width": c.cut_width, "mul_depth": c.mul_depth}


def theorem_bounds(circuit: Circuit) -> tuple[int, int]:
    """Theorem H.21's orders with the constant 4: (4·Δ·⌈log₂ w⌉ layers, 4w rows), Δ and w the depth and
    cut width of :func:`paper_sizes`, with log₂ w read as at least 1 (a circuit of cut width 1 still
    gets 4Δ layers, the reading of the claimed signature ``Δ·max(1, ⌈log₂ w⌉)``).

    These are the targets that ``layout="best"`` and ``symconv bench circuits`` compare a stack with.

    >>> theorem_bounds(product_circuit(8))      # Δ = 3, w = 8
    (36, 32)
    """
    ps = paper_sizes(circuit)
    w = ps["cut_width"]
    return 4 * ps["depth"] * max(1, math.ceil(math.log2(max(w, 2)))), 4 * w


# ---------------------------------------------------------------- evaluation

def evaluate(circuit: Circuit, x: Sequence[Any], convert: Callable[[Any], Any] | None = None) -> list:
    """The output values on inputs ``x`` (any values with + and ·).

    ``convert`` maps each coefficient into the value domain (e.g. a polynomial
    ring); by default coefficients are used as they are.

    >>> c = from_polynomials([sympy.Symbol("a") ** 3], [sympy.Symbol("a")])
    >>> evaluate(c, [2])
    [8]
    """
    if not isinstance(circuit, Circuit):
        raise HypothesisError(f"circuit: expected a Circuit, got {type(circuit).__name__}")
    if isinstance(x, (str, bytes)) or not hasattr(x, "__len__"):
        raise HypothesisError(f"x: expected a sequence of {circuit.n_inputs} input values, got {type(x).__name__}")
    if len(x) != circuit.n_inputs:
        raise HypothesisError(f"x: {len(x)} values for {circuit.n_inputs} inputs")
    conv = convert or (lambda v: v)
    # fixed-width integers would wrap around silently: evaluate them exactly, as Python ints
    vals: list = [_exact_int(v, f"x[{i}]") for i, v in enumerate(x)] + [None] * len(circuit.gates)
    n = circuit.n_inputs
    for k, g in enumerate(circuit.gates):
        if g.op == "const":
            v = conv(g.c0)
        elif g.op == "mul":
            v = vals[g.args[0]] * vals[g.args[1]]
        else:
            v = conv(g.c0)
            for a, c in zip(g.args, g.coeffs):
                v = v + conv(c) * vals[a]
        vals[n + k] = v
    return [vals[o] for o in circuit.outputs]


def _exact_int(v: Any, where: str) -> Any:
    """Plain numpy integers (arrays or scalars) as Python ints (object dtype); anything else as it is."""
    if isinstance(v, (bool, np.bool_)) or (type(v) is np.ndarray and v.dtype.kind == "b"):
        raise HypothesisError(f"{where}: booleans are not circuit inputs")
    if isinstance(v, (str, bytes)):
        raise HypothesisError(f"{where}: strings are not circuit inputs (never parsed)")
    if isinstance(v, np.integer):
        return int(v)
    if type(v) is np.ndarray and v.dtype.kind in "iu":  # subclasses (e.g. field arrays) keep their arithmetic
        return v.astype(object)
    return v


def evaluate_ring(circuit: Circuit, ring: Any, x: Sequence[Any]) -> list:
    """Exact evaluation in a sympy polynomial ring (coefficients converted exactly)."""
    from .symbolic import to_ring

    return evaluate(circuit, [to_ring(ring, v) for v in x], convert=lambda v: to_ring(ring, v))


def expected_block(circuit: Circuit, u: Any) -> Any:
    """The circuit's outputs on u's row-major entries, row-major in a block of u's shape (zeros after
    the last output), exactly: the target a compiled stack is checked against.

    >>> from symconv.blocks import sym
    >>> expected_block(from_polynomials([sympy.Symbol("a") * sympy.Symbol("b")], [sympy.Symbol("a"),
    ...                                   sympy.Symbol("b")]), sym("u", 2)).entries.ravel().tolist()
    [u[0,0]*u[1,0], 0]
    """
    from .blocks import from_array
    from .symbolic import make_ring

    n, d = u.shape
    ring = make_ring(u.free_symbols() | set().union(*(getattr(g.c0, "free_symbols", set()) for g in circuit.gates)))
    vals = evaluate_ring(circuit, ring, [ring.from_expr(v) for v in u.entries.reshape(-1)])
    if len(vals) > n * d:
        raise HypothesisError(f"u: {len(vals)} outputs do not fit a {n}×{d} block")
    out = np.zeros(n * d, dtype=object)
    out[...] = 0
    for k, v in enumerate(vals):
        out[k] = v.as_expr()
    return from_array(out.reshape(n, d))


def evaluate_numeric(circuit: Circuit, X: Any, subs: Mapping | None = None) -> np.ndarray:
    """Float evaluation on a batch: X has shape (B, n_inputs); returns (B, outputs).

    Symbolic coefficients are substituted from ``subs`` first.

    >>> c = from_polynomials([sympy.Symbol("a") * 2], [sympy.Symbol("a")])
    >>> evaluate_numeric(c, np.array([[1.5]])).tolist()
    [[3.0]]
    """
    if not isinstance(circuit, Circuit):
        raise HypothesisError(f"circuit: expected a Circuit, got {type(circuit).__name__}")
    X = np.asarray(X)
    if X.dtype.kind not in "iuf":
        raise HypothesisError(f"X: expected real numbers, got dtype {X.dtype}")
    if X.dtype.kind == "f" and not np.isfinite(X).all():
        raise HypothesisError("X: has entries that are not finite (nan or inf)")
    X = X.astype(float)
    if X.ndim != 2 or X.shape[1] != circuit.n_inputs:
        raise HypothesisError(f"X: expected shape (B, {circuit.n_inputs}), got {X.shape}")

    def conv(v: Any) -> float:
        if isinstance(v, sympy.Basic):
            v = v.subs(subs or {})
            if v.free_symbols:
                raise HypothesisError(f"subs: coefficient {v} still has symbols {v.free_symbols}")
        return float(v)

    out = evaluate(circuit, [X[:, k] for k in range(circuit.n_inputs)], convert=conv)
    return np.stack([np.broadcast_to(np.asarray(o, dtype=float), (X.shape[0],)) for o in out], axis=1)


# ---------------------------------------------------------------- layering (proof of Theorem H.21)

@dataclass(frozen=True)
class Affine:
    """An affine form Σ terms[wire]·wire + c0 over wires of the original circuit."""

    terms: tuple  # ((wire, coeff), ...), sorted by wire
    c0: Any = 0

    def wires(self) -> list[int]:
        return [w for w, _ in self.terms]


@dataclass(frozen=True)
class CircuitLayer:
    """One layer of the layered circuit.

    ``kind == "linear"``: ``forms`` are the affine forms computed (over the
    wires available before the layer).  ``kind == "mul"``: ``pairs`` are the
    operand wires of each multiplication, ``products`` the wires they define.
    ``carried`` are wires passed through unchanged for later layers.
    """

    kind: str
    carried: tuple
    forms: tuple = ()
    targets: tuple = ()
    pairs: tuple = ()
    products: tuple = ()

    @property
    def width(self) -> int:
        """Wires leaving this layer: computed plus carried."""
        return len(self.targets) + len(self.products) + len(self.carried)


@dataclass(frozen=True)
class Layering:
    """The alternating linear / multiplication layers of a circuit (L_C of them)."""

    circuit: Circuit
    layers: tuple
    merged: bool

    @property
    def L_C(self) -> int:
        return len(self.layers)

    @property
    def width(self) -> int:
        """The most wires alive between two layers (inputs included)."""
        return max([self.circuit.n_inputs] + [l.width for l in self.layers])


def layering(circuit: Circuit, merge_linear: bool = False) -> Layering:
    """Split the circuit into layers of only linear gates and layers of only mul gates.

    Gates are placed as early as possible: a gate goes to the first layer of
    its kind after the layers of its operands.  A linear layer computes affine
    forms of the wires then available; ``merge_linear=True`` also substitutes
    chains of linear gates into one form (fewer layers, possibly denser forms).
    The last layer is linear and computes the outputs.  Every wire is carried
    from where it is made to the last layer that reads it, so each layer reads
    only the layer before it (the vectors z^ℓ of the proof).  L_C ≤ 2Δ + 1.

    >>> import sympy
    >>> a, b, c = sympy.symbols("a b c")
    >>> L = layering(from_polynomials([a * b * c], [a, b, c]))
    >>> [l.kind for l in L.layers], L.L_C
    (['mul', 'mul', 'linear'], 3)
    """
    if not isinstance(circuit, Circuit):
        raise HypothesisError(f"circuit: expected a Circuit, got {type(circuit).__name__}")
    n = circuit.n_inputs
    W = circuit.n_wires
    # layer index: linear gates at even indices, mul gates at odd; inputs and constants at -1
    idx = [-1] * W
    # base form of each wire: an Affine over "materialised" wires (inputs, mul outputs, linear gates)
    form: list[Affine | None] = [None] * W
    for w in range(n):
        form[w] = Affine(((w, 1),))
    for k, g in enumerate(circuit.gates):
        w = n + k
        if g.op == "const":
            idx[w] = -1
            form[w] = Affine((), g.c0)
        elif g.op == "mul":
            top = max(idx[a] for a in g.args)
            idx[w] = top + 1 if top % 2 == 0 else top + 2  # next odd index after the operands
            form[w] = Affine(((w, 1),))
        else:
            if merge_linear:
                terms: dict[int, Any] = {}
                c0 = g.c0
                for a, c in zip(g.args, g.coeffs):
                    fa = form[a]
                    c0 = c0 + c * fa.c0
                    for v, cv in fa.terms:
                        terms[v] = terms.get(v, 0) + c * cv
                terms = {v: c for v, c in terms.items() if not _is_zero(c)}
                form[w] = Affine(tuple(sorted(terms.items())), c0)
                idx[w] = max([idx[v] + 1 if idx[v] % 2 else idx[v] for v in terms] + [0])
                if idx[w] % 2:
                    idx[w] += 1
            else:
                # operands that are constants fold into c0
                terms = {}
                c0 = g.c0
                for a, c in zip(g.args, g.coeffs):
                    fa = form[a]
                    if circuit.gate(a) is not None and circuit.gate(a).op == "const":
                        c0 = c0 + c * fa.c0
                    else:
                        terms[a] = terms.get(a, 0) + c
                terms = {v: c for v, c in terms.items() if not _is_zero(c)}
                top = max([idx[v] for v in terms] + [-1])
                idx[w] = top + 1 if top % 2 else top + 2
                form[w] = Affine(tuple(sorted(terms.items())), c0)
    def is_op(w: int, op: str) -> bool:
        g = circuit.gate(w)
        return g is not None and g.op == op

    def out_form(o: int) -> Affine:
        """How the final layer reads output o."""
        if is_op(o, "const") or (merge_linear and is_op(o, "linear")):
            return form[o]
        return Affine(((o, 1),))

    materialised = [w for w in range(W)
                    if w < n or is_op(w, "mul") or (is_op(w, "linear") and not merge_linear)]
    top = max([idx[w] for w in range(W)] + [-1])
    last = top + 1 if top % 2 else top + 2  # the final linear layer (outputs)
    last_use = {w: -2 for w in materialised}
    for w in range(W):
        if is_op(w, "mul"):
            for a in circuit.gate(w).args:
                if is_op(a, "const"):
                    continue
                if merge_linear and is_op(a, "linear"):
                    for v in form[a].wires():  # read by the linear layer just before
                        last_use[v] = max(last_use[v], idx[w] - 1)
                else:
                    last_use[a] = max(last_use[a], idx[w])
        elif is_op(w, "linear") and not merge_linear:
            for v in form[w].wires():
                last_use[v] = max(last_use[v], idx[w])
    for o in circuit.outputs:
        for v in out_form(o).wires():
            last_use[v] = max(last_use[v], last)
    # mul operands that are constants or merged forms must be computed by the preceding linear layer
    # (wires bucketed by layer index and by first unused layer: one pass, not one per layer)
    made: dict[int, list[int]] = {}
    for w in range(W):
        made.setdefault(idx[w], []).append(w)
    alive: set[int] = set()  # materialised wires with idx < L and last_use ≥ L
    born: dict[int, list[int]] = {}
    for w in materialised:
        if last_use[w] > idx[w]:
            born.setdefault(idx[w] + 1, []).append(w)
    layers = []
    for L in range(0, last + 1):
        alive.update(born.get(L, ()))
        alive = {w for w in alive if last_use[w] >= L}
        avail = sorted(alive)
        if L % 2:  # mul layer
            gates = [w for w in made.get(L, ()) if circuit.gate(w).op == "mul"]
            if not gates:
                continue
            pairs = tuple(tuple(circuit.gate(w).args) for w in gates)
            carried = tuple(w for w in avail if last_use[w] > L)
            layers.append(CircuitLayer("mul", carried, pairs=pairs, products=tuple(gates)))
        else:
            # linear layer L computes: its own linear gates (unmerged), or the operand forms of
            # the next mul layer that are not materialised wires, and at the end the outputs
            targets, forms = [], []
            if not merge_linear:
                for w in made.get(L, ()):
                    if circuit.gate(w).op == "linear":
                        targets.append(w)
                        forms.append(form[w])
            seen = set(targets)
            nxt = [w for w in made.get(L + 1, ()) if circuit.gate(w).op == "mul"]
            for w in nxt:
                for a in circuit.gate(w).args:
                    if a in seen:
                        continue
                    g = circuit.gate(a)
                    if g is not None and (g.op == "const" or (merge_linear and g.op == "linear")):
                        targets.append(a)
                        seen.add(a)
                        forms.append(form[a])
            if L == last:
                targets = list(circuit.outputs)  # in output order (repeats allowed)
                forms = [out_form(o) for o in circuit.outputs]
            carried = tuple(w for w in avail if last_use[w] > L)
            if not targets and L != last:
                continue
            layers.append(CircuitLayer("linear", carried, forms=tuple(forms), targets=tuple(targets)))
    return Layering(circuit, tuple(layers), merge_linear)


def _is_zero(c: Any) -> bool:
    if isinstance(c, sympy.Basic):
        return sympy.expand(c) == 0
    return c == 0


# ---------------------------------------------------------------- families used by the proofs and benchmarks

def _size(v: Any, pname: str, minimum: int = 1) -> int:
    from .model import check_size

    return check_size(v, pname, minimum)


GATE_BYTES = 512  # an estimate of one gate of a built Circuit (its object and its wires)


def _require_gates(count: int, what: str) -> None:
    """Refuse, before building, a circuit family whose gates would pass the memory budget."""
    from .budget import require

    require(count * GATE_BYTES, f"{what}: {count} gates")


def product_circuit(k: int) -> Circuit:
    """x_0·x_1·…·x_{k−1} as a balanced tree (depth ⌈log₂ k⌉).

    >>> evaluate(product_circuit(3), [2, 3, 4])
    [24]
    """
    k = _size(k, "k")
    if k < 1:
        raise HypothesisError(f"k: a product needs at least one input, got {k}")
    b = CircuitBuilder(k, f"product({k})")
    return b.build([b.product(range(k))])


def horner_circuit(coeffs: Sequence[Any]) -> Circuit:
    """p(x) = Σ coeffs[i]·x^i by Horner's rule (one input x, depth 2·degree).

    >>> evaluate(horner_circuit([1, 2, 3]), [2])
    [17]
    """
    if not len(coeffs):
        raise HypothesisError("coeffs: a polynomial needs at least one coefficient")
    b = CircuitBuilder(1, f"horner(deg {len(coeffs) - 1})")
    acc = b.const(coeffs[-1])
    for c in reversed(list(coeffs)[:-1]):
        acc = b.linear({b.mul(acc, 0): 1}, c0=c)
    return b.build([acc])


def matmul_circuit(p: int) -> Circuit:
    """C = A·B for p×p matrices; inputs A then B row-major, outputs C row-major.

    >>> evaluate(matmul_circuit(1), [3, 4])
    [12]
    """
    p = _size(p, "p")
    b = CircuitBuilder(2 * p * p, f"matmul({p})")
    outs = []
    for i in range(p):
        for j in range(p):
            prods = [b.mul(i * p + k, p * p + k * p + j) for k in range(p)]
            outs.append(b.add(*prods) if len(prods) > 1 else prods[0])
    return b.build(outs)


def det3_circuit() -> Circuit:
    """The 3×3 determinant by cofactor expansion along the first row (inputs row-major).

    >>> evaluate(det3_circuit(), [2, 0, 0, 0, 3, 0, 0, 0, 4])
    [24]
    """
    b = CircuitBuilder(9, "det3")
    m = lambda i, j: 3 * i + j
    minors = [b.linear({b.mul(m(1, 1), m(2, 2)): 1, b.mul(m(1, 2), m(2, 1)): -1}),
              b.linear({b.mul(m(1, 0), m(2, 2)): 1, b.mul(m(1, 2), m(2, 0)): -1}),
              b.linear({b.mul(m(1, 0), m(2, 1)): 1, b.mul(m(1, 1), m(2, 0)): -1})]
    terms = [b.mul(m(0, j), minors[j]) for j in range(3)]
    return b.build([b.linear({terms[0]: 1, terms[1]: -1, terms[2]: 1})])


def powers_circuit(k: int) -> Circuit:
    """x² + x⁴ + … + x^(2^k): k squarings, then the powers summed from the highest down.

    One gate per level (level width 1) but k wires alive across level k (every
    power waits for the sum): a deep circuit that carries many wires forward.

    >>> evaluate(powers_circuit(3), [2]), powers_circuit(3).widths()
    ([276], {'level': 1, 'cut': 3})
    """
    k = _size(k, "k")
    _require_gates(2 * k, f"k: powers_circuit({k})")
    b = CircuitBuilder(1, f"powers({k})")
    p, ps = 0, []
    for _ in range(k):
        p = b.mul(p, p)
        ps.append(p)
    acc = ps[-1]
    for q in reversed(ps[:-1]):
        acc = b.add(acc, q)
    return b.build([acc])


def random_circuit(n_inputs: int, width: int, depth: int, seed: int = 0, n_outputs: int = 1,
                   mul_fraction: float = 0.5, sparse: bool = False) -> Circuit:
    """A random layered circuit: ``depth`` levels of ``width`` gates each, linear or mul.

    Every gate reads two wires of the level below (level 0: the inputs);
    linear gates have small integer coefficients.  With ``sparse=True`` a
    multiplication reads one wire of the level below and one input, so the
    degree grows by one per level (keeps exact checks small).  Outputs: the
    first ``n_outputs`` gates of the top level.

    >>> c = random_circuit(4, 4, 3, seed=1)
    >>> c.depth, c.width
    (3, 4)
    """
    n_inputs, width, depth = _size(n_inputs, "n_inputs"), _size(width, "width"), _size(depth, "depth", 0)
    n_outputs = _size(n_outputs, "n_outputs")
    import random as _random

    if width < 1 or depth < 1 or n_inputs < 1:
        raise HypothesisError("width, depth, n_inputs: must be positive")
    if n_outputs > width:
        raise HypothesisError(f"n_outputs: {n_outputs} exceeds the width {width}")
    rng = _random.Random(seed)
    b = CircuitBuilder(n_inputs, f"random(w={width}, Δ={depth}, seed={seed})")
    below = list(range(n_inputs))
    for _ in range(depth):
        level = []
        for g in range(width):
            x, y = rng.choice(below), rng.choice(below)
            if rng.random() < mul_fraction:
                level.append(b.mul(x, rng.randrange(n_inputs) if sparse else y))
            else:
                cx, cy = rng.choice((-2, -1, 1, 2)), rng.choice((-2, -1, 1, 2))
                level.append(b.linear({x: cx} if x == y else {x: cx, y: cy}, c0=rng.choice((0, 0, 1))))
        below = level
    return b.build(below[:n_outputs])
