"""``POST /v1/context``: what an app puts in its prompt for the next turn (issue 19 part 3)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from daemon.api.keys import CONSOLIDATION
from daemon.config import ConsolidationConfig
from tests.api_fixtures import Api, api_client


async def _say(api: Api, cid: str, text: str, role: str = "user") -> str:
    status, body = await api.call(
        "POST", f"/v1/conversations/{cid}/messages", {"role": role, "content": text}
    )
    assert status == 201, body
    message_id: str = body["message_id"]
    return message_id


async def _fact(api: Api, text: str) -> str:
    status, body = await api.call("POST", "/v1/facts", {"text": text, "dedupe": False})
    assert status == 201, body
    fact_id: str = body["fact_id"]
    return fact_id


async def _context(api: Api, **body: Any) -> dict[str, Any]:
    status, answer = await api.call("POST", "/v1/context", body)
    assert status == 200, answer
    result: dict[str, Any] = answer
    return result


async def test_facts_and_earlier_messages_for_a_query_cited_and_dated(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        cello = await _say(api, "c2", "My sister Ana plays the cello in Porto")
        await _say(api, "c2", "The weather in Oslo is grim")
        fact = await _fact(api, "Ana plays the cello.")
        answer = await _context(api, conversation_id="c1", query="what does Ana play?")
        assert answer["query_source"] == "query"
        assert answer["query"] == "what does Ana play?"
        assert answer["facts"][0]["fact_id"] == fact
        assert answer["facts"][0]["valid_from"].startswith("2026-03-01")
        assert answer["messages"][0]["message_id"] == cello
        assert answer["messages"][0]["conversation_id"] == "c2"
        assert answer["learned_context"] is None
        assert isinstance(answer["position"], int)
        text = answer["text"]
        assert f"- [fact {fact}, since 2026-03-01] Ana plays the cello." in text
        assert f"- [message {cello}, c2, 2026-03-01] My sister Ana plays the cello" in text
        assert text.index("Facts:") < text.index("Earlier messages:")
        assert "why" not in answer["facts"][0]


async def test_without_a_query_the_last_turns_stand_for_it(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        older = await _say(api, "c1", "I ride a green bicycle to work")
        for text in ("hello", "how are you", "fine thanks"):
            await _say(api, "c1", text)
        last = await _say(api, "c1", "remind me about my bicycle")
        answer = await _context(api, conversation_id="c1", explain=True)
        assert answer["query_source"] == "recent_turns"
        assert "remind me about my bicycle" in answer["query"]
        ids = [m["message_id"] for m in answer["messages"]]
        assert older in ids  # earlier than the last turns: recalled
        assert last not in ids  # one of the last turns: the app has it already
        [why] = [m["why"] for m in answer["messages"] if m["message_id"] == older]
        assert why["for"] == "recent_turns"
        assert why["from"] == "this conversation"
        empty = await _context(api, conversation_id="nobody")
        assert empty["query_source"] == "none"
        assert (empty["facts"], empty["messages"], empty["text"]) == ([], [], "")


async def test_trimmed_to_max_chars_whole_items_only_and_deterministic(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        for i in range(8):
            await _fact(api, f"Ana's cello lesson number {i} is on a Tuesday in Porto.")
        full = await _context(api, conversation_id="c1", query="Ana cello lesson")
        assert len(full["facts"]) == 8
        assert full["left_out"] == 0
        small = await _context(api, conversation_id="c1", query="Ana cello lesson", max_chars=200)
        assert len(small["text"]) <= 200
        assert small["left_out"] > 0
        assert 0 < len(small["facts"]) < 8
        for fact in small["facts"]:
            assert f"[fact {fact['fact_id']}," in small["text"]
        shown = [f["fact_id"] for f in small["facts"]]
        assert shown == [f["fact_id"] for f in full["facts"]][: len(shown)]
        again = await _context(api, conversation_id="c1", query="Ana cello lesson", max_chars=200)
        assert again == small


async def test_the_learned_context_block_comes_first(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        for i in range(5):
            await _fact(api, f"Abe detail number {i}: likes trains")
        service = api.client.app[CONSOLIDATION]
        service.config = dataclasses.replace(
            ConsolidationConfig(), tier="full", learned_context_chars=300
        )
        status, run = await api.call("POST", "/v1/consolidation/run", {})
        assert status == 200, run
        _, block = await api.call("GET", "/v1/consolidation/learned-context")
        assert block["text"]
        answer = await _context(api, conversation_id="c1", query="trains", explain=True)
        assert answer["learned_context"]["text"] == block["text"]
        assert answer["learned_context"]["fact_ids"] == block["fact_ids"]
        assert answer["text"].startswith("Learned context:\n" + block["text"])


async def test_bad_input_names_the_field(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        for body, field in (
            ({"query": "x"}, "conversation_id"),
            ({"conversation_id": "c1", "max_chars": 10}, "max_chars"),
            ({"conversation_id": "c1", "max_facts": -1}, "max_facts"),
            ({"conversation_id": "c1", "bogus": 1}, "bogus"),
        ):
            status, answer = await api.call("POST", "/v1/context", body)
            assert status == 400, answer
            assert answer["error"]["details"]["field"] == field


async def test_a_fork_s_last_turns_include_its_parent_s(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _say(api, "c1", "I keep bees on the roof")
        status, fork = await api.call("POST", "/v1/conversations/c1/fork", {})
        assert status == 201, fork
        answer = await _context(api, conversation_id=fork["conversation_id"])
        assert answer["query_source"] == "recent_turns"
        assert answer["query"] == "I keep bees on the roof"
