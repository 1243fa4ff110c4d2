"""The embedded default extractor: durable self-statements from user messages, offline.

Used when no ``[llm]`` is configured, so a retrospective works end to end out of the box. It
answers a completion request the way a model would: one ``remember`` tool call per statement
it finds ("I live in…", "my sister is…", "I prefer…", "I work as…", "my favourite…"), or the
exact reply "Nothing new to save.". Only user messages are read; questions, conditionals and
negated statements are passed over. Every fact it writes carries the tag
``extractor:<EXTRACTOR_ID>`` so it is clear which extractor wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from plugins.llm.types import Completion, CompletionRequest, ToolCall, TranscriptEntry, Usage

EXTRACTOR_NAME = "offline-extractor"
EXTRACTOR_ID = "selfstatements-v1"
EXTRACTOR_TAG = f"extractor:{EXTRACTOR_ID}"
NOTHING_NEW = "Nothing new to save."

_RELATIONS = (
    "sister|brother|mother|mom|mum|father|dad|wife|husband|partner|boyfriend|girlfriend|son|"
    "daughter|child|kid|friend|best friend|boss|manager|colleague|cousin|aunt|uncle|"
    "grandmother|grandfather|grandma|grandpa|dog|cat|pet|roommate|flatmate|fiancee|fiance"
)
# A value: up to the end of the clause, at most 80 characters.
_VALUE = r"(?P<value>[^,;.!?\n]{1,80}?)"
_END = r"\s*(?:$|[,;.!?\n]|\s(?:and|but|because|so|since|though)\s)"
_BAD_START = re.compile(r"^\s*(?:if|when|whether|suppose|imagine|maybe|what if)\b", re.I)
_NEGATION = re.compile(r"\b(?:not|never|no longer|n't)\b", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
# A value that starts like this refers to something outside the statement ("I like that").
_VAGUE_VALUE = re.compile(
    r"^(?:it|that|this|these|those|them|you|your|to|how|what|when|where|which|who|here|there"
    r"|doing|being|having|the idea|the way)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    render: Callable[[re.Match[str]], str]
    importance: float


def _p(kind: str, pattern: str, render: Callable[[re.Match[str]], str], imp: float) -> _Pattern:
    return _Pattern(kind, re.compile(pattern + _END, re.I), render, imp)


def _v(match: re.Match[str]) -> str:
    return match.group("value").strip()


PATTERNS: tuple[_Pattern, ...] = (
    _p("name", r"\bmy name is " + _VALUE, lambda m: f"The user's name is {_v(m)}.", 0.9),
    _p(
        "name",
        r"\b(?:please )?call me " + _VALUE,
        lambda m: f"The user likes to be called {_v(m)}.",
        0.8,
    ),
    _p(
        "residence",
        r"\bi(?: now)?(?: currently)? live (?:in|at|near) " + _VALUE,
        lambda m: f"The user lives in {_v(m)}.",
        0.8,
    ),
    _p(
        "residence",
        r"\bi(?:'ve| have) (?:just )?moved to " + _VALUE,
        lambda m: f"The user moved to {_v(m)}.",
        0.8,
    ),
    _p(
        "origin",
        r"\bi(?: am|'m) (?:originally )?from " + _VALUE,
        lambda m: f"The user is from {_v(m)}.",
        0.7,
    ),
    _p("origin", r"\bi was born in " + _VALUE, lambda m: f"The user was born in {_v(m)}.", 0.7),
    _p(
        "work",
        r"\bi work (?:as|as an?) " + _VALUE,
        lambda m: f"The user works as {_article(_v(m))}.",
        0.8,
    ),
    _p("work", r"\bi work (?:at|for) " + _VALUE, lambda m: f"The user works at {_v(m)}.", 0.8),
    _p(
        "work",
        r"\bi(?: am|'m) an? (?P<value>[^,;.!?\n]{1,60}?) by (?:profession|trade)",
        lambda m: f"The user works as {_article(_v(m))}.",
        0.8,
    ),
    _p(
        "relation",
        rf"\bmy (?P<rel>{_RELATIONS})(?:'s name)? (?:is|'s) (?:called |named )?" + _VALUE,
        lambda m: f"The user's {m.group('rel').lower()} is {_v(m)}.",
        0.7,
    ),
    _p(
        "relation",
        rf"\bmy (?P<rel>{_RELATIONS}) (?P<verb>lives|works|studies) (?P<prep>in|at|as) " + _VALUE,
        lambda m: (
            f"The user's {m.group('rel').lower()} {m.group('verb').lower()} "
            f"{m.group('prep').lower()} {_v(m)}."
        ),
        0.6,
    ),
    _p(
        "preference",
        r"\bmy (?:favourite|favorite) (?P<what>[a-z ]{1,30}?) is " + _VALUE,
        lambda m: f"The user's favourite {m.group('what').strip().lower()} is {_v(m)}.",
        0.6,
    ),
    _p("preference", r"\bi prefer " + _VALUE, lambda m: f"The user prefers {_v(m)}.", 0.6),
    _p(
        "preference",
        r"\bi (?:really )?(?:love|like|enjoy) " + _VALUE,
        lambda m: f"The user likes {_v(m)}.",
        0.4,
    ),
    _p(
        "preference",
        r"\bi (?:really )?(?:hate|dislike|can't stand) " + _VALUE,
        lambda m: f"The user dislikes {_v(m)}.",
        0.5,
    ),
    _p(
        "health",
        r"\bi(?: am|'m) allergic to " + _VALUE,
        lambda m: f"The user is allergic to {_v(m)}.",
        0.9,
    ),
    _p(
        "diet",
        r"\bi(?: am|'m) (?:a )?(?P<value>vegetarian|vegan|pescatarian|lactose intolerant|coeliac"
        r"|celiac|diabetic)",
        lambda m: f"The user is {_v(m).lower()}.",
        0.8,
    ),
    _p(
        "birthday", r"\bmy birthday is " + _VALUE, lambda m: f"The user's birthday is {_v(m)}.", 0.8
    ),
    _p("language", r"\bi speak " + _VALUE, lambda m: f"The user speaks {_v(m)}.", 0.5),
)


def _article(value: str) -> str:
    if re.match(r"^(?:an?|the)\s", value, re.I):
        return value
    return f"an {value}" if value[:1].lower() in "aeiou" else f"a {value}"


@dataclass(frozen=True, slots=True)
class Statement:
    """One self-statement found in a message."""

    text: str
    kind: str
    importance: float
    message_id: str


def _ok_sentence(sentence: str) -> bool:
    stripped = sentence.strip()
    if not stripped or stripped.endswith("?"):
        return False
    return _BAD_START.search(stripped) is None


def extract_statements(entries: Iterable[TranscriptEntry]) -> list[Statement]:
    """Return the durable self-statements of the user messages, first occurrence only."""
    found: list[Statement] = []
    seen: set[str] = set()
    for entry in entries:
        if entry.role != "user":
            continue
        for sentence in _SENTENCE.findall(entry.text):
            if not _ok_sentence(sentence):
                continue
            for pattern in PATTERNS:
                for match in pattern.regex.finditer(sentence):
                    if _NEGATION.search(sentence[: match.start()][-12:] + match.group(0)):
                        continue
                    if "value" in match.groupdict() and _VAGUE_VALUE.match(_v(match)):
                        continue
                    text = pattern.render(match)
                    key = text.casefold()
                    if key in seen:
                        continue
                    seen.add(key)
                    found.append(
                        Statement(text, pattern.kind, pattern.importance, entry.message_id)
                    )
    return found


class SelfStatementExtractor:
    """An offline provider: answers with ``remember`` calls built from self-statements."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self._config = dict(config or {})

    def __repr__(self) -> str:
        return f"SelfStatementExtractor(id={EXTRACTOR_ID!r})"

    @property
    def name(self) -> str:
        """Return the provider name."""
        return EXTRACTOR_NAME

    @property
    def model(self) -> str:
        """Return the extractor id recorded with what it writes."""
        return f"{EXTRACTOR_NAME}/{EXTRACTOR_ID}"

    async def complete(self, request: CompletionRequest) -> Completion:
        """Answer with one ``remember`` call per statement, or "Nothing new to save."."""
        if not any(t.name == "remember" for t in request.tools):
            return Completion(text=NOTHING_NEW, model=self.model)
        statements = extract_statements(request.transcript)
        calls = tuple(
            ToolCall(
                call_id=f"extract_{i}",
                name="remember",
                arguments={
                    "text": s.text,
                    "tags": [EXTRACTOR_TAG, s.kind],
                    "importance": s.importance,
                },
            )
            for i, s in enumerate(statements)
        )
        return Completion(
            text="" if calls else NOTHING_NEW,
            tool_calls=calls,
            usage=Usage(),
            model=self.model,
            stop_reason="tool_use" if calls else "end_turn",
        )

    async def aclose(self) -> None:
        """Nothing to release."""
