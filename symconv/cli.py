"""The ``symconv`` command.

Each subcommand lives in its own module of :mod:`symconv.commands` and exposes
``add_parser(subparsers)`` and ``main(args) -> int``; modules are found at
run time, so a new subcommand never edits this file.

    symconv [--memory SIZE] verify [IDS...] [--max-size K] [--format table|markdown|json]
    symconv crosscheck H.9 --N 65536 --memory 4GiB

Failures reach the user as one line on stderr, never as a traceback:

* a bad input (a :class:`~symconv.model.HypothesisError`, a file that cannot be
  written, a budget exceeded) prints ``symconv: error: <parameter>: <why>`` and
  exits 2 (argparse's own usage errors also exit 2);
* an unexpected exception prints ``symconv: internal error: ...`` with a hint to
  rerun with ``SYMCONV_DEBUG=1`` (which shows the traceback) and exits 1;
* Ctrl-C prints ``symconv: interrupted`` and exits 130; SIGTERM is turned into
  the same interruption (so cleanup runs) and exits 143;
* a closed pipe (``symconv verify | head``) exits quietly.

``--memory SIZE`` (before or after the subcommand; ``8GiB``, ``512MiB``, bytes)
sets the memory budget of :mod:`symconv.budget` for the whole command.

>>> build_parser().parse_args(["--memory", "1GiB", "verify"]).memory
'1GiB'
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import signal
import sys
from typing import Any

from . import budget, commands
from .model import HypothesisError

MEMORY_HELP = ("memory budget for the command, e.g. 8GiB or 512MiB (default: SYMCONV_MEMORY, else "
               f"{int(budget.DEFAULT_FRACTION * 100)}%% of the available memory)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="symconv",
        description="Check gated-convolution constructions exactly, render them, run them at scale.",
    )
    parser.add_argument("--memory", metavar="SIZE", default=None, help=MEMORY_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        p = module.add_parser(sub)
        p.set_defaults(_main=module.main)
        if not any("--memory" in a.option_strings for a in p._actions):
            p.add_argument("--memory", metavar="SIZE", default=argparse.SUPPRESS, help=MEMORY_HELP)
    return parser


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C so that cleanup runs."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated()


def _say(text: str) -> None:
    try:
        print(f"symconv: {text}", file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):  # pragma: no cover - stderr gone
        pass


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 2000 else text[:1997] + "..."


def _check_fft(value: str) -> None:
    """SYMCONV_FFT names an installed library (torch by its presence: importing it costs seconds)."""
    from . import numeric

    if value == "auto" or (value == "torch" and "torch" in numeric.installed_libraries()):
        return
    numeric._import_library(value)


def check_environment() -> None:
    """Refuse a bad ``SYMCONV_BACKEND``, ``SYMCONV_MEMORY`` or ``SYMCONV_FFT`` before any work, naming the variable
    (each would otherwise fail every claim or variant on its own, far from its cause).

    >>> import os; os.environ["SYMCONV_MEMORY"] = "lots"
    >>> try:
    ...     check_environment()
    ... except HypothesisError as e:
    ...     print(e)
    SYMCONV_MEMORY: 'lots' is not a size (e.g. 8GiB, 512MiB, 1000000)
    >>> del os.environ["SYMCONV_MEMORY"]
    """
    from . import symbolic

    checks = {"SYMCONV_BACKEND": symbolic._resolve,
              "SYMCONV_MEMORY": lambda v: budget.parse_size(v, "SYMCONV_MEMORY"),
              "SYMCONV_FFT": _check_fft}
    for var, check in checks.items():
        value = os.environ.get(var)
        if not value:
            continue
        try:
            check(value)
        except HypothesisError as exc:
            why = str(exc).split(": ", 1)[-1]
            raise HypothesisError(f"{var}: {why}") from exc


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv``; return the exit status (never raises, but SystemExit)."""
    debug = os.environ.get("SYMCONV_DEBUG", "") not in ("", "0")
    previous = None
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):  # not the main thread: leave signals alone
        previous = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "_main", None):
            parser.print_help()
            return 2
        check_environment()
        with budget.use_budget(getattr(args, "memory", None)):
            return int(args._main(args) or 0)
    except SystemExit:
        raise
    except HypothesisError as exc:
        if debug:
            raise
        _say(f"error: {_one_line(exc)}")
        return 2
    except _Terminated:
        _say("terminated")
        return 143
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except BrokenPipeError:
        try:  # the reader went away: stop quietly, without a second error at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
    except MemoryError:
        if debug:
            raise
        _say("error: out of memory; set a smaller budget with --memory SIZE (or SYMCONV_MEMORY) "
             "to have oversized steps refused before they allocate")
        return 1
    except Exception as exc:  # noqa: BLE001 - the last line of defence of a command-line tool
        if debug:
            raise
        _say(f"internal error: {type(exc).__name__}: {_one_line(exc)} "
             "(run with SYMCONV_DEBUG=1 for the traceback)")
        return 1
    finally:
        if previous is not None:
            try:
                signal.signal(signal.SIGTERM, previous)
            except (ValueError, OSError):  # pragma: no cover
                pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
