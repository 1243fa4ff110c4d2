"""Stopping background tasks without losing the caller's own cancellation.

``task.cancel()`` then ``with suppress(CancelledError): await task`` is the usual way to stop
a task, and it swallows more than the task's end: if the caller is cancelled while it waits,
that CancelledError is suppressed too, and the caller goes on as if nothing happened. A
caller that was being stopped (a shutdown stage, a leadership change) then never ends.
"""

from __future__ import annotations

import asyncio
from typing import Any


async def cancel_and_wait(
    task: asyncio.Future[Any], *, errors: tuple[type[Exception], ...] = ()
) -> None:
    """Cancel ``task`` and wait until it has ended.

    Its own CancelledError, and the ``errors`` it may raise, end quietly. A cancellation of
    the caller that arrives meanwhile is raised again; a caller already being cancelled
    (cleaning up in a ``finally``) goes on with its clean-up.
    """
    current = asyncio.current_task()
    before = current.cancelling() if current is not None else 0
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        if current is not None and current.cancelling() > before:
            raise
    except errors:
        pass


def raise_if_cancelling() -> None:
    """Raise CancelledError when the current task has been asked to stop.

    A cancellation that lands while a database call is under way can come back as another
    error: SQLAlchemy's asyncio adapters close the connection the call was using and raise a
    DBAPI error in its place. A loop that catches ``Exception`` around such a call (to retry
    on its next turn) then carries on as if nothing had asked it to stop, and whoever
    cancelled it waits for ever. Such loops call this after handling an error. The count it
    reads is left by ``Task.cancel()`` until a ``timeout`` or task group that caused it takes it
    back, so a timeout of the loop's own never counts.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
