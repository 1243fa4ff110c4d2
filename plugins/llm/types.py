"""What an LLM provider takes and gives back, and how its failures are classified.

Every provider (a remote Chat Completions or Messages API, or the offline extractor) answers
one :class:`CompletionRequest` with one :class:`Completion`, or raises :class:`LLMError` whose
``kind`` tells the caller what to do: ``rate_limit`` and ``server`` and ``timeout`` are worth
retrying later (``retry_after`` when the server said so), ``bad_request`` will fail again as
it is, and ``bad_output`` means the model answered with something unusable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

ErrorKind = Literal["rate_limit", "server", "timeout", "bad_request", "bad_output", "budget"]
ERROR_KINDS: tuple[str, ...] = (
    "rate_limit",
    "server",
    "timeout",
    "bad_request",
    "bad_output",
    "budget",
)
ChatRole = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool the model may call: a name, what it is for, and a JSON Schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One turn of the request (the system prompt travels separately)."""

    role: ChatRole
    content: str


@dataclass(frozen=True, slots=True)
class TranscriptEntry:
    """One message of the reviewed slice, structured (offline extractors read this)."""

    message_id: str
    role: str
    text: str
    context: bool = False
    """Said before the slice and reviewed already: read for who and what is meant (a name, a
    pronoun, a question being answered), never remembered from again."""


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    """A request: system prompt, turns, tools and, for local extractors, the raw transcript."""

    system: str
    messages: Sequence[ChatMessage]
    tools: Sequence[ToolSpec] = ()
    transcript: Sequence[TranscriptEntry] = ()
    max_tokens: int | None = None
    model: str | None = None
    """The model to ask instead of the provider's configured one (a conversation's own).
    Remote providers send it; a local extractor has no models and ignores it."""
    thinking: int | None = None
    """Extended thinking as the conversation asked for it: a token budget, 0 for off (None:
    the provider's default). The Anthropic provider sends it; others have no such setting."""
    effort: str | None = None
    """Reasoning effort as the conversation asked for it (``low`` / ``medium`` / ``high``;
    None: the provider's default). The OpenAI-compatible provider sends it."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the model made, with its arguments parsed from JSON."""

    call_id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens the provider reported for one call."""

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Return input plus output tokens."""
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class Completion:
    """The model's answer: its text, its tool calls, usage and the model that wrote it."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    stop_reason: str | None = None


class LLMError(Exception):
    """A classified provider failure; never carries the API key or request headers."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: ErrorKind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """Return True for failures that may pass if tried again later."""
        return self.kind in ("rate_limit", "server", "timeout", "budget")


@runtime_checkable
class LLMProvider(Protocol):
    """Answer completion requests (a remote model or a local extractor)."""

    @property
    def name(self) -> str:
        """Return the provider's name (``openai``, ``anthropic``, ``offline-extractor``)."""
        ...

    @property
    def model(self) -> str:
        """Return the model (or extractor) identifier recorded with what it wrote."""
        ...

    async def complete(self, request: CompletionRequest) -> Completion:
        """Answer one request or raise :class:`LLMError`."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
