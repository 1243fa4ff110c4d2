"""Property: whatever happens in three namespaces, no response shows another's data."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api_fixtures import Api, api_client

NAMESPACES = ("n1", "n2", "n3")
CONVERSATIONS = ("a", "b")

op = st.one_of(
    st.tuples(st.just("msg"), st.sampled_from(NAMESPACES), st.sampled_from(CONVERSATIONS)),
    st.tuples(
        st.just("keyed"),
        st.sampled_from(NAMESPACES),
        st.sampled_from(CONVERSATIONS),
        st.sampled_from(("k1", "k2")),
    ),
    st.tuples(st.just("fact"), st.sampled_from(NAMESPACES), st.sampled_from(("t1", "t2"))),
    st.tuples(st.just("fork"), st.sampled_from(NAMESPACES), st.sampled_from(CONVERSATIONS)),
    st.tuples(st.just("supersede"), st.sampled_from(NAMESPACES), st.integers(0, 5)),
    st.tuples(st.just("forget"), st.sampled_from(NAMESPACES), st.integers(0, 5)),
    st.tuples(st.just("compaction"), st.sampled_from(NAMESPACES), st.sampled_from(CONVERSATIONS)),
)


def marker(namespace: str) -> str:
    return f"<{namespace}>"


class Model:
    """What each namespace wrote."""

    def __init__(self) -> None:
        self.facts: dict[str, list[str]] = {ns: [] for ns in NAMESPACES}
        self.conversations: dict[str, set[str]] = {ns: set() for ns in NAMESPACES}
        self.count = 0

    def text(self, namespace: str) -> str:
        self.count += 1
        return f"{marker(namespace)} {self.count}"


async def apply(api: Api, model: Model, step: tuple[Any, ...]) -> None:
    kind, ns = step[0], step[1]
    if kind in ("msg", "keyed"):
        body: dict[str, Any] = {"role": "user", "content": model.text(ns)}
        if kind == "keyed":
            body["idempotency_key"] = step[3]
        status, _ = await api.call(
            "POST", f"/v1/conversations/{step[2]}/messages", body, namespace=ns
        )
        assert status in (201, 409)  # a key reused in another conversation is a conflict
        if status == 201:
            model.conversations[ns].add(step[2])
    elif kind == "fact":
        status, out = await api.call(
            "POST", "/v1/facts", {"text": model.text(ns), "tags": [step[2]]}, namespace=ns
        )
        assert status == 201
        model.facts[ns].append(out["fact_id"])
    elif kind == "fork":
        status, out = await api.call("POST", f"/v1/conversations/{step[2]}/fork", {}, namespace=ns)
        expected = 201 if step[2] in model.conversations[ns] else 404
        assert status == expected
        if status == 201:
            model.conversations[ns].add(out["conversation_id"])
    elif kind in ("supersede", "forget"):
        # Pick a fact of *any* namespace: acting on another namespace's fact must fail.
        every = [(owner, f) for owner in NAMESPACES for f in model.facts[owner]]
        if not every:
            return
        owner, fact_id = every[step[2] % len(every)]
        if kind == "supersede":
            status, out = await api.call(
                "POST", f"/v1/facts/{fact_id}/supersede", {"text": model.text(ns)}, namespace=ns
            )
        else:
            status, out = await api.call("DELETE", f"/v1/facts/{fact_id}", namespace=ns)
        if owner != ns:
            assert status == 404
        else:
            assert status in (200, 201, 409)
            if status == 201:
                model.facts[ns].append(out["fact_id"])
    elif kind == "compaction":
        status, _ = await api.call(
            "POST", f"/v1/conversations/{step[2]}/compaction", {}, namespace=ns
        )
        assert status == (201 if step[2] in model.conversations[ns] else 404)


async def check(api: Api, model: Model) -> None:
    for ns in NAMESPACES:
        others = [marker(o) for o in NAMESPACES if o != ns]
        reads = [
            "/v1/facts?include_quarantined=true&include_superseded=true&limit=1000",
            "/v1/events?limit=1000",
        ]
        reads += [f"/v1/conversations/{c}/messages?limit=1000" for c in model.conversations[ns]]
        for owner in NAMESPACES:
            for fact_id in model.facts[owner]:
                reads += [f"/v1/facts/{fact_id}", f"/v1/facts/{fact_id}/history"]
        for path in reads:
            resp = await api.client.get(path, headers={"X-Memoryd-Namespace": ns})
            raw = await resp.text()
            for other in others:
                assert other not in raw, f"{path} in {ns} shows {other}"
        for owner in NAMESPACES:
            if owner == ns:
                continue
            for fact_id in model.facts[owner]:
                resp = await api.client.get(
                    f"/v1/facts/{fact_id}", headers={"X-Memoryd-Namespace": ns}
                )
                assert resp.status == 404


async def scenario(steps: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with api_client(Path(tmp)) as api:
            model = Model()
            for step in steps:
                await apply(api, model, step)
            await check(api, model)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(op, min_size=1, max_size=25))
def test_no_response_shows_another_namespace(steps: list[tuple[Any, ...]]) -> None:
    asyncio.run(scenario(steps))
