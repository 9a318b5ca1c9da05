"""Finding the proof files and the claims they register.

Every ``proofs/h*.py`` file defines a module-level list ``CLAIMS`` of
:class:`~symconv.claims.Claim`.  The proofs folder is the one beside the
installed package (a checkout installed with ``pip install -e .``), or
``./proofs``, or the folder given with ``--proofs`` / ``SYMCONV_PROOFS``.

>>> [c.id for c in load_claims()][:1]
['H.7']
"""
from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

from .claims import Claim
from .model import HypothesisError


def proofs_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The folder holding the proof files."""
    candidates = []
    if explicit:
        candidates.append(Path(explicit))
    elif os.environ.get("SYMCONV_PROOFS"):
        candidates.append(Path(os.environ["SYMCONV_PROOFS"]))
    else:
        candidates += [Path(__file__).resolve().parent.parent / "proofs", Path.cwd() / "proofs"]
    for c in candidates:
        if c.is_dir():
            return c
    raise HypothesisError(
        f"proofs: no proofs folder found (looked in {', '.join(map(str, candidates))}); pass --proofs DIR"
    )


def _id_key(claim_id: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.\s]", claim_id))


def load_module(path: Path):
    """Import one proof file by path (its name is ``symconv_proofs.<stem>``)."""
    name = f"symconv_proofs.{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception:
        del sys.modules[name]
        raise
    return module


def load_claims(directory: str | os.PathLike | None = None) -> list[Claim]:
    """All claims of all proof files, ordered by result number."""
    out: list[Claim] = []
    for path in sorted(proofs_dir(directory).glob("h*.py")):
        module = load_module(path)
        claims = getattr(module, "CLAIMS", None)
        if not isinstance(claims, (list, tuple)) or not all(isinstance(c, Claim) for c in claims):
            raise HypothesisError(f"{path.name}: must define CLAIMS, a list of Claim")
        out.extend(claims)
    out.sort(key=lambda c: _id_key(c.id))
    return out


def select(claims: list[Claim], ids: list[str]) -> list[Claim]:
    """The claims whose id (``H.9``) or name (``add_n``) is in ``ids``; all when empty."""
    if not ids:
        return claims
    known = {c.id for c in claims} | {c.name for c in claims}
    for i in ids:
        if i not in known:
            raise HypothesisError(f"IDS: no claim {i!r}; known: {', '.join(sorted({c.id for c in claims}))}")
    return [c for c in claims if c.id in ids or c.name in ids]
