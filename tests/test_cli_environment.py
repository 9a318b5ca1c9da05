"""A bad SYMCONV_BACKEND, SYMCONV_MEMORY or SYMCONV_FFT is one usage error naming the variable (exit 2), before any
work; it used to fail every claim of `verify` (exit 1) or leave every `crosscheck` variant `not run` (exit 0)."""
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
