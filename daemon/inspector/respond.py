"""Answers that are not pages: the redirect after a form, kept in the form's namespace."""

from __future__ import annotations

from aiohttp import web
from yarl import URL

from daemon.api.keys import namespace_of


async def back_to(request: web.Request, path: str, **query: str) -> web.Response:
    """Answer a form with 303 See Other to ``path`` (same namespace), so a reload is a GET."""
    form = await request.post()
    target = form.get("next")
    if isinstance(target, str) and target.startswith("/inspect/") and "//" not in target:
        path = target  # back to the page the form was on (only our own pages)
    url = URL(path).update_query({"ns": namespace_of(request), **query})
    return web.Response(status=303, headers={"Location": str(url)})
