"""The minimum-rebuild benchmark writes the rows it claims to, so its figures bound a rebuild."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bench.experiments.rebuild_minimum import PARTS, MinimumFold, measure
from bench.rebuild import generate
from daemon.backend import Backend


def _payload(conversation: str, message: str, text: str) -> dict[str, object]:
    return {
        "conversation_id": conversation,
        "message_id": message,
        "role": "user",
        "name": None,
        "content": text,
        "created_at": "2026-01-01T00:00:01+00:00",
        "metadata": {},
        "finalized": True,
    }


def test_fold_keys_conversations_and_carries_the_turns_before() -> None:
    fold = MinimumFold(PARTS, near=True)
    first = fold.rows(
        [
            (1, "default", "MessageAppended", _payload("a", "m1", "one")),
            (2, "default", "FactWritten", {"fact_id": "f"}),
            (3, "default", "MessageAppended", _payload("b", "m2", "two")),
        ]
    )
    second = fold.rows(
        [
            (4, "default", "MessageAppended", _payload("a", "m3", "three")),
            (5, "default", "MessageAppended", _payload("a", "m4", "four")),
            (6, "default", "MessageAppended", _payload("a", "m5", "five")),
        ]
    )
    assert first["conversations"] == [("default", "a", False, 1), ("default", "b", False, 3)]
    assert second["conversations"] == []
    assert [m[:3] for m in second["messages"]] == [(1, "m3", 4), (1, "m4", 5), (1, "m5", 6)]
    assert [(r[0], r[1], r[2]) for r in second["fts"]] == [
        (4, "user: three", "one"),
        (5, "user: four", "one three"),
        (6, "user: five", "three four"),
    ]
    only_index = MinimumFold(["index"], near=False).rows(
        [(1, "default", "MessageAppended", _payload("a", "m1", "one"))]
    )
    assert set(only_index) == {"fts"}
    assert only_index["fts"][0][2] == ""


async def test_measure_writes_every_message_and_its_index_row(tmp_path: Path) -> None:
    await generate(Backend(tmp_path), 120, 7)
    into = tmp_path / "kept.sqlite3"
    result = measure(tmp_path, 50, PARTS, near=True, defer=True, into=into)
    assert result["events"] == 120
    with sqlite3.connect(into) as conn:
        assert conn.execute("SELECT count(*) FROM messages").fetchone() == (120,)
        assert conn.execute("SELECT count(*) FROM conversations").fetchone() == (7,)
        hits = conn.execute("SELECT rowid FROM fts WHERE fts MATCH '\"number 42\"'").fetchall()
        assert (42,) in hits
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert {"minimum_messages_key", "ix_messages_order"} <= names
