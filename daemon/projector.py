"""Fold the projections in a child process, so the API's event loop keeps a core to itself.

Python runs one thread at a time per process. Folded on the API's loop, the projections took
about half of the daemon's CPU under a stream of writes, and every request waited behind them
(``bench/api.py``: p99 of about 100 ms at 1,000 requests/s). The fold is a pure function of
the log written to its own tables, so it can run anywhere that reads the log: here, a child
process the daemon starts and stops with itself (``[server] projector = "process"``, the
default; ``"inline"`` folds on the API's loop as before).

The two talk over the child's stdin and stdout, one ASCII line per message:

- daemon -> child: ``head N`` (the log holds position N: fold up to it), ``fold`` (a read is
  waiting: fold without gathering more writes), ``log LEVEL FORMAT`` (a reloaded ``[logging]``
  section), ``stop`` (fold what was announced, checkpoint, exit 0). End of input means the
  daemon is gone: the child stops the same way.
- child -> daemon: ``setup`` once its tables exist, ``ready N`` once it has caught up, then
  ``at N`` each time its checkpoint reaches N; ``blocked REASON`` when a fold failed for a
  reason that passes (a full disk) and is being retried, ``unblocked`` once one succeeds.

Logs go to the child's stderr, which is the daemon's (one journal). The child ignores SIGINT
and SIGTERM: a terminal's Ctrl-C or systemd's stop reaches the whole process group, and the
daemon, not the signal, decides when the child has folded enough to stop. PostgreSQL wakes the
child itself (LISTEN/NOTIFY); the ``head`` lines make SQLite's wake-ups cross the process
boundary.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import sqlalchemy as sa

from daemon.backend import Backend
from daemon.logging import configure_logging, get_logger
from events.store.base import EventStore, StorageFull
from events.store.db_errors import classify_database_error
from events.tasks import cancel_and_wait
from projections.runner import ProjectionRunner

log = get_logger("memoryd.projector")

DATABASE_URL_ENV = "MEMORYD_PROJECTOR_DATABASE_URL"
"""The child gets the database URL from its environment: a password in argv shows in ``ps``."""


CHILD_LAUNCHER = (
    "import signal; "
    "signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "from daemon.projector import main; "
    "raise SystemExit(main())"
)
"""The child's first statements ignore stop signals: importing memoryd takes about a second,
and a group signal in that time (Ctrl-C, ``systemctl restart``) killed the child mid-start."""


class ProjectorExited(RuntimeError):
    """The projection process ended without being asked to."""


def _ignore_blocked(_reason: str | None) -> None:
    pass


async def async_follow_log(
    store: EventStore,
    runner: ProjectionRunner,
    *,
    fold_now: asyncio.Event,
    fold_delay: float,
    on_ready: Callable[[int], None],
    on_folded: Callable[[int], None] = lambda _position: None,
    on_blocked: Callable[[str | None], None] = _ignore_blocked,
) -> None:
    """Catch up, report readiness, then fold whatever is committed, for ever.

    Following lets a burst of writes gather for up to ``fold_delay`` seconds before folding
    (fewer, larger fold transactions cost less CPU per event) unless ``fold_now`` is set.
    ``on_blocked`` hears why the folding waits (a full disk) and, with None, that it goes on.
    """
    retrying = _Retrying(runner, on_blocked)
    await retrying.fold(
        lambda: runner.catch_up(progress=lambda position, _target: on_folded(position))
    )
    await retrying.fold(_shrinking(runner))
    on_ready(runner.position)
    while True:
        await store.wait_for_head(runner.position + 1, timeout=None)
        if fold_delay > 0 and not fold_now.is_set():
            # ``asyncio.timeout``, not ``wait_for``: on Python 3.11 ``wait_for`` swallows a
            # cancellation that races the event, and the child then ignored ``stop``.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(fold_delay):
                    await fold_now.wait()
        fold_now.clear()
        on_folded(await retrying.fold(runner.catch_up))
        await retrying.fold(_shrinking(runner))


def _shrinking(runner: ProjectionRunner) -> Callable[[], Awaitable[int]]:
    async def shrink() -> int:
        await runner.shrink_wal()
        return runner.position

    return shrink


RETRY_FIRST_DELAY = 0.5
RETRY_MAX_DELAY = 30.0
SMALLEST_BATCH = 16
"""Events per fold transaction that a full disk shrinks the batches to, at the least."""


def passing_reason(exc: BaseException) -> str | None:
    """Return why a fold failed when the reason passes (a full disk, an I/O error, a lost
    connection), without the statement or its parameters (users' text); None otherwise."""
    if not isinstance(exc, sa.exc.OperationalError | OSError):
        return None
    problem = classify_database_error(exc)
    if isinstance(problem, StorageFull):
        return "the disk holding the projections is full"
    if problem is not None:
        return str(problem)
    orig = getattr(exc, "orig", None) or exc
    # SQLite names its error (SQLITE_IOERR_WRITE: a full tmpfs says so); the name carries no
    # statement and no value.
    name = getattr(orig, "sqlite_errorname", None)
    return f"{type(exc).__name__} ({name})" if name else type(exc).__name__


class _Retrying:
    """Fold, and while the database refuses for a reason that passes, wait and try again
    instead of dying.

    A batch that failed rolled back with its checkpoint, so trying again neither loses nor
    doubles an event. Anything else is a bug or damage and ends the fold (and the process).
    Each failure also shrinks the batches (a transaction needs room in the WAL for all it
    writes; a smaller one may fit where a large one cannot) until a fold succeeds.
    """

    def __init__(self, runner: ProjectionRunner, on_blocked: Callable[[str | None], None]):
        self.runner = runner
        self.on_blocked = on_blocked
        self.batch_size = runner.batch_size

    async def fold(self, fold: Callable[[], Awaitable[int]]) -> int:
        delay = RETRY_FIRST_DELAY
        blocked = False
        while True:
            try:
                position = await fold()
            except Exception as exc:
                reason = passing_reason(exc)
                if reason is None:
                    raise
                # A smaller transaction may fit where a large one cannot (a full disk, or
                # an I/O error that is a full disk under another name).
                self.runner.batch_size = max(SMALLEST_BATCH, self.runner.batch_size // 4)
                log.warning(
                    "projector.fold_failed_retrying",
                    reason=reason,
                    retry_in=delay,
                    batch_size=self.runner.batch_size,
                )
                if not blocked:
                    blocked = True
                    self.on_blocked(f"folding waits: {reason}")
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_DELAY)
                continue
            self.runner.batch_size = self.batch_size
            if blocked:
                log.info("projector.fold_resumed", position=position)
                self.on_blocked(None)
            return position


# -- the daemon's side ---------------------------------------------------------------------


class ProjectorProcess:
    """The daemon's handle on the child: its folded position, and the lines to it."""

    def __init__(
        self,
        backend: Backend,
        *,
        fold_delay: float,
        log_level: str = "info",
        log_format: str = "json",
    ) -> None:
        self.backend = backend
        self.fold_delay = fold_delay
        self.log_level = log_level
        self.log_format = log_format
        self.position = 0
        self.set_up = asyncio.Event()
        """Set when the projection tables exist (reads may start)."""
        self.ready = asyncio.Event()
        """Set when the child has caught up with the log."""
        self.on_blocked: Callable[[str | None], None] = _ignore_blocked
        """Hears why the child's folding waits (``blocked``) and, with None, that it goes on."""
        self._moved = asyncio.Condition()
        self._process: asyncio.subprocess.Process | None = None
        self._stopping = False
        self._killed = False
        self._told = 0

    async def async_start(self) -> None:
        """Start the child process (again, after it exited: its position is kept)."""
        self._stopping = False
        self._killed = False
        self._told = 0
        self.ready.clear()  # until this child has caught up
        env = dict(os.environ)
        env.pop(DATABASE_URL_ENV, None)
        if self.backend.database_url is not None:
            env[DATABASE_URL_ENV] = self.backend.database_url
        self._process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-P",  # not the working directory on sys.path: a daemon/ there must not load
            "-c",
            CHILD_LAUNCHER,
            "--data-dir",
            str(self.backend.data_dir),
            "--fold-delay",
            repr(self.fold_delay),
            "--log-level",
            self.log_level,
            "--log-format",
            self.log_format,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
        )

    @property
    def pid(self) -> int | None:
        """Return the child's process id once started."""
        return None if self._process is None else self._process.pid

    async def async_watch(self) -> None:
        """Follow the child's reports until it exits; raise if it exits unasked."""
        process = self._require_process()
        assert process.stdout is not None
        while line := await process.stdout.readline():
            word, _, value = line.decode("ascii").strip().partition(" ")
            if word == "setup":
                self.set_up.set()
            elif word in ("ready", "at"):
                async with self._moved:
                    self.position = max(self.position, int(value))
                    self._moved.notify_all()
                if word == "ready":
                    self.ready.set()
            elif word == "blocked":
                self.on_blocked(value or "folding waits")
            elif word == "unblocked":
                self.on_blocked(None)
        status = await process.wait()
        if self._stopping:
            # Asked to stop: whatever it could not fold is folded at the next start (a kill
            # past the timeout was logged where it happened).
            if status != 0 and not self._killed:
                log.warning("projector.stopped_with_status", status=status)
            return
        raise ProjectorExited(f"the projection process exited with status {status}")

    @property
    def stopping(self) -> bool:
        """Return whether the daemon has told the child to stop."""
        return self._stopping

    def tell_head(self, head: int) -> None:
        """Tell the child the log holds ``head``."""
        if head > self._told:
            self._told = head
            self._send(f"head {head}\n")

    def fold_now(self) -> None:
        """Ask the child to fold without gathering more writes."""
        self._send("fold\n")

    def set_logging(self, level: str, format: str) -> None:
        """Pass a reloaded ``[logging]`` section on to the child."""
        self.log_level, self.log_format = level, format
        self._send(f"log {level} {format}\n")

    async def wait_for(self, position: int, timeout: float | None = None) -> bool:
        """Wait until the child has folded ``position``; False on timeout."""
        if self.position >= position:
            return True
        async with self._moved:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._moved.wait_for(lambda: self.position >= position)
        return self.position >= position

    async def async_stop(self, head: int, timeout: float) -> None:
        """Let the child fold through ``head`` and exit; kill it past ``timeout`` seconds."""
        process = self._process
        if process is None or process.returncode is not None:
            return
        self._stopping = True
        self.tell_head(head)
        self._send("stop\n")
        try:
            async with asyncio.timeout(timeout):
                await process.wait()
        except TimeoutError:
            log.warning("projector.killed", timeout_seconds=timeout, position=self.position)
            self._killed = True
            process.kill()
            await process.wait()

    def _send(self, text: str) -> None:
        process = self._process
        if process is None or process.stdin is None or process.stdin.is_closing():
            return
        with contextlib.suppress(ConnectionError):
            process.stdin.write(text.encode("ascii"))

    def _require_process(self) -> asyncio.subprocess.Process:
        if self._process is None:
            raise RuntimeError("call async_start() first")
        return self._process


# -- the child -----------------------------------------------------------------------------


class _Reporter:
    """Write ``ready``/``at`` lines to stdout, never the same position twice."""

    def __init__(self) -> None:
        self.reported = -1
        self.gone = False
        """The daemon closed the pipe (it died): nobody is listening any more."""

    def line(self, word: str, position: int | None = None) -> None:
        if position is None:
            self._write(f"{word}\n")
            return
        if word == "at" and position <= self.reported:
            return
        self.reported = max(self.reported, position)
        self._write(f"{word} {position}\n")

    def blocked(self, reason: str | None) -> None:
        if reason is None:
            self._write("unblocked\n")
        else:
            one_line = " ".join(reason.encode("ascii", "replace").decode("ascii").split())
            self._write(f"blocked {one_line}\n")

    def _write(self, text: str) -> None:
        if self.gone:
            return
        try:
            sys.stdout.buffer.write(text.encode("ascii"))
            sys.stdout.buffer.flush()
        except OSError:  # BrokenPipeError above all: the fold itself is committed
            self.gone = True


async def _async_read_commands(store: EventStore, fold_now: asyncio.Event) -> int:
    """Apply ``head``/``fold`` lines; return the last head announced once told to stop."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    announced = 0
    while True:
        line = await reader.readline()
        if not line or line == b"stop\n":
            return announced
        word, _, value = line.decode("ascii").strip().partition(" ")
        if word == "head":
            announced = max(announced, int(value))
            await store.note_head(announced)
        elif word == "fold":
            fold_now.set()
        elif word == "log":
            level, _, fmt = value.partition(" ")
            configure_logging(level, fmt, stream=sys.stderr)
            log.info("projector.logging_reloaded", log_level=level, log_format=fmt)
        else:
            log.error("projector.unknown_command", line=line[:80].decode("ascii", "replace"))


async def async_child_main(backend: Backend, fold_delay: float) -> int:
    """Fold the projections until the daemon says stop; return the exit status."""
    reporter = _Reporter()
    # The log opened read-only: the child never appends (on PostgreSQL this also skips the
    # schema lock and the writer's connection; the daemon opened and checked the log first).
    async with backend.open_runner() as runner:
        store = runner.store
        reporter.line("setup")
        reporter.line("at", runner.position)  # where the tables stand: reads may say so
        fold_now = asyncio.Event()
        follow = asyncio.create_task(
            async_follow_log(
                store,
                runner,
                fold_now=fold_now,
                fold_delay=fold_delay,
                on_ready=lambda position: reporter.line("ready", position),
                on_folded=lambda position: reporter.line("at", position),
                on_blocked=reporter.blocked,
            ),
            name="memoryd-projector-follow",
        )
        commands = asyncio.create_task(_async_read_commands(store, fold_now))
        done, _ = await asyncio.wait({follow, commands}, return_when=asyncio.FIRST_COMPLETED)
        if follow in done:
            follow.result()  # it only ends by raising: let the error out
            return 1
        announced = commands.result()
        # A batch cancelled mid-fold rolls back with its checkpoint; the final catch-up folds
        # it again, so stopping never loses or doubles an event.
        await cancel_and_wait(follow)
        position = await async_last_fold(runner, max(announced, runner.position))
        reporter.line("at", position)
        return 0


async def async_last_fold(runner: ProjectionRunner, until: int) -> int:
    """Fold up to ``until`` before stopping; return the position reached.

    A fold that fails for a reason that passes (a full disk) loses nothing: the log holds
    it all and the next start folds the rest. So stopping does not wait for room.
    """
    try:
        position = await runner.catch_up(until=until)
    except Exception as exc:
        reason = passing_reason(exc)
        if reason is None:
            raise
        log.warning("projector.stopped_behind", position=runner.position, reason=reason)
        return runner.position
    log.info("projector.stopped", position=position)
    return position


def main(argv: list[str] | None = None) -> int:
    """Run the child: ``python -m daemon.projector --data-dir DIR``."""
    parser = argparse.ArgumentParser(prog="memoryd-projector")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--fold-delay", type=float, default=0.02)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--log-format", default="json")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    configure_logging(args.log_level, args.log_format, stream=sys.stderr)
    backend = Backend(data_dir=args.data_dir, database_url=os.environ.get(DATABASE_URL_ENV))
    try:
        return asyncio.run(async_child_main(backend, args.fold_delay))
    except Exception:
        log.exception("projector.failed")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
