"""The offline provider: answers a completion request the way a model would, with one
``remember`` tool call per statement or the exact reply "Nothing new to save."."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plugins.extractors.claims import Claim
from plugins.extractors.statements.reading import extract_statements
from plugins.llm.remember import ALSO, CHANGED
from plugins.llm.types import Completion, CompletionRequest, ToolCall, Usage

EXTRACTOR_NAME = "offline-extractor"
EXTRACTOR_ID = "statements-v2"
EXTRACTOR_TAG = f"extractor:{EXTRACTOR_ID}"
NOTHING_NEW = "Nothing new to save."


class StatementExtractor:
    """An offline provider: answers with ``remember`` calls built from the user's statements."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self._config = dict(config or {})

    def __repr__(self) -> str:
        return f"StatementExtractor(id={EXTRACTOR_ID!r})"

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
                    "tags": [EXTRACTOR_TAG, s.claim.attribute],
                    "importance": s.importance,
                    "subject": s.claim.subject,
                    "predicate": s.claim.attribute,
                    "object": s.claim.value,
                    "source_message_ids": [s.message_id],
                    **({"when": s.claim.when} if s.claim.when else {}),
                    **({"replaces": s.claim.previous} if s.claim.previous else {}),
                    **({"change": _change(s.claim)} if _change(s.claim) else {}),
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


def _change(claim: Claim) -> str | None:
    """How the fact stands to what memory holds, as the grammar read it; the rendered text
    does not say it ("The user takes gliclazide." was "now I'm on gliclazide")."""
    if claim.also:
        return ALSO
    return CHANGED if claim.change and not (claim.negated or claim.past) else None
