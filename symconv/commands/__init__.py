"""Subcommands of ``symconv``: one module each, with ``add_parser`` and ``main``."""


def _int_at_least(least: int, what: str):
    """An argparse type: an integer ≥ ``least``, or a usage error (argparse names the option)."""
    import argparse

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be a {what} integer, got {value}")
        return value
    return parse


#: argparse type of a count option (``--repeats``, ``--d``, …): ``positive_int("3") == 3``; 0 is refused
positive_int = _int_at_least(1, "positive")
#: argparse type of a seed: an integer ≥ 0
nonnegative_int = _int_at_least(0, "non-negative")
