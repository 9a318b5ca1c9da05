"""LaTeX in the paper's notation: block columns, polynomial products, derivations, documents.

The proofs of Appendix H (Prop. H.8–H.10) show each layer twice: as a product
of polynomials, h(X)·y(X) = (X^n + 1)(S(X)X^n + x(X)) = …, and as a Hadamard
product of block columns with rules between blocks.  This module renders both,
layer by layer, for every variant of a claim:

* from the variant's symbolic-size description (:mod:`symconv.parametric`)
  when it has one that covers its claimed steps, with sizes as symbols;
* otherwise from the exact interpreter at one representative size, labelled
  with that size.

A printed step that fails is marked with the rows (or the coefficient) where
it fails, got against expected.  :func:`document` writes a standalone
document (packages amsmath, amssymb, graphicx, longtable) opening with a
table of verdicts; wide formulas are broken at their relations and scaled to
the line.  All free text (claim names, statements, notes, step labels) goes
through :mod:`symconv.tex` (:func:`escape`, :func:`prose`), which shows every
character and typesets the statements' formulas in math mode, so no user
string can break the document.  The macros used in notebook output are all
in :data:`MATHJAX_MACROS` (no ``\\bm``).

>>> escape("add_n: 50% of {x} ⊙ y")
'add\\\\_n: 50\\\\% of \\\\{x\\\\} $\\\\odot$ y'
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import sympy

from .model import HypothesisError

# ---------------------------------------------------------------- escaping (symconv.tex)

from .tex import (  # noqa: E402,F401 - re-exported
    MATHJAX_MACROS, escape, formula, math_escape, math_plain, math_text, prose, readable, shorten, sizes_math,
)

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def name_latex(name: str) -> str:
    r"""A block name as bold math (``x`` → ``\boldsymbol{x}``); names must be identifiers.

    >>> name_latex("S"), name_latex("h_1"), name_latex("xs2")
    ('\\boldsymbol{S}', '\\boldsymbol{h}_{1}', '\\boldsymbol{\\mathrm{xs2}}')
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise HypothesisError(
            f"name: {name!r} cannot be typeset as a block name (letters, digits and _, starting with a letter)"
        )
    base, _, sub = name.partition("_")
    head = r"\boldsymbol{" + (base if len(base) == 1 else r"\mathrm{" + base + "}") + "}"
    if sub:
        head += "_{" + r"\mathrm{" + sub.replace("_", r"\_") + "}}" if not sub.isdigit() else "_{" + sub + "}"
    return head


# ---------------------------------------------------------------- concrete entries

_SYMBOL = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\[(\d+(?:,\d+)*)\]$")


def _symbol_names(exprs: Iterable[Any], d: int) -> dict:
    names = {}
    for e in exprs:
        for s in getattr(e, "free_symbols", ()):
            if s in names:
                continue
            m = _SYMBOL.match(s.name)
            if m:
                base = (name_latex(m.group(1)).replace(r"\boldsymbol{", "{", 1) if "_" not in m.group(1)
                        else r"\mathrm{" + m.group(1).replace("_", r"\_") + "}")
                idx = m.group(2).split(",")
                if d == 1 and len(idx) == 2:  # one channel: x[i,0] is x_i
                    idx = idx[:1]
                names[s] = f"{base}_{{{','.join(idx)}}}"
            elif _NAME.match(s.name):  # gamma, x1, alpha_2: sympy's own typesetting (\gamma, x_{1})
                names[s] = sympy.latex(sympy.Symbol(s.name))
            else:  # any other name: escaped, safe inside math
                names[s] = math_escape(s.name)
    return names


def entry_latex(v: Any, names: Mapping | None = None) -> str:
    """One entry (number or sympy expression) in math mode.

    >>> entry_latex(sympy.Symbol("S[1,0]") + 1, {})
    '{S}_{1} + 1'
    """
    v = _expr(v)
    names = dict(names or {}) or _symbol_names([v], 1)
    if sympy.count_ops(v, visual=False) > MAX_ENTRY_OPS:  # too long to typeset usefully
        return r"\langle\text{%d terms}\rangle" % len(sympy.Add.make_args(v))
    return sympy.latex(v, symbol_names=names)


MAX_ENTRY_OPS = 12


def _expr(v: Any) -> sympy.Basic:
    """A number or expression as a sympy object, never by parsing text."""
    if isinstance(v, sympy.Basic):
        return v
    if isinstance(v, (bool, np.bool_)) or isinstance(v, str):
        raise HypothesisError(f"entry: cannot typeset {type(v).__name__} {v!r} as a number")
    if isinstance(v, (int, np.integer)):
        return sympy.Integer(int(v))
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    if isinstance(v, (float, np.floating)):
        return sympy.Float(float(v))
    raise HypothesisError(f"entry: cannot typeset {type(v).__name__} as a number")


def matrix_latex(a: Any, names: Mapping | None = None, max_rows: int = 20, max_cols: int = 12,
                 rules: Sequence[int] = ()) -> str:
    r"""A 2-D array as a parenthesised ``array``; three or more zero rows in a row
    become one block row ``0^k`` between rules, as in the paper; rows beyond
    ``max_rows`` are elided.

    >>> print(matrix_latex(np.array([[1], [0], [0], [0], [2]], dtype=object)))
    \left(\begin{array}{c}1 \\
    \hline \boldsymbol{0}^{3} \\
    \hline 2\end{array}\right)
    """
    a = np.asarray(a, dtype=object)
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    n, d = a.shape
    if names is None:
        names = _symbol_names(a.flat, d)
    cols = list(range(min(d, max_cols)))
    more = [r"\cdots"] if d > max_cols else []
    zero = [all(v == 0 for v in a[i, :]) for i in range(n)]
    lines, i = [], 0
    while i < n:
        j = i
        while j < n and zero[j]:
            j += 1
        if j - i >= 3:  # a run of zero rows: one block
            lines.append((True, " & ".join([rf"\boldsymbol{{0}}^{{{j - i}}}"] * len(cols) + more)))
            i = j
            continue
        lines.append((False, " & ".join([entry_latex(a[i, c], names) for c in cols] + more)))
        i += 1
    if len(lines) > max_rows:
        lines = lines[: max_rows - 2] + [(False, " & ".join([r"\vdots"] * (len(cols) + len(more))))] + lines[-1:]
    out = []
    for k, (block, text) in enumerate(lines):
        ruled = k and (block or lines[k - 1][0])
        out.append((r"\hline " if ruled else "") + text)
    spec = "c" * (len(cols) + len(more))
    return r"\left(\begin{array}{" + spec + "}" + " \\\\\n".join(out) + r"\end{array}\right)"


def block_latex(block) -> str:
    r"""A :class:`~symconv.blocks.Block` as a column (or matrix) of its entries.

    >>> from symconv import ones
    >>> print(block_latex(ones(2)))
    \left(\begin{array}{c}1 \\
    1\end{array}\right)
    """
    return matrix_latex(block.entries)


def poly_latex(coeffs: Sequence[Any], names: Mapping | None = None, var: str = "X") -> str:
    """Σ c_k X^k, highest power first.

    >>> poly_latex([1, 0, 1])
    'X^{2} + 1'
    """
    terms = []
    for k in range(len(coeffs) - 1, -1, -1):
        c = _expr(coeffs[k])
        if c == 0:
            continue
        mono = "" if k == 0 else (var if k == 1 else f"{var}^{{{k}}}")
        if not mono:
            terms.append(entry_latex(c, names))
        elif c == 1:
            terms.append(mono)
        elif c == -1:
            terms.append("-" + mono)
        else:
            s = entry_latex(c, names)
            terms.append((f"({s})" if (c.is_Add) else s) + mono)
    return " + ".join(terms).replace("+ -", "- ") if terms else "0"


# ---------------------------------------------------------------- symbolic sizes


def lin_latex(f) -> str:
    """A linear form in size symbols in math mode.

    >>> from symconv.parametric import size
    >>> lin_latex(2 * size("n") + size("s") - 1)
    '2n + s - 1'
    """
    return str(f).replace("·", "")


def _const_latex(c: Fraction, length) -> str:
    num = str(c.numerator) if c.denominator == 1 else rf"\tfrac{{{c.numerator}}}{{{c.denominator}}}"
    if str(length) == "1":
        return num
    if c in (0, 1):
        return rf"\boldsymbol{{{num}}}^{{{lin_latex(length)}}}"
    return rf"{num}\cdot\boldsymbol{{1}}^{{{lin_latex(length)}}}"


def _atom_latex(atom) -> str:
    if atom.op == "conv":
        return f"({_atom_latex(atom.args[0])} \\ast {_atom_latex(atom.args[1])})"
    if atom.op == "had":
        return f"({_atom_latex(atom.args[0])} \\odot {_atom_latex(atom.args[1])})"
    return name_latex(atom.name)


def _window_latex(atom, a, b, shift, facts) -> str:
    lo, hi = a + shift, b + shift
    from .parametric.linear import Lin

    whole = lo == Lin() and (hi == atom.length or (facts is not None and facts.eq(hi, atom.length) is True))
    body = _atom_latex(atom)
    return body if whole else body + f"[{lin_latex(lo)}:{lin_latex(hi)}]"


def content_latex(content, a, b, facts=None) -> str:
    r"""The content of rows [a, b) of a symbolic column (0^L, 1^L, x, S + x, y[s:N]).

    >>> from symconv.parametric import size, Facts
    >>> from symconv.parametric.algebra import Content
    >>> print(content_latex(Content(), size("n"), 2 * size("n")))
    \boldsymbol{0}^{n}
    """
    parts = []
    consts = [t for t in content.terms if t[0] is None]
    atoms = [t for t in content.terms if t[0] is not None]
    for atom, shift, k in sorted(atoms, key=lambda t: t[0].text()):
        w = _window_latex(atom, a, b, shift, facts)
        coef = "" if k == 1 else ("-" if k == -1 else _const_latex(k, 1))
        parts.append(coef + w)
    for _, _, k in consts:
        parts.append(_const_latex(k, b - a))
    if not parts:
        return _const_latex(Fraction(0), b - a)
    return " + ".join(parts).replace("+ -", "- ")


def pseq_latex(seq, facts=None) -> str:
    r"""A symbolic column as the paper's block vector, with rules between blocks.

    >>> from symconv.parametric import psym, pzeros, size
    >>> pseq_latex(psym("x", size("n")) | pzeros(2))
    '\\left(\\begin{array}{c}\\boldsymbol{x} \\\\ \\hline \\boldsymbol{0}^{2}\\end{array}\\right)'
    """
    from .parametric.algebra import refine
    from .parametric.linear import Facts, Undecided, size

    if facts is None:  # sizes, block lengths and windows are at least 0
        used = set().union(seq.length.symbols, *(p.start.symbols | p.length.symbols for p in seq.pieces))
        facts = Facts.of(*(size(k) for k in sorted(used)), *seq.nonneg)
    try:
        r = refine([seq], facts, 0, seq.length)
    except Undecided:  # blocks the hypotheses cannot order: list them as a sum
        return " + ".join(_piece_latex(p, facts) for p in seq.pieces) or "0"
    cells = [content_latex(c, a, b, facts) for a, b, c in r.runs(0)]
    return r"\left(\begin{array}{c}" + r" \\ \hline ".join(cells or [r"\,"]) + r"\end{array}\right)"


def _piece_latex(p, facts) -> str:
    body = (_window_latex(p.atom, p.start, p.end, p.lo - p.start, facts) if p.atom is not None
            else _const_latex(p.coef, p.length))
    return body + r"(X)\cdot X^{" + lin_latex(p.start) + "}"


def ppoly_latex(pieces, facts) -> str:
    r"""Σ block(X)·X^offset over the runs of a product, highest offset first.

    >>> from symconv.parametric import X, psym, multiply, size, Facts
    >>> print(ppoly_latex(multiply(X**2, psym("x", size("n"))), Facts.of(size("n"))))
    \boldsymbol{x}(X)\cdot X^{2}
    """
    from .parametric.algebra import refine
    from .parametric.linear import Lin, Undecided

    try:
        r = refine([pieces], facts)
    except Undecided:  # offsets the hypotheses cannot order: one term per piece
        return " + ".join(_piece_latex(p, facts) for p in pieces) or "0"
    terms = []
    for a, b, c in reversed(r.runs(0)):
        if c.is_zero():
            continue
        body = content_latex(c, a, b, facts)
        if len(c.terms) > 1 or body.startswith("-"):
            body = f"({body})"
        mono = "" if a == Lin() else ("X" if str(a) == "1" else f"X^{{{lin_latex(a)}}}")
        terms.append(f"{body}(X)" + (r"\cdot " + mono if mono else ""))
    return " + ".join(terms) if terms else "0"


def pfilter_latex(h) -> str:
    """A filter Σ c·X^k (and named filter blocks), highest offset first as written.

    >>> from symconv.parametric import X, size
    >>> pfilter_latex(1 + X**size("n"))
    'X^{n} + 1'
    """
    terms = []
    for t in sorted(h.terms, key=lambda t: (t.offset.is_const(), -t.offset.const, str(t.offset))):
        mono = "" if str(t.offset) == "0" else ("X" if str(t.offset) == "1" else f"X^{{{lin_latex(t.offset)}}}")
        body = (_atom_latex(t.atom) + "(X)") if t.atom is not None else ""
        c = t.coef
        cs = "" if c == 1 and (body or mono) else ("-" if c == -1 and (body or mono) else _const_latex(c, 1))
        term = cs + body + (r"\cdot " if body and mono else "") + mono
        terms.append(term or "1")
    return " + ".join(terms).replace("+ -", "- ") if terms else "0"


# ---------------------------------------------------------------- derivations


@dataclass(frozen=True)
class Derivation:
    """A variant's derivation as parts: ``("text", str)`` (already LaTeX) or ``("math", str)``.

    Renders to LaTeX (:meth:`latex`) and to Jupyter markdown (``_repr_markdown_``).

    >>> Derivation("t", (("text", "Layer 1"), ("text", "holds"))).latex().split()
    ['Layer', '1', 'holds']
    """

    title: str
    parts: tuple

    def latex(self) -> str:
        """For a document: each formula broken at its relations and scaled to the line (``\\scfit``)."""
        out = []
        for kind, body in self.parts:
            out.append(r"\[\scfit{" + break_lines(body) + r"}\]" if kind == "math" else body)
        return "\n\n".join(out)

    def _repr_markdown_(self) -> str:
        out = []
        for kind, body in self.parts:
            out.append("$$" + break_lines(body) + "$$" if kind == "math" else _md(body))
        return "\n\n".join(out)

    def _repr_latex_(self) -> str:
        return r"$$\begin{gathered}" + r" \\ ".join(b for k, b in self.parts if k == "math") + r"\end{gathered}$$"


BREAK_AT = 110  # formulas longer than this (in characters, macros left out) are broken at their relations


def _top_level_relations(body: str) -> list[int]:
    """Offsets of `` = `` and `` \\equiv `` outside braces and \\left…\\right."""
    out, depth, i = [], 0, 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            m = re.match(r"\\(left|right|begin|end)\b", body[i:])
            if m:
                depth += 1 if m.group(1) in ("left", "begin") else -1
                i += len(m.group(0))
                continue
            if depth == 0 and body.startswith(r"\equiv ", i) and body[i - 1:i] == " ":
                out.append(i - 1)
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0 and body.startswith(" = ", i):
            out.append(i)
        i += 1
    return out


def break_lines(body: str, width: int = BREAK_AT) -> str:
    r"""A long formula as ``aligned`` lines, one per top-level relation; short ones unchanged.

    >>> print(break_lines("a = " + "b + " * 50 + "c = d"))
    \begin{aligned}a &= b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + b + c \\
    &= d\end{aligned}
    """
    if len(re.sub(r"\\[A-Za-z]+|[{}&]", "", body)) <= width:  # short as typeset: one line
        return body
    cuts = _top_level_relations(body)
    if len(cuts) < 2:
        return body
    pieces, last = [], 0
    for k in cuts[1:]:
        pieces.append(body[last:k])
        last = k
    pieces.append(body[last:])

    def amp(p: str) -> str:  # the relation of each piece gets the alignment point
        if p.startswith("=") or p.startswith(r"\equiv"):
            return "&" + p
        return re.sub(r"^(.*?) (=|\\equiv) ", lambda m: m.group(1) + " &" + m.group(2) + " ", p, count=1)
    return r"\begin{aligned}" + " \\\\\n".join(amp(p.strip()) for p in pieces) + r"\end{aligned}"


_MD_TEXT = {r"\textbackslash{}": "\\\\", r"\^{}": "^", r"\~{}": "~", r"\%": "%", r"\&": "&", r"\#": "\\#",
            r"\$": "\\$", r"\{": "\\{", r"\}": "\\}", r"\_": "\\_", "``": "\u201c", "''": "\u201d", "---": "\u2014",
            "--": "\u2013"}


_MD_MARKUP = {"textbf": ("**", "**"), "emph": ("*", "*"), "textit": ("*", "*"), "fbox": ("[", "]"),
              "texttt": ("`", "`")}


def _group(text: str, start: int) -> int:
    """The offset just past the brace group opening at ``start`` (escaped braces skipped)."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(c, 0)
        i += 1
        if depth == 0:
            return i
    return len(text)


def _markup(text: str) -> str:
    """``\\textbf{...}``, ``\\emph{...}``, ``\\fbox{...}``, ``\\texttt{...}`` as markdown, nested groups included."""
    out, i = [], 0
    pat = re.compile(r"\\(" + "|".join(_MD_MARKUP) + r")\{")
    while True:
        m = pat.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        end = _group(text, m.end() - 1)
        a, b = _MD_MARKUP[m.group(1)]
        out += [text[i:m.start()], a, _markup(text[m.end():end - 1]).strip(), b]
        i = end


def _md(latex_text: str) -> str:
    """A text part (LaTeX text mode) as Jupyter markdown: markup converted, inline math kept
    for MathJax, escapes turned into markdown escapes."""
    out = []
    for k, piece in enumerate(re.split(r"((?<!\\)\$[^$]*(?<!\\)\$)", _markup(latex_text))):
        if k % 2:  # inline math, as it is
            out.append(piece)
            continue
        t = re.sub(r'''\\([`'^"~=.uvHckdbr])\{\\?([A-Za-z])\}''', lambda m: _unaccent(m.group(1), m.group(2)), piece)
        for a, b in _MD_TEXT.items():
            t = t.replace(a, b)
        out.append(t)
    return "".join(out)


def _unaccent(mark: str, base: str) -> str:
    import unicodedata

    comb = {"`": "\u0300", "'": "\u0301", "^": "\u0302", "~": "\u0303", "=": "\u0304", "u": "\u0306", ".": "\u0307",
            '"': "\u0308", "r": "\u030a", "H": "\u030b", "v": "\u030c", "c": "\u0327", "k": "\u0328", "d": "\u0323",
            "b": "\u0331"}[mark]
    return unicodedata.normalize("NFC", base + comb)


FAIL = r"\textbf{fails}"
HOLD = r"\textbf{holds}"


def _trace(desc, facts, depth: int = 6, point: Mapping | None = None):
    """Layer records for a description; an open comparison a <= b is settled as it is at
    ``point`` (concrete sizes satisfying the facts), else taken to hold."""
    from .parametric.linear import Undecided

    cases = []
    for _ in range(depth + 1):
        try:
            return _trace_once(desc, facts), tuple(cases), facts
        except Undecided as exc:
            if exc.split is None:
                return None, tuple(cases), facts
            a, b = exc.split
            first = True
            if point is not None and facts.holds_at(point):
                first = a.at(point) <= b.at(point)
            facts = facts.cases(a, b)[0 if first else 1]
            cases.append(f"{a} <= {b}" if first else f"{a} > {b}")
    return None, tuple(cases), facts


def _trace_once(desc, facts) -> list:
    from .parametric.check import _checked_input, compare
    from .parametric.algebra import add, causal, circular, hadamard, multiply

    steps = {s.layers: s for s in desc.steps}
    state = _checked_input(desc, facts)
    N = desc.N_int
    out = []
    new = state
    for k, layer in enumerate(desc.layers, start=1):
        prod = multiply(layer.h, state, facts)
        conv = causal(prod, N, facts) if layer.conv == "causal" else circular(prod, N, facts)
        b1, b2 = layer.column("b1", N), layer.column("b2", N)
        new = hadamard(b1, add(conv, b2), facts)
        step = steps.get(k)
        mismatch = compare(new, step.expected.at(N), facts, step.label, k) if step else None
        out.append(dict(layer=layer, input=state, prod=prod, conv=conv, b1=b1, b2=b2, out=new,
                        step=step, mismatch=mismatch))
        state = step.expected.at(N) if step else new
    final = causal(new.pieces, desc.expected.length, facts)  # what the last layer computes
    out.append(dict(output=final, mismatch=compare(final, desc.expected, facts, "output", len(desc.layers))))
    return out


def _state(k: int) -> str:
    return r"\boldsymbol{y}" if k == 0 else rf"\boldsymbol{{z}}^{{{k}}}"


def generic_point(claim, variant=None) -> dict | None:
    """Representative sizes with the largest one made ten times larger (blocks well inside N),
    when the hypotheses allow it; used to pick the case a derivation shows.

    >>> from symconv.registry import load_claims
    >>> generic_point([c for c in load_claims() if c.name == "add_n"][0])
    {'n': 2, 'N': 40, 'd': 1}
    """
    rep = representative_sizes(claim, variant=variant)
    if not rep:
        return rep
    big = max(rep, key=lambda k: rep[k])
    bumped = dict(rep, **{big: rep[big] * 10})
    ok = claim.holds_for(bumped) and (variant is None or not hasattr(variant, "applies") or variant.applies(bumped))
    return bumped if ok else rep


def _parametric_parts(claim, variant, desc, facts, point=None) -> list | None:
    records, cases, facts = _trace(desc, facts, point=point)
    if records is None:
        return None
    parts = [("text", "Sizes are symbols, under the hypotheses " + _facts_latex(facts) + ".")]
    if cases:
        parts.append(("text", "Shown for the case " + ", ".join("$" + lin_latex(c).replace("<=", r"\le") + "$"
                                                              for c in cases)
                      + "; the other cases are checked the same way."))
    L = len(desc.layers)
    for k, rec in enumerate(records[:-1], start=1):
        layer = rec["layer"]
        star = r"\ast" if layer.conv == "causal" else r"\circledast"
        mod = "X^{%s}" % lin_latex(desc.N_int) if layer.conv == "causal" else "X^{%s} - 1" % lin_latex(desc.N_int)
        has_b2 = bool(rec["b2"].pieces)
        label = rf"\text{{Layer {k} of {L}}}\quad "
        parts.append(("math", label + rf"{_state(k)} \equiv \boldsymbol{{b}}^{{{k}}}_1 \odot \left(\boldsymbol{{h}}^{{{k}}} {star} {_state(k - 1)}"
                      + (rf" + \boldsymbol{{b}}^{{{k}}}_2" if has_b2 else "") + r"\right),\qquad "
                      + rf"\boldsymbol{{h}}^{{{k}}}(X) = {pfilter_latex(layer.h)}"))
        parts.append(("math", rf"\boldsymbol{{h}}^{{{k}}}(X)\cdot {_state(k - 1)}(X) = \left({pfilter_latex(layer.h)}\right)"
                      rf"\cdot\left({ppoly_latex(rec['input'].pieces, facts)}\right) = "
                      + ppoly_latex(rec["prod"], facts) + rf" \pmod{{{mod}}}"))
        inner = pseq_latex(rec["conv"], facts) + (" + " + pseq_latex(rec["b2"], facts) if has_b2 else "")
        parts.append(("math", rf"{_state(k)} \equiv " + pseq_latex(rec["b1"], facts) + r" \odot "
                      + (r"\left(" + inner + r"\right)" if has_b2 else inner)
                      + r" \equiv " + pseq_latex(rec["out"], facts)))
        step = rec["step"]
        if step is not None:
            parts.append(_step_part(step.label, rec["mismatch"], pseq_latex(step.expected.at(desc.N_int), facts)))
    final = records[-1]
    m = final["mismatch"]
    parts.append(("text", "Output (top " + "$" + lin_latex(desc.expected.length) + "$ rows): "
                  + (HOLD + " as claimed." if m is None else FAIL + ": " + _mismatch_text(m))))
    if m is not None:
        parts.append(("math", r"\text{claimed: }" + pseq_latex(desc.expected, facts)))
    return parts


def _facts_latex(facts) -> str:
    rows = [lin_latex(r) + r" \ge 0" for r in facts.rows]
    return "$" + ",\\ ".join(rows) + "$" if rows else "none"


def _mismatch_text(m) -> str:
    where = ("for all sizes" if m.everywhere else "where $" + math_plain(m.when) + "$" if m.when
             else "wherever $" + lin_latex(m.start) + " < " + lin_latex(m.stop) + "$")
    return (f"rows $[{lin_latex(m.start)}, {lin_latex(m.stop)})$ hold " + r"$" + _plain_math(m.got) + "$"
            + r" but the proof claims $" + _plain_math(m.expected) + "$ (" + where + ")")


def _plain_math(text: str) -> str:
    """Block text from the algebra (``S + x``, ``y[s:N]``, ``(h * x)``) as math."""
    s = math_plain(text)
    return re.sub(r"(?<!\\)\b[A-Za-z][A-Za-z0-9]*", lambda m: m.group(0) if len(m.group(0)) > 1
                  else r"\boldsymbol{" + m.group(0) + "}", s)


def _step_part(label: str, mismatch, claimed_latex: str) -> tuple:
    if mismatch is None:
        return ("text", "Claimed state " + prose(label) + ": " + HOLD + " (the column above).")
    return ("text", r"\fbox{\textbf{Erratum}} Claimed state " + prose(label) + ": " + FAIL + "; "
            + _mismatch_text(mismatch) + ". The proof claims $" + claimed_latex + "$.")


def representative_sizes(claim, limit: int = 4, variant=None) -> dict | None:
    """A small size assignment showing every block: sizes >= 2 where the hypotheses allow,
    channel counts (d, dp, ...) at their least, then the smallest total.

    >>> from symconv.registry import load_claims
    >>> representative_sizes([c for c in load_claims() if c.name == "add_n"][0])
    {'n': 2, 'N': 4, 'd': 1}
    """
    channels = {p.name: p.lo for p in claim.sizes if p.name.startswith("d")}
    for K in (limit + 2, limit + 4, limit + 8):
        sweep = [z for z in claim.sweep(K) if variant is None or not hasattr(variant, "applies")
                 or variant.applies(z)]
        if not sweep:
            continue
        pick = [z for z in sweep if all(z[k] == v for k, v in channels.items())] or sweep
        return max(pick, key=lambda z: (sum(v >= 2 for k, v in z.items() if k not in channels), -sum(z.values())))
    return None


MAX_LAYERS = 8  # concrete derivations of longer stacks show the first six and the last two layers


def _state_steps(inst) -> list:
    """The claimed intermediate states of an instance (steps of other kinds: products, calls,
    layer counts, are checked by verify and reported with the verdict)."""
    return [s for s in getattr(inst, "steps", ()) if getattr(s, "kind", "state") == "state"
            and getattr(s, "expected", None) is not None]


def _instance(claim, variant, sizes: Mapping):
    """The variant's instance at ``sizes`` (from its builder or its symbolic-size construction)."""
    if hasattr(variant, "instance"):
        return variant.instance(sizes, claim)
    return variant.build(sizes)


def _concrete_parts(claim, variant, sizes: dict) -> list:
    from .symbolic import ExactSeq, apply_layer, make_ring, stack_symbols

    inst = _instance(claim, variant, sizes)
    stack = inst.stack
    states = _state_steps(inst)
    blocks = [inst.input, inst.expected] + [s.expected for s in states]
    syms = set().union(*(b.free_symbols() for b in blocks)) | stack_symbols(stack)
    R = make_ring(syms)
    d = stack.d_int
    names = _symbol_names(list(syms), max(d, stack.d))
    size_text = sizes_math(sizes)
    parts = [("text", rf"Shown at one size, ${size_text}$ "
              f"(no symbolic-size description covers this variant's steps); "
              f"$(N, L, d, N', d') = ({stack.N}, {stack.L}, {stack.d}, {stack.N_int}, {stack.d_int})$.")]
    state = ExactSeq.from_block(R, inst.input).pad(stack.N_int, stack.d_int)
    new = state
    steps = {s.layers: s for s in states}
    L = stack.L
    shown = set(range(1, L + 1)) if L <= MAX_LAYERS else set(range(1, MAX_LAYERS - 1)) | {L - 1, L}
    for k, layer in enumerate(stack.layers, start=1):
        new = apply_layer(layer, state)
        if k not in shown:  # long stacks: the middle layers are checked, not typeset
            if k - 1 in shown:
                gap = max(x for x in range(k, L + 1) if x not in shown)
                parts.append(("text", f"Layers {k} to {gap} are not shown (each is checked exactly)."))
            step = steps.get(k)
            if step is not None:
                claimed = ExactSeq.from_block(R, step.expected)
                same = (claimed.N, claimed.d) == (new.N, new.d)
                ok = same and new.first_difference(claimed) is None
                parts.append(("text", ("" if ok else r"\fbox{\textbf{Erratum}} ") + "Claimed state "
                              + prose(step.label) + f" (after layer {k}): " + (HOLD if ok else FAIL) + "."))
                state = claimed if same else new
            else:
                state = new
            continue
        star = r"\ast" if layer.conv == "causal" else r"\circledast"
        W = np.asarray(layer.W, dtype=object)
        hasW = any(not (v == 0) for v in W.flat)
        h = np.asarray(layer.h, dtype=object)
        same = all(all(h[i, j] == h[i, 0] for j in range(h.shape[1])) for i in range(h.shape[0]))
        hl = poly_latex(list(h[:, 0]), names) if same else matrix_latex(h, names)
        gate = (rf"({_state(k - 1)}\boldsymbol{{W}}^{{{k}}} + \boldsymbol{{b}}^{{{k}}}_1)" if hasW else rf"\boldsymbol{{b}}^{{{k}}}_1")
        lbl = prose(layer.label) if layer.label else ""
        parts.append(("math", rf"\text{{Layer {k} of {stack.L}}}\quad {_state(k)} = {gate} \odot \left(\boldsymbol{{h}}^{{{k}}} {star} "
                      rf"{_state(k - 1)} + \boldsymbol{{b}}^{{{k}}}_2\right),\qquad \boldsymbol{{h}}^{{{k}}}"
                      + ("(X) = " + hl if same else " = " + hl)))
        if lbl:
            parts.append(("text", "(" + lbl + ")"))
        if hasW:
            parts.append(("math", rf"\boldsymbol{{W}}^{{{k}}} = " + matrix_latex(W, names)))
        cur = state.to_block().entries
        b1 = np.broadcast_to(np.asarray(layer.b1, dtype=object), (stack.N_int, d))
        b2 = np.broadcast_to(np.asarray(layer.b2, dtype=object), (stack.N_int, d))
        if d <= 2:  # the paper's picture: b1 ⊙ (h * z + b2) = z'
            parts.append(("math", rf"{_state(k)} = " + (matrix_latex(b1, names) if not hasW else r"(\cdots)")
                          + r" \odot \left(\boldsymbol{h}^{%d} %s " % (k, star) + matrix_latex(cur, names)
                          + " + " + matrix_latex(b2, names) + r"\right) = "
                          + matrix_latex(new.to_block().entries, names)))
        else:  # many channels: one matrix per line
            parts.append(("math", rf"\boldsymbol{{b}}^{{{k}}}_1 = " + matrix_latex(b1, names)
                          + rf",\qquad \boldsymbol{{b}}^{{{k}}}_2 = " + matrix_latex(b2, names)))
            parts.append(("math", rf"{_state(k)} = " + matrix_latex(new.to_block().entries, names)))
        step = steps.get(k)
        if step is not None:
            claimed = ExactSeq.from_block(R, step.expected)
            pos = new.first_difference(claimed) if (claimed.N, claimed.d) == (new.N, new.d) else (0, 0)
            if pos is None:
                parts.append(("text", "Claimed state " + prose(step.label) + ": " + HOLD + "."))
            else:
                i, j = pos
                g = new.cols[j][i].as_expr() if pos is not None else 0
                e = claimed.cols[j][i].as_expr()
                parts.append(("text", r"\fbox{\textbf{Erratum}} Claimed state " + prose(step.label) + ": " + FAIL
                              + f" at row {i}, channel {j}: the layer gives $" + entry_latex(g, names)
                              + "$, the proof claims $" + entry_latex(e, names) + "$."))
                parts.append(("math", r"\text{claimed: }" + matrix_latex(step.expected.entries, names)))
            state = claimed if (claimed.N, claimed.d) == (new.N, new.d) else new
        else:
            state = new
    out = new.top_left(stack.N, stack.d).to_block().entries  # what the last layer computes
    ok = all(sympy.expand(a - b) == 0 for a, b in zip(out.flat, inst.expected.entries.flat))
    parts.append(("text", "Output (top $N$ rows): " + (HOLD + " as claimed." if ok else FAIL + " against the claimed output:")))
    if not ok:
        parts.append(("math", r"\text{got }" + matrix_latex(out, names) + r"\quad\text{claimed }"
                      + matrix_latex(inst.expected.entries, names)))
    return parts


def derivation(claim, variant, verdict=None, size_limit: int = 4) -> Derivation:
    """The layer-by-layer derivation of one variant (symbolic sizes when possible).

    >>> from symconv.registry import load_claims
    >>> c = [c for c in load_claims() if c.name == "add_n"][0]
    >>> "X^{n} + 1" in derivation(c, c.variants[0]).latex()
    True
    """
    parts: list = []
    if verdict is not None:
        parts.append(("text", verdict_sentence(verdict)))
    if variant.note:
        parts.append(("text", r"\emph{" + prose(variant.note) + "}"))
    body = None
    try:
        from .parametric.scope import describe

        got = describe(claim, variant)
    except HypothesisError as exc:
        got = None
        parts.append(("text", "Symbolic-size description unusable: " + prose(readable(exc)) + "."))
    if got is not None:
        desc, facts = got
        from .parametric.check import Cases
        from .parametric.linear import Facts

        point = generic_point(claim, variant)
        if isinstance(desc, Cases):  # show the case of a generic size (else the first that admits sizes)
            leaves = [(f + Facts.of(*d.facts), d, t) for f, d, t in desc.leaves(facts)]
            leaves = [x for x in leaves if x[0].consistent()]
            at = [x for x in leaves if point is not None and x[0].holds_at(point)]
            facts, desc, text = (at or leaves)[0]
            parts.append(("text", "Case $" + math_plain(text) + "$ of the construction "
                          "(every case is checked)."))
        try:
            built = _instance(claim, variant, representative_sizes(claim, variant=variant) or {})
            covers = len(desc.steps) >= len(_state_steps(built))
        except Exception:  # noqa: BLE001 - a builder that needs other sizes: use the description
            covers = True
        if covers:
            body = _parametric_parts(claim, variant, desc, facts, point)
    if body is None:
        sizes = representative_sizes(claim, size_limit, variant)
        if sizes is None:
            body = [("text", "No sizes satisfy the hypotheses within the sweep; nothing to show.")]
        else:
            body = _concrete_parts(claim, variant, sizes)
    return Derivation(f"{claim.id} {claim.name} [{variant.name}]", tuple(parts + body))


def failure_latex(f) -> str:
    r"""A failure in words and formulas: sizes, step, layer, position, got and claimed, and an input.

    >>> from symconv.checking import Failure
    >>> print(failure_latex(Failure({"n": 1, "N": 2}, "z²", 2, (1, 0), "S[0,0] + 1", "S[0,0]", {}, "1", "0")))
    at $n = 1,\ N = 2$, claimed state z${}^{2}$ (after layer 2), row 1, channel 0: the layers give $S_{0,0} + 1$, the proof claims $S_{0,0}$; they differ on every input (there $1 \ne 0$)
    """
    i, j = tuple(f.position)[:2] if len(tuple(f.position)) >= 2 else (f.position, 0)
    step = "the output" if f.step == "output" else "claimed state " + prose(f.step)
    s = (f"at ${sizes_math(f.sizes)}$, {step} (after layer {int(f.layer)}), row {i}, channel {j}: "
         f"the layers give ${formula(f.got)}$, the proof claims ${formula(f.expected)}$")
    cx = dict(f.counterexample or {})
    if cx:
        point = r",\ ".join(f"{formula(k)} = {formula(v)}" for k, v in list(cx.items())[:6])
        more = r",\ \dots" if len(cx) > 6 else ""
        s += (f"; e.g. at ${point}{more}$ (other inputs 0) they are ${formula(f.got_value)}$ and "
              f"${formula(f.expected_value)}$")
    else:
        s += f"; they differ on every input (there ${formula(f.got_value)} \\ne {formula(f.expected_value)}$)"
    return s


def verdict_sentence(v) -> str:
    r"""One sentence: verdict, scope, and the failure where there is one.

    >>> from symconv.registry import load_claims
    >>> from symconv.claims import verify
    >>> c = [c for c in load_claims() if c.name == "shift_down"][0]
    >>> print(verdict_sentence(verify(c, max_size=3)[0])[:47])
    Verdict: \textbf{holds} (\textbf{for all sizes}
    """
    scope = (r"\textbf{for all sizes}" + prose(v.scope[len("all sizes"):]) if v.scope.startswith("all sizes")
             else prose(v.scope))
    s = ("Verdict: " + (HOLD if v.verdict == "holds" else FAIL) + f" ({scope}; "
         + f"{v.sizes_checked} sizes checked exactly")
    s += "" if v.ok else "; \\textbf{differs from the recorded " + escape(v.expect) + "}"
    s += ")."
    if v.failure is not None:
        s += " First failure " + failure_latex(v.failure) + "."
    steps = list(getattr(v, "steps", ()) or ())
    good = [prose(getattr(r, "label", "")) for r in steps if getattr(r, "holds", False)]
    if good:
        s += " Printed steps that hold on their own: " + "; ".join(good) + "."
    for r in steps:
        if not getattr(r, "holds", True):
            f = getattr(r, "failure", None)
            s += (" Printed step " + prose(getattr(r, "label", "")) + " fails on its own"
                  + (" " + failure_latex(f) if f is not None else "") + ".")
    if getattr(v, "parametric", ""):
        s += " " + prose(readable(v.parametric[0].upper() + v.parametric[1:])) + "."
    for b in getattr(v, "bounds", ()) or ():  # claimed bounds and their certificates (symconv.certificates)
        from .certificates.bounds import describe

        s += " Claimed bound " + prose(describe(b)) + "."
    return s


# ---------------------------------------------------------------- documents

PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage{amsmath,amssymb,graphicx,longtable}
\setlength{\textwidth}{6.5in}\setlength{\oddsidemargin}{0in}\setlength{\evensidemargin}{0in}
\setlength{\textheight}{9in}\setlength{\topmargin}{-0.5in}
\allowdisplaybreaks
\setlength{\parindent}{0pt}\setlength{\parskip}{4pt}
\sloppy\setlength{\emergencystretch}{3em}
% a display wider than the line is scaled down to it
\newsavebox{\scfitbox}
\newcommand{\scfit}[1]{\sbox{\scfitbox}{$\displaystyle #1$}%
  \ifdim\wd\scfitbox>\linewidth\resizebox{\linewidth}{!}{\usebox{\scfitbox}}\else\usebox{\scfitbox}\fi}
"""


def _checked(v) -> str:
    """The verdict's scope and box in the words of the verify table: ``all sizes; N ≤ 8, d ≤ 2 (caps: d ≤ 2); 16 points``."""
    box = getattr(v, "checked", "") or v.scope
    return (f"{v.scope}; " if v.scope.startswith("all sizes") else "") + box


def summary_table(verdicts: Sequence, rows_per_table: int = 0, problems: Mapping | None = None) -> str:
    r"""A longtable of verdicts (it breaks across pages and fits the line): result, name, variant,
    verdict, scope, recorded.  ``problems`` maps (id, name) of claims that could not be verified
    to the reason.

    >>> summary_table([], problems={("H.99", "x"): "no sizes"}).count("not verified")
    1
    """
    head = (r"{\small\setlength{\tabcolsep}{3pt}" "\n"
            r"\begin{longtable}{@{}p{0.45in}p{1.15in}p{1.75in}p{0.45in}p{1.75in}p{0.5in}@{}}" "\n"
            r"\hline result & name & variant & verdict & checked & as recorded \\ \hline\endhead" "\n"
            r"\hline\endfoot" "\n")
    rows = []
    for v in verdicts:
        rows.append(" & ".join([escape(v.id), escape(v.name).replace(r"\_", r"\_\allowbreak{}"), prose(v.variant),
                                (r"\textbf{fails}" if v.verdict == "fails" else "holds"),
                                prose(_checked(v)), "yes" if v.ok else r"\textbf{no}"]) + r" \\")
    for (cid, cname), why in (problems or {}).items():
        rows.append(" & ".join([escape(cid), escape(cname), "--", r"\textbf{not verified}",
                                escape(shorten(readable(why), 120)), "--"]) + r" \\")
    return head + "\n".join(rows) + "\n" r"\end{longtable}}"


def claim_section(claim, verdicts: Sequence, size_limit: int = 4, problem: str = "", brief: bool = False) -> str:
    r"""One claim: statement, then each variant's verdict and derivation.

    ``brief``: the statement, every verdict with its failure (errata), and the derivation of
    the variants that hold (the corrected construction) only.

    >>> from symconv.registry import load_claims
    >>> c = [c for c in load_claims() if c.name == "shift_down"][0]
    >>> print(claim_section(c, []).splitlines()[0])
    \section*{H.8 \texttt{shift\_down}}
    """
    out = [rf"\section*{{{escape(claim.id)} \texttt{{{escape(claim.name)}}}}}",
           prose(getattr(claim, "full_statement", claim.statement)) + "."]
    if problem:
        out.append(r"\textbf{Not verified:} " + prose(readable(problem)) + ".")
    for a in getattr(claim, "assumptions", ()) or ():
        out.append(r"\emph{Assumption:} " + prose(a) + ".")
    by_name = {v.variant: v for v in verdicts if v.id == claim.id and v.name == claim.name}
    for variant in claim.variants:
        out.append(rf"\subsection*{{{prose(variant.name)}}}")
        verdict = by_name.get(variant.name)
        if brief and variant.expect != "holds":  # an erratum: its verdict and where it fails
            if variant.note:
                out.append(r"\emph{" + prose(variant.note) + "}")
            out.append(r"\fbox{\textbf{Erratum}} " + (verdict_sentence(verdict) if verdict is not None
                                                       else "Recorded as failing."))
            continue
        try:
            d = derivation(claim, variant, verdict, size_limit)
            out.append(d.latex())
        except Exception as exc:  # noqa: BLE001 - one variant must not sink the document
            out.append(FAIL + " to render this variant: " + escape(readable(f"{type(exc).__name__}: {exc}")))
    return "\n\n".join(out)


def document(claims: Sequence, verdicts: Sequence, title: str = "Appendix H, checked by symconv",
             size_limit: int = 4, problems: Mapping | None = None, brief: bool = False) -> str:
    """A standalone document: summary table of verdicts, then every claim's derivations
    (``brief``: see :func:`claim_section`).

    >>> from symconv.registry import load_claims
    >>> from symconv.claims import verify
    >>> c = [c for c in load_claims() if c.name == "add_n"]
    >>> doc = document(c, verify(c[0], max_size=4))
    >>> doc.startswith("\\\\documentclass") and doc.rstrip().endswith("\\\\end{document}")
    True
    """
    body = [PREAMBLE, r"\begin{document}", rf"\section*{{{prose(title)}}}",
            "Every result below is checked exactly: verdicts with scope \\emph{all sizes} are proved for "
            "every size allowed by the hypotheses in the block algebra with symbolic sizes (and cross-checked "
            "against the exact interpreter on a sweep); the others hold or fail on the sweep of sizes shown. "
            "Layer $\\ell$ computes $\\boldsymbol{z}^{\\ell} = (\\boldsymbol{z}^{\\ell-1}\\boldsymbol{W} + \\boldsymbol{b}_1) \\odot "
            "(\\boldsymbol{h} \\ast \\boldsymbol{z}^{\\ell-1} + \\boldsymbol{b}_2)$; $\\ast$ is the product mod $X^{N}$, "
            "$\\circledast$ mod $X^{N}-1$. Claimed states that fail are marked \\fbox{\\textbf{Erratum}}.",
            r"\subsection*{Summary of verdicts}", summary_table(verdicts, problems=problems)]
    for c in claims:
        body.append(claim_section(c, verdicts, size_limit, (problems or {}).get((c.id, c.name), ""), brief))
    body.append(r"\end{document}")
    return "\n\n".join(body) + "\n"


MAX_STACK_LAYERS = 8  # notebook displays of longer stacks show the first six and the last two layers
MAX_FILTER_TERMS = 8


def _filter_latex(column: Sequence[Any]) -> str:
    nz = [k for k, c in enumerate(column) if _expr(c) != 0]
    if len(nz) <= MAX_FILTER_TERMS:
        return poly_latex(list(column))
    keep = set(nz[:3] + nz[-3:])
    head = poly_latex([c if k in keep and k >= nz[-3] else 0 for k, c in enumerate(column)])
    tail = poly_latex([c if k in keep and k <= nz[2] else 0 for k, c in enumerate(column)])
    return head + r" + \cdots\text{ (%d terms)} + " % (len(nz) - 6) + tail


def stack_latex(stack) -> str:
    r"""A stack's layers as equations (for notebooks; only macros MathJax knows).  A long stack
    shows its first six and last two layers, a long filter its first and last terms.

    >>> from symconv.constructions.shifts import shift_down
    >>> "X^{2}" in stack_latex(shift_down(4, 2))
    True
    """
    lines = []
    L = len(stack.layers)
    shown = set(range(1, L + 1)) if L <= MAX_STACK_LAYERS else set(range(1, MAX_STACK_LAYERS - 1)) | {L - 1, L}
    for k, layer in enumerate(stack.layers, start=1):
        if k not in shown:
            if k - 1 in shown:
                lines.append(r"&\vdots\quad\text{(layers %d to %d)}" % (k, L - 2))
            continue
        h = np.asarray(layer.h, dtype=object)
        star = r"\ast" if layer.conv == "causal" else r"\circledast"
        lines.append(rf"\boldsymbol{{z}}^{{{k}}} &= \left(\boldsymbol{{z}}^{{{k - 1}}}\boldsymbol{{W}}^{{{k}}} + \boldsymbol{{b}}^{{{k}}}_1\right)"
                     rf" \odot \left(\boldsymbol{{h}}^{{{k}}} {star} \boldsymbol{{z}}^{{{k - 1}}} + \boldsymbol{{b}}^{{{k}}}_2\right),"
                     rf"\quad \boldsymbol{{h}}^{{{k}}}_0(X) = {_filter_latex(list(h[:, 0]))}")
    sig = stack.signature
    head = (math_escape(shorten(stack.name or "stack", 80)) + r"\text{: }"
            + f"(N, L, d, N', d') = ({sig.N}, {sig.L}, {sig.d}, {sig.N_int}, {sig.d_int})")
    return r"\begin{aligned}" + head + r"\\" + r"\\".join(lines) + r"\end{aligned}"


def verdict_markdown(v) -> str:
    """A verdict as one markdown line (for notebooks).

    >>> from symconv.registry import load_claims
    >>> from symconv.claims import verify
    >>> c = [c for c in load_claims() if c.name == "shift_down"][0]
    >>> verdict_markdown(verify(c, max_size=3)[0])[:52]
    '**H.8 shift_down** [construction]: **holds** (all si'
    """
    s = f"**{v.id} {v.name}** [{v.variant}]: **{v.verdict}** ({v.scope}, {v.sizes_checked} sizes)"
    if not v.ok:
        s += f", recorded {v.expect}"
    if v.failure is not None:  # in words and formulas (MathJax), not Python's text
        s += "; fails " + _md(failure_latex(v.failure))
    if getattr(v, "parametric", ""):
        s += "; " + _md(prose(readable(v.parametric)))
    return s
