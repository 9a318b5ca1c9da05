"""The pytest plugin (issue 13.2) and the README's example of a user's own proof and test files.

The example is the one in README.md when the README carries it (code blocks opening with
``# my_proofs/h01_difference.py`` and ``# test_difference.py``), else the copy below."""
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PROOF = '''# my_proofs/h01_difference.py
from symconv import Claim, Instance, Layer, Signature, SizeParam, Stack, Variant, sym
from symconv.blocks import rows


def build(z):
    N = z["N"]
    y = sym("y", N)
    layer = Layer(W=[[0]], h=[[1], [-1]], b1=[[1]], b2=[[0]])   # 1 ⊙ ((1 − X)·y(X))
    expected = rows(y, 0, 1) | (rows(y, 1, N) - rows(y, 0, N - 1))
    return Instance(y, Stack(N, 1, (layer,)), expected)


CLAIMS = [Claim("mine.1", "difference", "y[i] - y[i-1] in one layer", (SizeParam("N", 2),),
                lambda z: Signature(z["N"], 1, 1, z["N"], 1), (Variant("construction", build),))]
'''

TEST = '''# test_difference.py
from dataclasses import replace
from pathlib import Path

from symconv import Instance, Variant
from symconv.registry import load_claims
from symconv.testing import assert_fails_at, assert_holds

(difference,) = load_claims(Path(__file__).parent / "my_proofs")


def test_difference_holds():
    assert_holds(difference, max_size=10)


def test_without_the_filter_it_is_the_identity():
    def identity(z):          # the same claim, with the layer's output claimed to be y itself
        inst = difference.variants[0].build(z)
        return Instance(inst.input, inst.stack, inst.input)
    wrong = replace(difference, variants=(Variant("wrong", identity),))
    assert_fails_at(wrong, "output", layer=1, max_size=4)
'''


def example() -> tuple[str, str]:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    proof = next((b for b in blocks if b.startswith("# my_proofs/h01_difference.py")), PROOF)
    test = next((b for b in blocks if b.startswith("# test_difference.py")), TEST)
    return proof, test


def pytest_run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    quiet = [] if "-v" in args else ["-q"]
    fast = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark"]  # startup time
    return subprocess.run([sys.executable, "-m", "pytest", *quiet, *fast, *args],
                          cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture()
def project(tmp_path):
    proof, test = example()
    (tmp_path / "my_proofs").mkdir()
    (tmp_path / "my_proofs" / "h01_difference.py").write_text(proof)
    (tmp_path / "test_difference.py").write_text(test)
    return tmp_path


def test_the_plugin_is_registered():
    eps = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="pytest11")}
    assert eps.get("symconv") == "symconv.pytest_plugin"


def test_users_suite_passes_with_the_claims_as_items(project):
    r = pytest_run(project, "--symconv-proofs", "my_proofs", "-v")
    assert r.returncode == 0, r.stdout[-3000:]
    assert "h01_difference.py::mine.1 difference [construction] PASSED" in r.stdout
    assert re.search(r"\b3 passed\b", r.stdout)
    r = pytest_run(project, "--symconv-proofs", "my_proofs", "-m", "symconv")
    assert re.search(r"\b1 passed, 2 deselected\b", r.stdout), r.stdout[-2000:]


def test_users_suite_fails_as_it_should(project):
    proof = project / "my_proofs" / "h01_difference.py"
    proof.write_text(proof.read_text().replace("h=[[1], [-1]]", "h=[[1], [1]]"))  # 1 + X: a sum
    r = pytest_run(project, "--symconv-proofs", "my_proofs")
    assert r.returncode == 1
    assert re.search(r"\b2 failed, 1 passed\b", r.stdout), r.stdout[-3000:]
    assert "mine.1 difference [construction]: fails" in r.stdout
    assert "position: row 1, channel 0" in r.stdout and "step:     output (after layer 1)" in r.stdout


def test_the_plugin_is_opt_in(project):
    (project / "proofs").mkdir()
    (project / "proofs" / "h01_difference.py").write_text(example()[0])
    plain = pytest_run(project, "--collect-only")
    assert "h01_difference.py" not in plain.stdout and "2 tests collected" in plain.stdout
    opted = pytest_run(project, "--symconv", "--collect-only")
    assert "proofs/h01_difference.py::mine.1 difference [construction]" in opted.stdout
    assert "3 tests collected" in opted.stdout


def test_a_missing_folder_is_a_usage_error(project):
    r = pytest_run(project, "--symconv-proofs", "nowhere")
    assert r.returncode == 4 and "--symconv-proofs: 'nowhere' is not a folder" in r.stderr
