"""The model grader of iterative recall: are these hits enough to answer the
question, and if not, what to ask next?

One call per pass: the *original* question and the best hits go to the model, which answers
JSON ``{"sufficient": bool, "confidence": 0..1, "reformulation": str}``. Every call goes
through the provider it is given (the daemon's is wrapped in its ``[llm]`` budget), is
bounded by a timeout, and any failure (a provider error, the budget, the timeout, an answer
that is not that JSON) is returned as a verdict with ``error`` set: the loop then goes on
offline, never failing the search.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from daemon.recall.engine import Hit
from plugins.llm.types import ChatMessage, CompletionRequest, LLMError, LLMProvider

GRADER_HITS = 8
"""Hits shown to the grader (the best ones)."""
GRADER_TIMEOUT = 10.0
"""Seconds one grader call may take."""
GRADER_MAX_TOKENS = 200
HIT_CHARS = 400
"""A hit's text is cut to this many characters in the prompt."""

SYSTEM = (
    "You judge whether retrieved memory snippets are enough to answer a question. "
    'Reply with JSON only: {"sufficient": true|false, "confidence": number from 0 to 1, '
    '"reformulation": "a better search query, or empty when sufficient"}. '
    "Judge against the question as asked, not against any earlier reformulation."
)
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The grader's answer on one pass (``error`` set when there was none)."""

    sufficient: bool = False
    confidence: float = 0.0
    reformulation: str = ""
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the ``explain`` form."""
        if self.error is not None:
            return {"error": self.error}
        return {
            "sufficient": self.sufficient,
            "confidence": self.confidence,
            "reformulation": self.reformulation,
        }


def grade_request(question: str, hits: Sequence[Hit]) -> CompletionRequest:
    """The completion request for one verdict: the question and the best hits, numbered."""
    lines = [f"Question: {question}", "", "Snippets:"]
    for n, hit in enumerate(hits[:GRADER_HITS], start=1):
        text = " ".join(hit.text.split())[:HIT_CHARS]
        lines.append(f"{n}. {text}")
    if not hits:
        lines.append("(none)")
    content = "\n".join(lines)
    return CompletionRequest(
        system=SYSTEM,
        messages=[ChatMessage("user", content)],
        max_tokens=GRADER_MAX_TOKENS,
    )


def json_object(text: str) -> dict[str, Any]:
    """The JSON object in a model's answer (fenced or after a preamble is fine); ValueError
    when there is none."""
    match = _JSON_OBJECT.search(text)
    if match is None:
        raise ValueError("no JSON object in the answer")
    try:
        data = orjson.loads(match.group(0))
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


async def ask(
    provider: LLMProvider, request: CompletionRequest, timeout: float
) -> tuple[str | None, str | None]:
    """The model's answer text, or None and why not (no exception escapes)."""
    try:
        async with asyncio.timeout(timeout):
            completion = await provider.complete(request)
    except TimeoutError:
        return None, f"timeout after {timeout:g} s"
    except LLMError as exc:
        return None, f"{exc.kind}: {exc.message}"[:300]
    except Exception as exc:  # whatever a provider plugin raises, the search is answered
        return None, f"failed: {exc!r}"[:300]
    return completion.text, None


def parse_verdict(text: str) -> Verdict:
    """Read the model's JSON answer; raise ValueError when it is not the verdict's shape."""
    data = json_object(text)
    sufficient = data.get("sufficient")
    if not isinstance(sufficient, bool):
        raise ValueError('"sufficient" must be true or false')
    confidence = data.get("confidence", 0.0)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise ValueError('"confidence" must be a number')
    reformulation = data.get("reformulation") or ""
    if not isinstance(reformulation, str):
        raise ValueError('"reformulation" must be a string')
    return Verdict(
        sufficient=sufficient,
        confidence=min(1.0, max(0.0, float(confidence))),
        reformulation=" ".join(reformulation.split())[:4000],
    )


async def grade(
    provider: LLMProvider,
    question: str,
    hits: Sequence[Hit],
    timeout: float = GRADER_TIMEOUT,
) -> Verdict:
    """Ask ``provider`` for a verdict on ``hits``; a failure is a verdict with ``error``."""
    text, error = await ask(provider, grade_request(question, hits), timeout)
    if text is None:
        return Verdict(error=error)
    try:
        return parse_verdict(text)
    except ValueError as exc:
        return Verdict(error=f"bad_output: {exc}"[:300])
