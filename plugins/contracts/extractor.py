"""What every extractor promises (:class:`plugins.protocols.Extractor`).

An extractor answers a retrospective's request without a model, from ``request.transcript``:
one ``remember`` call per durable fact the *user* stated, each fitting the tool's schema
(:data:`plugins.llm.remember.REMEMBER_TOOL`) and citing the ids of the user messages it comes
from; nothing from assistant (or tool) turns, nothing from questions; the exact reply
:data:`~plugins.llm.remember.NOTHING_NEW` when there is nothing; plain JSON arguments; the same
answer for the same request.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from plugins.llm.remember import NOTHING_NEW, REMEMBER_TOOL
from plugins.llm.types import ChatMessage, Completion, CompletionRequest, TranscriptEntry
from plugins.protocols import Extractor

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "array": (list,),
}


def request_for(transcript: Sequence[TranscriptEntry]) -> CompletionRequest:
    """Return a retrospective-shaped request over ``transcript`` offering ``remember``."""
    lines = "\n".join(f"[{t.message_id}] {t.role}: {t.text}" for t in transcript)
    return CompletionRequest(
        system="Review the conversation and remember durable facts.",
        messages=[ChatMessage("user", lines)],
        tools=[REMEMBER_TOOL],
        transcript=tuple(transcript),
    )


def schema_problems(arguments: Mapping[str, Any]) -> list[str]:
    """Return how ``arguments`` break :data:`REMEMBER_TOOL`'s JSON Schema (empty: none)."""
    schema = REMEMBER_TOOL.parameters
    properties: Mapping[str, Any] = schema["properties"]
    problems = [f"missing {key}" for key in schema["required"] if key not in arguments]
    for key, value in arguments.items():
        spec = properties.get(key)
        if spec is None:
            problems.append(f"unknown argument {key}")
            continue
        kinds = _JSON_TYPES[spec["type"]]
        if isinstance(value, bool) or not isinstance(value, kinds):
            problems.append(f"{key} is not a {spec['type']}")
        elif isinstance(value, list) and not all(isinstance(v, str) for v in value):
            problems.append(f"{key} holds a non-string")
        elif spec["type"] == "number" and not spec["minimum"] <= value <= spec["maximum"]:
            problems.append(f"{key} is out of range")
    return problems


class ExtractorContract(abc.ABC):
    """Subclass and implement :meth:`make_extractor`; override the sample sentences when your
    extractor reads another language or other kinds of facts."""

    STATEMENT = "I live in Lisbon and I work as a nurse."
    """A user turn holding at least one durable fact about the user."""
    QUESTION = "Do I live in Lyon?"
    ASSISTANT = "You live in Lisbon. I live in Berlin and I work as a pilot."
    """An assistant turn stating facts: none of them may be remembered."""

    @abc.abstractmethod
    def make_extractor(self) -> Extractor:
        """Return a new extractor."""

    async def _answer(self, *turns: tuple[str, str]) -> Completion:
        transcript = [TranscriptEntry(f"m{i}", role, text) for i, (role, text) in enumerate(turns)]
        extractor = self.make_extractor()
        try:
            return await extractor.complete(request_for(transcript))
        finally:
            await extractor.aclose()

    async def test_is_an_extractor(self) -> None:
        extractor = self.make_extractor()
        assert isinstance(extractor, Extractor)
        assert extractor.name.strip()
        assert extractor.model.strip()
        await extractor.aclose()

    async def test_user_statements_become_remember_calls_citing_their_turn(self) -> None:
        completion = await self._answer(
            ("assistant", "Hello! How can I help?"), ("user", self.STATEMENT)
        )
        assert completion.tool_calls
        for call in completion.tool_calls:
            assert call.name == REMEMBER_TOOL.name
            assert schema_problems(call.arguments) == []
            assert str(call.arguments["text"]).strip()
            assert call.arguments["source_message_ids"] == ["m1"]

    async def test_calls_are_plain_json(self) -> None:
        completion = await self._answer(("user", self.STATEMENT))
        for call in completion.tool_calls:
            assert orjson.loads(orjson.dumps(dict(call.arguments))) == dict(call.arguments)
            assert call.call_id
        assert len({call.call_id for call in completion.tool_calls}) == len(completion.tool_calls)

    async def test_nothing_is_taken_from_assistant_turns(self) -> None:
        completion = await self._answer(("user", "Hi."), ("assistant", self.ASSISTANT))
        assert completion.tool_calls == ()
        assert completion.text == NOTHING_NEW

    async def test_a_question_is_not_a_fact(self) -> None:
        completion = await self._answer(("user", self.QUESTION))
        assert completion.tool_calls == ()
        assert completion.text == NOTHING_NEW

    async def test_an_empty_transcript_holds_nothing_new(self) -> None:
        completion = await self._answer()
        assert completion.tool_calls == ()
        assert completion.text == NOTHING_NEW

    async def test_without_the_remember_tool_it_calls_nothing(self) -> None:
        transcript = [TranscriptEntry("m0", "user", self.STATEMENT)]
        request = CompletionRequest(system="", messages=[], transcript=transcript)
        extractor = self.make_extractor()
        completion = await extractor.complete(request)
        await extractor.aclose()
        assert completion.tool_calls == ()

    async def test_the_same_request_gets_the_same_answer(self) -> None:
        turns = (("user", self.STATEMENT), ("assistant", self.ASSISTANT), ("user", self.QUESTION))
        first, second = await self._answer(*turns), await self._answer(*turns)
        assert first.tool_calls == second.tool_calls
        assert first.text == second.text
