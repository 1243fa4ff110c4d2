"""The ingest gate at validation: a fact whose text matches a prompt-injection pattern is not
validated unless someone vouches for it (``force``).

:func:`validation_refusal` decides; the facts API (``daemon/api/facts.py``) records a refusal
as ``ValidationRefused`` and answers 409 ``validation_refused``. (At write time the gate's
flags quarantine a fact: see :mod:`daemon.memory.trust`.)
"""

from __future__ import annotations

from events.store.base import StoredEvent
from events.types import FactWritten
from plugins.gates.injection import scan


def fact_text(events: list[StoredEvent]) -> str:
    """Return the text of the fact written in ``events`` (empty if none)."""
    for stored in reversed(events):
        if isinstance(stored.event, FactWritten):
            return stored.event.text
    return ""


def validation_refusal(events: list[StoredEvent], *, force: bool) -> list[str]:
    """Return why validating the fact of ``events`` is refused (the gate's flags); empty
    when it may go ahead: nothing flagged, or ``force``."""
    if force:
        return []
    return scan(fact_text(events))
