"""The one error shape of the API and the JSON helpers every handler uses.

Every 4xx/5xx response body is ``{"error": {"code", "message", "details"}}``. Handlers raise
:class:`ApiError`; the error middleware in :mod:`daemon.api.middleware` turns it (and aiohttp's own
404/405/413) into that body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from aiohttp import web

JSON_CONTENT_TYPE = "application/json"


def dumps(value: Any) -> bytes:
    """Encode a value as JSON (orjson: datetimes as RFC 3339, dataclasses as objects)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def json_response(
    data: Any, *, status: int = 200, headers: Mapping[str, str] | None = None
) -> web.Response:
    """Return a JSON response encoded with orjson."""
    return web.Response(
        body=dumps(data), status=status, content_type=JSON_CONTENT_TYPE, headers=headers
    )


class ApiError(Exception):
    """An error the client should see: HTTP status, stable code, message and details."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Mapping[str, Any] | None = None,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        self.headers = dict(headers or {})

    def response(self) -> web.Response:
        """Return the JSON error response."""
        return error_response(self.status, self.code, self.message, self.details, self.headers)


def error_response(
    status: int,
    code: str,
    message: str,
    details: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> web.Response:
    """Return ``{"error": {...}}`` with the given status."""
    body = {"error": {"code": code, "message": message, "details": dict(details or {})}}
    return json_response(body, status=status, headers=headers)


def invalid(field: str, message: str, **details: Any) -> ApiError:
    """Return a 400 naming the offending field."""
    return ApiError(400, "invalid_request", f"{field}: {message}", {"field": field, **details})


def not_found(kind: str, ident: str) -> ApiError:
    """Return a 404 for an unknown resource."""
    return ApiError(404, "not_found", f"{kind} {ident!r} not found", {kind: ident})


HTTP_ERROR_CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    409: "conflict",
    411: "length_required",
    413: "body_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "too_many_requests",
    431: "headers_too_large",
    500: "internal_error",
    503: "unavailable",
}


def from_http_exception(exc: web.HTTPException) -> web.Response:
    """Convert one of aiohttp's own HTTP errors into the API's error body."""
    code = HTTP_ERROR_CODES.get(exc.status, "http_error")
    details: dict[str, Any] = {}
    headers: dict[str, str] = {}
    message = exc.reason
    if isinstance(exc, web.HTTPMethodNotAllowed):
        allowed = sorted(exc.allowed_methods)
        details["allowed_methods"] = allowed
        headers["Allow"] = ",".join(allowed)
        message = f"method {exc.method} is not allowed here"
    elif isinstance(exc, web.HTTPRequestEntityTooLarge):
        text = exc.text or ""
        message = "request body is larger than the limit"
        details["detail"] = text
    elif exc.status == 404:
        message = "no such route"
    return error_response(exc.status, code, message, details, headers)
