"""Contract suites for memoryd's plugin seams: subclass one in your plugin's tests.

Each contract is a plain class whose ``test_*`` methods state what its seam promises (the
Protocols of :mod:`plugins.protocols` give the signatures; these give the behaviour). Its
name does not start with ``Test``, so pytest collects it only through a subclass::

    from plugins.contracts import EmbedderContract

    class TestMyEmbedder(EmbedderContract):
        def make_embedder(self) -> Embedder:
            return MyEmbedder()

The tests are ``async def``: run them with pytest-asyncio (``asyncio_mode = "auto"``, as
memoryd does). This package imports pytest; only tests import it. Every built-in plugin runs
its contract (``tests/plugins/test_contracts.py``); the event store contract, for store backends, is
:class:`events.store.contract.EventStoreContract`.
"""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite(
    "plugins.contracts.agent",
    "plugins.contracts.embedder",
    "plugins.contracts.extractor",
    "plugins.contracts.gate",
    "plugins.contracts.provider",
)

from plugins.contracts.agent import AgentContract, ScriptedProvider  # noqa: E402
from plugins.contracts.embedder import EmbedderContract  # noqa: E402
from plugins.contracts.extractor import ExtractorContract  # noqa: E402
from plugins.contracts.gate import IngestGateContract  # noqa: E402
from plugins.contracts.provider import Behaviour, LLMProviderContract  # noqa: E402

__all__ = [
    "AgentContract",
    "Behaviour",
    "EmbedderContract",
    "ExtractorContract",
    "IngestGateContract",
    "LLMProviderContract",
    "ScriptedProvider",
]
