"""The entry point: every claim a text makes, sentence by sentence, with pronouns resolved."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.clause import claims_of_clause
from plugins.extractors.claims.model import TURNING, Claim
from plugins.extractors.claims.phrases import greets_the_assistant
from plugins.extractors.claims.plain import said_plainly
from plugins.extractors.claims.splitting import clauses, sentences
from plugins.extractors.claims.subjects import (
    NAME_TOKEN,
    NOT_NAME_SUFFIX,
    REL_WORD,
    Subject,
    is_name,
    name_shaped,
    names_nobody,
    read_subject,
    starts_predicate,
)
from plugins.extractors.claims.words import IRREGULAR, VERBS, stem
from plugins.extractors.places import known_place

# A one-word sentence that exclaims rather than names ("we got a dog! Finally.").
_EXCLAIMED = frozenset(
    [
        "yay",
        "wow",
        "awesome",
        "finally",
        "yes",
        "no",
        "thanks",
        "lol",
        "omg",
        "nice",
        "great",
        "cool",
        "sweet",
        "perfect",
        "congrats",
        "seriously",
        "honestly",
        "anyway",
        "whatever",
        "oops",
        "ugh",
        "yikes",
    ]
)

# Values an "it" never means: "I'm a teacher and I love it" loves the work, not a teacher.
_NOT_AN_IT = frozenset(["job", "employer", "family", "partner", "name", "age", "relationship"])

_AGE_IN_BRACKETS = re.compile(
    r"\b(?P<name>[A-Za-z][\w'\-]*)\s*\((?:age\s+|aged\s+)?(?P<age>\d{1,2})"
    r"(?:\s*(?:yo|y/o|years? old))?\)"
)


# "our brother Tom (lives in Perth, the WA one) wants to chip in": what a bracket says of the
# name before it.
_SAID_IN_BRACKETS = re.compile(
    r"(?P<name>(?-i:[A-Z])[\w'-]*)\s*\((?P<what>(?:lives|works|studies|is|has|moved|runs"
    r"|teaches|owns)\b[^()]{2,80})\)"
)


def name_brackets(text: str) -> str:
    """Name who a bracket speaks of: "Tom (lives in Perth)" is "Tom (Tom lives in Perth)", so
    the bracket, read as a sentence of its own, is about Tom and not the speaker."""

    def named(match: re.Match[str]) -> str:
        name = match.group("name")
        if not is_name(name):
            return match.group(0)
        return f"{name} ({name} {match.group('what').strip()})"

    return _SAID_IN_BRACKETS.sub(named, text)


def _ages_in_brackets(sentence: str) -> tuple[str, list[Claim]]:
    """ "my kids Mia (6) and Leo (4)": each name's age, and the sentence without the brackets."""
    claims: list[Claim] = []

    def read(match: re.Match[str]) -> str:
        name = match.group("name")
        if is_name(name) or name_shaped(name):
            name = name[:1].upper() + name[1:]
            claims.append(Claim(name, "age", str(int(match.group("age")))))
            return name
        return match.group(0)

    if not re.search(r"\b(?:my|our)\s", sentence, re.IGNORECASE):
        return sentence, []
    return _AGE_IN_BRACKETS.sub(read, sentence), claims


_UNNAMED_HE = re.compile(
    r"^\s*(?:(?:also|and|but|plus|so|oh)\s+)?(?:he|she)(?:'s|\s+is|\s+has|\s+was)?\b", re.IGNORECASE
)


def parse(
    text: str,
    *,
    speaker: str = "user",
    strict: bool = False,
    fact_text: bool = True,
    keep: Callable[[str], bool] | None = None,
    person_before: str | None = None,
    pet_before: Claim | None = None,
) -> list[Claim]:
    """Return every claim ``text`` makes.

    ``speaker`` is who "I" is (``"user"`` for a user's turn or a fact about the user).
    ``fact_text`` reads a subject-less clause as being about the user ("Lives in Boston.").
    ``strict`` keeps only the durable kinds of statement the grammar knows (for extraction).
    ``person_before`` is who "she" or "he" means before the text names anyone (the person the
    previous turn was about); ``pet_before`` the pet a "her" or "him" naming it means.
    ``keep`` passes over the clauses it refuses (a reader's own idea of what is not a
    statement: "maybe", "if", a joke), keeping their subject for the clauses after them.
    """
    out: list[Claim] = []
    last_person: str | None = person_before
    text = said_plainly(text)
    for said in sentences(name_brackets(text)):
        sentence = _BARE_KIN.sub(r"\g<lead>my \g<kin>", said)
        inherited: Subject | None = None
        antecedent: str | None = None
        bare = re.fullmatch(r"(?-i:[A-Z])[\w'-]+[.!]*", sentence.strip())
        if bare and out and out[-1].attribute == "pet" and " " not in out[-1].value:
            name = sentence.strip().rstrip(".!")
            said_as_name = not NOT_NAME_SUFFIX.search(name) and name.casefold() not in _EXCLAIMED
            if is_name(name) and said_as_name:
                # "we got a bunny now! Clover.": the name said on its own, just after.
                out[-1] = replace(out[-1], value=f"{out[-1].value} {name}")
                continue
        sentence, ages = _ages_in_brackets(sentence)
        out.extend(ages)
        first_of_sentence = len(out)
        stranger = False  # the sentence is about a "he" or "she" nobody named
        for clause in clauses(sentence):
            if keep is not None and not keep(clause):
                # "I want to send money to my brother Kwame. He is an engineer": not a
                # statement, but who it names is who a "he" next means.
                last_person = _person_named(clause) or last_person
                inherited = _named_subject(clause, speaker, last_person) or inherited
                continue
            if stranger and starts_predicate(clause.strip()):
                # "he's 212 years old and has a pet goat": the goat is his, not the user's.
                continue
            read = partial(
                claims_of_clause,
                speaker=speaker,
                last_person=last_person,
                strict=strict,
                fact_text=fact_text,
                inherited=inherited,
                antecedent=antecedent,
            )
            claims, subject = read(clause)
            shared = _SHARED_SUBJECT_TAIL.search(clause)
            if shared is not None:
                # "I'm a nurse and love it", "my wife is a pharmacist and walks to work": a
                # second verb on the same subject, which the first statement is read without.
                head, _ = read(clause[: shared.start()])
                told = {(c.subject, c.attribute) for c in claims}
                claims = claims + [c for c in head if (c.subject, c.attribute) not in told]
            if subject is None and not claims:
                # "Ji-woo landed here on Tuesday, got hired by Wealthsimple": a clause the
                # grammar reads nothing in still says whose the subject-less one after it is.
                subject = _named_subject(clause, speaker, last_person)
            inherited = None if subject is None else replace(subject, thing=None, pet=None)
            stranger = subject is None and not claims and _UNNAMED_HE.match(clause) is not None
            pet_name = _pet_kind_and_name(subject.pet or "")[1] if subject is not None else ""
            if subject is not None and subject.pet and " " in subject.pet and is_name(pet_name):
                # "our retriever Rufus is 12 and has bad hips": Rufus has them.
                inherited = Subject(pet_name, False, name=pet_name)
            if claims and claims[0].attribute not in _NOT_AN_IT:
                antecedent = claims[0].value  # what a later "it" means ("got a bike, love it")
            if subject is not None and subject.name is not None:
                last_person = subject.name
            elif not claims or all(c.subject == speaker for c in claims):
                # "I'm planning my daughter Aoife's party and she's coeliac": the one person a
                # clause names beside what it says of the speaker is who "she" next means.
                values = {c.value.casefold() for c in claims}
                named = _person_named(clause)
                if named is not None and named.casefold() not in values:
                    last_person = named
            for claim in claims:
                if claim.subject == "~pronoun":
                    resolved = _resolve_pronoun(claim, out, last_person, pet_before)
                    if resolved is None:
                        continue
                    if resolved[0] is not None:
                        out[resolved[0]] = resolved[1]
                        continue
                    claim = resolved[1]
                employer = _employer_in_job(claim)
                if employer is not None:
                    claim, at = employer
                    out.append(claim)
                    claim = at
                if claim.subject != speaker and (
                    claim.subject[:1].isupper() or claim.subject.startswith("user's ")
                ):
                    last_person = claim.subject
                elif claim.attribute in ("family", "partner") and is_name(claim.value):
                    last_person = claim.value
                out.append(claim)
        said_now = {
            c.subject for c in out[first_of_sentence:] if c.attribute == "age" and not c.qualifier
        }
        out[first_of_sentence:] = [
            c
            for c in out[first_of_sentence:]
            if not (c.attribute == "age" and c.qualifier == TURNING and c.subject in said_now)
        ]
        if _ANOTHER_ONE.search(sentence):
            # "we got a second dog", "bought an e-bike, the Corolla stays": one more of a kind
            # the user has, beside the one they had.
            out[first_of_sentence:] = [
                replace(c, also=True) if c.attribute in _COUNTABLE and not c.negated else c
                for c in out[first_of_sentence:]
            ]
    return out


# "... and love it": a second verb on the clause's own subject (not "and I", "and my").
_SHARED_SUBJECT_TAIL = re.compile(r"\s+and\s+(?!(?:i|we|my|our)\b)[a-z]+\b.*$")
# "Dad retired and moved back to Karachi": the user's dad, as "my dad" would say.
_BARE_KIN = re.compile(
    r"^(?P<lead>\W*)(?P<kin>dad|mum|mom|mama|papa|father|mother|grandma|grandpa|granny|gran|nana"
    r"|hubby|wifey)"
    r"(?=\s+(?!and\b|&|i\b|or\b)[a-z])",
    re.IGNORECASE,
)
_MY_RELATIVE = re.compile(rf"\b(?:my|our)\s+(?P<rel>{REL_WORD})\b", re.IGNORECASE)
_ANOTHER_ONE = re.compile(
    r"\b(?:a\s+(?:second|third|fourth|fifth)|another|one\s+more|an\s+extra)\s+\w"
    r"|\b(?:the|my|our)\s+(?:old\s+)?[\w-]+\s+(?:stays|is\s+staying|remains|isn't\s+going)\b"
    r"|\bkeeping\s+(?:the|my|our)\s+(?:old\s+)?[\w-]+",
    re.IGNORECASE,
)
_COUNTABLE = frozenset({"pet", "vehicle", "possession", "computer", "phone"})


def _named_subject(clause: str, speaker: str, last_person: str | None) -> Subject | None:
    """The person a clause opens with, when it is someone other than the speaker."""
    subject, _ = read_subject(clause, speaker=speaker, last_person=last_person, fact_text=False)
    if subject is not None:
        return None if subject.first_person else subject
    # A verb the grammar has no rule for: "Ji-woo landed here on Tuesday".
    did = re.match(rf"(?-i:(?P<name>{NAME_TOKEN}))\s+(?P<verb>[a-z]+)\b", clause.strip())
    if did is None or not is_name(did.group("name")) or known_place(did.group("name")):
        return None
    verb = did.group("verb")
    if not (verb.endswith("ed") or verb in IRREGULAR or stem(verb) in VERBS):
        return None
    return Subject(did.group("name"), False, name=did.group("name"))


def _person_named(clause: str) -> str | None:
    """The one person a clause that states nothing names: who a "he" next means ("big news
    from Kenji — he quit Sony"; "My dad is visiting next week. He is vegetarian.")."""
    named = {
        re.sub(r"'s$", "", m.group(0))
        for m in re.finditer(r"\b(?-i:[A-Z])[\w'-]+", clause)
        if m.start() > 0 and _could_be_a_person(clause, m)
    }
    if len(named) == 1:
        return named.pop()
    relative = _MY_RELATIVE.search(clause)
    if relative is None or named or greets_the_assistant(clause):
        return None
    rel = lx.relation_of(relative.group("rel")) or relative.group("rel")
    return f"user's {rel.casefold()}"


# "a radiographer at the Queen Elizabeth", "an assistant producer at the BBC in Salford": a
# job, then a named place of work.
_JOB_AT_NAMED = re.compile(
    r"^(?P<job>(?:an?\s+)?[\w -]{2,40}?)\s+at\s+(?:the\s+)?"
    r"(?P<org>(?-i:[A-Z])[\w&'.-]*(?:\s+(?-i:[A-Z])[\w&'.-]*){0,3}"
    # "at the Vodafone call centre in Cork": the named place's kind, said after its name
    r"(?:\s+(?:call\s+cent(?:re|er)|branch|office|store|shop|site|plant|factory|warehouse|depot"
    r"|campus|hq|headquarters))?(?:\s+in\s+[\w' -]+)?)$"
)


def _employer_in_job(claim: Claim) -> tuple[Claim, Claim] | None:
    """The job and the employer a job's value names both of, as two claims (so a new job
    title later replaces the title, and not where the job is)."""
    if claim.attribute != "job" or claim.negated:
        return None
    found = _JOB_AT_NAMED.match(claim.value)
    if found is None or not lx.is_occupation(found.group("job")):
        return None
    org = found.group("org")
    if known_place(org.split(" in ", 1)[0]):
        return None
    return replace(claim, value=found.group("job")), replace(claim, attribute="employer", value=org)


# "at school together in Sligo", "out of Dubai", "moved to Leeds": a name after these is a
# place's ("news from Kenji", "talked to Kenji" may be a person's).
_PLACE_BEFORE = re.compile(
    r"\b(?:in|at|near|outside|around|into|across|via|out\s+of"
    r"|(?:move[ds]?|moving|flew|fly|flying|off|back|over|relocat(?:ed|ing)|gone|going)\s+to)"
    r"\s+(?:(?:the|a|an|our|my|this|that)\s+)?$",
    re.IGNORECASE,
)


def _could_be_a_person(clause: str, name: re.Match[str]) -> bool:
    """Whether a capitalised word could be who a later "she" or "he" is: not a place, a
    month ("mid-March"), a day, or letters ("diagnosed with MS", "left TAP")."""
    word = re.sub(r"'s$", "", name.group(0))
    if not is_name(word) or known_place(word) or names_nobody(word):
        return False
    # The whole name is what follows "in": "in San Diego", "at Maple Ridge", "at Coronet Peak".
    before = _NAME_RUN_END.sub("", clause[: name.start()])
    return _PLACE_BEFORE.search(before) is None


_NAME_RUN_END = re.compile(r"(?:\b(?-i:[A-Z])[\w'&.-]*\s+)+$")
"""The capitalised words a name is the last of ("San " before "Diego")."""


def _resolve_pronoun(
    claim: Claim, before: Sequence[Claim], last_person: str | None, pet_before: Claim | None
) -> tuple[int | None, Claim] | None:
    """ "we adopted a cat, her name's Mochi": the pronoun's claim about what came before.

    Returns ``(index, claim)`` to replace an earlier claim, ``(None, claim)`` to add one, or
    None when nothing it could mean was said."""
    previous = len(before) - 1
    last = before[previous] if before else None
    if last is None and claim.attribute == "name" and pet_before is not None:
        # "ok we renamed her Nori", the turn after "we adopted a kitten named Princess".
        kind, old_name = _pet_kind_and_name(pet_before.value)
        name = claim.value[:1].upper() + claim.value[1:]
        renamed = bool(old_name) and old_name.casefold() != name.casefold()
        return None, Claim(
            pet_before.subject,
            "pet",
            f"{kind} {name}",
            change=renamed,
            qualifier="renamed" if renamed else None,
        )
    if claim.attribute == "name" and last is not None:
        name = claim.value[:1].upper() + claim.value[1:]  # "his name is rex": Rex
        if last.attribute == "pet" and not _pet_kind_and_name(last.value)[1]:
            return previous, replace(last, value=f"{last.value} {name}")
        if last.attribute == "family" and last.value == last.qualifier:
            return previous, replace(last, value=name)
        if last.attribute == "relationship" and last.value not in lx.ENDED_RELATIONSHIP:
            return None, replace(claim, subject=last.subject, attribute="partner", value=name)
    if last_person is not None and claim.attribute != "name":
        return None, replace(claim, subject=last_person)
    return None


def _pet_kind_and_name(value: str) -> tuple[str, str]:
    """ "golden retriever Sunny": the kind and the name; "collie pup": the kind alone."""
    bred = re.match(rf"(?:{lx.COMPOUND_BREEDS})\b", value, re.IGNORECASE)
    if bred is not None:
        return value[: bred.end()], value[bred.end() :].strip()
    words = value.split()
    kind = [w for w in words if lx.is_pet(w)]
    if not kind:
        head, _, name = value.partition(" ")
        return head, name
    last = words.index(kind[-1]) + 1
    return " ".join(words[:last]), " ".join(words[last:])


def iter_values(claims: Sequence[Claim]) -> Iterator[str]:
    """Yield the values of ``claims`` (for tests and debugging)."""
    for claim in claims:
        yield claim.value
