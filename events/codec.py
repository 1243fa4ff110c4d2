"""Turn events into stored payloads and back, upgrading old schema versions on read.

Design rationale (after pyeventsourcing): the log is immutable, so a schema change never
rewrites stored events. Instead each class declares its current ``schema_version`` and the
codec holds one upcaster per (event type, old version) that lifts a payload one version up.
Reading applies them in a chain until the payload is current, so projections and the daemon
only ever see current classes.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

import orjson

from events.registry import EVENT_CLASSES
from events.types import Event

Payload = dict[str, Any]
Upcaster = Callable[[Payload], Payload]


class UnknownEventType(LookupError):
    """A stored event names a type that no registered class handles."""


class EventDecodeError(ValueError):
    """A stored payload does not fit its event class."""


@dataclasses.dataclass(frozen=True, slots=True)
class _ClassInfo:
    cls: type[Event]
    datetime_fields: frozenset[str]
    field_names: frozenset[str]


def _datetime_fields(cls: type[Event]) -> frozenset[str]:
    hints = typing.get_type_hints(cls)
    names = set()
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        args = typing.get_args(hint)
        if hint is datetime or datetime in args:
            names.add(f.name)
    return frozenset(names)


def parse_datetime(value: str) -> datetime:
    """Parse an ISO 8601 timestamp; a naive one is taken as UTC."""
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is UTC:
        return parsed
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


class EventCodec:
    """Registry of event classes and upcasters; encodes and decodes payloads.

    By default it knows every class of :data:`events.registry.EVENT_CLASSES`.
    """

    def __init__(self, classes: Iterable[type[Event]] = EVENT_CLASSES) -> None:
        self._classes: dict[str, _ClassInfo] = {}
        self._upcasters: dict[tuple[str, int], Upcaster] = {}
        for cls in classes:
            self.register(cls)
        _register_core_upcasters(self)

    def register(self, cls: type[Event]) -> None:
        """Register an event class under its ``event_type``."""
        if not cls.event_type:
            raise ValueError(f"{cls.__name__} has no event_type")
        existing = self._classes.get(cls.event_type)
        if existing is not None and existing.cls is not cls:
            raise ValueError(f"event type {cls.event_type!r} is already registered")
        self._classes[cls.event_type] = _ClassInfo(
            cls=cls,
            datetime_fields=_datetime_fields(cls),
            field_names=frozenset(f.name for f in dataclasses.fields(cls)),
        )

    def event_types(self) -> frozenset[str]:
        """Return the event types this codec can decode."""
        return frozenset(self._classes)

    def register_upcaster(self, event_type: str, from_version: int, upcaster: Upcaster) -> None:
        """Register a function lifting ``event_type`` payloads from ``from_version`` by one."""
        self._upcasters[(event_type, from_version)] = upcaster

    def current_version(self, event_type: str) -> int:
        """Return the schema version that ``event_type`` is written with now."""
        return self._info(event_type).cls.schema_version

    def encode(self, event: Event) -> bytes:
        """Serialise an event's payload (its fields) to JSON bytes."""
        return orjson.dumps(event)

    def upcast(self, event_type: str, version: int, payload: Payload) -> Payload:
        """Lift a payload from ``version`` to the current schema version."""
        current = self.current_version(event_type)
        while version < current:
            upcaster = self._upcasters.get((event_type, version))
            if upcaster is None:
                raise EventDecodeError(f"no upcaster for {event_type} v{version}")
            payload = upcaster(payload)
            version += 1
        if version > current:
            raise EventDecodeError(
                f"{event_type} v{version} is newer than this memoryd knows (v{current})"
            )
        return payload

    def decode(self, event_type: str, version: int, payload: bytes | str | Payload) -> Event:
        """Decode a stored payload into its current event class."""
        info = self._info(event_type)
        data: Payload = orjson.loads(payload) if isinstance(payload, bytes | str) else payload
        if version != info.cls.schema_version:
            data = self.upcast(event_type, version, data)
        for name in info.datetime_fields:
            value = data.get(name)
            if isinstance(value, str):
                data[name] = parse_datetime(value)
        try:
            return info.cls(**data)
        except TypeError as exc:
            # Checked only on failure: this is the hot path of every read and replay.
            unknown = set(data) - info.field_names
            if unknown:
                raise EventDecodeError(f"{event_type}: unknown fields {sorted(unknown)}") from exc
            raise EventDecodeError(f"{event_type}: {exc}") from exc

    def _info(self, event_type: str) -> _ClassInfo:
        try:
            return self._classes[event_type]
        except KeyError:
            raise UnknownEventType(event_type) from None


def _message_appended_v1_to_v2(payload: Payload) -> Payload:
    """MessageAppended v1 had ``author`` (user|bot) and ``text``, and no ``finalized``."""
    out = dict(payload)
    author = out.pop("author", "user")
    out["role"] = "assistant" if author == "bot" else author
    out["content"] = out.pop("text", "")
    out.setdefault("finalized", True)
    return out


def _register_core_upcasters(codec: EventCodec) -> None:
    codec.register_upcaster("MessageAppended", 1, _message_appended_v1_to_v2)


default_codec = EventCodec()
