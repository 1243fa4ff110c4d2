"""Which model each consolidation call asks: ``cheap_model`` for the light and standard
phases' calls (and the retrospective's extraction, the standard phase's first step),
``deep_model`` for the deep phase's and analyze's, each overridden per call site by
``[consolidation.models]``; unset everywhere, the ``[llm]`` provider's configured model.

:class:`ModelChoice` wraps a provider so a request that names no model asks the chosen one
(a request that names one, such as a conversation's own profile, keeps it), and so the
provider's ``model`` says which model its calls go to: what the events record.
"""

from __future__ import annotations

import dataclasses

from daemon.config import ConsolidationConfig
from plugins.llm.budget import ProviderWrapper
from plugins.llm.types import Completion, CompletionRequest, LLMProvider

CALL_SITES: dict[str, str] = {
    "retrospective": "cheap",
    "reconcile": "cheap",
    "agents": "cheap",
    "episodes": "cheap",
    "judge": "deep",
    "reflection": "deep",
    "analyze": "deep",
    "profile": "deep",
    "blocks": "deep",
}
"""Every call site and the phase model it asks unless ``[consolidation.models]`` names one."""


def model_for(config: ConsolidationConfig, site: str) -> str | None:
    """Return the model ``site`` asks (None: the provider's configured model)."""
    named: str | None = getattr(config.models, site)
    if named is not None:
        return named
    return config.cheap_model if CALL_SITES[site] == "cheap" else config.deep_model


def models_used(config: ConsolidationConfig, provider: LLMProvider | None) -> dict[str, str]:
    """Return the model each call site asks (for a run's inputs); empty without a provider."""
    if provider is None:
        return {}
    return {site: model_for(config, site) or provider.model for site in CALL_SITES}


class ModelChoice(ProviderWrapper):
    """A provider whose requests ask ``chosen`` unless they name a model themselves."""

    def __init__(self, inner: LLMProvider, chosen: str | None) -> None:
        super().__init__(inner)
        self.chosen = chosen

    @property
    def model(self) -> str:
        """Return the model a request naming none is sent to."""
        return self.chosen or self.inner.model

    async def complete(self, request: CompletionRequest) -> Completion:
        """Call the wrapped provider, asking the chosen model when the request names none."""
        if request.model is None and self.chosen is not None:
            request = dataclasses.replace(request, model=self.chosen)
        return await self.inner.complete(request)


def choose(provider: LLMProvider, config: ConsolidationConfig, site: str) -> LLMProvider:
    """Return ``provider`` asking ``site``'s model."""
    return ModelChoice(provider, model_for(config, site))
