"""The services the daemon runs beside the API, wired into the application in one place.

:func:`core_contexts` are started by every application (:func:`daemon.app.build_app`): the
recall service and the consolidation worker. :func:`install_services` adds what the server
runs on top, each following configuration reloads: consolidation's and recall's models, the
retrospective service, and the leadership that keeps the background work on one daemon.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from aiohttp import web

from daemon.reload import ConfigSource
from daemon.services.consolidation import consolidation_context, install_consolidation
from daemon.services.leadership import ConsolidationLeader, install_leadership, leader_fence
from daemon.services.recall import install_recall, recall_context
from daemon.services.retrospective import RetrospectiveLeader, install_retrospective


def core_contexts() -> tuple[Callable[[web.Application], AsyncIterator[None]], ...]:
    """Return the ``cleanup_ctx`` contexts of the services every application runs."""
    return (recall_context, consolidation_context)


def install_services(app: web.Application, config: ConfigSource) -> None:
    """Wire the server's services into ``app`` (call before it starts)."""
    install_consolidation(app, config)
    retrospective = install_retrospective(app, config, fence=leader_fence(app))
    install_recall(app, config)
    # Last: it stops the leader-only work before the contexts that work relies on close.
    install_leadership(app, [RetrospectiveLeader(retrospective), ConsolidationLeader(app)])
