"""memoryd.toml: typed sections, validation naming each key, environment overrides, clamps."""

from __future__ import annotations

import re
import tomllib
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from daemon.config import (
    Config,
    ConfigError,
    HostPort,
    config_from_mapping,
    default_config_path,
    describe_keys,
    env_var_name,
    load_config,
    redact_url,
)
from plugins.llm.settings import LLMSettings
from tests.paths import REPO_ROOT


def _errors(raw: dict[str, object], env: dict[str, str] | None = None) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        config_from_mapping(raw, env=env or {})
    return caught.value.errors


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_file(tmp_path: Path) -> None:
    config = load_config(None, {"XDG_STATE_HOME": str(tmp_path)})
    assert config.storage.data_dir == tmp_path / "memoryd"
    assert config.storage.database_url is None
    assert config.server.socket == tmp_path / "memoryd" / "memoryd.sock"
    assert config.server.http is None
    assert config.server.max_body_size == 1024 * 1024
    assert config.logging.level == "info"
    assert config.logging.format == "auto"
    retro = config.retrospective
    assert retro.enabled is True
    assert retro.fork_strategy == "reference"
    assert retro.time_threshold == timedelta(minutes=30)
    assert retro.message_threshold == 10
    assert retro.min_cooldown == timedelta(minutes=5)
    assert retro.require_user_activity is True
    assert retro.sweep_interval == timedelta(hours=8)
    assert retro.sweep_lookback == timedelta(days=7)
    assert retro.sweep_max_per_pass == 50
    assert retro.keep_superseded_runs is False
    assert retro.match_conversation_profile is False
    assert retro.prompt_path is None
    assert retro.max_transcript_chars == 60_000
    assert retro.llm_concurrency == 2
    assert retro.max_retries == 5
    assert retro.retry_base_delay == timedelta(seconds=60)
    assert retro.retry_max_delay == timedelta(hours=1)
    assert config.llm.provider == "none"
    assert config.consolidation.tier == "free"
    assert config.recall.top_k == 10
    assert config.adjustments == ()


def test_socket_and_data_dir_follow_systemd_directories(tmp_path: Path) -> None:
    env = {"STATE_DIRECTORY": str(tmp_path / "state"), "RUNTIME_DIRECTORY": str(tmp_path / "run")}
    config = load_config(None, env)
    assert config.storage.data_dir == tmp_path / "state"
    assert config.server.socket == tmp_path / "run" / "memoryd.sock"


def test_full_file_is_typed(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "memoryd.toml",
        """
        [server]
        socket = "run/memoryd.sock"
        http = "127.0.0.1:8765"
        max_body_size = "512KiB"
        request_timeout = "2m30s"
        shutdown_timeout = "300ms"

        [storage]
        data_dir = "~/memoryd-data"
        database_url = "postgresql+asyncpg://me:secret@db.example/memoryd"

        [logging]
        level = "debug"
        format = "json"

        [retrospective]
        enabled = false
        fork_strategy = "cloning"
        min_cooldown = "0s"
        sweep_interval = "1h"
        sweep_lookback = "3d"
        prompt_path = "prompts/retro.md"

        [llm]
        provider = "openai"
        base_url = "http://localhost:11434/v1/"
        model = "llama3.1"
        api_key_env = ""
        timeout = "90s"

        [recall]
        embedder = "minilm"
        top_k = 20
        candidate_top_k = 100

        [consolidation]
        tier = "standard"
        """,
    )
    config = load_config(path, {})
    assert config.source == path
    assert config.server.socket == tmp_path / "run" / "memoryd.sock"
    assert config.server.http == HostPort("127.0.0.1", 8765)
    assert config.server.max_body_size == 512 * 1024
    assert config.server.request_timeout == timedelta(minutes=2, seconds=30)
    assert config.server.shutdown_timeout == timedelta(milliseconds=300)
    assert config.storage.data_dir == Path.home() / "memoryd-data"
    assert config.logging.level == "debug"
    assert config.retrospective.enabled is False
    assert config.retrospective.fork_strategy == "cloning"
    assert config.retrospective.prompt_path == tmp_path / "prompts" / "retro.md"
    assert config.llm.base_url == "http://localhost:11434/v1"
    assert config.llm.api_key_env is None
    assert config.llm.timeout == timedelta(seconds=90)
    assert config.recall.embedder == "minilm"
    assert config.consolidation.tier == "standard"
    dumped = config.to_dict()
    assert dumped["storage"]["database_url"] == "postgresql+asyncpg://me:***@db.example/memoryd"
    assert dumped["server"]["request_timeout"] == "2m30s"
    assert dumped["server"]["max_body_size"] == "512KiB"
    assert dumped["server"]["http"] == "127.0.0.1:8765"


def test_every_error_is_collected_and_names_its_key() -> None:
    errors = _errors(
        {
            "server": {"max_body_size": "lots", "request_timeout": 30, "colour": "red"},
            "retrospective": {"min_cooldown": "5x", "message_threshold": 0, "enabled": "yes"},
            "logging": {"level": "loud"},
        }
    )
    joined = "\n".join(errors)
    assert len(errors) == 7, joined
    expected = [
        r"^server\.max_body_size: 'lots' is not a size",
        r"^server\.request_timeout: a duration must be a string",
        r"^server\.colour: unknown key",
        r"^retrospective\.min_cooldown: '5x' is not a duration",
        r"^retrospective\.message_threshold: 0 is below the minimum 1",
        r"^retrospective\.enabled: must be true or false",
        r"^logging\.level: 'loud' is not one of: debug, info, warning, error, critical",
    ]
    for pattern in expected:
        assert any(re.search(pattern, e) for e in errors), (pattern, joined)


def test_unknown_section_and_key_suggest_the_near_name() -> None:
    errors = _errors({"serer": {}, "retrospective": {"min_cooldwn": "5m"}})
    assert "[serer]: unknown section (did you mean 'server'?)" in errors
    assert "retrospective.min_cooldwn: unknown key (did you mean 'min_cooldown'?)" in errors


def test_section_must_be_a_table() -> None:
    assert _errors({"server": 5}) == ["server: must be a table ([server]), not a int"]


def test_api_key_in_the_file_is_refused_without_echoing_it() -> None:
    errors = _errors({"llm": {"provider": "openai", "model": "m", "api_key": "sk-secret"}})
    assert len(errors) == 1
    assert errors[0].startswith("llm.api_key: unknown key")
    assert "llm.api_key_env" in errors[0]
    assert "sk-secret" not in errors[0]


def test_database_url_errors_never_echo_the_url() -> None:
    errors = _errors({"storage": {"database_url": "mysql://root:hunter2@db/x"}})
    assert len(errors) == 1
    assert errors[0].startswith("storage.database_url: scheme 'mysql' is not supported")
    assert "hunter2" not in errors[0]


def test_redact_url() -> None:
    assert redact_url("postgresql://u:p@h:5432/d") == "postgresql://u:***@h:5432/d"
    assert redact_url("postgresql://u@h/d") == "postgresql://u@h/d"


def test_sweep_lookback_is_clamped_and_reported() -> None:
    config = config_from_mapping(
        {"retrospective": {"sweep_interval": "8h", "sweep_lookback": "1h"}}, env={}
    )
    assert config.retrospective.sweep_lookback == timedelta(hours=16)
    [adjustment] = config.adjustments
    assert adjustment.key == "retrospective.sweep_lookback"
    assert (adjustment.given, adjustment.used) == ("1h", "16h")
    assert "2 x retrospective.sweep_interval" in adjustment.reason


def test_sweep_lookback_at_the_floor_is_not_adjusted() -> None:
    config = config_from_mapping(
        {"retrospective": {"sweep_interval": "1h", "sweep_lookback": "2h"}}, env={}
    )
    assert config.retrospective.sweep_lookback == timedelta(hours=2)
    assert config.adjustments == ()


def test_cross_key_checks() -> None:
    errors = _errors(
        {
            "retrospective": {"retry_base_delay": "2h", "retry_max_delay": "1h"},
            "recall": {"top_k": 50, "candidate_top_k": 10},
            "llm": {"provider": "anthropic"},
        }
    )
    assert errors == [
        "retrospective.retry_max_delay: 1h is below retrospective.retry_base_delay (2h)",
        "llm.model: required when llm.provider is anthropic",
        "recall.candidate_top_k: 10 is below recall.top_k (50)",
    ]


def test_cross_key_check_skipped_when_a_key_failed() -> None:
    errors = _errors({"retrospective": {"retry_base_delay": "2h", "retry_max_delay": "soon"}})
    assert len(errors) == 1
    assert errors[0].startswith("retrospective.retry_max_delay: 'soon' is not a duration")


def test_llm_provider_defaults() -> None:
    config = config_from_mapping({"llm": {"provider": "anthropic", "model": "claude"}}, env={})
    assert config.llm.base_url == "https://api.anthropic.com"
    assert config.llm.api_key_env == "ANTHROPIC_API_KEY"
    config = config_from_mapping({"llm": {"provider": "openai", "model": "gpt"}}, env={})
    assert config.llm.base_url == "https://api.openai.com/v1"
    assert config.llm.api_key_env == "OPENAI_API_KEY"


def test_llm_keys_without_a_provider_are_refused() -> None:
    assert _errors({"llm": {"model": "gpt"}}) == [
        "llm.model: set, but llm.provider is none (set llm.provider too)"
    ]


def test_llm_api_key_env_must_be_a_variable_name() -> None:
    errors = _errors({"llm": {"provider": "openai", "model": "m", "api_key_env": "sk-abc"}})
    assert errors == ["llm.api_key_env: 'sk-abc' is not an environment variable name"]


@pytest.mark.parametrize(
    ("http", "allowed", "error"),
    [
        ("127.0.0.1:8765", False, None),
        ("localhost:0", False, None),
        ("[::1]:8765", False, None),
        ("0.0.0.0:8765", False, "server.http: 0.0.0.0 is not a loopback address"),
        ("0.0.0.0:8765", True, None),
        ("example.com:80", False, "server.http: example.com is not a loopback address"),
        ("127.0.0.1", False, "server.http: '127.0.0.1' is not HOST:PORT"),
        ("127.0.0.1:70000", False, "server.http: port 70000 is above 65535"),
        ("[zz]:80", False, "server.http: '[zz]:80' is not HOST:PORT"),
    ],
)
def test_http_address(http: str, allowed: bool, error: str | None) -> None:
    raw: dict[str, object] = {"server": {"http": http, "http_allow_non_loopback": allowed}}
    if error is None:
        assert config_from_mapping(raw, env={}).server.http is not None
    else:
        [message] = _errors(raw)
        assert message.startswith(error)


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "memoryd.toml", '[server]\nmax_body_size = "1MiB"\n')
    env = {
        "MEMORYD_SERVER__MAX_BODY_SIZE": "2MiB",
        "MEMORYD_RETROSPECTIVE__ENABLED": "off",
        "MEMORYD_RETROSPECTIVE__MESSAGE_THRESHOLD": "25",
        "MEMORYD_STORAGE__DATA_DIR": "rel/data",
        "MEMORYD_SERVER__HTTP": "",
        "MEMORYD_CONFIG": "/ignored/not-an-override",
        "MEMORYD_TEST_PG_URL": "postgresql://not-an-override",
    }
    config = load_config(path, env)
    assert config.server.max_body_size == 2 * 1024 * 1024
    assert config.retrospective.enabled is False
    assert config.retrospective.message_threshold == 25
    assert config.storage.data_dir == Path.cwd() / "rel" / "data"
    assert config.server.http is None


def test_environment_errors_name_the_variable() -> None:
    errors = _errors(
        {},
        env={
            "MEMORYD_SERVER__MAX_BODY_SIZE": "huge",
            "MEMORYD_RETROSPECTIVE__ENABLED": "maybe",
            "MEMORYD_RETROSPECTIVE__MAX_RETRIES": "five",
            "MEMORYD_SERVER__NOPE": "1",
            "MEMORYD_NOWHERE__X": "1",
        },
    )
    assert sorted(errors) == sorted(
        [
            "MEMORYD_NOWHERE__X: no such key nowhere.x",
            "MEMORYD_SERVER__NOPE: no such key server.nope",
            "retrospective.enabled: 'maybe' is not a boolean; use true or false "
            "(from MEMORYD_RETROSPECTIVE__ENABLED)",
            "retrospective.max_retries: 'five' is not an integer "
            "(from MEMORYD_RETROSPECTIVE__MAX_RETRIES)",
            "server.max_body_size: 'huge' is not a size; write it like '1MiB', '512KiB', "
            "'10MB' or a number of bytes (from MEMORYD_SERVER__MAX_BODY_SIZE)",
        ]
    )


def test_overrides_win_over_environment() -> None:
    config = config_from_mapping(
        {"server": {"http": "127.0.0.1:1"}},
        env={"MEMORYD_SERVER__HTTP": "127.0.0.1:2"},
        overrides={"server.http": "127.0.0.1:3", "storage.data_dir": "/srv/memoryd"},
    )
    assert config.server.http == HostPort("127.0.0.1", 3)
    assert config.storage.data_dir == Path("/srv/memoryd")
    with pytest.raises(ConfigError) as caught:
        config_from_mapping({}, env={}, overrides={"server.http": "0.0.0.0:80", "x.y": 1})
    assert caught.value.errors == [
        "x.y: no such key (from the command line)",
        "server.http: 0.0.0.0 is not a loopback address; set server.http_allow_non_loopback = "
        "true to listen there (a bearer token is then required)",
    ]


def test_env_var_name_scheme() -> None:
    assert env_var_name("server", "max_body_size") == "MEMORYD_SERVER__MAX_BODY_SIZE"


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.toml", {})
    bad = _write(tmp_path / "bad.toml", "[server\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(bad, {})
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(binary, {})


def test_changed_keys(tmp_path: Path) -> None:
    old = config_from_mapping({}, env={"STATE_DIRECTORY": str(tmp_path)})
    new = config_from_mapping(
        {"retrospective": {"min_cooldown": "1m"}, "logging": {"level": "debug"}},
        env={"STATE_DIRECTORY": str(tmp_path)},
    )
    assert old.changed_keys(new) == ["logging.level", "retrospective.min_cooldown"]
    assert old.changed_keys(old) == []


def test_default_config_path(tmp_path: Path) -> None:
    assert default_config_path({"MEMORYD_CONFIG": str(tmp_path / "x.toml")}) == tmp_path / "x.toml"
    assert default_config_path({"XDG_CONFIG_HOME": str(tmp_path)}) in (
        None,
        Path("/etc/memoryd/memoryd.toml"),
    )
    xdg_file = tmp_path / "memoryd" / "memoryd.toml"
    xdg_file.parent.mkdir()
    xdg_file.write_text("")
    assert default_config_path({"XDG_CONFIG_HOME": str(tmp_path)}) == xdg_file
    systemd_dir = tmp_path / "etc"
    systemd_dir.mkdir()
    (systemd_dir / "memoryd.toml").write_text("")
    env = {"CONFIGURATION_DIRECTORY": str(systemd_dir), "XDG_CONFIG_HOME": str(tmp_path)}
    assert default_config_path(env) == systemd_dir / "memoryd.toml"


def test_effective_config_round_trips_through_toml(tmp_path: Path) -> None:
    """What ``to_dict`` shows can be written back as a file and gives the same config."""
    original = config_from_mapping(
        {"retrospective": {"min_cooldown": "90s"}, "server": {"http": "[::1]:0"}},
        env={"STATE_DIRECTORY": str(tmp_path)},
    )
    assert config_from_mapping(_without_nulls(original.to_dict()), env={}) == original


def _without_nulls(table: dict[str, Any]) -> dict[str, Any]:
    """TOML has no null: an unset key is simply left out."""
    return {
        key: _without_nulls(value) if isinstance(value, dict) else value
        for key, value in table.items()
        if value is not None
    }


def test_docs_list_every_key() -> None:
    """docs/configuration.md documents every key with its default, and no other key."""
    text = (REPO_ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    documented = set(
        re.findall(r"^\| `([a-z_.]+)` \| [^|]+ \| `([^`]*)` \|", text, flags=re.MULTILINE)
    )
    assert documented == {(key, default) for key, _kind, default, _doc in describe_keys()}
    assert "MEMORYD_SERVER__MAX_BODY_SIZE" in text


def test_config_is_frozen() -> None:
    config = config_from_mapping({}, env={})
    assert isinstance(config, Config)
    with pytest.raises(AttributeError):
        config.server.max_body_size = 1  # type: ignore[misc]


def test_docs_example_is_valid() -> None:
    text = (REPO_ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    [example] = re.findall(r"```toml\n(.*?)```", text, flags=re.DOTALL)
    config = config_from_mapping(tomllib.loads(example), env={})
    assert config.llm.provider == "openai"
    assert config.llm.api_key_env is None


def test_llm_budget_is_a_nested_table() -> None:
    config = config_from_mapping(
        {
            "llm": {
                "provider": "openai",
                "model": "m",
                "max_tokens": 512,
                "budget": {"tokens_per_day": 100_000, "on_exceed": "log"},
            }
        },
        env={"MEMORYD_LLM__BUDGET__CALLS_PER_DAY": "500", "MEMORYD_LLM__BUDGET__RESET": "local"},
    )
    budget = config.llm.budget
    assert (budget.calls_per_day, budget.tokens_per_day) == (500, 100_000)
    assert (budget.reset, budget.on_exceed) == ("local", "log")
    assert config.to_dict()["llm"]["budget"]["calls_per_day"] == 500
    assert env_var_name("llm.budget", "calls_per_day") == "MEMORYD_LLM__BUDGET__CALLS_PER_DAY"


def test_llm_budget_errors_name_the_nested_key() -> None:
    errors = _errors(
        {"llm": {"budget": {"reset": "weekly", "calls_per_day": 0, "limit": 5}}},
        env={"MEMORYD_LLM__BUDGET__TOKENS_PER_DAY": "many"},
    )
    assert sorted(errors) == sorted(
        [
            "llm.budget.limit: unknown key",
            "llm.budget.tokens_per_day: 'many' is not an integer "
            "(from MEMORYD_LLM__BUDGET__TOKENS_PER_DAY)",
            "llm.budget.calls_per_day: 0 is below the minimum 1",
            "llm.budget.reset: 'weekly' is not one of: utc, local, sliding-24h",
        ]
    )
    assert _errors({"llm": {"budget": 5}}) == [
        "llm.budget: must be a table ([llm.budget]), not a int"
    ]


def test_budget_env_override_can_be_unset() -> None:
    config = config_from_mapping(
        {"llm": {"budget": {"calls_per_day": 5}}}, env={"MEMORYD_LLM__BUDGET__CALLS_PER_DAY": ""}
    )
    assert config.llm.budget.calls_per_day is None


def test_provider_settings_feed_the_llm_plugin() -> None:
    config = config_from_mapping(
        {
            "llm": {
                "provider": "anthropic",
                "model": "claude-x",
                "timeout": "45s",
                "budget": {"calls_per_day": 10, "reset": "sliding-24h"},
            }
        },
        env={},
    )
    mapping = config.llm.provider_settings()
    assert mapping is not None
    settings = LLMSettings.from_mapping(mapping)
    assert settings.provider == "anthropic"
    assert settings.model == "claude-x"
    assert settings.base_url == "https://api.anthropic.com"
    assert settings.api_key_env == "ANTHROPIC_API_KEY"
    assert settings.timeout == 45.0
    assert settings.budget.calls_per_day == 10
    assert settings.budget.reset == "sliding-24h"
    assert config_from_mapping({}, env={}).llm.provider_settings() is None


def test_socket_path_length_is_checked() -> None:
    long_path = "/tmp/" + "x" * 110 + ".sock"
    [error] = _errors({"server": {"socket": long_path}})
    assert error == (
        f"server.socket: the path is {len(long_path)} bytes; unix socket paths are limited to 107"
    )


def test_a_base_url_with_credentials_is_refused_without_echoing_them(tmp_path: Path) -> None:
    path = tmp_path / "memoryd.toml"
    path.write_text(
        '[llm]\nprovider = "openai"\nmodel = "m"\nbase_url = "https://me:hunter2@llm.example/v1"\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path, env={})
    assert "llm.base_url" in str(caught.value)
    assert "user:password" in str(caught.value)
    assert "hunter2" not in str(caught.value)


def test_consolidation_knobs_are_read_and_bad_values_name_their_key() -> None:
    config = config_from_mapping(
        {
            "consolidation": {
                "on_exceed": "throw",
                "budget_reset": "sliding-24h",
                "lock_wait": "45s",
                "stale_days": 30,
                "min_score": 0.2,
            }
        },
        env={},
    )
    knobs = config.consolidation
    assert (knobs.on_exceed, knobs.budget_reset) == ("throw", "sliding-24h")
    assert knobs.lock_wait == timedelta(seconds=45)
    assert (knobs.stale_days, knobs.min_score) == (30.0, 0.2)
    defaults = config_from_mapping({}, env={}).consolidation
    assert (defaults.on_exceed, defaults.budget_reset, defaults.lock_wait) == (
        "pause",
        "utc",
        timedelta(0),
    )
    assert (defaults.stale_days, defaults.min_score) == (90.0, 0.3)
    errors = _errors(
        {
            "consolidation": {
                "on_exceed": "stop",
                "budget_reset": "weekly",
                "lock_wait": "2h",
                "stale_days": -1,
                "min_score": "low",
                "retry_base_delay": "1h",
                "retry_max_delay": "10m",
            }
        }
    )
    assert sorted(e.split(":")[0] for e in errors) == [
        "consolidation.budget_reset",
        "consolidation.lock_wait",
        "consolidation.min_score",
        "consolidation.on_exceed",
        "consolidation.retry_max_delay",
        "consolidation.stale_days",
    ]


_MODEL_SITES = (
    "retrospective",
    "reconcile",
    "agents",
    "episodes",
    "judge",
    "reflection",
    "analyze",
    "profile",
    "blocks",
)
"""Every ``[consolidation.models]`` call site (checked against the section's fields below)."""

BAD_CONSOLIDATION_VALUES: tuple[tuple[str, object], ...] = (
    ("noise_filters", "aggressive"),
    ("decay_archive_threshold", 1.5),
    ("max_standard_batch_size", 0),
    ("max_deep_conflicts_per_run", -1),
    ("reflection_max_questions", 0),
    ("reflection_max_quarantined_insights", -1),
    ("daily_tokens", -5),
    ("daily_cost", "cheap"),
    ("cost_per_million_tokens", -0.5),
    ("max_run_duration", "2d"),
    ("importance_scoring", "vibes"),
    ("episode_min_messages", 0),
    ("cron", "every night"),
    ("after_turns", -1),
    ("ingest_gate", "no-such-gate"),
    *((f"models.{site}", 42) for site in _MODEL_SITES),
    ("promotion.enabled", "yes"),
    ("promotion.min_recalls", 0),
    ("promotion.min_queries", 0),
    ("promotion.min_age", "forever"),
    ("promotion.max_per_run", -1),
    ("promotion.provenances", ["rumour"]),
)
"""``(key under [consolidation], one bad value)``: each must be refused naming the key."""


def test_every_model_site_and_promotion_key_has_a_bad_value() -> None:
    defaults = config_from_mapping({}, env={}).to_dict()["consolidation"]
    assert tuple(defaults["models"]) == _MODEL_SITES
    covered = {key for key, _ in BAD_CONSOLIDATION_VALUES}
    for table in ("models", "promotion"):
        assert {f"{table}.{name}" for name in defaults[table]} <= covered


@pytest.mark.parametrize(("key", "value"), BAD_CONSOLIDATION_VALUES, ids=lambda v: str(v))
def test_a_bad_consolidation_value_names_its_key(key: str, value: object) -> None:
    *tables, name = key.split(".")
    raw: dict[str, object] = {name: value}
    for table in reversed(tables):
        raw = {table: raw}
    errors = _errors({"consolidation": raw})
    assert [e.split(":")[0] for e in errors] == [f"consolidation.{key}"]


def test_the_episode_keys_are_checked() -> None:
    defaults = config_from_mapping({}, env={}).consolidation
    assert (defaults.importance_scoring, defaults.importance_threshold) == ("model", 3.0)
    assert (defaults.episode_min_messages, defaults.episode_max_messages) == (4, 40)
    assert defaults.episode_half_life == timedelta(days=7)
    errors = _errors(
        {
            "consolidation": {
                "importance_scoring": "vibes",
                "episode_summary_chars": 10,
                "episode_half_life": "0s",
                "importance_threshold": -1,
            }
        }
    )
    assert sorted(e.split(":")[0] for e in errors) == [
        "consolidation.episode_half_life",
        "consolidation.episode_summary_chars",
        "consolidation.importance_scoring",
        "consolidation.importance_threshold",
    ]
    errors = _errors({"consolidation": {"episode_min_messages": 10, "episode_max_messages": 5}})
    assert errors == [
        "consolidation.episode_max_messages: 5 is below consolidation.episode_min_messages (10)"
    ]


def test_salience_weights_are_a_nested_table() -> None:
    config = config_from_mapping(
        {"consolidation": {"salience_weights": {"importance": 0, "trust": 2.5}}},
        env={"MEMORYD_CONSOLIDATION__SALIENCE_WEIGHTS__RECENCY": "0.5"},
    )
    assert config.consolidation.salience_weights.as_tuple() == (0.5, 0.0, 2.5)
    assert config.to_dict()["consolidation"]["salience_weights"]["trust"] == 2.5
    errors = _errors({"consolidation": {"salience_weights": {"trust": -1, "age": 1}}})
    assert sorted(e.split(":")[0] for e in errors) == [
        "consolidation.salience_weights.age",
        "consolidation.salience_weights.trust",
    ]
