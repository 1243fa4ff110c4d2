"""Run the daemon: open the store, serve the API, become ready, shut down in stages.

Startup: load the configuration, bind the listeners (:mod:`daemon.listeners`: the unix
socket, TCP on loopback with bearer tokens, or sockets handed over by systemd), start the app
(which opens the store and starts the projection runner), print where it listens, and notify
systemd ``READY=1`` once the projections have caught up with the log.

Signals: SIGTERM/SIGINT start the staged shutdown; SIGHUP reloads the configuration.

Shutdown, each stage bounded: stop accepting connections; end event streams; let in-flight
requests finish (``server.shutdown_timeout``); let the projection runner fold what was
committed and checkpoint; close the store; remove the socket file. Exit status 0.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from daemon import systemd
from daemon.api.keys import STATE
from daemon.api.protocol import ApiSite
from daemon.api.state import AppSettings, AppState
from daemon.app import build_app
from daemon.auth import TOKEN_FILE, TokenFileError, load_tokens
from daemon.backend import Backend
from daemon.config import Config, ConfigError, load_config
from daemon.inspector import install_inspector
from daemon.inspector.listener import LoopbackListener
from daemon.listeners import (
    SOCKET_BACKLOG,
    RateLimitedLoopErrors,
    ServeError,
    close_listeners,
    connection_limits,
    open_listeners,
    raise_file_limit,
)
from daemon.logging import configure_logging, get_logger
from daemon.paths import loose_permissions
from daemon.projector import ProjectorExited, ProjectorProcess
from daemon.reload import ConfigWatcher, log_adjustments, reload_on_signal
from daemon.services import install_services
from daemon.version import package_version
from events.clock import Clock
from events.store.base import DamagedLog
from plugins.registry import Plugins, default_plugins

log = get_logger("memoryd.server")


EXIT_DAMAGED = 65
"""Exit status for a log that cannot be opened because it is damaged (EX_DATAERR): the units
do not restart on it (RestartPreventExitStatus), since restarting cannot repair it."""


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """How ``memoryd serve`` was asked to run."""

    config_path: Path | None = None
    overrides: Mapping[str, object] = field(default_factory=dict)
    env: Mapping[str, str] | None = None


def app_settings(config: Config) -> AppSettings:
    """Return the API's settings from the configuration."""
    return AppSettings(
        backend=Backend(data_dir=config.storage.data_dir, database_url=config.storage.database_url),
        max_body_bytes=config.server.max_body_size,
        reserved_space=config.storage.reserved_space,
        drain_timeout=config.server.shutdown_timeout.total_seconds(),
        projector="inline" if config.server.projector == "inline" else "process",
        log_level=config.logging.level,
        log_format=config.logging.format,
        **_live_settings(config),
    )


def _live_settings(config: Config) -> dict[str, Any]:
    """The API settings a configuration reload changes while the daemon runs."""
    return {
        "request_timeout": config.server.request_timeout.total_seconds(),
        "recall": config.recall,
        "memory": config.memory,
    }


class Server:
    """One run of the daemon, from binding the sockets to the last checkpoint."""

    def __init__(
        self,
        config: Config,
        options: ServeOptions | None = None,
        *,
        clock: Clock | None = None,
        out: Callable[[str], None] | None = None,
        plugins: Plugins | None = None,
    ) -> None:
        self.config = config
        self.plugins = default_plugins() if plugins is None else plugins
        self.options = options or ServeOptions()
        self.clock = clock
        self.out = out or _print
        self.stop_requested = asyncio.Event()
        self.exit_status = 0
        self._reload_task: asyncio.Task[bool] | None = None
        self._state: AppState | None = None
        opts = self.options
        self.watcher = ConfigWatcher(
            opts.config_path,
            config,
            self._async_apply_config,
            env=opts.env,
            overrides=opts.overrides,
            plugins=self.plugins,
        )

    def request_stop(self, status: int = 0) -> None:
        """Begin the staged shutdown."""
        if not self.stop_requested.is_set():
            self.exit_status = status
            self.stop_requested.set()

    async def async_reload(self) -> bool:
        """Re-read the configuration (as SIGHUP does); keep the old one if the new is invalid."""
        return await reload_on_signal(self.watcher)

    async def _async_apply_config(self, old: Config, new: Config) -> None:
        """Put a reloaded configuration into force where that can happen while running."""
        self.config = new
        state = self._state
        if new.logging != old.logging:
            configure_logging(new.logging.level, new.logging.format)
            if state is not None and isinstance(state.runner, ProjectorProcess):
                state.runner.set_logging(new.logging.level, new.logging.format)
        if state is not None and _live_settings(new) != _live_settings(old):
            state.settings = dataclasses.replace(state.settings, **_live_settings(new))
        restart = [
            key
            for key in old.changed_keys(new)
            if key.startswith("storage.")
            or (key.startswith("server.") and key != "server.request_timeout")
        ]
        if restart:
            log.warning("config.needs_restart", keys=restart)

    def _watcher_ctx(self) -> Callable[[web.Application], AsyncIterator[None]]:
        async def ctx(_app: web.Application) -> AsyncIterator[None]:
            async with self.watcher:
                yield

        return ctx

    def _install_signals(self) -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(RateLimitedLoopErrors())
        loop.add_signal_handler(signal.SIGTERM, self.request_stop)
        loop.add_signal_handler(signal.SIGINT, self.request_stop)
        loop.add_signal_handler(signal.SIGHUP, self._on_sighup)
        loop.add_signal_handler(signal.SIGUSR1, _dump_tasks)

    def _remove_signals(self) -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(None)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
            loop.remove_signal_handler(sig)

    def _on_sighup(self) -> None:
        if self._reload_task is None or self._reload_task.done():
            self._reload_task = asyncio.create_task(self.async_reload(), name="memoryd-sighup")

    async def async_run(self) -> int:
        """Serve until asked to stop; return the exit status."""
        config = self.config
        data_dir = config.storage.data_dir
        os.umask(os.umask(0o077) | 0o077)  # files made from here on are the owner's alone
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        for warning in loose_permissions(data_dir):
            log.warning("data dir permissions", warning=warning)
        files = raise_file_limit()
        limits = connection_limits(config, files)
        if limits.max_connections < config.server.max_connections:
            log.warning(
                "the open-file limit is low for server.max_connections: connections are "
                "capped lower (raise LimitNOFILE)",
                open_file_limit=files,
                max_connections=config.server.max_connections,
                capped_at=limits.max_connections,
            )
        settings = app_settings(config)
        listeners = open_listeners(config, self.options.env)
        try:
            tokens = load_tokens(data_dir) if any(not lst.is_unix for lst in listeners) else None
        except (OSError, TokenFileError) as exc:
            close_listeners(listeners)
            raise ServeError(f"cannot load the API tokens: {exc}") from exc
        app = build_app(
            settings,
            clock=self.clock,
            tokens=tokens,
            extra_contexts=(self._watcher_ctx(),),
            plugins=self.plugins,
        )
        install_services(app, self.watcher)
        state = self._state = app[STATE]
        runner = web.AppRunner(
            app, handle_signals=False, shutdown_timeout=settings.drain_timeout, access_log=None
        )
        tcp = [lst.sock for lst in listeners if not lst.is_unix]
        install_inspector(app, LoopbackListener(runner, limits, tcp))
        self._install_signals()
        try:
            systemd.status("opening the event store")
            try:
                await runner.setup()
            except ProjectorExited as exc:
                close_listeners(listeners)
                raise ServeError(f"{exc} before it was set up (its log says why)") from exc
            except DamagedLog as exc:
                close_listeners(listeners)
                raise ServeError(
                    f"cannot open the event log: {exc}. Restore the data dir from a backup, or "
                    "salvage what reads with `memoryd events export`",
                    EXIT_DAMAGED,
                ) from exc
            except Exception:
                close_listeners(listeners)
                raise
            for listener in listeners:
                site = ApiSite(runner, listener.sock, limits, backlog=SOCKET_BACKLOG)
                await site.start()
            self.out(
                f"memoryd {package_version()} listening on "
                + ", ".join(lst.label for lst in listeners)
                + f" (data dir {data_dir})"
            )
            if tokens is not None:
                self.out(f"memoryd: TCP clients need the bearer token in {data_dir / TOKEN_FILE}")
            systemd.status("catching up with the log")
            await self._async_until_ready_or_stop(state)
            if state.ready.is_set() and not self.stop_requested.is_set():
                position = state.projection_position()
                self.out(f"memoryd: ready (log position {position})")
                systemd.ready(f"serving (position {position})")
                _freeze_startup_objects()
            async with systemd.Watchdog(healthy=lambda: not state.stopping.is_set()):
                await self.stop_requested.wait()
            systemd.stopping("shutting down")
            self.out("memoryd: shutting down")
            await runner.cleanup()
        finally:
            self._remove_signals()
            close_listeners(listeners)
        self.out("memoryd: stopped")
        return self.exit_status

    async def _async_until_ready_or_stop(self, state: AppState) -> None:
        """Wait for readiness; stop with status 1 if the projection runner dies."""
        waits: list[asyncio.Future[object]] = [
            asyncio.ensure_future(state.ready.wait()),
            asyncio.ensure_future(self.stop_requested.wait()),
        ]
        if state.runner_task is not None:
            waits.append(asyncio.ensure_future(asyncio.shield(state.runner_task)))
            state.runner_task.add_done_callback(lambda t: self._on_runner_done(t))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()

    def _on_runner_done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled() or self.stop_requested.is_set():
            return
        exc = task.exception()
        log.error("the projection runner stopped; shutting down", error=repr(exc))
        self.request_stop(1)


def _freeze_startup_objects() -> None:
    """Keep what start-up built (modules, compiled SQL, config) out of later GC passes.

    A full collection walks every tracked object, start-up's included: in a paced run of
    ``bench/api.py`` (1,000 requests/s) two of them paused the loop for 16 and 49 ms, which
    made the slowest requests. Frozen objects are never collected, which costs nothing here:
    they live as long as the process.
    """
    gc.collect()
    gc.freeze()


def _print(line: str) -> None:
    # Human status lines on stderr: stdout carries the (possibly JSON) log stream.
    print(line, file=sys.stderr, flush=True)


async def async_serve(options: ServeOptions) -> int:
    """Load the configuration and run the daemon; return the exit status."""
    plugins = default_plugins()  # the one plugin manager: built-ins and entry points
    try:
        config = load_config(options.config_path, options.env, options.overrides, plugins=plugins)
    except ConfigError as exc:
        print(f"memoryd: {exc}", file=sys.stderr)
        return 2
    configure_logging(config.logging.level, config.logging.format)
    log_adjustments(config)
    try:
        return await Server(config, options, plugins=plugins).async_run()
    except ServeError as exc:
        print(f"memoryd: {exc}", file=sys.stderr)
        return exc.status


def _dump_tasks() -> None:
    """Write every asyncio task and where it waits to stderr (SIGUSR1: a daemon that does
    not stop, or does nothing, says what it is waiting for)."""
    for task in sorted(asyncio.all_tasks(), key=lambda t: t.get_name()):
        print(f"--- {task!r}", file=sys.stderr)
        task.print_stack(file=sys.stderr)
    sys.stderr.flush()
