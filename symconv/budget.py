"""Memory budgets: estimate before allocating, refuse what does not fit.

Every entry point that allocates in proportion to its sizes (the numeric and
exact interpreters, the symbolic check, the constructors of large stacks, the
crosscheck hooks) calls :func:`require` with an estimate of the bytes it is
about to allocate.  When the estimate exceeds the budget it raises a
:class:`~symconv.model.HypothesisError` naming what was asked, the estimate and
the budget, before anything is allocated.

The budget is, in order: the ``budget`` argument of the call; the value set by
:func:`use_budget` (the CLI's ``--memory``); the environment variable
``SYMCONV_MEMORY`` (bytes, or a number with a unit: ``8GiB``, ``512MiB``);
otherwise :data:`DEFAULT_FRACTION` of the memory available on this machine.

>>> require(1 << 20, "a small array", budget=1 << 30)
1048576
>>> try:
...     require(3 << 30, "u (N = 2^31, d = 1, float64)", budget=1 << 30)
... except Exception as exc:
...     print(exc)
u (N = 2^31, d = 1, float64): needs 3.00 GiB, over the memory budget of 1.00 GiB (--memory / SYMCONV_MEMORY)
>>> parse_size("1.5GiB")
1610612736
"""
from __future__ import annotations

import contextlib
import os
import re
from typing import Iterator

from .model import HypothesisError

DEFAULT_FRACTION = 0.6
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 10**3, "kib": 1 << 10, "m": 1 << 20, "mb": 10**6,
          "mib": 1 << 20, "g": 1 << 30, "gb": 10**9, "gib": 1 << 30, "t": 1 << 40, "tb": 10**12, "tib": 1 << 40}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*([a-zA-Z]*)\s*$")
_override: list[int] = []


def parse_size(text: str | int, pname: str = "--memory") -> int:
    """Bytes from ``12345``, ``8GiB``, ``512MiB``, ``2.5GB`` (no expression is evaluated).

    >>> parse_size("512MiB")
    536870912
    """
    if isinstance(text, bool):
        raise HypothesisError(f"{pname}: expected a size in bytes, got {text!r}")
    if isinstance(text, int):
        value = text
    else:
        m = _SIZE.match(str(text))
        unit = m.group(2).lower() if m else None
        if m is None or unit not in _UNITS:
            raise HypothesisError(f"{pname}: {text!r} is not a size (e.g. 8GiB, 512MiB, 1000000)")
        value = int(float(m.group(1)) * _UNITS[unit])
    if value <= 0:
        raise HypothesisError(f"{pname}: a memory budget must be positive, got {text!r}")
    return value


def available_memory() -> int:
    """Bytes of memory available now (MemAvailable on Linux; physical memory elsewhere)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - exotic platforms
        return 8 << 30


def current_budget(budget: int | str | None = None) -> int:
    """The budget in bytes that applies to a call (see the module docstring for the order)."""
    if budget is not None:
        return parse_size(budget, "budget")
    if _override:
        return _override[-1]
    env = os.environ.get("SYMCONV_MEMORY")
    if env:
        return parse_size(env, "SYMCONV_MEMORY")
    return int(DEFAULT_FRACTION * available_memory())


@contextlib.contextmanager
def use_budget(budget: int | str | None) -> Iterator[int | None]:
    """Within the block, calls without their own ``budget`` use this one (None: no change).

    >>> with use_budget("1GiB"):
    ...     current_budget()
    1073741824
    """
    if budget is None:
        yield None
        return
    _override.append(parse_size(budget))
    try:
        yield _override[-1]
    finally:
        _override.pop()


def fmt_bytes(n: float) -> str:
    """``3.00 GiB``, ``512.0 MiB``, ``12 KiB``, ``100 B``.

    >>> fmt_bytes(3 << 30), fmt_bytes(1536), fmt_bytes(100)
    ('3.00 GiB', '1.5 KiB', '100 B')
    """
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.2f} {unit}" if unit in ("GiB", "TiB") else f"{v:.1f} {unit}"
    return f"{int(n)} B"


def require(nbytes: float, what: str, budget: int | str | None = None) -> int:
    """Return ``nbytes`` (as an int) if it fits the budget; raise a HypothesisError otherwise.

    ``what`` names the parameter and the size asked, e.g. ``"N: u at N = 2^31, d = 4, float64"``.
    """
    need = int(nbytes)
    limit = current_budget(budget)
    if need > limit:
        raise HypothesisError(
            f"{what}: needs {fmt_bytes(need)}, over the memory budget of {fmt_bytes(limit)} "
            "(--memory / SYMCONV_MEMORY)"
        )
    return need


def fits(nbytes: float, budget: int | str | None = None) -> bool:
    """Whether ``nbytes`` fits the budget (no exception)."""
    return int(nbytes) <= current_budget(budget)
