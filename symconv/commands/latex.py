"""``symconv latex [IDS...] [--all] [-o FILE] [--fragment] [--brief] [--title TEXT] [--max-size K]``.

Renders the derivations of the named claims (or of every claim with
``--all``) in the paper's notation: per layer, the polynomial product and the
Hadamard product of block columns, for each variant, failing printed steps
marked.  The output is a standalone document (amsmath, amssymb, graphicx,
longtable) opening with a table of verdicts, or only its body with
``--fragment``.  ``--brief`` keeps, per claim, the statement, the verdicts,
the derivation of the variants that hold and the errata with their failure.
A proof file that fails to import is listed as not verified; the others are
rendered.  The file is written whole or not at all.
"""
from __future__ import annotations

import argparse
import sys

from ..claims import verify
from ..fileio import atomic_write, check_target
from ..latex import claim_section, document
from ..model import HypothesisError
from ..progress import Progress
from ..registry import load_claims, load_proofs, select  # noqa: F401 - load_claims: kept for callers


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("latex", help="render derivations as LaTeX in the paper's notation")
    p.add_argument("ids", nargs="*", metavar="IDS", help="claim ids (H.9) or names (add_n)")
    p.add_argument("--all", action="store_true", help="every claim (a standalone appendix)")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")
    p.add_argument("--fragment", action="store_true", help="only the sections, no preamble")
    p.add_argument("--brief", action="store_true",
                   help="statement, verdicts, the derivation of what holds, errata (no printed derivations)")
    p.add_argument("--title", metavar="TEXT", default="Appendix H, checked by symconv",
                   help="the document's title (any text; it is escaped)")
    p.add_argument("--max-size", type=int, default=8, metavar="K", help="largest size swept for verdicts (default 8)")
    p.add_argument("--proofs", metavar="DIR", action="append", default=[],
                   help="also the proof files h*.py of DIR (repeatable; the paper's proofs are always included)")
    return p


def write_whole(path: str, text: str) -> None:
    """Write ``text`` to ``path`` atomically (see :mod:`symconv.fileio`)."""
    atomic_write(path, text, pname="-o/--output")


def main(args: argparse.Namespace) -> int:
    if not args.all and not args.ids:
        raise HypothesisError("IDS: name at least one claim (H.9, add_n) or pass --all")
    if args.all and args.ids:
        raise HypothesisError(f"--all: renders every claim, so the IDS {' '.join(args.ids)} would be ignored; "
                              "pass either --all or IDS")
    if args.max_size < 1:
        raise HypothesisError(f"--max-size: must be at least 1, got {args.max_size}")
    if args.output:  # a target that cannot be written is refused before the long verification
        check_target(args.output, "-o/--output")
    extra = args.proofs if isinstance(args.proofs, list) else [args.proofs] if args.proofs else []
    claims, broken = load_proofs(extra)
    claims = claims if args.all else select(claims, args.ids)
    verdicts, problems = [], {}
    for b in broken:  # a proof file that does not import: named, with its exception; the others go on
        print(f"symconv: {b}", file=sys.stderr)
        problems[(b.path.rsplit("/", 1)[-1], "proof file")] = b.message
    with Progress(len(claims), "latex") as bar:
        for c in claims:  # a claim that cannot be verified at these sizes still appears, with the reason
            try:
                verdicts += verify(c, max_size=args.max_size)
            except HypothesisError as exc:
                problems[(c.id, c.name)] = f"{exc} (--max-size {args.max_size})"
            bar.update(1, f"{c.id} {c.name}")
    if args.fragment:
        text = "\n\n".join(claim_section(c, verdicts, problem=problems.get((c.id, c.name), ""), brief=args.brief)
                            for c in claims) + "\n"
    else:
        text = document(claims, verdicts, title=args.title, problems=problems, brief=args.brief)
    if args.output:
        write_whole(args.output, text)
        print(f"wrote {args.output}: {len(claims)} claims, {len(verdicts)} variants", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
