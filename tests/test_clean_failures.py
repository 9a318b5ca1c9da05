"""No traceback reaches a CLI user: one line and a meaningful exit status for every failure."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from symconv import budget, cli

ROOT = Path(__file__).resolve().parent.parent


def test_a_user_error_is_one_line_naming_the_parameter_exit_2(capsys):
    assert cli.main(["--memory", "lots", "verify"]) == 2
    err = capsys.readouterr().err
    assert err == "symconv: error: --memory: 'lots' is not a size (e.g. 8GiB, 512MiB, 1000000)\n"


def test_an_unexpected_exception_is_one_line_with_a_hint_exit_1(capsys, monkeypatch):
    from symconv.commands import crosscheck

    def boom(args):
        raise KeyError("deep inside")
    monkeypatch.setattr(crosscheck, "main", boom)
    assert cli.main(["crosscheck", "--explain-bound"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: KeyError" in err and "SYMCONV_DEBUG=1" in err
    monkeypatch.setenv("SYMCONV_DEBUG", "1")
    with pytest.raises(KeyError):
        cli.main(["crosscheck", "--explain-bound"])


def test_ctrl_c_exits_130_with_one_line(capsys, monkeypatch):
    from symconv.commands import crosscheck

    def interrupted(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(crosscheck, "main", interrupted)
    assert cli.main(["crosscheck", "--explain-bound"]) == 130
    assert capsys.readouterr().err == "symconv: interrupted\n"


def test_memory_sets_the_budget_of_the_command(monkeypatch):
    from symconv.commands import crosscheck

    seen = []
    monkeypatch.setattr(crosscheck, "main", lambda args: seen.append(budget.current_budget()) or 0)
    assert cli.main(["crosscheck", "--memory", "3MiB"]) == 0
    assert cli.main(["--memory", "5MiB", "crosscheck"]) == 0
    assert seen == [3 << 20, 5 << 20]


def _slow_command(tmp_path):
    """A proof whose numeric hook sleeps, so that the command is busy when the signal comes."""
    (tmp_path / "h98_slow.py").write_text(
        "import time\n"
        "from symconv import Claim, Variant\n"
        "def hook(N, d, batch, rng):\n"
        "    print('started', flush=True)\n"
        "    time.sleep(60)\n"
        "CLAIMS = [Claim('S.1', 'slow', 'sleeps', (), None, (Variant('construction', lambda z: None, numeric=hook),))]\n")
    return [sys.executable, "-m", "symconv.cli", "crosscheck", "--proofs", str(tmp_path), "--N", "8", "--quiet",
            "--format", "jsonl"]


@pytest.mark.parametrize("sig, rc, line", [(signal.SIGINT, 130, "symconv: interrupted"),
                                          (signal.SIGTERM, 143, "symconv: terminated")])
def test_signals_end_the_command_with_one_line(tmp_path, sig, rc, line):
    p = subprocess.Popen(_slow_command(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=ROOT)
    try:
        assert p.stdout.readline().strip() == "started"
        time.sleep(0.2)
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == rc and err.strip() == line and "Traceback" not in err


def test_a_closed_pipe_is_not_a_traceback(tmp_path):
    cmd = [sys.executable, "-m", "symconv.cli", "crosscheck", "--explain-bound"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    p.stdout.close()  # the reader is gone before the command writes
    err = p.stderr.read().decode()
    p.wait(timeout=30)
    assert "Traceback" not in err


TINY = ("from symconv import Claim, Instance, SizeParam, Variant, sym\n"
        "from symconv.claims import NumericCase\n"
        "from symconv.constructions.shifts import shift_down\n"
        "def build(z):\n"
        "    y = sym('y', z['N'])\n"
        "    return Instance(y, shift_down(z['N'], 0), y)\n"
        "def hook(N, d, batch, rng):\n"
        "    return NumericCase(shift_down(N, 0, d), rng.standard_normal((batch, N, d)), lambda u: u)\n"
        "CLAIMS = [Claim('T.1', 'ident', 'identity', (SizeParam('N', 1),), None,\n"
        "                (Variant('construction', build, numeric=hook),))]\n")

CLI_CASES = [
    (["crosscheck", "T.1", "--N", "-5"], "argument --N: must be a positive integer, got -5"),
    (["crosscheck", "T.1", "--d", "0"], "argument --d: must be a positive integer, got 0"),
    (["crosscheck", "T.1", "--batch", "0"], "argument --batch: must be a positive integer, got 0"),
    (["crosscheck", "T.1", "--trials", "0", "--backend", "exact"], "argument --trials: must be a positive integer, got 0"),
    (["crosscheck", "T.1", "--seed", "-1"], "argument --seed: must be a non-negative integer, got -1"),
    (["crosscheck", "T.1", "--prime", "4", "--backend", "exact"], "prime (--prime): must be an odd prime"),
    (["crosscheck", "T.1", "--N", "abc"], "argument --N: invalid int value"),
    (["crosscheck", "T.1", "--format", "xml"], "argument --format: invalid choice"),
    (["crosscheck", "T.1", "--memory", "0"], "--memory: a memory budget must be positive"),
    (["crosscheck", "T.1", "--memory", "1e400"], "--memory: '1e400' is not a size"),
    (["crosscheck", "T.404"], "IDS: no claim 'T.404'"),
]


@pytest.mark.parametrize("argv, message", CLI_CASES, ids=[" ".join(a[1:]) for a, _ in CLI_CASES])
def test_bad_command_lines_exit_2_with_the_parameter_named(tmp_path, capsys, argv, message):
    (tmp_path / "h97_tiny.py").write_text(TINY)
    with pytest.raises(SystemExit) if "argument" in message else _nothing() as e:
        rc = cli.main(argv + ["--proofs", str(tmp_path), "--quiet"])
    rc = e.value.code if "argument" in message else rc
    err = capsys.readouterr().err
    assert rc == 2 and message in err.splitlines()[-1] and "Traceback" not in err


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("target, message", [("/dev/null", "not a regular file"),
                                             ("missing/out.tex", "does not exist"), (".", "is a directory")])
def test_latex_output_targets_that_cannot_be_written_exit_2(tmp_path, capsys, target, message):
    (tmp_path / "h97_tiny.py").write_text(TINY)
    path = target if target.startswith("/") else str(tmp_path / target)
    rc = cli.main(["latex", "T.1", "--proofs", str(tmp_path), "-o", path])
    err = capsys.readouterr().err
    assert rc == 2 and "-o/--output" in err and message in err and err.count("\n") == 1
