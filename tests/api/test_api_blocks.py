"""Curated blocks through the API (read, write as the app, history, refusals) and the
profile (facts grouped by subject and attribute, served alone and in the context)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from daemon.api.keys import CONSOLIDATION, STATE
from daemon.config import BlockSpec, ConsolidationConfig
from events.consolidation_events import LearnedContextWritten
from events.store.base import NewEvent
from tests.api_fixtures import Api, api_client

NOTES = BlockSpec("notes", "what the user asked to keep in mind", 40)


def _register(api: Api) -> None:
    service = api.client.app[CONSOLIDATION]
    service.config = dataclasses.replace(ConsolidationConfig(), blocks=(NOTES,))


async def _fact(api: Api, text: str) -> str:
    status, body = await api.call("POST", "/v1/facts", {"text": text})
    assert status == 201, body
    fact_id: str = body["fact_id"]
    return fact_id


async def test_a_block_is_written_read_and_its_history_kept(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        _register(api)
        _, listed = await api.call("GET", "/v1/blocks")
        assert [b["name"] for b in listed["blocks"]] == ["learned_context", "notes"]
        assert listed["blocks"][1]["text"] == ""
        assert listed["blocks"][1]["max_chars"] == 40
        status, first = await api.call("PUT", "/v1/blocks/notes", {"text": "Call mum."})
        assert status == 200, first
        await api.call("PUT", "/v1/blocks/notes", {"text": "Call mum on Sunday."})
        _, block = await api.call("GET", "/v1/blocks/notes")
        assert block["text"] == "Call mum on Sunday."
        assert block["author"] == "app"
        assert block["purpose"] == NOTES.purpose
        _, history = await api.call("GET", "/v1/blocks/notes/history")
        texts = [h["text"] for h in history["history"]]
        assert texts == ["Call mum on Sunday.", "Call mum."]
        assert history["history"][1]["previous_hash"] is None
        assert history["history"][0]["previous_hash"] is not None
        _, events = await api.call("GET", "/v1/events?limit=100")
        written = [e for e in events["events"] if e["event_type"] == "BlockWritten"]
        assert [e["data"]["author"] for e in written] == ["app", "app"]


async def test_unknown_blocks_and_long_texts_are_refused_and_write_nothing(
    tmp_path: Path,
) -> None:
    async with api_client(tmp_path) as api:
        _register(api)
        status, error = await api.call("PUT", "/v1/blocks/diary", {"text": "x"})
        assert status == 404
        assert error["error"]["code"] == "unknown_block"
        status, error = await api.call("PUT", "/v1/blocks/notes", {"text": "x" * 41})
        assert status == 400
        assert error["error"]["code"] == "too_long"
        assert error["error"]["details"]["max_chars"] == 40
        status, error = await api.call("PUT", "/v1/blocks/notes", {})
        assert status == 400
        assert "text" in error["error"]["message"]
        status, _ = await api.call("GET", "/v1/blocks/diary")
        assert status == 404
        status, _ = await api.call("GET", "/v1/blocks/diary/history")
        assert status == 404
        _, events = await api.call("GET", "/v1/events?limit=100")
        assert not [e for e in events["events"] if e["event_type"] == "BlockWritten"]


async def test_the_learned_context_route_reads_the_block(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await api.call("PUT", "/v1/blocks/learned_context", {"text": "Likes short answers."})
        _, block = await api.call("GET", "/v1/consolidation/learned-context")
        assert block["text"] == "Likes short answers."
        assert block["fact_ids"] == []


async def test_the_profile_groups_current_facts_by_subject_and_attribute(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        berlin = await _fact(api, "I live in Berlin")
        tea = await _fact(api, "I like green tea")
        anna = await _fact(api, "My sister Anna is a nurse")
        seattle = await _fact(api, "I moved to Seattle")
        _, profile = await api.call("GET", "/v1/profile")
        topics = {t["topic"]: t for t in profile["topics"]}
        assert [t["topic"] for t in profile["topics"]] == ["user", "anna"]
        assert set(topics) == {"user", "anna"}
        lines = {line["attribute"]: line for line in topics["user"]["lines"]}
        assert lines["residence"]["fact_ids"] == [seattle]  # Berlin was superseded
        assert berlin not in topics["user"]["fact_ids"]
        assert "Seattle" in lines["residence"]["text"]
        assert lines["likes"]["fact_ids"] == [tea]
        assert topics["anna"]["fact_ids"] == [anna]
        assert topics["anna"]["source"] == "facts"
        _, only = await api.call("GET", "/v1/profile?subject=Anna")
        assert [t["topic"] for t in only["topics"]] == ["anna"]
        await api.call("DELETE", f"/v1/facts/{anna}")
        _, profile = await api.call("GET", "/v1/profile")
        assert [t["topic"] for t in profile["topics"]] == ["user"]


async def test_the_context_holds_the_profile_within_its_share(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        tea = await _fact(api, "I like green tea")
        body = {"conversation_id": "c1", "query": "what do I drink", "max_facts": 0}
        _, context = await api.call("POST", "/v1/context", body)
        assert context["profile"] == [
            {"topic": "user", "text": "likes: I like green tea", "fact_ids": [tea]}
        ]
        assert "Profile:\n- [user] likes: I like green tea" in context["text"]
        _, none = await api.call("POST", "/v1/context", {**body, "max_profile_lines": 0})
        assert none["profile"] == []
        for i in range(30):
            await _fact(api, f"I collect stamp series number {i} from the islands")
        _, small = await api.call("POST", "/v1/context", {**body, "max_chars": 400})
        rendered = "\n".join(f"- [user] {p['text']}" for p in small["profile"])
        assert len(rendered) <= 100
        assert small["left_out"] > 0


async def test_an_older_logs_learned_context_is_read_as_the_block(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        store = api.client.app[STATE].require_store()
        old = LearnedContextWritten(at=api.clock.now(), text="- Likes tea", fact_ids=["f1"])
        [position] = await store.append("default", [NewEvent(old)])
        await api.client.app[STATE].async_note_written(position)
        _, block = await api.call("GET", "/v1/consolidation/learned-context")
        assert (block["text"], block["fact_ids"]) == ("- Likes tea", ["f1"])
        _, history = await api.call("GET", "/v1/blocks/learned_context/history")
        [write] = history["history"]
        assert (write["author"], write["how"]) == ("consolidation", "offline")
