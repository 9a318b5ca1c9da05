"""Misuse of the command line that the checks of tests/test_cli_environment.py leave out: each is one usage error
(exit 2) naming what the user typed (an option, an environment variable), before any work."""
import argparse
import sys

import pytest

from symconv import exact
from symconv.cli import main
from symconv.commands import bench as bench_command
from symconv.model import HypothesisError


def _one_error(capsys) -> str:
    out, err = capsys.readouterr()
    assert out == ""  # refused before any row, table or document
    assert err.count("\n") == 1 and err.startswith("symconv: error: ")
    return err


@pytest.mark.parametrize("argv", [
    ["bench", "core", "--n", "4", "--log2N", "10", "--d", "2", "--repeat", "1"],
    ["latex", "H.9", "--max-size", "2"],
])
@pytest.mark.parametrize("var, value, message", [
    ("SYMCONV_BACKEND", "bogus", "SYMCONV_BACKEND: expected one of ('auto', 'flint', 'sympy'), got 'bogus'"),
    ("SYMCONV_MEMORY", "lots", "SYMCONV_MEMORY: 'lots' is not a size (e.g. 8GiB, 512MiB, 1000000)"),
])
def test_bad_variables_refuse_bench_and_latex_too(monkeypatch, capsys, argv, var, value, message):
    monkeypatch.setenv(var, value)
    assert main(argv) == 2
    assert message in _one_error(capsys)


def test_a_known_fft_library_that_is_not_installed_is_refused(monkeypatch, capsys):
    """SYMCONV_FFT=mkl_fft without mkl_fft left every crosscheck variant `not run` and exited 0."""
    monkeypatch.setitem(sys.modules, "mkl_fft", None)  # importing it raises ImportError, installed or not
    monkeypatch.setitem(sys.modules, "mkl_fft.interfaces", None)
    monkeypatch.setenv("SYMCONV_FFT", "mkl_fft")
    assert main(["crosscheck", "H.10", "--N", "64", "--d", "1", "--quiet"]) == 2
    assert "SYMCONV_FFT: mkl_fft is not installed (pip install mkl_fft)" in _one_error(capsys)


def test_a_missing_cupy_names_the_backend_option(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "cupy", None)
    assert main(["crosscheck", "H.9", "--backend", "cupy", "--N", "64", "--d", "1", "--quiet"]) == 2
    assert "symconv: error: --backend: cupy is not installed" in _one_error(capsys)


@pytest.mark.parametrize("backend", ["exact", "numpy"])
def test_method_flint_without_python_flint_is_refused_not_every_variant_not_run(monkeypatch, capsys, backend):
    """It exited 0 with every variant `not run` (exact), or left the float runs' exact fallback undecided."""
    monkeypatch.setattr(exact, "_have_flint", lambda: False)
    assert main(["crosscheck", "H.9", "--N", "64", "--d", "1", "--backend", backend, "--method", "flint",
                 "--quiet"]) == 2
    assert "symconv: error: --method: python-flint is not installed" in _one_error(capsys)


def test_method_help_says_it_reaches_the_exact_fallback_too(capsys):
    with pytest.raises(SystemExit):
        main(["crosscheck", "--help"])
    assert "exact checks (as --trials): float64 FFTs of limbs (fft)" in " ".join(capsys.readouterr().out.split())


def test_bench_shifts_is_named_as_typed(capsys):
    """The compiler's own message names its parameter (`shifts: ...`); the command names the option."""
    assert main(["bench", "circuits", "--shifts", "1", "--ratios-only", "--max-w", "4"]) == 2
    err = _one_error(capsys)
    assert "symconv: error: --shifts: must be an integer >= 2, got 1" in err


def test_bench_numeric_max_log_n_below_the_tables_is_a_usage_error(capsys):
    """Below the scaling table's first size the suite used to stop on an internal error (max of nothing); the
    option's type states the real minimum (it used to say "positive integer" and then refuse 5)."""
    with pytest.raises(SystemExit) as e:
        main(["bench", "numeric", "--max-log-n", "5"])
    assert e.value.code == 2
    assert "argument --max-log-n: must be an integer >= 10, got 5" in capsys.readouterr().err
    assert main(["bench", "numeric", "--max-log-n", "11", "--quick"]) == 2
    err = _one_error(capsys)
    assert "symconv: error: --max-log-n: must be at least 12 (" in err and err.rstrip().endswith("got 11")


def test_bench_circuits_max_w_states_its_minimum(capsys):
    with pytest.raises(SystemExit) as e:
        main(["bench", "circuits", "--max-w", "3", "--ratios-only"])
    assert e.value.code == 2
    assert "argument --max-w: must be an integer >= 4, got 3" in capsys.readouterr().err


def test_library_messages_keep_the_python_parameter():
    from symconv.constructions.arithmetic import compile_arithmetic
    from symconv.circuits import product_circuit

    with pytest.raises(HypothesisError, match=r"^shifts: must be an integer >= 2, got 1"):
        compile_arithmetic(product_circuit(4), 4, 1, layout="lean", shifts=1)


@pytest.mark.parametrize("message, renamed", [
    ("shifts: must be an integer >= 2, got 1", "--shifts: must be an integer >= 2, got 1"),
    ("shifts: must be an integer >= 2, got 10", None),      # another value: not the option typed
    ("shifts: must be an integer >= 2, got 1.5", None),
    ("N: must be a positive integer, got 1", None),         # not an option of the suite
    ("no parameter named here", None),
])
def test_as_typed_renames_only_the_option_and_value_typed(message, renamed):
    ns = argparse.Namespace(shifts=1, _options={"shifts": "--shifts"})
    exc = HypothesisError(message)
    got = bench_command.as_typed(exc, ns)
    if renamed is None:
        assert got is exc
    else:
        assert str(got) == renamed


def test_bench_numeric_quick_grades_correctness_but_not_ratios(capsys):
    """--quick runs every size / 2^4: a time ratio sits beside its full-size target, not graded (it used to print
    NO against the full-size target and exit 1); an error against its proved bound is still graded, and a ratio
    whose outputs disagree still fails."""
    import json

    from symconv.bench import Record
    from symconv.bench.numeric import _quick

    assert main(["bench", "numeric", "--quick", "--only", "error", "--only", "memory", "--repeats", "1",
                 "--format", "json"]) == 0
    out = capsys.readouterr().out
    recs = json.loads(out[out.index("["):])
    errors = [r for r in recs if r["name"].startswith("error /")]
    ratios = [r for r in recs if not r["name"].startswith("error /")]
    assert errors and all(r["ok"] is True and r["target"] == "<= 1" for r in errors)
    assert ratios and all(r["ok"] is None and r["target"].endswith("at full size") for r in ratios)
    slow = _quick(Record("layer / floor", 3.0, "<= 1.15", False, "x"))
    disagree = _quick(Record("torch", 0.5, "<= 0.9", False, "x", "outputs agree to 1e-3"))
    assert slow.ok is None and disagree.ok is False and disagree.detail.startswith("outputs disagree")


def test_verify_time_budget_without_max_size_is_refused(capsys):
    """--time-budget only limits the lifting of cost caps, which only an explicit --max-size does: alone it used to
    be accepted and ignored."""
    assert main(["verify", "H.9", "--time-budget", "600"]) == 2
    assert "symconv: error: --time-budget: applies only with --max-size" in _one_error(capsys)
