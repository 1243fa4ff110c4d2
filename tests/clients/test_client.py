"""The Python client library (clients/python) against a real ``memoryd serve`` process:
every group of routes through both the sync and the async client, errors, retries, and the
event tail resuming across a daemon restart."""

from __future__ import annotations

import asyncio
import inspect
import re
import tomllib
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from memoryd_client import (
    ApiError,
    AsyncMemorydClient,
    Call,
    DaemonUnavailable,
    MemorydClient,
    Retry,
    default_socket_path,
)
from memoryd_client._table import Route, Routes
from memoryd_client.types import Event

from daemon.api.openapi import build_document
from daemon.paths import default_socket_path as daemon_socket_path
from tests.client_fixtures import Daemon, as_async, started
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    with started(tmp_path_factory.mktemp("client")) as running:
        yield running


@pytest.fixture(params=["sync", "async"])
async def client(request: pytest.FixtureRequest, daemon: Daemon) -> AsyncIterator[Any]:
    """A client of each kind, in a namespace of its own."""
    namespace = f"t-{uuid.uuid4().hex[:12]}"
    if request.param == "sync":
        with MemorydClient(daemon.socket, namespace=namespace) as sync:
            yield as_async(sync)
    else:
        async with AsyncMemorydClient(daemon.socket, namespace=namespace) as aclient:
            yield aclient


async def test_messages_forks_and_compaction(client: AsyncMemorydClient) -> None:
    first = await client.add_message("c1", "user", "I adopted a cat called Miso")
    assert first["message_id"]
    assert first["position"] > 0
    batch = await client.add_messages(
        "c1",
        [
            {"role": "assistant", "content": "Lovely name!"},
            {"role": "user", "content": "She is two", "metadata": {"lang": "en"}},
        ],
    )
    assert [r["position"] for r in batch["results"]] == sorted(
        r["position"] for r in batch["results"]
    )
    listed = await client.list_messages("c1")
    assert [m["content"] for m in listed["messages"]] == [
        "I adopted a cat called Miso",
        "Lovely name!",
        "She is two",
    ]
    assert listed["messages"][2]["metadata"] == {"lang": "en"}
    page = await client.list_messages("c1", after=first["message_id"], limit=1)
    assert [m["content"] for m in page["messages"]] == ["Lovely name!"]

    fork = await client.fork("c1", through_message_id=first["message_id"])
    await client.add_message(fork["conversation_id"], "user", "Actually, a dog")
    forked = await client.list_messages(fork["conversation_id"])
    assert [m["content"] for m in forked["messages"]] == [
        "I adopted a cat called Miso",
        "Actually, a dog",
    ]
    compacted = await client.compaction("c1", reason="context full")
    assert compacted["conversation_id"]
    assert compacted["position"] > fork["position"]


async def test_facts_reconciliation_history_and_time_travel(client: AsyncMemorydClient) -> None:
    lyon = await client.add_fact("The user lives in Lyon.")
    assert lyon["outcome"] == "added"
    paris = await client.add_fact("The user lives in Paris now.")
    assert paris["outcome"] == "updated"
    assert paris["superseded"] == [lyon["fact_id"]]
    again = await client.add_fact("The user lives in Paris now.")
    assert again["outcome"] == "deduplicated"
    assert again["fact_id"] == paris["fact_id"]

    then = await client.list_facts(known_at=lyon["position"])
    assert [f["text"] for f in then["facts"]] == ["The user lives in Lyon."]
    now = await client.list_facts(subject="user")
    assert [f["text"] for f in now["facts"]] == ["The user lives in Paris now."]
    both = await client.list_facts(include_superseded=True, limit=10)
    assert {f["fact_id"] for f in both["facts"]} == {lyon["fact_id"], paris["fact_id"]}
    old = await client.get_fact(lyon["fact_id"], known_at=lyon["position"])
    assert old["valid_to"] is None
    assert (await client.get_fact(lyon["fact_id"]))["superseded_by"] == paris["fact_id"]
    history = await client.fact_history(paris["fact_id"])
    assert [f["fact_id"] for f in history["chain"]] == [lyon["fact_id"], paris["fact_id"]]
    assert history["decisions"]

    rome = await client.supersede_fact(
        paris["fact_id"], "The user lives in Rome.", valid_from="2030-01-01T00:00:00+00:00"
    )
    assert rome["superseded"] == [paris["fact_id"]]
    as_of = await client.list_facts(as_of="2029-06-01T00:00:00+00:00")
    assert [f["text"] for f in as_of["facts"]] == ["The user lives in Paris now."]

    tool = await client.add_fact("The user's phone is a Pixel 8.", provenance="tool", tags=["t"])
    assert (await client.get_fact(tool["fact_id"]))["status"] == "quarantined"
    quarantined = await client.list_facts(status="quarantined", tag="t")
    assert [f["fact_id"] for f in quarantined["facts"]] == [tool["fact_id"]]
    await client.validate_fact(tool["fact_id"], note="checked")
    assert (await client.get_fact(tool["fact_id"]))["status"] == "active"
    forgotten = await client.forget_fact(tool["fact_id"], reason="asked to")
    assert forgotten["fact_id"] == tool["fact_id"]
    assert tool["fact_id"] not in [f["fact_id"] for f in (await client.list_facts())["facts"]]
    with pytest.raises(ApiError) as caught:
        await client.supersede_fact(tool["fact_id"], "The user's phone is an iPhone.")
    assert (caught.value.status, caught.value.code) == (409, "fact_forgotten")
    purged = await client.purge_fact(tool["fact_id"])
    assert await client.purge_fact(tool["fact_id"]) == purged  # a retry answers the same
    with pytest.raises(ApiError) as caught:
        await client.get_fact(tool["fact_id"])
    assert caught.value.status == 404
    events = await client.events(stream=f"fact:{tool['fact_id']}")
    assert "Pixel" not in str(events)


async def test_search_with_every_option(client: AsyncMemorydClient) -> None:
    said = await client.add_message("c1", "user", "My sister Ana plays the cello in Porto")
    await client.add_message("c2", "user", "The weather in Oslo is grim")
    fact = await client.add_fact("Ana plays the cello.", subject="Ana", tags=["family"])
    plain = await client.search("who plays the cello?")
    ids = [h["id"] for h in plain["hits"]]
    assert fact["fact_id"] in ids
    assert said["message_id"] in ids
    hits = await client.search(
        "cello",
        top_k=5,
        candidate_top_k=20,
        scope=["messages"],
        conversation_id="c1",
        as_of="2999-01-01T00:00:00+00:00",
        known_at="2999-01-01T00:00:00+00:00",
        include_superseded=True,
        include_quarantined=True,
        decay={"tau_days": 30},
        trust_weighting=False,
        expand_hops=1,
        graph_scoring="ppr",
        entity_match=True,
        fusion={"strategy": "weighted", "weights": {"lexical": 1.0}},
        explain=True,
    )
    assert said["message_id"] in [h["id"] for h in hits["hits"]]
    messages = [h for h in hits["hits"] if h["kind"] == "message"]
    assert {h["conversation_id"] for h in messages} == {"c1"}  # c2's are left out
    assert all("signals" in h for h in hits["hits"])  # explain
    deep = await client.search(
        "who plays the cello?",
        iterative={"max_iterations": 2, "force_hard": True},
        hyde=True,
        multi_query=2,
        explain=True,
    )
    assert fact["fact_id"] in [h["id"] for h in deep["hits"]]
    assert deep["abstain"] is False
    assert deep["iterative"]["gate"]["forced"] is True
    facts = await client.search("cello", scope=["facts"], tags=["family"], owner="user")
    assert [h["id"] for h in facts["hits"]] == [fact["fact_id"]]
    with pytest.raises(ApiError) as caught:
        await client.search("cello", top_k=10, candidate_top_k=5)
    assert caught.value.details["field"] == "candidate_top_k"


async def test_context_for_the_next_turn(client: AsyncMemorydClient) -> None:
    said = await client.add_message("x2", "user", "My brother Teo keeps bees in Faro")
    fact = await client.add_fact("Teo keeps bees.")
    answer = await client.context("x1", query="what does Teo keep?", max_chars=2000, explain=True)
    assert answer["query_source"] == "query"
    assert answer["facts"][0]["fact_id"] == fact["fact_id"]
    assert answer["messages"][0]["message_id"] == said["message_id"]
    assert "why" in answer["facts"][0]
    assert f"[fact {fact['fact_id']}," in answer["text"]
    assert len(answer["text"]) <= 2000


async def test_retrospective_state_and_a_waited_run(client: AsyncMemorydClient) -> None:
    await client.add_message("r1", "user", "I work as a nurse at St Mary's hospital.")
    await client.add_message("r1", "assistant", "That sounds demanding.")
    run = await client.run_retrospective("r1", wait=True, timeout=60)
    assert run["finished"] is True
    assert run["conversation_id"] == "r1"
    assert run["status"] in ("succeeded", "skipped")
    state = await client.retrospective("r1")
    assert state["conversation_id"] == "r1"
    scheduled = await client.run_retrospective("r1")
    assert scheduled["conversation_id"] == "r1"
    service = await client.retrospective_service()
    assert isinstance(service, dict)
    assert service
    with pytest.raises(ApiError) as caught:
        await client.retrospective("no-such-conversation")
    assert caught.value.code == "not_found"


async def test_consolidation(client: AsyncMemorydClient) -> None:
    await client.add_fact("The user likes green tea.", dedupe=False)
    await client.add_fact("The user likes green tea.", dedupe=False)
    preview = await client.consolidation_preview(stale_days=0, min_score=0.1, tau_days=30)
    assert isinstance(preview, dict)
    assert preview
    plan = await client.consolidation_analyze(stale_days=0)
    stored = await client.consolidation_plan(plan["plan_id"])
    assert stored["plan_id"] == plan["plan_id"]
    applied = await client.apply_consolidation_plan(plan["plan_id"], min_confidence=0.0)
    assert isinstance(applied, dict)
    log = await client.consolidation_log(after=0, limit=100)
    assert "entries" in log
    run = await client.run_consolidation(phases=["light"])
    assert isinstance(run, dict)
    assert "runs" in await client.consolidation_runs()
    assert isinstance(await client.learned_context(), dict)
    with pytest.raises(ApiError) as caught:
        await client.restore_fact("no-such-fact")
    assert caught.value.status == 404


async def test_review_approve_and_reject(client: AsyncMemorydClient) -> None:
    old = await client.add_fact("The user reads the Guardian.", provenance="extraction")
    new = await client.add_fact("The user reads the FT now.", provenance="extraction")
    assert new["outcome"] == "conflict"
    assert new["conflicts_with"] == [old["fact_id"]]
    [item] = (await client.review_items(status="pending", limit=10))["items"]
    approved = await client.approve_review_item(item["item_id"])
    assert approved
    assert (await client.get_fact(old["fact_id"]))["superseded_by"] == new["fact_id"]
    await client.add_fact("The user drinks oat milk.", provenance="extraction")
    await client.add_fact("The user drinks soy milk now.", provenance="extraction")
    [item] = (await client.review_items())["items"]
    rejected = await client.reject_review_item(item["item_id"], reason="both true")
    assert rejected["status"] == "rejected"
    everything = await client.review_items(status="all")
    assert {i["status"] for i in everything["items"]} == {"approved", "rejected"}


async def test_events_health_progress_metrics_openapi(client: AsyncMemorydClient) -> None:
    written = [(await client.add_message("e1", "user", f"turn {i}"))["position"] for i in range(3)]
    # Retrospectives write events of their own: page through the conversation's stream.
    page = await client.events(after=0, limit=2, stream="conversation:e1")
    assert [e["position"] for e in page["events"]] == written[:2]
    rest = await client.events(after=page["last_position"], stream="conversation:e1")
    assert [e["position"] for e in rest["events"]] == written[2:]
    health = await client.health()
    assert health["status"] == "ok"
    assert health["last_position"] >= written[-1]
    progress = await client.progress(written[-1], wait=1)
    assert progress["done"] is True
    assert "memoryd_log_head_position" in await client.metrics()
    document = await client.openapi()
    assert "/v1/facts/{fact_id}/history" in document["paths"]


async def test_errors_carry_code_message_and_details(client: AsyncMemorydClient) -> None:
    with pytest.raises(ApiError) as caught:
        await client.get_fact("nope")
    assert (caught.value.status, caught.value.code) == (404, "not_found")
    assert "nope" in caught.value.message
    with pytest.raises(ApiError) as caught:
        await client.list_messages("c1", limit=5000)
    assert (caught.value.status, caught.value.code) == (400, "invalid_request")
    assert caught.value.details["field"] == "limit"


async def test_an_idempotency_key_makes_a_write_once(client: AsyncMemorydClient) -> None:
    a = await client.add_message("k1", "user", "hello", idempotency_key="turn-1")
    b = await client.add_message("k1", "user", "hello", idempotency_key="turn-1")
    assert a == b
    with pytest.raises(ApiError) as caught:
        await client.add_message("k1", "user", "other", idempotency_key="turn-1")
    assert caught.value.code == "idempotency_conflict"
    assert len((await client.list_messages("k1"))["messages"]) == 1


class _LosesFirstAnswer(httpx.HTTPTransport):
    """Sends each request to the daemon, but the first answer is lost (a read timeout)."""

    lost = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if not self.lost:
            self.lost += 1
            response.close()
            raise httpx.ReadTimeout("answer lost", request=request)
        return response


class _Flaky(MemorydClient):
    def _connect(self) -> httpx.Client:
        return httpx.Client(
            transport=_LosesFirstAnswer(uds=self.endpoint.uds), **self.http_options()
        )


def test_a_write_retried_after_a_lost_answer_is_written_once(daemon: Daemon) -> None:
    namespace = f"t-{uuid.uuid4().hex[:12]}"
    with _Flaky(daemon.socket, namespace=namespace) as flaky:
        written = flaky.add_message("c1", "user", "only once")  # no key given: one generated
    with MemorydClient(daemon.socket, namespace=namespace) as client:
        assert [m["message_id"] for m in client.list_messages("c1")["messages"]] == [
            written["message_id"]
        ]
        events = client.events(stream="conversation:c1")["events"]
    appended = [e for e in events if e["event_type"] == "MessageAppended"]
    assert len(appended) == 1
    assert appended[0]["idempotency_key"]


def test_a_write_without_a_key_is_not_retried_after_a_lost_answer(daemon: Daemon) -> None:
    with _Flaky(daemon.socket) as flaky, pytest.raises(DaemonUnavailable):
        flaky.run_retrospective("nobody")  # no idempotency key: sending again may repeat it


def test_tcp_needs_the_token(daemon: Daemon) -> None:
    with MemorydClient(url=daemon.url, token=daemon.token, namespace="tcp") as client:
        assert client.add_message("c1", "user", "over tcp")["position"] > 0
        assert client.list_messages("c1")["messages"][0]["content"] == "over tcp"
    with (
        MemorydClient(url=daemon.url, token="x" * 32) as wrong,
        pytest.raises(ApiError) as caught,
    ):
        wrong.list_facts()
    assert (caught.value.status, caught.value.code) == (401, "unauthorized")


def test_no_daemon_is_unavailable_after_bounded_retries(tmp_path: Path) -> None:
    quick = Retry(attempts=3, backoff=0.01)
    with (
        MemorydClient(tmp_path / "none.sock", retry=quick) as client,
        pytest.raises(DaemonUnavailable) as caught,
    ):
        client.health()
    assert str(tmp_path / "none.sock") in str(caught.value)


def test_every_route_of_the_openapi_document_is_a_method() -> None:
    """Each documented operation has a client method (the SSE tail is ``tail_events``)."""
    dummies: dict[str, Any] = {"position": 1, "messages": [], "role": "user"}
    made = {("GET", "/v1/events/stream")}
    for name, route in vars(Routes).items():
        if isinstance(route, Route):
            required = [
                p.name
                for p in inspect.signature(route.build).parameters.values()
                if p.default is inspect.Parameter.empty and p.kind != p.VAR_KEYWORD
            ]
            call = route.build(*(dummies.get(n, "x") for n in required))
            assert call.path.startswith("/"), name
            made.add((call.method, call.path))
    document = build_document()
    documented = {
        (method.upper(), re.sub(r"\{[a-z_]+\}", "x", path))
        for path, operations in document["paths"].items()
        for method in operations
    }
    assert made == documented


def test_times_are_sent_as_iso_with_their_zone() -> None:
    at = datetime(2030, 1, 2, 3, 4, tzinfo=UTC)
    call = MemorydClient.add_fact.build("x", valid_from=at, tags=("a", "b"))
    assert call.body == {"text": "x", "valid_from": "2030-01-02T03:04:00+00:00", "tags": ["a", "b"]}
    assert call.key is not None
    assert call.key != MemorydClient.add_fact.build("x").key  # a new key for each write
    with pytest.raises(ValueError, match="time zone"):
        MemorydClient.list_facts.build(as_of=datetime(2030, 1, 2))  # naive: ambiguous


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"XDG_RUNTIME_DIR": "/run/user/7"},
        {"RUNTIME_DIRECTORY": "/run/memoryd:/run/other", "XDG_RUNTIME_DIR": "/x"},
        {"STATE_DIRECTORY": "/var/lib/memoryd"},
        {"XDG_STATE_HOME": "/home/u/.state"},
    ],
)
def test_the_default_socket_is_where_the_daemon_puts_it(env: dict[str, str]) -> None:
    assert default_socket_path(env) == daemon_socket_path(env)


def test_a_refused_connection_is_tried_again_unless_told_not_to() -> None:
    refused = httpx.ConnectError("refused")
    write: Call[Any] = Call("POST", "/v1/facts", key="k")
    assert Retry().delay(write, 0, refused) > 0
    assert Retry(reconnect=False).delay(write, 0, refused) < 0
    assert Retry(reconnect=False).delay(write, 0, httpx.ReadTimeout("lost")) < 0
    not_ready = httpx.Response(503, json={"error": {"code": "not_ready"}})
    assert Retry(reconnect=False).delay(write, 0, not_ready) > 0


def test_the_daemon_requires_the_client_version_beside_it() -> None:
    daemon = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    client = tomllib.loads((REPO_ROOT / "clients/python/pyproject.toml").read_text())["project"]
    assert f"{client['name']}=={client['version']}" in daemon["dependencies"]


async def _next_message(tail: AsyncIterator[Event]) -> Event:
    """The tail's next message (retrospectives add events of their own)."""
    async for event in tail:
        if event["event_type"] == "MessageAppended":
            return event
    raise AssertionError("the tail ended")


async def _restart_soon(daemon: Daemon, delay: float) -> None:
    await asyncio.to_thread(daemon.stop)
    await asyncio.sleep(delay)
    await asyncio.to_thread(daemon.start)


async def test_calls_wait_out_a_restart_and_the_tail_resumes(tmp_path: Path) -> None:
    with started(tmp_path) as daemon:
        async with AsyncMemorydClient(daemon.socket, retry=Retry(attempts=60)) as client:
            first = await client.add_message("c1", "user", "before")
            tail = client.tail_events(after=0)
            got = [await _next_message(tail)]
            assert got[0]["position"] == first["position"]
            restart = asyncio.create_task(_restart_soon(daemon, 0.5))
            # Refused while the daemon is down, then 503 not_ready while it starts: retried.
            await asyncio.sleep(0.2)
            second = await client.add_message("c1", "user", "during the restart")
            await restart
            third = await client.add_message("c1", "user", "after")
            got += [await _next_message(tail), await _next_message(tail)]
            await tail.aclose()
        assert [e["position"] for e in got] == [
            first["position"],
            second["position"],
            third["position"],
        ]


def test_the_sync_tail_follows_and_resumes(tmp_path: Path) -> None:
    with started(tmp_path) as daemon:
        with MemorydClient(daemon.socket, retry=Retry(attempts=60)) as client:
            first = client.add_message("c1", "user", "one")
            tail = client.tail_events()
            messages = (e for e in tail if e["event_type"] == "MessageAppended")
            assert next(messages)["position"] == first["position"]
            daemon.stop()
            daemon.start()
            second = client.add_message("c1", "user", "two")
            event = next(messages)
            tail.close()
        assert event["position"] == second["position"]
        assert event["data"]["content"] == "two"


def _chat_loop(document: str) -> str:
    """The chat loop's code block in a document of this repository."""
    text = (REPO_ROOT / document).read_text()
    found = re.search(r"```python\n(from memoryd_client import MemorydClient\n.*?)```", text, re.S)
    assert found is not None, document
    return found.group(1)


def test_the_readme_shows_the_chat_loop_the_docs_run() -> None:
    assert _chat_loop("README.md") == _chat_loop("docs/integrations.md")


def test_the_chat_loop_of_the_docs_runs(daemon: Daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    code = _chat_loop("docs/integrations.md")
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(daemon.root))  # the default socket is there
    systems: list[str] = []

    def call_model(*, system: str, user: str) -> str:
        systems.append(system)
        return f"noted: {user}"

    scope: dict[str, Any] = {"call_model": call_model}
    exec(code, scope)
    memory: MemorydClient = scope["memory"]
    try:
        said = memory.add_message("chat-41", "user", "I live in Seattle now, since last month")
        assert scope["reply_to"]("Where do I live now?") == "noted: Where do I live now?"
        assert f"[message {said['message_id']}, chat-41," in systems[-1]
        assert "I live in Seattle now, since last month" in systems[-1]
        scope["reply_to"]("Thanks")
        messages = memory.list_messages("chat-42")["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    finally:
        memory.close()
