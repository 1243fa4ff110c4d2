"""Time travel: the facts as memoryd believed them at a log position or a moment
(``known_at``), true at a moment (``as_of``), set against what it believes now.

A fact believed then and not now was replaced or forgotten since; one believed now and not
then was learnt since; one in both whose version differs (validated, archived, its valid time
closed) changed. The page marks each.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from daemon.api.facts import known_at_of
from daemon.api.keys import namespace_of, state_of
from daemon.inspector.params import moment as moment_of
from daemon.inspector.reads import projection_reads
from daemon.inspector.render import page
from projections.facts import Belief, FactRow, query_facts

LIMIT = 1000


@dataclass(frozen=True, slots=True)
class Compared:
    """One fact in the comparison: its version then and now (either may be missing)."""

    then: FactRow | None
    now: FactRow | None

    @property
    def change(self) -> str:
        """``gone``, ``new``, ``changed`` or ``same``: how now differs from then."""
        if self.now is None:
            return "gone"
        if self.then is None:
            return "new"
        return "same" if self.then.position == self.now.position else "changed"


def compare(then: list[FactRow], now: list[FactRow]) -> list[Compared]:
    """Pair the facts believed then with those believed now, then's order first."""
    now_by_id = {row.fact_id: row for row in now}
    then_ids = {row.fact_id for row in then}
    paired = [Compared(row, now_by_id.get(row.fact_id)) for row in then]
    return paired + [Compared(None, row) for row in now if row.fact_id not in then_ids]


def _known_at(query: dict[str, str], head: int) -> Belief:
    """The moment typed in (if any), else the position the slider points at (head: now)."""
    typed = query.get("known_at_moment", "").strip()
    if typed:
        return moment_of(typed, "known_at_moment")
    raw = query.get("known_at", "").strip()
    belief = known_at_of({"known_at": raw}) if raw else None
    if isinstance(belief, int) and belief >= head:
        return None
    return belief


async def time_page(request: web.Request) -> web.Response:
    """The comparison page with its controls (a slider over the log, moments to type)."""
    state = state_of(request)
    head = await state.require_store().head()
    query = dict(request.query)
    known_at = _known_at(query, head)
    as_of = moment_of(query.get("as_of", ""), "as_of")
    namespace = namespace_of(request)
    async with projection_reads(request) as conn:
        then = await query_facts(
            conn, namespace, known_at=known_at, as_of=as_of, include_quarantined=True, limit=LIMIT
        )
        now = await query_facts(conn, namespace, as_of=None, include_quarantined=True, limit=LIMIT)
    rows = compare(then, now)
    return page(
        request,
        "time.html",
        rows=rows,
        head=head,
        position=known_at if isinstance(known_at, int) else head,
        known_at=known_at,
        known_at_moment=query.get("known_at_moment", ""),
        as_of=query.get("as_of", ""),
        slid="known_at" in query,
        changed=sum(1 for r in rows if r.change != "same"),
    )


def add_routes(app: web.Application) -> None:
    """Register the time-travel page."""
    app.router.add_get("/time", time_page, name="time", allow_head=False)
