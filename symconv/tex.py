r"""Any text as LaTeX that compiles and shows it: escaping, prose with formulas, formula text.

Three entry points, all total (every string gives LaTeX that compiles with
amsmath and amssymb, and loses no character):

* :func:`escape`: text mode.  The ten specials are escaped, the Unicode the
  proofs use (⊙ ≤ Δ γ ᵀ ² ₁ …) becomes math (``$\odot$``, ``${}^{\mathsf{T}}$``),
  accented letters become accent commands (š → ``\v{s}``), and any other
  character is shown by its code point (``[U+6F22]``), never dropped or
  replaced by ``?``.
* :func:`prose`: text mode, but the pseudo-formulas of the statements
  (``R^{N×d}``, ``S^{k/2}``, ``e_{N-s}``, ``X^i``) are typeset in math mode.
* :func:`math_escape`: the same text inside math mode (only macros MathJax
  knows, so notebook output renders).

Nothing here parses text as code: formulas are recognised by regular
expressions over a fixed alphabet, everything else is escaped.

>>> escape("50% of {x} ⊙ Δ")
'50\\% of \\{x\\} $\\odot$ $\\Delta$'
>>> prose("c ∈ R^{N×d}")
'c $\\in$ $R^{N\\times d}$'
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any

_TEXT_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "%": r"\%", "_": r"\_", "^": r"\^{}", "~": r"\~{}",
}
_MATH_SPECIAL = {
    "\\": r"\backslash ", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "%": r"\%", "_": r"\_", "^": r"\hat{\ }", "~": r"\sim ",
}
# symbols typeset in math mode, in text and in math alike
MATH_CHARS = {
    "<": "<", ">": ">", "|": "|",
    "⊙": r"\odot", "⊛": r"\circledast", "∗": "*", "·": r"\cdot", "…": r"\dots", "⋯": r"\cdots",
    "⋮": r"\vdots", "≤": r"\le", "≥": r"\ge", "≠": r"\ne", "→": r"\to", "←": r"\leftarrow",
    "↔": r"\leftrightarrow", "⇒": r"\Rightarrow", "⇔": r"\Leftrightarrow", "↦": r"\mapsto",
    "−": "-", "×": r"\times", "÷": r"\div", "±": r"\pm", "∈": r"\in", "∉": r"\notin",
    "ℝ": r"\mathbb{R}", "ℕ": r"\mathbb{N}", "ℤ": r"\mathbb{Z}", "ℚ": r"\mathbb{Q}", "ℂ": r"\mathbb{C}",
    "𝔽": r"\mathbb{F}", "⌊": r"\lfloor", "⌋": r"\rfloor", "⌈": r"\lceil", "⌉": r"\rceil",
    "∑": r"\sum", "∏": r"\prod", "∫": r"\int", "√": r"\surd", "∂": r"\partial", "∇": r"\nabla",
    "ℓ": r"\ell", "∞": r"\infty", "′": "'", "″": "''", "⊗": r"\otimes", "⊕": r"\oplus", "∘": r"\circ",
    "≡": r"\equiv", "≈": r"\approx", "∼": r"\sim", "≃": r"\simeq", "≅": r"\cong", "∝": r"\propto",
    "≪": r"\ll", "≫": r"\gg", "⊂": r"\subset", "⊆": r"\subseteq", "⊃": r"\supset", "⊇": r"\supseteq",
    "∪": r"\cup", "∩": r"\cap", "∅": r"\emptyset", "∧": r"\wedge", "∨": r"\vee", "¬": r"\neg",
    "∀": r"\forall", "∃": r"\exists", "⟨": r"\langle", "⟩": r"\rangle", "‖": r"\|", "∣": r"\mid",
    "°": r"{}^{\circ}", "†": r"{}^{\dagger}",
}
_SUPER = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱʲᵏˡᵐᵗˣᵈ", "0123456789+-=()nijklmtxd"))
_SUPER["ᵀ"] = r"\mathsf{T}"
_SUB = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₙᵢⱼₖₗₘₜₓₚₛ", "0123456789+-=()nijklmtxps"))
_TEXT_ONLY = {"–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''", "\u00a0": "~",
              "ß": r"\ss{}", "æ": r"\ae{}", "Æ": r"\AE{}", "ø": r"\o{}", "Ø": r"\O{}", "ł": r"\l{}",
              "Ł": r"\L{}", "œ": r"\oe{}", "Œ": r"\OE{}", "å": r"\aa{}", "Å": r"\AA{}", "ı": r"\i{}",
              "«": r"$\ll$", "»": r"$\gg$", "¡": r"!`", "¿": r"?`", "§": r"\S{}", "¶": r"\P{}",
              "£": r"\pounds{}", "©": r"\copyright{}", "•": r"$\bullet$"}
_ACCENT_TEXT = {"\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=", "\u0306": "u",
                "\u0307": ".", "\u0308": '"', "\u030a": "r", "\u030b": "H", "\u030c": "v", "\u0327": "c",
                "\u0328": "k", "\u0323": "d", "\u0331": "b"}
_ACCENT_MATH = {"\u0300": "grave", "\u0301": "acute", "\u0302": "hat", "\u0303": "tilde", "\u0304": "bar",
                "\u0306": "breve", "\u0307": "dot", "\u0308": "ddot", "\u030c": "check"}
_GREEK_CAPS = {"Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega"}
_GREEK_VAR = {"final sigma": r"\varsigma", "epsilon": r"\varepsilon", "omicron": "o"}


def _greek(ch: str) -> str | None:
    name = unicodedata.name(ch, "")
    m = re.fullmatch(r"GREEK (SMALL|CAPITAL) LETTER ([A-Z ]+)", name)
    if not m:
        return None
    letter = m.group(2).lower()
    if m.group(1) == "SMALL":
        return _GREEK_VAR.get(letter) or ("\\" + letter if " " not in letter else None)
    cap = letter.capitalize()
    if cap in _GREEK_CAPS:
        return "\\" + cap
    base = unicodedata.lookup(f"GREEK CAPITAL LETTER {m.group(2)}")
    latin = {"Alpha": "A", "Beta": "B", "Epsilon": "E", "Zeta": "Z", "Eta": "H", "Iota": "I", "Kappa": "K",
             "Mu": "M", "Nu": "N", "Omicron": "O", "Rho": "P", "Tau": "T", "Chi": "X"}.get(cap)
    return r"\mathrm{" + latin + "}" if latin and base else None


def _codepoint(ch: str) -> str:
    return f"[U+{ord(ch):04X}]"


def _segments(text: str, math: bool) -> list[tuple[str, str]]:
    """(mode, LaTeX) pieces of ``text``: mode "t" (text) or "m" (math)."""
    out: list[tuple[str, str]] = []
    for ch in text:
        if ch in _TEXT_SPECIAL:
            out.append(("m", _MATH_SPECIAL[ch]) if math else ("t", _TEXT_SPECIAL[ch]))
        elif ch in MATH_CHARS:
            out.append(("m", MATH_CHARS[ch]))
        elif ch in _SUPER:
            out.append(("m", "{}^{" + _SUPER[ch] + "}"))
        elif ch in _SUB:
            out.append(("m", "{}_{" + _SUB[ch] + "}"))
        elif ch in ("\n", "\t", "\r"):
            out.append(("t", " "))
        elif 32 <= ord(ch) < 127:
            out.append(("t", ch))
        elif _greek(ch):
            out.append(("m", _greek(ch)))
        elif ch in _TEXT_ONLY and not math:
            out.append(("t", _TEXT_ONLY[ch]))
        else:
            out.append(_accented(ch, math))
    # a control word followed by a letter would run into it (\le N, not \leN)
    return [(m, p + " ") if m == "m" and re.search(r"\\[A-Za-z]+$", p) else (m, p) for m, p in out]


def _accented(ch: str, math: bool) -> tuple[str, str]:
    parts = unicodedata.normalize("NFD", ch)
    base, marks = parts[:1], parts[1:]
    table = _ACCENT_MATH if math else _ACCENT_TEXT
    if base.isascii() and base.isalpha() and marks and all(m in table for m in marks):
        if base in "ij" and not math:
            base = "\\" + base  # dotless i, j under an accent
        body = base
        for m in marks:
            body = ("\\" + table[m] + "{" + body + "}") if math else ("\\" + table[m] + "{" + body + "}")
        return ("m", body) if math else ("t", body)
    return ("m", r"\text{" + _codepoint(ch) + "}") if math else ("t", r"\texttt{" + _codepoint(ch) + "}")


def _join(segs: list[tuple[str, str]]) -> str:
    out, math = [], []
    for mode, s in segs:
        if mode == "m":
            math.append(s)
            continue
        if math:
            out.append("$" + "".join(math).rstrip() + "$")
            math = []
        out.append(s)
    if math:
        out.append("$" + "".join(math).rstrip() + "$")
    return "".join(out)


def escape(text: Any) -> str:
    r"""Text made safe for LaTeX text mode; every character is shown.

    >>> escape("b²₁ ≤ N, š, 漢")
    'b${}^{2}{}_{1}$ $\\le$ N, \\v{s}, \\texttt{[U+6F22]}'
    """
    s = str(text).replace(">=", "≥").replace("<=", "≤").replace("!=", "≠").replace("->", "→")
    return _join(_segments(s, math=False))


def math_escape(text: Any) -> str:
    r"""Text for math mode: letters and digits in ``\text{}``, everything else as math symbols.

    >>> math_escape("z¹ {a_b}")
    '\\text{z}{}^{1}\\text{ }\\{\\text{a}\\_\\text{b}\\}'
    """
    out, run = [], []
    for mode, s in _segments(str(text), math=True):
        if mode == "t":
            run.append(s)
            continue
        if run:
            out.append(r"\text{" + "".join(run) + "}")
            run = []
        out.append(s)
    if run:
        out.append(r"\text{" + "".join(run) + "}")
    return "".join(out) or "{}"


def math_plain(text: Any) -> str:
    r"""Formula-like text for math mode: ASCII letters, digits and operators as they are (so
    letters are math italics), specials and Unicode as math symbols.

    >>> math_plain("[N - s <= s] ⊙ y_1 {$}")
    '[N - s \\le s] \\odot y\\_1 \\{\\$\\}'
    """
    s = str(text).replace(">=", "≥").replace("<=", "≤").replace("!=", "≠").replace("->", "→")
    return "".join(p for _, p in _segments(s, math=True)).replace("  ", " ").strip() or "{}"


def math_text(text: Any) -> str:
    r"""Free text inside math mode (an alias of :func:`math_escape`).

    >>> math_text("z¹")
    '\\text{z}{}^{1}'
    """
    return math_escape(text)


# ---------------------------------------------------------------- prose with formulas

_SAFE_MATH = re.compile(r"^[A-Za-z0-9 +\-*/=,.:;()\[\]<>|'^_{}⊙⊛·…≤≥≠→←×−∈ℝℓ∞⊗⊕∘≡λαβγδεμσπωΔΣ]*$")
_PLAIN = r"[^{}$\\%#&~]"
_SCRIPT = (r"(?:\{(?:" + _PLAIN + r"|\{" + _PLAIN + r"{1,20}\}){1,60}\}"  # one level of nested braces
           r"|\([A-Za-z0-9+\-]{1,12}\)|[A-Za-z0-9]+)")
_FORMULA = re.compile(r"(?<![A-Za-z0-9\\])([A-Za-z0-9α-ωΔΣΓΛΩΦΨΠΘ]|\))((?:[\^_]" + _SCRIPT + r")+)")
_ONE_SCRIPT = re.compile(r"([\^_])(" + _SCRIPT + ")")


def _math_body(s: str) -> str:
    """Formula text over a safe alphabet as math (letters and operators as they are)."""
    out = []
    for ch in s:
        if ch in MATH_CHARS:
            out.append(MATH_CHARS[ch] + (" " if MATH_CHARS[ch][-1:].isalpha() else ""))
        elif _greek(ch):
            out.append(_greek(ch) + " ")
        else:
            out.append(ch)
    return "".join(out).strip()


def _formula(m: re.Match) -> str | None:
    base, scripts = m.group(1), m.group(2)
    parts = []
    for op, arg in _ONE_SCRIPT.findall(scripts):
        body = arg[1:-1] if arg.startswith("{") else arg
        if not _SAFE_MATH.match(body):
            return None
        parts.append(op + "{" + _math_body(body) + "}")
    if "".join(op + a for op, a in _ONE_SCRIPT.findall(scripts)) != scripts:
        return None
    # a subscript on a word is an identifier (add_n), not a formula: the regex takes one character
    return "$" + _math_body(base) + "".join(parts) + "$"


def prose(text: Any) -> str:
    r"""Text with its pseudo-formulas typeset: ``X^{...}``, ``X^k``, ``x_{...}``, ``x_i`` on a
    one-character base become math; identifiers such as ``add_n`` stay text.

    >>> prose("(1^{N-s} | 0^s) ⊙ (e_{N-s} ⊛ y); add_n")
    '($1^{N-s}$ $|$ $0^{s}$) $\\odot$ ($e_{N-s}$ $\\circledast$ y); add\\_n'
    """
    s = str(text)
    out, pos = [], 0
    for m in _FORMULA.finditer(s):
        f = _formula(m)
        if f is None:
            continue
        out.append(escape(s[pos:m.start()]))
        out.append(f)
        pos = m.end()
    out.append(escape(s[pos:]))
    return "".join(out)


_DICT = re.compile(r"\{((?:'[^'{}]*': [^,{}']+(?:, )?)+)\}")


def readable(text: Any) -> str:
    """A library message with Python's dict text (``{'n': 1, 'N': 2}``) written as ``n = 1, N = 2``.

    >>> readable("at sizes {'n': 1, 'N': 2}: no")
    'at sizes n = 1, N = 2: no'
    """
    return _DICT.sub(lambda m: re.sub(r"'([^']*)': ", r"\1 = ", m.group(1)), str(text))


def shorten(text: Any, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, with an ellipsis (cut
    before escaping, so no escape is ever cut in half).

    >>> shorten("one two three", 9)
    'one two…'
    """
    s = " ".join(str(text).split())
    if len(s) <= limit:
        return s
    cut = s[: max(1, limit - 1)]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut + "…"


# ---------------------------------------------------------------- formula text (sympy's str)

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?(?:e[+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                    r"(?P<idx>\[\d+(?:,\s*\d+)*\])?|(?P<op>\*\*|[-+*/()]))")
MAX_TOKENS = 60


def _name_math(name: str, idx: str | None) -> str:
    base, _, sub = name.partition("_")
    if len(base) == 1:
        head = base
    else:
        g = {"gamma", "alpha", "beta", "delta", "lambda", "mu", "sigma", "omega", "pi", "theta", "tau", "phi"}
        head = "\\" + base if base in g else r"\mathrm{" + base + "}"
    subs = [s for s in (sub.replace("_", r"\_"), (idx or "")[1:-1].replace(" ", "")) if s]
    return head + ("_{" + ",".join(subs) + "}" if subs else "")


def formula(text: Any) -> str:
    r"""A formula written as sympy prints it (``S[0,0] + x[0,0]**2 - 3*y``) as math-mode LaTeX;
    text that is not such a formula is shown as escaped text.  Long formulas are cut at a
    term, with the number of terms left out.

    >>> formula("S[0,0] + 2*x[1,0]**2")
    'S_{0,0} + 2\\,x_{1,0}^{2}'
    >>> formula("{'a': 1}")
    "\\{\\text{'a': 1}\\}"
    """
    s = str(text)
    toks, pos = [], 0
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if not m or m.end() == pos:
            if s[pos:].strip() == "":
                break
            return math_escape(s)
        toks.append(m)
        pos = m.end()
    out, i, terms, depth = [], 0, 0, 0
    while i < len(toks):
        m = toks[i]
        if m.group("op") in ("+", "-") and depth == 0 and i > 0:
            terms += 1
            if len(out) > MAX_TOKENS:
                rest = sum(1 for t in toks[i:] if t.group("op") in ("+", "-"))
                out.append(r"+ \cdots\text{ (%d more terms)}" % rest)
                break
        if m.group("num"):
            out.append(m.group("num"))
        elif m.group("name"):
            out.append(_name_math(m.group("name"), m.group("idx")))
        else:
            op = m.group("op")
            if op == "**":
                nxt = toks[i + 1] if i + 1 < len(toks) else None
                if nxt is not None and nxt.group("op") == "(":
                    j, d = i + 1, 0
                    while j < len(toks):
                        d += {"(": 1, ")": -1}.get(toks[j].group("op") or "", 0)
                        if d == 0:
                            break
                        j += 1
                    inner = "".join(t.group(0) for t in toks[i + 2:j])
                    out.append("^{" + formula(inner) + "}")
                    i = j + 1
                    continue
                if nxt is not None:
                    out.append("^{" + (nxt.group("num") or _name_math(nxt.group("name") or "", nxt.group("idx"))
                                       if not nxt.group("op") else nxt.group("op")) + "}")
                    i += 2
                    continue
            depth += {"(": 1, ")": -1}.get(op, 0)
            unary = op == "-" and (i == 0 or (toks[i - 1].group("op") or "") in ("(", "*", "/", "**"))
            out.append("-" if unary else {"*": r"\,", "+": " + ", "-": " - ", "/": "/"}.get(op, op))
        i += 1
    return "".join(out).strip().replace("  ", " ") or "{}"


def sizes_math(sizes: Any) -> str:
    r"""A size assignment as math: ``n = 1,\ N = 2``.

    >>> sizes_math({"n": 1, "N'": 2})
    "n = 1,\\ N' = 2"
    """
    items = dict(sizes or {}).items()
    if not items:
        return r"\text{no sizes}"
    return r",\ ".join(f"{_math_body(str(k)) if _SAFE_MATH.match(str(k)) else math_escape(k)} = {int(v)}"
                       if isinstance(v, int) else f"{math_escape(k)} = {math_escape(v)}" for k, v in items)


# Macros MathJax (v2 and v3, default TeX input with AMS) typesets without extensions to load by
# hand; notebook output (display hooks, Derivation markdown) uses only these.
MATHJAX_MACROS = frozenset("""
left right begin end text mathrm mathsf mathbb mathbf mathit boldsymbol operatorname displaystyle
cdot cdots vdots ddots dots ldots odot ast circledast times div pm le ge ne leq geq neq lt gt to
leftarrow rightarrow leftrightarrow Rightarrow Leftrightarrow mapsto in notin lfloor rfloor lceil
rceil sum prod int surd sqrt partial nabla ell infty otimes oplus circ equiv approx sim simeq cong
propto ll gg subset subseteq supset supseteq cup cap emptyset wedge vee neg forall exists langle
rangle mid backslash hat check acute grave ddot tilde bar breve dot dagger bullet hline quad qquad
frac tfrac dfrac pmod bmod mod overline underline not vert lvert rvert
alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi
varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega
Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega
""".split()) | {",", ";", "!", " ", "_", "{", "}", "$", "%", "#", "&", "|", "\\"}
"""Control words (and control symbols) MathJax knows by default."""
