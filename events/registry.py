"""Every event class the log may hold, in one list: the codec registers them all.

What a codec can decode must not depend on what else happened to be imported, so the modules
that define events only define them, and this module names each module's classes. A new event
module adds its tuple here (``tests/events/test_codec.py`` checks, in a fresh interpreter, that
importing :mod:`events.codec` alone decodes every :class:`~events.types.Event` subclass).
"""

from __future__ import annotations

from events.consolidation_events import CONSOLIDATION_EVENT_CLASSES
from events.daemon_events import DAEMON_EVENT_CLASSES
from events.episode_events import EPISODE_EVENT_CLASSES
from events.recall_events import RECALL_EVENT_CLASSES
from events.retrospective_events import RETROSPECTIVE_EVENT_CLASSES
from events.types import CORE_EVENT_CLASSES, Event

EVENT_CLASSES: tuple[type[Event], ...] = (
    *CORE_EVENT_CLASSES,
    *CONSOLIDATION_EVENT_CLASSES,
    *RETROSPECTIVE_EVENT_CLASSES,
    *RECALL_EVENT_CLASSES,
    *DAEMON_EVENT_CLASSES,
    *EPISODE_EVENT_CLASSES,
)
