"""The blocking client."""

from __future__ import annotations

import time
from collections.abc import Generator
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


class MemorydClient(ClientBase[httpx.Client], Routes):
    """A blocking client of the memoryd API v1: each method sends its request and returns
    the answer. Connection options: :class:`ClientBase`; methods: :class:`Routes`."""

    def _connect(self) -> httpx.Client:
        return httpx.Client(
            transport=httpx.HTTPTransport(uds=self.endpoint.uds), **self.http_options()
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> MemorydClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def send(self, call: Call[T]) -> T:
        """Send ``call``, retrying as :class:`Retry` allows; return its answer."""
        headers = {} if call.key is None else {"Idempotency-Key": call.key}
        timeout = self.timeout if call.timeout is None else call.timeout
        attempt = 0
        while True:
            outcome: httpx.Response | Exception
            try:
                outcome = self._http.request(
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
            time.sleep(delay)
            attempt += 1

    def tail_events(self, *, after: int | None = None) -> Generator[Event, None, None]:
        """Follow the namespace's events after position ``after`` (Server-Sent Events). A
        lost connection is opened again with ``Last-Event-ID``, so no event is missed or
        repeated; :class:`DaemonUnavailable` once the retries run out."""
        parser = SSEParser()
        attempt = 0
        while True:
            call, headers = stream_call(after, parser.last_id)
            outcome: httpx.Response | Exception
            try:
                with self._http.stream(
                    "GET", call.path, params=call.query, headers=headers, timeout=None
                ) as outcome:
                    if outcome.status_code < 400:
                        for line in outcome.iter_lines():
                            got = parser.feed(line)
                            if got is not None:
                                attempt = 0
                                yield event_of(got[1])
                    else:
                        outcome.read()
            except httpx.TransportError as exc:
                outcome = exc
            delay = self.retry.delay(call, attempt, outcome)
            if delay < 0 and (isinstance(outcome, Exception) or outcome.status_code >= 400):
                finish(call, outcome, self.endpoint.address)
            time.sleep(max(delay, self.retry.backoff))
            attempt += 1
