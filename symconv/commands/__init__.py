"""Subcommands of ``symconv``: one module each, with ``add_parser`` and ``main``."""
