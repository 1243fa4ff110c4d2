"""The five-field cron matcher behind the ``cron`` trigger."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from daemon.cron import latest_fire, parse_cron


def _utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, s: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, s, tzinfo=UTC)


def test_fields_accept_star_numbers_lists_ranges_and_steps() -> None:
    schedule = parse_cron("*/15 9-17/4 1,15 * *")
    assert schedule.minutes == {0, 15, 30, 45}
    assert schedule.hours == {9, 13, 17}
    assert schedule.days == {1, 15}
    assert schedule.months == set(range(1, 13))
    assert parse_cron("0 0 * * 7").weekdays == {0}  # 7 is Sunday, as 0 is
    assert parse_cron("5/20 * * * *").minutes == {5, 25, 45}


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("0 3 * *", "5"),
        ("60 3 * * *", "minute"),
        ("0 24 * * *", "hour"),
        ("0 3 0 * *", "day of month"),
        ("0 3 * 13 *", "month"),
        ("0 3 * * 8", "day of week"),
        ("0 3 * * mon", "day of week"),
        ("*/0 * * * *", "step"),
        ("0 5-2 * * *", "backwards"),
    ],
)
def test_a_bad_expression_names_what_is_wrong(expression: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_cron(expression)


def test_latest_fire_is_the_last_matching_minute_at_or_before_now() -> None:
    assert latest_fire("0 3 * * *", "UTC", _utc(2026, 5, 10, 3, 0, 30)) == _utc(2026, 5, 10, 3)
    assert latest_fire("0 3 * * *", "UTC", _utc(2026, 5, 10, 2, 59)) == _utc(2026, 5, 9, 3)
    assert latest_fire("30 22 * * *", "UTC", _utc(2026, 1, 1, 0, 5)) == _utc(2025, 12, 31, 22, 30)
    # 2026-05-10 is a Sunday: the last Monday 08:00 is the 4th
    assert latest_fire("0 8 * * 1", "UTC", _utc(2026, 5, 10, 12)) == _utc(2026, 5, 4, 8)
    # both day fields restricted: either matches (the 1st, or a Friday)
    assert latest_fire("0 0 1 * 5", "UTC", _utc(2026, 5, 10, 12)) == _utc(2026, 5, 8)
    assert latest_fire("0 0 29 2 *", "UTC", _utc(2026, 5, 10)) == _utc(2024, 2, 29)


def test_latest_fire_reads_the_time_zones_clocks() -> None:
    # 03:00 in Paris (summer, UTC+2) is 01:00 UTC
    fired = latest_fire("0 3 * * *", "Europe/Paris", _utc(2026, 7, 1, 1, 30))
    assert fired == _utc(2026, 7, 1, 1)
    with pytest.raises(ValueError, match="time zone"):
        latest_fire("0 3 * * *", "Mars/Olympus", _utc(2026, 7, 1))
