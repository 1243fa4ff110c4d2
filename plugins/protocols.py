"""The typed Protocols of memoryd's plugin seams, in one place.

A plugin hands the registry a factory (``register(name, factory)``, see
:mod:`plugins.hookspecs`); the factory takes the plugin's configuration mapping and returns an
object satisfying one of these Protocols. :class:`plugins.registry.Plugins` checks the built
object against its Protocol, so the daemon only ever holds typed objects:

- :class:`Embedder` (kind ``embedder``, ``[recall] embedder``): texts in, unit vectors out.
- :class:`LLMProvider` (kind ``llm_provider``, ``[llm] provider``): one completion request in,
  one completion out, or a classified :class:`~plugins.llm.types.LLMError`.
- :class:`Extractor` (kind ``extractor``, ``[retrospective] extractor``): an LLMProvider that
  reads ``request.transcript`` and answers with a ``record_facts`` tool call, no model.
- :class:`Agent` (kind ``agent``): reviews a batch of facts (with their salience, graph
  metrics and neighbours) and an :class:`~plugins.agents.inputs.AgentContext` (recent
  episodes, the graph's shape, the health audit) through a provider and answers with parsed
  actions.
- :class:`IngestGate` (kind ``ingest_gate``, ``[consolidation] ingest_gate``): refuses a
  message before extraction, saying why, or admits it.

The contract suites of :mod:`plugins.testing` state what each Protocol promises beyond its
signatures; a plugin's own tests subclass them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from plugins.agents.base import AgentAnswer, BatchFact
from plugins.agents.inputs import AgentContext
from plugins.embedders.base import Embedder, Vectors
from plugins.gates.base import GateMessage
from plugins.llm.types import Completion, CompletionRequest, LLMProvider

__all__ = [
    "Agent",
    "AgentAnswer",
    "AgentContext",
    "BatchFact",
    "Completion",
    "CompletionRequest",
    "Embedder",
    "Extractor",
    "GateMessage",
    "IngestGate",
    "LLMProvider",
    "Vectors",
]


@runtime_checkable
class Extractor(LLMProvider, Protocol):
    """A local provider that distils facts from ``request.transcript`` without a model.

    It answers with one ``record_facts`` tool call whose ``facts`` each cite the
    ``message_id`` of the user turns they come from (``source_message_ids``).
    """


@runtime_checkable
class Agent(Protocol):
    """A consolidation agent: review batches of facts with a model, answer in actions."""

    @property
    def name(self) -> str:
        """Return the agent's registered name (recorded with what it did)."""
        ...

    @property
    def batch_size(self) -> int:
        """Return how many facts one :meth:`review` call takes at most."""
        ...

    async def review(
        self,
        provider: LLMProvider,
        batch: Sequence[BatchFact],
        context: AgentContext | None = None,
    ) -> AgentAnswer:
        """Ask ``provider`` about ``batch`` (the facts under review, then any ``context``
        facts: neighbours an action may name) and return the parsed actions (keys of
        ``batch``). ``context`` is what the review shares: recent episodes, the graph's
        shape, the health audit's findings; None when the caller has none."""
        ...


@runtime_checkable
class IngestGate(Protocol):
    """A predicate on messages before extraction: a refused message never reaches the
    extractor (a model or the offline one), and the run records why it was refused."""

    @property
    def name(self) -> str:
        """Return the gate's registered name."""
        ...

    async def refuse(self, message: GateMessage) -> str | None:
        """Return why ``message`` may not reach the extractor; None admits it."""
        ...
