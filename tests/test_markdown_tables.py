"""Markdown tables (``verify --format markdown``, ``verify --bounds``): one line per row, never wrapped.

A Markdown table row must be one line; the plain ``table`` format wraps cells to the terminal,
and that wrapping used to reach the Markdown output too (a long cell went on "continuation" rows
with an empty id, each read as a row of its own).
"""
import json
import re

import pytest

from symconv.cli import main
from symconv.display import markdown_cell, markdown_table

_PIPE = re.compile(r"(?<!\\)\|")


def cells(line: str) -> list[str]:
    """The cells of one Markdown table row (split on unescaped pipes), as written (spaces kept)."""
    assert line.startswith("|") and line.endswith("|"), f"not a table row: {line!r}"
    return _PIPE.split(line)[1:-1]


def tables(text: str) -> list[list[str]]:
    """The Markdown tables of ``text``: runs of lines that start with a pipe."""
    out, cur = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    return out


def check_table(lines: list[str], compact: bool = False) -> list[list[str]]:
    """Assert a well-formed table (header, separator, rows of as many cells as the header); its rows' cells."""
    head = cells(lines[0])
    assert len(lines) >= 2 and all(re.fullmatch(r" ?:?-{3,}:? ?", c) for c in cells(lines[1])), lines[:2]
    assert len(cells(lines[1])) == len(head)
    rows = []
    for line in lines[2:]:
        c = cells(line)
        assert len(c) == len(head), f"{len(c)} cells, header {len(head)}: {line!r}"
        if compact:  # | a | b |: one space each side, no padding to the column width
            assert all(x == " " + x.strip() + " " or x == "  " for x in c), line
        rows.append([x.strip() for x in c])
    return rows


def test_markdown_table_helper():
    t = markdown_table([["H.1", "a | b", "x\ny"], ["H.2", r"c \| d"]], ["id", "claim", "note"])
    lines = t.splitlines()
    assert lines[:2] == ["| id | claim | note |", "| --- | --- | --- |"]
    rows = check_table(lines, compact=True)
    assert rows == [["H.1", r"a \| b", "x y"], ["H.2", r"c \| d", ""]]
    assert markdown_cell("long " * 100).count("\n") == 0
    with pytest.raises(ValueError, match="3 cells"):
        markdown_table([[1, 2, 3]], ["a", "b"])


def test_verify_markdown_rows_are_single_lines_at_any_width(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")  # the narrowest terminal: the plain table wraps every long cell
    assert main(["verify", "H.7", "H.9", "--max-size", "3", "--quiet", "--format", "json"]) == 0
    variants = [(r["id"], r["variant"]) for r in json.loads(capsys.readouterr().out)]
    assert main(["verify", "H.7", "H.9", "--max-size", "3", "--quiet", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    found = tables(out)
    assert len(found) == 2  # the verdicts, then the bounds (H.9 has bounds)
    rows = check_table(found[0])
    assert all(re.fullmatch(r"H\.\d+", r[0]) for r in rows), "a continuation row (empty id) in the table"
    assert [(r[0], r[2]) for r in rows] == variants  # one row per variant, the variant's name whole
    bounds = check_table(found[1], compact=True)
    assert bounds and all(re.fullmatch(r"H\.\d+", r[0]) for r in bounds)


def test_verify_bounds_is_compact_markdown(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    assert main(["verify", "H.9", "--max-size", "3", "--quiet", "--bounds"]) == 0
    out = capsys.readouterr().out
    (table,) = tables(out)
    assert table[0] == ("| id | claim | bound | claimed | claimed value | built by symconv | proved lower bound | "
                        "verdict on the claim |")
    assert table[1] == "| " + " | ".join(["---"] * 8) + " |"
    rows = check_table(table, compact=True)
    assert rows and all(r[0] == "H.9" and r[1] == "add_n" for r in rows)
    assert any(r[7] == "met" for r in rows)


def test_verify_plain_table_still_wraps_to_the_terminal(capsys, monkeypatch):
    """Only the Markdown output stops wrapping: the plain table keeps its narrow, wrapped cells."""
    monkeypatch.setenv("COLUMNS", "60")
    assert main(["verify", "H.9", "--max-size", "3", "--quiet"]) == 0
    table = capsys.readouterr().out.split("\n\n")[0].splitlines()
    assert table[0].startswith("id ") and not table[0].startswith("|")
    assert any(line.startswith("      ") for line in table[2:])  # a continuation line (cells wrapped)
