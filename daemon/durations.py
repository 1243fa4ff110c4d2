"""Human-written durations (``"300ms"``, ``"5m"``, ``"1h30m"``, ``"7d"``) and sizes (``"1MiB"``).

Both parsers raise :class:`ValueError` with a message that says what is wrong, so the config
loader can report it next to the key that holds the value.

Durations: one or more ``<number><unit>`` parts, largest unit first, each unit at most once,
no sign and no spaces. Units: ``us``, ``ms``, ``s``, ``m``, ``h``, ``d``, ``w``. A part may
have a decimal fraction (``"1.5h"``); the result is rounded to whole microseconds. ``"0"``
alone means zero. A bare number with no unit is refused (seconds or milliseconds?).

Sizes: a non-negative number and an optional unit, case-insensitive: ``B``; binary ``KiB``,
``MiB``, ``GiB``, ``TiB`` (powers of 1024); decimal ``KB``, ``MB``, ``GB``, ``TB`` (powers of
1000). A bare integer means bytes. The result must be a whole number of bytes.
"""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal, InvalidOperation

_DURATION_UNITS_US: dict[str, int] = {
    "w": 7 * 86_400_000_000,
    "d": 86_400_000_000,
    "h": 3_600_000_000,
    "m": 60_000_000,
    "s": 1_000_000,
    "ms": 1_000,
    "us": 1,
}
# Order matters for the regex: "ms" and "us" before "m" and "s".
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|us|w|d|h|m|s)")

_SIZE_UNITS: dict[str, int] = {
    "": 1,
    "b": 1,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
}
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]*)")
_SIZE_FORMAT_ORDER = (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))


def parse_duration(text: object) -> timedelta:
    """Parse ``"300ms"``, ``"5m"``, ``"1h30m"``, ``"7d"`` into a timedelta."""
    if not isinstance(text, str):
        raise ValueError(f"a duration must be a string like '30s', not {type(text).__name__}")
    raw = text.strip()
    if raw == "0":
        return timedelta(0)
    if not raw:
        raise ValueError("empty duration; write it like '30s', '5m' or '1h30m'")
    if re.fullmatch(r"\d+(\.\d+)?", raw):
        raise ValueError(f"{text!r} has no unit; write it like '{raw}s' or '{raw}ms'")
    total_us = Decimal(0)
    pos = 0
    seen: list[str] = []
    while pos < len(raw):
        match = _DURATION_PART.match(raw, pos)
        if match is None:
            raise ValueError(
                f"{text!r} is not a duration; use parts like '300ms', '5m', '1h30m', '7d' "
                f"(units: {', '.join(reversed(_DURATION_UNITS_US))})"
            )
        number, unit = match.groups()
        if unit in seen:
            raise ValueError(f"{text!r} repeats the unit {unit!r}")
        if seen and _DURATION_UNITS_US[unit] > _DURATION_UNITS_US[seen[-1]]:
            raise ValueError(f"{text!r}: write the larger unit first ({unit!r} after {seen[-1]!r})")
        seen.append(unit)
        total_us += Decimal(number) * _DURATION_UNITS_US[unit]
        pos = match.end()
    if total_us > Decimal(timedelta.max // timedelta(microseconds=1)):
        raise ValueError(f"{text!r} is too long a duration")
    return timedelta(microseconds=int(total_us.to_integral_value()))


def format_duration(value: timedelta) -> str:
    """Write a duration in the shortest form :func:`parse_duration` reads back exactly."""
    total_us = value // timedelta(microseconds=1)
    if total_us < 0:
        raise ValueError("negative durations cannot be written")
    if total_us == 0:
        return "0s"
    parts: list[str] = []
    for unit, size in _DURATION_UNITS_US.items():
        if unit == "w":
            continue  # "14d" reads better than "2w"
        count, total_us = divmod(total_us, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)


def parse_size(value: object) -> int:
    """Parse ``"1MiB"``, ``"512KiB"``, ``"64kB"`` or a bare integer into bytes."""
    if isinstance(value, bool):
        raise ValueError("a size must be a string like '1MiB' or a number of bytes, not a boolean")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{value} is negative; a size must be >= 0")
        return value
    if not isinstance(value, str):
        raise ValueError(f"a size must be a string like '1MiB', not {type(value).__name__}")
    match = _SIZE.fullmatch(value.strip().lower())
    if match is None or match.group(2) not in _SIZE_UNITS:
        raise ValueError(
            f"{value!r} is not a size; write it like '1MiB', '512KiB', '10MB' or a number of bytes"
        )
    try:
        amount = Decimal(match.group(1)) * _SIZE_UNITS[match.group(2)]
    except InvalidOperation as exc:  # pragma: no cover - the regex admits only decimals
        raise ValueError(f"{value!r} is not a size") from exc
    if amount != amount.to_integral_value():
        raise ValueError(f"{value!r} is not a whole number of bytes")
    return int(amount)


def format_size(size: int) -> str:
    """Write a size in the largest binary unit that holds it exactly (``1048576`` -> ``1MiB``)."""
    if size < 0:
        raise ValueError("negative sizes cannot be written")
    for unit, factor in _SIZE_FORMAT_ORDER:
        if size and size % factor == 0:
            return f"{size // factor}{unit}"
    return f"{size}B"
