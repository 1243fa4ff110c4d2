"""What the application shares between its handlers: the settings and the running state.

:class:`AppSettings` is what the server takes from the configuration for the API; its
defaults are the configuration's own (``daemon.config``). :class:`AppState` holds the open
store, the projections' progress and the problems ``/v1/health`` reports; it is stored under
:data:`daemon.api.keys.STATE`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.api.errors import ApiError
from daemon.auth import TokenSet
from daemon.backend import Backend
from daemon.config import (
    LoggingConfig,
    MemoryConfig,
    RecallConfig,
    ServerConfig,
    StorageConfig,
    key_default,
)
from daemon.logging import get_logger
from daemon.metrics import Metrics
from events.clock import Clock
from events.store.base import EventStore

log = get_logger("memoryd.api")


@dataclass(frozen=True, slots=True)
class AppSettings:
    """What the API needs to know; built by the server from the configuration, whose defaults
    these are."""

    backend: Backend
    max_body_bytes: int = key_default(ServerConfig, "max_body_size")
    read_your_writes_timeout: float = 5.0
    wait_on_write: bool = False
    """Make writes wait for the projections instead of the next read (slower writes)."""
    fold_delay: float | None = None
    """Longest the projections let writes gather before folding them (a waiting read skips
    it). None: 20 ms on the API's loop, where a long fold holds requests up; 100 ms in the
    projection process, which has a core to itself and spends less CPU on fewer, larger folds."""
    tcp_requires_token: bool = True
    drain_timeout: float = key_default(ServerConfig, "shutdown_timeout").total_seconds()
    stop_timeout: float = 10.0
    sse_heartbeat: float = 15.0
    request_timeout: float | None = key_default(ServerConfig, "request_timeout").total_seconds()
    """Longest a request may take (streams excepted); None: unbounded."""
    recall: RecallConfig = field(default_factory=RecallConfig)
    """``[recall]`` (live): the embedder the recall service uses, and a search's default
    ``top_k`` and ``candidate_top_k``."""
    projector: Literal["inline", "process"] = key_default(ServerConfig, "projector")
    """``[server] projector``: fold on this loop, or in a child process (see daemon.projector)."""
    log_level: str = key_default(LoggingConfig, "level")
    """For the projection process: the daemon's ``[logging] level`` at start."""
    log_format: str = key_default(LoggingConfig, "format")
    """For the projection process: the daemon's ``[logging] format`` at start."""
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    """``[memory]``: the trust policy and the reconciliation thresholds (live)."""
    reserved_space: int = key_default(StorageConfig, "reserved_space")
    """``[storage] reserved_space``: writes are refused (507) while the data dir's disk has
    less free space than this, so that the projections and a restart still find room."""


class ProjectionProgress(Protocol):
    """How far the projections have folded, wherever they fold (this loop or a child)."""

    @property
    def position(self) -> int:
        """Return the last position folded."""
        ...

    async def wait_for(self, position: int, timeout: float | None = None) -> bool:
        """Wait until ``position`` is folded; False on timeout."""
        ...


LOG_DAMAGE = "log"
"""The kind of problem (``AppState.problems``) a damaged log records."""
FOLD = "fold"
"""The kind of problem (``AppState.problems``) a fold that waits (a full disk) records."""
PROJECTOR = "projections"
"""The kind of problem (``AppState.problems``) a dead projection process records."""
WRITES = "writes"
"""The kind of problem (``AppState.problems``) a failed write records."""


@dataclass(slots=True)
class AppState:
    """Everything handlers share, stored under ``STATE``."""

    settings: AppSettings
    clock: Clock
    metrics: Metrics
    tokens: TokenSet | None
    store: EventStore | None = None
    read_engine: AsyncEngine | None = None
    runner: ProjectionProgress | None = None
    runner_task: asyncio.Task[None] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    fold_now: asyncio.Event = field(default_factory=asyncio.Event)
    """Set by a read waiting for the projections: fold without gathering more writes."""
    last_head: int = 0
    last_written: int = 0
    in_flight: int = 0
    """Requests being handled now."""
    streams: set[asyncio.Task[Any]] = field(default_factory=set)
    problems: dict[str, str] = field(default_factory=dict)
    """What keeps the daemon from working fully (writes failing, a damaged log, the
    projection process down), by kind; ``/v1/health`` reports them as ``degraded``."""

    def require_store(self) -> EventStore:
        """Return the open store."""
        if self.store is None:
            raise ApiError(503, "not_ready", "the event store is not open")
        return self.store

    def require_reads(self) -> AsyncEngine:
        """Return the engine for projection reads."""
        if self.read_engine is None:
            raise ApiError(503, "not_ready", "the projections are not open")
        return self.read_engine

    def projection_position(self) -> int:
        """Return how far the projections have folded the log."""
        return 0 if self.runner is None else self.runner.position

    async def async_note_written(self, position: int) -> None:
        """Record an acknowledged write; with ``wait_on_write``, wait until it is projected."""
        self.last_written = max(self.last_written, position)
        self.last_head = max(self.last_head, position)
        if self.settings.wait_on_write and self.runner is not None:
            self.fold_now.set()
            timeout = self.settings.read_your_writes_timeout
            if not await self.runner.wait_for(position, timeout=timeout):
                log.warning("projections did not reach the position in time", position=position)

    def behind(self) -> int:
        """Return how many acknowledged events the projections have not folded yet."""
        return max(0, self.last_written - self.projection_position())

    async def async_reads(self) -> AsyncEngine:
        """Return the projection engine once it reflects every write this daemon acknowledged.

        This is read-your-writes: a read waits (bounded by ``read_your_writes_timeout``) while
        a write acknowledged by this daemon is not folded yet. Past the bound (a bulk import,
        the projection process restarting) the read is served as folded so far, and its
        ``X-Memoryd-Behind`` header says by how many events (see ``observe_middleware``).
        While the folding cannot move (it waits for room on a full disk, or the log is
        damaged) a read does not wait for it.
        """
        engine = self.require_reads()
        target = self.last_written
        stalled = FOLD in self.problems or LOG_DAMAGE in self.problems
        if self.runner is not None and self.projection_position() < target and not stalled:
            self.fold_now.set()
            timeout = self.settings.read_your_writes_timeout
            if not await self.runner.wait_for(target, timeout=timeout):
                log.info(
                    "read served behind the last write",
                    position=target,
                    projection_position=self.projection_position(),
                )
        return engine

    def note_problem(self, kind: str, reason: str | None) -> None:
        """Record (or, with None, clear) a problem of one kind; log when it changes."""
        if reason is None:
            if self.problems.pop(kind, None) is not None:
                log.info("problem cleared", kind=kind)
        elif self.problems.get(kind) != reason:
            self.problems[kind] = reason
            log.error("degraded", kind=kind, reason=reason)
