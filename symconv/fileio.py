"""Output files written whole or not at all.

Every file symconv writes (``latex -o``, ``bench --plot``, reports) goes
through :func:`atomic_write` or :func:`atomic_path`: the data goes to a
temporary file in the target's own folder, is flushed to disk (``fsync``) and
then renamed over the target with ``os.replace``.  Only a regular file or a
missing one is ever replaced; a directory, a device, a FIFO, a symlink or a
target whose folder does not exist gets a one-line
:class:`~symconv.model.HypothesisError` naming the path, before anything is
written.  The new file's permissions follow the umask (``0o666 & ~umask``), as
for a file created with ``open``.  When the write is interrupted (an exception,
``KeyboardInterrupt``, a full disk) the target is left as it was and the
temporary file is removed.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> target = os.path.join(folder, "out.tex")
>>> atomic_write(target, "hello\\n")
>>> open(target).read(), os.listdir(folder)
('hello\\n', ['out.tex'])
"""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from typing import IO, Callable, Iterator

from .model import HypothesisError

_PREFIX = ".symconv-tmp-"


def current_umask() -> int:
    """The process's umask (read from /proc where possible, so nothing is changed).

    >>> 0 <= current_umask() <= 0o777
    True
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)  # pragma: no cover - platforms without /proc
    os.umask(old)
    return old


def check_target(path: str | os.PathLike, pname: str = "path") -> str:
    """Return ``path`` as a string if it may be written: a regular file or a missing one.

    Raises a one-line :class:`HypothesisError` naming ``pname`` and the path otherwise.

    >>> check_target("/")
    Traceback (most recent call last):
    ...
    symconv.model.HypothesisError: path: '/' is a directory, not a file to write
    """
    if not isinstance(path, (str, os.PathLike)):
        raise HypothesisError(f"{pname}: expected a file path, got {type(path).__name__}")
    p = os.fspath(path)
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    if not p or "\0" in p:
        raise HypothesisError(f"{pname}: {p!r} is not a valid file name")
    if os.path.islink(p):
        raise HypothesisError(f"{pname}: {p!r} is a symbolic link; symconv replaces only regular files")
    try:
        st = os.stat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise HypothesisError(f"{pname}: cannot inspect {p!r} ({exc.strerror})") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise HypothesisError(f"{pname}: {p!r} is a directory, not a file to write")
        if not stat.S_ISREG(st.st_mode):
            raise HypothesisError(f"{pname}: {p!r} is not a regular file (a device, FIFO or socket); "
                                  "symconv replaces only regular files")
    folder = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(folder):
        raise HypothesisError(f"{pname}: the folder of {p!r} does not exist ({folder})")
    return p


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "", pname: str = "path") -> Iterator[str]:
    """Yield a temporary file name next to ``path``; on success it replaces ``path``.

    For writers that take a file name (``matplotlib.savefig``).  On any
    exception the temporary file is removed and ``path`` is untouched.
    """
    target = check_target(path, pname)
    folder = os.path.dirname(os.path.abspath(target))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=_PREFIX, suffix=suffix)
    except OSError as exc:
        raise HypothesisError(f"{pname}: cannot write in the folder of {target!r} ({exc.strerror})") from None
    os.close(fd)
    try:
        yield tmp
        _finish(tmp, target, pname)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _finish(tmp: str, target: str, pname: str) -> None:
    try:
        os.chmod(tmp, 0o666 & ~current_umask())
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        check_target(target, pname)  # it may have changed while we wrote
        os.replace(tmp, target)
    except OSError as exc:
        raise HypothesisError(f"{pname}: could not write {target!r} ({exc.strerror})") from None
    with contextlib.suppress(OSError):  # make the rename durable too
        dfd = os.open(os.path.dirname(os.path.abspath(target)), os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def atomic_write(path: str | os.PathLike, data: str | bytes | Callable[[IO], None], *,
                 encoding: str = "utf-8", pname: str = "path") -> None:
    """Write ``data`` (text, bytes, or a function given the open file) to ``path`` atomically.

    See the module docstring for what is refused and what an interrupted write leaves.
    """
    binary = isinstance(data, (bytes, bytearray))
    if not (binary or isinstance(data, str) or callable(data)):
        raise HypothesisError(f"data: expected str, bytes or a writer function, got {type(data).__name__}")
    with atomic_path(path, suffix=".part", pname=pname) as tmp:
        try:
            with open(tmp, "wb" if binary else "w", **({} if binary else {"encoding": encoding})) as f:
                if callable(data):
                    data(f)
                else:
                    f.write(data)
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            raise HypothesisError(f"{pname}: could not write {os.fspath(path)!r} ({exc.strerror})") from None
        except UnicodeEncodeError as exc:
            raise HypothesisError(f"{pname}: the text cannot be written as {encoding} ({exc.reason} "
                                  f"at character {exc.start})") from None
