"""The keys under which the application and each request keep what handlers share.

Each service the daemon runs beside the API is found under its key (set by its wiring in
:mod:`daemon.services`, absent while it is not running); :func:`state_of` and
:func:`namespace_of` are what nearly every handler needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from daemon.api.state import AppState
    from daemon.consolidation.service import ConsolidationService
    from daemon.leadership import Leadership
    from daemon.recall.model import RecallModel
    from daemon.recall.recorder import RecallRecorder
    from daemon.recall.service import RecallService
    from daemon.services.consolidation import ConsolidationSetup
    from daemon.services.recall import ShadowSearches
    from daemon.services.retrospective import RetrospectiveHolder
    from plugins.registry import Plugins

# The value types are named for the type checker only: importing the services here would make
# every handler module load (and depend on) all of them.
STATE: web.AppKey[AppState] = web.AppKey("memoryd_state")
PLUGINS: web.AppKey[Plugins] = web.AppKey("memoryd_plugins")
"""The process's plugin manager (built once at start-up): embedders, providers, extractors,
agents by name."""
RECALL: web.AppKey[RecallService] = web.AppKey("memoryd_recall")
RECORDER: web.AppKey[RecallRecorder] = web.AppKey("memoryd_recall_recorder")
SHADOWS: web.AppKey[ShadowSearches] = web.AppKey("memoryd_recall_shadows")
MODEL: web.AppKey[RecallModel] = web.AppKey("memoryd_recall_model")
CONSOLIDATION: web.AppKey[ConsolidationService] = web.AppKey("memoryd_consolidation")
CONSOLIDATION_SETUP: web.AppKey[ConsolidationSetup] = web.AppKey("memoryd_consolidation_setup")
RETROSPECTIVE: web.AppKey[RetrospectiveHolder] = web.AppKey("memoryd_retrospective")
LEADERSHIP: web.AppKey[Leadership] = web.AppKey("memoryd_leadership")

NAMESPACE: web.RequestKey[str] = web.RequestKey("memoryd_namespace", str)
GRANT: web.RequestKey[str] = web.RequestKey("memoryd_grant", str)
"""The name of the token a TCP request authenticated with."""


def namespace_of(request: web.Request) -> str:
    """Return the request's validated namespace."""
    return request[NAMESPACE]


def state_of(request: web.Request) -> AppState:
    """Return the application state."""
    return request.app[STATE]


def actor_of(request: web.Request) -> str:
    """Return who a decision made through this request is recorded as (``api:<token>``)."""
    grant = request.get(GRANT)
    return f"api:{grant}" if grant is not None else "api"
