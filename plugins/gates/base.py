"""The built-in ingest gates: what a message must be to reach the extractor.

A gate sees each message of a retrospective's slice before any extractor (a model or the
offline one) does, and refuses it by saying why; a refused message is never shown to the
extractor, and the run records it with its reason. ``default`` refuses nothing (every message
is read, as before gates existed); ``noise`` refuses a message whose whole text is a greeting,
an acknowledgement or tool chatter (``noise_filters``, :mod:`plugins.gates.noise`). A short
reply such as "yes" can carry meaning with the question before it, which ``noise`` then hides
from the extractor: that is why it is not the default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plugins.gates.noise import NOISE_FILTERS, noise_kind


@dataclass(frozen=True, slots=True)
class GateMessage:
    """One message as a gate sees it."""

    message_id: str
    role: str
    """user, assistant, tool or system."""
    text: str


class PassGate:
    """``default``: every message reaches the extractor."""

    name = "default"

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config = dict(config or {})

    async def refuse(self, message: GateMessage) -> str | None:
        """Refuse nothing."""
        return None


class NoiseGate:
    """``noise``: a message that is only a greeting, an acknowledgement or tool chatter is
    refused (``noise_filters`` in the configuration: ``default``, ``minimal`` or ``none``)."""

    name = "noise"

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        filters = str((config or {}).get("noise_filters", "default"))
        if filters not in NOISE_FILTERS:
            raise ValueError(f"noise_filters {filters!r} is not one of {', '.join(NOISE_FILTERS)}")
        self.filters = filters

    async def refuse(self, message: GateMessage) -> str | None:
        """Refuse a message whose whole text is noise, naming which kind."""
        kind = noise_kind(message.text, self.filters)
        return None if kind is None else f"noise: {kind}"


GATES: tuple[type[PassGate] | type[NoiseGate], ...] = (PassGate, NoiseGate)
"""The built-in gates, registered by name."""
