"""The OpenAPI document matches the routes the app serves, both ways."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend
from tests.api_fixtures import api_client


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        for value in node.values():
            found.extend(_refs(value))
        return found
    if isinstance(node, list):
        return [ref for item in node for ref in _refs(item)]
    return []


async def test_every_route_is_documented_and_every_documented_route_exists(
    tmp_path: Path,
) -> None:
    app = build_app(
        AppSettings(backend=Backend(tmp_path), projector="inline"), with_projections=False
    )
    served = {
        (route.method, route.resource.canonical)
        for route in app.router.routes()
        if route.resource is not None and route.method != "HEAD"
    }
    async with api_client(tmp_path) as api:
        status, doc = await api.call("GET", "/v1/openapi.json")
    assert status == 200
    assert doc["openapi"].startswith("3.1")
    documented = {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}
    assert served == documented
    components = doc["components"]["schemas"]
    for ref in _refs(doc):
        assert ref.startswith("#/components/schemas/")
        assert ref.rsplit("/", 1)[1] in components
    for path, ops in doc["paths"].items():
        names = set(re.findall(r"\{(\w+)\}", path))
        for op in ops.values():
            in_path = {p["name"] for p in op["parameters"] if p["in"] == "path"}
            assert in_path == names
            assert set(op["responses"]) >= {"400", "404"}


async def test_documented_request_schemas_refuse_what_the_handlers_refuse(
    tmp_path: Path,
) -> None:
    async with api_client(tmp_path) as api:
        _, doc = await api.call("GET", "/v1/openapi.json")
        schema = doc["paths"]["/v1/facts"]["post"]["requestBody"]["content"]["application/json"][
            "schema"
        ]
        assert schema["additionalProperties"] is False
        assert schema["required"] == ["text"]
        props = schema["properties"]
        assert props["owner"]["enum"] == ["user", "agent", "shared"]
        status, body = await api.call("POST", "/v1/facts", {"text": "x", "owner": "nobody"})
        assert (status, body["error"]["details"]["field"]) == (400, "owner")
        query = {
            p["name"]: p
            for p in doc["paths"]["/v1/facts"]["get"]["parameters"]
            if p["in"] == "query"
        }
        assert set(query) == {
            "as_of",
            "known_at",
            "status",
            "tag",
            "owner",
            "limit",
            "include_quarantined",
            "include_superseded",
            "include_archived",
            "subject",
        }


async def test_the_answer_to_a_fact_said_again_is_documented(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        _, doc = await api.call("GET", "/v1/openapi.json")
        await api.call("POST", "/v1/facts", {"text": "Alice likes green tea"})
        status, body = await api.call("POST", "/v1/facts", {"text": "Alice likes green tea"})
    assert (status, body["outcome"]) == (200, "deduplicated")
    documented = doc["paths"]["/v1/facts"]["post"]["responses"]
    assert documented["200"] == documented["201"]
