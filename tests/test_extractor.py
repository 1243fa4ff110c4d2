"""The offline self-statement extractor behind the provider interface."""

from __future__ import annotations

import pytest

from plugins.extractors.selfstatements import (
    EXTRACTOR_TAG,
    NOTHING_NEW,
    SelfStatementExtractor,
    extract_statements,
)
from plugins.llm.types import CompletionRequest, LLMProvider, ToolSpec, TranscriptEntry
from plugins.registry import load_plugins

REMEMBER = ToolSpec("remember", "save a fact", {"type": "object"})


def _texts(*messages: tuple[str, str]) -> list[str]:
    entries = [TranscriptEntry(f"m{i}", role, text) for i, (role, text) in enumerate(messages)]
    return [s.text for s in extract_statements(entries)]


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("I live in Lyon with two cats.", "The user lives in Lyon with two cats."),
        ("Hi! My sister is called Ana, she is great", "The user's sister is Ana."),
        ("my brother's name is Tom.", "The user's brother is Tom."),
        ("I prefer tea over coffee.", "The user prefers tea over coffee."),
        ("I work as nurse at night", "The user works as a nurse at night."),
        ("I work as an engineer.", "The user works as an engineer."),
        ("I work at Acme Corp.", "The user works at Acme Corp."),
        ("My favourite colour is green.", "The user's favourite colour is green."),
        ("my favorite band is Low", "The user's favourite band is Low."),
        ("I'm allergic to peanuts", "The user is allergic to peanuts."),
        ("I am vegetarian.", "The user is vegetarian."),
        ("My name is Maria and I like hiking.", "The user's name is Maria."),
        ("I'm originally from Porto.", "The user is from Porto."),
        ("My birthday is on 3 March.", "The user's birthday is on 3 March."),
        ("My dog lives in Berlin with my ex", "The user's dog lives in Berlin with my ex."),
    ],
)
def test_self_statements_become_facts(said: str, fact: str) -> None:
    assert fact in _texts(("user", said))


@pytest.mark.parametrize(
    "said",
    [
        "Do I live in Lyon?",
        "If I live in Lyon, what then.",
        "My sister is not called Ana.",
        "I don't live in Lyon.",
        "I like that idea.",
        "What is the weather like?",
    ],
)
def test_questions_conditionals_negations_and_vague_values_are_skipped(said: str) -> None:
    assert _texts(("user", said)) == []


def test_only_user_messages_are_read_and_repeats_collapse() -> None:
    texts = _texts(
        ("assistant", "I live in the cloud."),
        ("user", "I live in Lyon."),
        ("user", "As I said, I live in Lyon."),
    )
    assert texts == ["The user lives in Lyon."]


async def test_provider_answers_with_remember_calls_tagged_by_extractor() -> None:
    extractor: LLMProvider = SelfStatementExtractor()
    request = CompletionRequest(
        system="",
        messages=[],
        tools=[REMEMBER],
        transcript=[
            TranscriptEntry("m1", "user", "I live in Lyon. I prefer trains."),
            TranscriptEntry("m2", "assistant", "Noted."),
        ],
    )
    completion = await extractor.complete(request)
    assert [c.arguments["text"] for c in completion.tool_calls] == [
        "The user lives in Lyon.",
        "The user prefers trains.",
    ]
    for call in completion.tool_calls:
        assert call.name == "remember"
        assert EXTRACTOR_TAG in call.arguments["tags"]
    assert "selfstatements" in completion.model


async def test_provider_says_nothing_new_when_nothing_found() -> None:
    request = CompletionRequest(
        system="", messages=[], tools=[REMEMBER], transcript=[TranscriptEntry("m", "user", "ok")]
    )
    completion = await SelfStatementExtractor().complete(request)
    assert completion.text == NOTHING_NEW
    assert completion.tool_calls == ()


def test_extractor_registers_as_plugin() -> None:
    registry = load_plugins(entry_points=False, extra_modules=["plugins.extractors"])
    built = registry.create("extractor", "offline-extractor")
    assert isinstance(built, SelfStatementExtractor)
