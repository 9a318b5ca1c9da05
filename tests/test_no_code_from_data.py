"""No code from data: strings are refused at the door, and nothing in symconv parses text as code."""
import ast
from pathlib import Path

import numpy as np
import pytest

from symconv import HypothesisError, Layer, Stack
from symconv.blocks import from_array

SRC = Path(__file__).resolve().parent.parent / "symconv"


def test_a_filter_tap_that_would_run_a_shell_command_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    code = f"__import__('os').system('touch {marker}')"
    for h in ([[code]], [[1], [code]], np.array([[code]], dtype=object), np.array([code])):
        with pytest.raises(HypothesisError, match="h.*string"):
            Layer(W=[[1]], h=h, b1=[[1]], b2=[[0]])
    with pytest.raises(HypothesisError, match="string"):
        from_array([[code]], "u")
    with pytest.raises(HypothesisError, match="string"):
        Stack(4, 1, (Layer(W=[[1]], h=[[1]], b1=[[1]], b2=[[0]]),), name="x").subs({"a": code})
    import sympy

    a = sympy.Symbol("a")
    with pytest.raises(HypothesisError, match=r"values\[a\]: .* string"):
        Layer(W=[[a]], h=[[1]], b1=[[1]], b2=[[0]]).subs({a: code})
    assert not marker.exists()


# Calls that turn text into code or expressions.  sympify / S are allowed only with
# strict=True, which refuses strings (it converts numbers and sympy objects only).
PARSERS = {"eval", "exec", "parse_expr", "literal_eval", "parse_latex", "parse_mathematica", "evaluate_string"}
SYMPIFY = {"sympify", "S"}

# Files whose owner (another part of the project) still has to make the change named here.
# Each is an expected failure, visible in the test report (pytest -rx), never a silent pass.
PENDING: dict = {}


def violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    from_sympy = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                  and (n.module or "").split(".")[0] == "sympy" for a in n.names}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mod = node.module if isinstance(node, ast.ImportFrom) else None
            names = [a.name for a in node.names]
            if (mod or "").startswith("sympy.parsing") or any(n.startswith("sympy.parsing") for n in names):
                out.append(f"{path.name}:{node.lineno}: imports sympy.parsing")
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name in PARSERS and (isinstance(f, ast.Name) or node.args):
            out.append(f"{path.name}:{node.lineno}: calls {name}")
        elif name in SYMPIFY and (isinstance(f, ast.Attribute) or name in from_sympy):
            strict = any(k.arg == "strict" and isinstance(k.value, ast.Constant) and k.value.value is True
                         for k in node.keywords)
            if not strict:
                out.append(f"{path.name}:{node.lineno}: calls {name} without strict=True")
    return out


FILES = sorted(p for p in SRC.rglob("*.py"))


def _param(p: Path):
    rel = p.relative_to(SRC).as_posix()
    marks = [pytest.mark.xfail(reason=PENDING[rel], strict=False)] if rel in PENDING else []
    return pytest.param(p, id=rel, marks=marks)


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_no_text_is_parsed_as_code(path):
    assert violations(path) == []


def test_the_scan_finds_what_it_looks_for(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sympy\nfrom sympy.parsing.sympy_parser import parse_expr\nS = len\n"
                   "def f(t):\n    return sympy.sympify(t), eval(t), sympy.S(t), parse_expr(t)\n"
                   "def g(t):\n    return sympy.sympify(t, strict=True), model.eval(), S(t)\n")
    found = violations(bad)
    assert len(found) == 5 and all(":2:" in v or ":5:" in v for v in found), found
    assert len(FILES) > 30  # the scan really covers the package
