"""Load the configuration: ``memoryd.toml``, environment overrides, command-line overrides.

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

from __future__ import annotations

import dataclasses
import difflib
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from daemon.config.kinds import (
    Adjustment,
    ConfigError,
    HostPort,
    Kind,
)
from daemon.config.sections import (
    BUILD_ORDER,
    LLM_DEFAULTS,
    SECTION_ORDER,
    SECTIONS,
    Config,
)
from daemon.durations import format_duration
from daemon.paths import default_data_dir

if TYPE_CHECKING:
    from plugins.registry import PluginKind, Plugins

ENV_PREFIX = "MEMORYD_"
ENV_SEPARATOR = "__"
CONFIG_FILE_NAME = "memoryd.toml"
CONFIG_PATH_ENV = "MEMORYD_CONFIG"


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
        if section not in SECTION_ORDER:
            errors.append(f"[{section}]: unknown section{_suggest(section, list(SECTION_ORDER))}")
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
    for section in BUILD_ORDER:
        built[section] = _build_section(section, given[section], env, built, errors, adjustments)
    if plugins is None:
        from plugins.registry import default_plugins  # the plugins load only when needed

        plugins = default_plugins()
    errors.extend(_plugin_errors(built, plugins))
    if errors:
        raise ConfigError(errors)
    top = {name: built[name] for name in SECTION_ORDER}
    return Config(**top, source=source, adjustments=tuple(adjustments))


PLUGIN_KEYS: tuple[tuple[str, str, PluginKind, tuple[str, ...]], ...] = (
    ("recall", "embedder", "embedder", ()),
    ("llm", "provider", "llm_provider", ("none",)),
    ("retrospective", "extractor", "extractor", ()),
    ("consolidation", "agents", "agent", ()),
    ("consolidation", "custom_agents", "agent", ()),
    ("consolidation", "ingest_gate", "ingest_gate", ()),
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
    kind: Kind = _field_map(section)[key].metadata["kind"]
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


def _check_retry_delays(c: _SectionCheck, section: str) -> None:
    base, most = c.values["retry_base_delay"], c.values["retry_max_delay"]
    if c.ok("retry_base_delay", "retry_max_delay") and most < base:
        c.errors.append(
            f"{section}.retry_max_delay: {format_duration(most)} is below "
            f"{section}.retry_base_delay ({format_duration(base)})"
        )


def _check_consolidation(c: _SectionCheck) -> None:
    _check_retry_delays(c, "consolidation")
    _check_tier(c)
    least, most = c.values["episode_min_messages"], c.values["episode_max_messages"]
    if c.ok("episode_min_messages", "episode_max_messages") and most < least:
        c.errors.append(
            f"consolidation.episode_max_messages: {most} is below "
            f"consolidation.episode_min_messages ({least})"
        )


def _check_retrospective(c: _SectionCheck) -> None:
    _check_retry_delays(c, "retrospective")
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
    default_url, default_key_env = LLM_DEFAULTS.get(provider, (None, None))
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


def _check_tier(c: _SectionCheck) -> None:
    """A custom tier names its phases; the custom keys mean nothing at another tier."""
    if not c.ok("tier", "custom_phases", "custom_agents"):
        return
    if c.values["tier"] == "custom":
        if not c.values["custom_phases"]:
            c.errors.append(
                "consolidation.custom_phases: required (a non-empty list of light, standard, "
                "deep) when consolidation.tier is custom"
            )
        return
    for key in ("custom_phases", "custom_agents"):
        if c.values[key] is not None:
            c.errors.append(
                f"consolidation.{key}: set, but consolidation.tier is {c.values['tier']} "
                '(set tier = "custom")'
            )


def _check_promotion(c: _SectionCheck) -> None:
    """Take ``[memory] promote_*`` (the keys before ``[consolidation.promotion]``) where the
    new keys are not set, so an older file keeps its rule."""
    memory = c.built.get("memory")
    for key in ("min_recalls", "min_queries", "min_age"):
        if key not in c.given and memory is not None:
            c.values[key] = getattr(memory, f"promote_{key}")


_CHECKS: dict[str, Callable[[_SectionCheck], None]] = {
    "storage": _check_storage,
    "server": _check_server,
    "retrospective": _check_retrospective,
    "llm": _check_llm,
    "recall": _check_recall,
    "consolidation.promotion": _check_promotion,
    "consolidation": _check_consolidation,
}


def describe_keys() -> list[tuple[str, str, str, str]]:
    """Return ``(full key, kind, default, doc)`` for every key, for docs and ``config keys``."""
    rows: list[tuple[str, str, str, str]] = []
    for section in SECTIONS:
        for spec in _field_map(section).values():
            kind: Kind = spec.metadata["kind"]
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
