"""Packaging (issue 13.1) and proof discovery (issue 12.5, 12.7): the wheel holds the proofs,
runs from any folder; proofs come from the package, entry points and explicit folders only."""
import ast
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from symconv import registry
from symconv.model import HypothesisError
from symconv.registry import ProofProblem, load_claims, load_proofs

ROOT = Path(__file__).resolve().parent.parent

GOOD = """
from symconv import Claim, Instance, SizeParam, Variant, sym
from symconv.constructions.shifts import shift_down
from symconv.blocks import zeros
def build(z):
    y = sym('y', z['N'])
    return Instance(y, shift_down(z['N'], 1), zeros(1) | sym('y', z['N'] - 1))
CLAIMS = [Claim('X.{n}', 'shift{n}', 'shift by one', (SizeParam('N', 2),), None,
                (Variant('construction', build),))]
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


# ---------------------------------------------------------------- the registry


def test_a_proof_that_raises_is_reported_and_the_others_still_load(tmp_path):
    write(tmp_path, "h01_good.py", GOOD.format(n=1))
    broken = write(tmp_path, "h02_broken.py", "raise RuntimeError('the proof is broken')\n")
    empty = write(tmp_path, "h03_empty.py", "x = 1\n")
    wrong = write(tmp_path, "h04_wrong.py", "CLAIMS = [1, 2]\n")
    claims, problems = load_proofs([tmp_path], entry_points=False)
    names = [c.name for c in claims]
    assert "shift1" in names and "add_n" in names  # the paper's proofs and the extra folder
    assert problems == [
        ProofProblem(str(broken), "RuntimeError: the proof is broken"),
        ProofProblem(str(empty), "defines no CLAIMS (a list of Claim)"),
        ProofProblem(str(wrong), "must define CLAIMS, a list of Claim (got list)"),
    ]
    with pytest.raises(HypothesisError, match="h02_broken.py: RuntimeError: the proof is broken"):
        load_claims(tmp_path)


def test_load_claims_of_one_folder_and_by_default(tmp_path):
    write(tmp_path, "h01_good.py", GOOD.format(n=7))
    assert [c.id for c in load_claims(tmp_path)] == ["X.7"]
    ids = [c.id for c in load_claims()]
    assert ids[0] == "H.7" and "X.7" not in ids and ids == sorted(ids, key=registry._id_key)


def test_a_folder_without_proofs_is_an_error(tmp_path):
    (tmp_path / "notes.py").write_text("x = 1\n")
    with pytest.raises(HypothesisError, match=r"--proofs: .* holds no proof file \(h\*\.py\)"):
        load_proofs([tmp_path])
    with pytest.raises(HypothesisError, match="is not a folder"):
        load_proofs([tmp_path / "missing"])


def test_the_current_folder_is_never_searched(tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    write(tmp_path / "proofs", "h01_evil.py", f"open({str(marker)!r}, 'w').close()\nCLAIMS = []\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SYMCONV_PROOFS", raising=False)
    claims, problems = load_proofs()
    assert not marker.exists() and problems == [] and len(claims) > 30


def test_the_same_claim_twice_is_a_problem(tmp_path):
    write(tmp_path / "a", "h01_good.py", GOOD.format(n=3))
    write(tmp_path / "b", "h01_good.py", GOOD.format(n=3))
    claims, problems = load_proofs([tmp_path / "a", tmp_path / "b"], entry_points=False, paper=False)
    assert [c.id for c in claims] == ["X.3"]
    assert len(problems) == 1 and "defined twice" in problems[0].message
    assert problems[0].path.endswith(os.path.join("b", "h01_good.py"))


def test_entry_points_add_collections(tmp_path, monkeypatch):
    write(tmp_path / "mycoll", "__init__.py", "")
    write(tmp_path / "mycoll", "h01_one.py", GOOD.format(n=11))
    write(tmp_path, "mylist.py", GOOD.format(n=12))
    write(tmp_path, "mybad.py", "raise ImportError('no such thing')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = [importlib.metadata.EntryPoint(name, value, registry.GROUP)
           for name, value in [("pkg", "mycoll"), ("list", "mylist:CLAIMS"), ("bad", "mybad")]]
    monkeypatch.setattr(registry, "_entry_points", lambda: eps)
    claims, problems = load_proofs()
    ids = {c.id for c in claims}
    assert {"X.11", "X.12", "H.9"} <= ids
    assert problems == [ProofProblem("entry point bad = mybad", "ImportError: no such thing")]


def test_verify_with_proofs_dir_reports_a_broken_file(tmp_path, capsys):
    """The CLI: a broken proof file is named, with the exception's message (issue 12.5)."""
    from symconv.cli import main

    write(tmp_path, "h01_broken.py", "raise ValueError('bad import')\n")
    rc = main(["verify", "--proofs", str(tmp_path), "--max-size", "2"])
    out = capsys.readouterr()
    assert rc != 0 and "h01_broken.py" in out.err + out.out and "bad import" in out.err + out.out


# ---------------------------------------------------------------- the wheel


def test_every_package_is_listed_in_pyproject():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(conf["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "symconv").rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert conf["tool"]["setuptools"]["package-dir"] == {"symconv_proofs": "proofs"}
    assert conf["project"]["entry-points"]["pytest11"] == {"symconv": "symconv.pytest_plugin"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel built from a copy of the checkout (no network, no build isolation)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for name in ("symconv", "proofs"):
        shutil.copytree(ROOT / name, src / name, ignore=skip)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "--no-index", "-q", "-w", str(tmp / "dist"), str(src)],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        if "No module named" in r.stderr or "setuptools" in r.stderr and "not" in r.stderr:
            pytest.skip(f"cannot build a wheel offline here: {r.stderr.strip().splitlines()[-1]}")
        raise AssertionError(r.stderr[-2000:])
    (whl,) = (tmp / "dist").glob("symconv-*.whl")
    return whl


def test_the_wheel_holds_the_proofs_the_plugin_and_py_typed(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    proofs = sorted(p.name for p in (ROOT / "proofs").glob("h*.py"))
    assert proofs and all(f"symconv_proofs/{p}" in names for p in proofs)
    assert "symconv/py.typed" in names and "symconv/__main__.py" in names
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry).decode()
    assert "symconv = symconv.__main__:main" in text and "symconv = symconv.pytest_plugin" in text
    assert not any("tests/" in n or n.startswith("proofs/") for n in names)


def test_the_wheel_verifies_the_paper_from_any_folder(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(site))
    env.pop("SYMCONV_PROOFS", None)
    r = subprocess.run([sys.executable, "-m", "symconv", "verify", "H.9", "H.8", "--max-size", "3"],
                       capture_output=True, text=True, cwd=elsewhere, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "add_n" in r.stdout and "shift_up" in r.stdout
    r = subprocess.run([sys.executable, "-c", "import symconv, symconv.registry as r; "
                        "print(symconv.__file__); print(r.paper_proofs_dir())"],
                       capture_output=True, text=True, cwd=elsewhere, env=env, timeout=60)
    where, proofs = r.stdout.split()
    assert where.startswith(str(site)) and proofs == str(site / "symconv_proofs")
    r = subprocess.run([sys.executable, "-m", "symconv", "--version"], capture_output=True, text=True,
                       cwd=elsewhere, env=env, timeout=60)
    assert r.stdout.strip() == f"symconv {importlib.metadata.version('symconv')}"


# ---------------------------------------------------------------- layout (issue 13.9)

RENDERERS = {"symconv.latex", "symconv.display", "symconv.plot", "symconv.cli"}
CONSUMERS = ("symconv.commands", "symconv.bench", "symconv.testing", "symconv.pytest_plugin",
             "symconv.__main__", "symconv.torch")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (function-level imports included)."""
    mod = _module_name(path)
    pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
    return out


def test_no_data_module_imports_a_renderer():
    data = [p for p in (ROOT / "symconv").rglob("*.py")
            if not any(_module_name(p) == c or _module_name(p).startswith(c + ".") for c in CONSUMERS)
            and _module_name(p) not in RENDERERS and _module_name(p) != "symconv"]
    assert len(data) > 20
    bad = {}
    for p in data:
        hit = {m for m in _imports(p) if m in RENDERERS or m.startswith("symconv.commands")}
        if hit:
            bad[_module_name(p)] = sorted(hit)
    assert bad == {}, f"data modules that import a renderer: {bad}"


def test_the_notebook_hooks_come_from_the_renderer_side():
    import symconv  # noqa: F401 - installs the hooks
    from symconv.blocks import Block
    from symconv.claims import Verdict
    from symconv.model import Stack

    for cls in (Block, Stack):
        assert cls._repr_latex_.__module__ == "symconv.display"
    assert Verdict._repr_markdown_.__module__ == "symconv.display"
    for name in ("blocks.py", "model.py", "claims.py"):
        assert "def _repr_latex_" not in (ROOT / "symconv" / name).read_text()
        assert "def _repr_markdown_" not in (ROOT / "symconv" / name).read_text()


def test_all_covers_what_the_readme_imports():
    import re

    import symconv

    assert all(hasattr(symconv, n) for n in symconv.__all__)
    readme = (ROOT / "README.md").read_text()
    names = set()
    for group in re.findall(r"^from symconv import \(?([^)\n]+)\)?", readme, re.M):
        names |= {n.strip() for n in group.split(",") if n.strip()}
    assert names and names <= set(symconv.__all__), sorted(names - set(symconv.__all__))
