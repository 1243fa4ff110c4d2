"""Readings of chat turns the way people type them: asides in brackets, pronouns after a place
or a month, a relative named once and spoken of unnamed later, the subject left out, pets and
children introduced by name, and set phrases for a change. Each reading comes with look-alikes
that must say nothing (or something else)."""

from __future__ import annotations

import pytest

from plugins.extractors.statements import extract_statements
from plugins.llm.types import TranscriptEntry


def _texts(*turns: str) -> list[str]:
    entries = [TranscriptEntry(f"m{i}", "user", text) for i, text in enumerate(turns)]
    return [s.text for s in extract_statements(entries)]


def test_an_aside_between_a_subject_and_its_verb_leaves_the_sentence_whole() -> None:
    facts = _texts(
        "My oldest friend Orla (we were in school together in Sligo) has just told me she's "
        "been diagnosed with MS. She's a large-animal vet."
    )
    assert "Orla works as a large-animal vet." in facts
    assert not any(f.startswith(("Sligo", "MS ")) for f in facts)


def test_an_aside_elsewhere_speaks_of_who_was_just_named() -> None:
    facts = _texts(
        "My sister Maya is flying in from Porto (she's a dentist there) and my brother Tom is "
        "a chef in Leeds so he's doing the food."
    )
    assert "Maya works as a dentist." in facts
    assert "Tom works as a chef." in facts
    assert "Tom works as a dentist." not in facts


@pytest.mark.parametrize(
    ("said", "fact", "never"),
    [
        (
            "I'm planning my daughter Aoife's party (mid-March, God help me) and she's coeliac.",
            "Aoife is coeliac.",
            "March is coeliac.",
        ),
        (
            "We went to school together in Sligo. She works as a vet now.",
            None,
            "Sligo works as a vet.",
        ),
    ],
)
def test_a_pronoun_never_means_a_month_a_place_or_letters(
    said: str, fact: str | None, never: str
) -> None:
    facts = _texts(said)
    assert never not in facts
    if fact is not None:
        assert fact in facts


def test_a_relative_named_once_is_who_the_unnamed_relative_is_later() -> None:
    facts = _texts(
        "I want to record my grandad Frank telling his stories, he's 91.",
        "Recorded four hours with Grandad. He turned 92 last week.",
    )
    assert "Frank is 92 years old." in facts


def test_two_people_of_one_relation_leave_the_unnamed_one_unnamed() -> None:
    facts = _texts(
        "my sister Maya lives in Leeds and my sister Jo in York.", "my sister moved to Hull."
    )
    assert "The user's sister lives in Hull." in facts


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("hate coriander btw.", "The user hates coriander."),
        ("study mechanical engineering at tu berlin, exam 14 feb.", "mechanical engineering"),
        ("have 2 cats, both rescues.", "The user has a cat."),
    ],
)
def test_a_statement_typed_without_its_i_is_read(said: str, fact: str) -> None:
    assert any(fact in f for f in _texts(said))


@pytest.mark.parametrize(
    "said",
    ["Have a great weekend!", "Love this idea.", "study the chart below.", "hate to ask but"],
)
def test_a_wish_a_reaction_or_a_request_without_an_i_says_nothing(said: str) -> None:
    assert _texts(said) == []


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        (
            "Meet Pepper, a ten-week-old cocker spaniel who has already eaten a flip-flop.",
            "The user has a cocker spaniel named Pepper.",
        ),
        (
            "Newest resident: Nell, a retired racing greyhound from a rescue in Wiltshire.",
            "The user has a greyhound named Nell.",
        ),
        ("Say hi to Biscuit, our new kitten!", "The user has a new kitten named Biscuit."),
        (
            "It's safe for Gerald — my tortoise, from my gran.",
            "The user has a tortoise named Gerald.",
        ),
    ],
)
def test_a_pet_introduced_by_name_is_the_users(said: str, fact: str) -> None:
    assert fact in _texts(said)


def test_someone_introduced_by_name_is_no_pet() -> None:
    assert _texts("Meet Sarah, a colleague of mine.") == []


def test_a_child_named_after_their_age_is_the_users_child() -> None:
    facts = _texts("our 3yo son Max is obsessed with trains.")
    assert "Max is the user's son." in facts
    assert "Max is 3 years old." in facts
    assert not any("Honda" in f for f in _texts("my 40-year-old Honda is dying"))


@pytest.mark.parametrize(
    ("said", "facts"),
    [
        (
            "I'm a radiographer at the Queen Elizabeth.",
            ["The user works as a radiographer.", "The user works at Queen Elizabeth."],
        ),
        (
            "I'm a nurse at the RVI.",
            ["The user works as a nurse.", "The user works at RVI."],
        ),
    ],
)
def test_a_job_at_a_named_place_is_the_job_and_the_employer(said: str, facts: list[str]) -> None:
    assert _texts(said) == facts


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("gf bea bday in may.", "Bea's birthday is may."),
        (
            "need help plan surprise for my girlfriend chioma, she is a nurse.",
            "Chioma works as a nurse.",
        ),
        (
            "Jess and I have both gone vegetarian so can you swap the meat?",
            "The user is vegetarian.",
        ),
        ("Priya and I tied the knot in Lisbon last month.", "The user is married to Priya."),
        ("Liam and I called it a day back in March.", "The user is no longer with Liam."),
        ("Ninety days off the fags today.", "The user no longer smokes."),
        ("Three weeks into life in Aberdeen and no sun yet.", "The user lives in Aberdeen."),
        ("Just wrapped up my first fortnight at Ocado.", "The user works at Ocado."),
        ("We picked up the keys to a little place up in Katoomba.", "The user lives in Katoomba."),
        (
            "so the thing is we broke up in may.",
            "The user broke up with their partner and is single.",
        ),
        ("i'm network engineer at mtn, i stay for yaba.", "The user lives in yaba."),
        ("i dey lagos so i cant cook for her everyday", "The user lives in Lagos."),
        ("i am in munich, engineer at bmw.", "The user works as an engineer."),
        (
            "first week at flutterwave as senior engineer was mad busy.",
            "The user works as a senior engineer.",
        ),
    ],
)
def test_set_phrases_and_chat_shorthand_are_read(said: str, fact: str) -> None:
    assert fact in _texts(said)


@pytest.mark.parametrize(
    "said",
    [
        "I called it a day at 5pm.",
        "her bday is next week",
        "the thing is my boss hates me",
        "I miss my mum and dad",
        "I'll stay for a week",
        "i dey come",
    ],
)
def test_look_alikes_of_set_phrases_say_no_such_thing(said: str) -> None:
    facts = _texts(said)
    assert not any(f.startswith(("The user broke up", "Her", "The user's mum is")) for f in facts)


def test_a_list_or_a_wait_is_no_occupation() -> None:
    assert _texts("need checklist for setting up kitchen from zero") == []
    assert not any("works" in f for f in _texts("I'm in Leeds, waiting for a bus."))


@pytest.mark.parametrize(
    ("said", "facts"),
    [
        (
            "my sister is 30 and vegan.",
            ["The user's sister is 30 years old.", "The user's sister is vegan."],
        ),
        (
            "my sister is a nurse and vegan.",
            ["The user's sister works as a nurse.", "The user's sister is vegan."],
        ),
        ("I'm 34 and asthmatic.", ["The user is 34 years old.", "The user is asthmatic."]),
    ],
)
def test_a_state_after_an_age_or_a_job_is_the_same_persons(said: str, facts: list[str]) -> None:
    assert _texts(said) == facts


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Got word this morning that I've made associate!", "The user works as an associate."),
        ("They've given me the ward sister post on cardiac.", "The user works as a ward sister."),
        ("I got the head chef job!", "The user works as a head chef."),
        ("Been seeing a lovely fella called Ross for a few months.", "The user's partner is Ross."),
        (
            "And I got the job at the county library, starting Monday.",
            "The user works at the county library.",
        ),
        ("working graveyard as a security guard at a warehouse in Reno", "The user lives in Reno."),
        (
            "I'm a customer service agent at the Vodafone call centre in Cork.",
            "The user works as a customer service agent.",
        ),
        ("been living in Leeds since May", "The user lives in Leeds."),
    ],
)
def test_news_of_a_post_or_a_partner_told_in_passing_is_read(said: str, fact: str) -> None:
    assert fact in _texts(said)


@pytest.mark.parametrize(
    "said",
    [
        "they offered me the manager role but I said no",
        "Been thinking about moving to Leeds",
        "I got the job interview at Google",
    ],
)
def test_an_offer_or_a_thought_is_no_change(said: str) -> None:
    assert not any(f.startswith(("The user works", "The user lives")) for f in _texts(said))


def test_a_tabletop_game_set_up_is_a_play_and_by_the_way_closes_nothing() -> None:
    facts = _texts(
        "Can we do a little D&D one-shot? I'll be the player. I'm Thorin, a dwarven blacksmith.",
        "Out of character for a sec - I'm a Year 3 teacher in Bristol. I'm Priya by the way.",
    )
    assert not any("blacksmith" in f for f in facts)
    assert "The user's name is Priya." in facts
    assert "The user plays D&D." in _texts("I play D&D every Friday with my mates.")


def test_a_commute_that_was_and_a_list_with_an_aside() -> None:
    facts = _texts("Also I'm in Leamington these days (the commute from Brum was grim).")
    assert "The user lives in Leamington." in facts
    assert "The user lives in Brum." not in facts
    assert "The user lives in Leith." in _texts("my commute from Leith is brutal")
    listed = _texts(
        "I'm 41, run about 25k a week, asthmatic (well controlled, Ventolin always) and I'm "
        "allergic to penicillin, if that matters."
    )
    assert {"The user is asthmatic.", "The user is allergic to penicillin."} <= set(listed)
    assert "The user works at FBD Insurance." in _texts(
        "Day job's in the claims team at FBD Insurance."
    )


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("arsenal fan.", "The user likes arsenal."),
        ("huge Wolves fan!", "The user likes Wolves."),
        ("im teacher in marikina. fiance carlo. wedding soon", "The user is engaged to Carlo."),
        ("I live in Recife kkkk", "The user lives in Recife."),
        ("type 2 diabetic, on metformin.", "The user is type 2 diabetic."),
        ("so me and sam are official now, his bday is next week", "The user's partner is Sam."),
    ],
)
def test_texting_shorthand_is_read(said: str, fact: str) -> None:
    assert fact in _texts(said)


@pytest.mark.parametrize(
    "said",
    [
        "big fan.",
        "ceiling fan",
        "i'm the queen of salvador kkkk",
        "Dad tired. Mum happy.",
        "diabetic friendly recipes pls",
    ],
)
def test_a_bare_word_a_thing_or_a_laughing_boast_says_nothing(said: str) -> None:
    assert _texts(said) == []


def test_a_bare_father_or_mother_opening_a_sentence_is_the_users() -> None:
    assert "The user's father lives in Cromer." in _texts(
        "Father has been transferred to a nursing home in Cromer."
    )
    assert _texts("Father O'Brien said mass.") == []
