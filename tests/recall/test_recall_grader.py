"""Iterative recall with a model: the grader's verdicts through the real OpenAI
provider plugin over HTTP, against a scripted fake server; every failure degrades to the
offline path, every call is budgeted, the cap without sufficiency abstains."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from daemon.config import load_config
from daemon.recall.engine import Hit
from daemon.recall.expansion import with_model_passes
from daemon.recall.grader import Verdict, grade, parse_verdict
from daemon.recall.iterative import IterativeOptions, iterative_search
from daemon.recall.model import RecallModel
from daemon.recall.query import Filters, SearchRequest
from tests.api_fixtures import make_config, running
from tests.cli.test_client_cli import memoryd
from tests.llm_fakes import FakeLLMServer, Reply

NOW = datetime(2026, 12, 2, tzinfo=UTC)
QUESTION = "When did Ann adopt the dog she got from the shelter?"


@pytest.fixture
async def fake() -> AsyncIterator[FakeLLMServer]:
    server = FakeLLMServer("openai")
    await server.start()
    yield server
    await server.close()


async def _model(fake: FakeLLMServer, **llm: Any) -> RecallModel:
    overrides: dict[str, object] = {
        "llm.provider": "openai",
        "llm.model": "m-1",
        "llm.base_url": fake.base_url,
        **{f"llm.{k}": v for k, v in llm.items()},
    }
    config = load_config(None, env={}, overrides=overrides)
    model = RecallModel(lambda: NOW)
    await model.apply(config.llm)
    assert model.provider is not None
    return model


def _verdict(sufficient: bool, reformulation: str = "", confidence: float = 0.8) -> Reply:
    body = {"sufficient": sufficient, "confidence": confidence, "reformulation": reformulation}
    return Reply(text=orjson.dumps(body).decode())


class _Search:
    """A scripted index: every query finds its own two documents."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, req: SearchRequest) -> list[Hit]:
        self.asked.append(req.query)
        base = 100 * len(self.asked)
        return [
            Hit(base + i, "message", f"m{base + i}", f"{req.query} #{i}", 1.0 - i / 10, 0, "c", {})
            for i in range(2)
        ]


def _req(query: str = QUESTION) -> SearchRequest:
    return SearchRequest(query=query, filters=Filters(namespace="ns"), top_k=5)


def _user_text(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


async def test_sufficient_at_once_takes_one_call(fake: FakeLLMServer) -> None:
    model = await _model(fake)
    fake.push(_verdict(True, confidence=0.9))
    search = _Search()
    result = await iterative_search(search, _req(), IterativeOptions(), grader=model.grader())
    assert len(fake.requests) == 1
    assert QUESTION in _user_text(fake.requests[0].body)
    assert search.asked == [QUESTION]
    assert not result.abstain
    explained = result.explain()
    assert explained["grader"] == [{"sufficient": True, "confidence": 0.9, "reformulation": ""}]
    assert explained["model_calls"] == 1
    await model.close()


async def test_reformulations_are_judged_against_the_original_question(
    fake: FakeLLMServer,
) -> None:
    model = await _model(fake)
    fake.push(_verdict(False, "Ann shelter dog adoption date"), _verdict(True))
    search = _Search()
    result = await iterative_search(search, _req(), IterativeOptions(), grader=model.grader())
    assert search.asked == [QUESTION, "Ann shelter dog adoption date"]
    assert len(fake.requests) == 2
    second = _user_text(fake.requests[1].body)
    assert f"Question: {QUESTION}" in second  # the original, not the reformulation
    assert "Ann shelter dog adoption date #0" in second  # the fused hits of both passes
    assert [p.source for p in result.passes] == ["question", "grader"]
    assert result.passes[1].added
    assert not result.abstain
    await model.close()


async def test_the_cap_reached_without_sufficiency_abstains(fake: FakeLLMServer) -> None:
    model = await _model(fake)
    fake.push(_verdict(False, "first try"), _verdict(False, "second try"))
    search = _Search()
    options = IterativeOptions(max_iterations=2)
    result = await iterative_search(search, _req(), options, grader=model.grader())
    assert search.asked == [QUESTION, "first try"]
    assert len(fake.requests) == 2
    assert result.abstain
    assert result.explain()["model_calls"] == 2
    await model.close()


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply(text="I think they are fine!"), "bad_output"),
        (Reply(text='{"sufficient": "yes"}'), "bad_output"),
        (Reply(status=500), "server"),
        (Reply(text='{"sufficient": true}', delay=2.0), "timeout"),
    ],
)
async def test_a_failed_call_degrades_to_the_offline_path(
    fake: FakeLLMServer, reply: Reply, error: str
) -> None:
    model = await _model(fake, timeout="1s")
    fake.push(reply)
    search = _Search()
    result = await iterative_search(search, _req(), IterativeOptions(), grader=model.grader())
    assert search.asked == [QUESTION]  # offline: no reformulation is on by default
    assert [h.id for h in result.hits] == ["m100", "m101"]
    assert not result.abstain
    verdicts = result.explain()["grader"]
    assert len(verdicts) == 1
    assert verdicts[0]["error"].startswith(error), verdicts
    offline = await iterative_search(
        search, _req(), IterativeOptions(), ("bridge",), grader=model.grader()
    )
    assert offline.passes[0].source == "question"
    await model.close()


async def test_every_call_counts_against_the_budget(fake: FakeLLMServer) -> None:
    model = await _model(fake, **{"budget.calls_per_day": 1})
    fake.push(_verdict(False, "again"), _verdict(True))
    search = _Search()
    result = await iterative_search(search, _req(), IterativeOptions(), grader=model.grader())
    assert len(fake.requests) == 1  # the second call was refused before it was sent
    assert model.budget is not None
    assert model.budget.usage(NOW)[0] == 1
    verdicts = result.explain()["grader"]
    assert verdicts[0]["reformulation"] == "again"
    assert verdicts[1]["error"].startswith("budget")
    assert not result.abstain
    await model.close()


async def test_an_easy_question_makes_no_call(fake: FakeLLMServer) -> None:
    model = await _model(fake)
    result = await iterative_search(
        _Search(), _req("tea"), IterativeOptions(), grader=model.grader()
    )
    assert fake.requests == []
    assert result.explain()["model_calls"] == 0
    await model.close()


def test_parse_verdict_reads_fenced_json_and_clamps() -> None:
    text = '```json\n{"sufficient": false, "confidence": 7, "reformulation": " a  b "}\n```'
    assert parse_verdict(text) == Verdict(False, 1.0, "a b")
    for bad in ("", "[1]", '{"sufficient": 1}', '{"sufficient": true, "confidence": "x"}'):
        with pytest.raises(ValueError, match=r"."):
            parse_verdict(bad)


async def test_without_a_model_there_is_no_grader() -> None:
    model = RecallModel(lambda: NOW)
    await model.apply(load_config(None, env={}).llm)
    assert model.grader() is None
    hits = [Hit(1, "fact", "f", "x", 1.0, 0, None, {})]
    verdict = await grade(_Broken(), "q", hits)
    assert verdict.error == "failed: RuntimeError('nope')"


class _Broken:
    name = "broken"
    model = "none"

    async def complete(self, request: Any) -> Any:
        raise RuntimeError("nope")

    async def aclose(self) -> None:
        pass


async def test_deep_recall_through_the_daemon_grades_and_abstains(
    tmp_path: Path, fake: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(
        tmp_path,
        **{"llm.provider": "openai", "llm.model": "m-1", "llm.base_url": fake.base_url},
    )
    sock = ["--socket", str(config.server.socket)]
    async with running(config):
        assert await memoryd("messages", "add", "c1", "Ann adopted Rex in May", *sock) == 0
        fake.push(_verdict(False, "Rex adoption"), _verdict(False, "Ann dog"))
        capsys.readouterr()
        args = ("recall", QUESTION, "--deep", "--max-iterations", "2", "--explain", "--json")
        assert await memoryd(*args, *sock) == 0
        out = capsys.readouterr().out
        answer = orjson.loads(out[out.index('{\n  "hits"') :])
        assert answer["abstain"] is True
        assert answer["iterative"]["model_calls"] == 2
        assert [p["source"] for p in answer["iterative"]["passes"]] == ["question", "grader"]
        fake.push(Reply(status=500))
        assert await memoryd(*args, *sock) == 0  # a failing model is not a failing search
        out = capsys.readouterr().out
        answer = orjson.loads(out[out.index('{\n  "hits"') :])
        assert answer["abstain"] is False
        assert answer["iterative"]["grader"][0]["error"].startswith("server")
        assert answer["hits"]
    assert dataclasses.is_dataclass(config)


# -- HyDE and multi-query ---------------------------------------------------------------------


async def test_hyde_and_multi_query_fuse_model_written_passes(fake: FakeLLMServer) -> None:
    model = await _model(fake)
    fake.push(
        Reply(text="Ann adopted Rex from the shelter in May."),
        Reply(text='{"queries": ["Ann dog adoption", "Rex shelter", "extra"]}'),
    )
    search = _Search()
    asked: list[tuple[str, tuple[str, ...]]] = []

    async def recording(req: SearchRequest) -> list[Hit]:
        asked.append((req.query, req.legs))
        return await search(req)

    first = await search(_req())
    hits, info = await with_model_passes(
        recording, _req(), first, model.provider, hyde=True, multi_query=3, timeout=5
    )
    assert asked[0] == ("Ann adopted Rex from the shelter in May.", ("vector",))
    assert sorted(q for q, _ in asked[1:]) == ["Ann dog adoption", "Rex shelter"]  # N-1
    assert info["model_calls"] == 2
    assert info["hyde"]["found"] == 2
    assert [q["query"] for q in info["multi_query"]["queries"]] == [
        "Ann dog adoption",
        "Rex shelter",
    ]
    assert len(hits) == 5
    assert hits[0].id == "m100"  # the question's own best hit leads
    assert _user_text(fake.requests[0].body) == QUESTION
    await model.close()


async def test_without_a_model_hyde_and_multi_query_make_no_call(fake: FakeLLMServer) -> None:
    search = _Search()
    first = await search(_req())
    hits, info = await with_model_passes(
        search, _req(), first, None, hyde=True, multi_query=4, timeout=5
    )
    assert hits == first
    assert info == {"hyde": {"skipped": "no model"}, "multi_query": {"skipped": "no model"}}
    assert search.asked == [QUESTION]
    assert fake.requests == []
    same, nothing = await with_model_passes(
        search, _req(), first, None, hyde=False, multi_query=1, timeout=5
    )
    assert same == first
    assert nothing == {}


async def test_a_failed_hyde_or_multi_query_call_leaves_the_hits(fake: FakeLLMServer) -> None:
    model = await _model(fake)
    fake.push(Reply(status=500), Reply(text="no json here"))
    search = _Search()
    first = await search(_req())
    hits, info = await with_model_passes(
        search, _req(), first, model.provider, hyde=True, multi_query=2, timeout=5
    )
    assert hits == first
    assert info["hyde"]["error"].startswith("server")
    assert info["multi_query"]["error"].startswith("bad_output")
    assert info["model_calls"] == 2
    await model.close()


async def test_calls_go_through_the_retrospectives_budget_when_it_runs(
    fake: FakeLLMServer,
) -> None:
    other = await _model(fake)  # stands for the retrospective service's budgeted provider
    assert other.provider is not None
    assert other.budget is not None
    running_with: list[tuple[Any, Any]] = []
    model = RecallModel(lambda: NOW, lambda: running_with[0] if running_with else None)
    config = load_config(
        None,
        env={},
        overrides={"llm.provider": "openai", "llm.model": "m-1", "llm.base_url": fake.base_url},
    )
    await model.apply(config.llm)
    assert model.budget is not None
    assert model.budget is not other.budget  # not running: its own tracker
    running_with.append((other.provider, other.budget))
    assert model.budget is other.budget
    fake.push(_verdict(True))
    await iterative_search(_Search(), _req(), IterativeOptions(), grader=model.grader())
    assert other.budget.usage(NOW)[0] == 1  # counted where the retrospectives count
    await model.close()
    await other.close()
