"""Finding the proof files and the claims they register.

A proof file (``h*.py``) defines a module-level list ``CLAIMS`` of
:class:`~symconv.claims.Claim`.  Claims come from three places, never from the
current folder implicitly:

* the paper's proofs, shipped with symconv (the importable package
  ``symconv_proofs``, which is the checkout's ``proofs/`` folder);
* third-party collections registered under the entry-point group
  ``symconv.proofs`` (the entry point names a list of claims, a module with
  ``CLAIMS``, or a package whose folder holds proof files);
* folders named explicitly (``--proofs DIR``, or ``SYMCONV_PROOFS``, a
  ``os.pathsep``-separated list), which add to the others.

:func:`load_proofs` returns the claims and a list of :class:`ProofProblem`
(files that raised on import or define no proper ``CLAIMS``), so one broken
file never hides the others; :func:`load_claims` raises on any problem.

>>> claims, problems = load_proofs()
>>> [c.id for c in claims][:1], problems
(['H.7'], [])
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .claims import Claim
from .model import HypothesisError

GROUP = "symconv.proofs"
PATTERN = "h*.py"
PACKAGE = "symconv_proofs"


@dataclass(frozen=True)
class ProofProblem:
    """A proof source that could not be loaded: its path (or entry point) and why."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def paper_proofs_dir() -> Path | None:
    """The folder of the paper's proofs: ``proofs/`` of a checkout, or the installed
    ``symconv_proofs`` package (a wheel); None when neither is there."""
    here = Path(__file__).resolve().parent.parent
    if (here / "pyproject.toml").is_file() and (here / "proofs").is_dir():
        return here / "proofs"
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        spec = None
    for loc in getattr(spec, "submodule_search_locations", None) or ():
        if Path(loc).is_dir():
            return Path(loc)
    return None


def proofs_dir(explicit: str | os.PathLike | None = None) -> Path:
    """An explicit folder of proof files (checked), else the paper's proofs folder."""
    if explicit:
        return _checked_dir(explicit)
    found = paper_proofs_dir()
    if found is None:
        raise HypothesisError("proofs: the paper's proofs are not installed (symconv_proofs); pass --proofs DIR")
    return found


def _checked_dir(d: str | os.PathLike) -> Path:
    p = Path(d)
    if not p.is_dir():
        raise HypothesisError(f"--proofs: {str(d)!r} is not a folder")
    if not any(p.glob(PATTERN)):
        raise HypothesisError(f"--proofs: {str(d)!r} holds no proof file ({PATTERN})")
    return p


def _id_key(claim_id: str) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.\s]", claim_id))


def _module_name(path: Path) -> str:
    """``symconv_proofs.<stem>`` for the paper's proofs; a name unique to the folder otherwise."""
    folder = path.resolve().parent
    paper = paper_proofs_dir()
    if paper is not None and folder == paper.resolve():
        return f"{PACKAGE}.{path.stem}"
    tag = hashlib.sha1(str(folder).encode()).hexdigest()[:12]
    return f"_symconv_user_{tag}.{path.stem}"


def load_module(path: str | os.PathLike):
    """Import one proof file by path (cached, so a worker imports each file once)."""
    path = Path(path)
    name = _module_name(path)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _claims_of(obj: Any, where: str) -> list[Claim]:
    claims = getattr(obj, "CLAIMS", obj)
    if callable(claims) and not isinstance(claims, (list, tuple)):
        claims = claims()
    if not isinstance(claims, (list, tuple)) or not all(isinstance(c, Claim) for c in claims):
        raise HypothesisError(f"{where}: must define CLAIMS, a list of Claim (got {type(claims).__name__})")
    return list(claims)


def _load_file(path: Path, claims: list, problems: list) -> None:
    try:
        module = load_module(path)
        if not hasattr(module, "CLAIMS"):
            raise HypothesisError(f"{path.name}: defines no CLAIMS (a list of Claim)")
        claims.extend(_claims_of(module, path.name))
    except HypothesisError as exc:
        problems.append(ProofProblem(str(path), str(exc).split(": ", 1)[-1]))
    except Exception as exc:  # noqa: BLE001 - a broken proof file is reported, the others still load
        problems.append(ProofProblem(str(path), f"{type(exc).__name__}: {exc}"))


def _load_dir(folder: Path, claims: list, problems: list) -> None:
    for path in sorted(folder.glob(PATTERN)):
        _load_file(path, claims, problems)


def _entry_points() -> list:
    from importlib.metadata import entry_points

    return list(entry_points(group=GROUP))


def _load_entry_point(ep, claims: list, problems: list, seen: set) -> None:
    where = f"entry point {ep.name} = {ep.value}"
    try:
        obj = ep.load()
        if not hasattr(obj, "CLAIMS") and hasattr(obj, "__path__"):  # a package of proof files
            for loc in obj.__path__:
                if Path(loc).resolve() not in seen:
                    seen.add(Path(loc).resolve())
                    _load_dir(Path(loc), claims, problems)
            return
        claims.extend(_claims_of(obj, where))
    except HypothesisError as exc:
        problems.append(ProofProblem(where, str(exc).split(": ", 1)[-1]))
    except Exception as exc:  # noqa: BLE001 - reported, the others still load
        problems.append(ProofProblem(where, f"{type(exc).__name__}: {exc}"))


def _env_dirs() -> list[str]:
    return [d for d in os.environ.get("SYMCONV_PROOFS", "").split(os.pathsep) if d]


def load_proofs(extra_dirs: Iterable[str | os.PathLike] = (), entry_points: bool = True,
                paper: bool = True, environ: bool = True) -> tuple[list[Claim], list[ProofProblem]]:
    """The claims of the paper's proofs, of the ``symconv.proofs`` entry points and of
    ``extra_dirs`` (and ``SYMCONV_PROOFS``), ordered by result number, with the problems met.

    An extra folder that does not exist or holds no proof file is a HypothesisError; a file
    that raises on import is a :class:`ProofProblem` and the other files still load.

    >>> claims, problems = load_proofs(entry_points=False)
    >>> len(claims) > 30, problems
    (True, [])
    """
    extra = [_checked_dir(d) for d in list(extra_dirs) + (_env_dirs() if environ else [])]
    claims: list[Claim] = []
    problems: list[ProofProblem] = []
    seen: set = set()
    folders = ([paper_proofs_dir()] if paper else []) + extra
    for folder in folders:
        if folder is not None and folder.resolve() not in seen:
            seen.add(folder.resolve())
            _load_dir(folder, claims, problems)
    if entry_points:
        for ep in _entry_points():
            _load_entry_point(ep, claims, problems, seen)
    unique, keys = [], {}
    for c in claims:
        key = (c.id, c.name)
        if key in keys:
            if keys[key] is not c:
                problems.append(ProofProblem(_origin(c), f"claim {c.id} {c.name} is defined twice; the first is kept"))
            continue
        keys[key] = c
        unique.append(c)
    unique.sort(key=lambda c: _id_key(c.id))
    return unique, problems


def _origin(claim: Claim) -> str:
    for v in claim.variants:
        mod = sys.modules.get(getattr(v.build, "__module__", ""), None)
        if getattr(mod, "__file__", None):
            return mod.__file__
    return f"claim {claim.id}"


def load_claims(directory: str | os.PathLike | None = None) -> list[Claim]:
    """The claims of one folder of proof files (default: the paper's proofs and the entry
    points), ordered by result number; raises a HypothesisError naming every file that failed.

    >>> [c.name for c in load_claims()][:2]
    ['hadamard', 'identity']
    """
    if directory is None:
        claims, problems = load_proofs()
    else:
        claims, problems = load_proofs([directory], entry_points=False, paper=False, environ=False)
    if problems:
        raise HypothesisError("proofs: " + "; ".join(map(str, problems)))
    return claims


def select(claims: list[Claim], ids: list[str]) -> list[Claim]:
    """The claims whose id (``H.9``) or name (``add_n``) is in ``ids``; all when empty."""
    if not ids:
        return claims
    known = {c.id for c in claims} | {c.name for c in claims}
    for i in ids:
        if i not in known:
            raise HypothesisError(f"IDS: no claim {i!r}; known: {', '.join(sorted({c.id for c in claims}))}")
    return [c for c in claims if c.id in ids or c.name in ids]
