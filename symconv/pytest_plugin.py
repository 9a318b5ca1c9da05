"""A pytest plugin: the claims of proof files as test items, one per variant.

Opt-in, so that installing symconv changes no one's test run:

* ``pytest --symconv`` collects the proof files ``h*.py`` of the folder
  ``proofs/`` under the rootdir (and of any folder named ``proofs`` that pytest
  visits);
* ``pytest --symconv-proofs DIR`` (repeatable) collects the proof files of DIR.

Each variant of each claim becomes one item, ``h09_add.py::H.9 add_n [corrected]``.
An item passes when its verdict is the one the proof file records (``expect``:
an erratum recorded as failing passes when it fails), and fails with the
failure spelled out otherwise; items carry the marker ``symconv`` (``-m symconv``).
``--symconv-max-size K`` sets the sweep (default 8).  The plugin is registered under the entry-point group ``pytest11``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

PATTERN = "h*.py"


def pytest_addoption(parser) -> None:
    g = parser.getgroup("symconv", "symconv proof files as tests")
    g.addoption("--symconv", action="store_true", default=False,
                help="collect the claims of proofs/h*.py under the rootdir, one item per variant")
    g.addoption("--symconv-proofs", action="append", default=[], metavar="DIR",
                help="collect the claims of the proof files h*.py in DIR (repeatable)")
    g.addoption("--symconv-max-size", type=int, default=8, metavar="K",
                help="largest size swept for each claim (default 8)")


def _folders(config) -> list[Path]:
    out = [Path(d).resolve() for d in config.getoption("symconv_proofs") or ()]
    if config.getoption("symconv"):
        default = Path(str(config.rootpath)) / "proofs"
        if default.is_dir():
            out.append(default.resolve())
    return out


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "symconv: a variant of a claim of a proof file (select with -m symconv)")
    folders = _folders(config)
    for d in config.getoption("symconv_proofs") or ():
        if not Path(d).is_dir():
            raise pytest.UsageError(f"--symconv-proofs: {d!r} is not a folder")
    config._symconv_folders = folders
    args = [Path(a.split("::")[0]).resolve() for a in config.args]
    for d in folders:  # make pytest visit the folders, unless an argument covers them or picks in them
        if not any(d == a or a in d.parents or d in a.parents for a in args):
            config.args.append(str(d))


def pytest_collect_file(file_path: Path, parent):
    config = parent.config
    folders = getattr(config, "_symconv_folders", None)
    if not folders and not config.getoption("symconv"):
        return None
    if not file_path.match(PATTERN):
        return None
    folder = file_path.resolve().parent
    if folder in folders or (config.getoption("symconv") and folder.name == "proofs"):
        return ProofFile.from_parent(parent, path=file_path)
    return None


class ProofFile(pytest.File):
    """A proof file: one item per variant of each claim in its ``CLAIMS``."""

    def collect(self):
        from .registry import _claims_of, load_module

        module = load_module(self.path)
        for claim in _claims_of(module, self.path.name):
            for variant in claim.variants:
                yield ClaimItem.from_parent(self, name=f"{claim.id} {claim.name} [{variant.name}]",
                                            claim=claim, variant=variant.name)


class ClaimFailed(AssertionError):
    """A verdict that differs from the one its proof file records."""


class ClaimItem(pytest.Item):
    """One variant of one claim, verified over the sweep."""

    def __init__(self, *, claim, variant: str, **kw):
        super().__init__(**kw)
        self.claim = claim
        self.variant = variant
        self.add_marker("symconv")

    def runtest(self) -> None:
        from .claims import verify
        from .testing import describe_verdict

        (v,) = verify(self.claim, max_size=self.config.getoption("symconv_max_size"), variants=[self.variant])
        if not v.ok:
            raise ClaimFailed(describe_verdict(v))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ClaimFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        # not a suffix of the node id, so pytest shows the id as it is (it would turn "H.9" into "H::9")
        return self.path, None, f"claim {self.claim.id} {self.claim.name} [{self.variant}]"
