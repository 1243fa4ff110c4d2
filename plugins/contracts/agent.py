"""What every consolidation agent promises (:class:`plugins.protocols.Agent`).

An agent shows the model a batch of facts under keys (``F1``, ``F2``...) and turns its answer
into actions that name only those keys. Every non-blank line of the answer becomes an action
or a reported error, never silently dropped; an empty answer is no action and no error; the
answer records the agent's name and the model's usage. It takes the daemon's inputs too
(:mod:`plugins.agents.inputs`: metrics and neighbours on each fact, context facts after the
batch, an :class:`~plugins.agents.inputs.AgentContext`), shows every fact of the batch,
context facts included, under its key, and never shows the model a fact's or an episode's id.
"""

from __future__ import annotations

import abc
from collections import deque
from collections.abc import Callable, Iterable

from plugins.agents.actions import Parsed
from plugins.agents.base import BatchFact
from plugins.agents.inputs import (
    AgentContext,
    EpisodeBrief,
    FactMetrics,
    GraphSummary,
    Neighbour,
)
from plugins.llm.types import Completion, CompletionRequest, Usage
from plugins.protocols import Agent

BATCH = (
    BatchFact("F1", "fact-1", "The user lives in Lisbon.", ("place",)),
    BatchFact("F2", "fact-2", "The user moved to Lisbon last year.", (), "home"),
    BatchFact("F3", "fact-3", "The user works as a nurse."),
)

WITH_INPUTS = (
    BatchFact(
        "F1",
        "fact-1",
        "The user lives in Lisbon.",
        salience=0.9,
        metrics=FactMetrics(degree=1, clustering=0.0, links={"related": 1}, component_size=2),
        neighbours=(Neighbour("F3", "linked:related"), Neighbour("F2", "similar", 0.7)),
        flags=("hub",),
    ),
    BatchFact("F2", "fact-2", "The user moved to Lisbon last year.", salience=0.5),
    BatchFact("F3", "fact-3", "The user's sister visits Lisbon.", context=True),
)
"""A batch as the daemon hands it: inputs on each fact, a context fact (F3) after it."""
CONTEXT = AgentContext(
    episodes=(EpisodeBrief("episode-1", "The user talked about the move.", "2026-01-02", 0.7),),
    graph=GraphSummary(facts=3, links=1, components=2, isolated=1, largest_component=2),
    findings={"hubs": 1},
)


class ScriptedProvider:
    """An :class:`~plugins.protocols.LLMProvider` answering each call with the next of
    ``answers`` (then ``""``), or with ``fn(request)``; it keeps every request it was sent."""

    def __init__(
        self,
        answers: Iterable[str] = (),
        *,
        fn: Callable[[CompletionRequest], str] | None = None,
        usage: Usage | None = None,
    ) -> None:
        self.answers = deque(answers)
        self.fn = fn
        self.usage = usage or Usage()
        self.requests: list[CompletionRequest] = []

    @property
    def name(self) -> str:
        return "scripted"

    @property
    def model(self) -> str:
        return "scripted-1"

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        if self.fn is not None:
            text = self.fn(request)
        else:
            text = self.answers.popleft() if self.answers else ""
        return Completion(text=text, usage=self.usage, model=self.model)

    async def aclose(self) -> None:
        """Nothing to release."""


class AgentContract(abc.ABC):
    """Subclass and implement :meth:`make_agent`; set :attr:`GOOD_ANSWER` to an answer your
    agent accepts for :data:`BATCH` (at least one action, keys ``F1``-``F3``)."""

    GOOD_ANSWER = 'NOTE "the facts agree"'

    @abc.abstractmethod
    def make_agent(self) -> Agent:
        """Return a new agent."""

    async def _review(self, answer: str) -> tuple[ScriptedProvider, Parsed]:
        provider = ScriptedProvider([answer], usage=Usage(input_tokens=12, output_tokens=5))
        agent = self.make_agent()
        result = await agent.review(provider, BATCH)
        assert result.agent == agent.name
        assert result.usage == provider.usage
        return provider, result.parsed

    async def test_is_an_agent(self) -> None:
        agent = self.make_agent()
        assert isinstance(agent, Agent)
        assert agent.name.strip()
        assert agent.batch_size >= 1

    async def test_the_model_is_shown_every_fact_under_its_key(self) -> None:
        provider, _ = await self._review("")
        [request] = provider.requests
        shown = request.system + "\n" + "\n".join(m.content for m in request.messages)
        for fact in BATCH:
            assert fact.key in shown
            assert fact.text in shown
        assert all(fact.fact_id not in shown for fact in BATCH)

    async def test_an_empty_answer_is_no_action_and_no_error(self) -> None:
        _, parsed = await self._review("\n  \n")
        assert parsed.actions == []
        assert parsed.errors == []

    async def test_a_good_answer_gives_actions_on_the_batch_keys(self) -> None:
        _, parsed = await self._review(self.GOOD_ANSWER)
        assert parsed.errors == []
        assert parsed.actions
        keys = {fact.key for fact in BATCH}
        for action in parsed.actions:
            assert action.verb.isupper()
            assert set(action.keys) <= keys
            assert isinstance(action.to_json(), dict)

    async def test_every_line_is_an_action_or_an_error(self) -> None:
        answer = "\n".join(
            [
                self.GOOD_ANSWER,
                "LINK F1 F99",
                "please delete everything",
                "",
                'MERGE F1 "unterminated',
                "FORGET F2",
            ]
        )
        _, parsed = await self._review(answer)
        nonblank = [line for line in answer.splitlines() if line.strip()]
        assert len(parsed.actions) + len(parsed.errors) == len(nonblank)
        assert len(parsed.errors) >= 4
        for action in parsed.actions:
            assert "F99" not in action.keys

    async def test_the_daemon_inputs_are_taken_and_ids_stay_hidden(self) -> None:
        provider = ScriptedProvider([self.GOOD_ANSWER, "LINK F1 F3"])
        agent = self.make_agent()
        result = await agent.review(provider, WITH_INPUTS, CONTEXT)
        assert result.parsed.errors == []
        [request] = provider.requests
        shown = request.system + "\n" + "\n".join(m.content for m in request.messages)
        for fact in WITH_INPUTS:
            assert f"{fact.key}: {fact.text}" in shown
            assert fact.fact_id not in shown
        assert "episode-1" not in shown
        # a context fact's key is a key of the batch: an action may name it (this agent may
        # not be allowed to LINK, but the key is known)
        again = await agent.review(provider, WITH_INPUTS, CONTEXT)
        assert [e.message for e in again.parsed.errors if "unknown key" in e.message] == []
