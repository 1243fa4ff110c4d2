"""Every route of API v1 as a method of both clients: :class:`Routes` lists them once."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar, overload

from memoryd_client import _routes as r
from memoryd_client._core import Call

if TYPE_CHECKING:
    from memoryd_client._async import AsyncMemorydClient
    from memoryd_client._sync import MemorydClient

P = ParamSpec("P")
T = TypeVar("T")


class Route(Generic[P, T]):
    """A route as a method: the arguments of its builder in :mod:`memoryd_client._routes`;
    it answers ``T`` on :class:`MemorydClient` and a coroutine of ``T`` on
    :class:`AsyncMemorydClient` (whatever the client's ``send`` returns)."""

    def __init__(self, build: Callable[P, Call[T]]) -> None:
        self.build = build
        self.__doc__ = build.__doc__

    @overload
    def __get__(self, client: None, owner: type[Any]) -> Route[P, T]: ...
    @overload
    def __get__(self, client: MemorydClient, owner: type[Any]) -> Callable[P, T]: ...
    @overload
    def __get__(
        self, client: AsyncMemorydClient, owner: type[Any]
    ) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, client: Any, owner: type[Any]) -> Any:
        if client is None:
            return self
        build = self.build

        def method(*args: P.args, **kwargs: P.kwargs) -> Any:
            return client.send(build(*args, **kwargs))

        method.__name__ = build.__name__
        method.__doc__ = build.__doc__
        return method


class Routes:
    """The methods both clients have, one per route."""

    add_message = Route(r.add_message)
    add_messages = Route(r.add_messages)
    list_messages = Route(r.list_messages)
    fork = Route(r.fork)
    compaction = Route(r.compaction)
    add_fact = Route(r.add_fact)
    supersede_fact = Route(r.supersede_fact)
    validate_fact = Route(r.validate_fact)
    forget_fact = Route(r.forget_fact)
    purge_fact = Route(r.purge_fact)
    get_fact = Route(r.get_fact)
    list_facts = Route(r.list_facts)
    fact_history = Route(r.fact_history)
    search = Route(r.search)
    context = Route(r.context)
    run_retrospective = Route(r.run_retrospective)
    retrospective = Route(r.retrospective)
    retrospective_service = Route(r.retrospective_service)
    consolidation_preview = Route(r.consolidation_preview)
    consolidation_analyze = Route(r.consolidation_analyze)
    consolidation_plan = Route(r.consolidation_plan)
    apply_consolidation_plan = Route(r.apply_consolidation_plan)
    consolidation_log = Route(r.consolidation_log)
    run_consolidation = Route(r.run_consolidation)
    consolidation_runs = Route(r.consolidation_runs)
    restore_fact = Route(r.restore_fact)
    insights = Route(r.insights)
    generate_insights = Route(r.generate_insights)
    delete_insight = Route(r.delete_insight)
    learned_context = Route(r.learned_context)
    blocks = Route(r.blocks)
    block = Route(r.block)
    set_block = Route(r.set_block)
    block_history = Route(r.block_history)
    profile = Route(r.profile)
    review_items = Route(r.review_items)
    approve_review_item = Route(r.approve_review_item)
    reject_review_item = Route(r.reject_review_item)
    episodes = Route(r.episodes)
    get_episode = Route(r.get_episode)
    search_episodes = Route(r.search_episodes)
    validate_episode = Route(r.validate_episode)
    events = Route(r.events)
    health = Route(r.health)
    progress = Route(r.progress)
    metrics = Route(r.metrics)
    openapi = Route(r.openapi)
