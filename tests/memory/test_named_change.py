"""A change said of a thing memory holds, by its name (daemon.memory.named_change)."""

from __future__ import annotations

import pytest

from daemon.memory.named_change import NAMED_CHANGE, anchors, changed_by_name
from daemon.memory.reconcile import Known, Policy, claims_of, reconcile


def _decide(existing: list[str], new: str, provenance: str = "user") -> tuple[str, list[int]]:
    known = [Known(str(i), text, claims_of(text)) for i, text in enumerate(existing)]
    verdict = reconcile(new, claims_of(new), known, provenance=provenance)
    return verdict.outcome, sorted(int(i) for i in (*verdict.superseded, *verdict.conflicts_with))


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        # A pet gone, by its name, the ending word after it or before it.
        (["Has a parrot named Coco", "Is retired"], "Coco flew off while we were in the garden"),
        (["Has a cat named Tofu"], "we had to put tofu down on friday, the vet was kind"),
        (["Has a rabbit called Bun"], "sadly we lost Bun over the winter"),
        # A medicine swapped, a diet dropped, a habit packed in, a plan pushed.
        (["Takes lisinopril for blood pressure"], "the gp swapped my lisinopril for amlodipine"),
        (["Follows a paleo diet"], "ever since i ditched paleo my energy is back"),
        (["Goes to the pool at 7am on weekdays"], "gave up the pool pass, I run before work now"),
        (["Plans to visit Peru in May"], "we had to postpone Peru until the autumn"),
        (["Plans to visit Peru in May"], "Peru got pushed back a year, work is mad"),
        # A partner's change, a dislike taken to.
        (["Has a girlfriend named Ines"], "ines and i split up in the summer"),
        (["Dislikes coriander"], "i've weirdly come round to coriander lately"),
        (["Dislikes coriander"], "ok I've come round on coriander, it's in everything I cook"),
        (["Married to Sergio"], "since the separation Sergio has the dog on weekends"),
        # Said goodbye to, grown out of; a hyphen typed or not.
        (["Rides a Royal Enfield Classic 350"], "said bye to the enfield, got an ev on friday"),
        (["Loves K-pop, especially BTS"], "honestly i grew out of kpop, it's all jazz now"),
        # A name with its "'s", or said in the singular.
        (["Plans to visit Japan in October"], "Japan's been pushed back to April, work again"),
        (["Dislikes olives"], "came back from Puglia an olive convert"),
        # "stopped going to": the "to" of going somewhere.
        (["Goes to Cult.fit gym every morning"], "stopped going to cult, too crowded"),
    ],
)
def test_a_thing_named_beside_an_ending_word_is_replaced(existing: list[str], new: str) -> None:
    assert _decide(existing, new) == ("updated", [0])


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        # Taken up, not ended: the thing after "to" or "for".
        (["Follows a paleo diet"], "switched to paleo in March and feel great"),
        (["Takes amlodipine"], "the gp swapped my lisinopril for amlodipine"),
        # Someone else's thing, or someone else doing the ending.
        (["Takes lisinopril"], "my dad came off lisinopril last year"),
        (["Drives a Fiesta"], "my sister sold her Fiesta on gumtree"),
        # Weighed, asked, denied.
        (["Follows a paleo diet"], "should I quit paleo before the marathon?"),
        (["Follows a paleo diet"], "thinking about dropping paleo, it's a lot of cooking"),
        (["Follows a paleo diet"], "I haven't dropped paleo, just cheating on weekends"),
        # The word is near but says another thing: "lost" after the name, "still" kept on.
        (["Has a parrot named Coco"], "my parrot Coco lost a tail feather this morning"),
        (["Enjoys rock climbing"], "work finished late, still climbing on thursdays though"),
        # Someone else said goodbye to theirs.
        (["Rides a Royal Enfield"], "my brother said bye to his enfield last year"),
    ],
)
def test_look_alikes_replace_nothing(existing: list[str], new: str) -> None:
    outcome, replaced = _decide(existing, new)
    assert outcome in ("added", "deduplicated")
    assert replaced == []


def test_where_the_user_lives_or_works_is_no_named_thing() -> None:
    # "left the office in Leeds" ends no residence: those are the grammar's to read.
    assert anchors(claims_of("Lives in Leeds")[0]) == frozenset()
    assert changed_by_name("left the office in Leeds at six", claims_of("Lives in Leeds")) is None
    assert anchors(claims_of("Has a parrot named Coco")[0]) == {"parrot", "coco"}


def test_an_extracted_fact_named_beside_an_ending_waits_for_a_person() -> None:
    # The ending word is near the name, not read as its verb: a user's own statement applies,
    # an extracted one is queued.
    policy = Policy()
    assert policy.threshold("user") <= NAMED_CHANGE < policy.threshold("extraction")
    outcome, replaced = _decide(
        ["Has a parrot named Coco"], "Coco flew off while we were in the garden", "extraction"
    )
    assert (outcome, replaced) == ("conflict", [0])


def test_a_death_ends_what_was_said_of_them_even_a_no() -> None:
    existing = ["The user has a cat named Kluska.", "Kluska no longer eats dry food."]
    assert _decide(existing, "Kluska passed away last week.") == ("updated", [0, 1])
