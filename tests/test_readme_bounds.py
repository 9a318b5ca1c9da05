"""The README's table "The bounds of H.8 – H.22" is exactly what ``symconv verify --bounds`` prints."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_bounds_table_is_the_command_output():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("Made by `symconv verify --bounds`", 1)[1].split("\n\n")[1]
    documented = [line for line in section.splitlines() if line.startswith("| ")]
    out = subprocess.run([sys.executable, "-m", "symconv", "verify", "--bounds", "--quiet"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    printed = [line for line in out.stdout.splitlines() if line.startswith("| ")]
    assert len(printed) > 90   # every claim with bounds, three bounds each for most
    missing = [line for line in printed if line not in documented]
    stale = [line for line in documented if line not in printed]
    assert (missing, stale) == ([], [])
    assert documented == printed   # the same order too
