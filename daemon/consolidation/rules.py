"""The deterministic rules of consolidation: text normalisation, the ingest gate's patterns,
decay and salience, and the no-model duplicate and conflict detectors.

Everything here is a pure function of its arguments (no clock, no store, no model), so the
phases, the API and the benchmark share one definition of each rule.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from plugins.extractors.claims import parse
from plugins.gates.injection import scan
from projections.facts import subject_key
from projections.text import normalise as normalise

# -- normalisation ---------------------------------------------------------------------------

# ``normalise`` (width, case, apostrophes, punctuation, whitespace folded) is
# projections.text's, shared with the projection that keys exact duplicates by it.
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(text: str) -> list[str]:
    """Return the lower-cased words of ``text`` (apostrophes kept inside a word)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'"))


# -- ingest gate -----------------------------------------------------------------------------

# The prompt-injection patterns live with the ingest gates (plugins.gates.injection), so the
# offline extractor skips the turns they flag; the gate's other rules are here.
UNTRUSTED_PROVENANCES: frozenset[str] = frozenset({"tool", "imported"})
"""Provenances whose facts always enter quarantined and are flagged by the gate."""


def gate_flags(text: str, provenance: str) -> list[str]:
    """Return every reason the ingest gate has to quarantine a fact."""
    flags = scan(text)
    if provenance in UNTRUSTED_PROVENANCES:
        flags.append(f"untrusted_provenance:{provenance}")
    return flags


# -- decay and salience ----------------------------------------------------------------------


def strength(recalls: int, reinforcements: int) -> float:
    """Return a fact's memory strength: 1 at first, rising with recalls and reinforcements."""
    return 1.0 + 0.5 * math.log1p(max(0, recalls)) + 0.5 * math.log1p(max(0, reinforcements))


def retention(days: float, tau_days: float, strength_value: float) -> float:
    """``exp(-days / (tau_days * max(0.5, strength)))`` (1 for a fact from the future)."""
    return math.exp(-max(0.0, days) / (tau_days * max(0.5, strength_value)))


def importance_factor(importance: float) -> float:
    """0.5 for importance 0, 1 at the default 0.5, 1.5 at 1."""
    return 0.5 + min(1.0, max(0.0, importance))


TRUST_FACTORS: dict[str, float] = {
    "user": 1.0,
    "tool": 0.8,
    "extraction": 0.8,
    "reflection": 0.7,
    "imported": 0.9,
}


def trust_factor(provenance: str, status: str, confidence: float) -> float:
    """Lower for quarantined and less trusted provenances, scaled by confidence."""
    base = TRUST_FACTORS.get(provenance, 0.8)
    if status == "quarantined":
        base *= 0.7
    return base * (0.5 + 0.5 * min(1.0, max(0.0, confidence)))


def salience(
    *,
    days: float,
    tau_days: float,
    recalls: int,
    reinforcements: int,
    importance: float,
    provenance: str,
    status: str,
    confidence: float,
    weights: tuple[float, float, float] = (1.0, 1.0, 1.0),
) -> float:
    """retention x importance factor x trust factor, each raised to its weight (recency,
    importance, trust)."""
    factors = (
        retention(days, tau_days, strength(recalls, reinforcements)),
        importance_factor(importance),
        trust_factor(provenance, status, confidence),
    )
    return math.prod(math.pow(f, w) for f, w in zip(factors, weights, strict=True))


# -- duplicates and conflicts (no model) -----------------------------------------------------

_STOPWORDS = """
a an the of to in on at for and or but is are was were be been being am i my me we our you
your he she it its they them their his her this that these those with as by from has have had
do does did so very really just also
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORDS.split())
_NEGATIONS = """
not no never none nobody nothing neither nor isn't aren't wasn't weren't don't doesn't didn't
can't cannot won't wouldn't shouldn't hasn't haven't hadn't stopped quit
"""
NEGATIONS: frozenset[str] = frozenset(_NEGATIONS.split())
_ANTONYMS = """
like/dislike likes/dislikes loves/hates love/hate liked/disliked enjoys/hates prefers/avoids
allergic/tolerant vegetarian/carnivore married/single married/divorced alive/dead open/closed
early/late morning/evening morning/night summer/winter older/younger bigger/smaller more/less
always/never true/false yes/no left/right introvert/extrovert remote/office north/south
east/west first/last up/down hot/cold old/new start/end starts/ends passed/failed good/bad
won/lost right/wrong light/heavy tall/short enjoys/dreads likes/hates likes/avoids
"""
ANTONYMS: tuple[frozenset[str], ...] = tuple(frozenset(p.split("/")) for p in _ANTONYMS.split())
_NUMBER = re.compile(r"^\d+(?:[.,:]\d+)*$")
_ORDERED = frozenset({"to", "than", "over", "before", "after", "from", "into"})


def content_words(text: str) -> list[str]:
    """Return the words that carry meaning (stopwords and negations out)."""
    return [w for w in words(text) if w not in STOPWORDS and w not in NEGATIONS]


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    """Return the Jaccard similarity of two word lists (1 for two empty ones)."""
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _stems(ws: Sequence[str]) -> list[str]:
    return [w if _NUMBER.match(w) else _stem(w) for w in ws]


def negated(text: str) -> bool:
    """Return True if ``text`` holds a negation word ("a no-go" or "a no-brainer" is none)."""
    text = re.sub(r"\bno-(?=\w)", "", text, flags=re.IGNORECASE)
    return any(w in NEGATIONS or w.endswith("n't") for w in words(text))


def about_different_people(
    a: str, b: str, subject_a: str | None = None, subject_b: str | None = None
) -> bool:
    """Whether two fact texts are about different people (or pets, or things of theirs): each
    subject given, or else read from the text by the statement grammar."""
    keys_a = {subject_key(subject_a)} if subject_a else _subjects(a)
    keys_b = {subject_key(subject_b)} if subject_b else _subjects(b)
    if not keys_a or not keys_b or keys_a & keys_b:
        return False
    # The grammar misses some subjects ("Emma is Carla's daughter" is about Carla's daughter
    # too), so a subject the other text names at all counts as shared.
    return not any(_names(key, b) for key in keys_a) and not any(_names(key, a) for key in keys_b)


_FIRST_PERSON = re.compile(r"\b(?:user|users|user's|i|i'm|i've|me|my|mine)\b", re.IGNORECASE)


def _names(key: str, text: str) -> bool:
    if key == "user":
        return _FIRST_PERSON.search(text) is not None
    return re.search(rf"(?<!\w){re.escape(key)}(?!\w)", text.casefold()) is not None


@lru_cache(maxsize=4096)
def _subjects(text: str) -> frozenset[str]:
    return frozenset(subject_key(claim.subject) for claim in parse(text, fact_text=True))


@dataclass(frozen=True, slots=True)
class PairJudgement:
    """What the deterministic rules say about two facts."""

    duplicate: bool
    conflict: bool
    similarity: float
    reason: str


DUPLICATE_COSINE = 0.95


def judge_pair(
    a: str,
    b: str,
    cosine: float,
    *,
    duplicate_cosine: float = DUPLICATE_COSINE,
    conflict_overlap: float = 0.5,
    triple_a: tuple[str | None, str | None, str | None] = (None, None, None),
    triple_b: tuple[str | None, str | None, str | None] = (None, None, None),
) -> PairJudgement:
    """Judge two fact texts with the no-model rules.

    Duplicate: equal normalised text, or ``cosine >= duplicate_cosine`` *and* no conflict signal.
    Conflict: the same (subject, predicate) with different objects; or content words that
    overlap at least ``conflict_overlap`` while one side is negated and the other is not, an
    antonym pair differs, or a number differs.
    """
    if normalise(a) == normalise(b):
        return PairJudgement(True, False, 1.0, "exact")
    sa, pa, oa = triple_a
    sb, pb, ob = triple_b
    if about_different_people(a, b, sa, sb):
        # "Bob is 35" and "Carol is 40" neither repeat nor contradict each other.
        return PairJudgement(False, False, cosine, "different subjects")
    if (
        (
            sa
            and pa
            and sb
            and pb
            and normalise(sa) == normalise(sb)
            and normalise(pa) == normalise(pb)
        )
        and oa
        and ob
        and normalise(oa) != normalise(ob)
    ):
        return PairJudgement(False, True, cosine, "same subject and predicate, other object")
    raw_a, raw_b = content_words(a), content_words(b)
    wa, wb = _stems(raw_a), _stems(raw_b)
    only_a, only_b = set(raw_a) - set(raw_b), set(raw_b) - set(raw_a)
    conflict_reason = ""
    if jaccard(wa, wb) >= conflict_overlap and negated(a) != negated(b):
        conflict_reason = "negation"
    elif (
        raw_a != raw_b
        and sorted(raw_a) == sorted(raw_b)
        and _ORDERED & set(words(a))
        and words(a) != words(b)
    ):
        conflict_reason = "word order"  # "prefers cats to dogs" / "prefers dogs to cats"
    elif any(("un" + x) in only_b for x in only_a) or any(("un" + y) in only_a for y in only_b):
        conflict_reason = "negation"
    else:
        swapped = [
            (x, y)
            for x in sorted(only_a)
            for y in sorted(only_b)
            if any(x in pair and y in pair and x != y for pair in ANTONYMS)
            or (_NUMBER.match(x) and _NUMBER.match(y))
        ]
        if swapped:
            x, y = swapped[0]
            rest_a = _stems([w for w in raw_a if w != x])
            rest_b = _stems([w for w in raw_b if w != y])
            if rest_a and jaccard(rest_a, rest_b) >= conflict_overlap:
                conflict_reason = "number" if _NUMBER.match(x) else "antonym"
    if conflict_reason:
        return PairJudgement(False, True, cosine, conflict_reason)
    if cosine >= duplicate_cosine:
        return PairJudgement(True, False, cosine, "embedding")
    return PairJudgement(False, False, cosine, "")
