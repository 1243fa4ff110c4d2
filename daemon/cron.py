"""Five-field cron expressions (minute hour day-of-month month day-of-week): parsing and the
latest time one matched.

A field is ``*``, a number, a range ``a-b``, any of these with a step (``*/15``, ``1-20/5``),
or a comma list of them. Day of week runs 0-7 (0 and 7 are Sunday). As in classic cron, when
both day fields are restricted a day matches if *either* does (``0 3 1 * 1`` is the 1st of
the month and every Monday). Names (``mon``, ``jan``) and ``@daily``-style shorthands are not
supported: say the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_FIELDS = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 7),
)
LOOKBACK_DAYS = 8 * 366
"""How far back :meth:`CronSchedule.latest` looks (Feb 29 on a Monday recurs within it)."""


@dataclass(frozen=True, slots=True)
class CronSchedule:
    """The sets of minutes, hours, days, months and weekdays (0 = Sunday) a schedule fires at."""

    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    days_restricted: bool
    weekdays_restricted: bool

    def matches_day(self, day: datetime) -> bool:
        """Whether the schedule fires on ``day`` (its date only)."""
        if day.month not in self.months:
            return False
        in_month = day.day in self.days
        in_week = (day.isoweekday() % 7) in self.weekdays
        if self.days_restricted and self.weekdays_restricted:
            return in_month or in_week
        return in_month and in_week

    def latest(self, at: datetime) -> datetime | None:
        """Return the latest minute at or before ``at`` (in ``at``'s time zone) the schedule
        fires at; None when it fired at none within :data:`LOOKBACK_DAYS`."""
        bound = at.replace(second=0, microsecond=0)
        day = bound
        for _ in range(LOOKBACK_DAYS):
            if self.matches_day(day):
                found = self._latest_in_day(day, bound)
                if found is not None:
                    return found
            # local midnight of the day before (naive arithmetic: one wall-clock day)
            day = (day.replace(hour=0, minute=0) - timedelta(days=1)).replace(hour=23, minute=59)
        return None

    def _latest_in_day(self, day: datetime, bound: datetime) -> datetime | None:
        for hour in sorted(self.hours, reverse=True):
            for minute in sorted(self.minutes, reverse=True):
                candidate = day.replace(hour=hour, minute=minute, second=0, microsecond=0)
                if candidate <= bound:
                    return candidate
        return None


def _parse_part(part: str, low: int, high: int, name: str) -> set[int]:
    body, _, step_text = part.partition("/")
    step = 1
    if step_text:
        if not step_text.isdigit() or int(step_text) < 1:
            raise ValueError(f"{name}: step {step_text!r} is not a positive number")
        step = int(step_text)
    if body == "*":
        start, end = low, high
    elif "-" in body:
        first, _, last = body.partition("-")
        if not (first.isdigit() and last.isdigit()):
            raise ValueError(f"{name}: {body!r} is not a range of numbers")
        start, end = int(first), int(last)
        if start > end:
            raise ValueError(f"{name}: range {body!r} runs backwards")
    elif body.isdigit():
        start = int(body)
        end = high if step_text else start
    else:
        raise ValueError(f"{name}: {body!r} is not a number, a range or *")
    if start < low or end > high:
        raise ValueError(f"{name}: {part!r} is outside {low}-{high}")
    return set(range(start, end + 1, step))


def parse_cron(expression: str) -> CronSchedule:
    """Parse a five-field expression; ValueError names the field that is wrong."""
    fields = expression.split()
    if len(fields) != len(_FIELDS):
        raise ValueError(
            f"{expression!r} has {len(fields)} fields; a cron expression has 5 "
            "(minute hour day-of-month month day-of-week)"
        )
    sets: list[frozenset[int]] = []
    for text, (name, low, high) in zip(fields, _FIELDS, strict=True):
        values: set[int] = set()
        for part in text.split(","):
            values |= _parse_part(part, low, high, name)
        sets.append(frozenset(values))
    minutes, hours, days, months, weekdays = sets
    return CronSchedule(
        minutes=minutes,
        hours=hours,
        days=days,
        months=months,
        weekdays=frozenset(d % 7 for d in weekdays),
        days_restricted=fields[2] != "*",
        weekdays_restricted=fields[4] != "*",
    )


def time_zone(name: str) -> ZoneInfo:
    """Return the IANA time zone ``name``; ValueError when it is not one."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"{name!r} is not an IANA time zone (UTC, Europe/Paris)") from exc


def latest_fire(expression: str, zone: str, at: datetime) -> datetime:
    """Return the latest time at or before ``at`` (aware) that ``expression`` fired at, read
    on the clocks of ``zone``; ``datetime.min`` (UTC) when none is found."""
    local = at.astimezone(time_zone(zone))
    found = parse_cron(expression).latest(local.replace(tzinfo=None))
    if found is None:
        return datetime.min.replace(tzinfo=ZoneInfo("UTC"))
    # fold=0: an ambiguous wall-clock time (the hour a DST change repeats) is its first pass
    return found.replace(tzinfo=time_zone(zone))
