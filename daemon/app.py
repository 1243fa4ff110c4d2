"""The aiohttp application: typed app state, middlewares, routes and paired setup/teardown.

``build_app`` wires one :class:`AppState` (store, projections, clock, metrics, tokens) under
the ``STATE`` app key. ``cleanup_ctx`` contexts open and close the store, start and stop the
projection runner, and run whatever the server adds (the config watcher). Middlewares, outermost
first: request id + metrics, JSON errors, readiness, bearer auth (TCP only), namespace, and
the idempotency-key check (``daemon.api.common``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Literal, Protocol

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.api.errors import ApiError, error_response, from_http_exception
from daemon.auth import TokenSet
from daemon.backend import Backend
from daemon.config import MemoryConfig
from daemon.logging import get_logger, request_context
from daemon.metrics import Metrics
from daemon.projector import ProjectorExited, ProjectorProcess, async_follow_log
from events.clock import Clock, SystemClock
from events.store.base import DamagedLog, EventStore
from events.store.sql import SqlEventStore
from events.tasks import cancel_and_wait
from plugins.registry import Plugins, default_plugins
from projections.runner import ProjectionRunner

log = get_logger("memoryd.api")

NAMESPACE_HEADER = "X-Memoryd-Namespace"
DEFAULT_NAMESPACE = "default"
NAMESPACE_RE = re.compile(r"[A-Za-z0-9._-]{1,64}")
REQUEST_ID_HEADER = "X-Request-Id"
PROJECTION_POSITION_HEADER = "X-Memoryd-Projection-Position"
BEHIND_HEADER = "X-Memoryd-Behind"
REQUEST_ID_RE = re.compile(r"[A-Za-z0-9._:@/+=-]{1,200}")
"""A client's own request id is echoed and logged only when it is this plain."""
MiB = 1024 * 1024

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def package_version() -> str:
    """Return memoryd's installed version."""
    try:
        return metadata.version("memoryd")
    except metadata.PackageNotFoundError:
        return "0.0.0"


@dataclass(frozen=True, slots=True)
class AppSettings:
    """What the API needs to know; built by the server from the CLI and the config file."""

    backend: Backend
    max_body_bytes: int = MiB
    read_your_writes_timeout: float = 5.0
    wait_on_write: bool = False
    """Make writes wait for the projections instead of the next read (slower writes)."""
    fold_delay: float | None = None
    """Longest the projections let writes gather before folding them (a waiting read skips
    it). None: 20 ms on the API's loop, where a long fold holds requests up; 100 ms in the
    projection process, which has a core to itself and spends less CPU on fewer, larger folds."""
    tcp_requires_token: bool = True
    drain_timeout: float = 10.0
    stop_timeout: float = 10.0
    sse_heartbeat: float = 15.0
    request_timeout: float | None = 30.0
    """Longest a request may take (streams excepted); None: unbounded."""
    recall_embedder: str = "hashed"
    """``[recall] embedder``: the recall service switches to it when a reload changes it."""
    recall_top_k: int = 10
    """``[recall] top_k``: hits a search returns when it names no ``top_k``."""
    recall_candidate_top_k: int = 60
    """``[recall] candidate_top_k``: candidates per leg before fusion, by default."""
    projector: Literal["inline", "process"] = "inline"
    """``[server] projector``: fold on this loop, or in a child process (see daemon.projector)."""
    log_level: str = "info"
    """For the projection process: the daemon's ``[logging] level`` at start."""
    log_format: str = "auto"
    """For the projection process: the daemon's ``[logging] format`` at start."""
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    """``[memory]``: the trust policy and the reconciliation thresholds (live)."""
    reserved_space: int = 32 * MiB
    """``[storage] reserved_space``: writes are refused (507) while the data dir's disk has
    less free space than this, so that the projections and a restart still find room."""


RunnerFactory = Callable[[EventStore, AsyncEngine], ProjectionRunner]
INLINE_FOLD_DELAY = 0.02
PROCESS_FOLD_DELAY = 0.1


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


class ProjectionProgress(Protocol):
    """How far the projections have folded, wherever they fold (this loop or a child)."""

    @property
    def position(self) -> int:
        """Return the last position folded."""
        ...

    async def wait_for(self, position: int, timeout: float | None = None) -> bool:
        """Wait until ``position`` is folded; False on timeout."""
        ...


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


STATE: web.AppKey[AppState] = web.AppKey("memoryd_state", AppState)
PLUGINS: web.AppKey[Plugins] = web.AppKey("memoryd_plugins", Plugins)
"""The process's plugin manager (built once at start-up): embedders, providers, extractors,
agents by name."""
NAMESPACE: web.RequestKey[str] = web.RequestKey("memoryd_namespace", str)
GRANT: web.RequestKey[str] = web.RequestKey("memoryd_grant", str)
"""The name of the token a TCP request authenticated with."""

STREAMING_PATHS = frozenset({"/v1/events/stream"})
"""Paths exempt from the request timeout."""
SELF_BOUNDED_ROUTES = frozenset({"/v1/conversations/{cid}/retrospective:run"})
"""Routes whose request names its own bounded wait (``timeout``, up to 600 s), which the
request timeout (30 s by default) would otherwise cut short with a 503."""
OPEN_PATHS = frozenset({"/v1/health", "/metrics", "/v1/openapi.json"})
"""Paths served before the projections are ready and without a namespace."""
NO_TOKEN_PATHS = frozenset({"/v1/health"})
"""Paths a TCP client may call without a bearer token."""
OWN_SESSION_PREFIX = "/inspect/"
"""Pages that authenticate with their own session cookie (``daemon.inspector``), not a bearer
token."""
DAEMON_WIDE_PATHS = frozenset({"/metrics", "/v1/retrospective"})
"""Paths whose answer covers every namespace: only a token for all namespaces may read them."""


def namespace_of(request: web.Request) -> str:
    """Return the request's validated namespace."""
    return request[NAMESPACE]


def state_of(request: web.Request) -> AppState:
    """Return the application state."""
    return request.app[STATE]


def _route_label(request: web.Request) -> str:
    info = request.match_info
    resource = info.route.resource if info.http_exception is None else None
    return resource.canonical if resource is not None else "unmatched"


_REQUEST_ID_PREFIX = f"{os.getpid():x}-{os.urandom(4).hex()}-"
_REQUEST_SEQ = itertools.count(1)
"""Request ids: unique per process start, without a system call per request."""


@web.middleware
async def observe_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Tag the request with an id and record its count and latency."""
    start = time.perf_counter()
    given = request.headers.get(REQUEST_ID_HEADER)
    if given is None or REQUEST_ID_RE.fullmatch(given) is None:
        given = None
    request_id = given or f"{_REQUEST_ID_PREFIX}{next(_REQUEST_SEQ):x}"
    status = 500
    state = request.app[STATE]
    state.in_flight += 1
    try:
        with request_context(request_id):
            limit = state.settings.request_timeout
            if (
                limit is None
                or request.path in STREAMING_PATHS
                or _route_label(request) in SELF_BOUNDED_ROUTES
            ):
                response = await handler(request)
            else:
                try:
                    async with asyncio.timeout(limit):
                        response = await handler(request)
                except TimeoutError:
                    # A write already handed to the store still commits (appends are shielded);
                    # a retry with the same idempotency key returns its result.
                    response = error_response(
                        503,
                        "timeout",
                        f"the request took longer than {limit:g} s",
                        {"timeout_seconds": limit},
                    )
        status = response.status
        if not response.prepared:
            response.headers[REQUEST_ID_HEADER] = request_id
            if request.path not in OPEN_PATHS:
                # How current the projections were when this answer was made: a read after a
                # bulk import is served, and says how far behind it is, instead of failing.
                response.headers[PROJECTION_POSITION_HEADER] = str(state.projection_position())
                response.headers[BEHIND_HEADER] = str(state.behind())
        return response
    finally:
        state.in_flight -= 1
        metrics = state.metrics
        route = _route_label(request)
        metrics.requests.inc(route, request.method, str(status))
        metrics.latency.observe(time.perf_counter() - start, route, request.method)


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn every error into the API's JSON error body."""
    try:
        declared = request.content_length
        limit = request.app[STATE].settings.max_body_bytes
        if declared is not None and declared > limit:
            # Refused before reading a byte of it; the connection closes, so nothing lingers to
            # read the rest.
            response = _too_large(limit)
            response.force_close()
            return response
        return await handler(request)
    except ApiError as exc:
        return exc.response()
    except web.HTTPRequestEntityTooLarge:
        return _too_large(request.app[STATE].settings.max_body_bytes)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return from_http_exception(exc)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("unhandled error", method=request.method, path=request.path)
        return error_response(500, "internal_error", "internal error; see the daemon's log")


def _too_large(limit: int) -> web.Response:
    return error_response(
        413,
        "body_too_large",
        f"request body is larger than the limit of {limit} bytes",
        {"max_bytes": limit},
    )


def _is_unix(request: web.Request) -> bool:
    transport = request.transport
    sock = transport.get_extra_info("socket") if transport is not None else None
    return sock is not None and sock.family == socket.AF_UNIX


@web.middleware
async def gate_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Check readiness, the bearer token (TCP) and the namespace header."""
    state = request.app[STATE]
    path = request.path
    open_path = path in OPEN_PATHS
    if not open_path and not state.ready.is_set():
        raise ApiError(
            503,
            "not_ready",
            "memoryd is starting: the projections are catching up with the log",
            headers={"Retry-After": "1"},
        )
    grant = None
    bearer = path not in NO_TOKEN_PATHS and not path.startswith(OWN_SESSION_PREFIX)
    if state.tokens is not None and bearer and not _is_unix(request):
        grant = state.tokens.check(request.headers.get("Authorization"))
        if grant is None:
            raise ApiError(
                401,
                "unauthorized",
                "a valid bearer token is required on TCP (Authorization: Bearer <token>)",
                headers={"WWW-Authenticate": 'Bearer realm="memoryd"'},
            )
    namespace = request.headers.get(NAMESPACE_HEADER, DEFAULT_NAMESPACE)
    if NAMESPACE_RE.fullmatch(namespace) is None:
        raise ApiError(
            400,
            "invalid_namespace",
            f"{NAMESPACE_HEADER} must match [A-Za-z0-9._-]{{1,64}}",
            {"field": NAMESPACE_HEADER},
        )
    if grant is not None and grant.namespaces is not None and path in DAEMON_WIDE_PATHS:
        raise ApiError(
            403,
            "forbidden",
            f"{path} covers every namespace; it needs a token for all namespaces (*)",
            {"path": path},
        )
    if grant is not None and not grant.allows(namespace):
        raise ApiError(
            403,
            "forbidden",
            f"this token may not use namespace {namespace!r}",
            {"namespace": namespace},
        )
    request[NAMESPACE] = namespace
    if grant is not None:
        request[GRANT] = grant.name
    return await handler(request)


LOG_DAMAGE = "log"
"""The kind of problem (``AppState.problems``) the integrity check at start records."""


def _store_ctx(
    store_factory: Callable[[], EventStore],
) -> Callable[[web.Application], AsyncIterator[None]]:
    async def ctx(app: web.Application) -> AsyncIterator[None]:
        state = app[STATE]
        store = store_factory()
        await store.open()
        state.store = store
        # Everything the log holds was acknowledged: reads say how far behind it they are.
        state.last_head = state.last_written = await store.head()
        if isinstance(store, SqlEventStore):
            # A damaged page or row is named now, not by the first write that fails on it.
            problems = await store.integrity_problems()
            if problems:
                state.note_problem(LOG_DAMAGE, "; ".join(problems) + " (run `memoryd doctor`)")
                # The projections may never fold past the damage: serve what they hold
                # (degraded, reads saying how far behind) rather than stay "starting".
                state.ready.set()
        try:
            yield
        finally:
            state.store = None
            async with asyncio.timeout(state.settings.stop_timeout):
                await store.close()

    return ctx


def _projections_ctx(
    runner_factory: RunnerFactory | None,
) -> Callable[[web.Application], AsyncIterator[None]]:
    async def ctx(app: web.Application) -> AsyncIterator[None]:
        state = app[STATE]
        store = state.require_store()
        backend = state.settings.backend
        if runner_factory is None:
            state.ready.set()
            yield
            return
        if state.settings.projector == "process":
            async with _async_projector_process(state):
                yield
            return
        write_engine = backend.projection_engine(write=True)
        read_engine = backend.projection_engine(write=False)
        runner = runner_factory(store, write_engine)
        await runner.setup()
        state.runner = runner
        state.read_engine = read_engine
        state.runner_task = asyncio.create_task(
            _async_run_projections(state, runner), name="memoryd-projections"
        )
        try:
            yield
        finally:
            await _async_stop_runner(state)
            state.read_engine = None
            await read_engine.dispose()
            await write_engine.dispose()

    return ctx


def _declare_ready(state: AppState, position: int) -> None:
    state.ready.set()
    log.info("projections caught up", position=position)


FOLD = "fold"
"""The kind of problem (``AppState.problems``) a fold that waits (a full disk) records."""


def _note_fold_blocked(state: AppState, reason: str | None) -> None:
    """Record why the folding waits, or that it goes on (None).

    A fold that waits at start (a full disk: no room for what the projections hold of the
    events not folded yet) would keep the daemon "starting" until room is made: it serves
    what is folded instead, degraded, its reads saying how far behind they are.
    """
    state.note_problem(FOLD, reason)
    if reason is not None and not state.ready.is_set():
        log.warning("serving behind the log", reason=reason)
        state.ready.set()


async def _async_run_projections(state: AppState, runner: ProjectionRunner) -> None:
    """Fold on this loop: catch up, declare readiness, then follow the log.

    A damaged log stops the folding where the damage is, not the daemon: the problem shows
    in ``/v1/health`` and reads are served as folded so far.
    """
    try:
        await async_follow_log(
            state.require_store(),
            runner,
            fold_now=state.fold_now,
            fold_delay=_or(state.settings.fold_delay, INLINE_FOLD_DELAY),
            on_ready=lambda position: _declare_ready(state, position),
            on_blocked=lambda reason: _note_fold_blocked(state, reason),
        )
    except DamagedLog as exc:
        state.note_problem(LOG_DAMAGE, f"folding stopped at position {runner.position}: {exc}")
        state.ready.set()
        await asyncio.Event().wait()  # until the daemon stops


@contextlib.asynccontextmanager
async def _async_projector_process(state: AppState) -> AsyncIterator[None]:
    """Fold in a child process (see daemon.projector) while the app runs."""
    settings = state.settings
    read_engine = settings.backend.projection_engine(write=False)
    projector = ProjectorProcess(
        settings.backend,
        fold_delay=_or(settings.fold_delay, PROCESS_FOLD_DELAY),
        log_level=settings.log_level,
        log_format=settings.log_format,
    )
    await projector.async_start()
    log.info("projection process started", pid=projector.pid)
    state.runner = projector
    state.read_engine = read_engine
    state.runner_task = task = asyncio.create_task(
        _async_drive_projector(state, projector), name="memoryd-projector"
    )
    try:
        # Readers (the recall indexer, for one) may start once the tables exist.
        set_up = asyncio.ensure_future(projector.set_up.wait())
        await asyncio.wait({set_up, task}, return_when=asyncio.FIRST_COMPLETED)
        set_up.cancel()
        if task.done():
            task.result()
        yield
    finally:
        store = state.store
        head = await store.head() if store is not None else 0
        await projector.async_stop(head, settings.stop_timeout)
        await _async_stop_runner(state)
        state.read_engine = None
        await read_engine.dispose()


PROJECTOR = "projections"
"""The kind of problem (``AppState.problems``) a dead projection process records."""
RESTART_FIRST_DELAY = 0.5
RESTART_MAX_DELAY = 30.0
RESTART_RESET_AFTER = 60.0
"""A child that ran this long before it died is restarted after the first delay again."""


async def _async_drive_projector(state: AppState, projector: ProjectorProcess) -> None:
    """Drive the child; when it dies, start another (with backoff) while writes go on.

    Reads meanwhile wait their bounded while and are served as folded so far, saying how far
    behind (``X-Memoryd-Behind``); ``/v1/health`` says ``degraded`` until the child is back.
    A child that dies before it has set up its tables fails start-up instead: it would only
    die again.
    """
    loop = asyncio.get_running_loop()
    delay = RESTART_FIRST_DELAY
    projector.on_blocked = lambda reason: _note_fold_blocked(state, reason)
    while True:
        started = loop.time()
        try:
            await _async_drive_one_projector(state, projector)
        except ProjectorExited as exc:
            if not projector.set_up.is_set():
                raise
            if projector.stopping:
                # Told to stop: not a death to recover from. (A child that failed its last
                # fold on a full disk was restarted here, and shutdown never ended: on
                # Python 3.11 the TaskGroup raised the child's error and the cancellation
                # that came with it was lost.)
                raise asyncio.CancelledError from None
            reason = f"{exc}; restarting it"
            state.note_problem(PROJECTOR, reason)
        if loop.time() - started >= RESTART_RESET_AFTER:
            delay = RESTART_FIRST_DELAY
        log.warning("projector.restarting", retry_in=delay)
        await asyncio.sleep(delay)
        delay = min(delay * 2, RESTART_MAX_DELAY)
        await projector.async_start()
        log.info("projection process started", pid=projector.pid)


async def _async_drive_one_projector(state: AppState, projector: ProjectorProcess) -> None:
    """Relay commits and read requests to the child; raise ProjectorExited if it dies."""
    store = state.require_store()

    async def relay_heads() -> None:
        head = store.known_head
        while True:
            projector.tell_head(head)  # says nothing when the child was told already
            seen, head = head, await store.next_head(head)
            if head == seen:  # the store is closing
                return

    async def relay_fold_requests() -> None:
        while True:
            await state.fold_now.wait()
            state.fold_now.clear()
            projector.fold_now()

    async def declare_ready() -> None:
        await projector.ready.wait()
        _declare_ready(state, projector.position)
        state.note_problem(PROJECTOR, None)

    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(projector.async_watch())
            group.create_task(relay_heads())
            group.create_task(relay_fold_requests())
            group.create_task(declare_ready())
    except* ProjectorExited as failed:
        # One plain error, not a group: the child logged its own reason already.
        raise failed.exceptions[0] from None


async def _async_stop_runner(state: AppState) -> None:
    """Stop the projection runner, letting its current batch commit (bounded)."""
    task = state.runner_task
    if task is None:
        return
    runner = state.runner
    store = state.store
    if isinstance(runner, ProjectionRunner) and store is not None and not task.done():
        # Let the runner fold (and checkpoint) everything committed before it stops.
        head = await store.head()
        state.fold_now.set()
        await runner.wait_for(head, timeout=state.settings.stop_timeout)
    try:
        await cancel_and_wait(task)
    except Exception as exc:
        log.error("the projection runner had failed", error=repr(exc))
    state.runner_task = None


async def _async_end_streams(app: web.Application) -> None:
    """Tell open event streams to end so shutdown need not wait for them."""
    state = app[STATE]
    state.stopping.set()
    for task in list(state.streams):
        task.cancel()


def build_app(
    settings: AppSettings,
    *,
    clock: Clock | None = None,
    tokens: TokenSet | None = None,
    store_factory: Callable[[], EventStore] | None = None,
    runner_factory: RunnerFactory | None = None,
    with_projections: bool = True,
    extra_contexts: tuple[Callable[[web.Application], AsyncIterator[None]], ...] = (),
    plugins: Plugins | None = None,
) -> web.Application:
    """Build the application; the store opens when the app starts.

    ``with_projections=False`` runs without a projection runner (writes and the event
    endpoints only; reads of projected state answer 503). ``plugins`` is kept under
    :data:`PLUGINS` (default: the process's manager, :func:`plugins.registry.default_plugins`).
    """
    from daemon.api import routes
    from daemon.api.common import idempotency_middleware

    clock = clock or SystemClock()
    if runner_factory is None and with_projections:
        runner_factory = ProjectionRunner
    app = web.Application(
        middlewares=[observe_middleware, error_middleware, gate_middleware, idempotency_middleware],
        client_max_size=settings.max_body_bytes,
    )
    state = AppState(
        settings=settings,
        clock=clock,
        metrics=Metrics(),
        tokens=tokens if settings.tcp_requires_token else None,
    )
    app[STATE] = state
    app[PLUGINS] = default_plugins() if plugins is None else plugins
    state.metrics.gauge(
        "memoryd_log_head_position",
        "Last position of the event log seen by this daemon.",
        lambda: float(state.last_head),
    )
    state.metrics.gauge(
        "memoryd_projection_position",
        "Position the projections have folded.",
        lambda: float(state.projection_position()),
    )
    state.metrics.gauge(
        "memoryd_http_requests_in_flight",
        "Requests being handled now.",
        lambda: float(state.in_flight),
    )
    state.metrics.gauge(
        "memoryd_projection_lag_events",
        "Events committed but not yet projected.",
        lambda: float(max(0, state.last_head - state.projection_position())),
    )
    factory = store_factory or (lambda: settings.backend.open_store(clock=clock))
    app.cleanup_ctx.append(_store_ctx(factory))
    app.cleanup_ctx.append(_projections_ctx(runner_factory))
    app.cleanup_ctx.extend(extra_contexts)
    app.on_shutdown.append(_async_end_streams)
    routes.add_routes(app)
    return app
