"""Turn a page's values into HTML: Jinja2 templates from the package, every value escaped."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import jinja2
import orjson
from aiohttp import web
from yarl import URL

from daemon.api.keys import namespace_of
from daemon.api.middleware import DEFAULT_NAMESPACE
from daemon.inspector.session import SESSION
from daemon.version import package_version
from events.clock import from_micros

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("daemon.inspector", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def when(value: datetime | int | None) -> str:
    """A moment (or the microseconds some projections keep) as people read it in the pages:
    UTC to the second, or a dash."""
    if value is None:
        return "—"
    moment = from_micros(value) if isinstance(value, int) else value
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def pretty_json(value: Any) -> str:
    """Indented JSON of an event's payload (dataclasses as objects, datetimes as RFC 3339)."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()


_ENV.filters["when"] = when
_ENV.filters["json"] = pretty_json


def _href(namespace: str, target: str, query: dict[str, Any]) -> str:
    """A link to one of the pages, in the page's namespace; empty values are left out."""
    kept = {k: str(v) for k, v in query.items() if v is not None and v != ""}
    return str(URL(target).update_query({"ns": namespace, **kept} if namespace else kept))


def page(
    request: web.Request, template: str, *, http_status: int = 200, **values: Any
) -> web.Response:
    """Render a page with what every page shows: the namespace, the session's CSRF token."""
    session = request.get(SESSION)
    namespace = ""
    if session is not None:
        namespace = namespace_of(request)
        if not session.allows(namespace):  # the page refusing it
            namespace = session.default_namespace(DEFAULT_NAMESPACE)
    html = _ENV.get_template(template).render(
        namespace=namespace,
        signed_in=session is not None,
        href=lambda target, **query: _href(namespace, target, query),
        namespaces=sorted(session.namespaces) if session and session.namespaces else None,
        csrf=session.csrf if session is not None else "",
        path=request.path,
        version=package_version(),
        **values,
    )
    return web.Response(text=html, status=http_status, content_type="text/html", charset="utf-8")
