"""Host the projections beside the API: open the store, fold on this loop or drive the
projection process, and stop both in order.

:func:`store_context` and :func:`projections_context` are ``cleanup_ctx`` contexts; the
folding declares the app ready once it has caught up with the log, and records what keeps it
from folding (a full disk, a damaged log, a dead child) as problems ``/v1/health`` reports.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.api.keys import STATE
from daemon.api.state import FOLD, LOG_DAMAGE, PROJECTOR, AppState
from daemon.logging import get_logger
from daemon.projector import ProjectorExited, ProjectorProcess, async_follow_log
from events.store.base import DamagedLog, EventStore
from events.store.sql import SqlEventStore
from events.tasks import cancel_and_wait
from projections.runner import ProjectionRunner

log = get_logger("memoryd.api")

RunnerFactory = Callable[[EventStore, AsyncEngine], ProjectionRunner]
INLINE_FOLD_DELAY = 0.02
PROCESS_FOLD_DELAY = 0.1


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def store_context(
    store_factory: Callable[[], EventStore],
) -> Callable[[web.Application], AsyncIterator[None]]:
    """Open the store the factory makes while the app runs; a damaged log found at start is
    a problem the daemon serves with (degraded), not a reason to stay "starting"."""

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


def projections_context(
    runner_factory: RunnerFactory | None,
) -> Callable[[web.Application], AsyncIterator[None]]:
    """Fold the projections while the app runs, on this loop or in the projection process
    (``[server] projector``); without a runner factory the app is ready at once."""

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
        async_drive_projector(state, projector), name="memoryd-projector"
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


RESTART_FIRST_DELAY = 0.5
RESTART_MAX_DELAY = 30.0
RESTART_RESET_AFTER = 60.0
"""A child that ran this long before it died is restarted after the first delay again."""


async def async_drive_projector(state: AppState, projector: ProjectorProcess) -> None:
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
