"""LaTeX that reads like the paper (issue 13.4) and escapes any text (issue 12.8)."""
import re
import shutil
import subprocess
import unicodedata

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from symconv import Claim, Instance, Signature, SizeParam, Step, Variant, sym, verify, zeros
from symconv.blocks import rows
from symconv.cli import main
from symconv.constructions.shifts import shift_down
from symconv.latex import (
    MATHJAX_MACROS, PREAMBLE, block_latex, break_lines, derivation, document, escape, name_latex,
    poly_latex, representative_sizes, stack_latex,
)
from symconv.model import HypothesisError
from symconv.registry import load_claims
from symconv.tex import formula, math_escape, prose, shorten

PDFLATEX = shutil.which("pdflatex")
needs_pdflatex = pytest.mark.skipif(PDFLATEX is None, reason="pdflatex not installed (.ci/run installs it)")


def claim(name):
    return [c for c in load_claims() if c.name == name][0]


def variant(c, name):
    return [v for v in c.variants if v.name == name][0]


def compile_tex(tmp_path, text, name="doc"):
    """Compile; return the log.  Fails on an error, a missing character or an overfull box > 10 pt."""
    (tmp_path / f"{name}.tex").write_text(text, encoding="ascii")
    r = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
                       cwd=tmp_path, capture_output=True, text=True, errors="replace", timeout=120)
    log = (tmp_path / f"{name}.log").read_text(errors="replace")
    assert r.returncode == 0, r.stdout[-3000:]
    assert (tmp_path / f"{name}.pdf").stat().st_size > 1000
    assert "Missing character" not in log
    return log


def overfull(log: str) -> list[float]:
    return [float(x) for x in re.findall(r"Overfull \\[hv]box \(([0-9.]+)pt too", log)]


# ---------------------------------------------------------------- escaping (issue 12.8)


HOSTILE = "evil_%$#&{}~^\\end{document} ⊙ b²₁ ≤ N → 漢字 \x07 Δ ᵀ š <>|"


def test_escape_shows_every_character_and_gives_ascii():
    out = escape(HOSTILE)
    assert out.isascii()
    assert "\\end{document}" not in out and "?" not in out
    for piece in (r"\%", r"\#", r"\&", r"\$", r"\{", r"\}", r"\textbackslash{}", r"$\odot$", r"\v{s}",
                  r"\texttt{[U+6F22]}", r"\texttt{[U+0007]}", r"$\Delta$", r"{}^{\mathsf{T}}", "$<>|$"):
        assert piece in out, piece


def test_the_characters_the_issue_lists():
    text = "$ \\ { } % # < > | ≤ Δ ᵀ ⁺ ⁻ γ"
    out = escape(text)
    assert out == (r"\$ \textbackslash{} \{ \} \% \# $<$ $>$ $|$ $\le$ $\Delta$ ${}^{\mathsf{T}}$ "
                   r"${}^{+}$ ${}^{-}$ $\gamma$")


def test_math_in_statements_is_typeset():
    assert prose("c ∈ R^{N×d}") == r"c $\in$ $R^{N\times d}$"
    assert prose("S^{k/2}D₃") == r"$S^{k/2}$D${}_{3}$"
    assert prose("x_{i-j} and add_n") == r"$x_{i-j}$ and add\_n"  # an identifier stays text
    assert prose("a^{$\\x}") == r"a\^{}\{\$\textbackslash{}x\}"   # not a formula: escaped


def test_formula_text_becomes_math_never_code():
    assert formula("S[0,0] + x[0,0] + 1") == "S_{0,0} + x_{0,0} + 1"
    assert formula("-y[1,0]**2*gamma") == r"-y_{1,0}^{2}\,\gamma"
    assert formula("3*(-2 + a)") == r"3\,(-2 + a)"
    assert formula("__import__('os')") == math_escape("__import__('os')")
    long = formula(" + ".join(f"x[{i},0]" for i in range(200)))
    assert long.endswith(r"+ \cdots\text{ (169 more terms)}") and long.count("x_") == 31


def test_truncation_never_cuts_an_escape():
    s = "%" * 100 + " Δ" * 50
    cut = shorten(s, 60)
    assert len(cut) <= 60 and cut.endswith("…")
    out = escape(cut)
    assert out.count("{") == out.count("}") and not out.endswith("\\")


def test_block_names_that_are_not_latex_are_rejected():
    with pytest.raises(HypothesisError, match="name"):
        name_latex("x}\\input{secret")
    assert name_latex("h_1") == r"\boldsymbol{h}_{1}"


def test_entries_are_never_parsed_from_text():
    with pytest.raises(HypothesisError, match="entry"):
        poly_latex(["__import__('os').system('true')"])


def test_poly_and_block_rendering():
    assert poly_latex([1, 0, 0, 2]) == "2X^{3} + 1"
    assert block_latex(sym("x", 2)) == "\\left(\\begin{array}{c}{x}_{0} \\\\\n{x}_{1}\\end{array}\\right)"


ALPHABET = st.one_of(
    st.sampled_from(list("$\\{}%#&_^~<>|≤≥Δᵀ⁺⁻γ⊙⊛·…→×∈ℝ²₁šé漢\x07\n\t ") + ["--", ">=", "->", "\\end{document}"]),
    st.characters(codec="utf-8", exclude_categories=("Cs",)),
)
TEXT = st.lists(ALPHABET, min_size=0, max_size=25).map("".join)


@needs_pdflatex
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.tuples(TEXT, TEXT, TEXT), min_size=10, max_size=10))
@example(texts=[("", "", "")] * 9  # pdflatex's output once held bytes that are not UTF-8
         + [("", "", "$$$$$$$$$%%%\u2026\u6f22\\end{document}\x1f\x1f\x1f\u00a7\U00010000\U00010000\U00010000")])
def test_random_text_always_compiles(tmp_path, texts):
    """30 random strings in 3 documents (one compile each): every one compiles, nothing is lost."""
    body = [PREAMBLE, r"\begin{document}"]
    for name, statement, note in texts:
        body += [escape(name), prose(statement), r"\emph{" + prose(note) + "}",
                 r"\(" + math_escape(name) + r"\)", r"\[" + math_escape(statement) + r"\]",
                 escape(shorten(note, 7))]
    body.append(r"\end{document}")
    text = "\n\n".join(body)
    assert text.isascii()
    compile_tex(tmp_path, text)


# ---------------------------------------------------------------- derivations


def test_h9_derivation_reads_like_the_paper():
    c = claim("add_n")
    text = derivation(c, variant(c, "as printed")).latex()
    assert r"\boldsymbol{h}^{1}(X) = X^{n} + 1" in text
    assert (r"\left(X^{n} + 1\right)\cdot\left(\boldsymbol{S}(X)\cdot X^{n} + \boldsymbol{x}(X)\right)"
            in text)
    assert (r"= \boldsymbol{S}(X)\cdot X^{2n} + (\boldsymbol{S} + \boldsymbol{x})(X)\cdot X^{n} + "
            r"\boldsymbol{x}(X)" in text)
    assert r"\boldsymbol{0}^{n} \\ \hline \boldsymbol{1}^{n} \\ \hline \boldsymbol{0}^{N - 2n}" in text
    assert "Erratum" not in text and r"\scfit{" in text


def test_failing_printed_step_is_marked_with_its_rows():
    c = claim("add_n")
    (v,) = verify(c, max_size=4, variants=["printed call"])
    text = derivation(c, variant(c, "printed call"), v).latex()
    assert text.count("Erratum") == 1
    assert ("rows $[n, 2n)$ hold $1 + \\boldsymbol{S} + \\boldsymbol{x}$ but the proof claims "
            "$\\boldsymbol{S} + \\boldsymbol{x}$") in text
    assert r"\textbf{for all sizes}" in text
    # the failure in words and formulas: no Python dict, no ** power
    assert "First failure at $n = 1,\\ N = 2,\\ d = 1$" in text
    assert "the layers give $S_{0,0} + x_{0,0} + 1$, the proof claims $S_{0,0} + x_{0,0}$" in text
    assert "{'" not in text and "**" not in text


def test_concrete_fallback_marks_the_coefficient():
    """H.8's printed shift_up has a reversal step: shown at one size, its failing row named."""
    c = claim("shift_up")
    sizes = representative_sizes(c)
    assert sizes == {"N": 3, "s": 2, "d": 1}
    text = derivation(c, variant(c, "as printed, ⊛ circular")).latex()
    assert "Shown at one size, $N = 3,\\ s = 2,\\ d = 1$" in text
    assert "fails} at row 0, channel 0: the layer gives ${y}_{0}$, the proof claims ${y}_{2}$" in text


def test_long_formulas_break_at_their_relations():
    body = "a = " + " + ".join(["b"] * 80) + r" \equiv c = d"
    out = break_lines(body)
    assert out.startswith(r"\begin{aligned}a &= b") and out.count(r"\\") == 2
    assert "&\\equiv c" in out and "&= d" in out
    inner = r"\left(a = b\right) = " + "x + " * 60 + "y"
    assert break_lines(inner) == inner  # one top-level relation: nothing to break


# ---------------------------------------------------------------- notebooks (MathJax)


def macros(latex: str) -> set[str]:
    return set(re.findall(r"\\([A-Za-z]+|.)", latex))


def math_of_markdown(md: str) -> list[str]:
    return re.findall(r"(?<!\\)\$\$?(.+?)(?<!\\)\$\$?", md, re.S)


def test_notebook_output_uses_only_mathjax_macros():
    from symconv.parametric import psym, pzeros, size

    c = claim("add_n")
    stack = c.variants[0].instance({"n": 1, "N": 2, "d": 1}, c).stack
    outputs = [sym("x", 2, 2)._repr_latex_(), stack._repr_latex_(),
               (psym("x", size("n")) | pzeros(size("N") - size("n")))._repr_latex_()]
    for name in ("add_n", "shift_up"):
        cl = claim(name)
        for var in cl.variants:
            d = derivation(cl, var, verify(cl, max_size=3, variants=[var.name])[0])
            outputs.append(d._repr_latex_())
            outputs += math_of_markdown(d._repr_markdown_())
    used = set().union(*(macros(o) for o in outputs))
    assert "bm" not in used
    assert used <= MATHJAX_MACROS, sorted(used - MATHJAX_MACROS)


def test_markdown_is_well_formed():
    for name in ("add_n", "shift_up", "hadamard"):
        cl = claim(name)
        for var in cl.variants:
            (v,) = verify(cl, max_size=3, variants=[var.name])
            md = derivation(cl, var, v)._repr_markdown_()
            unescaped = re.findall(r"(?<!\\)\$", md)
            assert len(unescaped) % 2 == 0
            prose_part = re.sub(r"(?<!\\)\$\$?.+?(?<!\\)\$\$?", "", md, flags=re.S)
            assert prose_part.count("**") % 2 == 0
            assert not re.search(r"\\(textbf|emph|fbox|texttt|textsuperscript|textsubscript)\b", prose_part)
            v_md = v._repr_markdown_()
            assert v_md.startswith(f"**{v.id} {v.name}** [{v.variant}]: **{v.verdict}**")


def test_markdown_and_latex_reprs():
    c = claim("add_n")
    (v,) = verify(c, max_size=3, variants=["as printed"])
    assert v._repr_markdown_().startswith("**H.9 add_n** [as printed]: **holds** (all sizes")
    md = derivation(c, c.variants[0])._repr_markdown_()
    assert "$$" in md and r"X^{n} + 1" in md
    assert sym("x", 1)._repr_latex_() == r"$\left(\begin{array}{c}{x}_{0}\end{array}\right)$"
    stack = c.variants[0].instance({"n": 1, "N": 2, "d": 1}, c).stack
    assert r"\boldsymbol{h}^{1}_0(X) = X + 1" in stack._repr_latex_()
    from symconv.parametric import psym, pzeros, size
    col = psym("x", size("n")) | pzeros(size("N") - size("n"))
    assert col._repr_latex_() == (r"$\left(\begin{array}{c}\boldsymbol{x} \\ \hline \boldsymbol{0}^{N - n}"
                                  r"\end{array}\right)$")


def test_a_deep_stack_has_a_short_display():
    from symconv.constructions.random import random_stack

    deep = random_stack(N=64, d=1, L=400, seed=3)
    text = stack_latex(deep)
    assert len(text) < 20_000 and r"\text{(layers 7 to 398)}" in text
    assert text.count(r"\odot") == 8


# ---------------------------------------------------------------- documents


def evil_claim():
    import sympy
    from symconv.blocks import Block
    from symconv.parametric.linear import size

    def build(z):
        y = sym("y", z["N"])
        out = zeros(z["s"]) | rows(y, 0, z["N"] - z["s"])
        odd = Block([[sympy.Symbol("a\\b^{c}$%_")]] * z["N"], "odd")  # a claimed state that is wrong
        return Instance(y, shift_down(z["N"], z["s"]), out, (Step("z¹ ⊙ 50%_#", 1, odd),))
    from symconv import Hypothesis
    return Claim("X.1", HOSTILE, HOSTILE, (SizeParam("N", 1), SizeParam("s", 0)),
                 lambda z: Signature(z["N"], 1, 1, z["N"], 1),
                 (Variant("as printed & {odd}", build, note=HOSTILE),),
                 (Hypothesis(size("s") < size("N")),))


@pytest.fixture(scope="module")
def appendix(tmp_path_factory):
    out = tmp_path_factory.mktemp("appendix") / "appendix.tex"
    assert main(["latex", "--all", "--max-size", "3", "-o", str(out)]) == 0
    return out.read_text()


def test_document_covers_every_claim_and_opens_with_the_summary(appendix):
    text = appendix
    assert text.isascii()
    summary = text.index("Summary of verdicts")
    assert r"\begin{longtable}" in text[summary:summary + 500]
    for c in load_claims():
        assert text.index(r"\section*{" + escape(c.id) + r" \texttt{" + escape(c.name) + "}}") > summary
    assert re.search(r"H\.9 & add\\_\\allowbreak\{\}n & printed call & \\textbf\{fails\} & [^&]+ & yes \\\\", text)
    assert "Erratum" in text


def test_document_has_no_lost_character_and_no_python_text(appendix):
    sources = []
    for c in load_claims():
        sources += [c.id, c.name, c.statement] + [x for v in c.variants for x in (v.name, v.note)]
    assert appendix.count("?") <= sum(s.count("?") for s in sources)  # no character became "?"
    assert "{'" not in appendix and "**" not in appendix and r"\bm{" not in appendix
    assert r"$R^{N\times d}$" in appendix and r"$\Delta" in appendix


@needs_pdflatex
def test_appendix_compiles_without_overfull_boxes(tmp_path, appendix):
    log = compile_tex(tmp_path, appendix)
    worst = max(overfull(log), default=0.0)
    assert worst <= 10.0, f"overfull box of {worst} pt"


@needs_pdflatex
def test_hostile_names_never_break_the_document(tmp_path):
    c = evil_claim()
    text = document([c], verify(c, max_size=3), title=HOSTILE)
    assert text.isascii() and "Erratum" in text
    compile_tex(tmp_path, text)


def test_brief_and_title(tmp_path, capsys):
    out = tmp_path / "brief.tex"
    assert main(["latex", "H.9", "--brief", "--title", "Zoology, App. H: 50% ⊙ Δ", "--max-size", "3",
                 "-o", str(out)]) == 0
    text = out.read_text()
    assert r"\section*{Zoology, App. H: 50\% $\odot$ $\Delta$}" in text
    brief = text[text.index(r"\section*{H.9"):]
    assert brief.count(r"\fbox{\textbf{Erratum}} Verdict: \textbf{fails}") >= 1
    # the printed call is an erratum: no derivation; the parameters that hold keep theirs
    assert brief.count("Layer 1 of") == len([v for v in claim("add_n").variants if v.expect == "holds"])
    if PDFLATEX:
        compile_tex(tmp_path, text, "brief")


def test_a_broken_proof_file_is_listed_and_the_rest_rendered(tmp_path, capsys):
    (tmp_path / "h01_broken.py").write_text("raise RuntimeError('cannot import me')\n")
    out = tmp_path / "doc.tex"
    assert main(["latex", "H.7", "--proofs", str(tmp_path), "--max-size", "2", "-o", str(out)]) == 0
    text = out.read_text()
    assert r"h01\_broken.py & proof file & -- & \textbf{not verified} & RuntimeError: cannot import me" in text
    assert "hadamard" in text and "h01_broken.py" in capsys.readouterr().err


def test_latex_needs_ids_or_all(capsys):
    assert main(["latex"]) == 2
    assert "IDS" in capsys.readouterr().err


def test_unicode_names_in_escape_are_known_or_shown_by_code_point():
    for ch in "αβγδΔΣΩλμπσω":
        assert "U+" not in escape(ch), unicodedata.name(ch)
    assert escape("Ж") == r"\texttt{[U+0416]}"
