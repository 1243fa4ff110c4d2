"""Notes: a user's own lasting statement that no grammar rule reads is kept, said over."""

from __future__ import annotations

import pytest

from daemon.memory.writes import Draft, draft_claims
from plugins.extractors.claims import NOTE
from plugins.extractors.statements.notes import note_of
from plugins.extractors.statements.reading import extract_statements
from plugins.llm.types import TranscriptEntry


@pytest.mark.parametrize(
    ("said", "note"),
    [
        (
            "i do my lifting at a PureGym near work",
            "The user does their lifting at a PureGym near work.",
        ),
        (
            "I already cycle to the allotment on weekends",
            "The user already cycles to the allotment on weekends.",
        ),
        ("my kids go to St Anne's primary", "The user's kids go to St Anne's primary."),
        ("we keep bees at the bottom of the garden", "They keep bees at the bottom of the garden."),
        # The user as a later clause's subject; a greeting or a grumble before it.
        (
            "it is a long way but we keep chickens at the allotment",
            "It is a long way but they keep chickens at the allotment.",
        ),
        ("ugh i get home at 8 most days", "The user gets home at 8 most days."),
        # A reason, or "over" as a way of going, is no sarcasm and no ending.
        (
            "I only have Thursday evenings free cos of hurling training",
            "The user only has Thursday evenings free cos of hurling training.",
        ),
        (
            "I drive over from Galway every Sunday with a cool box",
            "The user drives over from Galway every Sunday with a cool box.",
        ),
    ],
)
def test_a_lasting_statement_is_said_over(said: str, note: str) -> None:
    assert note_of(said) == note


@pytest.mark.parametrize(
    "said",
    [
        "can you help me with this",  # not first person
        "I need help with my tax return",  # an intention
        "I'm thinking of moving to Spain",
        "I'm so tired of my commute",  # a feeling
        "I'm freezing, the heating's broken",
        "I have a cold and a headache",  # an ailment of the moment
        "I'm cooking lasagne tonight for the family",  # today
        "I love that idea for the party",  # a reaction
        "my boss keeps saying 'I'm the best'",  # someone's words
        "my protagonist is a pilot who lives in Oslo",  # fiction
        "I'm basically a vampire at this point lol",  # overstatement
        "thanks, my week is better now",  # addressed to the assistant
        "I am",  # too short
        "I don't own a television",  # a denial: a note is never replaced, so it would keep it
        "keto is officially over for me, I missed fruit",  # a change
        "Sure, I'm a millionaire, I'll just buy a yacht",  # sarcasm
        "in another life I'd be a chef in Tokyo",  # a daydream
        "5 minutes here, what do I do",  # a question without its mark
    ],
)
def test_what_is_no_lasting_statement_is_no_note(said: str) -> None:
    assert note_of(said) is None


def test_a_note_is_made_only_where_no_rule_read_the_sentence() -> None:
    entries = [
        TranscriptEntry("m1", "user", "I live in Leeds. I do my lifting at a PureGym near work"),
        TranscriptEntry("m2", "assistant", "I keep bees too."),
    ]
    found = [(s.claim.attribute, s.text) for s in extract_statements(entries)]
    assert found == [
        ("residence", "The user lives in Leeds."),
        (NOTE, "The user does their lifting at a PureGym near work."),
    ]


def test_a_note_makes_no_claims_so_it_replaces_nothing_by_rule() -> None:
    from datetime import UTC, datetime

    note = Draft(
        "f1", "The user is a nurse at heart.", datetime(2026, 1, 1, tzinfo=UTC), predicate=NOTE
    )
    said = Draft("f2", "The user is a nurse at heart.", datetime(2026, 1, 1, tzinfo=UTC))
    assert draft_claims(note) == ()
    assert draft_claims(said) != ()


@pytest.mark.parametrize(
    ("said", "note"),
    [
        # The tone at the end of a chat line is no part of the statement.
        (
            "we're all software testers at a company in leipzig lol",
            "They are all software testers at a company in leipzig.",
        ),
        # The head clause before "so": the rest is how the user feels about it.
        (
            "i coach swimming at the YMCA in Tulsa so i'm always starving lol",
            "The user coaches swimming at the YMCA in Tulsa.",
        ),
    ],
)
def test_a_statement_is_noted_without_its_tone_or_its_aside(said: str, note: str) -> None:
    texts = [s.text for s in extract_statements([TranscriptEntry("m1", "user", said)])]
    assert texts == [note]


def test_a_joke_is_still_no_note() -> None:
    said = "im basically a professional napper at this point lol"
    assert extract_statements([TranscriptEntry("m1", "user", said)]) == []
