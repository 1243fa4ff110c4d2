"""The codec: every core event roundtrips, old versions are upcast on read, bad input is named."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import ClassVar

import orjson
import pytest

from events.codec import EventCodec, EventDecodeError, UnknownEventType, default_codec
from events.store.base import EventRecord, NewEvent
from events.store.sqlite import SqliteEventStore
from events.types import (
    CORE_EVENT_CLASSES,
    ConversationDeleted,
    ConversationForked,
    Event,
    FactForgotten,
    FactPurged,
    FactReconciled,
    FactSuperseded,
    FactValidated,
    FactWritten,
    MessageAppended,
    content_text,
)

T0 = datetime(2026, 1, 1, 12, 30, tzinfo=UTC)

# A MessageAppended exactly as schema version 1 wrote it: ``author`` (user|bot) and ``text``.
MESSAGE_V1 = (
    b'{"conversation_id":"c1","message_id":"m7","author":"bot","text":"Hi, how can I help?",'
    b'"created_at":"2025-06-01T09:15:00+00:00","name":null,"metadata":{"client":"cli"}}'
)

EXAMPLES: list[Event] = [
    MessageAppended(
        conversation_id="c1",
        message_id="m1",
        role="assistant",
        name="helper",
        content=[
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "x"}},
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": [{"type": "text", "text": "y"}],
            },
        ],
        created_at=T0,
        metadata={"tokens": 12, "nested": {"a": [1, 2]}},
        finalized=False,
    ),
    ConversationForked(
        fork_id="c2", parent_conversation_id="c1", through_message_id="m1", strategy="cloning"
    ),
    ConversationForked(fork_id="c3", parent_conversation_id="c1", through_message_id=None),
    ConversationDeleted(conversation_id="c1"),
    FactWritten(
        fact_id="f1",
        text="Bob prefers tea",
        valid_from=T0,
        valid_to=T0 + timedelta(days=3),
        subject="Bob",
        predicate="prefers",
        object="tea",
        tags=["drink", "bob"],
        owner="shared",
        provenance="extraction",
        status="quarantined",
        confidence=0.75,
        importance=0.9,
        source_message_ids=["m1"],
    ),
    FactReconciled(
        fact_id="f2",
        outcome="updated",
        at=T0,
        superseded=["f1"],
        reason="replaces 1 fact(s): one residence at a time",
        confidence=0.95,
        decided_by="rules/v1",
        claims=[{"subject": "user", "attribute": "residence", "value": "Seattle"}],
        candidates=[{"fact_id": "f1", "relation": "replaces", "rule": "r", "confidence": 0.95}],
    ),
    FactSuperseded(old_fact_id="f1", new_fact_id="f2", at=T0),
    FactValidated(fact_id="f2", by="user", note="confirmed", evidence={"recalls": 3}),
    FactForgotten(fact_id="f2", reason="asked to"),
    FactPurged(fact_id="f2"),
]


def test_examples_cover_every_core_event() -> None:
    assert {type(e) for e in EXAMPLES} == set(CORE_EVENT_CLASSES)


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda e: type(e).__name__)
def test_every_core_event_roundtrips(event: Event) -> None:
    payload = default_codec.encode(event)
    decoded = default_codec.decode(event.event_type, event.schema_version, payload)
    assert decoded == event
    assert type(decoded) is type(event)
    # Datetimes come back aware (UTC), not as strings.
    for value in vars_of(decoded).values():
        if isinstance(value, datetime):
            assert value.tzinfo is not None


def vars_of(event: Event) -> dict[str, object]:
    """Return an event's fields (slots dataclasses have no __dict__)."""
    return {name: getattr(event, name) for name in event.__dataclass_fields__}


def test_upcaster_lifts_a_v1_message() -> None:
    decoded = default_codec.decode("MessageAppended", 1, MESSAGE_V1)
    assert decoded == MessageAppended(
        conversation_id="c1",
        message_id="m7",
        role="assistant",
        content="Hi, how can I help?",
        created_at=datetime(2025, 6, 1, 9, 15, tzinfo=UTC),
        metadata={"client": "cli"},
        finalized=True,
    )
    user = default_codec.decode(
        "MessageAppended",
        1,
        {
            "conversation_id": "c",
            "message_id": "m",
            "author": "user",
            "text": "hello",
            "created_at": "2025-06-01T09:15:00Z",
        },
    )
    assert isinstance(user, MessageAppended)
    assert (user.role, user.content) == ("user", "hello")


async def test_v1_payload_stored_in_the_log_reads_back_as_v2(tmp_path: Path) -> None:
    store = SqliteEventStore.in_data_dir(tmp_path)
    await store.open()
    try:
        old = EventRecord(
            position=1,
            event_id="0b7c3b1e-5f6a-4a53-9f38-2d5c3f0e8a11",
            namespace="default",
            stream_id="conversation:c1",
            stream_version=1,
            event_type="MessageAppended",
            schema_version=1,
            payload=MESSAGE_V1,
            recorded_at=1_748_769_300_000_000,
        )
        await store.import_records([old])
        new = MessageAppended(
            conversation_id="c1", message_id="m8", role="user", content="thanks", created_at=T0
        )
        await store.append("default", [NewEvent(new)])
        first, second = [e async for e in store.read()]
        assert isinstance(first.event, MessageAppended)
        assert (first.event.role, first.event.content) == ("assistant", "Hi, how can I help?")
        assert first.event.finalized
        assert second.event == new
        # The log itself is never rewritten by an upcast: the stored bytes stay v1.
        raw = [r async for r in store.read_records()]
        assert (raw[0].schema_version, raw[0].payload) == (1, MESSAGE_V1)
        assert raw[1].schema_version == 2
    finally:
        await store.close()


def test_unknown_event_type_is_named() -> None:
    with pytest.raises(UnknownEventType, match="NoSuchEvent"):
        default_codec.decode("NoSuchEvent", 1, b"{}")


def test_newer_version_than_known_is_refused() -> None:
    payload = default_codec.encode(EXAMPLES[3])
    with pytest.raises(EventDecodeError, match="newer"):
        default_codec.decode("ConversationDeleted", 2, payload)


def test_missing_upcaster_is_named() -> None:
    codec = EventCodec()
    codec._upcasters.clear()
    with pytest.raises(EventDecodeError, match="no upcaster for MessageAppended v1"):
        codec.decode("MessageAppended", 1, MESSAGE_V1)


def test_payload_that_does_not_fit_is_refused() -> None:
    with pytest.raises(EventDecodeError, match="unknown fields"):
        default_codec.decode("FactPurged", 1, b'{"fact_id":"f","surprise":1}')
    with pytest.raises(EventDecodeError, match="FactPurged"):
        default_codec.decode("FactPurged", 1, b"{}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Imposter(Event):
    """A second class claiming an existing type name."""

    event_type: ClassVar[str] = "FactPurged"


def test_registering_a_clashing_type_is_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        EventCodec().register(Imposter)


def test_payload_is_plain_json() -> None:
    [superseded] = [e for e in EXAMPLES if isinstance(e, FactSuperseded)]
    payload = orjson.loads(default_codec.encode(superseded))
    assert payload == {"old_fact_id": "f1", "new_fact_id": "f2", "at": "2026-01-01T12:30:00+00:00"}


def test_content_text_flattens_blocks() -> None:
    message = EXAMPLES[0]
    assert isinstance(message, MessageAppended)
    assert content_text(message.content) == "Let me look.\n[tool_use search]\ny"
    assert content_text("plain") == "plain"


def test_importing_the_codec_alone_decodes_every_event_type() -> None:
    # A fresh interpreter: what the codec knows must not depend on what else was imported.
    script = textwrap.dedent(
        """
        import importlib, json, pkgutil
        from events.codec import EventDecodeError, UnknownEventType, default_codec
        known = sorted(default_codec.event_types())
        import events
        from events.types import Event
        for module in pkgutil.walk_packages(events.__path__, "events."):
            if not module.name.startswith("events.migrations"):
                importlib.import_module(module.name)
        def subclasses(cls):
            for sub in cls.__subclasses__():
                yield sub
                yield from subclasses(sub)
        defined = sorted({c.event_type for c in subclasses(Event) if c.event_type})
        refused = []
        for event_type in defined:
            try:
                default_codec.decode(event_type, default_codec.current_version(event_type), {})
            except UnknownEventType:
                refused.append(event_type)
            except EventDecodeError:
                pass  # known: the empty payload does not fit its fields
        print(json.dumps({"known": known, "defined": defined, "refused": refused}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    found = json.loads(done.stdout)
    assert found["refused"] == []
    assert set(found["defined"]) <= set(found["known"])
    assert len(found["defined"]) >= 30
