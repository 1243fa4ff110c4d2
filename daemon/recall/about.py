"""Whom a question is about and which of their attributes it asks for. No model.

"where do I live?" shares no word with "The user moved to Zagreb." and "what is my job?"
ranks "Erik works as a dentist." as high as "The user works as a UX designer.": a fact's
words are not how people ask for it. But a fact written by memory carries its subject and its
attribute (``residence``, ``job``, ``partner``, ...; the extractor's names, in
:mod:`plugins.extractors.claims.model`), and both are indexed with its text. So a question
read as *(subject, attributes)* becomes a second lexical query over facts only, ``"user
residence origin"``, whose ranking the recall engine fuses in as the ``about`` leg: facts
about that subject and that attribute first, then the same attribute of someone else. And a
fact whose subject is someone else than the one asked about is weighed down
(:data:`~daemon.recall.engine.OTHER_SUBJECT_FACTOR`): "what is my job?" is not answered by
"Milica works as a head chef."

- the subject is ``user`` when the question speaks in the first person ("my", "I", "me"),
  else the first name it gives ("what does Naledi do?"), else none (the attributes alone);
  a question about someone of the user's ("where does my sister live?") has none either;
- the attributes come from the question's words (:data:`CUES`): "live", "based", "city"
  ask for ``residence``; "job", "for a living", "what do I do" for ``job`` and ``work``...

A pure function of the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        r"\b(?:live[sd]?|living in|based|reside|stay(?:ing)? in|city|town|address|home)\b",
        ("residence",),
    ),
    (r"\b(?:where .{0,20}\bfrom|hometown|grow up|grew up|born)\b", ("origin",)),
    (
        r"\b(?:job|jobs|occupation|profession|career|for a living|for work|rank|title|position"
        r"|(?:what|wat) (?:do|does) \w+ do\b(?! for fun)|work as|working as)\b",
        ("job", "work"),
    ),
    (
        r"\b(?:work(?:s|ing)? (?:for|at)|where .{0,12}work|employer|employed|company|firm)\b",
        ("employer", "work"),
    ),
    (
        r"\b(?:study|studying|studies|major|degree|university|college|school|course|uni)\b",
        ("education", "degree", "learning"),
    ),
    (
        r"\b(?:dating|seeing|partner|girlfriend|boyfriend|wife|husband|spouse|married"
        r"|relationship|engaged)\b",
        ("partner", "relationship"),
    ),
    (r"\b(?:how old|age)\b", ("age",)),
    (r"\b(?:birthday|when .{0,20}born)\b", ("birthday",)),
    (r"\b(?:diet|eat|eating|vegan|vegetarian|food)\b", ("diet",)),
    (
        r"\b(?:car|cars|drive|vehicle|bike|motorbike|ride|rides|riding|commute|get(?:ting)? around"
        r"|get(?:ting)? about|transport)\b",
        ("vehicle", "possession"),
    ),
    (r"\b(?:phone|laptop|computer|pc|mac)\b", ("phone", "computer", "possession")),
    (r"\b(?:drink|drinks|drinking|beverage)\b", ("likes", "habit", "diet")),
    (r"\b(?:instrument|instruments|play|plays|playing)\b", ("hobby", "likes")),
    (r"\b(?:team|fan)\b", ("likes", "fan")),
    (r"\b(?:name|called)\b", ("name", "nickname")),
    (r"\b(?:teach|teaching)\b", ("job", "work")),
    (r"\b(?:training|race|marathon)\b", ("plan", "event", "hobby")),
    (
        r"\b(?:friend|friends|boss|manager|colleague|colleagues|coworker|roommate|flatmate"
        r"|neighbou?r)\b",
        ("family",),
    ),
    (r"\b(?:hobby|hobbies|free time|for fun|sport|sports|pastime)\b", ("hobby", "likes")),
    (r"\b(?:like|likes|love|enjoy|favou?rite|prefer)\b", ("likes", "preference", "favourite")),
    (r"\b(?:allergic|allergy|allergies)\b", ("allergy",)),
    (
        r"\b(?:health|condition|illness|diagnosed|sick|disease|injury|injured)\b",
        ("condition", "medication"),
    ),
    (r"\b(?:medication|medicine|meds|pills|prescription)\b", ("medication",)),
    (r"\b(?:pet|pets|dog|dogs|cat|cats)\b", ("pet",)),
    (
        r"\b(?:family|kids?|children|child|son|daughter|sister|brother|sibling|mother|mom|mum"
        r"|father|dad|parents|twins|grandson|granddaughter)\b",
        ("family",),
    ),
    (r"\b(?:language|languages|speak)\b", ("language", "native_language")),
    (r"\b(?:learning|learn)\b", ("learning",)),
    (r"\b(?:plan|plans|planning)\b", ("plan",)),
    (r"\b(?:religion|religious)\b", ("religion",)),
    (r"\b(?:nationality|citizen)\b", ("nationality",)),
    (r"\b(?:own|have|got)\b", ("possession",)),
)
"""Question words and the attributes they ask for (in the order a query lists them)."""

_CUES = tuple((re.compile(pattern, re.IGNORECASE), names) for pattern, names in CUES)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|my|me|mine|myself|we|our|us|ours)\b", re.IGNORECASE)
_SOMEONE_OF_MINE = re.compile(
    r"\b(?:my|our)\s+(?:\w+\s+)?(?:sister|brother|sibling|mother|mom|mum|father|dad|parents?"
    r"|son|daughter|kids?|children|child|twins?|wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?"
    r"|friend|boss|manager|colleague|coworker|co-worker|roommate|flatmate|neighbou?r|cousin|aunt"
    r"|uncle|grandma|grandpa|grandmother|grandfather|grandson|granddaughter|niece|nephew|baby"
    r"|dog|cat|pet|teacher|doctor)s?\b",
    re.IGNORECASE,
)
"""A question about someone of the user's ("where does my sister live?") is not about the user."""
_NAME = re.compile(r"\b([A-Z][a-z\u00c0-\u024f]+)(?:['\u2019]s)?\b")
_NOT_NAMES = frozenset(
    """
    what which who whom whose when where why how do does did is are was were can could would
    should will have has had the a an in on at and or tell remind list show give any
    """.split()  # noqa: SIM905
)


@dataclass(frozen=True, slots=True)
class About:
    """What a question asks about: the subject (``user``, a name, or none) and attributes."""

    subject: str | None
    attributes: tuple[str, ...]

    def query(self) -> str:
        """The ``about`` leg's query: the subject and the attributes' names."""
        words = [self.subject] if self.subject else []
        words += [a.replace("_", " ") for a in self.attributes]
        return " ".join(words)


def asked_about(question: str) -> About | None:
    """The subject and attributes ``question`` asks for; None when it names no attribute."""
    attributes: dict[str, None] = {}
    for pattern, names in _CUES:
        if pattern.search(question):
            attributes.update(dict.fromkeys(names))
    if not attributes:
        return None
    return About(_subject(question), tuple(attributes))


def _subject(question: str) -> str | None:
    if _SOMEONE_OF_MINE.search(question):
        return None
    if _FIRST_PERSON.search(question):
        return "user"
    for match in _NAME.finditer(question):
        name = match.group(1)
        if name.lower() not in _NOT_NAMES:
            return name
    return None
