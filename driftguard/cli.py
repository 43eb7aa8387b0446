"""The command line: argparse, each command a function returning an exit code."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from driftguard import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="driftguard",
        description="Check that documents still state what the code declares.",
    )
    parser.add_argument("--version", action="version", version=f"driftguard {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    parser.parse_args(argv)
    parser.print_help(sys.stdout)
    return 0
