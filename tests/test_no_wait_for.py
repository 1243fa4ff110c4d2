"""The daemon's packages use ``async with asyncio.timeout()``, never ``asyncio.wait_for``,
and stop tasks with :func:`events.tasks.cancel_and_wait`.

On Python 3.11 ``wait_for`` swallows a cancellation that arrives in the loop iteration in
which its inner wait ends. One did in the retrospective service's ``lead()``, reached from
the leadership task at start-up: SIGTERM cancelled that task, it went on running, and the
daemon's shutdown waited for it for good (a CI run caught it once).
"""

from __future__ import annotations

import asyncio
import sys

import pytest

from events.tasks import cancel_and_wait
from tests.paths import REPO_ROOT

PACKAGES = ("daemon", "events", "projections", "plugins")


def test_no_package_calls_wait_for() -> None:
    found = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for package in PACKAGES
        for path in sorted((REPO_ROOT / package).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if "asyncio.wait_for(" in line
    ]
    assert found == [], "use `async with asyncio.timeout(...)` instead (see the docstring)"


async def _cancelled_as_the_wait_ends(timeout_style: bool) -> bool:
    """Cancel a task in the iteration its wait ends in; return whether it was cancelled."""
    done = asyncio.get_running_loop().create_future()

    async def waiter() -> None:
        if timeout_style:
            async with asyncio.timeout(10):
                await done
        else:
            await asyncio.wait_for(done, 10)  # what the guard above keeps out
        await asyncio.sleep(10)

    task = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    done.set_result(None)
    task.cancel()
    await asyncio.wait({task}, timeout=1)
    still_running = not task.done()
    task.cancel()
    return not still_running and task.cancelled()


async def test_asyncio_timeout_keeps_a_cancellation_that_arrives_as_the_wait_ends() -> None:
    assert await _cancelled_as_the_wait_ends(timeout_style=True)
    # What this guards against, as this Python does it (3.12 fixed wait_for).
    if sys.version_info < (3, 12):
        assert not await _cancelled_as_the_wait_ends(timeout_style=False)


async def test_cancel_and_wait_keeps_the_callers_cancellation() -> None:
    started = asyncio.Event()

    async def stubborn() -> None:
        started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await asyncio.sleep(0.2)  # takes a moment to wind down
            raise

    async def stopper(inner: asyncio.Task[None]) -> str:
        await cancel_and_wait(inner)
        return "went on"  # with `suppress(CancelledError): await inner` it did

    inner = asyncio.create_task(stubborn())
    await started.wait()
    outer = asyncio.create_task(stopper(inner))
    await asyncio.sleep(0.05)  # the stopper waits for the inner task to wind down
    outer.cancel()
    done, _ = await asyncio.wait({outer}, timeout=2)
    assert outer in done
    assert outer.cancelled()
    assert inner.cancelled()


async def test_cancel_and_wait_lets_a_cancelled_caller_clean_up() -> None:
    cleaned: list[str] = []

    async def background() -> None:
        await asyncio.sleep(10)

    async def worker() -> None:
        helper = asyncio.create_task(background())
        try:
            await asyncio.sleep(10)
        finally:  # cancelled before: the clean-up goes on past the helper's end
            await cancel_and_wait(helper)
            cleaned.append("released")

    task = asyncio.create_task(worker())
    await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.wait({task}, timeout=2)
    assert task.cancelled()
    assert cleaned == ["released"]


async def test_cancel_and_wait_ends_quietly_or_with_the_tasks_error() -> None:
    async def failing() -> None:
        raise ValueError("failed before it was stopped")

    task = asyncio.create_task(failing())
    await asyncio.sleep(0)
    await cancel_and_wait(task, errors=(ValueError,))
    again = asyncio.create_task(failing())
    await asyncio.sleep(0)
    with pytest.raises(ValueError, match="failed before"):
        await cancel_and_wait(again)
    await cancel_and_wait(asyncio.create_task(asyncio.sleep(10)))
