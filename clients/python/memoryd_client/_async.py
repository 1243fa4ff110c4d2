"""The asyncio client: the same methods as :class:`MemorydClient`, awaited."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from types import TracebackType
from typing import TypeVar

import httpx

from memoryd_client._core import (
    Call,
    ClientBase,
    SSEParser,
    event_of,
    finish,
    stream_call,
)
from memoryd_client._table import Routes
from memoryd_client.types import Event

T = TypeVar("T")


class AsyncMemorydClient(ClientBase[httpx.AsyncClient], Routes):
    """An asyncio client of the memoryd API v1: the methods of :class:`MemorydClient`,
    awaited. Connection options: :class:`ClientBase`; methods: :class:`Routes`."""

    def _connect(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            transport=httpx.AsyncHTTPTransport(uds=self.endpoint.uds), **self.http_options()
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncMemorydClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def send(self, call: Call[T]) -> T:
        """Send ``call``, retrying as :class:`Retry` allows; return its answer."""
        headers = {} if call.key is None else {"Idempotency-Key": call.key}
        timeout = self.timeout if call.timeout is None else call.timeout
        attempt = 0
        while True:
            outcome: httpx.Response | Exception
            try:
                outcome = await self._http.request(
                    call.method,
                    call.path,
                    params=call.query,
                    json=call.body,
                    headers=headers,
                    timeout=timeout,
                )
            except httpx.TransportError as exc:
                outcome = exc
            delay = self.retry.delay(call, attempt, outcome)
            if delay < 0:
                return finish(call, outcome, self.endpoint.address)
            await asyncio.sleep(delay)
            attempt += 1

    async def tail_events(self, *, after: int | None = None) -> AsyncGenerator[Event, None]:
        """Follow the namespace's events after position ``after`` (Server-Sent Events). A
        lost connection is opened again with ``Last-Event-ID``, so no event is missed or
        repeated; :class:`DaemonUnavailable` once the retries run out."""
        parser = SSEParser()
        attempt = 0
        while True:
            call, headers = stream_call(after, parser.last_id)
            outcome: httpx.Response | Exception
            try:
                async with self._http.stream(
                    "GET", call.path, params=call.query, headers=headers, timeout=None
                ) as outcome:
                    if outcome.status_code < 400:
                        async for line in outcome.aiter_lines():
                            got = parser.feed(line)
                            if got is not None:
                                attempt = 0
                                yield event_of(got[1])
                    else:
                        await outcome.aread()
            except httpx.TransportError as exc:
                outcome = exc
            delay = self.retry.delay(call, attempt, outcome)
            if delay < 0 and (isinstance(outcome, Exception) or outcome.status_code >= 400):
                finish(call, outcome, self.endpoint.address)
            await asyncio.sleep(max(delay, self.retry.backoff))
            attempt += 1
