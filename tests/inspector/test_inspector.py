"""The inspector over HTTP: getting in (one-time token, cookie flags), what it refuses (no
session, another site's form, another host, a namespace not granted), and what each page
shows. The browser tests (``tests/inspector/test_inspector_browser.py``) use the pages as a
person."""

from __future__ import annotations

import re
import socket
from datetime import timedelta
from pathlib import Path

import aiohttp
import orjson
import pytest

from daemon.api.keys import STATE
from daemon.inspector.listener import loopback_url
from daemon.inspector.session import LOGIN_TTL, SESSION_TTL, Sessions
from events.recall_events import RecallRecorded
from events.store.base import NewEvent
from events.types import FactValidated, fact_stream
from tests.api_fixtures import T0, make_config, running
from tests.cli.test_client_cli import memoryd
from tests.inspector_fixtures import ADMIN_TOKEN, LIMITED_TOKEN, Inspector, inspector_app


async def _fact(ins: Inspector, text: str, namespace: str = "default", **extra: object) -> str:
    status, body = await ins.api("POST", "/v1/facts", {"text": text, **extra}, namespace=namespace)
    assert status == 201, body
    return str(body["fact_id"])


async def test_a_login_token_works_once_for_a_strict_httponly_cookie(tmp_path: Path) -> None:
    async with inspector_app(tmp_path) as ins:
        url = await ins.login_url()
        resp = await ins.client.get(url, allow_redirects=False)
        assert resp.status == 303
        assert resp.headers["Location"] == "/inspect/facts?ns=default"
        cookie = resp.headers["Set-Cookie"]
        assert "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
        assert "Path=/inspect/" in cookie
        assert resp.headers["Referrer-Policy"] == "same-origin"
        status, _ = await ins.get("/inspect/facts")
        assert status == 200

        ins.client.session.cookie_jar.clear()
        again = await ins.client.get(url, allow_redirects=False)
        assert again.status == 401
        assert "used already or has expired" in await again.text()


async def test_pages_need_a_session_and_login_urls_a_bearer_token(tmp_path: Path) -> None:
    async with inspector_app(tmp_path) as ins:
        status, html = await ins.get("/inspect/facts")
        assert status == 401
        assert "memoryd inspect" in html
        resp = await ins.client.post("/inspect/session")
        assert resp.status == 401
        wrong = await ins.client.post(
            "/inspect/session", headers={"Authorization": "Bearer not-a-token"}
        )
        assert wrong.status == 401
        assert (await wrong.json())["error"]["code"] == "unauthorized"


async def test_forms_without_the_sessions_csrf_token_or_from_another_site_are_refused(
    tmp_path: Path,
) -> None:
    async with inspector_app(tmp_path) as ins:
        fact = await _fact(ins, "The user likes jazz.", provenance="extraction")
        await ins.login()
        csrf = await ins.csrf()
        path = f"/inspect/facts/{fact}/validate"
        assert (await ins.post(path, {"ns": "default"})).status == 403
        assert (await ins.post(path, {"ns": "default", "csrf": "forged"})).status == 403
        other_site = {"Origin": "http://evil.example"}
        assert (await ins.post(path, {"ns": "default", "csrf": csrf}, other_site)).status == 403
        _, still = await ins.api("GET", f"/v1/facts/{fact}")
        assert still["status"] == "quarantined"

        done = await ins.post(path, {"ns": "default", "csrf": csrf})
        assert done.status == 303
        _, now = await ins.api("GET", f"/v1/facts/{fact}")
        assert (now["status"], now["validated_by"]) == ("active", "api:inspector")


async def test_a_host_that_is_not_loopback_is_refused(tmp_path: Path) -> None:
    # A page elsewhere whose DNS name now points at 127.0.0.1 sends its own name as Host.
    async with inspector_app(tmp_path) as ins:
        await ins.login()
        resp = await ins.client.get("/inspect/facts", headers={"Host": "rebound.example:80"})
        assert resp.status == 403
        assert "this machine only" in await resp.text()


async def test_a_namespace_limited_token_sees_only_its_namespaces(tmp_path: Path) -> None:
    async with inspector_app(tmp_path) as ins:
        await _fact(ins, "Secret of the default namespace.")
        await _fact(ins, "The user in namespace a likes tea.", namespace="a")
        await ins.login(LIMITED_TOKEN)
        status, html = await ins.get("/inspect/facts")
        assert status == 200
        assert "likes tea" in html
        assert "Secret" not in html
        for page in ("/inspect/facts", "/inspect/timeline", "/inspect/review", "/inspect/time"):
            status, html = await ins.get(page, ns="default")
            assert status == 403, page
            assert "Secret" not in html
        status, html = await ins.get("/inspect/health", ns="a")
        assert status == 200
        assert "not visible to a session limited" in html


async def test_the_fact_page_shows_its_chain_decisions_and_bitemporal_picture(
    tmp_path: Path,
) -> None:
    async with inspector_app(tmp_path) as ins:
        old = await _fact(ins, "The user lives in Boston.")
        ins.clock.advance(timedelta(days=30))
        status, new = await ins.api(
            "POST", f"/v1/facts/{old}/supersede", {"text": "The user lives in Berlin."}
        )
        assert status == 201
        # What the recall recorder appends after searches that returned the old fact.
        search = {"at": T0.isoformat(), "query": "where", "conversation_id": None}
        hit = {**search, "scope": "facts", "hits": [{"kind": "fact", "id": old, "score": 1.0}]}
        recorded = RecallRecorded(recalls=[hit, hit], first_at=T0, last_at=T0)
        await ins.app[STATE].require_store().append("default", [NewEvent(recorded)])
        await ins.login()
        status, html = await ins.get(f"/inspect/facts/{old}")
        assert status == 200
        assert "Returned by recall 2 times for 1 different query" in html
        chain = html[html.index("Supersede chain") : html.index("Bi-temporal life")]
        assert chain.index("Boston") < chain.index("Berlin")
        assert html.count('class="version') == 2  # the version believed, then the one closed
        assert "nothing current says this" in html  # the decision that wrote it
        assert "FactSuperseded" in html

        status, html = await ins.get("/inspect/facts", status="superseded")
        assert "Boston" in html
        assert "Berlin" not in html
        status, html = await ins.get("/inspect/facts", q="berlin")
        assert new["fact_id"] in html
        assert "Boston" not in html


async def test_time_travel_shows_what_was_believed_before_a_supersede(tmp_path: Path) -> None:
    async with inspector_app(tmp_path) as ins:
        old = await _fact(ins, "The user drives a Volvo.")
        _, head = await ins.api("GET", "/v1/health")
        before = head["last_position"]
        await ins.api("POST", f"/v1/facts/{old}/supersede", {"text": "The user drives a Tesla."})
        await ins.login()
        status, html = await ins.get("/inspect/time", known_at=str(before))
        assert status == 200
        assert re.search(
            r'<tr data-row class="change-gone">\s*<td><a[^>]*>The user drives a Volvo', html
        )
        assert re.search(
            r'class="change-new">\s*<td></td>\s*<td><a[^>]*>The user drives a Tesla', html
        )
        assert "2 differences from now" in html

        status, html = await ins.get("/inspect/time")
        assert "Now: nothing differs" in html
        assert "change-gone" not in html


async def test_the_timeline_filters_and_opens_an_event_with_its_causes_and_correlation(
    tmp_path: Path,
) -> None:
    async with inspector_app(tmp_path) as ins:
        await _fact(ins, "The user is vegetarian.")
        fact = await _fact(ins, "The user eats steak every day.", provenance="tool")
        store = ins.app[STATE].require_store()
        [written] = [e for e in await store.read_stream("default", fact_stream(fact))][:1]
        # An importer or a plugin may chain its events; the API's own writes do not.
        await store.append(
            "default",
            [
                NewEvent(
                    FactValidated(fact_id=fact, by="a test"),
                    causation_id=written.event_id,
                    correlation_id="review-42",
                )
            ],
        )
        await ins.login()
        status, html = await ins.get("/inspect/timeline", type="FactReconciled")
        assert status == 200
        positions = re.findall(r'href="/inspect/events/(\d+)\?ns=default"', html)
        assert len(positions) == 2
        assert positions == sorted(positions, reverse=True)  # newest first
        status, html = await ins.get(f"/inspect/events/{positions[0]}")
        assert status == 200
        assert "a person decides" in html  # the payload's reason
        assert "FactWritten" in html[html.index("Same stream") :]

        status, html = await ins.get(f"/inspect/events/{written.position}")
        caused = html[html.index("<h2>Caused</h2>") : html.index("Same correlation")]
        assert "FactValidated" in caused
        status, html = await ins.get("/inspect/timeline", fact=fact, type="FactValidated")
        [validated] = re.findall(r'href="/inspect/events/(\d+)\?ns=default"', html)
        status, html = await ins.get(f"/inspect/events/{validated}")
        assert "review-42" in html
        causes = html[html.index("<h2>Caused by</h2>") : html.index("<h2>Caused</h2>")]
        assert f"/inspect/events/{written.position}?" in causes
        assert (await ins.get("/inspect/events/99999"))[0] == 404


async def test_conversations_show_messages_forks_and_the_retrospective(tmp_path: Path) -> None:
    async with inspector_app(tmp_path) as ins:
        for text in ("hello", "I moved to Porto"):
            status, said = await ins.api(
                "POST", "/v1/conversations/c1/messages", {"role": "user", "content": text}
            )
            assert status == 201
        status, fork = await ins.api(
            "POST", "/v1/conversations/c1/fork", {"through_message_id": said["message_id"]}
        )
        assert status == 201
        await ins.login()
        status, html = await ins.get("/inspect/conversations")
        assert status == 200
        tree = html[html.index('class="tree"') :]
        assert tree.index("c1") < tree.index(fork["conversation_id"])
        assert "<ul>" in tree  # the fork hangs under c1
        status, html = await ins.get("/inspect/conversations/c1")
        assert "I moved to Porto" in html
        assert fork["conversation_id"] in html
        assert "No retrospective has looked" in html


async def test_review_approves_and_rejects_queued_actions(tmp_path: Path) -> None:
    async with inspector_app(tmp_path) as ins:
        diet = await _fact(ins, "The user is vegetarian.")
        await _fact(ins, "The user eats steak every day.", provenance="tool")
        await ins.login()
        status, html = await ins.get("/inspect/review")
        assert status == 200
        [item] = re.findall(r'action="/inspect/review/([^/"]+)/approve"', html)
        csrf = await ins.csrf()
        done = await ins.post(f"/inspect/review/{item}/approve", {"ns": "default", "csrf": csrf})
        assert done.status == 303
        assert done.headers["Location"] == "/inspect/review?ns=default&done=approved"
        _, facts = await ins.api("GET", "/v1/facts")
        assert [f["text"] for f in facts["facts"]] == ["The user eats steak every day."]
        _, old = await ins.api("GET", f"/v1/facts/{diet}")
        assert old["superseded_by"] is not None

        again = await ins.post(f"/inspect/review/{item}/reject", {"ns": "default", "csrf": csrf})
        assert again.status == 409
        assert "already decided" in await again.text()


async def test_plans_preview_analyze_and_apply_saying_what_apply_refused(
    tmp_path: Path,
) -> None:
    async with inspector_app(tmp_path) as ins:
        first = await _fact(ins, "Alice likes green tea")
        second = await _fact(ins, "Alice likes green tea", dedupe=False)
        await ins.login()
        status, html = await ins.get("/inspect/plans")
        assert status == 200
        assert "Duplicates <small>(1)</small>" in html
        _, head = await ins.api("GET", "/v1/health")
        csrf = await ins.csrf("/inspect/plans")
        made = await ins.post("/inspect/plans/analyze", {"ns": "default", "csrf": csrf})
        assert made.status == 303
        plan_path = made.headers["Location"].split("?")[0]
        _, after = await ins.api("GET", "/v1/health")
        assert after["last_position"] == head["last_position"] + 1  # the PlanCreated
        status, html = await ins.get(plan_path)
        assert "merge" in html
        assert f"/inspect/facts/{first}" in html
        assert f"/inspect/facts/{second}" in html

        status, _ = await ins.api("DELETE", f"/v1/facts/{second}")  # changed since the plan
        assert status == 200
        applied = await ins.post(f"{plan_path}/apply", {"ns": "default", "csrf": csrf})
        assert applied.status == 303
        status, html = await ins.get(plan_path)
        assert "refused: " in html
        assert "Apply this plan" not in html


async def test_health_shows_the_log_and_the_projections(tmp_path: Path) -> None:
    async with inspector_app(tmp_path) as ins:
        await _fact(ins, "The user likes rain.")
        await ins.login()
        status, html = await ins.get("/inspect/health")
        assert status == 200
        assert re.search(r'<dd id="head">\d+</dd>', html)
        assert "status-ok" in html


async def test_memoryd_inspect_opens_a_loopback_listener_that_keeps_the_api_behind_tokens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(tmp_path)  # the unix socket only: no TCP listener configured
    async with running(config):
        sock = ["--socket", str(config.server.socket)]
        assert await memoryd("inspect", *sock, "--json") == 0
        answer = orjson.loads(capsys.readouterr().out)
        url = answer["url"]
        assert url.startswith("http://127.0.0.1:")
        base = url[: url.index("/inspect/")]
        # unsafe: aiohttp's client keeps no cookie from an IP address unless told; browsers do.
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
            async with session.get(url) as page:
                assert page.status == 200
                assert "<h1>Facts</h1>" in await page.text()
            async with session.get(f"{base}/v1/facts") as api:
                assert api.status == 401  # the new listener asks the API for a token
        token = (config.storage.data_dir / "api-token").read_text().strip()
        assert token != ADMIN_TOKEN
        assert await memoryd("inspect", *sock) == 0
        assert capsys.readouterr().out.startswith(base)  # the same listener, a new token


def test_login_tokens_and_sessions_expire() -> None:
    now = [0.0]
    sessions = Sessions(clock=lambda: now[0])
    late = sessions.issue_login(None)
    now[0] += LOGIN_TTL + 1
    assert sessions.redeem(late) is None
    found = sessions.redeem(sessions.issue_login(frozenset({"a"})))
    assert found is not None
    cookie, session = found
    assert sessions.find(cookie) == session
    assert session.default_namespace("default") == "a"
    now[0] += SESSION_TTL
    assert sessions.find(cookie) is None


def test_the_login_url_names_loopback_for_a_listener_on_every_address() -> None:
    with (
        socket.create_server(("0.0.0.0", 0)) as every,
        socket.create_server(("127.0.0.1", 0)) as lo,
    ):
        assert loopback_url(every) == f"http://127.0.0.1:{every.getsockname()[1]}"
        assert loopback_url(lo) == f"http://127.0.0.1:{lo.getsockname()[1]}"
