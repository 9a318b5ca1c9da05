"""Progress on stderr, only on a terminal: one line redrawn in place.

Every long command (verify, latex, crosscheck, bench) reports progress through
:class:`Progress`.  It writes nothing unless its stream is a terminal (so
pipes, files, CI logs and tests see no progress noise), uses ``tqdm`` when it
is installed and a plain in-place line otherwise.

>>> import io
>>> with Progress(3, "verify", stream=io.StringIO()) as bar:   # not a terminal: silent
...     for _ in range(3):
...         bar.update(1, "H.9")
>>> bar.done
3
"""
from __future__ import annotations

import sys
from typing import Any, TextIO


class Progress:
    """A progress bar over ``total`` steps (``total=None``: a counter).

    ``enabled=None`` decides from the stream (a terminal or not); pass
    ``enabled=False`` for ``--quiet``.
    """

    def __init__(self, total: int | None, desc: str = "", stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        self.total = total
        self.desc = desc
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty()) if enabled is None else bool(enabled)
        self.done = 0
        self._bar: Any = None
        self._width = 0
        if self.enabled:
            try:
                from tqdm import tqdm  # optional

                self._bar = tqdm(total=total, desc=desc, file=self.stream, leave=False, dynamic_ncols=True)
            except ImportError:
                self._bar = None

    def update(self, n: int = 1, what: str = "") -> None:
        """Advance by ``n`` steps; ``what`` names the item just finished."""
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            if what:
                self._bar.set_postfix_str(what[:40], refresh=False)
            self._bar.update(n)
            return
        total = f"/{self.total}" if self.total is not None else ""
        line = f"{self.desc} {self.done}{total} {what}"[:100]
        self.stream.write("\r" + line.ljust(self._width))
        self._width = len(line)
        self.stream.flush()

    def close(self) -> None:
        """Erase the line (or close tqdm's bar)."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
