"""The phases of a consolidation run, by name: :mod:`.light`, :mod:`.standard` (with
:mod:`.agents`) and :mod:`.deep`. Each adds events to ``ctx.effects`` (appended by the
service in one commit with the run's completion), the fact streams they depend on to
``ctx.expected``, and a summary line per action to ``ctx.actions``. A tier runs its phases
in that order; promotion (:mod:`.promotion`) runs in the light phase, so at every tier.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from daemon.consolidation.phases.deep import deep
from daemon.consolidation.phases.light import light
from daemon.consolidation.phases.standard import standard
from plugins.protocols import Agent

if TYPE_CHECKING:
    from daemon.consolidation.service import RunContext

PHASES: dict[str, Callable[[RunContext, Sequence[Agent]], Awaitable[None]]] = {
    "light": light,
    "standard": standard,
    "deep": deep,
}

__all__ = ["PHASES"]
