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
