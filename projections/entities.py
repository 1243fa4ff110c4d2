"""A deterministic entity extractor: names, capitalised phrases and quoted titles.

No model and no dictionary beyond a short list of capitalised words that are not names
(greetings, pronouns, weekdays used as words...). It runs inside the search projection's fold,
so it must stay a pure function of the text: the same text always gives the same entities.

Canonical merges: every surface form maps to one key, so "Dr. Alice Smith's", "alice smith"
and "Alice  Smith" are one entity. The key is the form without diacritics, case, a possessive
``'s``, a leading article or honorific, and extra spaces or punctuation.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_QUOTE_MARKS = '"\u201c\u201d\u00ab\u00bb'
_QUOTED = re.compile(f"[{_QUOTE_MARKS}]([^{_QUOTE_MARKS}\\n]{{2,80}})[{_QUOTE_MARKS}]")
_TOKEN = re.compile(r"[\w][\w'\u2019.-]*", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?:;\n]\s*$")
_CONNECTORS = frozenset({"of", "the", "de", "da", "van", "von", "del", "la"})
_HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam", "mx"})
_ARTICLES = frozenset({"the", "a", "an"})
MAX_ENTITY_WORDS = 6

NOT_NAMES = frozenset(
    [
        "i",
        "i'm",
        "i've",
        "i'd",
        "i'll",
        "im",
        "ive",
        "id",
        "ill",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "you",
        "your",
        "yours",
        "he",
        "him",
        "his",
        "she",
        "her",
        "hers",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "yes",
        "yeah",
        "yep",
        "no",
        "nope",
        "not",
        "ok",
        "okay",
        "oh",
        "ah",
        "hey",
        "hi",
        "hello",
        "bye",
        "goodbye",
        "thanks",
        "thank",
        "please",
        "sorry",
        "wow",
        "cool",
        "great",
        "good",
        "nice",
        "awesome",
        "sure",
        "well",
        "so",
        "but",
        "and",
        "or",
        "if",
        "then",
        "also",
        "just",
        "really",
        "maybe",
        "absolutely",
        "definitely",
        "totally",
        "amazing",
        "haha",
        "lol",
        "hmm",
        "anyway",
        "btw",
        "actually",
        "honestly",
        "congrats",
        "congratulations",
        "glad",
        "happy",
        "love",
        "agreed",
        "right",
        "true",
        "exactly",
        "indeed",
        "of",
        "course",
        "the",
        "a",
        "an",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "with",
        "by",
        "about",
        "as",
        "into",
        "after",
        "before",
        "during",
        "since",
        "until",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "am",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "let",
        "let's",
        "lets",
        "all",
        "any",
        "some",
        "each",
        "every",
        "both",
        "either",
        "neither",
        "one",
        "two",
        "three",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "today",
        "tomorrow",
        "yesterday",
        "tonight",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "mom",
        "dad",
        "mum",
        "mother",
        "father",
    ]
)
"""Capitalised words that are not taken as names on their own."""


@dataclass(frozen=True, slots=True)
class Entity:
    """One extracted entity: its canonical key and the surface form first seen."""

    key: str
    display: str


def strip_diacritics(text: str) -> str:
    """Return ``text`` without combining marks (é -> e)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def canonical_key(surface: str) -> str:
    """Return the merge key of a surface form ("" if nothing name-like is left)."""
    text = strip_diacritics(surface).casefold().replace("\u2019", "'")
    text = re.sub(r"'s\b", "", text)
    words = re.findall(r"[\w&]+", text)
    while words and (words[0] in _ARTICLES or words[0] in _HONORIFICS):
        words = words[1:]
    return " ".join(words)


def _clean(token: str) -> str:
    return token.rstrip(".'\u2019-").removesuffix("'s").removesuffix("\u2019s")


def _ends_sentence(text: str, end: int) -> bool:
    """Return whether ``text[:end]`` ends a sentence: ``[.!?:;\\n]\\s*$`` without copying it.

    (Searching that pattern in the prefix before every token was quadratic in the length of
    the text.)"""
    i = end
    while i > 0 and text[i - 1].isspace():
        i -= 1
        if text[i] == "\n":
            return True
    return i > 0 and text[i - 1] in ".!?:;"


def extract_entities(text: str) -> list[Entity]:
    """Return the distinct entities of ``text`` in order of first appearance."""
    found: dict[str, Entity] = {}

    def add(surface: str) -> None:
        surface = surface.strip()
        key = canonical_key(surface)
        if not key or key in NOT_NAMES or len(key) < 2:
            return
        if key not in found:
            found[key] = Entity(key=key, display=surface)

    for match in _QUOTED.finditer(text):
        inner = match.group(1).strip()
        if 0 < len(inner.split()) <= 8:
            add(inner)

    tokens = list(_TOKEN.finditer(text))
    run: list[str] = []

    def flush() -> None:
        nonlocal run
        words = [w for w in (_clean(t) for t in run) if w]
        run = []
        # Greetings and pronouns that open a run are not part of the name ("Hey Mel" -> Mel).
        while words and (words[0].casefold() in NOT_NAMES or words[0].casefold() in _CONNECTORS):
            words = words[1:]
        while words and words[-1].casefold() in _CONNECTORS:
            words = words[:-1]
        if words:
            add(" ".join(words[:MAX_ENTITY_WORDS]))

    # Whether a token starts a sentence matters only while a run is open (never for the first).
    for match in tokens:
        token = match.group(0)
        if token[0].isupper():
            if run and _ends_sentence(text, match.start()):
                flush()
            run.append(token)
        elif run:
            if token.casefold() in _CONNECTORS and not _ends_sentence(text, match.start()):
                run.append(token)
            else:
                flush()
    flush()
    return list(found.values())
