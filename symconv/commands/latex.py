"""``symconv latex [IDS...] [--all] [-o FILE] [--fragment] [--max-size K]``.

Renders the derivations of the named claims (or of every claim with
``--all``) in the paper's notation: per layer, the polynomial product and the
Hadamard product of block columns, for each variant, failing printed steps
marked.  The output is a standalone document (amsmath, amssymb, bm) opening
with a table of verdicts, or only its body with ``--fragment``.  It is
written whole or not at all.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

from ..claims import verify
from ..latex import claim_section, document
from ..model import HypothesisError
from ..registry import load_claims, select


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("latex", help="render derivations as LaTeX in the paper's notation")
    p.add_argument("ids", nargs="*", metavar="IDS", help="claim ids (H.9) or names (add_n)")
    p.add_argument("--all", action="store_true", help="every claim (a standalone appendix)")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")
    p.add_argument("--fragment", action="store_true", help="only the sections, no preamble")
    p.add_argument("--max-size", type=int, default=8, metavar="K", help="largest size swept for verdicts")
    p.add_argument("--proofs", metavar="DIR", help="folder of proof files")
    return p


def write_whole(path: str, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file renamed into place)."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".symconv-", suffix=".tex")
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(args: argparse.Namespace) -> int:
    if not args.all and not args.ids:
        raise HypothesisError("IDS: name at least one claim (H.9, add_n) or pass --all")
    claims = load_claims(args.proofs)
    claims = claims if args.all else select(claims, args.ids)
    verdicts, problems = [], {}
    for c in claims:  # a claim that cannot be verified at these sizes still appears, with the reason
        try:
            verdicts += verify(c, max_size=args.max_size)
        except HypothesisError as exc:
            problems[(c.id, c.name)] = f"{exc} (--max-size {args.max_size})"
    if args.fragment:
        text = "\n\n".join(claim_section(c, verdicts, problem=problems.get((c.id, c.name), ""))
                            for c in claims) + "\n"
    else:
        text = document(claims, verdicts, problems=problems)
    if args.output:
        write_whole(args.output, text)
        print(f"wrote {args.output}: {len(claims)} claims, {len(verdicts)} variants", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
