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
            raise argparse.ArgumentTypeError(f"must be a {what} integer, got {value}" if what else
                                             f"must be an integer >= {least}, got {value}")
        return value
    return parse


def int_at_least(least: int):
    """An argparse type for an option whose rule is a minimum other than 0 or 1: ``int_at_least(4)("3")``
    is a usage error ``must be an integer >= 4, got 3``."""
    return _int_at_least(least, "")


#: argparse type of a count option (``--repeats``, ``--d``, …): ``positive_int("3") == 3``; 0 is refused
positive_int = _int_at_least(1, "positive")
#: argparse type of a seed: an integer ≥ 0
nonnegative_int = _int_at_least(0, "non-negative")
