"""Hot reload of ``memoryd.toml``: on file change and on SIGHUP.

:class:`ConfigWatcher` watches the config file's *directory* with watchfiles (editors and
config-management tools replace a file by writing a temporary one and renaming it over the
original, which a watch on the file itself would lose) and reacts only to changes of that file
name. A change is debounced, then the file is parsed and validated with the same environment
and command-line overrides as at start:

* valid and different: it is swapped in, every registered callback is awaited with
  ``(old, new)`` in registration order, and ``config.reloaded`` is logged with the changed keys;
* valid and the same: ``config.unchanged`` at debug level, no callbacks;
* invalid: ``config.rejected`` is logged with every error and the running configuration stays.

A callback that raises is logged (``config.callback_failed``) and does not stop the others:
the new configuration is already in force. Clamped values are logged as ``config.adjusted``
(:func:`log_adjustments`, also for the daemon's first load).

SIGHUP: :func:`install_sighup` makes the signal run :func:`reload_on_signal`, which wraps
:meth:`ConfigWatcher.async_reload` in systemd's ``RELOADING=1`` ... ``READY=1``.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from watchfiles import Change, awatch

from daemon import systemd
from daemon.config import Config, ConfigError, load_config
from daemon.logging import get_logger
from events.tasks import cancel_and_wait
from plugins.registry import Plugins

ConfigCallback = Callable[[Config, Config], Awaitable[None]]
"""Awaited with ``(old, new)`` after a new configuration is swapped in."""

_log = get_logger(__name__)


class ConfigSource(Protocol):
    """The configuration in force and its reloads: what the services follow
    (a :class:`ConfigWatcher` in the daemon)."""

    @property
    def current(self) -> Config:
        """Return the configuration in force."""
        ...

    def subscribe(self, callback: ConfigCallback) -> None:
        """Await ``callback(old, new)`` after each applied reload."""
        ...


@dataclass(frozen=True, slots=True)
class ReloadOutcome:
    """What one reload attempt did."""

    status: Literal["applied", "unchanged", "rejected"]
    reason: str
    changed: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


def log_adjustments(config: Config) -> None:
    """Log each value the loader changed (``config.adjusted``), e.g. the sweep_lookback clamp."""
    for adjustment in config.adjustments:
        _log.warning(
            "config.adjusted",
            key=adjustment.key,
            given=adjustment.given,
            used=adjustment.used,
            reason=adjustment.reason,
        )


class ConfigWatcher:
    """Keep the current :class:`Config` and replace it when the file changes or on demand.

    ``path`` None: nothing to watch (``run`` returns at once), but :meth:`async_reload` still
    re-reads defaults and environment. ``load`` replaces the default loader
    (``load_config(path, env, overrides, plugins=plugins)``). ``force_polling`` (also the
    automatic fallback when inotify fails) checks the file every ``poll_interval`` seconds
    instead.
    """

    def __init__(
        self,
        path: Path | None,
        current: Config,
        on_change: ConfigCallback | None = None,
        *,
        env: Mapping[str, str] | None = None,
        overrides: Mapping[str, object] | None = None,
        load: Callable[[], Config] | None = None,
        plugins: Plugins | None = None,
        debounce_ms: int = 300,
        step_ms: int = 50,
        force_polling: bool = False,
        poll_interval: float = 1.0,
    ) -> None:
        self.path = path
        self._current = current
        self._callbacks: list[ConfigCallback] = [] if on_change is None else [on_change]
        env_snapshot = None if env is None else dict(env)
        self._load = load or (lambda: load_config(path, env_snapshot, overrides, plugins=plugins))
        self._debounce_ms = debounce_ms
        self._step_ms = step_ms
        self._force_polling = force_polling
        self._poll_interval = poll_interval
        self._lock = asyncio.Lock()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._waiters: list[asyncio.Future[ReloadOutcome]] = []
        self.last_outcome: ReloadOutcome | None = None
        self.attempts = 0

    @property
    def current(self) -> Config:
        """Return the configuration in force."""
        return self._current

    def subscribe(self, callback: ConfigCallback) -> None:
        """Await ``callback(old, new)`` after each applied change."""
        self._callbacks.append(callback)

    def _matches(self, change: Change, changed_path: str) -> bool:
        return self.path is not None and Path(changed_path).name == self.path.name

    async def async_reload(self, reason: str = "request") -> bool:
        """Re-read the configuration now; True when it is valid (applied or unchanged)."""
        async with self._lock:
            self.attempts += 1
            old = self._current
            try:
                new = self._load()
            except ConfigError as exc:
                outcome = ReloadOutcome("rejected", reason, errors=tuple(exc.errors))
                _log.error(
                    "config.rejected",
                    source=str(self.path) if self.path else None,
                    reason=reason,
                    errors=exc.errors,
                )
                self._finish(outcome)
                return False
            changed = tuple(old.changed_keys(new))
            if not changed:
                _log.debug("config.unchanged", reason=reason)
                self._current = new
                self._finish(ReloadOutcome("unchanged", reason))
                return True
            self._current = new
            _log.info(
                "config.reloaded",
                source=str(self.path) if self.path else None,
                reason=reason,
                changed=list(changed),
            )
            log_adjustments(new)
            for callback in list(self._callbacks):
                try:
                    await callback(old, new)
                except Exception:
                    _log.exception("config.callback_failed", callback=repr(callback))
            self._finish(ReloadOutcome("applied", reason, changed=changed))
            return True

    def _finish(self, outcome: ReloadOutcome) -> None:
        self.last_outcome = outcome
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(outcome)

    async def next_outcome(self) -> ReloadOutcome:
        """Wait for the next reload attempt to finish and return what it did."""
        waiter: asyncio.Future[ReloadOutcome] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        return await waiter

    async def run(self) -> None:
        """Watch the file's directory until :meth:`stop`; reload on each debounced change."""
        if self.path is None:
            return
        directory = self.path.parent
        if self._force_polling:
            await self._poll()
            return
        try:
            async for _changes in awatch(
                directory,
                watch_filter=self._matches,
                debounce=self._debounce_ms,
                step=self._step_ms,
                stop_event=self._stop,
                recursive=False,
            ):
                await self.async_reload(reason="file changed")
        except (FileNotFoundError, PermissionError) as exc:
            _log.error("config.watch_failed", directory=str(directory), error=str(exc))
        except OSError as exc:
            # e.g. the inotify watch limit is reached: polling still works.
            _log.warning("config.watch_polling", directory=str(directory), error=str(exc))
            await self._poll()

    def _signature(self) -> tuple[int, int, int] | None:
        assert self.path is not None
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    async def _poll(self) -> None:
        """Fallback without inotify: compare the file's inode, size and mtime (ns) each interval.

        (watchfiles' own polling compares whole-second mtimes and misses a same-size edit made
        within the second.)
        """
        last = self._signature()
        while not self._stop.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._poll_interval):
                    await self._stop.wait()
            current = self._signature()
            if self._stop.is_set() or current == last:
                continue
            await asyncio.sleep(self._debounce_ms / 1000)  # let a burst of writes settle
            last = self._signature()
            await self.async_reload(reason="file changed")

    def start(self) -> asyncio.Task[None]:
        """Start watching in a task."""
        if self._task is None:
            self._stop.clear()
            self._task = asyncio.get_running_loop().create_task(self.run(), name="config-watch")
        return self._task

    async def stop(self) -> None:
        """Stop watching (waits for the watcher thread to notice)."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stop.set()
        try:
            async with asyncio.timeout(5):
                await asyncio.shield(task)
        except TimeoutError:
            await cancel_and_wait(task)

    async def __aenter__(self) -> ConfigWatcher:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


async def reload_on_signal(watcher: ConfigWatcher) -> bool:
    """Reload as SIGHUP asks: ``RELOADING=1``, reload, ``READY=1`` (even when rejected)."""
    systemd.reloading("reloading configuration")
    ok = False
    try:
        ok = await watcher.async_reload(reason="SIGHUP")
    finally:
        systemd.ready(
            "configuration reloaded" if ok else "configuration rejected; previous one in force"
        )
    return ok


_signal_tasks: set[asyncio.Task[bool]] = set()


def install_sighup(
    watcher: ConfigWatcher, loop: asyncio.AbstractEventLoop | None = None
) -> Callable[[], None]:
    """Reload ``watcher`` on SIGHUP; return a function that removes the handler."""
    loop = loop or asyncio.get_running_loop()

    def on_sighup() -> None:
        task = loop.create_task(reload_on_signal(watcher), name="config-sighup")
        _signal_tasks.add(task)
        task.add_done_callback(_signal_tasks.discard)

    def remove() -> None:
        loop.remove_signal_handler(signal.SIGHUP)

    loop.add_signal_handler(signal.SIGHUP, on_sighup)
    return remove
