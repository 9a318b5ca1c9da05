"""LaTeX derivations in the paper's notation, documents that compile, escaping (issue 6)."""
import shutil
import subprocess

import pytest

from symconv import Claim, Hypothesis, Instance, Signature, SizeParam, Step, Variant, sym, verify, zeros
from symconv.blocks import rows
from symconv.cli import main
from symconv.constructions.shifts import shift_down
from symconv.latex import (
    block_latex, derivation, document, escape, name_latex, poly_latex, representative_sizes,
)
from symconv.model import HypothesisError
from symconv.registry import load_claims

PDFLATEX = shutil.which("pdflatex")


def claim(name):
    return [c for c in load_claims() if c.name == name][0]


def variant(c, name):
    return [v for v in c.variants if v.name == name][0]


def compile_tex(tmp_path, text):
    (tmp_path / "doc.tex").write_text(text, encoding="ascii")
    r = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout[-3000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 1000


# ---------------------------------------------------------------- escaping


HOSTILE = "evil_%$#&{}~^\\end{document} ⊙ b²₁ ≤ N → 漢字 \x07"


def test_escape_gives_ascii_without_active_specials():
    out = escape(HOSTILE)
    assert out.isascii()
    assert "\\end{document}" not in out
    assert out.count("{") == out.count("}")
    assert r"\%" in out and r"\#" in out and r"\&" in out and r"$\odot$" in out and "?" in out


def test_block_names_that_are_not_latex_are_rejected():
    with pytest.raises(HypothesisError, match="name"):
        name_latex("x}\\input{secret")
    assert name_latex("h_1") == r"\bm{h}_{1}"


def test_poly_and_block_rendering():
    assert poly_latex([1, 0, 0, 2]) == "2X^{3} + 1"
    assert block_latex(sym("x", 2)) == "\\left(\\begin{array}{c}{x}_{0} \\\\\n{x}_{1}\\end{array}\\right)"


# ---------------------------------------------------------------- derivations


def test_h9_derivation_reads_like_the_paper():
    c = claim("add_n")
    text = derivation(c, variant(c, "as printed")).latex()
    assert r"\bm{h}^{1}(X) = X^{n} + 1" in text
    assert r"\left(X^{n} + 1\right)\cdot\left(\bm{S}(X)\cdot X^{n} + \bm{x}(X)\right)" in text
    assert r"= \bm{S}(X)\cdot X^{2n} + (\bm{S} + \bm{x})(X)\cdot X^{n} + \bm{x}(X)" in text
    assert r"\bm{0}^{n} \\ \hline \bm{1}^{n} \\ \hline \bm{0}^{N - 2n}" in text
    assert "Erratum" not in text


def test_failing_printed_step_is_marked_with_its_rows():
    c = claim("add_n")
    (v,) = verify(c, max_size=4, variants=["printed call"])
    text = derivation(c, variant(c, "printed call"), v).latex()
    assert text.count("Erratum") == 1
    assert "rows $[n, 2n)$ hold $1 + \\bm{S} + \\bm{x}$ but the proof claims $\\bm{S} + \\bm{x}$" in text
    assert r"\textbf{for all sizes}" in text


def test_concrete_fallback_marks_the_coefficient():
    """H.8's printed shift_up has a reversal step: shown at one size, its failing row named."""
    c = claim("shift_up")
    sizes = representative_sizes(c)
    assert sizes == {"N": 3, "s": 2, "d": 1}
    text = derivation(c, variant(c, "as printed, ⊛ circular")).latex()
    assert "Shown at one size, \\emph{N = 3, s = 2, d = 1}" in text
    assert "fails} at row 0, channel 0: the layer gives ${y}_{0}$, the proof claims ${y}_{2}$" in text


def test_markdown_and_latex_reprs():
    c = claim("add_n")
    (v,) = verify(c, max_size=3, variants=["as printed"])
    assert v._repr_markdown_().startswith("**H.9 add_n** [as printed]: **holds** (all sizes")
    md = derivation(c, c.variants[0])._repr_markdown_()
    assert "$$" in md and r"X^{n} + 1" in md
    assert sym("x", 1)._repr_latex_() == r"$\left(\begin{array}{c}{x}_{0}\end{array}\right)$"
    stack = c.variants[0].build({"n": 1, "N": 2, "d": 1}).stack
    assert r"\bm{h}^{1}_0(X) = X + 1" in stack._repr_latex_()
    from symconv.parametric import psym, pzeros, size
    col = psym("x", size("n")) | pzeros(size("N") - size("n"))
    assert col._repr_latex_() == r"$\left(\begin{array}{c}\bm{x} \\ \hline \bm{0}^{N - n}\end{array}\right)$"


# ---------------------------------------------------------------- documents


def evil_claim():
    import sympy
    from symconv.blocks import Block

    def build(z):
        y = sym("y", z["N"])
        out = zeros(z["s"]) | rows(y, 0, z["N"] - z["s"])
        odd = Block([[sympy.Symbol("a\\b^{c}$%_")]] * z["N"], "odd")  # a claimed state that is wrong
        return Instance(y, shift_down(z["N"], z["s"]), out, (Step("z¹ ⊙ 50%_#", 1, odd),))
    return Claim("X.1", HOSTILE, HOSTILE, (SizeParam("N", 1), SizeParam("s", 0)),
                 lambda z: Signature(z["N"], 1, 1, z["N"], 1),
                 (Variant("as printed & {odd}", build, note=HOSTILE),),
                 (Hypothesis("s < N", lambda z: z["s"] < z["N"]),))


@pytest.fixture(scope="module")
def appendix(tmp_path_factory):
    out = tmp_path_factory.mktemp("appendix") / "appendix.tex"
    assert main(["latex", "--all", "--max-size", "3", "-o", str(out)]) == 0
    return out.read_text()


def test_document_covers_every_claim_and_opens_with_the_summary(appendix):
    text = appendix
    assert text.isascii()
    summary = text.index("Summary of verdicts")
    for c in load_claims():
        assert text.index(r"\section*{" + escape(c.id) + r" \texttt{" + escape(c.name) + "}}") > summary
    assert r"H.9 & add\_n & printed call & \textbf{fails} & all sizes & yes \\" in text
    assert "Erratum" in text


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex not installed (.ci/run installs it)")
def test_appendix_compiles_with_pdflatex(tmp_path, appendix):
    compile_tex(tmp_path, appendix)


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex not installed (.ci/run installs it)")
def test_hostile_names_never_break_the_document(tmp_path):
    c = evil_claim()
    text = document([c], verify(c, max_size=3))
    assert text.isascii() and "Erratum" in text
    compile_tex(tmp_path, text)


def test_latex_needs_ids_or_all(capsys):
    assert main(["latex"]) == 2
    assert "IDS" in capsys.readouterr().err
