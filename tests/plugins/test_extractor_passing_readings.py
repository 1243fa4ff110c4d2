"""Facts told in passing, inside a request or a story: a pronoun after a place of two words, a
job taken, a clinician's finding, a relative's place, the user's own driveway, a change of
major, a new passion. Each reading comes with look-alikes that must say nothing (or something
else)."""

from __future__ import annotations

import pytest

from plugins.extractors.statements import extract_statements
from plugins.llm.types import TranscriptEntry


def _texts(*turns: str) -> list[str]:
    entries = [TranscriptEntry(f"m{i}", "user", text) for i, text in enumerate(turns)]
    return [s.text for s in extract_statements(entries)]


@pytest.mark.parametrize(
    ("said", "never"),
    [
        ("We live in Santa Fe so she owns no rain boots.", "Fe "),
        ("Gran moved into a care home at Oak Lodge. She turned 90 on Sunday.", "Lodge "),
        ("I teach skiing at Mount Hutt so I know the cafe. His wife Ana runs it.", "Hutt"),
    ],
)
def test_a_pronoun_never_means_the_last_word_of_a_place(said: str, never: str) -> None:
    assert not any(f.startswith(never) or f"{never.strip()}'s" in f for f in _texts(said))


def test_a_name_of_two_words_is_still_a_person() -> None:
    facts = _texts("My cousin Rosa Diaz phoned. She is a midwife.")
    assert "Rosa Diaz works as a midwife." in facts


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("left the bakery in june, took a full-time job with Greggs", "The user works at Greggs."),
        ("Took a job at Arup after the exams.", "The user works at Arup."),
        ("Priya landed a research job with Novartis, so she's moving.", "Priya works at Novartis."),
    ],
)
def test_a_job_taken_names_the_new_employer(said: str, fact: str) -> None:
    assert fact in _texts(said)


@pytest.mark.parametrize(
    ("said", "never"),
    [
        ("My brother got a new job at Tesco.", "The user works at Tesco."),
        ("she took a job with Ryanair last spring", "The user works at Ryanair."),
        ("I applied for a job at Siemens.", "The user works at Siemens."),
    ],
)
def test_someone_elses_job_or_an_application_is_not_the_users(said: str, never: str) -> None:
    assert never not in _texts(said)


def test_a_job_named_in_the_post_is_read_by_the_job_rule() -> None:
    facts = _texts("I got a permanent nurse position at the Mater Hospital!")
    assert "The user works as a nurse." in facts


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("physio says I have a torn meniscus, so no running.", "The user has torn meniscus."),
        ("My GP reckons I'm prediabetic.", "The user is prediabetic."),
    ],
)
def test_what_a_clinician_found_is_the_users_health(said: str, fact: str) -> None:
    assert fact in _texts(said)


def test_what_a_clinician_advises_or_a_friend_says_is_no_finding() -> None:
    assert _texts("my doctor says I should sleep more") == []
    assert _texts("My mate says I have terrible taste in films.") == []


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Need snacks for the drive to my brother Kofi's flat in Leeds.", "Kofi lives in Leeds."),
        ("The van is parked in my driveway in Tulsa and won't start.", "The user lives in Tulsa."),
        ("I'm a single dad of twins Ava and Zoe, both 7.", "Ava is the user's child."),
    ],
)
def test_homes_and_children_named_on_the_way_are_read(said: str, fact: str) -> None:
    assert fact in _texts(said)


@pytest.mark.parametrize(
    ("said", "never"),
    [
        ("I've been living on instant noodles and coffee.", "The user lives in"),
        ("We decided against Bristol, staying put.", "The user left Bristol."),
    ],
)
def test_what_one_lives_on_or_decided_against_is_no_home_left(said: str, never: str) -> None:
    assert not any(f.startswith(never) for f in _texts(said))


def test_a_plan_decided_against_is_said_as_such() -> None:
    assert "The user decided against Bristol." in _texts("We decided against Bristol in the end.")


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("my daughter Lena switched her major to geology", "Lena studies geology."),
        ("I switched my major to nursing.", "The user studies nursing."),
        ("Tomas got properly hooked on chess this winter.", "Tomas likes chess."),
        ("ironically I'm a plumber and my own taps leak", "The user works as a plumber."),
        ("My friend Ines is lovely. Also she went vegetarian.", "Ines is vegetarian."),
        ("I bought myself a kayak last week.", "The user has a kayak."),
    ],
)
def test_changes_and_passions_told_in_passing_are_read(said: str, fact: str) -> None:
    assert fact in _texts(said)


def test_a_relatives_change_of_major_is_theirs_not_the_users() -> None:
    facts = _texts("my son switched his major to law")
    assert "The user studies law." not in facts


def test_a_greeting_kept_from_a_question_leaves_who_she_is() -> None:
    facts = _texts("Hey, can you help me plan a Valentine's dinner for my wife Ines? She's a GP.")
    assert any(f.startswith("Ines works as") for f in facts)


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("we brought home a collie pup, we've called her Mist.", "collie pup named Mist"),
        ("Picked up a rescue kitten from the shelter, we've named him Pip.", "named Pip"),
        ("Juno, our border collie, chewed my charger.", "The user has a border collie named Juno."),
        ("My cocker spaniel Alfie hates baths.", "The user has a cocker spaniel named Alfie."),
    ],
)
def test_a_pet_got_or_introduced_on_the_way_is_named(said: str, fact: str) -> None:
    assert any(fact in f for f in _texts(said))


@pytest.mark.parametrize(
    "said",
    ["we got a kitten on Saturday.", "I'm getting a puppy in June."],
)
def test_a_day_or_a_month_after_a_pet_is_no_name(said: str) -> None:
    assert not any("named" in f for f in _texts(said))


def test_picking_up_a_thing_is_no_pet() -> None:
    assert _texts("I picked up a coffee and a croissant on the way.") == []


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("big news: got poached by Atlassian, start Monday", "The user works at Atlassian."),
        ("Femi got headhunted by Shell.", "Femi works at Shell."),
        ("the baby came early, a little girl, we named her Ada", "Ada is the user's child."),
        ("Oscar arrived on 2 June, 3.4kg, all well!", "Oscar is the user's child."),
        ("Eh, I'm a quantity surveyor in Tampines.", "The user works as a quantity surveyor."),
    ],
)
def test_news_told_in_chat_shorthand_is_read(said: str, fact: str) -> None:
    assert fact in _texts(said)


@pytest.mark.parametrize(
    "said",
    ["my manager got poached by Google", "The parcel arrived on Monday, 3kg of coffee."],
)
def test_someone_elses_move_or_a_parcel_is_no_news_of_the_user(said: str) -> None:
    facts = _texts(said)
    assert not any(f.startswith("The user works") or "child" in f for f in facts)


@pytest.mark.parametrize(
    ("said", "facts"),
    [
        (
            "my cat Pixel is 9 and sleeps all day",
            ["The user has a cat named Pixel.", "Pixel is 9 years old."],
        ),
        ("I'm working on a PhD in hydrology.", ["The user studies PhD in hydrology."]),
        (
            "Got the head chef title at my review!",
            ["The user works as a head chef."],
        ),
    ],
)
def test_a_pets_age_a_degree_worked_on_and_a_title_given_are_read(
    said: str, facts: list[str]
) -> None:
    assert _texts(said) == facts


def test_working_on_a_project_is_no_course() -> None:
    assert not any("studies" in f for f in _texts("I'm working on a new website for my aunt."))
