"""Reconciliation: what a new fact does to the facts memory already holds, decided by rule.

:func:`reconcile` takes the fact being written (its text and the claims read from it) and the
current facts it could touch, and returns a :class:`Verdict`:

- ``added``: nothing it says was known, and it replaces nothing;
- ``updated``: it gives a new value of something memory held (a new city, employer, diet,
  partner; "no longer", "used to", "switched from"), and the old facts are superseded;
- ``deduplicated``: everything it says is already a current fact (a restatement);
- ``conflict``: it would replace something, but the rules are not sure enough for the
  writer's provenance (the policy), so a person decides.

Facts about different subjects never touch each other: "Bob is 35" and "Carol is 40" are two
facts. Everything here is a pure function of its arguments; the caller gathers candidates,
records the verdict as an event and appends its effects.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from daemon.consolidation.rules import judge_pair
from daemon.memory.loose_match import loose_relation
from daemon.memory.passing import said_in_passing
from daemon.memory.relations import CONTRADICTION, Relation, family_of, kin_kind, positive, relate
from daemon.memory.values import match_values, subject_key, value_key
from plugins.extractors import lexicon as lx
from plugins.extractors.claims import Claim, mentions, parse, vague, with_known_names
from plugins.extractors.statements.sentences import is_statement_clause
from projections.text import normalise

Outcome = Literal["added", "updated", "deduplicated", "conflict"]

RULES_ID = "rules/v1"
"""Names the rule set in every verdict it decides (the log says which rules decided)."""


@dataclass(frozen=True, slots=True)
class Known:
    """A current fact as reconciliation sees it."""

    fact_id: str
    text: str
    claims: tuple[Claim, ...]


@dataclass(frozen=True, slots=True)
class Match:
    """How the new fact relates to one known fact, and which rule said so."""

    fact_id: str
    relation: Relation
    rule: str
    confidence: float


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision for one write, with the inputs that decided it."""

    outcome: Outcome
    superseded: tuple[str, ...] = ()
    duplicate_of: str | None = None
    conflicts_with: tuple[str, ...] = ()
    confidence: float = 1.0
    reason: str = ""
    matches: tuple[Match, ...] = ()
    decided_by: str = RULES_ID
    history: bool = False
    """The fact only says what stopped being true ("I quit Wayfair" once memory knew the job,
    "I used to play bass"): the writer keeps it archived, out of current reads, because the
    facts it ended already say the rest (their valid time closes where it was said)."""


@dataclass(frozen=True, slots=True)
class Policy:
    """How sure a replacement must be to apply, per provenance; below it a person decides.

    The defaults apply a user's own statement whenever a rule says it replaces something, and
    queue an extracted or imported fact's replacement unless the rule is confident.
    """

    apply_at: Mapping[str, float] = field(
        default_factory=lambda: {
            "user": 0.5,
            "extraction": 0.75,
            "reflection": 0.9,
            "tool": 0.9,
            "imported": 0.9,
        }
    )

    def threshold(self, provenance: str) -> float:
        """Return the least confidence at which a replacement from ``provenance`` applies."""
        return float(self.apply_at.get(provenance, 0.9))


# -- the decision --------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def lasting_attributes(text: str) -> frozenset[str]:
    """The attributes a chat line states as lasting facts, read as the offline extractor reads
    a user's turn (strictly: no weighing, asking, joking; durable kinds only)."""
    said = parse(text, speaker="user", strict=True, fact_text=False, keep=is_statement_clause)
    return frozenset(c.attribute for c in said)


@lru_cache(maxsize=8192)
def claims_of(text: str) -> tuple[Claim, ...]:
    """Read the claims of a fact text."""
    return tuple(parse(text, speaker="user", strict=False, fact_text=True))


def contradiction(a: str, b: str) -> str | None:
    """Whether two current facts contradict each other, read by the statement grammar: the
    rule that says one would replace the other, "" when both were read and nothing does
    ("enjoys hiking" and "also enjoys photography"), None when either says nothing the
    grammar reads (the text rules decide then)."""
    claims_a, claims_b = claims_of(a), claims_of(b)
    if not claims_a or not claims_b:
        return None
    for new, old in [(n, o) for n in claims_b for o in claims_a] + [
        (n, o) for n in claims_a for o in claims_b
    ]:
        if subject_key(new.subject) != subject_key(old.subject):
            continue
        relation, rule, _ = relate(new, old)
        if relation == "replaces":
            return rule
    return ""


def _names_a_member(new: Claim, old: Claim) -> bool:
    """ "Biscuit passed away" ends "has a dog named Biscuit" (a pet or relative by name)."""
    if new.attribute != "alive" or not new.negated or not positive(old):
        return False
    if old.attribute not in ("pet", "family", "partner") or subject_key(old.subject) == subject_key(
        new.subject
    ):
        return False
    return subject_key(new.subject) in {w.casefold() for w in old.value.split()}


# The people the user has through work: they stop being so when they leave the company.
_WORK_RELATIONS = frozenset({"manager", "colleague", "mentor", "teammate", "assistant"})


def _leaves_work(new: Claim, old: Claim) -> bool:
    """ "Dana left the company" ends "Dana is the user's manager"."""
    if new.attribute != "employer" or not new.negated or not positive(old):
        return False
    if old.attribute != "family" or subject_key(old.subject) == subject_key(new.subject):
        return False
    if lx.canonical_relations(old.qualifier or "") not in _WORK_RELATIONS:
        return False
    return subject_key(new.subject) in {w.casefold() for w in old.value.split()}


def _names_known(known: Sequence[Known]) -> set[str]:
    """The names the known facts spell with a capital, inside a sentence."""
    return {
        m.group(0) for f in known for m in re.finditer(r"(?<=\s)(?-i:[A-Z])[a-z]{2,}\b", f.text)
    }


def _kin_said_to_be_none(new: Claim, old: Claim) -> bool:
    """ "My son starts school" against "has no children": the son is one of them."""
    if old.attribute != "family" or not old.negated or old.value or old.subject != "user":
        return False
    if not new.subject.startswith("user's "):
        return False
    return kin_kind(new.subject.removeprefix("user's ")) == kin_kind(old.qualifier or "")


def _match(new_claims: Sequence[Claim], known: Known) -> tuple[Match, set[int]]:
    """Relate every new claim to the known fact; return the strongest relation and which new
    claims it covers (says the same)."""
    best: Match = Match(known.fact_id, "none", "", 0.0)
    covered: set[int] = set()
    for i, new in enumerate(new_claims):
        for old in known.claims:
            if _names_a_member(new, old):
                best = Match(known.fact_id, "replaces", "died or left", 0.8)
                continue
            if _kin_said_to_be_none(new, old):
                best = Match(known.fact_id, "replaces", "a relative said to be none", CONTRADICTION)
                continue
            if _leaves_work(new, old):
                best = Match(known.fact_id, "replaces", "left the company", 0.8)
                continue
            if subject_key(new.subject) != subject_key(old.subject):
                continue
            relation, rule, confidence = relate(new, old)
            if relation == "same":
                covered.add(i)
                if best.relation == "none":
                    best = Match(known.fact_id, "same", rule, confidence)
            elif relation == "replaces" and (
                best.relation != "replaces" or confidence > best.confidence
            ):
                best = Match(known.fact_id, "replaces", rule, confidence)
    return best, covered


def reconcile(
    text: str,
    claims: Sequence[Claim],
    known: Sequence[Known],
    *,
    provenance: str = "user",
    policy: Policy | None = None,
    similarity: Mapping[str, float] | None = None,
) -> Verdict:
    """Decide what writing ``text`` (with its ``claims``) does to the ``known`` current facts.

    ``similarity`` (fact id -> cosine of the embedder) lets a fact that no claim could be read
    from still be recognised as a restatement or a contradiction by the text rules.
    """
    policy = policy or Policy()
    matches: list[Match] = []
    covered: set[int] = set()
    exact = normalise(text)
    # "can't see myself leaving" read as a bare verb says nothing a fact could hold: the
    # attributes memory knows decide, and a text with none of them falls back to its words.
    # "it's been a month since we had to put rex down", "maya moved from porto to lisbon": a
    # name memory holds, typed in lower case, is that name (the grammar reads names by their
    # capital). Claims a writer gave otherwise than the grammar reads the text (a "change" or
    # an "also" it said) are its own reading and are kept.
    specific = {i for i, c in enumerate(claims) if not _generic(c)}
    named = with_known_names(text, _names_known(known))
    if named != text and (not specific or tuple(claims) == claims_of(text)):
        claims = claims_of(named)
        specific = {i for i, c in enumerate(claims) if not _generic(c)}
    # What the text says in passing ("my brother", "cast came off"), read once for every fact.
    mentioned = mentions(text) if known else []
    for fact in known:
        if normalise(fact.text) == exact:
            matches.append(Match(fact.fact_id, "same", "same text", 1.0))
            covered.update(range(len(claims)))
            continue
        if claims and fact.claims:
            match, fact_covered = _match(claims, fact)
            covered |= fact_covered
        else:
            match = _by_text(text, fact, (similarity or {}).get(fact.fact_id, 0.0))
            if match.relation == "same":
                covered.update(range(len(claims)))
        if match.relation == "none" and (not specific or _taken_up_beside_a_verb(claims)):
            match = _loosely(text, fact)
        passing = (
            None
            if match.relation == "replaces"
            else said_in_passing(text, mentioned, fact.text, fact.claims)
        )
        if passing is not None:
            match = Match(fact.fact_id, *passing)
        matches.append(match)
    presupposed = _PRESUPPOSED.match(text) is not None
    if _CORRECTION.search(text):
        # "Actually I was born in 1991": the user corrects what memory holds, so a replacement
        # that would otherwise only contradict applies.
        matches = [_corrected(m) if m.relation == "replaces" else m for m in matches]
    elif presupposed or not any(c.change for c in claims):
        # "I've never been married" against "is married to Sam", or "I've smoked a pack a day
        # for 15 years" against "has never smoked": nothing ended, so it is no update; one of
        # the two is wrong, and a person decides which.
        # "As a high school teacher I get summers off" against "is a lawyer": said in passing,
        # as if memory knew it, so nothing is said to have changed.
        says_never = presupposed or _NEVER.search(text) is not None
        said_never = {f.fact_id for f in known if _NEVER.search(f.text)}
        matches = [
            _contradicted(m)
            if m.relation == "replaces" and (says_never or m.fact_id in said_never)
            else m
            for m in matches
        ]
    replaced = [m for m in matches if m.relation == "replaces"]
    same = [m for m in matches if m.relation == "same"]
    if replaced:
        confidence = min(m.confidence for m in replaced)
        ids = tuple(m.fact_id for m in replaced)
        rules = "; ".join(sorted({m.rule for m in replaced}))
        if confidence < policy.threshold(provenance):
            return Verdict(
                "conflict",
                conflicts_with=ids,
                confidence=confidence,
                reason=f"would replace {len(ids)} fact(s) ({rules}), not sure enough for "
                f"{provenance} facts: a person decides",
                matches=tuple(matches),
            )
        return Verdict(
            "updated",
            superseded=ids,
            confidence=confidence,
            reason=f"replaces {len(ids)} fact(s): {rules}",
            matches=tuple(matches),
            history=only_an_ending(claims, replaces=True),
        )
    if same and not specific <= covered:
        # "being veggie I always get the sad salad at weddings" against "is vegetarian": read
        # loosely it also "has a sad salad"; read as a lasting statement it only says the diet
        # memory holds.
        lasting = lasting_attributes(text)
        specific = {i for i in specific if claims[i].attribute in lasting} if lasting else specific
        if _SAID_BEFORE.match(text):
            specific = covered  # "like I said, I'm an electrician, so ...": said again
    if same and specific <= covered:
        return Verdict(
            "deduplicated",
            duplicate_of=same[0].fact_id,
            confidence=same[0].confidence,
            reason=f"says what a current fact says ({same[0].rule})",
            matches=tuple(matches),
        )
    return Verdict(
        "added",
        reason="nothing current says this" if not same else "adds to what is known",
        matches=tuple(matches),
        history=only_an_ending(claims, replaces=False),
    )


_SAID_BEFORE = re.compile(
    r"^\W*(?:(?:yeah|yes|ok|okay|so|well)\W+)?(?:like|as)\s+i\s+(?:said|mentioned|told\s+you"
    r"|say)\b",
    re.IGNORECASE,
)
_NEVER = re.compile(
    r"\bnever\b(?!\s+again\b)|\b(?:not|no\s+\w+)\s+ever\b"
    r"|\b(?:in|of|all)\s+my\s+(?:whole\s+|entire\s+)?life\b|\bmy\s+(?:whole|entire)\s+life\b"
    r"|\bsince\s+(?:birth|i\s+was\s+born)\b",
    re.IGNORECASE,
)
_PRESUPPOSED = re.compile(
    r"^\W*as\s+(?:an?\s+(?!\d)|someone\s+who|a\s+person\s+who)", re.IGNORECASE
)


_CORRECTION = re.compile(
    r"^\W*(?:actually|correction|to correct|sorry,? (?:i meant|typo|my mistake)|i meant|oops"
    r"|my mistake|i misspoke|that was wrong|no wait)\b",
    re.IGNORECASE,
)


def _corrected(match: Match) -> Match:
    if match.confidence >= CONTRADICTION + 0.1:
        return match
    return Match(match.fact_id, "replaces", f"{match.rule}, corrected", 0.85)


def _contradicted(match: Match) -> Match:
    return Match(match.fact_id, "replaces", f"{match.rule}, but says it never was", CONTRADICTION)


def only_an_ending(claims: Sequence[Claim], *, replaces: bool) -> bool:
    """Return True if claims say only what stopped being true, so they are history.

    An ending that names what it replaced ("no longer works at Zalando") is told by that
    fact's closed valid time; a past habit ("used to smoke") or an ending of a thing memory
    cannot place ("quit wayfair") says nothing current. An ending that names no value says
    how things stand now ("was laid off", "graduated"), and "no longer eats meat" with nothing
    to replace is the current diet: both stay. A home, a job or a thing left behind ("moved
    out of tampines") is history whether or not memory held it.
    """
    if not claims or any(positive(c) or not (c.change or c.past) for c in claims):
        return False
    if not all(c.value and not vague(c.value) for c in claims):
        return False
    # A past job or home is the user's story ("I was a bank teller for 5 years"); a past
    # pastime or habit is what they no longer do ("I used to play bass"), and a thing they
    # used to have is one they have no more ("the old phone was a Samsung").
    return replaces or all(
        (c.past and (family_of(c.attribute) in _PASTIMES or c.attribute in _OWNED))
        or (c.negated and c.change and c.attribute in _OWNED)  # "my old golf finally died"
        # "moved out of tampines", "resigned from Infosys": where they no longer live or work
        # is no current fact, even when memory never held it.
        or (c.negated and c.change and c.attribute in _LEFT_BEHIND and not _let_go(c))
        or c.attribute == "any"
        for c in claims
    )


_PASTIMES = frozenset(["activity", "likes"])
_OWNED = frozenset(["phone", "computer", "vehicle"])
_LEFT_BEHIND = frozenset(["residence", "employer", "job", "possession"])


def _let_go(claim: Claim) -> bool:
    """ "got laid off from the Teleperformance call center": how things stand now (out of
    work, and from where), not a job the user chose to leave behind."""
    return claim.qualifier in ("laid off", "fired", "let go", "sacked", "made redundant")


def _taken_up_beside_a_verb(claims: Sequence[Claim]) -> bool:
    """ "haven't touched my violin in two years, it's all pottery now": a pastime taken up
    beside a bare verb about what was dropped, which the text rules read against each fact."""
    taken = [c for c in claims if not _generic(c)]
    return (
        len(taken) < len(claims)
        and bool(taken)
        and all(c.change and family_of(c.attribute) in _PASTIMES for c in taken)
    )


def _generic(claim: Claim) -> bool:
    """A claim of a bare verb or state, or a meal, which no rule relates to a fact's
    attribute but by what it eats."""
    return claim.attribute.startswith("verb:") or claim.attribute in ("state", "meal")


def _loosely(text: str, fact: Known) -> Match:
    """The last resort for a text no specific claim was read from (see ``loose_match``)."""
    relation = loose_relation(text, fact.text, frozenset(c.attribute for c in fact.claims))
    if relation == "same":
        return Match(fact.fact_id, "same", "names it again", 0.6)
    if relation == "replaces":
        return Match(fact.fact_id, "replaces", "names it with a change", 0.6)
    return Match(fact.fact_id, "none", "", 0.0)


def _by_text(text: str, fact: Known, cosine: float) -> Match:
    """The text rules, for a fact no claim could be read from."""
    judgement = judge_pair(text, fact.text, cosine)
    if judgement.duplicate:
        return Match(fact.fact_id, "same", f"text: {judgement.reason}", judgement.similarity)
    if judgement.conflict and _leading_names(text) == _leading_names(fact.text):
        return Match(fact.fact_id, "replaces", f"text: {judgement.reason}", 0.6)
    return Match(fact.fact_id, "none", "", 0.0)


def _leading_names(text: str) -> tuple[str, ...]:
    """The capitalised words a text starts with (who it is about, roughly)."""
    words = text.split()
    names = []
    for word in words[1:] if words and words[0] in ("The", "A", "An") else words:
        if not word[:1].isupper():
            break
        names.append(word.strip(".,'s").casefold())
    return tuple(names)


__all__ = [
    "RULES_ID",
    "Known",
    "Match",
    "Outcome",
    "Policy",
    "Relation",
    "Verdict",
    "claims_of",
    "contradiction",
    "match_values",
    "only_an_ending",
    "reconcile",
    "subject_key",
    "value_key",
]
