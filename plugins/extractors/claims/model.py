"""The claim a clause makes, and the attributes that hold one value or many."""

from __future__ import annotations

from dataclasses import dataclass

SINGLE_VALUED: frozenset[str] = frozenset(
    {
        "residence",
        "origin",
        "employer",
        "job",
        "work_field",
        "work_mode",
        "relationship",
        "partner",
        "age",
        "birthday",
        "birth_year",
        "name",
        "surname",
        "nickname",
        "diet",
        "education",
        "vehicle",
        "phone",
        "favourite",
        "religion",
        "nationality",
        "family_count",
        "native_language",
        "school_year",
        "blood_type",
        "housing",
    }
)

"""Attributes with one current value per subject (and qualifier): a new value replaces."""

MULTI_VALUED: frozenset[str] = frozenset(
    {
        "likes",
        "preference",
        "allergy",
        "condition",
        "pet",
        "family",
        "language",
        "hobby",
        "possession",
        "plan",
        "habit",
        "trait",
        "fear",
        "degree",
        "project",
        "event",
        "learning",
        "any",
        "work",
        "medication",
        "meal",
    }
)

"""Attributes that hold several values at once: a new value is added beside the others."""


# Verbs whose object is exclusive: doing it to a new object ends doing it to the old one.
EXCLUSIVE_VERBS: frozenset[str] = frozenset(
    {"drive", "manage", "lead", "run", "coach", "attend", "teach", "captain", "head", "date"}
)


TURNING = "turning"
"""The qualifier of an age a coming birthday brings ("turning 30 next week")."""

CHANGED_MIND = "changed mind"
"""The qualifier of "changed my mind about X": the opposite of what was held before."""

ENGAGED_TO = "fiance"
"""The qualifier of a partner the user got engaged to in the same breath ("Akosua and I got
engaged"), said as "engaged to Akosua"; "my fiancée Nusrat" keeps the word it was said with."""

INJURY = "injury"
"""The value of a healed injury's claim ("cast came off today"): which injury is not said,
only that one is over."""

NOTE = "note"
"""The attribute of a note: a lasting statement no rule read, its whole sentence said over as
the value. It makes no claim a rule could compare, so it never replaces a fact by rule."""


@dataclass(frozen=True, slots=True)
class Claim:
    """One thing a sentence says about a subject."""

    subject: str
    attribute: str
    value: str
    negated: bool = False
    past: bool = False
    change: bool = False
    previous: str | None = None
    alternative: str | None = None
    also: bool = False
    qualifier: str | None = None
    """Narrows the attribute: the relation of a ``family`` member, the topic of a
    ``favourite``, the stem of a ``verb:`` attribute's preposition."""
    when: str | None = None
    """A time the statement names ("last month", "on June 3rd"), as said."""

    @property
    def single(self) -> bool:
        """Return True if the attribute holds one current value."""
        if self.attribute.startswith("verb:"):
            return self.attribute[5:].split("_")[0] in EXCLUSIVE_VERBS
        return self.attribute in SINGLE_VALUED
