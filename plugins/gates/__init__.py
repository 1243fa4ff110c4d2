"""Built-in ingest gates (:mod:`plugins.gates.base`): ``default`` and ``noise``."""

from __future__ import annotations

from plugins.gates.base import GATES
from plugins.hookspecs import Register, hookimpl


@hookimpl
def register_ingest_gates(register: Register) -> None:
    """Register the built-in gates."""
    for cls in GATES:
        register(cls.name, cls)
