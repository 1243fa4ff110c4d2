"""Durations and sizes as people write them in memoryd.toml."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from daemon.durations import format_duration, format_size, parse_duration, parse_size


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("300ms", timedelta(milliseconds=300)),
        ("5m", timedelta(minutes=5)),
        ("8h", timedelta(hours=8)),
        ("7d", timedelta(days=7)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("2w", timedelta(days=14)),
        ("1.5h", timedelta(minutes=90)),
        ("1m30s250ms", timedelta(minutes=1, seconds=30, milliseconds=250)),
        ("250us", timedelta(microseconds=250)),
        ("0", timedelta(0)),
        ("0s", timedelta(0)),
        (" 60s ", timedelta(seconds=60)),
    ],
)
def test_parse_duration(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty duration"),
        ("30", "has no unit"),
        ("5x", "is not a duration"),
        ("-5m", "is not a duration"),
        ("5 m", "is not a duration"),
        ("30m1h", "larger unit first"),
        ("5m5m", "repeats the unit"),
        ("h", "is not a duration"),
        ("99999999999d", "too long"),
    ],
)
def test_parse_duration_refuses(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_duration(text)


@pytest.mark.parametrize("value", [30, 1.5, True, None])
def test_parse_duration_refuses_non_strings(value: object) -> None:
    with pytest.raises(ValueError, match="must be a string"):
        parse_duration(value)


@given(st.integers(min_value=0, max_value=10**14))
def test_duration_round_trip(micros: int) -> None:
    value = timedelta(microseconds=micros)
    assert parse_duration(format_duration(value)) == value


def test_format_duration_examples() -> None:
    assert format_duration(timedelta(hours=1, minutes=30)) == "1h30m"
    assert format_duration(timedelta(days=7)) == "7d"
    assert format_duration(timedelta(milliseconds=300)) == "300ms"
    assert format_duration(timedelta(0)) == "0s"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1MiB", 1024**2),
        ("512KiB", 512 * 1024),
        ("2mib", 2 * 1024**2),
        ("1.5KiB", 1536),
        ("10MB", 10_000_000),
        ("64kB", 64_000),
        ("1GiB", 1024**3),
        ("100", 100),
        ("100B", 100),
        (4096, 4096),
        (0, 0),
    ],
)
def test_parse_size(value: str | int, expected: int) -> None:
    assert parse_size(value) == expected


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("1XB", "is not a size"),
        ("MiB", "is not a size"),
        ("-1MiB", "is not a size"),
        ("1.3B", "whole number of bytes"),
        (-5, "negative"),
        (True, "not a boolean"),
        (1.5, "not float"),
    ],
)
def test_parse_size_refuses(value: object, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_size(value)


@given(st.integers(min_value=0, max_value=2**50))
def test_size_round_trip(size: int) -> None:
    assert parse_size(format_size(size)) == size


def test_format_size_examples() -> None:
    assert format_size(1024**2) == "1MiB"
    assert format_size(1536) == "1536B"
    assert format_size(3 * 1024) == "3KiB"
