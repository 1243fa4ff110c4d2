"""What a question asks about time and what a message says about it (the time cues of
iterative recall's first pass)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from daemon.recall.time_cues import REPORT_SLACK_DAYS, asks_when, named_window, says_when
from events.clock import from_micros


@pytest.mark.parametrize(
    "question",
    [
        "When did Nate win his third tourney?",
        "when is the dentist appointment",
        "So when was Joanna's movie shown?",
        "What year did Maya move to Porto?",
        "Which month is the wedding in?",
        "How long has Andrew had his dog?",
        "How many years did she live in Lisbon?",
        "How old is Ben?",
    ],
)
def test_a_question_that_asks_for_a_time(question: str) -> None:
    assert asks_when(question)


@pytest.mark.parametrize(
    "question",
    [
        "Where does the user live?",
        "What did Joanna watch on 1 May, 2022?",
        "Who is my manager?",
        "What happened after the party?",
        "Say when you are ready",
        "How many dogs does Andrew have?",
    ],
)
def test_a_question_that_does_not(question: str) -> None:
    assert not asks_when(question)


@pytest.mark.parametrize(
    "text",
    [
        "I just won another tournament last week!",
        "I'll come over tomorrow if that's fine.",
        "I've had them for 3 years now.",
        "We went camping two weekends ago.",
        "I adopted another dog the other day.",
        "Let's do it next month when the weather is nicer.",
        "The show opens on Friday.",
        "I started in March 2021.",
        "I moved here in the summer.",
    ],
)
def test_a_message_that_says_when(text: str) -> None:
    assert says_when(text)


@pytest.mark.parametrize(
    "text",
    [
        "Thanks so much, that sounds great!",
        "I love painting sunsets with my kids.",
        "My sister Maya lives in Porto.",
        "Safety first: the new puppy stays on a leash.",
    ],
)
def test_a_message_that_does_not(text: str) -> None:
    assert not says_when(text)


def _window(question: str) -> tuple[datetime, datetime] | None:
    span = named_window(question)
    return None if span is None else (from_micros(span[0]), from_micros(span[1]))


def _utc(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


def test_a_named_day_month_or_year_is_a_span_widened_after_its_end() -> None:
    slack = REPORT_SLACK_DAYS
    assert _window("What movie did Joanna watch on 1 May, 2022?") == (
        _utc(2022, 5, 1),
        _utc(2022, 5, 2 + slack),
    )
    assert _window("what happened on March 3rd, 2023") == (
        _utc(2023, 3, 3),
        _utc(2023, 3, 4 + slack),
    )
    assert _window("Where did Joanna travel to in July 2022?") == (
        _utc(2022, 7, 1),
        _utc(2022, 8, 1 + slack),
    )
    assert _window("What did she do in December 2023?") == (
        _utc(2023, 12, 1),
        _utc(2024, 1, 1 + slack),
    )
    assert _window("Which trips did Tim take in 2023?") == (
        _utc(2023, 1, 1),
        _utc(2024, 1, 1 + slack),
    )


def test_an_impossible_day_falls_back_to_its_month_and_no_date_is_no_span() -> None:
    assert _window("what did I do on 30 February 2023") == (
        _utc(2023, 2, 1),
        _utc(2023, 3, 1 + REPORT_SLACK_DAYS),
    )
    assert _window("May I ask where Joanna lives?") is None
    assert _window("What did Nate say about 2022 models of cars") is None
    assert _window("Where does the user live?") is None


@pytest.mark.parametrize(
    "question",
    [
        "How many pets did Andrew have, as of September 2023?",
        "What did Maria do the weekend before April 10, 2023?",
        "Where has she lived since 2019?",
        "What had Tim read by March 2023?",
    ],
)
def test_a_date_named_as_a_boundary_is_no_span(question: str) -> None:
    assert named_window(question) is None
