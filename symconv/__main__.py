"""``python -m symconv``: the ``symconv`` command (see :mod:`symconv.cli`).

``--version`` is answered here too, so that it works whatever the command
modules define.
"""
from __future__ import annotations

import sys

from . import __version__


def main(argv: list[str] | None = None) -> int:
    """Run the ``symconv`` command with ``argv`` (default: ``sys.argv[1:]``).

    >>> main(["--version"])
    symconv 0.2.0
    0
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] in (["--version"], ["-V"]):
        print(f"symconv {__version__}")
        return 0
    from .cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
