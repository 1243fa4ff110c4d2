"""memoryd's typed configuration: ``memoryd.toml``, environment overrides, validation.

Precedence, lowest first: built-in defaults < the TOML file < environment variables
``MEMORYD_<SECTION>__<KEY>`` < explicit overrides (command-line options). Every value from every
source goes through the same parser, so a bad value is refused the same way wherever it comes
from. All problems are collected and raised together as one :class:`ConfigError`; each names its
full key (``retrospective.min_cooldown``) and why, and says where the value came from when it was
not the file.

Environment overrides: the variable name is ``MEMORYD_``, the section name, two underscores,
the key name, upper-cased (``MEMORYD_SERVER__MAX_BODY_SIZE=2MiB``,
``MEMORYD_RETROSPECTIVE__ENABLED=false``). Values are plain text: booleans are
``true|false|1|0|yes|no|on|off``, integers are decimal, everything else is written as in the
TOML file without quotes. An empty value unsets an optional key (``MEMORYD_SERVER__HTTP=``).
A ``MEMORYD_`` variable with ``__`` that names no key is an error; variables without ``__``
(``MEMORYD_CONFIG``, ``MEMORYD_TEST_PG_URL``) are not overrides.

Relative paths in the file are taken relative to the file's directory; relative paths from the
environment or the command line relative to the working directory. ``~`` is expanded.

The reference of every key is :data:`SECTIONS` (each field's ``doc``) and
``docs/configuration.md``; a test keeps the two in step.
"""

# RUF009: the section fields are built by ``_key``/``_computed``, thin wrappers of
# ``dataclasses.field`` that attach each key's kind and documentation.
# ruff: noqa: RUF009

from __future__ import annotations

import dataclasses
import difflib
import ipaddress
import os
import re
import tomllib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar
from urllib.parse import urlsplit, urlunsplit

from daemon.durations import format_duration, format_size, parse_duration, parse_size
from daemon.paths import default_data_dir

if TYPE_CHECKING:
    from plugins.registry import PluginKind, Plugins

ENV_PREFIX = "MEMORYD_"
ENV_SEPARATOR = "__"
CONFIG_FILE_NAME = "memoryd.toml"
CONFIG_PATH_ENV = "MEMORYD_CONFIG"

_T = TypeVar("_T")
_Ordered = TypeVar("_Ordered", int, float, timedelta)


class ConfigError(Exception):
    """The configuration is not valid; ``errors`` lists every problem, one line each."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = list(errors)
        super().__init__("invalid configuration:\n" + "\n".join(f"  {e}" for e in self.errors))


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A value that was valid but changed on the way in (for example a clamp); log it."""

    key: str
    given: str
    used: str
    reason: str


@dataclass(frozen=True, slots=True)
class HostPort:
    """A TCP address to listen on."""

    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def is_loopback(self) -> bool:
        """Return True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


# --------------------------------------------------------------------------------------------
# Value kinds: how one key is read from TOML and from an environment string, checked and dumped.


class _Kind(ABC):
    """The type of one key. ``parse`` raises ValueError with a reason a person can act on."""

    name: ClassVar[str] = "value"
    optional: bool = False

    @abstractmethod
    def parse(self, value: object, base_dir: Path) -> Any:
        """Check a TOML value (relative paths against ``base_dir``) and return the typed one."""

    def from_env(self, text: str) -> object:
        """Turn an environment (or command-line) string into what TOML would have given."""
        return text

    def dump(self, value: Any) -> object:
        """Return a JSON/TOML-friendly form that ``parse`` reads back."""
        return value

    def _unset(self, value: object) -> bool:
        return self.optional and value == ""


def _check_bounds(
    parsed: _Ordered,
    minimum: _Ordered,
    maximum: _Ordered | None,
    shown: str,
    show: Callable[[_Ordered], str],
) -> _Ordered:
    """Return ``parsed`` if it lies within the bounds, else say which bound it breaks."""
    if parsed < minimum:
        raise ValueError(f"{shown} is below the minimum {show(minimum)}")
    if maximum is not None and parsed > maximum:
        raise ValueError(f"{shown} is above the maximum {show(maximum)}")
    return parsed


def _type_error(expected: str, value: object) -> ValueError:
    return ValueError(f"must be {expected}, not {type(value).__name__} {value!r}")


@dataclass(frozen=True, slots=True)
class _Bool(_Kind):
    name: ClassVar[str] = "boolean"
    _TRUE: ClassVar[frozenset[str]] = frozenset({"true", "1", "yes", "on"})
    _FALSE: ClassVar[frozenset[str]] = frozenset({"false", "0", "no", "off"})

    def parse(self, value: object, base_dir: Path) -> Any:
        if not isinstance(value, bool):
            raise _type_error("true or false", value)
        return value

    def from_env(self, text: str) -> object:
        lowered = text.strip().lower()
        if lowered in self._TRUE:
            return True
        if lowered in self._FALSE:
            return False
        raise ValueError(f"{text!r} is not a boolean; use true or false")


@dataclass(frozen=True, slots=True)
class _Int(_Kind):
    name: ClassVar[str] = "integer"
    minimum: int = 0
    maximum: int | None = None
    optional: bool = False

    def parse(self, value: object, base_dir: Path) -> Any:
        if self._unset(value):
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise _type_error("an integer", value)
        return _check_bounds(value, self.minimum, self.maximum, str(value), str)

    def from_env(self, text: str) -> object:
        if self.optional and not text.strip():
            return ""
        try:
            return int(text.strip(), 10)
        except ValueError:
            raise ValueError(f"{text!r} is not an integer") from None


@dataclass(frozen=True, slots=True)
class _Float(_Kind):
    name: ClassVar[str] = "number"
    minimum: float = 0.0
    maximum: float | None = None

    def parse(self, value: object, base_dir: Path) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _type_error("a number", value)
        return _check_bounds(float(value), self.minimum, self.maximum, str(value), str)

    def from_env(self, text: str) -> object:
        try:
            return float(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None


@dataclass(frozen=True, slots=True)
class _Str(_Kind):
    name: ClassVar[str] = "string"
    choices: tuple[str, ...] = ()
    pattern: str | None = None
    pattern_help: str = ""
    optional: bool = False

    def parse(self, value: object, base_dir: Path) -> Any:
        if not isinstance(value, str):
            raise _type_error("a string", value)
        if self._unset(value):
            return None
        if self.choices and value not in self.choices:
            raise ValueError(f"{value!r} is not one of: {', '.join(self.choices)}")
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            raise ValueError(f"{value!r} is not {self.pattern_help}")
        if not value.strip():
            raise ValueError("must not be blank")
        return value


@dataclass(frozen=True, slots=True)
class _Names(_Kind):
    """A list of plugin names: a TOML array of strings, or ``a,b`` from the environment."""

    name: ClassVar[str] = "names"
    optional: bool = True

    def parse(self, value: object, base_dir: Path) -> Any:
        if self._unset(value):
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _type_error("a list of names", value)
        for item in value:
            if not re.fullmatch(_NAME_PATTERN, item):
                raise ValueError(f"{item!r} is not a plugin name (lower case, digits, . _ -)")
        if len(set(value)) != len(value):
            raise ValueError("names a plugin twice")
        return tuple(value)

    def from_env(self, text: str) -> object:
        return "" if not text.strip() else [part.strip() for part in text.split(",")]

    def dump(self, value: Any) -> object:
        return None if value is None else list(value)


@dataclass(frozen=True, slots=True)
class _Duration(_Kind):
    name: ClassVar[str] = "duration"
    minimum: timedelta = timedelta(0)
    maximum: timedelta | None = None

    def parse(self, value: object, base_dir: Path) -> Any:
        return _check_bounds(
            parse_duration(value), self.minimum, self.maximum, repr(value), format_duration
        )

    def dump(self, value: Any) -> object:
        return format_duration(value)


@dataclass(frozen=True, slots=True)
class _Size(_Kind):
    name: ClassVar[str] = "size"
    minimum: int = 0
    maximum: int | None = None

    def parse(self, value: object, base_dir: Path) -> Any:
        return _check_bounds(
            parse_size(value), self.minimum, self.maximum, repr(value), format_size
        )

    def dump(self, value: Any) -> object:
        return format_size(value)


@dataclass(frozen=True, slots=True)
class _Path(_Kind):
    name: ClassVar[str] = "path"
    optional: bool = False

    def parse(self, value: object, base_dir: Path) -> Any:
        if not isinstance(value, str):
            raise _type_error("a path string", value)
        if self._unset(value):
            return None
        if not value.strip():
            raise ValueError("must not be blank")
        if "\0" in value:
            raise ValueError("must not contain a NUL character")
        path = Path(value).expanduser()
        return path if path.is_absolute() else base_dir / path

    def dump(self, value: Any) -> object:
        return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class _HostPort(_Kind):
    name: ClassVar[str] = "host:port"
    optional: bool = True

    def parse(self, value: object, base_dir: Path) -> Any:
        if not isinstance(value, str):
            raise _type_error('a string like "127.0.0.1:8765"', value)
        if self._unset(value):
            return None
        match = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\]:(\d+)|([^:\[\]\s]+):(\d+)", value.strip())
        if match is None:
            raise ValueError(
                f"{value!r} is not HOST:PORT (an IPv6 host goes in brackets: [::1]:8765)"
            )
        host = match.group(1) or match.group(3)
        port = int(match.group(2) or match.group(4))
        if port > 65535:
            raise ValueError(f"port {port} is above 65535")
        if match.group(1) is not None:
            try:
                ipaddress.IPv6Address(host)
            except ValueError:
                raise ValueError(f"{host!r} is not an IPv6 address") from None
        return HostPort(host, port)

    def dump(self, value: Any) -> object:
        return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class _Url(_Kind):
    name: ClassVar[str] = "URL"
    schemes: tuple[str, ...] = ("http", "https")
    optional: bool = True

    def parse(self, value: object, base_dir: Path) -> Any:
        if not isinstance(value, str):
            raise _type_error("a URL string", value)
        if self._unset(value):
            return None
        parts = urlsplit(value)
        if parts.scheme not in self.schemes or not parts.hostname:
            raise ValueError(
                f"{redact_url(value)!r} is not a {'/'.join(self.schemes)} URL with a host"
            )
        if parts.username is not None or parts.password is not None:
            # Every call would fail (the clients send no such credentials), and the password
            # would show in `config show` and the logs. The value itself is not echoed.
            raise ValueError(
                "must not hold user:password; put the API key in the environment variable "
                "named by llm.api_key_env"
            )
        return value.rstrip("/")

    def dump(self, value: Any) -> object:
        return None if value is None else redact_url(value)


_DATABASE_SCHEMES = ("sqlite", "postgresql")


def redact_url(url: str) -> str:
    """Replace the password in a URL with ``***`` (for logs and ``config show``)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    userinfo = f"{parts.username or ''}:***"
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{userinfo}@{host}"))


@dataclass(frozen=True, slots=True)
class _DatabaseUrl(_Kind):
    name: ClassVar[str] = "database URL"
    optional: bool = True

    def parse(self, value: object, base_dir: Path) -> Any:
        if not isinstance(value, str):
            raise _type_error("a URL string", value)
        if self._unset(value):
            return None
        scheme = urlsplit(value).scheme
        # The value itself is never echoed: it may hold a password.
        if scheme.partition("+")[0] not in _DATABASE_SCHEMES or "://" not in value:
            raise ValueError(
                f"scheme {scheme!r} is not supported; use postgresql+asyncpg://user@host/db "
                "(or leave it unset for SQLite in the data dir)"
            )
        return value

    def dump(self, value: Any) -> object:
        return None if value is None else redact_url(value)


# --------------------------------------------------------------------------------------------
# Sections. Each field carries its kind and its documentation in ``metadata``.


def _key(default: _T, kind: _Kind, doc: str) -> _T:
    return field(default=default, metadata={"kind": kind, "doc": doc})


def _subsection(name: str, cls: type[_T], doc: str) -> _T:
    """A nested table (``[llm.budget]``) held by its parent section."""
    return field(default_factory=cls, metadata={"section": name, "doc": doc})


def key_default(section: type[Any], key: str) -> Any:
    """Return the default a section declares for ``key``: code that mirrors a key (the API's
    settings) takes its default from here rather than writing it again."""
    declared = {f.name: f for f in dataclasses.fields(section)}[key]
    if declared.default_factory is not dataclasses.MISSING:
        return declared.default_factory()
    if declared.default is dataclasses.MISSING:
        raise LookupError(f"{section.__name__}.{key} has no fixed default (the loader sets it)")
    return declared.default


def _computed(kind: _Kind, doc: str) -> Any:
    """A key whose default depends on the environment or other keys (set by the loader)."""
    return field(metadata={"kind": kind, "doc": doc, "computed": True})


_S = timedelta(seconds=1)
_LEVELS = ("debug", "info", "warning", "error", "critical")
_NAME_PATTERN = r"[a-z0-9][a-z0-9._-]*"
_ENV_NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_]*"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """``[server]``: where the API listens and how it treats requests."""

    socket: Path = _computed(
        _Path(),
        "Unix socket path (mode 0600). Default: $RUNTIME_DIRECTORY/memoryd.sock, else "
        "$XDG_RUNTIME_DIR/memoryd.sock, else <storage.data_dir>/memoryd.sock.",
    )
    http: HostPort | None = _key(
        None,
        _HostPort(),
        'Also listen on TCP, "HOST:PORT" ("[::1]:8765" for IPv6; port 0 picks a free one). '
        "Default: unset (unix socket only).",
    )
    http_allow_non_loopback: bool = _key(
        False,
        _Bool(),
        "Allow server.http to bind a non-loopback address (requests then need the bearer token).",
    )
    max_body_size: int = _key(
        1024 * 1024,
        _Size(minimum=1024, maximum=1024**3),
        "Largest request body accepted; a larger one gets 413. 1KiB .. 1GiB.",
    )
    request_timeout: timedelta = _key(
        30 * _S,
        _Duration(minimum=timedelta(milliseconds=1), maximum=timedelta(hours=1)),
        "Longest time one request may take (streaming endpoints excepted).",
    )
    max_connections: int = _key(
        1000,
        _Int(minimum=1, maximum=1_000_000),
        "Most connections open at once; one more is answered 503 too_many_connections and "
        "closed. Keep it below the file-descriptor limit (LimitNOFILE in the units).",
    )
    header_timeout: timedelta = _key(
        10 * _S,
        _Duration(minimum=timedelta(milliseconds=1), maximum=timedelta(hours=1)),
        "Longest a request's head (request line and headers) may take to arrive once it has "
        "begun; a slower one is answered 408 and the connection closed.",
    )
    idle_timeout: timedelta = _key(
        60 * _S,
        _Duration(minimum=timedelta(milliseconds=1), maximum=timedelta(hours=1)),
        "A connection with no request under way is closed after this long (also one that "
        "never sends anything).",
    )
    shutdown_timeout: timedelta = _key(
        10 * _S,
        _Duration(maximum=timedelta(minutes=10)),
        "On SIGTERM, how long in-flight requests may run before they are cut off.",
    )
    projector: str = _key(
        "process",
        _Str(choices=("process", "inline")),
        'Where the projections fold: "process" (a child process, on another core than the '
        'API) or "inline" (on the API\'s event loop). Read at start.',
    )


@dataclass(frozen=True, slots=True)
class StorageConfig:
    """``[storage]``: where the log and the projections live."""

    data_dir: Path = _computed(
        _Path(),
        "State directory (SQLite files, token). Default: $STATE_DIRECTORY, else "
        "$XDG_STATE_HOME/memoryd, else ~/.local/state/memoryd.",
    )
    database_url: str | None = _key(
        None,
        _DatabaseUrl(),
        "A database URL such as postgresql+asyncpg://user@host/db. Default: unset (SQLite in "
        "data_dir). Shown with its password masked.",
    )
    reserved_space: int = _key(
        32 * 1024 * 1024,
        _Size(maximum=1024**4),
        "Free space kept on the data dir's disk: below it writes are refused with 507 "
        "insufficient_storage (reads go on), so a restart finds room. The room the projections "
        "still need for acknowledged events they have not folded yet counts as taken. 0 turns "
        "the check off. SQLite only (PostgreSQL's disk is the server's).",
    )


@dataclass(frozen=True, slots=True)
class LoggingConfig:
    """``[logging]``."""

    level: str = _key("info", _Str(choices=_LEVELS), f"Lowest level logged: {'|'.join(_LEVELS)}.")
    format: str = _key(
        "auto",
        _Str(choices=("auto", "json", "console")),
        "auto (JSON lines unless stdout is a terminal) | json | console.",
    )


@dataclass(frozen=True, slots=True)
class RetrospectiveConfig:
    """``[retrospective]``: when and how conversations are reviewed."""

    enabled: bool = _key(
        True, _Bool(), "Kill switch: when false no trigger enqueues and queued runs are no-ops."
    )
    fork_strategy: str = _key(
        "reference",
        _Str(choices=("reference", "cloning")),
        "reference (the fork is one event pointing at the source) | cloning (copies messages).",
    )
    time_threshold: timedelta = _key(
        30 * 60 * _S,
        _Duration(minimum=_S, maximum=timedelta(days=365)),
        "interval trigger: time since the last attempt.",
    )
    message_threshold: int = _key(
        10, _Int(minimum=1, maximum=1_000_000), "message_count trigger: new messages since success."
    )
    min_cooldown: timedelta = _key(
        5 * 60 * _S,
        _Duration(maximum=timedelta(days=365)),
        "Least time between two attempts on one conversation (pre_compaction bypasses it).",
    )
    require_user_activity: bool = _key(
        True, _Bool(), "Run only when the unreviewed tail holds a real user message."
    )
    sweep_interval: timedelta = _key(
        8 * 3600 * _S,
        _Duration(minimum=60 * _S, maximum=timedelta(days=365)),
        "How often the sweep looks for conversations with unreviewed messages. >= 1m.",
    )
    sweep_lookback: timedelta = _key(
        timedelta(days=7),
        _Duration(maximum=timedelta(days=3650)),
        "Sweep only conversations whose last message is this recent. Values below 2 x "
        "sweep_interval are clamped up to it (and the clamp is logged).",
    )
    sweep_max_per_pass: int = _key(
        50, _Int(minimum=1, maximum=100_000), "Most runs one sweep pass enqueues."
    )
    auto_promote: bool = _key(
        False,
        _Bool(),
        "Write extracted facts as active instead of quarantined (pending review). A fact "
        "flagged as a possible prompt injection stays quarantined regardless.",
    )
    keep_superseded_runs: bool = _key(
        False, _Bool(), "Keep the fork of a run superseded by a later one (else it is cleaned)."
    )
    match_conversation_profile: bool = _key(
        False,
        _Bool(),
        "Use the conversation's own model profile for its retrospective: the model its latest "
        "message naming one put in metadata.model, asked through the configured provider.",
    )
    prompt_path: Path | None = _key(
        None,
        _Path(optional=True),
        "A prompt file replacing the bundled one (falls back to it with a warning when unusable).",
    )
    extractor: str = _key(
        "offline-extractor",
        _Str(pattern=_NAME_PATTERN, pattern_help="a plugin name (lower case, digits, . _ -)"),
        "Extractor plugin a retrospective uses when [llm] provider is none (the registered "
        "extractors; offline-extractor reads the user's statements with rules, no model).",
    )
    max_transcript_chars: int = _key(
        60_000,
        _Int(minimum=1_000, maximum=10_000_000),
        "Largest transcript sent in one model call; longer slices are split in halves.",
    )
    llm_concurrency: int = _key(2, _Int(minimum=1, maximum=64), "Model calls at once.")
    max_retries: int = _key(
        5, _Int(minimum=0, maximum=100), "Failed attempts before a slice is abandoned."
    )
    retry_base_delay: timedelta = _key(
        60 * _S,
        _Duration(minimum=timedelta(milliseconds=1), maximum=timedelta(days=7)),
        "First retry delay (full-jitter exponential backoff).",
    )
    retry_max_delay: timedelta = _key(
        3600 * _S,
        _Duration(minimum=timedelta(milliseconds=1), maximum=timedelta(days=7)),
        "Longest retry delay; must be >= retry_base_delay.",
    )


_LLM_DEFAULTS: dict[str, tuple[str, str]] = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "anthropic": ("https://api.anthropic.com", "ANTHROPIC_API_KEY"),
}


@dataclass(frozen=True, slots=True)
class LlmBudgetConfig:
    """``[llm.budget]``: daily ceilings on model use (counted from the providers' usage)."""

    calls_per_day: int | None = _key(
        None, _Int(minimum=1, optional=True), "Most model calls per day. Default: unlimited."
    )
    tokens_per_day: int | None = _key(
        None,
        _Int(minimum=1, optional=True),
        "Most tokens (prompt + completion) per day. Default: unlimited.",
    )
    reset: str = _key(
        "utc",
        _Str(choices=("utc", "local", "sliding-24h")),
        "When the day starts over: utc (midnight UTC) | local (local midnight) | sliding-24h.",
    )
    on_exceed: str = _key(
        "pause",
        _Str(choices=("pause", "log")),
        "pause (runs wait until the budget resets) | log (go on, log a warning).",
    )


@dataclass(frozen=True, slots=True)
class LlmConfig:
    """``[llm]``: the model retrospectives (and later consolidation) call."""

    provider: str = _key(
        "none",
        _Str(pattern=_NAME_PATTERN, pattern_help="a plugin name (lower case, digits, . _ -)"),
        "none (the offline extractor) | openai (Chat Completions: OpenAI, Ollama, llama.cpp, "
        "vLLM, LM Studio) | anthropic (Messages API) | a provider a plugin registers; "
        "checked against the registered providers.",
    )
    base_url: str | None = _key(
        None,
        _Url(),
        "API root. Default: https://api.openai.com/v1 (openai), https://api.anthropic.com "
        "(anthropic).",
    )
    model: str | None = _key(
        None, _Str(optional=True), "Model name; required unless provider is none."
    )
    api_key_env: str | None = _key(
        None,
        _Str(
            optional=True,
            pattern=_ENV_NAME_PATTERN,
            pattern_help="an environment variable name",
        ),
        "Name of the environment variable holding the API key (the key itself never goes in "
        'the file and is never logged). Default: OPENAI_API_KEY / ANTHROPIC_API_KEY; "" for none.',
    )
    timeout: timedelta = _key(
        60 * _S,
        _Duration(minimum=timedelta(milliseconds=1), maximum=timedelta(hours=1)),
        "Timeout of one model call.",
    )
    max_tokens: int = _key(
        1024, _Int(minimum=1, maximum=1_000_000), "Most tokens one model reply may use."
    )
    budget: LlmBudgetConfig = _subsection("llm.budget", LlmBudgetConfig, "See [llm.budget].")

    def provider_settings(self) -> dict[str, Any] | None:
        """Return the mapping ``plugins.llm.settings.LLMSettings.from_mapping`` reads.

        None when ``provider`` is ``none`` (the offline extractor needs no settings).
        """
        if self.provider == "none":
            return None
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "timeout": self.timeout,
            "max_tokens": self.max_tokens,
            "budget": {
                key: value
                for key, value in dataclasses.asdict(self.budget).items()
                if value is not None
            },
        }


@dataclass(frozen=True, slots=True)
class RecallConfig:
    """``[recall]``: search defaults."""

    embedder: str = _key(
        "hashed",
        _Str(pattern=_NAME_PATTERN, pattern_help="a plugin name (lower case, digits, . _ -)"),
        "Embedder plugin name for the vector leg: hashed (no model), minilm (the extra) or one a "
        "plugin registers; checked against the registered embedders.",
    )
    top_k: int = _key(10, _Int(minimum=1, maximum=1000), "Hits returned when a query names none.")
    candidate_top_k: int = _key(
        60, _Int(minimum=1, maximum=10_000), "Candidates per leg before fusion; >= top_k."
    )


@dataclass(frozen=True, slots=True)
class MemoryConfig:
    """``[memory]``: what memory trusts, and when a new fact replaces what it held."""

    trust_user_statements: bool = _key(
        True,
        _Bool(),
        "Facts a retrospective distils from the user's own words (cited user turns, nothing the "
        "ingest gate flags) are written active, so recall uses them at once; facts from "
        "assistant or tool turns stay quarantined until validated or promoted.",
    )
    update_threshold_user: float = _key(
        0.5,
        _Float(maximum=1.0),
        "Least confidence at which a fact the user states (provenance user) replaces one it "
        "contradicts; below it the write is queued as a conflict for a person.",
    )
    update_threshold_extraction: float = _key(
        0.75,
        _Float(maximum=1.0),
        "The same for facts a retrospective extracted (provenance extraction).",
    )
    update_threshold_other: float = _key(
        0.9,
        _Float(maximum=1.0),
        "The same for tool, imported and reflection facts.",
    )
    reconcile_with_model: bool = _key(
        True,
        _Bool(),
        "With an [llm] provider, decide a write that touches current facts with one model call "
        "(JSON verdict, within the daily budget); the rules decide when it fails or is off.",
    )
    promote_min_recalls: int = _key(
        3,
        _Int(minimum=1, maximum=1_000_000),
        "Recalls (searches that returned it, or would have if it were not quarantined) a "
        "quarantined fact needs before consolidation promotes it, at every tier.",
    )
    promote_min_queries: int = _key(
        2, _Int(minimum=1, maximum=1_000_000), "Distinct queries among those recalls."
    )
    promote_min_age: timedelta = _key(
        timedelta(hours=24),
        _Duration(maximum=timedelta(days=3650)),
        "Least age of a quarantined fact before it can be promoted.",
    )


@dataclass(frozen=True, slots=True)
class ConsolidationConfig:
    """``[consolidation]``."""

    tier: str = _key(
        "free",
        _Str(choices=("free", "cheap", "standard", "full")),
        "free (light phase only, no model) | cheap | standard | full.",
    )
    enabled: bool = _key(True, _Bool(), "Run consolidation triggers (manual runs always work).")
    idle_after: timedelta = _key(
        30 * 60 * _S,
        _Duration(minimum=60 * _S, maximum=timedelta(days=30)),
        "idle trigger: run once no memory event arrived for this long (and some arrived since).",
    )
    schedule_interval: timedelta = _key(
        timedelta(days=1),
        _Duration(minimum=60 * _S, maximum=timedelta(days=365)),
        "schedule trigger: run at least this often while anything changed.",
    )
    after_retrospectives: int = _key(
        5, _Int(minimum=1, maximum=1_000_000), "Run after this many successful retrospectives."
    )
    tau_days: int = _key(
        30, _Int(minimum=1, maximum=36_500), "Decay time constant (days) of the light phase."
    )
    capacity: int = _key(
        0,
        _Int(minimum=0, maximum=100_000_000),
        "Most current facts kept; above it the lowest salience are archived (0: no bound).",
    )
    llm_concurrency: int = _key(
        4, _Int(minimum=1, maximum=64), "Agent batches and model calls run in parallel."
    )
    daily_calls: int = _key(
        0,
        _Int(minimum=0, maximum=10_000_000),
        "Model calls per UTC day for consolidation (0: the tier's ceiling: 0/50/300/1000).",
    )
    learned_context_chars: int = _key(
        2000, _Int(minimum=100, maximum=100_000), "Longest learned_context block (characters)."
    )
    agents: tuple[str, ...] | None = _key(
        None,
        _Names(),
        "Agent plugins the standard phase runs, in order (registered agent names; [] for none). "
        "Default: the tier's agents (standard: linker, separator, health; full: all five).",
    )


SECTIONS: dict[str, type[Any]] = {
    "server": ServerConfig,
    "storage": StorageConfig,
    "logging": LoggingConfig,
    "retrospective": RetrospectiveConfig,
    "llm": LlmConfig,
    "llm.budget": LlmBudgetConfig,
    "recall": RecallConfig,
    "memory": MemoryConfig,
    "consolidation": ConsolidationConfig,
}
"""Every section (nested ones by dotted name) and its dataclass."""

_SECTION_ORDER = (
    "server",
    "storage",
    "logging",
    "retrospective",
    "llm",
    "recall",
    "memory",
    "consolidation",
)
"""The top-level sections, in the order they are shown."""

_BUILD_ORDER = (
    "storage",  # server's default socket lives in the data dir
    "server",
    "logging",
    "retrospective",
    "llm.budget",  # nested sections before their parent
    "llm",
    "recall",
    "memory",
    "consolidation",
)


@dataclass(frozen=True, slots=True)
class Config:
    """The whole, validated configuration. Build it with :func:`load_config`."""

    server: ServerConfig
    storage: StorageConfig
    logging: LoggingConfig
    retrospective: RetrospectiveConfig
    llm: LlmConfig
    recall: RecallConfig
    memory: MemoryConfig
    consolidation: ConsolidationConfig
    source: Path | None = field(default=None, compare=False)
    """The file it was read from, if any."""
    adjustments: tuple[Adjustment, ...] = field(default=(), compare=False)
    """Values changed on the way in (clamps): log each one."""

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """Return every key's effective value in file syntax (passwords in URLs masked)."""
        return {name: _dump_section(getattr(self, name)) for name in _SECTION_ORDER}

    def changed_keys(self, other: Config) -> list[str]:
        """Return the full names of keys whose values differ between two configs."""
        changed: list[str] = []
        for name in _SECTION_ORDER:
            changed.extend(_changed(name, getattr(self, name), getattr(other, name)))
        return changed


def _dump_section(section: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in dataclasses.fields(section):
        value = getattr(section, spec.name)
        if "section" in spec.metadata:
            out[spec.name] = _dump_section(value)
        else:
            out[spec.name] = spec.metadata["kind"].dump(value)
    return out


def _changed(prefix: str, mine: Any, theirs: Any) -> list[str]:
    changed: list[str] = []
    for spec in dataclasses.fields(mine):
        a, b = getattr(mine, spec.name), getattr(theirs, spec.name)
        if "section" in spec.metadata:
            changed.extend(_changed(f"{prefix}.{spec.name}", a, b))
        elif a != b:
            changed.append(f"{prefix}.{spec.name}")
    return changed


# --------------------------------------------------------------------------------------------
# Loading.


@dataclass(frozen=True, slots=True)
class _Given:
    value: object
    origin: str | None  # None: the file
    base_dir: Path


def _field_map(section: str) -> dict[str, dataclasses.Field[Any]]:
    """The keys of a section (nested sections excluded)."""
    return {f.name: f for f in dataclasses.fields(SECTIONS[section]) if "section" not in f.metadata}


def _subsections(section: str) -> dict[str, str]:
    """The nested tables of a section: key -> dotted section name."""
    return {
        f.name: f.metadata["section"]
        for f in dataclasses.fields(SECTIONS[section])
        if "section" in f.metadata
    }


def _suggest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _unknown_key(section: str, key: str) -> str:
    known = [*_field_map(section), *_subsections(section)]
    message = f"{section}.{key}: unknown key{_suggest(key, known)}"
    if section == "llm" and "key" in key and key != "api_key_env":
        message += "; put the secret in an environment variable and name it in llm.api_key_env"
    return message


def env_var_name(section: str, key: str) -> str:
    """Return the environment variable that overrides ``section.key`` (``llm.budget`` nests)."""
    parts = [*section.split("."), key]
    return ENV_PREFIX + ENV_SEPARATOR.join(part.upper() for part in parts)


def default_config_path(env: Mapping[str, str] | None = None) -> Path | None:
    """Return the config file to read when none is named, or None to run on defaults.

    ``$MEMORYD_CONFIG`` (used even when missing, so a typo is an error), else the first that
    exists of ``$CONFIGURATION_DIRECTORY/memoryd.toml`` (systemd), ``$XDG_CONFIG_HOME/memoryd/
    memoryd.toml`` (``~/.config`` by default) and ``/etc/memoryd/memoryd.toml``.
    """
    env = os.environ if env is None else env
    explicit = env.get(CONFIG_PATH_ENV)
    if explicit:
        return Path(explicit).expanduser()
    candidates: list[Path] = []
    if env.get("CONFIGURATION_DIRECTORY"):
        candidates.append(Path(env["CONFIGURATION_DIRECTORY"].split(":")[0]) / CONFIG_FILE_NAME)
    xdg = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    candidates.append(Path(xdg) / "memoryd" / CONFIG_FILE_NAME)
    candidates.append(Path("/etc/memoryd") / CONFIG_FILE_NAME)
    return next((p for p in candidates if p.is_file()), None)


def load_config(
    path: Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, object] | None = None,
    *,
    plugins: Plugins | None = None,
) -> Config:
    """Read, merge and validate the configuration; raise :class:`ConfigError` listing all errors.

    ``path`` None means defaults + environment only. ``env`` defaults to ``os.environ``.
    ``overrides`` maps full keys (``"server.http"``) to values, as strings (parsed like
    environment values) or as already-typed TOML values; they win over everything. Plugin
    names (:data:`PLUGIN_KEYS`) must be registered with ``plugins`` (default: the process's
    plugin manager, :func:`plugins.registry.default_plugins`).
    """
    env = os.environ if env is None else env
    raw: Mapping[str, object] = {}
    if path is not None:
        try:
            raw = tomllib.loads(path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            raise ConfigError([f"{path}: no such file"]) from None
        except UnicodeDecodeError as exc:
            raise ConfigError([f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})"]) from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError([f"{path}: invalid TOML: {exc}"]) from None
        except OSError as exc:
            raise ConfigError([f"{path}: cannot read: {exc.strerror or exc}"]) from None
    base_dir = path.parent.absolute() if path is not None else Path.cwd()
    return config_from_mapping(
        raw, env=env, overrides=overrides, base_dir=base_dir, source=path, plugins=plugins
    )


def config_from_mapping(
    raw: Mapping[str, object],
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, object] | None = None,
    base_dir: Path | None = None,
    source: Path | None = None,
    plugins: Plugins | None = None,
) -> Config:
    """Validate an already-parsed TOML document (see :func:`load_config`)."""
    env = os.environ if env is None else env
    base_dir = Path.cwd() if base_dir is None else base_dir
    errors: list[str] = []
    given: dict[str, dict[str, _Given]] = {name: {} for name in SECTIONS}

    for section, table in raw.items():
        if section not in _SECTION_ORDER:
            errors.append(f"[{section}]: unknown section{_suggest(section, list(_SECTION_ORDER))}")
        else:
            _take_table(section, table, given, errors, base_dir)

    cwd = Path.cwd()
    for name in sorted(env):
        if not name.startswith(ENV_PREFIX) or ENV_SEPARATOR not in name[len(ENV_PREFIX) :]:
            continue
        *section_parts, key = name[len(ENV_PREFIX) :].lower().split(ENV_SEPARATOR)
        section = ".".join(section_parts)
        _take_text(section, key, env[name], f"from {name}", given, errors, cwd, name)

    for dotted, value in (overrides or {}).items():
        section, _, key = dotted.rpartition(".")
        if isinstance(value, str):
            _take_text(section, key, value, "from the command line", given, errors, cwd, dotted)
        elif section in SECTIONS and key in _field_map(section):
            given[section][key] = _Given(value, "from the command line", cwd)
        else:
            errors.append(f"{dotted}: no such key (from the command line)")

    adjustments: list[Adjustment] = []
    built: dict[str, Any] = {}
    for section in _BUILD_ORDER:
        built[section] = _build_section(section, given[section], env, built, errors, adjustments)
    if plugins is None:
        from plugins.registry import default_plugins  # the plugins load only when needed

        plugins = default_plugins()
    errors.extend(_plugin_errors(built, plugins))
    if errors:
        raise ConfigError(errors)
    top = {name: built[name] for name in _SECTION_ORDER}
    return Config(**top, source=source, adjustments=tuple(adjustments))


PLUGIN_KEYS: tuple[tuple[str, str, PluginKind, tuple[str, ...]], ...] = (
    ("recall", "embedder", "embedder", ()),
    ("llm", "provider", "llm_provider", ("none",)),
    ("retrospective", "extractor", "extractor", ()),
    ("consolidation", "agents", "agent", ()),
)
"""``(section, key, plugin kind, values that name no plugin)``: keys that name a plugin."""


def _plugin_errors(built: Mapping[str, Any], plugins: Plugins) -> list[str]:
    errors: list[str] = []
    for section, key, kind, reserved in PLUGIN_KEYS:
        if built.get(section) is None:  # its own errors are already reported
            continue
        value = getattr(built[section], key)
        choices = [*reserved, *plugins.names(kind)]
        label = kind.replace("_", " ")
        for name in value if isinstance(value, tuple) else () if value is None else (value,):
            if name not in choices:
                errors.append(
                    f"{section}.{key}: {name!r} is not one of the registered {label} plugins: "
                    f"{', '.join(choices) or 'none'}"
                )
    return errors


def _take_table(
    section: str,
    table: object,
    given: dict[str, dict[str, _Given]],
    errors: list[str],
    base_dir: Path,
) -> None:
    if not isinstance(table, dict):
        errors.append(f"{section}: must be a table ([{section}]), not a {type(table).__name__}")
        return
    fields, subsections = _field_map(section), _subsections(section)
    for key, value in table.items():
        if key in subsections:
            _take_table(subsections[key], value, given, errors, base_dir)
        elif key in fields:
            given[section][key] = _Given(value, None, base_dir)
        else:
            errors.append(_unknown_key(section, key))


def _take_text(
    section: str,
    key: str,
    text: str,
    origin: str,
    given: dict[str, dict[str, _Given]],
    errors: list[str],
    cwd: Path,
    name: str,
) -> None:
    if section not in SECTIONS or key not in _field_map(section):
        errors.append(f"{name}: no such key {section}.{key}")
        return
    kind: _Kind = _field_map(section)[key].metadata["kind"]
    try:
        value = kind.from_env(text)
    except ValueError as exc:
        errors.append(f"{section}.{key}: {exc} ({origin})")
        return
    given[section][key] = _Given(value, origin, cwd)


@dataclass(slots=True)
class _SectionCheck:
    """What a section's cross-key check sees and may change."""

    values: dict[str, Any]
    given: set[str]
    failed: set[str]
    env: Mapping[str, str]
    built: dict[str, Any]
    errors: list[str]
    adjustments: list[Adjustment]

    def ok(self, *keys: str) -> bool:
        """Return True when none of ``keys`` failed to parse (so a check on them is fair)."""
        return not self.failed.intersection(keys)


def _build_section(
    section: str,
    given: dict[str, _Given],
    env: Mapping[str, str],
    built: dict[str, Any],
    errors: list[str],
    adjustments: list[Adjustment],
) -> Any:
    values: dict[str, Any] = {}
    failed: set[str] = set()
    for key, nested in _subsections(section).items():
        values[key] = built[nested]
        if built[nested] is None:  # its errors are already reported
            failed.add(key)
    for name, spec in _field_map(section).items():
        values[name] = None if spec.metadata.get("computed") else spec.default
        entry = given.get(name)
        if entry is None:
            continue
        try:
            values[name] = spec.metadata["kind"].parse(entry.value, entry.base_dir)
        except ValueError as exc:
            suffix = f" ({entry.origin})" if entry.origin else ""
            errors.append(f"{section}.{name}: {exc}{suffix}")
            failed.add(name)
    check = _SectionCheck(values, set(given), failed, env, built, [], adjustments)
    if section in _CHECKS:
        _CHECKS[section](check)
    errors.extend(check.errors)
    return None if failed or check.errors else SECTIONS[section](**values)


def _check_storage(c: _SectionCheck) -> None:
    if c.values["data_dir"] is None:
        c.values["data_dir"] = default_data_dir(c.env)


_MAX_UNIX_PATH = 107  # sun_path is 108 bytes including the terminating NUL


def _check_server(c: _SectionCheck) -> None:
    if c.values["socket"] is None:
        runtime = c.env.get("RUNTIME_DIRECTORY") or c.env.get("XDG_RUNTIME_DIR")
        if runtime:
            c.values["socket"] = Path(runtime.split(":")[0]) / "memoryd.sock"
        elif c.built.get("storage") is not None:
            c.values["socket"] = c.built["storage"].data_dir / "memoryd.sock"
        else:  # storage failed validation; its error is already reported
            c.values["socket"] = default_data_dir(c.env) / "memoryd.sock"
    socket_bytes = len(os.fsencode(c.values["socket"]))
    if "socket" in c.given and c.ok("socket") and socket_bytes > _MAX_UNIX_PATH:
        c.errors.append(
            f"server.socket: the path is {socket_bytes} bytes; unix socket paths are limited to "
            f"{_MAX_UNIX_PATH}"
        )
    http: HostPort | None = c.values["http"]
    if (
        c.ok("http", "http_allow_non_loopback")
        and http is not None
        and not http.is_loopback
        and not c.values["http_allow_non_loopback"]
    ):
        c.errors.append(
            f"server.http: {http.host} is not a loopback address; set "
            "server.http_allow_non_loopback = true to listen there (a bearer token is then "
            "required)"
        )


def _check_retrospective(c: _SectionCheck) -> None:
    base, most = c.values["retry_base_delay"], c.values["retry_max_delay"]
    if c.ok("retry_base_delay", "retry_max_delay") and most < base:
        c.errors.append(
            f"retrospective.retry_max_delay: {format_duration(most)} is below "
            f"retrospective.retry_base_delay ({format_duration(base)})"
        )
    floor = 2 * c.values["sweep_interval"]
    if c.ok("sweep_interval", "sweep_lookback") and c.values["sweep_lookback"] < floor:
        c.adjustments.append(
            Adjustment(
                key="retrospective.sweep_lookback",
                given=format_duration(c.values["sweep_lookback"]),
                used=format_duration(floor),
                reason="below 2 x retrospective.sweep_interval; clamped up to it",
            )
        )
        c.values["sweep_lookback"] = floor


def _check_llm(c: _SectionCheck) -> None:
    if not c.ok("provider"):
        return
    provider = c.values["provider"]
    if provider == "none":
        for key in ("base_url", "model", "api_key_env"):
            if key in c.given and key not in c.failed and c.values[key] is not None:
                c.errors.append(f"llm.{key}: set, but llm.provider is none (set llm.provider too)")
        return
    default_url, default_key_env = _LLM_DEFAULTS.get(provider, (None, None))
    if c.values["base_url"] is None:
        c.values["base_url"] = default_url
    if "api_key_env" not in c.given:
        c.values["api_key_env"] = default_key_env
    if c.values["model"] is None and c.ok("model"):
        c.errors.append(f"llm.model: required when llm.provider is {provider}")


def _check_recall(c: _SectionCheck) -> None:
    top_k, candidates = c.values["top_k"], c.values["candidate_top_k"]
    if c.ok("top_k", "candidate_top_k") and candidates < top_k:
        c.errors.append(f"recall.candidate_top_k: {candidates} is below recall.top_k ({top_k})")


_CHECKS: dict[str, Callable[[_SectionCheck], None]] = {
    "storage": _check_storage,
    "server": _check_server,
    "retrospective": _check_retrospective,
    "llm": _check_llm,
    "recall": _check_recall,
}


def describe_keys() -> list[tuple[str, str, str, str]]:
    """Return ``(full key, kind, default, doc)`` for every key, for docs and ``config keys``."""
    rows: list[tuple[str, str, str, str]] = []
    for section in SECTIONS:
        for spec in _field_map(section).values():
            kind: _Kind = spec.metadata["kind"]
            if spec.metadata.get("computed") or spec.default is None:
                default = "(see doc)" if spec.metadata.get("computed") else "unset"
            else:
                default = (
                    str(kind.dump(spec.default)).lower()
                    if isinstance(spec.default, bool)
                    else str(kind.dump(spec.default))
                )
            rows.append((f"{section}.{spec.name}", kind.name, default, spec.metadata["doc"]))
    return rows
