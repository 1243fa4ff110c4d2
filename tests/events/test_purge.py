"""Erasure: after ``FactPurged`` the fact's text is nowhere in the log, its export or its files.

The backend-neutral part (reads and exports are redacted) is in the store contract; this module
checks the SQLite files byte by byte, which is where a backup would copy the text from.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from events.store.base import NewEvent
from events.store.contract import T0
from events.store.sqlite import EVENTS_FILE, SqliteEventStore
from events.types import (
    REDACTED_TEXT,
    FactPurged,
    FactValidated,
    FactWritten,
    MessageAppended,
)

SECRET = "the vault combination is 31-41-59-26"
SUBJECT = "vault-subject-zq"
NOTE = "validated-note-xk"


def file_bytes(data_dir: Path) -> dict[str, bytes]:
    """Return the bytes of every file of the event log (database, WAL, shared memory)."""
    return {p.name: p.read_bytes() for p in data_dir.iterdir() if p.name.startswith(EVENTS_FILE)}


def secrets_in(blob: bytes) -> list[str]:
    return [s for s in (SECRET, SUBJECT, NOTE) if s.encode() in blob]


async def test_purged_text_leaves_the_files(tmp_path: Path) -> None:
    store = SqliteEventStore.in_data_dir(tmp_path)
    await store.open()
    try:
        await store.append(
            "default",
            [
                NewEvent(FactWritten(fact_id="f1", text=SECRET, subject=SUBJECT, valid_from=T0)),
                NewEvent(FactWritten(fact_id="f2", text="unrelated fact", valid_from=T0)),
            ],
        )
        # Enough traffic that the secret's page is checkpointed into the main file and
        # later pages and WAL frames have been written after it.
        for batch in range(20):
            await store.append(
                "default",
                [
                    NewEvent(
                        MessageAppended(
                            conversation_id="c",
                            message_id=f"m{batch}-{n}",
                            role="user",
                            content="filler " * 40,
                            created_at=T0,
                        )
                    )
                    for n in range(50)
                ],
            )
        await store.append("default", [NewEvent(FactValidated(fact_id="f1", by="u", note=NOTE))])
        # Move the pages into the main file (as SQLite's auto-checkpoint would), so both the
        # database file and the WAL hold the secret before the purge.
        with sqlite3.connect(tmp_path / EVENTS_FILE) as conn:
            conn.execute("PRAGMA wal_checkpoint(FULL)")
        await store.append("default", [NewEvent(FactValidated(fact_id="f1", by="u", note=NOTE))])
        before = file_bytes(tmp_path)
        assert secrets_in(before[EVENTS_FILE]) == [SECRET, SUBJECT, NOTE]
        assert NOTE in secrets_in(before[EVENTS_FILE + "-wal"])

        await store.append("default", [NewEvent(FactPurged(fact_id="f1"))])

        events = [e async for e in store.read()]
        assert events[0].event == FactWritten(fact_id="f1", text=REDACTED_TEXT, valid_from=T0)
        assert isinstance(events[-2].event, FactValidated)
        assert events[-2].event.note is None
        export = b"\n".join([r.to_json() async for r in store.read_records()])
        assert secrets_in(export) == []
        assert b"unrelated fact" in export
        # While the store is still open (the daemon keeps running), the files are clean.
        leaks = {name: secrets_in(blob) for name, blob in file_bytes(tmp_path).items()}
        assert leaks == {name: [] for name in leaks}
    finally:
        await store.close()
    leaks = {name: secrets_in(blob) for name, blob in file_bytes(tmp_path).items()}
    assert leaks == {name: [] for name in leaks}
    # And the file is still a sound database holding the unrelated fact.
    with sqlite3.connect(tmp_path / EVENTS_FILE) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (1005,)
