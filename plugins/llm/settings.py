"""The ``[llm]`` section as the providers read it, checked with the offending key named."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal

ResetMode = Literal["utc", "local", "sliding-24h"]
OnExceed = Literal["pause", "log"]
RESET_MODES: tuple[str, ...] = ("utc", "local", "sliding-24h")
ON_EXCEED: tuple[str, ...] = ("pause", "log")

DEFAULT_BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}


class SettingsError(ValueError):
    """A configuration value is wrong; the message names the key."""


@dataclass(frozen=True, slots=True)
class BudgetSettings:
    """Daily ceilings (``None`` = unlimited) and what to do when one is reached."""

    calls_per_day: int | None = None
    tokens_per_day: int | None = None
    reset: ResetMode = "utc"
    on_exceed: OnExceed = "pause"

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], prefix: str = "llm.budget") -> BudgetSettings:
        """Check and build from a config mapping."""
        _refuse_unknown(data, {"calls_per_day", "tokens_per_day", "reset", "on_exceed"}, prefix)
        reset = data.get("reset", "utc")
        if reset not in RESET_MODES:
            raise SettingsError(f"{prefix}.reset must be one of {', '.join(RESET_MODES)}")
        on_exceed = data.get("on_exceed", "pause")
        if on_exceed not in ON_EXCEED:
            raise SettingsError(f"{prefix}.on_exceed must be one of {', '.join(ON_EXCEED)}")
        return cls(
            calls_per_day=_optional_positive_int(data, "calls_per_day", prefix),
            tokens_per_day=_optional_positive_int(data, "tokens_per_day", prefix),
            reset=reset,
            on_exceed=on_exceed,
        )


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """One provider's connection settings; the API key itself is never stored here."""

    provider: str
    model: str
    base_url: str
    api_key_env: str | None = None
    timeout: float = 60.0
    max_tokens: int = 1024
    budget: BudgetSettings = field(default_factory=BudgetSettings)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], prefix: str = "llm") -> LLMSettings:
        """Check and build from a config mapping (``timeout`` in seconds or a timedelta)."""
        _refuse_unknown(
            data,
            {"provider", "model", "base_url", "api_key_env", "timeout", "max_tokens", "budget"},
            prefix,
        )
        provider = data.get("provider")
        if not isinstance(provider, str) or not provider:
            raise SettingsError(f"{prefix}.provider is required (openai or anthropic)")
        model = data.get("model")
        if not isinstance(model, str) or not model:
            raise SettingsError(f"{prefix}.model is required")
        base_url = data.get("base_url") or DEFAULT_BASE_URLS.get(provider)
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise SettingsError(f"{prefix}.base_url must be an http:// or https:// URL")
        api_key_env = data.get("api_key_env") or None  # "" means: no key
        if api_key_env is not None and (not isinstance(api_key_env, str) or not api_key_env):
            raise SettingsError(f"{prefix}.api_key_env must name an environment variable")
        timeout = data.get("timeout", 60.0)
        if isinstance(timeout, timedelta):
            timeout = timeout.total_seconds()
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise SettingsError(f"{prefix}.timeout must be a positive number of seconds")
        max_tokens = _optional_positive_int(data, "max_tokens", prefix) or 1024
        budget_data = data.get("budget", {})
        if not isinstance(budget_data, Mapping):
            raise SettingsError(f"{prefix}.budget must be a table")
        return cls(
            provider=provider,
            model=model,
            base_url=base_url.rstrip("/"),
            api_key_env=api_key_env,
            timeout=float(timeout),
            max_tokens=max_tokens,
            budget=BudgetSettings.from_mapping(budget_data, f"{prefix}.budget"),
        )

    def api_key(self, environ: Mapping[str, str] | None = None) -> str | None:
        """Read the API key from the named environment variable (``None`` if unset)."""
        if self.api_key_env is None:
            return None
        env = os.environ if environ is None else environ
        return env.get(self.api_key_env) or None


def _refuse_unknown(data: Mapping[str, Any], known: set[str], prefix: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise SettingsError(f"{prefix}.{unknown[0]} is not a known setting")


def _optional_positive_int(data: Mapping[str, Any], key: str, prefix: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise SettingsError(f"{prefix}.{key} must be a positive integer")
    return value
