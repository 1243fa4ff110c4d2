"""One review: the transcript budget, the request to the model, and judging its answer.

- Transcript budget: a message longer than ``max_chars`` is tail-truncated (its beginning is
  kept) and the truncation recorded; a slice longer than ``max_chars`` is split in halves,
  recursively, into chunks that each fit, and each chunk is one model call.
- The answer counts only on positive evidence: at least one valid ``remember`` call, or the
  exact reply "Nothing new to save.". Anything else is ``no_usable_output``.
- A remembered text that looks like a prompt injection is flagged, and its fact stays
  quarantined whatever the auto-promotion setting says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from daemon.retrospective.prompt import NOTHING_NEW, escape_block_text, render_prompt
from plugins.gates.noise import noise_kind
from plugins.llm.remember import ALSO, CHANGED, REMEMBER_TOOL
from plugins.llm.types import (
    ChatMessage,
    Completion,
    CompletionRequest,
    TranscriptEntry,
)
from projections.text import normalise

MAX_FACT_CHARS = 2000
MAX_TAGS = 20
MAX_TAG_CHARS = 100
TRUNCATION_MARK = " [...truncated]"

_OPTIONAL_TEXT = ("subject", "predicate", "object", "when", "replaces", "change")
MAX_FIELD_CHARS = 300

_INJECTION = re.compile(
    r"ignore (?:all |any |the )?(?:previous|prior|above|earlier) (?:instructions|rules)"
    r"|disregard (?:all |any |the )?(?:previous|prior|above) "
    r"|system prompt|you are now |new instructions|</?(?:system|assistant|tool)\b"
    r"|<\|im_(?:start|end)\|>|\bjailbreak\b|do anything now",
    re.I,
)


class NoUsableOutput(Exception):
    """The model answered without positive evidence (no valid remember, not the exact reply)."""


@dataclass(frozen=True, slots=True)
class SliceMessage:
    """One message of the slice, with its text."""

    message_id: str
    role: str
    text: str
    created_at: datetime
    context: bool = False
    """Said before the slice (see ``TranscriptEntry.context``)."""


@dataclass(frozen=True, slots=True)
class Transcript:
    """The slice cut to the budget: chunks of messages and what was truncated."""

    chunks: list[list[SliceMessage]]
    truncated: list[dict[str, Any]]


def _render(message: SliceMessage) -> str:
    return f"[{message.message_id}] {message.role}: {message.text}"


def fit_transcript(messages: Sequence[SliceMessage], max_chars: int) -> Transcript:
    """Tail-truncate single oversized messages, then halve the slice until each chunk fits."""
    truncated: list[dict[str, Any]] = []
    fitted: list[SliceMessage] = []
    for message in messages:
        overhead = len(_render(message)) - len(message.text)
        room = max_chars - overhead - len(TRUNCATION_MARK)
        if len(_render(message)) > max_chars:
            kept = message.text[: max(room, 0)]
            truncated.append(
                {
                    "message_id": message.message_id,
                    "original_chars": len(message.text),
                    "kept_chars": len(kept),
                }
            )
            message = SliceMessage(
                message.message_id, message.role, kept + TRUNCATION_MARK, message.created_at
            )
        fitted.append(message)
    return Transcript(chunks=_halve(fitted, max_chars), truncated=truncated)


def _size(messages: Sequence[SliceMessage]) -> int:
    return sum(len(_render(m)) + 1 for m in messages)


def _halve(messages: list[SliceMessage], max_chars: int) -> list[list[SliceMessage]]:
    if len(messages) <= 1 or _size(messages) <= max_chars:
        return [messages] if messages else []
    middle = len(messages) // 2
    return _halve(messages[:middle], max_chars) + _halve(messages[middle:], max_chars)


def window_anchor(
    conversation_id: str, chunk: Sequence[SliceMessage], part: int, parts: int
) -> str:
    """Say which part of which conversation the model is reading."""
    first, last = chunk[0], chunk[-1]
    return (
        f"You are reading messages {first.message_id} to {last.message_id} of conversation "
        f"{conversation_id} (part {part} of {parts}), written between "
        f"{first.created_at.isoformat()} and {last.created_at.isoformat()}."
    )


@dataclass(frozen=True, slots=True)
class Profile:
    """How the model is asked: a model, thinking budget and effort (None: the provider's)."""

    model: str | None = None
    thinking: int | None = None
    effort: str | None = None


def build_request(
    template: str,
    conversation_id: str,
    chunk: Sequence[SliceMessage],
    part: int,
    parts: int,
    remembered: Sequence[str],
    max_tokens: int | None = None,
    profile: Profile | None = None,
    context: Sequence[SliceMessage] = (),
) -> CompletionRequest:
    """Assemble the request for one chunk (``context``: the messages just before it, which
    an offline extractor reads for names and pronouns)."""
    system = render_prompt(
        template,
        window_anchor=window_anchor(conversation_id, chunk, part, parts),
        remembered=remembered,
    )
    body = "\n".join(escape_block_text(_render(m)) for m in chunk)
    user = f"<transcript>\n{body}\n</transcript>"
    return CompletionRequest(
        system=system,
        messages=[ChatMessage("user", user)],
        tools=[REMEMBER_TOOL],
        transcript=[
            *(TranscriptEntry(m.message_id, m.role, m.text, context=True) for m in context),
            *(TranscriptEntry(m.message_id, m.role, m.text) for m in chunk),
        ],
        max_tokens=max_tokens,
        model=None if profile is None else profile.model,
        thinking=None if profile is None else profile.thinking,
        effort=None if profile is None else profile.effort,
    )


@dataclass(frozen=True, slots=True)
class Remembered:
    """One accepted ``remember`` call."""

    text: str
    tags: list[str]
    importance: float
    injection: bool
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    source_message_ids: tuple[str, ...] = ()
    when: str | None = None
    replaces: str | None = None
    change: str | None = None


@dataclass(slots=True)
class Judgement:
    """What one or more answers amount to."""

    accepted: list[Remembered] = field(default_factory=list)
    duplicates: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)
    nothing_new: int = 0
    gated: list[dict[str, Any]] = field(default_factory=list)
    """Messages the ingest gate kept from the extractor (``message_id``, ``reason``)."""


def _check_remember(arguments: Any) -> tuple[Remembered | None, str | None]:
    if not isinstance(arguments, dict):
        return None, "arguments are not an object"
    unknown = sorted(
        set(arguments) - {"text", "tags", "importance", "source_message_ids", *_OPTIONAL_TEXT}
    )
    if unknown:
        return None, f"unknown argument {unknown[0]!r}"
    text = arguments.get("text")
    if not isinstance(text, str) or not text.strip():
        return None, "text is missing or empty"
    text = " ".join(text.split())
    if len(text) > MAX_FACT_CHARS:
        return None, f"text is longer than {MAX_FACT_CHARS} characters"
    tags = arguments.get("tags", [])
    if tags is None:
        tags = []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return None, "tags must be a list of strings"
    tags = [t.strip()[:MAX_TAG_CHARS] for t in tags if t.strip()][:MAX_TAGS]
    importance = arguments.get("importance", 0.5)
    if importance is None:
        importance = 0.5
    if isinstance(importance, bool) or not isinstance(importance, int | float):
        return None, "importance must be a number"
    if not 0 <= importance <= 1:
        return None, "importance must be between 0 and 1"
    optional: dict[str, str | None] = {}
    for name in _OPTIONAL_TEXT:
        value = arguments.get(name)
        if value is not None and not isinstance(value, str):
            return None, f"{name} must be a string"
        optional[name] = " ".join(value.split())[:MAX_FIELD_CHARS] if value else None
    if optional["change"] not in (None, CHANGED, ALSO):
        return None, f"change must be {CHANGED!r} or {ALSO!r}"
    sources = arguments.get("source_message_ids") or []
    if not isinstance(sources, list) or not all(isinstance(m, str) for m in sources):
        return None, "source_message_ids must be a list of strings"
    injection = _INJECTION.search(text) is not None
    return (
        Remembered(
            text,
            tags,
            float(importance),
            injection,
            subject=optional["subject"],
            predicate=optional["predicate"],
            object=optional["object"],
            when=optional["when"],
            replaces=optional["replaces"],
            change=optional["change"],
            source_message_ids=tuple(dict.fromkeys(m for m in sources if m))[:50],
        ),
        None,
    )


def judge(
    completion: Completion, seen: set[str], judgement: Judgement, noise_filters: str = "none"
) -> bool:
    """Fold one answer into ``judgement``; return True if it holds positive evidence.

    ``seen`` holds the normalised texts already remembered (this conversation's log and this
    run's earlier chunks); a repeat is a valid call that writes nothing. A text that is only
    noise (``noise_filters``: a greeting, an acknowledgement, tool chatter) is a valid call
    that never becomes a fact: it is rejected with the kind of noise it is.
    """
    positive = False
    for call in completion.tool_calls:
        if call.name != "remember":
            judgement.rejected.append({"tool": call.name, "reason": "unknown tool"})
            continue
        remembered, problem = _check_remember(call.arguments)
        if remembered is None:
            judgement.rejected.append({"tool": call.name, "reason": problem})
            continue
        positive = True
        noise = noise_kind(remembered.text, noise_filters)
        if noise is not None:
            judgement.rejected.append(
                {"tool": call.name, "reason": f"noise: {noise}", "text": remembered.text}
            )
            continue
        key = normalise(remembered.text)
        if key in seen:
            judgement.duplicates += 1
            continue
        seen.add(key)
        judgement.accepted.append(remembered)
    if not completion.tool_calls and completion.text.strip() == NOTHING_NEW:
        judgement.nothing_new += 1
        positive = True
    return positive
