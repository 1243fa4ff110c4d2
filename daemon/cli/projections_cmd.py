"""``memoryd projections rebuild|verify`` and ``memoryd replay``."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``projections`` and ``replay`` commands."""
    subparsers.add_parser("projections", help="rebuild and verify the projections")
