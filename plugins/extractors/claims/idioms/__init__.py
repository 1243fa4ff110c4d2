"""Whole-sentence idioms whose meaning is not the sum of their words ("my maiden name is X", "I was
born in X").

Each topic module holds its idioms, one small function per phrase next to its pattern; a
function returns None when its phrase is not what was said, so the next one is tried.
"""

from __future__ import annotations

from collections.abc import Callable

from plugins.extractors.claims.idioms import family, health, home, identity, pastimes, work
from plugins.extractors.claims.idioms.family import SINCE_DIVORCE
from plugins.extractors.claims.idioms.health import MEDICINE_SHAPED, NOT_MEDICINES
from plugins.extractors.claims.idioms.identity import NOT_LIKED_KINDS
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.passing import passing_claims

__all__ = ["MEDICINE_SHAPED", "NOT_LIKED_KINDS", "NOT_MEDICINES", "SINCE_DIVORCE", "idiom_claims"]

Idiom = Callable[[str], "list[Claim] | None"]

# The first idiom that applies wins, so where two would read the same sentence this order
# decides which reading it gets.
_IDIOMS: tuple[Idiom, ...] = (
    health.habit_free,
    pastimes.given_up_as,
    work.new_at,
    work.back_in_the_office,
    family.went_to_live_with,
    home.rent_in,
    pastimes.got_me_into,
    pastimes.decided_against,
    home.named_home,
    health.gives_me_a_rash,
    pastimes.thing_named,
    work.weeks_into_a_role,
    pastimes.signed_up_for,
    pastimes.not_been_since,
    work.offer_turned_down,
    work.promoted,
    family.split_up,
    pastimes.hung_up,
    pastimes.disbanded,
    pastimes.thing_gone,
    identity.birthday_age,
    health.medication,
    health.prescribed,
    work.own_business,
    health.switched_medication,
    home.renting_in,
    health.off_something,
    work.retired_now,
    home.move_done,
    work.first_weeks_as,
    pastimes.done_with,
    health.cast_off,
    health.healed,
    family.did_not_make_it,
    work.acquired_by,
    home.home_said_on_the_way,
    family.made_it_official,
    pastimes.back_to,
    home.been_in_for,
    work.last_shift_at,
    work.notice_handed_in,
    home.first_weeks_in,
    work.first_weeks_at,
    home.new_home_in,
    home.home_in,
    family.pet_named,
    family.pronoun_is_my,
    work.being_a,
    family.pet_renamed,
    family.child_born,
    family.divorce_final,
    family.had_the_baby,
    work.formerly_at,
    work.shift_at,
    pastimes.my_thing,
    pastimes.a_kind_of_person,
    identity.maiden_name,
)

# Read only when no idiom above applies, group by group.
# A pet or person lost, a pet just arrived, a child's age.
_LIFE_EVENTS: tuple[Idiom, ...] = (family.lost_by_name, family.new_pet, family.ages_by_name)
# A team at an employer, a job said in Indian English, an event trained for, a book being
# written, a first language, a pastime said by its habit.
_WORK_AND_PASTIMES: tuple[Idiom, ...] = (
    work.team_at,
    work.working_in,
    pastimes.training_for,
    pastimes.writing_a,
    identity.first_language,
    pastimes.gerund_habit,
)
# What the user is, said as a standpoint, a restated home, or a native language.
_STANDPOINTS: tuple[Idiom, ...] = (
    identity.as_a,
    home.still_in,
    identity.native_speaker,
    pastimes.fell_for,
    family.name_my_relation,
)


def _first(idioms: tuple[Idiom, ...], text: str) -> list[Claim] | None:
    """The reading of the first of ``idioms`` that applies to ``text``."""
    for idiom in idioms:
        claims = idiom(text)
        if claims is not None:
            return claims
    return None


def idiom_claims(text: str, speaker: str) -> list[Claim] | None:
    """Statements said in a fixed phrase rather than a subject and a verb."""
    if speaker != "user":
        return None
    claims = _first(_IDIOMS, text)
    if claims is not None:
        return claims
    return (
        _first(_LIFE_EVENTS, text)
        or _first(_WORK_AND_PASTIMES, text)
        or _first(_STANDPOINTS, text)
        or passing_claims(text)
    )
