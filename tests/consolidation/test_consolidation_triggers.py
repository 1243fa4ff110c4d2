"""The ``turns`` and ``cron`` triggers: pure decisions from the projected activity and the
last run, recorded in the run's inputs."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from daemon.api.keys import CONSOLIDATION, STATE
from daemon.config import ConfigError, ConsolidationConfig, config_from_mapping
from daemon.consolidation.triggers import due_trigger
from events.clock import to_micros
from tests.api_fixtures import api_client
from tests.consolidation.test_consolidation_knobs import ACTIVITY, MINUTE, _last

NOW = to_micros(datetime(2026, 5, 10, 3, 30, tzinfo=UTC))


def test_after_turns_counts_the_turns_since_the_last_run() -> None:
    config = ConsolidationConfig(after_turns=4, idle_after=timedelta(days=30))
    last = _last("completed", NOW - MINUTE, turns=10)
    busy = {**ACTIVITY, "last_position": 30, "last_at": NOW, "turns": 13}
    assert due_trigger(NOW, busy, last, config) is None  # 3 new turns
    due = due_trigger(NOW, {**busy, "turns": 14}, last, config)
    assert due is not None
    assert due[0] == "turns"
    assert (due[1]["turns"], due[1]["new_turns"], due[1]["after_turns"]) == (14, 4, 4)
    off = dataclasses.replace(config, after_turns=0)
    assert due_trigger(NOW, {**busy, "turns": 1000}, last, off) is None


def test_cron_fires_once_per_scheduled_time_and_replaces_idle_and_schedule() -> None:
    config = ConsolidationConfig(cron="0 3 * * *")
    fresh = {**ACTIVITY, "last_position": 30, "last_at": NOW - 3 * 3600 * 1_000_000}
    yesterday = _last("completed", NOW - 20 * 3600 * 1_000_000)
    due = due_trigger(NOW, fresh, yesterday, config)
    assert due is not None
    assert due[0] == "cron"
    assert due[1]["fired_at"] == to_micros(datetime(2026, 5, 10, 3, tzinfo=UTC))
    assert (due[1]["cron"], due[1]["cron_timezone"]) == ("0 3 * * *", "UTC")
    after_it = _last("completed", NOW - 10 * MINUTE)  # started 03:19, after 03:00
    assert due_trigger(NOW, fresh, after_it, config) is None  # idle no longer fires
    assert due_trigger(NOW, fresh, after_it, ConsolidationConfig()) is not None  # it would
    unchanged = {**fresh, "last_position": 20}
    assert due_trigger(NOW, unchanged, yesterday, config) is None  # nothing new: no run
    tokyo = dataclasses.replace(config, cron_timezone="Asia/Tokyo")  # 03:00 JST = 18:00 UTC
    due = due_trigger(NOW, fresh, yesterday, tokyo)
    assert due is not None
    assert due[1]["fired_at"] == to_micros(datetime(2026, 5, 9, 18, tzinfo=UTC))


async def test_tick_runs_after_turns_counted_by_the_activity_projection(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        service = api.client.app[CONSOLIDATION]
        service.config = ConsolidationConfig(after_turns=3, idle_after=timedelta(days=30))
        for role, text in (("user", "hi"), ("assistant", "hello"), ("user", "I moved")):
            status, _ = await api.call(
                "POST", "/v1/conversations/c1/messages", {"role": role, "content": text}
            )
            assert status in (200, 201)
        # A tick waits for the projections a bounded time; on a loaded machine the activity
        # count may trail the writes, and the next tick sees them.
        ticked: list[dict[str, Any]] = []
        for _ in range(50):
            ticked = await service.tick()
            if ticked:
                break
            await asyncio.sleep(0.1)
        [run] = ticked
        assert run["trigger"] == "turns"
        # A tick's run is no acknowledged write, so a read need not wait for it: say it was.
        await api.client.app[STATE].async_note_written(run["position"])
        _, runs = await api.call("GET", "/v1/consolidation/runs")
        assert runs["runs"][0]["inputs"]["turns"] == 3
        assert runs["runs"][0]["inputs"]["new_turns"] == 3
        await api.call("POST", "/v1/conversations/c1/messages", {"role": "user", "content": "x"})
        assert await service.tick() == []  # one turn since the last run


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("cron", "0 3 * *", "consolidation.cron"),
        ("cron", "0 25 * * *", "hour"),
        ("cron_timezone", "Nowhere/Land", "consolidation.cron_timezone"),
        ("after_turns", -1, "consolidation.after_turns"),
    ],
)
def test_config_check_rejects_bad_trigger_settings(key: str, value: object, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        config_from_mapping({"consolidation": {key: value}})


def test_trigger_settings_are_read() -> None:
    config = config_from_mapping(
        {"consolidation": {"cron": " 0  3 * * 1-5 ", "cron_timezone": "Europe/Paris"}}
    ).consolidation
    assert (config.cron, config.cron_timezone) == ("0 3 * * 1-5", "Europe/Paris")
    assert config_from_mapping({}).consolidation.cron is None
