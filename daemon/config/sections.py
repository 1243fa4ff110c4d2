"""The configuration's sections: every key with its kind, default and documentation, and
:class:`Config`, the whole validated configuration.

Each field carries its kind and its documentation in ``metadata``; the reference of every key
is :data:`SECTIONS` and ``docs/configuration.md`` (a test keeps the two in step).
"""

# RUF009: the section fields are built by ``_key``/``_computed``, thin wrappers of
# ``dataclasses.field`` that attach each key's kind and documentation.
# ruff: noqa: RUF009

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from daemon.config.kinds import (
    NAME_PATTERN,
    Adjustment,
    BlocksKind,
    BlockSpec,
    BoolKind,
    CronKind,
    DatabaseUrlKind,
    DurationKind,
    FloatKind,
    HostPort,
    HostPortKind,
    IntKind,
    Kind,
    NamesKind,
    PathKind,
    SizeKind,
    StrKind,
    TimeZoneKind,
    UrlKind,
)

_T = TypeVar("_T")


def _key(default: _T, kind: Kind, doc: str) -> _T:
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


def _computed(kind: Kind, doc: str) -> Any:
    """A key whose default depends on the environment or other keys (set by the loader)."""
    return field(metadata={"kind": kind, "doc": doc, "computed": True})


_S = timedelta(seconds=1)
_LEVELS = ("debug", "info", "warning", "error", "critical")
ENV_NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_]*"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """``[server]``: where the API listens and how it treats requests."""

    socket: Path = _computed(
        PathKind(),
        "Unix socket path (mode 0600). Default: $RUNTIME_DIRECTORY/memoryd.sock, else "
        "$XDG_RUNTIME_DIR/memoryd.sock, else <storage.data_dir>/memoryd.sock.",
    )
    http: HostPort | None = _key(
        None,
        HostPortKind(),
        'Also listen on TCP, "HOST:PORT" ("[::1]:8765" for IPv6; port 0 picks a free one). '
        "Default: unset (unix socket only).",
    )
    http_allow_non_loopback: bool = _key(
        False,
        BoolKind(),
        "Allow server.http to bind a non-loopback address (requests then need the bearer token).",
    )
    max_body_size: int = _key(
        1024 * 1024,
        SizeKind(minimum=1024, maximum=1024**3),
        "Largest request body accepted; a larger one gets 413. 1KiB .. 1GiB.",
    )
    request_timeout: timedelta = _key(
        30 * _S,
        DurationKind(minimum=timedelta(milliseconds=1), maximum=timedelta(hours=1)),
        "Longest time one request may take (streaming endpoints excepted).",
    )
    max_connections: int = _key(
        1000,
        IntKind(minimum=1, maximum=1_000_000),
        "Most connections open at once; one more is answered 503 too_many_connections and "
        "closed. Keep it below the file-descriptor limit (LimitNOFILE in the units).",
    )
    header_timeout: timedelta = _key(
        10 * _S,
        DurationKind(minimum=timedelta(milliseconds=1), maximum=timedelta(hours=1)),
        "Longest a request's head (request line and headers) may take to arrive once it has "
        "begun; a slower one is answered 408 and the connection closed.",
    )
    idle_timeout: timedelta = _key(
        60 * _S,
        DurationKind(minimum=timedelta(milliseconds=1), maximum=timedelta(hours=1)),
        "A connection with no request under way is closed after this long (also one that "
        "never sends anything).",
    )
    shutdown_timeout: timedelta = _key(
        10 * _S,
        DurationKind(maximum=timedelta(minutes=10)),
        "On SIGTERM, how long in-flight requests may run before they are cut off.",
    )
    projector: str = _key(
        "process",
        StrKind(choices=("process", "inline")),
        'Where the projections fold: "process" (a child process, on another core than the '
        'API) or "inline" (on the API\'s event loop). Read at start.',
    )


@dataclass(frozen=True, slots=True)
class StorageConfig:
    """``[storage]``: where the log and the projections live."""

    data_dir: Path = _computed(
        PathKind(),
        "State directory (SQLite files, token). Default: $STATE_DIRECTORY, else "
        "$XDG_STATE_HOME/memoryd, else ~/.local/state/memoryd.",
    )
    database_url: str | None = _key(
        None,
        DatabaseUrlKind(),
        "A database URL such as postgresql+asyncpg://user@host/db. Default: unset (SQLite in "
        "data_dir). Shown with its password masked.",
    )
    reserved_space: int = _key(
        32 * 1024 * 1024,
        SizeKind(maximum=1024**4),
        "Free space kept on the data dir's disk: below it writes are refused with 507 "
        "insufficient_storage (reads go on), so a restart finds room. The room the projections "
        "still need for acknowledged events they have not folded yet counts as taken. 0 turns "
        "the check off. SQLite only (PostgreSQL's disk is the server's).",
    )


@dataclass(frozen=True, slots=True)
class LoggingConfig:
    """``[logging]``."""

    level: str = _key(
        "info", StrKind(choices=_LEVELS), f"Lowest level logged: {'|'.join(_LEVELS)}."
    )
    format: str = _key(
        "auto",
        StrKind(choices=("auto", "json", "console")),
        "auto (JSON lines unless stdout is a terminal) | json | console.",
    )


@dataclass(frozen=True, slots=True)
class RetrospectiveConfig:
    """``[retrospective]``: when and how conversations are reviewed."""

    enabled: bool = _key(
        True,
        BoolKind(),
        "Kill switch: when false no automatic trigger enqueues and queued automatic runs are "
        "no-ops; a manual run or replay (a person asked) still runs.",
    )
    fork_strategy: str = _key(
        "reference",
        StrKind(choices=("reference", "cloning")),
        "reference (the fork is one event pointing at the source) | cloning (copies messages).",
    )
    time_threshold: timedelta = _key(
        30 * 60 * _S,
        DurationKind(minimum=_S, maximum=timedelta(days=365)),
        "interval trigger: time since the last attempt.",
    )
    message_threshold: int = _key(
        10,
        IntKind(minimum=1, maximum=1_000_000),
        "message_count trigger: new messages since success.",
    )
    min_cooldown: timedelta = _key(
        5 * 60 * _S,
        DurationKind(maximum=timedelta(days=365)),
        "Least time between two attempts on one conversation (pre_compaction bypasses it).",
    )
    require_user_activity: bool = _key(
        True, BoolKind(), "Run only when the unreviewed tail holds a real user message."
    )
    sweep_interval: timedelta = _key(
        8 * 3600 * _S,
        DurationKind(minimum=60 * _S, maximum=timedelta(days=365)),
        "How often the sweep looks for conversations with unreviewed messages. >= 1m.",
    )
    sweep_lookback: timedelta = _key(
        timedelta(days=7),
        DurationKind(maximum=timedelta(days=3650)),
        "Sweep only conversations whose last message is this recent; a queued sweep run whose "
        "conversation went quiet beyond it before its turn came is skipped as `source_dormant`. "
        "Values below 2 x sweep_interval are clamped up to it (and the clamp is logged).",
    )
    sweep_max_per_pass: int = _key(
        50, IntKind(minimum=1, maximum=100_000), "Most runs one sweep pass enqueues."
    )
    auto_promote: bool = _key(
        False,
        BoolKind(),
        "Write extracted facts as active instead of quarantined (pending review). A fact "
        "flagged as a possible prompt injection stays quarantined regardless.",
    )
    keep_superseded_runs: bool = _key(
        False, BoolKind(), "Keep the fork of a run superseded by a later one (else it is cleaned)."
    )
    match_conversation_profile: bool = _key(
        False,
        BoolKind(),
        "Use the conversation's own model profile for its retrospective: the model its latest "
        "message naming one put in metadata.model, asked through the configured provider, with "
        "the thinking (metadata.thinking) and effort (metadata.effort) it last named.",
    )
    prompt_path: Path | None = _key(
        None,
        PathKind(optional=True),
        "A prompt file replacing the bundled one (falls back to it with a warning when unusable).",
    )
    extractor: str = _key(
        "offline-extractor",
        StrKind(pattern=NAME_PATTERN, pattern_help="a plugin name (lower case, digits, . _ -)"),
        "Extractor plugin a retrospective uses when [llm] provider is none (the registered "
        "extractors; offline-extractor reads the user's statements with rules, no model).",
    )
    max_transcript_chars: int = _key(
        60_000,
        IntKind(minimum=1_000, maximum=10_000_000),
        "Largest transcript sent in one model call; longer slices are split in halves.",
    )
    llm_concurrency: int = _key(2, IntKind(minimum=1, maximum=64), "Model calls at once.")
    max_retries: int = _key(
        5, IntKind(minimum=0, maximum=100), "Failed attempts before a slice is abandoned."
    )
    retry_base_delay: timedelta = _key(
        60 * _S,
        DurationKind(minimum=timedelta(milliseconds=1), maximum=timedelta(days=7)),
        "First retry delay (full-jitter exponential backoff).",
    )
    retry_max_delay: timedelta = _key(
        3600 * _S,
        DurationKind(minimum=timedelta(milliseconds=1), maximum=timedelta(days=7)),
        "Longest retry delay; must be >= retry_base_delay.",
    )


LLM_DEFAULTS: dict[str, tuple[str, str]] = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "anthropic": ("https://api.anthropic.com", "ANTHROPIC_API_KEY"),
}
"""A provider's ``base_url`` and ``api_key_env`` when ``[llm]`` names the provider only."""


@dataclass(frozen=True, slots=True)
class LlmBudgetConfig:
    """``[llm.budget]``: daily ceilings on model use (counted from the providers' usage)."""

    calls_per_day: int | None = _key(
        None, IntKind(minimum=1, optional=True), "Most model calls per day. Default: unlimited."
    )
    tokens_per_day: int | None = _key(
        None,
        IntKind(minimum=1, optional=True),
        "Most tokens (prompt + completion) per day. Default: unlimited.",
    )
    reset: str = _key(
        "utc",
        StrKind(choices=("utc", "local", "sliding-24h")),
        "When the day starts over: utc (midnight UTC) | local (local midnight) | sliding-24h.",
    )
    on_exceed: str = _key(
        "pause",
        StrKind(choices=("pause", "log")),
        "pause (runs wait until the budget resets) | log (go on, log a warning).",
    )


@dataclass(frozen=True, slots=True)
class LlmConfig:
    """``[llm]``: the model retrospectives (and later consolidation) call."""

    provider: str = _key(
        "none",
        StrKind(pattern=NAME_PATTERN, pattern_help="a plugin name (lower case, digits, . _ -)"),
        "none (the offline extractor) | openai (Chat Completions: OpenAI, Ollama, llama.cpp, "
        "vLLM, LM Studio) | anthropic (Messages API) | a provider a plugin registers; "
        "checked against the registered providers.",
    )
    base_url: str | None = _key(
        None,
        UrlKind(),
        "API root. Default: https://api.openai.com/v1 (openai), https://api.anthropic.com "
        "(anthropic).",
    )
    model: str | None = _key(
        None, StrKind(optional=True), "Model name; required unless provider is none."
    )
    api_key_env: str | None = _key(
        None,
        StrKind(
            optional=True,
            pattern=ENV_NAME_PATTERN,
            pattern_help="an environment variable name",
        ),
        "Name of the environment variable holding the API key (the key itself never goes in "
        'the file and is never logged). Default: OPENAI_API_KEY / ANTHROPIC_API_KEY; "" for none.',
    )
    timeout: timedelta = _key(
        60 * _S,
        DurationKind(minimum=timedelta(milliseconds=1), maximum=timedelta(hours=1)),
        "Timeout of one model call.",
    )
    max_tokens: int = _key(
        1024, IntKind(minimum=1, maximum=1_000_000), "Most tokens one model reply may use."
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
        StrKind(pattern=NAME_PATTERN, pattern_help="a plugin name (lower case, digits, . _ -)"),
        "Embedder plugin name for the vector leg: hashed (no model), minilm (the extra) or one a "
        "plugin registers; checked against the registered embedders.",
    )
    top_k: int = _key(
        10, IntKind(minimum=1, maximum=1000), "Hits returned when a query names none."
    )
    candidate_top_k: int = _key(
        60, IntKind(minimum=1, maximum=10_000), "Candidates per leg before fusion; >= top_k."
    )


@dataclass(frozen=True, slots=True)
class MemoryConfig:
    """``[memory]``: what memory trusts, and when a new fact replaces what it held."""

    trust_user_statements: bool = _key(
        True,
        BoolKind(),
        "Facts a retrospective distils from the user's own words (cited user turns, nothing the "
        "ingest gate flags) are written active, so recall uses them at once; facts from "
        "assistant or tool turns stay quarantined until validated or promoted.",
    )
    update_threshold_user: float = _key(
        0.5,
        FloatKind(maximum=1.0),
        "Least confidence at which a fact the user states (provenance user) replaces one it "
        "contradicts; below it the write is queued as a conflict for a person.",
    )
    update_threshold_extraction: float = _key(
        0.75,
        FloatKind(maximum=1.0),
        "The same for facts a retrospective extracted (provenance extraction).",
    )
    update_threshold_other: float = _key(
        0.9,
        FloatKind(maximum=1.0),
        "The same for tool, imported and reflection facts.",
    )
    reconcile_with_model: bool = _key(
        True,
        BoolKind(),
        "With an [llm] provider, decide a write that touches current facts with one model call "
        "(JSON verdict, within the daily budget); the rules decide when it fails or is off.",
    )
    promote_min_recalls: int = _key(
        3,
        IntKind(minimum=1, maximum=1_000_000),
        "Recalls (searches that returned it, or would have if it were not quarantined) a "
        "quarantined fact needs before consolidation promotes it. Deprecated: "
        "[consolidation.promotion] min_recalls (this is read only when that is not set).",
    )
    promote_min_queries: int = _key(
        2,
        IntKind(minimum=1, maximum=1_000_000),
        "Deprecated: [consolidation.promotion] min_queries (read when that is not set).",
    )
    promote_min_age: timedelta = _key(
        timedelta(hours=24),
        DurationKind(maximum=timedelta(days=3650)),
        "Deprecated: [consolidation.promotion] min_age (read when that is not set).",
    )


@dataclass(frozen=True, slots=True)
class SalienceWeightsConfig:
    """``[consolidation.salience_weights]``: how much each factor of salience counts.

    salience = retention ^ recency x importance factor ^ importance x trust factor ^ trust:
    1 each is the plain product, 0 leaves a factor out, 2 makes it count twice."""

    recency: float = _key(
        1.0, FloatKind(maximum=10.0), "Weight of retention (decay since last use, recalls)."
    )
    importance: float = _key(1.0, FloatKind(maximum=10.0), "Weight of the fact's importance.")
    trust: float = _key(
        1.0, FloatKind(maximum=10.0), "Weight of trust (provenance, quarantine, confidence)."
    )

    def as_tuple(self) -> tuple[float, float, float]:
        """Return (recency, importance, trust), as the salience rules take them."""
        return (self.recency, self.importance, self.trust)


@dataclass(frozen=True, slots=True)
class ModelsConfig:
    """``[consolidation.models]``: the model of one call site, overriding its phase's
    (``cheap_model`` / ``deep_model``); unset, the phase's."""

    retrospective: str | None = _key(
        None,
        StrKind(optional=True),
        "The retrospective's extraction call (a conversation's own model, when "
        "match_conversation_profile names one, still wins). Default: cheap_model.",
    )
    reconcile: str | None = _key(
        None,
        StrKind(optional=True),
        "The standard phase's reconciliation of new facts. Default: cheap_model.",
    )
    agents: str | None = _key(
        None,
        StrKind(optional=True),
        "The standard phase's agents. Default: cheap_model.",
    )
    episodes: str | None = _key(
        None,
        StrKind(optional=True),
        "The standard phase's episode summaries. Default: cheap_model.",
    )
    judge: str | None = _key(
        None,
        StrKind(optional=True),
        "The deep phase's conflict judge. Default: deep_model.",
    )
    reflection: str | None = _key(
        None,
        StrKind(optional=True),
        "The deep phase's reflection (questions and insights). Default: deep_model.",
    )
    analyze: str | None = _key(
        None,
        StrKind(optional=True),
        "The model deciding the items of an analyzed plan. Default: deep_model.",
    )
    profile: str | None = _key(
        None,
        StrKind(optional=True),
        "The deep phase's wording of the profile. Default: deep_model.",
    )
    blocks: str | None = _key(
        None,
        StrKind(optional=True),
        "The deep phase's rewrites of the curated blocks. Default: deep_model.",
    )


PROVENANCES = ("user", "tool", "extraction", "reflection", "imported")
"""Where a fact came from (``events.types.Provenance``)."""


@dataclass(frozen=True, slots=True)
class PromotionConfig:
    """``[consolidation.promotion]``: when ordinary use promotes a quarantined fact (light
    phase, every tier). The evidence is what recall recorded (hits and shadow hits)."""

    enabled: bool = _key(True, BoolKind(), "Promote quarantined facts on recall evidence.")
    min_recalls: int = _key(
        3,
        IntKind(minimum=1, maximum=1_000_000),
        "Recalls (searches that returned it, or would have if it were not quarantined) a "
        "quarantined fact needs before it is promoted. Replaces [memory] promote_min_recalls "
        "(still read when this key is not set).",
    )
    min_queries: int = _key(
        2,
        IntKind(minimum=1, maximum=1_000_000),
        "Distinct queries among those recalls (replaces [memory] promote_min_queries).",
    )
    min_age: timedelta = _key(
        timedelta(hours=24),
        DurationKind(maximum=timedelta(days=3650)),
        "Least age of a quarantined fact before it can be promoted (replaces [memory] "
        "promote_min_age).",
    )
    max_per_run: int = _key(
        10,
        IntKind(minimum=0, maximum=1_000_000),
        "Most facts one run promotes (the most recalled first; the rest wait).",
    )
    provenances: tuple[str, ...] = _key(
        PROVENANCES,
        NamesKind(optional=False, choices=PROVENANCES),
        "Provenances whose facts may be promoted ([] for none): user, tool, extraction, "
        "reflection, imported.",
    )


@dataclass(frozen=True, slots=True)
class ConsolidationConfig:
    """``[consolidation]``."""

    tier: str = _key(
        "free",
        StrKind(choices=("free", "cheap", "standard", "full", "custom")),
        "free (light phase only, no model) | cheap | standard | full | custom (custom_phases "
        "with custom_agents, within daily_calls).",
    )
    cheap_model: str | None = _key(
        None,
        StrKind(optional=True),
        "The model the light and standard phases' calls ask (reconciliation, agents, and the "
        "retrospective's extraction); per call site see [consolidation.models]. Default: "
        "[llm] model.",
    )
    deep_model: str | None = _key(
        None,
        StrKind(optional=True),
        "The model the deep phase (conflict judge, reflection) and analyze ask. Default: "
        "[llm] model.",
    )
    custom_phases: tuple[str, ...] | None = _key(
        None,
        NamesKind(choices=("light", "standard", "deep")),
        "The phases a custom tier runs (light, standard, deep; run in that order); required "
        "when tier is custom, refused otherwise.",
    )
    custom_agents: tuple[str, ...] | None = _key(
        None,
        NamesKind(),
        "The agent plugins a custom tier's standard phase runs (registered agent names). "
        "Default: none. Only with tier custom; [consolidation] agents, when set, wins.",
    )
    enabled: bool = _key(True, BoolKind(), "Run consolidation triggers (manual runs always work).")
    idle_after: timedelta = _key(
        30 * 60 * _S,
        DurationKind(minimum=60 * _S, maximum=timedelta(days=30)),
        "idle trigger: run once no memory event arrived for this long (and some arrived since).",
    )
    schedule_interval: timedelta = _key(
        timedelta(days=1),
        DurationKind(minimum=60 * _S, maximum=timedelta(days=365)),
        "schedule trigger: run at least this often while anything changed.",
    )
    after_retrospectives: int = _key(
        5, IntKind(minimum=1, maximum=1_000_000), "Run after this many successful retrospectives."
    )
    after_turns: int = _key(
        0,
        IntKind(minimum=0, maximum=1_000_000),
        "turns trigger: run once this many user and assistant messages arrived since the last "
        "run (0: off).",
    )
    cron: str | None = _key(
        None,
        CronKind(),
        'cron trigger: a five-field cron expression ("0 3 * * *": 03:00 every day; *, lists, '
        "ranges and steps) at whose times a run is due when anything arrived since the last "
        "run. When set it replaces the idle and schedule triggers. Default: unset.",
    )
    cron_timezone: str = _key(
        "UTC", TimeZoneKind(), "The IANA time zone whose clocks cron is read on."
    )
    tau_days: int = _key(
        30, IntKind(minimum=1, maximum=36_500), "Decay time constant (days) of the light phase."
    )
    capacity: int = _key(
        0,
        IntKind(minimum=0, maximum=100_000_000),
        "Most current facts kept; above it the lowest salience are archived (0: no bound).",
    )
    llm_concurrency: int = _key(
        4,
        IntKind(minimum=1, maximum=64),
        "Agent model calls at once: the agents' calls (a batch, or one item of a per-item "
        "agent such as `split`) go in waves of this many, each taking one call from the "
        "budget first.",
    )
    daily_calls: int = _key(
        0,
        IntKind(minimum=0, maximum=10_000_000),
        "Model calls per day (see budget_reset) for consolidation (0: the tier's ceiling: "
        "0/50/300/1000; a custom tier has none, so it makes no model call until this is set).",
    )
    daily_tokens: int = _key(
        0,
        IntKind(minimum=0, maximum=10_000_000_000),
        "Tokens (prompt + completion) per day for consolidation's runs (0: no bound).",
    )
    daily_cost: float = _key(
        0.0,
        FloatKind(maximum=1_000_000.0),
        "Estimated cost per day for consolidation's runs, at cost_per_million_tokens (0: no "
        "bound).",
    )
    cost_per_million_tokens: float = _key(
        0.0,
        FloatKind(maximum=1_000_000.0),
        "Price of a million tokens, for the estimated cost (0: cost is not estimated and "
        "daily_cost bounds nothing).",
    )
    max_run_duration: timedelta = _key(
        timedelta(0),
        DurationKind(maximum=timedelta(days=1)),
        "Longest a run may make model calls; past it on_exceed applies as at the daily "
        "ceilings (0: no bound).",
    )
    cooldown: timedelta = _key(
        timedelta(0),
        DurationKind(maximum=timedelta(days=7)),
        "Least time from one run's start to the next triggered run (manual runs are not held "
        "back).",
    )
    max_retries: int = _key(
        3, IntKind(minimum=0, maximum=100), "Retries of a failed run before waiting for news."
    )
    retry_base_delay: timedelta = _key(
        5 * 60 * _S,
        DurationKind(minimum=_S, maximum=timedelta(days=7)),
        "First retry's delay after a failed run; doubled for each further attempt.",
    )
    retry_max_delay: timedelta = _key(
        6 * 3600 * _S,
        DurationKind(minimum=_S, maximum=timedelta(days=7)),
        "Longest delay before a retry; must be >= retry_base_delay.",
    )
    on_exceed: str = _key(
        "pause",
        StrKind(choices=("pause", "log", "throw")),
        "At a ceiling (daily_calls, daily_tokens, daily_cost, max_run_duration): pause (no "
        "more model calls; the run keeps what its phases did without one, the rules decide the "
        "rest) | log (go on past it, log a warning) | throw (the run fails and writes nothing "
        "but its failure).",
    )
    budget_reset: str = _key(
        "utc",
        StrKind(choices=("utc", "local", "sliding-24h")),
        "When consolidation's daily_calls start over: utc (midnight UTC) | local (local "
        "midnight) | sliding-24h (the calls of the last 24 hours count).",
    )
    lock_wait: timedelta = _key(
        timedelta(0),
        DurationKind(maximum=timedelta(hours=1)),
        "How long a run waits for another run's lease before it answers busy (0: at once).",
    )
    stale_days: float = _key(
        90.0,
        FloatKind(maximum=36_500.0),
        "Preview and analyze: days unused before a fact counts as stale (a request may say).",
    )
    min_score: float = _key(
        0.3,
        FloatKind(maximum=10.0),
        "Preview and analyze: salience below which a fact counts as low-score (a request may say).",
    )
    noise_filters: str = _key(
        "default",
        StrKind(choices=("default", "minimal", "none")),
        "What is never kept as a fact: default (greetings, acknowledgements, tool chatter) | "
        "minimal (greetings and acknowledgements) | none. A retrospective does not write such "
        "a fact (it records it as rejected); the light phase archives such facts written "
        "since the last run otherwise (a fact the user wrote through the API is kept).",
    )
    ingest_gate: str = _key(
        "default",
        StrKind(pattern=NAME_PATTERN, pattern_help="a plugin name (lower case, digits, . _ -)"),
        "The ingest gate plugin every message passes before extraction (a refused message "
        "never reaches the extractor; the run records it): default (refuses nothing) | noise "
        "(refuses messages that are only noise, as noise_filters says) | one a plugin "
        "registers; checked against the registered gates.",
    )
    decay_archive_threshold: float = _key(
        0.05,
        FloatKind(maximum=1.0),
        "The light phase archives a fact whose salience fell below this (restorable).",
    )
    max_standard_batch_size: int = _key(
        500,
        IntKind(minimum=1, maximum=1_000_000),
        "Most new facts the standard phase reconciles in one run (the oldest first; the rest "
        "wait for the next run).",
    )
    max_deep_conflicts_per_run: int = _key(
        50,
        IntKind(minimum=0, maximum=100_000),
        "Most contradicting pairs the deep phase's judge looks at in one run.",
    )
    reflection: bool = _key(True, BoolKind(), "Let the deep phase reflect (write insights).")
    importance_threshold: float = _key(
        3.0,
        FloatKind(maximum=1_000_000.0),
        "Reflection runs once the importance (each in [0, 1]) of the episodes formed since the "
        "last reflection adds up to this.",
    )
    importance_scoring: str = _key(
        "model",
        StrKind(choices=("model", "heuristic", "off")),
        "An episode's importance: model (the model's score from the episode's one call; the "
        "heuristic when there is no model or its answer is unusable) | heuristic (offline "
        "signals always) | off (every episode 0.5).",
    )
    episode_min_messages: int = _key(
        4,
        IntKind(minimum=1, maximum=10_000),
        "Fewest new finalized messages of a conversation the standard phase makes an episode of "
        "(fewer wait for the next run).",
    )
    episode_max_messages: int = _key(
        40,
        IntKind(minimum=1, maximum=10_000),
        "Most messages in one episode; the rest of a longer backlog forms the next episodes.",
    )
    episode_summary_chars: int = _key(
        600, IntKind(minimum=50, maximum=20_000), "Longest episode summary (characters)."
    )
    episode_half_life: timedelta = _key(
        timedelta(days=7),
        DurationKind(minimum=60 * _S, maximum=timedelta(days=36_500)),
        "Episodic recall: the age at which an episode's recency factor halves.",
    )
    reflection_max_questions: int = _key(
        3, IntKind(minimum=1, maximum=20), "Most questions one reflection asks (one insight each)."
    )
    reflection_max_quarantined_insights: int = _key(
        100,
        IntKind(minimum=0, maximum=1_000_000),
        "Most insights left waiting in quarantine; reflection archives the oldest beyond it "
        "(0: no bound).",
    )
    learned_context_chars: int = _key(
        2000, IntKind(minimum=100, maximum=100_000), "Longest learned_context block (characters)."
    )
    models: ModelsConfig = _subsection(
        "consolidation.models", ModelsConfig, "See [consolidation.models]."
    )
    promotion: PromotionConfig = _subsection(
        "consolidation.promotion", PromotionConfig, "See [consolidation.promotion]."
    )
    blocks: tuple[BlockSpec, ...] = _key(
        (),
        BlocksKind(),
        "Curated blocks the deep phase keeps besides the built-in learned_context: "
        "[[consolidation.blocks]] tables of name (lower case, digits, _ -), purpose (what the "
        "block holds, told to the model) and max_chars (1..100000). The app reads and writes "
        "them through /v1/blocks; with a model each full run rewrites them.",
    )
    salience_weights: SalienceWeightsConfig = _subsection(
        "consolidation.salience_weights",
        SalienceWeightsConfig,
        "See [consolidation.salience_weights].",
    )
    agents: tuple[str, ...] | None = _key(
        None,
        NamesKind(),
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
    "consolidation.salience_weights": SalienceWeightsConfig,
    "consolidation.promotion": PromotionConfig,
    "consolidation.models": ModelsConfig,
    "consolidation": ConsolidationConfig,
}
"""Every section (nested ones by dotted name) and its dataclass."""

SECTION_ORDER = (
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

BUILD_ORDER = (
    "storage",  # server's default socket lives in the data dir
    "server",
    "logging",
    "retrospective",
    "llm.budget",  # nested sections before their parent
    "llm",
    "recall",
    "memory",
    "consolidation.salience_weights",
    "consolidation.promotion",  # after memory: its promote_* keys are read when unset here
    "consolidation.models",
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
        return {name: _dump_section(getattr(self, name)) for name in SECTION_ORDER}

    def changed_keys(self, other: Config) -> list[str]:
        """Return the full names of keys whose values differ between two configs."""
        changed: list[str] = []
        for name in SECTION_ORDER:
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
