"""``memoryd store copy|verify|digest``: logs move between backends with positions kept."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from daemon.cli import main
from daemon.cli.store_cmd import (
    CopyRefused,
    copy_log,
    log_digest,
    opened,
    record_digest_bytes,
    store_at,
)
from events.clock import ManualClock
from events.store.base import EventRecord, NewEvent
from events.store.contract import NS, T0, fact, new, records
from events.store.postgres import PostgresEventStore
from events.store.sqlite import SqliteEventStore
from events.types import FactPurged
from tests.pg_fixtures import PgScratch


async def fill(location: str, start: int = 1, count: int = 30) -> None:
    """Append a varied log: namespaces, keys, envelopes, batches, and a purge."""
    clock = ManualClock(T0 + timedelta(hours=start))
    store = store_at(location)
    assert isinstance(store, SqliteEventStore | PostgresEventStore)
    store.clock = clock
    await store.open()
    try:
        for n in range(start, start + count):
            clock.advance(timedelta(milliseconds=7))
            await store.append(
                NS if n % 3 else "other",
                [new(f"c{n % 4}", n, key=f"k{n}"), NewEvent(fact(f"f{n}", f"fact {n}"))],
            )
        await store.append(
            NS,
            [
                NewEvent(
                    FactPurged(fact_id=f"f{start + 1}"), causation_id="cause", correlation_id="corr"
                )
            ],
        )
    finally:
        await store.close()


@pytest.fixture(
    params=[
        "sqlite-sqlite",
        pytest.param("sqlite-postgres", marks=pytest.mark.postgres),
        pytest.param("postgres-sqlite", marks=pytest.mark.postgres),
    ]
)
def locations(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """A source and an empty target location for each pair of backends."""
    kinds = str(request.param).split("-")
    out = []
    for i, kind in enumerate(kinds):
        if kind == "sqlite":
            # Both spellings: a data dir and an sqlite URL naming the log file.
            out.append(
                str(tmp_path / "dir0") if i == 0 else f"sqlite+aiosqlite:///{tmp_path}/t.sqlite3"
            )
        else:
            scratch: PgScratch = request.getfixturevalue("pg_scratch")
            out.append(asyncio.run(scratch.fresh("copy")))
    return out[0], out[1]


def test_copy_keeps_positions_and_verifies(
    locations: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    source, target = locations
    asyncio.run(fill(source))
    assert main(["store", "copy", "--from", source, "--to", target, "--chunk", "7"]) == 0
    out = capsys.readouterr().out
    assert "copied 61 events" in out
    assert "verified" in out

    async def compare() -> None:
        async with opened(source, readonly=True) as a, opened(target, readonly=True) as b:
            assert await records(b) == await records(a)
            assert [e async for e in b.read()] == [e async for e in a.read()]
            assert await log_digest(a) == await log_digest(b)

    asyncio.run(compare())
    assert main(["store", "verify", "--from", source, "--to", target]) == 0
    assert main(["store", "digest", target]) == 0
    assert "61 events through position 61" in capsys.readouterr().out

    # More appends on the source: a second copy resumes after what the target holds.
    asyncio.run(fill(source, start=100, count=5))
    assert main(["store", "copy", "--from", source, "--to", target]) == 0
    assert "copied 11 events (resumed after 61)" in capsys.readouterr().out
    assert main(["store", "verify", "--from", source, "--to", target]) == 0


async def test_copy_refuses_a_target_that_is_not_a_prefix(tmp_path: Path) -> None:
    short, other, longer = (str(tmp_path / name) for name in ("short", "other", "longer"))
    await fill(short, count=5)
    await fill(other, start=50, count=2)
    await fill(longer, count=20)
    for target, reason in ((other, "differ"), (longer, "longer")):
        async with opened(short, readonly=True) as a, opened(target) as b:
            before = await log_digest(b)
            with pytest.raises(CopyRefused, match=reason):
                await copy_log(a, b)
            assert await log_digest(b) == before


def test_cli_copy_refusal_and_verify_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, target = str(tmp_path / "a"), str(tmp_path / "b")
    asyncio.run(fill(source, count=4))
    asyncio.run(fill(target, start=50, count=1))
    assert main(["store", "copy", "--from", source, "--to", target]) == 2
    assert "differ from the source's" in capsys.readouterr().err

    copy = str(tmp_path / "c")
    assert main(["store", "copy", "--from", source, "--to", copy]) == 0

    async def tamper() -> None:
        store = SqliteEventStore.in_data_dir(Path(copy))
        await store.open()
        try:
            async with store.write_engine.begin() as conn:
                await conn.execute(sa.text("UPDATE events SET recorded_at = recorded_at + 1"))
        finally:
            await store.close()

    asyncio.run(tamper())
    assert main(["store", "verify", "--from", source, "--to", copy]) == 1
    out = capsys.readouterr().out
    assert "logs differ" in out
    assert "damaged" in out  # the checksums find the change
    assert main(["store", "copy", "--from", "mysql://h/db", "--to", copy]) == 2
    assert main(["store", "copy", "--from", str(tmp_path / "missing"), "--to", copy]) == 2


def test_cli_copy_exits_1_when_the_target_does_not_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source, target = str(tmp_path / "a"), str(tmp_path / "b")
    asyncio.run(fill(source, count=3))
    original = SqliteEventStore.import_records

    async def lossy_import(self: SqliteEventStore, batch: Iterable[EventRecord]) -> int:
        # A backend that silently changes what it stores: the digest must catch it.
        changed = [
            replace(r, payload=r.payload.replace(b'"fact ', b'"FACT '), checksum=None)
            for r in batch
        ]
        return await original(self, changed)

    monkeypatch.setattr(SqliteEventStore, "import_records", lossy_import)
    assert main(["store", "copy", "--from", source, "--to", target]) == 1
    assert "digest mismatch" in capsys.readouterr().err


def test_digest_covers_every_field() -> None:
    record = EventRecord(
        position=1,
        event_id="e",
        namespace="n",
        stream_id="s",
        stream_version=1,
        event_type="T",
        schema_version=1,
        payload=b"{}",
        recorded_at=5,
    )
    variants = [
        replace(record, position=2),
        replace(record, event_id="f"),
        replace(record, namespace="m"),
        replace(record, stream_id="t"),
        replace(record, stream_version=2),
        replace(record, event_type="U"),
        replace(record, schema_version=2),
        replace(record, payload=b"[]"),
        replace(record, recorded_at=6),
        replace(record, causation_id="c"),
        replace(record, correlation_id="c"),
        replace(record, idempotency_key="k"),
        replace(record, request_hash="h"),
        # Field boundaries are unambiguous: moving a character between fields changes it.
        replace(record, namespace="ns", stream_id=""),
        replace(record, causation_id=""),
    ]
    digests = {record_digest_bytes(r) for r in [record, *variants]}
    assert len(digests) == len(variants) + 1
