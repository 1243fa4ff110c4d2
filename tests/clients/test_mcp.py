"""``memoryd mcp`` end to end: the MCP SDK's own client starts it over stdio and calls its
tools, which talk to a real ``memoryd serve`` process."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent
from memoryd_client import AsyncMemorydClient

from tests.client_fixtures import Daemon, started
from tests.paths import REPO_ROOT
from tests.server.test_server_process import MEMORYD

pytestmark = pytest.mark.slow

TOOLS = {
    "remember",
    "recall",
    "forget",
    "fact_history",
    "add_message",
    "get_context",
    "list_review_items",
    "approve_review_item",
    "reject_review_item",
}


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    with started(tmp_path_factory.mktemp("mcp")) as running:
        yield running


@asynccontextmanager
async def mcp_session(
    *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """``memoryd mcp ARGS`` started by the SDK's stdio client, initialized."""
    server = StdioServerParameters(command=MEMORYD, args=["mcp", *args], env=env)
    with open(Path("/dev/null"), "w") as quiet:  # noqa: ASYNC230 (opened once, not read)
        async with (
            stdio_client(server, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def _namespace() -> str:
    return f"mcp-{uuid.uuid4().hex[:12]}"


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its structured answer (the same as its text)."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, _text(result)
    assert result.structured_content is not None
    answer: dict[str, Any] = result.structured_content
    assert json.loads(_text(result)) == answer
    return answer


async def fails(session: ClientSession, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail; the error text it answers."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result
    return _text(result)


def _text(result: CallToolResult) -> str:
    [content] = result.content
    assert isinstance(content, TextContent)
    return content.text


async def test_the_tools_are_listed_with_what_a_model_needs(daemon: Daemon) -> None:
    async with mcp_session("--socket", str(daemon.socket)) as session:
        listed = (await session.list_tools()).tools
    tools = {tool.name: tool for tool in listed}
    assert set(tools) == TOOLS
    for tool in listed:
        assert tool.description is not None
        assert len(tool.description) > 80, tool.name
        assert not tool.description.startswith(" "), tool.name  # dedented
        assert tool.title, tool.name
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), (tool.name, name)
    assert tools["remember"].input_schema["required"] == ["text"]
    assert tools["recall"].input_schema["required"] == ["query"]
    assert tools["recall"].annotations is not None
    assert tools["recall"].annotations.read_only_hint is True
    assert tools["forget"].annotations is not None
    assert tools["forget"].annotations.destructive_hint is True


async def test_remember_recall_context_history_and_forget(daemon: Daemon) -> None:
    namespace = _namespace()
    async with mcp_session("--socket", str(daemon.socket), "--namespace", namespace) as session:
        lyon = await call(session, "remember", text="The user lives in Lyon.", subject="user")
        assert lyon["outcome"] == "added"
        assert lyon["superseded"] == []
        paris = await call(session, "remember", text="The user lives in Paris now.")
        assert paris["outcome"] == "updated"
        assert paris["superseded"] == [lyon["fact_id"]]
        again = await call(session, "remember", text="The user lives in Paris now.")
        assert (again["outcome"], again["fact_id"]) == ("deduplicated", paris["fact_id"])
        cello = await call(
            session,
            "remember",
            text="Ana plays the cello.",
            subject="Ana",
            tags=["family"],
            valid_from="2020-01-01T00:00:00Z",
            importance=0.8,
        )
        assert cello["outcome"] == "added"

        said = await call(
            session,
            "add_message",
            conversation_id="c1",
            content="My sister Ana plays the cello in Porto",
            name="Sam",
        )
        assert said["position"] > 0
        await call(session, "add_message", conversation_id="c1", role="assistant", content="Nice")
        sister = await call(
            session,
            "remember",
            text="The user's sister is called Ana.",
            source_message_ids=[said["message_id"]],
        )
        # The daemon's own retrospective may have learned it from the message first.
        assert sister["outcome"] in ("added", "deduplicated")

        found = await call(session, "recall", query="who plays the cello?")
        ids = [hit["id"] for hit in found["hits"]]
        assert cello["fact_id"] in ids
        assert said["message_id"] in ids
        assert set(found["hits"][0]) >= {"kind", "id", "text", "score", "created_at"}
        facts = await call(
            session, "recall", query="cello", kinds=["facts"], tags=["family"], top_k=3
        )
        assert [hit["id"] for hit in facts["hits"]] == [cello["fact_id"]]
        messages = await call(
            session, "recall", query="cello", kinds=["messages"], conversation_id="c1"
        )
        assert {hit["kind"] for hit in messages["hits"]} == {"message"}
        deep = await call(session, "recall", query="where does Ana play the cello?", iterative=True)
        assert deep["abstain"] is False
        assert cello["fact_id"] in [hit["id"] for hit in deep["hits"]]
        before = await call(
            session,
            "recall",
            query="where does the user live?",
            kinds=["facts"],
            include_superseded=True,
            known_at="2999-01-01T00:00:00+00:00",
        )
        assert lyon["fact_id"] in [hit["id"] for hit in before["hits"]]
        now = await call(session, "recall", query="where does the user live?", kinds=["facts"])
        assert lyon["fact_id"] not in [hit["id"] for hit in now["hits"]]

        then = await call(
            session, "recall", query="cello", kinds=["facts"], as_of="2021-01-01T00:00:00Z"
        )
        assert cello["fact_id"] in [hit["id"] for hit in then["hits"]]
        earlier = await call(
            session, "recall", query="cello", kinds=["facts"], as_of="2019-06-01T00:00:00Z"
        )
        assert cello["fact_id"] not in [hit["id"] for hit in earlier["hits"]]

        context = await call(
            session, "get_context", conversation_id="c2", query="Ana's cello", max_chars=1000
        )
        # The daemon's own retrospective may have written a fact of that message too.
        assert cello["fact_id"] in [fact["fact_id"] for fact in context["facts"]]
        assert f"[fact {cello['fact_id']}," in context["text"]
        assert len(context["text"]) <= 1000

        history = await call(session, "fact_history", fact_id=paris["fact_id"])
        assert [f["fact_id"] for f in history["chain"]] == [lyon["fact_id"], paris["fact_id"]]

        forgotten = await call(session, "forget", fact_id=cello["fact_id"], reason="asked to")
        assert forgotten["fact_id"] == cello["fact_id"]
        after = await call(session, "recall", query="who plays the cello?", kinds=["facts"])
        assert cello["fact_id"] not in [hit["id"] for hit in after["hits"]]

    # The tools wrote in the namespace the flag named, and only there.
    async with AsyncMemorydClient(daemon.socket, namespace=namespace) as client:
        texts = {f["text"] for f in (await client.list_facts())["facts"]}
        assert "The user lives in Paris now." in texts
        assert "Ana plays the cello." not in texts  # forgotten
    async with AsyncMemorydClient(daemon.socket) as client:
        assert (await client.list_facts())["facts"] == []


async def test_review_items_are_listed_approved_and_rejected(daemon: Daemon) -> None:
    namespace = _namespace()
    # Conflicts come from extraction (a fact the user stated replaces the old one outright).
    async with AsyncMemorydClient(daemon.socket, namespace=namespace) as client:
        old = await client.add_fact("The user reads the Guardian.", provenance="extraction")
        new = await client.add_fact("The user reads the FT now.", provenance="extraction")
        assert new["outcome"] == "conflict"
    async with mcp_session("--socket", str(daemon.socket), "-n", namespace) as session:
        [item] = (await call(session, "list_review_items"))["items"]
        await call(session, "approve_review_item", item_id=item["item_id"])
        history = await call(session, "fact_history", fact_id=new["fact_id"])
        assert [f["fact_id"] for f in history["chain"]] == [old["fact_id"], new["fact_id"]]
        assert (await call(session, "list_review_items"))["items"] == []

        async with AsyncMemorydClient(daemon.socket, namespace=namespace) as client:
            await client.add_fact("The user drinks oat milk.", provenance="extraction")
            await client.add_fact("The user drinks soy milk now.", provenance="extraction")
        [item] = (await call(session, "list_review_items", limit=5))["items"]
        rejected = await call(session, "reject_review_item", item_id=item["item_id"], reason="no")
        assert rejected["status"] == "rejected"
        everything = await call(session, "list_review_items", status="all")
        assert {i["status"] for i in everything["items"]} == {"approved", "rejected"}


async def test_bad_input_is_a_tool_error_that_says_what_to_fix(daemon: Daemon) -> None:
    async with mcp_session("--socket", str(daemon.socket), "-n", _namespace()) as session:
        assert "top_k" in await fails(session, "recall", query="x", top_k=0)
        assert "query" in await fails(session, "recall")
        assert "kinds" in await fails(session, "recall", query="x", kinds=["people"])
        assert "role" in await fails(
            session, "add_message", conversation_id="c", content="x", role="bot"
        )
        said = await fails(session, "remember", text="x", valid_from="last Tuesday")
        assert "valid_from must be an ISO 8601 time" in said
        said = await fails(session, "recall", query="x", as_of="2024-05-01T09:00:00")
        assert "as_of must have a time zone" in said
        said = await fails(session, "forget", fact_id="no-such-fact")
        assert "memoryd refused the request: not_found" in said
        said = await fails(session, "approve_review_item", item_id="no-such-item")
        assert "not_found" in said
        # The server is still there after every error.
        assert (await call(session, "recall", query="anything"))["hits"] == []


async def test_the_namespace_from_the_environment_and_no_daemon(
    daemon: Daemon, tmp_path: Path
) -> None:
    namespace = _namespace()
    env = {"MEMORYD_NAMESPACE": namespace}
    async with mcp_session("--socket", str(daemon.socket), env=env) as session:
        await call(session, "remember", text="The user keeps bees.")
    async with AsyncMemorydClient(daemon.socket, namespace=namespace) as client:
        assert [f["text"] for f in (await client.list_facts())["facts"]] == ["The user keeps bees."]

    missing = tmp_path / "none.sock"
    async with mcp_session("--socket", str(missing)) as session:
        assert {t.name for t in (await session.list_tools()).tools} == TOOLS
        said = await fails(session, "recall", query="bees")
        assert f"memoryd is not answering at unix:{missing}" in said
        assert "memoryd serve" in said


async def test_the_configuration_of_the_docs_starts_a_working_server(daemon: Daemon) -> None:
    text = (REPO_ROOT / "docs" / "integrations.md").read_text()
    found = re.search(r"```json\n(\{\n  \"mcpServers\".*?)```", text, re.S)
    assert found is not None
    entry = json.loads(found.group(1))["mcpServers"]["memoryd"]
    assert entry["command"].endswith("/.venv/bin/memoryd")
    args = [str(daemon.socket) if a.endswith("memoryd.sock") else a for a in entry["args"]]
    assert args[0] == "mcp"
    async with mcp_session(*args[1:], env=entry["env"]) as session:
        written = await call(session, "remember", text="The user plays go.")
    async with AsyncMemorydClient(daemon.socket, namespace=entry["env"]["MEMORYD_NAMESPACE"]) as c:
        assert (await c.get_fact(written["fact_id"]))["text"] == "The user plays go."
