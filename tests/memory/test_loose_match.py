"""The last resort for a statement no claim could be read from."""

from __future__ import annotations

import pytest

from daemon.memory.loose_match import loose_relation


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        (
            "Cycles to work on a Brompton",
            "Someone nicked my Brompton so it's the bus now",
            "replaces",
        ),
        ("Takes sertraline 50mg daily", "My GP upped my sertraline dose to 100mg", "replaces"),
        ("Is allergic to peanuts", "reminder: no peanuts for me, I'm allergic", "same"),
        ("Plays in a band called The Moths", "still gigging with The Moths every friday", "same"),
        # News about the thing is added beside the fact that names it.
        ("Has a dog named Rex", "Rex had surgery today", None),
        ("Drives a Toyota Prius", "the prius got broken into at the station", None),
        # Named in passing, with nothing happening to it, it is said again (a lower-case name
        # is the same name).
        ("Has a dog named Rex", "rex says hi, he's sitting on my feet", "same"),
        ("Drives a Toyota Prius", "filled up the prius today, barely any petrol used", "same"),
        ("Works at Google as an engineer", "just another day writing code at google", "same"),
        # "I'm", an "X-ray", a measure ("1 hr", "6 km") are no names or numbers of a thing;
        # letters a fact spells in capitals (ICU) name it.
        ("Is a radiographer", "Long day of X-rays — the glamorous life of a radiographer", "same"),
        ("Lives in Pune", "pune traffic is killing me today, 1 hr for 6 km", "same"),
        ("Is a staff nurse in the ICU", "night shift in icu, 3rd one this week", "same"),
        # Someone the old fact does not name is another subject.
        ("Lives in Boston", "My brother moved to Boston", None),
        ("Lives in Boston", "Moved to Seattle", None),
    ],
)
def test_a_statement_relates_by_the_thing_it_names(
    old: str, new: str, relation: str | None
) -> None:
    assert loose_relation(new, old) == relation


@pytest.mark.parametrize(
    ("old", "about", "new", "relation"),
    [
        # Where the user lives, named again with only "these days", is where they still are.
        (
            "Lives in Copenhagen",
            {"residence"},
            "being vegan in copenhagen is easy these days",
            "same",
        ),
        ("Lives in Copenhagen", {"residence"}, "moved out of copenhagen these days", "replaces"),
        # A person named again with a change word is restated; a birth can change a family.
        ("Has a son named Aksel", {"family"}, "my boy Aksel hasn't slept since June", "same"),
        ("Has one son named Leo", {"family"}, "Leo's sister was born, two kids now", "replaces"),
    ],
)
def test_a_loose_mention_does_not_replace_a_home_or_a_person_without_saying_so(
    old: str, about: set[str], new: str, relation: str
) -> None:
    assert loose_relation(new, old, frozenset(about)) == relation
