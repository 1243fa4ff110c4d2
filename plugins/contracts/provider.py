"""What every LLM provider promises (:class:`plugins.protocols.LLMProvider`).

A provider answers one request with one :class:`~plugins.llm.types.Completion`, or raises
:class:`~plugins.llm.types.LLMError` whose ``kind`` tells the caller what to do: a call that
outlives the configured timeout fails as ``timeout`` (in about that time), a server error as
``server``, a refusal for load as ``rate_limit`` (all three retryable) and a request the
backend rejects as ``bad_request`` (not retryable). No error text carries the API key, and a
failure does not spoil the next call.
"""

from __future__ import annotations

import abc
import time
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Literal

import pytest

from plugins.llm.types import ERROR_KINDS, ChatMessage, CompletionRequest, LLMError
from plugins.protocols import LLMProvider

Behaviour = Literal["answer", "hang", "server_error", "rate_limited", "bad_request"]
"""How the backend answers one call: ``answer`` with :attr:`LLMProviderContract.ANSWER`,
``hang`` (answer only long after the timeout), or fail as a server error (HTTP 500), a rate
limit (HTTP 429) or a rejected request (HTTP 400)."""

REQUEST = CompletionRequest(
    system="You answer in one word.",
    messages=[ChatMessage("user", "Say pong.")],
    max_tokens=16,
)


class LLMProviderContract(abc.ABC):
    """Subclass and implement :meth:`serving`."""

    ANSWER = "pong"
    SECRET = "sk-contract-secret-0123456789"
    """The API key :meth:`serving` must configure the provider with (never shown in errors)."""
    TIMEOUT = 0.3
    """The call timeout :meth:`serving` must configure, in seconds."""

    @abc.abstractmethod
    def serving(self, script: Sequence[Behaviour]) -> AbstractAsyncContextManager[LLMProvider]:
        """Yield a provider (timeout :attr:`TIMEOUT`, key :attr:`SECRET`) whose backend
        answers its n-th call as ``script[n]``; close both on exit."""

    async def _fails(self, behaviour: Behaviour) -> LLMError:
        async with self.serving([behaviour]) as provider:
            with pytest.raises(LLMError) as caught:
                await provider.complete(REQUEST)
        error = caught.value
        assert error.kind in ERROR_KINDS
        assert self.SECRET not in str(error)
        assert self.SECRET not in error.message
        return error

    async def test_answers_with_text_usage_and_model(self) -> None:
        async with self.serving(["answer"]) as provider:
            assert isinstance(provider, LLMProvider)
            assert provider.name.strip()
            assert provider.model.strip()
            completion = await provider.complete(REQUEST)
        assert completion.text == self.ANSWER
        assert completion.usage.input_tokens >= 0
        assert completion.usage.output_tokens >= 0
        assert isinstance(completion.model, str)

    async def test_a_call_past_the_timeout_fails_as_timeout(self) -> None:
        started = time.monotonic()
        error = await self._fails("hang")
        assert error.kind == "timeout"
        assert error.retryable
        assert time.monotonic() - started < self.TIMEOUT + 5.0

    async def test_a_server_error_is_retryable(self) -> None:
        error = await self._fails("server_error")
        assert error.kind == "server"
        assert error.retryable

    async def test_a_rate_limit_is_retryable(self) -> None:
        error = await self._fails("rate_limited")
        assert error.kind == "rate_limit"
        assert error.retryable
        assert error.retry_after is None or error.retry_after >= 0

    async def test_a_rejected_request_is_not_retried(self) -> None:
        error = await self._fails("bad_request")
        assert error.kind == "bad_request"
        assert not error.retryable

    async def test_a_failure_does_not_spoil_the_next_call(self) -> None:
        async with self.serving(["server_error", "answer"]) as provider:
            with pytest.raises(LLMError):
                await provider.complete(REQUEST)
            completion = await provider.complete(REQUEST)
        assert completion.text == self.ANSWER

    async def test_closing_twice_is_harmless(self) -> None:
        async with self.serving(["answer"]) as provider:
            await provider.complete(REQUEST)
            await provider.aclose()
            await provider.aclose()
