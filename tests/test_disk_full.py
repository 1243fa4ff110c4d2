"""A full disk: writes refused with a clear 507 (early, below the reserve), reads served, the
projections waiting and retrying instead of dying, no user text in the failure logs.

``bench/disk_full.py`` runs the same on a real, small filesystem (figures in its docstring)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from daemon import projector
from events.store.base import StorageFull
from events.store.sql import classify_database_error
from events.store.sqlite import sqlite_engine
from tests.api_fixtures import api_client, appends_failing

MSG = "/v1/conversations/c1/messages"


async def test_writes_are_refused_below_the_reserve_and_reads_go_on(tmp_path: Path) -> None:
    async with api_client(tmp_path, reserved_space=2**60) as api:
        status, body = await api.call("POST", MSG, {"role": "user", "content": "x"})
        assert status == 507, body
        assert body["error"]["code"] == "insufficient_storage"
        assert "storage.reserved_space" in body["error"]["message"]
        status, health = await api.call("GET", "/v1/health")
        assert (status, health["status"]) == (200, "degraded")
        assert "reserved_space" in health["reason"]
        assert health["last_position"] == 0
        status, _ = await api.call("GET", "/v1/facts")
        assert status == 200


async def test_a_full_disk_during_an_append_is_a_507(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        with appends_failing(api, StorageFull("the disk holding the event log is full")):
            status, body = await api.call("POST", MSG, {"role": "user", "content": "x"})
            assert status == 507
            assert body["error"]["message"] == "the disk holding the event log is full"
        status, _ = await api.call("POST", MSG, {"role": "user", "content": "x"})
        assert status == 201
        _, health = await api.call("GET", "/v1/health")
        assert health["status"] == "ok"


def test_sqlite_full_is_classified() -> None:
    error = sqlite3.OperationalError("database or disk is full")
    error.sqlite_errorcode = 13
    assert isinstance(classify_database_error(error), StorageFull)
    assert isinstance(classify_database_error(OSError(28, "No space left on device")), StorageFull)


async def test_the_projections_wait_and_retry_a_full_disk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(projector, "RETRY_FIRST_DELAY", 0.001)
    attempts = 0

    async def fold() -> int:
        nonlocal attempts
        attempts += 1
        if attempts < 3:
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorcode = 13
            raise sa.exc.OperationalError("INSERT ...", {}, error)
        return 42

    assert await projector._async_fold_retrying(fold) == 42
    assert attempts == 3

    async def broken() -> int:
        raise ValueError("a bug is not retried")

    with pytest.raises(ValueError, match="not retried"):
        await projector._async_fold_retrying(broken)


async def test_database_errors_do_not_carry_the_users_text(tmp_path: Path) -> None:
    engine = sqlite_engine(tmp_path / "x.sqlite3", write=True)
    try:
        async with engine.begin() as conn:
            await conn.exec_driver_sql("CREATE TABLE t (x TEXT NOT NULL UNIQUE)")
            await conn.execute(sa.text("INSERT INTO t VALUES (:x)"), {"x": "my secret diary"})
        with pytest.raises(sa.exc.IntegrityError) as caught:
            async with engine.begin() as conn:
                await conn.execute(sa.text("INSERT INTO t VALUES (:x)"), {"x": "my secret diary"})
        assert "my secret diary" not in str(caught.value)
    finally:
        await engine.dispose()
