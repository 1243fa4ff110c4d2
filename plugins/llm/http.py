"""The HTTP side shared by the remote providers: one aiohttp session, error classification.

The API key is read from the environment when a request is sent, goes only into a request
header, and is scrubbed from any text that could reach a log or an exception (some APIs echo
a wrong key back in their error message).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp
import orjson

from plugins.llm.settings import LLMSettings
from plugins.llm.types import Completion, CompletionRequest, LLMError, Usage

MAX_ERROR_TEXT = 300


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Read a Retry-After header: delta seconds or an HTTP date; ``None`` if absent or bad."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds or seconds < 0:  # NaN or in the past
        return 0.0
    return seconds


def classify_status(status: int) -> str:
    """Map an HTTP status to an error kind."""
    if status == 429:
        return "rate_limit"
    if status == 408:
        return "timeout"
    if status >= 500:
        return "server"
    return "bad_request"


class HttpProvider:
    """Base of the remote providers: settings, a lazily created session, JSON POSTs."""

    provider_name = "http"

    def __init__(self, settings: LLMSettings, *, environ: Mapping[str, str] | None = None) -> None:
        self._settings = settings
        self._environ = environ
        self._session: aiohttp.ClientSession | None = None

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model={self._settings.model!r}, "
            f"base_url={self._settings.base_url!r}, api_key_env={self._settings.api_key_env!r})"
        )

    @property
    def name(self) -> str:
        """Return the provider's name."""
        return self.provider_name

    @property
    def model(self) -> str:
        """Return the configured model."""
        return self._settings.model

    @property
    def settings(self) -> LLMSettings:
        """Return the connection settings (they hold no secret)."""
        return self._settings

    def _api_key(self) -> str | None:
        return self._settings.api_key(self._environ)

    def _scrub(self, text: str) -> str:
        key = self._api_key()
        if key:
            text = text.replace(key, "[api key]")
        return text[:MAX_ERROR_TEXT]

    async def complete(self, request: CompletionRequest) -> Completion:
        """Answer one request (each API implements it)."""
        raise NotImplementedError

    async def aclose(self) -> None:
        """Close the HTTP session."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self._settings.timeout)
            )
        return self._session

    async def _post_json(
        self, path: str, body: Mapping[str, Any], headers: Mapping[str, str]
    ) -> dict[str, Any]:
        """POST JSON and return the decoded object, or raise a classified :class:`LLMError`."""
        url = f"{self._settings.base_url}{path}"
        try:
            async with self._get_session().post(
                url,
                data=orjson.dumps(body),
                headers={"Content-Type": "application/json", **headers},
            ) as response:
                raw = await response.read()
                if response.status >= 400:
                    kind = classify_status(response.status)
                    detail = self._scrub(raw.decode("utf-8", "replace"))
                    raise LLMError(
                        kind,  # type: ignore[arg-type]
                        f"HTTP {response.status} from {self.provider_name}: {detail}",
                        status=response.status,
                        retry_after=parse_retry_after(response.headers.get("Retry-After")),
                    )
        except TimeoutError as exc:
            raise LLMError(
                "timeout", f"no answer from {self.provider_name} in {self._settings.timeout}s"
            ) from exc
        except aiohttp.ClientError as exc:
            raise LLMError(
                "server", f"cannot reach {self.provider_name}: {self._scrub(str(exc))}"
            ) from exc
        except asyncio.CancelledError:
            raise
        try:
            decoded = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise LLMError("bad_output", f"{self.provider_name} answered with non-JSON") from exc
        if not isinstance(decoded, dict):
            raise LLMError("bad_output", f"{self.provider_name} answered with a non-object")
        return decoded


def parse_tool_arguments(raw: Any, tool: str) -> dict[str, Any]:
    """Return tool arguments as an object; JSON text is decoded. Anything else is bad_output."""
    if isinstance(raw, str):
        try:
            raw = orjson.loads(raw) if raw.strip() else {}
        except orjson.JSONDecodeError as exc:
            raise LLMError("bad_output", f"arguments of tool {tool!r} are not valid JSON") from exc
    if not isinstance(raw, dict):
        raise LLMError("bad_output", f"arguments of tool {tool!r} are not a JSON object")
    return raw


def parse_usage(data: Mapping[str, Any], input_key: str, output_key: str) -> Usage:
    """Return the token usage a response reports under its provider's names for the two
    counts (0 for a count absent or malformed, zeros without a usage object)."""
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return Usage()
    return Usage(
        input_tokens=_count(usage.get(input_key)), output_tokens=_count(usage.get(output_key))
    )


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return 0
    return value
