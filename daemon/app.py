"""Build the aiohttp application: its state, middlewares, routes and the contexts it runs.

``build_app`` wires one :class:`~daemon.api.state.AppState` under the ``STATE`` app key; its
``cleanup_ctx`` contexts open and close the store, host the projections
(:mod:`daemon.projection_hosting`), run whatever the caller adds (the server's config watcher)
and the services every app runs (:mod:`daemon.services`). The middlewares are in
:mod:`daemon.api.middleware`, the routes in :mod:`daemon.api.routes`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from aiohttp import web

from daemon.api import routes
from daemon.api.keys import PLUGINS, STATE
from daemon.api.middleware import (
    error_middleware,
    gate_middleware,
    idempotency_middleware,
    observe_middleware,
)
from daemon.api.state import AppSettings, AppState
from daemon.auth import TokenSet
from daemon.metrics import Metrics
from daemon.projection_hosting import RunnerFactory, projections_context, store_context
from daemon.services import core_contexts
from events.clock import Clock, SystemClock
from events.store.base import EventStore
from plugins.registry import Plugins, default_plugins
from projections.runner import ProjectionRunner


async def _end_streams(app: web.Application) -> None:
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
    app.cleanup_ctx.append(store_context(factory))
    app.cleanup_ctx.append(projections_context(runner_factory))
    app.cleanup_ctx.extend(extra_contexts)
    app.cleanup_ctx.extend(core_contexts())
    app.on_shutdown.append(_end_streams)
    routes.add_routes(app)
    return app
