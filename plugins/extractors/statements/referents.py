"""Who a sentence is about when another sentence said it.

Two ways a chat turn states a fact about someone without naming them in the statement:

- a relative clause: "My sister Greta, who works as a midwife in Hamburg, read it" says
  "My sister Greta works as a midwife in Hamburg." inside a sentence about something else;
- a pronoun whose person was named in a sentence that states nothing itself: "my mom says I
  have to pay for it myself. she's a pharmacist" (the first sentence is someone's words and
  is not kept, so "she" would otherwise be nobody).

Both are said over as plain sentences about the person, which the grammar then reads (or
refuses) like any other.
"""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.phrases import greets_the_assistant
from plugins.extractors.claims.subjects import NAME_TOKEN, REL_WORD, is_name, names_nobody

_PERSON = (
    rf"(?:(?:my|our)\s+(?:(?:best|old|little|big|older|younger|twin|late)\s+)?{REL_WORD}"
    rf"(?:\s+(?-i:{NAME_TOKEN}))?|(?-i:{NAME_TOKEN}))"
)
# The relative clause ends at a comma, or where the sentence's own verb takes over ("my
# brother Kwame who is in London says ...").
_RELATIVE = re.compile(
    rf"(?P<who>{_PERSON}),?\s+who\s+(?P<what>(?:is|was|works|lives|studies|teaches|runs"
    r"|owns|has|had|moved|just|now|still|also|used|recently|got)\b.*?)"
    r"(?=\s*[,;:.!?]|\s+(?:says|said|thinks|thought|told|tells|reckons|keeps|wants|wanted"
    r"|read|reads|asked|asks|helped|sent|gave|will|would|can|could|and|but)\b|$)",
    re.IGNORECASE,
)
# "to visit my brother Bat-Erdene, he lives in Seoul now": the pronoun right after the person.
_PRONOUN_AFTER = re.compile(
    rf"(?P<who>{_PERSON}),\s+(?P<pronoun>she|he)(?P<be>'s|\s+is)?\s+(?P<what>(?:is|was|works|lives"
    r"|studies|teaches|runs|owns|has|moved|just|now|still|also|recently|got|in|a|an|the)\b"
    r"[^,;:.!?]*)",
    re.IGNORECASE,
)
_MY_PERSON = re.compile(
    rf"\b(?:my|our)\s+(?:(?:best|old|little|big|older|younger|twin|late)\s+)?(?P<rel>{REL_WORD})"
    rf"(?:\s+(?P<name>(?-i:{NAME_TOKEN})))?",
    re.IGNORECASE,
)
_NAMED = re.compile(rf"\b(?-i:{NAME_TOKEN})")
_SAYS = re.compile(r"\s+(?:says|said|thinks|told|tells|reckons|keeps|wants|asked|asks)\b")
OPENING_PRONOUN = re.compile(r"^(?P<lead>\W*)(?P<pronoun>she|he)(?P<be>'s|\s+is)?\b", re.I)
"""A "she" or "he" opening a sentence (and the "is" that may follow it)."""


def relative_clauses(sentence: str) -> list[str]:
    """ "My sister Greta, who works as a midwife in Hamburg, read it": the relative clauses
    about a person, said as sentences of their own ("My sister Greta works as a midwife in
    Hamburg."); "my brother Bat-Erdene, he lives in Seoul now" too."""
    out: list[str] = []
    for found in _RELATIVE.finditer(re.sub(r"\bwho's\b", "who is", sentence, flags=re.I)):
        who, what = found.group("who"), found.group("what").strip()
        if _MY_PERSON.match(who) is None:
            continue  # "a pilot named Rafe who lives in Oslo" may be a story's; "my" is meant
        if len(what.split()) >= 2:
            out.append(f"{who} {what}.")
    for found in _PRONOUN_AFTER.finditer(sentence):
        who, what = found.group("who"), found.group("what").strip()
        mine = _MY_PERSON.match(who)
        if mine is None or len(what.split()) < 2:
            continue
        rel = mine.group("rel").casefold().rstrip("s")
        pronoun = found.group("pronoun").casefold()
        if (pronoun == "he" and rel in lx.SHE) or (pronoun == "she" and rel in lx.HE):
            continue
        be = " is" if found.group("be") else ""
        out.append(f"{who}{be} {what}.")
    return out


def person_named(sentence: str) -> str | None:
    """The one person a sentence names ("my mom", "my grandson Oliver", "Giulia"), or None
    when it names none or several."""
    if greets_the_assistant(sentence):
        return None
    mine = list(_MY_PERSON.finditer(sentence))
    # A capital at the start is a name only before a verb ("Giulia says ..."), not "Thanks".
    named = [
        m.group(0)
        for m in _NAMED.finditer(sentence)
        if is_name(m.group(0))
        and not _inside(m.start(), mine)
        and not names_nobody(m.group(0))
        and (m.start() > 0 or _SAYS.match(sentence, m.end()) is not None)
    ]
    people = [_with_lower_case_name(sentence, m) for m in mine]
    people += [re.sub(r"'s$", "", n) for n in named]
    return people[0] if len(people) == 1 else None


def _with_lower_case_name(sentence: str, person: re.Match[str]) -> str:
    """ "my sister larissa says ...": a word between a relation and what the person says is
    their name, typed in lower case."""
    if person.group("name"):
        return person.group(0)
    after = re.match(
        r"\s+(?P<name>[a-z][\w'-]+)(?=\s+(?:says|said|reckons|thinks|told))",
        sentence[person.end() :],
    )
    if after is None or not is_name(after.group("name"), lower_ok=True):
        return person.group(0)
    name = after.group("name")
    return f"{person.group(0)} {name[:1].upper()}{name[1:]}"


def with_antecedent(sentence: str, person: str | None) -> str:
    """ "she's a pharmacist" said just after a sentence that named "my mom" and was not kept:
    "my mom is a pharmacist". Unchanged when the pronoun cannot be that person."""
    opening = OPENING_PRONOUN.match(sentence)
    if opening is None or person is None:
        return sentence
    relation = _MY_PERSON.match(person)
    if relation is not None:
        rel = relation.group("rel").casefold().rstrip("s")
        pronoun = opening.group("pronoun").casefold()
        if (pronoun == "he" and rel in lx.SHE) or (pronoun == "she" and rel in lx.HE):
            return sentence
    be = " is" if opening.group("be") else ""
    return opening.group("lead") + person + be + sentence[opening.end() :]


def _inside(at: int, spans: list[re.Match[str]]) -> bool:
    return any(m.start() <= at < m.end() for m in spans)
