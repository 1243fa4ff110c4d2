"""``memoryd events tail|export|import``."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``events`` command group."""
    subparsers.add_parser("events", help="read, export and import the event log")
