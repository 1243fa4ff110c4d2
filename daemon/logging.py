"""Structured logs: structlog for memoryd's own events, stdlib loggers routed through it.

One pipeline for everything: context variables (the request id) first, then the level, an ISO
UTC timestamp and secret redaction, then a renderer. JSON lines (rendered with orjson, written
as bytes) when the output is not a terminal; structlog's console renderer when it is, or as
configured. Records from stdlib loggers (``aiohttp.access``, ``aiohttp.server``,
``sqlalchemy``, ``alembic``, ``watchfiles``, ...) go through the same processors via
:class:`structlog.stdlib.ProcessorFormatter`, so they come out in the same shape with the same
request id.

:func:`configure_logging` may be called again at any time (a config reload changing the level
or format): it replaces what it installed before. Loggers are not cached on first use, so a
module-level ``log = get_logger(__name__)`` follows every reconfiguration.

Secrets: values under keys that look like credentials (``*api_key*``, ``*token*``,
``*authorization*``, ``*secret*``, ``*password*``, ``*cookie*``) are replaced by ``"***"``
unless they are numbers (token *counts* stay visible); ``Bearer``/``Basic`` credentials,
``sk-...`` keys and passwords inside URLs are masked in every string value. Keys ending in
``_env`` name an environment variable, not its value, and are kept.
"""

from __future__ import annotations

import io
import logging
import re
import sys
import threading
import uuid
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import IO, Any, Literal

import orjson
import structlog
import structlog.tracebacks
from structlog._config import BoundLoggerLazyProxy
from structlog.contextvars import bind_contextvars, clear_contextvars, reset_contextvars
from structlog.typing import EventDict, Processor, WrappedLogger

LogFormat = Literal["auto", "json", "console"]
LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}
REQUEST_ID_KEY = "request_id"
REDACTED = "***"

# Third-party loggers that are chatty at INFO: shown only when memoryd runs at debug.
_QUIET_UNLESS_DEBUG = ("watchfiles", "asyncio", "aiosqlite")

_SECRET_KEY = re.compile(r"api[_-]?key|token|authori[sz]ation|secret|passw(or)?d|cookie", re.I)
_SECRET_TEXT = re.compile(
    r"(?P<scheme>\bbearer\s+)[A-Za-z0-9._~+/=-]+"
    r"|(?P<basic>\bbasic\s+)[A-Za-z0-9+/]{8,}={0,2}"
    r"|\bsk-(?:ant-)?[A-Za-z0-9_-]{8,}"
    r"|(?P<userinfo>://[^\s:/@]*:)[^\s@/]+@",
    re.IGNORECASE,
)
_MAX_DEPTH = 6


def _mask_match(match: re.Match[str]) -> str:
    if match.group("scheme"):
        return match.group("scheme") + REDACTED
    if match.group("basic"):
        return match.group("basic") + REDACTED
    if match.group("userinfo"):
        return match.group("userinfo") + REDACTED + "@"
    return "sk-" + REDACTED


def redact_text(text: str) -> str:
    """Mask credentials inside free text (Bearer tokens, ``sk-`` keys, URL passwords)."""
    return _SECRET_TEXT.sub(_mask_match, text)


def _is_secret_key(key: object) -> bool:
    return isinstance(key, str) and not key.endswith("_env") and bool(_SECRET_KEY.search(key))


def _redact_value(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if depth >= _MAX_DEPTH:
        return value
    if isinstance(value, Mapping):
        return {
            k: (_mask(v) if _is_secret_key(k) else _redact_value(v, depth + 1))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(_redact_value(v, depth + 1) for v in value)
    return value


def _mask(value: Any) -> Any:
    """Hide a value held under a secret-looking key; numbers and None stay."""
    if value is None or isinstance(value, bool | int | float):
        return value
    return REDACTED


def redact_secrets(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
    """A structlog processor that masks credentials anywhere in the event."""
    for key, value in list(event_dict.items()):
        if key.startswith("_"):
            continue  # ProcessorFormatter's own _record / _from_structlog
        if _is_secret_key(key):
            event_dict[key] = _mask(value)
        else:
            event_dict[key] = _redact_value(value, 0)
    return event_dict


def _orjson_bytes(obj: Any, **kwargs: Any) -> bytes:
    return orjson.dumps(obj, default=kwargs.get("default"), option=orjson.OPT_UTC_Z)


def _orjson_text(obj: Any, **kwargs: Any) -> str:
    return _orjson_bytes(obj, **kwargs).decode("utf-8")


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (ValueError, OSError):  # closed or detached
        return False


def resolve_format(fmt: str, stream: object) -> Literal["json", "console"]:
    """``auto`` is JSON unless ``stream`` is a terminal."""
    if fmt == "json":
        return "json"
    if fmt == "console":
        return "console"
    if fmt != "auto":
        raise ValueError(f"unknown log format {fmt!r} (auto, json or console)")
    return "console" if _isatty(stream) else "json"


class _SinkHandler(logging.Handler):
    """Write stdlib records, already rendered to one line, to the same sink as structlog."""

    def __init__(self, sink: Any, binary: bool) -> None:
        super().__init__()
        self._sink = sink
        self._binary = binary
        self._write_lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + "\n"
            with self._write_lock:
                self._sink.write(line.encode("utf-8") if self._binary else line)
                self._sink.flush()
        except Exception:
            self.handleError(record)


_installed: _SinkHandler | None = None
_saved_root_level: int | None = None
_configure_lock = threading.Lock()


def _split_stream(stream: Any) -> tuple[Any, bool]:
    """Return ``(sink, binary)``: the byte buffer under a text stream when there is one."""
    buffer = getattr(stream, "buffer", None)
    if isinstance(stream, io.TextIOBase) and buffer is not None:
        stream.flush()
        return buffer, True
    if isinstance(stream, io.TextIOBase):
        return stream, False
    return stream, True


def configure_logging(
    level: str = "info",
    format: str = "auto",
    stream: IO[str] | IO[bytes] | None = None,
) -> None:
    """Set up structlog and route stdlib logging through it; safe to call again.

    ``level``: debug|info|warning|error|critical. ``format``: auto|json|console (auto is JSON
    unless ``stream`` is a terminal). ``stream`` defaults to ``sys.stdout``; a text stream with
    a ``buffer`` gets JSON as bytes on that buffer.
    """
    global _installed, _saved_root_level
    if level not in LEVELS:
        raise ValueError(f"unknown log level {level!r} ({', '.join(LEVELS)})")
    target: Any = sys.stdout if stream is None else stream
    fmt = resolve_format(format, target)
    level_no = LEVELS[level]

    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if fmt == "json":
        sink, binary = _split_stream(target)
        # Structured tracebacks without frame locals (they may hold keys and message text).
        exceptions: list[Processor] = [
            structlog.processors.ExceptionRenderer(
                structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
            )
        ]
        native_renderer: Processor = structlog.processors.JSONRenderer(
            serializer=_orjson_bytes if binary else _orjson_text
        )
        stdlib_renderer: Processor = structlog.processors.JSONRenderer(serializer=_orjson_text)
        factory: Any = (
            structlog.BytesLoggerFactory(file=sink)
            if binary
            else structlog.WriteLoggerFactory(file=sink)
        )
    else:
        if isinstance(target, io.TextIOBase):
            sink, binary = target, False
        else:  # a byte stream for a person: decode on the way
            sink = io.TextIOWrapper(target, encoding="utf-8", write_through=True)
            binary = False
        exceptions = []
        native_renderer = structlog.dev.ConsoleRenderer(colors=_isatty(target))
        stdlib_renderer = structlog.dev.ConsoleRenderer(colors=_isatty(target))
        factory = structlog.WriteLoggerFactory(file=sink)

    with _configure_lock:
        structlog.configure(
            processors=[
                *shared,
                structlog.processors.StackInfoRenderer(),
                *exceptions,
                redact_secrets,  # after the traceback is rendered: its messages are text too
                native_renderer,
            ],
            wrapper_class=structlog.make_filtering_bound_logger(level_no),
            logger_factory=factory,
            cache_logger_on_first_use=False,
        )
        handler = _SinkHandler(sink, binary)
        handler.setFormatter(
            structlog.stdlib.ProcessorFormatter(
                foreign_pre_chain=[
                    *shared[:1],
                    structlog.stdlib.add_logger_name,
                    structlog.stdlib.ExtraAdder(),
                    *shared[1:],
                ],
                processors=[
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    *exceptions,
                    redact_secrets,
                    stdlib_renderer,
                ],
            )
        )
        root = logging.getLogger()
        if _installed is not None:
            root.removeHandler(_installed)
        else:
            _saved_root_level = root.level
        root.addHandler(handler)
        root.setLevel(level_no)
        _installed = handler
        for name in _QUIET_UNLESS_DEBUG:
            logging.getLogger(name).setLevel(
                logging.NOTSET if level_no <= logging.DEBUG else max(level_no, logging.WARNING)
            )
        logging.captureWarnings(True)


def reset_logging() -> None:
    """Undo :func:`configure_logging` (tests): structlog defaults, our handler removed."""
    global _installed, _saved_root_level
    with _configure_lock:
        if _installed is not None:
            root = logging.getLogger()
            root.removeHandler(_installed)
            if _saved_root_level is not None:
                root.setLevel(_saved_root_level)
            _installed = None
            _saved_root_level = None
        for name in _QUIET_UNLESS_DEBUG:
            logging.getLogger(name).setLevel(logging.NOTSET)
        logging.captureWarnings(False)
        structlog.reset_defaults()
        clear_contextvars()


def get_logger(name: str | None = None, **initial: Any) -> Any:
    """Return a structlog logger, bound to ``logger=name`` when a name is given.

    The logger is a lazy proxy: it follows every later :func:`configure_logging`.
    """
    if name is not None:
        initial = {"logger": name, **initial}
    # ``structlog.get_logger(logger=...)`` collides with wrap_logger's own ``logger`` argument.
    return BoundLoggerLazyProxy(None, initial_values=initial)


def new_request_id() -> str:
    """Return a fresh request id (32 hex characters)."""
    return uuid.uuid4().hex


def bind_request_id(request_id: str | None = None) -> str:
    """Bind ``request_id`` (a new one when None) to every log line of this context."""
    rid = request_id or new_request_id()
    bind_contextvars(**{REQUEST_ID_KEY: rid})
    return rid


@contextmanager
def request_context(request_id: str | None = None, **values: Any) -> Iterator[str]:
    """Bind a request id (and other values) for the ``with`` block, restoring what was there."""
    rid = request_id or new_request_id()
    # Tokens restore exactly the keys bound here; structlog's bound_contextvars copies the
    # whole context to find them, 5 us instead of 2.5 on every request.
    tokens = bind_contextvars(**{REQUEST_ID_KEY: rid}, **values)
    try:
        yield rid
    finally:
        reset_contextvars(**tokens)


def bind_context(**values: Any) -> None:
    """Bind values to every later log line of this context (task)."""
    bind_contextvars(**values)


def clear_context() -> None:
    """Forget every bound context value (for example at the end of a request)."""
    clear_contextvars()


def context_snapshot() -> MutableMapping[str, Any]:
    """Return the values bound in this context."""
    return structlog.contextvars.get_contextvars()
