"""Misuse of the command line is a usage error naming what was typed (exit 2), never silently ignored.

A bad SYMCONV_BACKEND, SYMCONV_MEMORY or SYMCONV_FFT is one usage error naming the variable, before any work (it
used to fail every claim of `verify`, exit 1, or leave every `crosscheck` variant `not run`, exit 0); bench counts
below 1 name their option; `latex IDS --all` is refused; `verify --bounds --format json` prints JSON."""
import json
import re

import pytest

from symconv.cli import main


@pytest.mark.parametrize("var, value, message", [
    ("SYMCONV_BACKEND", "bogus", r"SYMCONV_BACKEND: expected one of \('auto', 'flint', 'sympy'\), got 'bogus'"),
    ("SYMCONV_MEMORY", "lots", r"SYMCONV_MEMORY: 'lots' is not a size"),
    ("SYMCONV_MEMORY", "0", r"SYMCONV_MEMORY: a memory budget must be positive"),
    ("SYMCONV_FFT", "bogus", r"SYMCONV_FFT: unknown library 'bogus'"),
])
@pytest.mark.parametrize("argv", [["verify", "H.9", "--quiet"], ["crosscheck", "H.9", "--N", "64", "--d", "1"]])
def test_a_bad_variable_is_one_usage_error(monkeypatch, capsys, var, value, message, argv):
    monkeypatch.setenv(var, value)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("symconv: error: ")
    assert re.search(message, err)


def test_good_values_run(monkeypatch, capsys):
    monkeypatch.setenv("SYMCONV_BACKEND", "sympy")
    monkeypatch.setenv("SYMCONV_MEMORY", "4GiB")
    monkeypatch.setenv("SYMCONV_FFT", "auto")
    assert main(["verify", "H.9", "--quiet"]) == 0
    assert "hold" in capsys.readouterr().out
    monkeypatch.setenv("SYMCONV_FFT", "numpy")
    assert main(["crosscheck", "H.9", "--N", "64", "--d", "1"]) == 0
    assert "holds" in capsys.readouterr().out


@pytest.mark.parametrize("argv, option", [
    (["bench", "numeric", "--repeats", "0"], "--repeats"),
    (["bench", "core", "--repeat", "0"], "--repeat"),
    (["bench", "circuits", "--retnet-n", "0"], "--retnet-n"),
    (["bench", "butterfly", "--seed", "-1"], "--seed"),
])
def test_bench_counts_are_refused_naming_the_option(capsys, argv, option):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert f"argument {option}: must be a" in capsys.readouterr().err


def test_latex_all_with_ids_is_refused_not_ignored(capsys):
    assert main(["latex", "H.9", "--all"]) == 2
    assert "--all: renders every claim, so the IDS H.9 would be ignored" in capsys.readouterr().err


def test_verify_bounds_as_json(capsys):
    assert main(["verify", "H.9", "--bounds", "--format", "json", "--quiet"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["bound"] for r in rows} == {"L", "N'", "d'"}
    assert all(r["id"] == "H.9" and r["verdict on the claim"] for r in rows)


def test_trials_reach_the_exact_fallback_of_a_float_run(capsys):
    """RetNet's scan form has no informative float bound, so the numpy run is decided mod p: with --trials 3."""
    assert main(["crosscheck", "RetNet", "--N", "8", "--d", "2", "--trials", "3"]) == 0
    out = capsys.readouterr().out
    detail = next(line for line in out.splitlines() if line.startswith("H.22 RetNet [scan form]:"))
    assert "decided exactly mod p" in detail and ")^3 = " in detail
