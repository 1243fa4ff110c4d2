"""What a question about time asks, and what a message says about time. No model.

A question that asks *when* ("When did Nate win his third tourney?") is answered by a turn
that says when ("I just won another regional tournament last week!"), and seldom by the turns
that share its other words ("My tournament got pushed back"). A question that names a time
("What movie did Joanna watch on 1 May, 2022?") is answered by what was said then, or soon
after ("I watched the trilogy last night!", said on 2 May).

- :func:`asks_when`: the question asks for a time or a duration;
- :func:`says_when`: a text carries a time expression (a day, a week, a month or a year,
  relative or named, or a duration);
- :func:`named_window`: the span of time a question names (a day, a month, or a year), in
  microseconds since the epoch, widened by :data:`REPORT_SLACK_DAYS` after its end, because
  people tell of a thing some days after it happened.

Pure functions of their arguments: :mod:`daemon.recall.iterative` decides what to do with them.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

from events.clock import to_micros

REPORT_SLACK_DAYS = 14
"""How long after a named time a message that tells of it may come."""

_ASKS_WHEN = re.compile(
    r"^\s*when\b|\bwhen (?:did|does|do|is|was|were|will|has|have|had)\b"
    r"|\b(?:what|which) (?:year|month|date|day|week|weekend|time|season)\b"
    r"|\bhow long\b|\bhow many (?:years|months|weeks|days|hours)\b"
    r"|\bhow (?:old|recently)\b",
    re.IGNORECASE,
)

_UNITS = (
    r"(?:days?|nights?|weeks?|weekends?|months?|years?|summers?|winters?|springs?|autumns?|falls?)"
)
_WEEKDAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
_MONTH_NAMES = (
    r"(?:january|february|march|april|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)"
)
_SAYS_WHEN = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|recently|lately|earlier|ago|soon|someday"
    r"|(?:last|this|next|past|coming|other|few|couple of|every|each|a|one|that) " + _UNITS + r""
    r"|the other day|the day before|the week before|these days|nowadays|anymore"
    r"|(?:last|this|next|on|every) " + _WEEKDAYS + r"|" + _WEEKDAYS + r""
    r"|" + _MONTH_NAMES + r"|(?:19|20)\d\d"
    r"|\d+ " + _UNITS + r"|(?:two|three|four|five|six|seven|eight|nine|ten|several) " + _UNITS + r""
    r"|(?:in|since|until|for|after|before) (?:the )?(?:morning|evening|afternoon|spring|summer"
    r"|fall|autumn|winter|weekend|holidays?)"
    r"|(?:at|by|around) \d{1,2}(?::\d\d)? ?(?:am|pm)?)\b",
    re.IGNORECASE,
)

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december)"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? {_MONTH},? ((?:19|20)\d\d)\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?,? ((?:19|20)\d\d)\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},? ((?:19|20)\d\d)\b", re.I)
_YEAR = re.compile(r"\b(?:in|during|of) ((?:19|20)\d\d)\b", re.I)
_BOUNDARY = re.compile(
    r"\b(?:as of|before|after|by|until|till|since|prior to)\s+(?:the\s+)?$", re.I
)
"""Words that make a date a boundary ("as of May 2023": everything up to it), not a span."""


def asks_when(question: str) -> bool:
    """Whether ``question`` asks for a time or a duration."""
    return _ASKS_WHEN.search(question) is not None


def says_when(text: str) -> bool:
    """Whether ``text`` carries a time expression."""
    return _SAYS_WHEN.search(text) is not None


def _span(start: datetime, end: datetime) -> tuple[int, int]:
    return to_micros(start), to_micros(end + timedelta(days=REPORT_SLACK_DAYS))


def _is_boundary(question: str, m: re.Match[str]) -> bool:
    return _BOUNDARY.search(question, 0, m.start()) is not None


def named_window(question: str) -> tuple[int, int] | None:
    """The span ``[start, end)`` of the day, month or year ``question`` names (the first it
    names, the most precise form first), widened by :data:`REPORT_SLACK_DAYS`; None when it
    names none, or names it as a boundary ("as of", "before", "since")."""
    for pattern, day_group, month_group, year_group in (
        (_DAY_MONTH_YEAR, 1, 2, 3),
        (_MONTH_DAY_YEAR, 2, 1, 3),
    ):
        m = pattern.search(question)
        if m is None or _is_boundary(question, m):
            continue
        month, year = _MONTHS[m.group(month_group).lower()], int(m.group(year_group))
        day = int(m.group(day_group))
        if 1 <= day <= calendar.monthrange(year, month)[1]:
            start = datetime(year, month, day, tzinfo=UTC)
            return _span(start, start + timedelta(days=1))
    m = _MONTH_YEAR.search(question)
    if m is not None and not _is_boundary(question, m):
        month, year = _MONTHS[m.group(1).lower()], int(m.group(2))
        start = datetime(year, month, 1, tzinfo=UTC)
        end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
        return _span(start, end)
    m = _YEAR.search(question)
    if m is not None:
        year = int(m.group(1))
        return _span(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
    return None
