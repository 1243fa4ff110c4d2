"""The kinds of value a configuration key holds: how one is read from TOML and from an
environment string, checked against its bounds, and written back (``memoryd config show``)."""

from __future__ import annotations

import ipaddress
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlsplit, urlunsplit

from daemon.cron import parse_cron, time_zone
from daemon.durations import format_duration, format_size, parse_duration, parse_size

NAME_PATTERN = r"[a-z0-9][a-z0-9._-]*"
"""What a plugin name looks like."""
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


class Kind(ABC):
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
class BoolKind(Kind):
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
class IntKind(Kind):
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
class FloatKind(Kind):
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
class StrKind(Kind):
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
class CronKind(Kind):
    """A five-field cron expression (see :mod:`daemon.cron`); "" for none."""

    name: ClassVar[str] = "cron"
    optional: bool = True

    def parse(self, value: object, base_dir: Path) -> Any:
        if not isinstance(value, str):
            raise _type_error("a string", value)
        if self._unset(value) or not value.strip():
            return None
        parse_cron(value)
        return " ".join(value.split())


@dataclass(frozen=True, slots=True)
class TimeZoneKind(Kind):
    """An IANA time zone name (``UTC``, ``Europe/Paris``)."""

    name: ClassVar[str] = "time zone"

    def parse(self, value: object, base_dir: Path) -> Any:
        if not isinstance(value, str):
            raise _type_error("a string", value)
        time_zone(value)
        return value


@dataclass(frozen=True, slots=True)
class NamesKind(Kind):
    """A list of plugin names: a TOML array of strings, or ``a,b`` from the environment."""

    name: ClassVar[str] = "names"
    optional: bool = True
    choices: tuple[str, ...] = ()
    """The names allowed (empty: any plugin name; the registry checks those)."""

    def parse(self, value: object, base_dir: Path) -> Any:
        if self._unset(value):
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _type_error("a list of names", value)
        for item in value:
            if self.choices and item not in self.choices:
                raise ValueError(f"{item!r} is not one of: {', '.join(self.choices)}")
            if not re.fullmatch(NAME_PATTERN, item):
                raise ValueError(f"{item!r} is not a plugin name (lower case, digits, . _ -)")
        if len(set(value)) != len(value):
            raise ValueError("names a plugin twice")
        return tuple(value)

    def from_env(self, text: str) -> object:
        return "" if not text.strip() else [part.strip() for part in text.split(",")]

    def dump(self, value: Any) -> object:
        return None if value is None else list(value)


@dataclass(frozen=True, slots=True)
class DurationKind(Kind):
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
class SizeKind(Kind):
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
class PathKind(Kind):
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
class HostPortKind(Kind):
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
class UrlKind(Kind):
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
class DatabaseUrlKind(Kind):
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


BLOCK_NAME_PATTERN = r"[a-z0-9][a-z0-9_-]{0,63}"
"""What a curated block's name looks like (it is a URL path segment)."""
BUILT_IN_BLOCK = "learned_context"


@dataclass(frozen=True, slots=True)
class BlockSpec:
    """A curated block consolidation keeps: its name, what it is for, its longest text."""

    name: str
    purpose: str
    max_chars: int


@dataclass(frozen=True, slots=True)
class BlocksKind(Kind):
    """A list of curated blocks: ``[[consolidation.blocks]]`` tables (name, purpose,
    max_chars), or a JSON array of such objects from the environment."""

    name: ClassVar[str] = "blocks"
    _KEYS: ClassVar[frozenset[str]] = frozenset({"name", "purpose", "max_chars"})
    most_chars: int = 100_000

    def parse(self, value: object, base_dir: Path) -> Any:
        if not isinstance(value, list):
            raise _type_error("a list of tables ([[consolidation.blocks]])", value)
        specs: list[BlockSpec] = []
        for i, entry in enumerate(value, 1):
            specs.append(self._one(i, entry, {s.name for s in specs}))
        return tuple(specs)

    def _one(self, i: int, entry: object, taken: set[str]) -> BlockSpec:
        where = f"block {i}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: must be a table with name, purpose and max_chars")
        unknown = sorted(set(entry) - self._KEYS)
        if unknown:
            raise ValueError(f"{where}: unknown key {unknown[0]!r} (name, purpose, max_chars)")
        name = entry.get("name")
        if not isinstance(name, str) or not re.fullmatch(BLOCK_NAME_PATTERN, name):
            raise ValueError(
                f"{where}: name {name!r} must match {BLOCK_NAME_PATTERN} (lower case, digits, _ -)"
            )
        where = f"block {i} ({name})"
        if name == BUILT_IN_BLOCK:
            raise ValueError(
                f"{where}: {BUILT_IN_BLOCK} is built in; its size is "
                "consolidation.learned_context_chars"
            )
        if name in taken:
            raise ValueError(f"{where}: name {name!r} is used twice")
        purpose = entry.get("purpose")
        if not isinstance(purpose, str) or not purpose.strip():
            raise ValueError(f"{where}: purpose must be a non-blank string")
        most = entry.get("max_chars")
        if isinstance(most, bool) or not isinstance(most, int):
            raise ValueError(f"{where}: max_chars must be an integer, not {most!r}")
        if not 1 <= most <= self.most_chars:
            raise ValueError(f"{where}: max_chars {most} is not within 1..{self.most_chars}")
        return BlockSpec(name=name, purpose=purpose.strip(), max_chars=most)

    def from_env(self, text: str) -> object:
        try:
            return json.loads(text) if text.strip() else []
        except ValueError:
            raise ValueError(f"{text!r} is not a JSON array of blocks") from None

    def dump(self, value: Any) -> object:
        return [{"name": b.name, "purpose": b.purpose, "max_chars": b.max_chars} for b in value]
