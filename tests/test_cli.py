"""The ``symconv`` command and the README's worked example."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from symconv.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_verify_json_records(capsys):
    assert main(["verify", "H.9", "--max-size", "5", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {r["variant"] for r in records} == {"as printed", "printed call"}
    for r in records:
        for key in ("id", "name", "variant", "verdict", "scope", "signature_claimed", "signature_built",
                    "seconds", "failure"):
            assert key in r
        assert r["id"] == "H.9" and r["name"] == "add_n" and r["scope"] == "all sizes"  # issue 6
    bad = next(r for r in records if r["variant"] == "printed call")
    assert bad["verdict"] == "fails" and bad["ok"] and bad["failure"]["position"] == [1, 0]
    good = next(r for r in records if r["variant"] == "as printed")
    assert good["verdict"] == "holds" and good["failure"] is None


def test_verify_table_and_markdown(capsys):
    assert main(["verify", "shift_up", "--max-size", "4"]) == 0
    out = capsys.readouterr().out
    assert "as printed, ⊛" in out and "fails at sizes" in out and "step [state] Y0" in out
    assert "3 variants: 1 hold, 2 fail as recorded, 0 unexpected" in out
    assert main(["verify", "H.7", "--max-size", "3", "--format", "markdown"]) == 0
    assert capsys.readouterr().out.startswith("| id")


def test_verify_exits_1_when_a_verdict_differs_from_the_record(tmp_path, capsys):
    proof = tmp_path / "h99_wrong.py"
    proof.write_text(
        "from symconv import Claim, Instance, SizeParam, Variant, sym\n"
        "from symconv.constructions.shifts import shift_down\n"
        "def build(z):\n"
        "    y = sym('y', z['N'])\n"
        "    return Instance(y, shift_down(z['N'], 1), y)\n"
        "CLAIMS = [Claim('H.99', 'wrong', 'claims the identity', (SizeParam('N', 2),), None,\n"
        "                (Variant('corrected', build),))]\n")
    assert main(["verify", "H.99", "--proofs", str(tmp_path), "--max-size", "3"]) == 1
    out = capsys.readouterr().out
    assert "recorded:" in out and "1 variants: 0 hold, 0 fail as recorded, 1 unexpected" in out


def test_unknown_claim_is_a_clear_error(capsys):
    assert main(["verify", "H.404"]) == 2
    assert "IDS: no claim 'H.404'" in capsys.readouterr().err


def test_bench_core_reports_records_with_targets(capsys):
    main(["bench", "core", "--n", "8", "--log2N", "10", "--d", "2", "--repeat", "1", "--format", "json"])
    records = json.loads(capsys.readouterr().out)
    assert len(records) == 2
    for r in records:
        assert set(r) >= {"name", "value", "target", "ok"} and r["value"] > 0


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "symconv.cli", "verify", "H.8", "--max-size", "3"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "shift_down" in out.stdout


def run_readme_block(marker: str) -> dict:
    """Run the README's first python block containing ``marker``; its namespace."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    example = next(b for b in blocks if marker in b)
    namespace: dict = {}
    exec(compile(example, "README.md", "exec"), namespace)  # our own README, not user input
    return namespace


def test_readme_worked_example_holds(capsys):
    namespace = run_readme_block("def build")
    assert capsys.readouterr().out.strip() == "holds"
    (v,) = namespace["verify"](namespace["claim"], max_size=10)
    assert v.sizes_checked == 9 and v.failure is None


def test_readme_quickstart_matches_ci():
    readme = (ROOT / "README.md").read_text()
    quick = re.search(r"## Quickstart\n\n```sh\n(.*?)```", readme, re.S).group(1).strip().splitlines()
    assert len(quick) == 2 and "symconv verify" in quick[0]
    test_cmd = quick[1]
    ci = (ROOT / ".ci" / "run").read_text()
    for part in test_cmd.split(" && "):
        assert part in ci


def test_readme_one_source_example_is_proved_for_all_sizes(capsys):
    namespace = run_readme_block("construction=difference")
    printed = capsys.readouterr().out.strip()
    assert printed == "holds all sizes 2 ≤ N ≤ 8; 7 points"
    v = namespace["v"]
    assert v.as_dict()["checked"] == {"N": [2, 8]} and "holds for all sizes" in v.parametric


def test_every_option_of_every_command_has_help_text():
    import argparse

    from symconv.cli import build_parser

    missing = []

    def walk(parser, path):
        for a in parser._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sub in a.choices.items():
                    walk(sub, path + [name])
            elif a.option_strings and not a.help:
                missing.append((" ".join(path), a.option_strings))
    walk(build_parser(), ["symconv"])
    assert missing == []


def test_a_huge_max_size_is_one_line_and_exit_2(capsys):
    assert main(["verify", "H.9", "--max-size", "100000000"]) == 2
    err = capsys.readouterr().err
    assert "max_size: a box of" in err and len(err.strip().splitlines()) == 1


def test_readme_examples_of_the_bounds_section_give_what_they_say():
    ns = run_readme_block('DimensionCertificate.of("butterfly"')
    assert ns["c"].lower == 2 and (ns["d"].rank, ns["d"].layers_needed) == (80, 2)
    ns = run_readme_block("compile_butterfly_narrow(symbolic_butterfly(16), 4, 4)")
    assert str(ns["stack"].signature) == "(4, 10, 4, 8, 4)"
