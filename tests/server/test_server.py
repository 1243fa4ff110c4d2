"""The daemon on a real unix socket: socket mode, stale sockets, tokens on TCP, staged stop."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import stat
from pathlib import Path

import aiohttp
import pytest

from daemon.config import load_config
from daemon.listeners import ServeError, bind_unix_socket
from daemon.logging import reset_logging
from daemon.projector import ProjectorProcess
from daemon.server import ServeOptions
from tests.api_fixtures import make_config, running


def unix_session(path: Path) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=str(path)))


async def test_unix_socket_round_trip_and_clean_stop(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    sock_path = config.server.socket
    async with running(config) as (_server, lines):
        assert stat.S_IMODE(sock_path.stat().st_mode) == 0o600
        assert any(str(sock_path) in line for line in lines)
        async with unix_session(sock_path) as http:
            resp = await http.post(
                "http://memoryd/v1/conversations/c/messages",
                json={"role": "user", "content": "over the socket"},
            )
            assert resp.status == 201
            created = await resp.json()
            resp = await http.get("http://memoryd/v1/conversations/c/messages")
            listed = await resp.json()
            assert [m["message_id"] for m in listed["messages"]] == [created["message_id"]]
            resp = await http.get("http://memoryd/v1/health")
            health = await resp.json()
            assert health["status"] == "ok"
            assert health["last_position"] == health["projection_position"] == 1
    assert not sock_path.exists()
    assert lines[-1] == "memoryd: stopped"


async def test_stale_socket_is_replaced_and_live_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # the file stays, nobody listens
    live = bind_unix_socket(path)
    try:
        with pytest.raises(ServeError, match="already listening"):
            bind_unix_socket(path)
    finally:
        live.close()
    other = tmp_path / "plain"
    other.write_text("not a socket")
    with pytest.raises(ServeError, match="not a socket"):
        bind_unix_socket(other)


async def test_tcp_needs_token_and_tokens_limit_namespaces(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    restricted = "r" * 24
    (data / "tokens").write_text(f"# test tokens\n{restricted} alice,bob\n")
    config = make_config(tmp_path, **{"server.http": "127.0.0.1:0"})
    async with running(config) as (_server, lines):
        url = next(
            w for line in lines for w in line.replace(",", " ").split() if w.startswith("http://")
        )
        token_file = data / "api-token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()
        async with aiohttp.ClientSession() as http:
            resp = await http.get(f"{url}/v1/health")
            assert resp.status == 200  # health is open for probes
            resp = await http.get(f"{url}/v1/facts")
            assert resp.status == 401
            assert (await resp.json())["error"]["code"] == "unauthorized"
            resp = await http.get(f"{url}/v1/facts", headers={"Authorization": "Bearer nope"})
            assert resp.status == 401
            resp = await http.get(f"{url}/v1/facts", headers={"Authorization": f"Bearer {token}"})
            assert resp.status == 200
            auth = {"Authorization": f"Bearer {restricted}"}
            resp = await http.get(
                f"{url}/v1/facts", headers={**auth, "X-Memoryd-Namespace": "alice"}
            )
            assert resp.status == 200
            resp = await http.get(
                f"{url}/v1/facts", headers={**auth, "X-Memoryd-Namespace": "carol"}
            )
            assert resp.status == 403
            assert (await resp.json())["error"]["code"] == "forbidden"
            # Daemon-wide figures cover every namespace: not for a limited token, even when
            # it names a namespace it may use.
            for path in ("/metrics", "/v1/retrospective"):
                resp = await http.get(
                    f"{url}{path}", headers={**auth, "X-Memoryd-Namespace": "alice"}
                )
                assert resp.status == 403, path
                assert "covers every namespace" in (await resp.json())["error"]["message"]
            resp = await http.get(f"{url}/metrics", headers={"Authorization": f"Bearer {token}"})
            assert resp.status == 200
    # The token survives restarts.
    async with running(config):
        assert (data / "api-token").read_text().strip() == token


async def test_in_flight_request_finishes_on_stop(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    batch = {"messages": [{"role": "user", "content": f"m{i}"} for i in range(1000)]}
    async with running(config) as (server, _lines):
        state = server._state
        assert state is not None
        # Another process holds the log's write lock, so the append waits: the request is
        # received and in flight when the daemon is told to stop.
        blocker = sqlite3.connect(config.storage.data_dir / "events.sqlite3", timeout=5)
        blocker.isolation_level = None
        blocker.execute("BEGIN IMMEDIATE")
        try:
            async with unix_session(config.server.socket) as http:
                post = asyncio.create_task(
                    http.post("http://memoryd/v1/conversations/c/messages:batch", json=batch)
                )
                for _ in range(500):
                    if state.in_flight:
                        break
                    await asyncio.sleep(0.01)
                assert state.in_flight == 1
                await asyncio.sleep(0.2)  # the body is read; the append waits for the lock
                server.request_stop()
                await asyncio.sleep(0.1)
                blocker.execute("ROLLBACK")
                resp = await asyncio.wait_for(post, 30)
                assert resp.status == 201
                assert len((await resp.json())["results"]) == 1000
        finally:
            blocker.close()
    async with running(config) as (_server, _lines), unix_session(config.server.socket) as http:
        resp = await http.get("http://memoryd/v1/conversations/c/messages?limit=1000")
        assert len((await resp.json())["messages"]) == 1000


async def test_sighup_reloads_and_bad_config_is_kept_out(tmp_path: Path) -> None:
    cfg = tmp_path / "memoryd.toml"
    cfg.write_text('[logging]\nlevel = "info"\n')
    overrides = {
        "storage.data_dir": str(tmp_path / "data"),
        "server.socket": str(tmp_path / "memoryd.sock"),
    }
    options = ServeOptions(config_path=cfg, overrides=overrides, env={})
    config = load_config(cfg, {}, overrides)
    async with running(config, options) as (server, _lines):
        cfg.write_text('[logging]\nlevel = "debug"\n')
        os.kill(os.getpid(), signal.SIGHUP)
        for _ in range(100):
            if server.config.logging.level == "debug":
                break
            await asyncio.sleep(0.02)
        assert server.config.logging.level == "debug"
        assert server._state is not None
        assert isinstance(server._state.runner, ProjectorProcess)
        assert server._state.runner.log_level == "debug"  # passed on to the projection process
        # The watcher sees an edit without a signal; request_timeout applies at once.
        cfg.write_text('[logging]\nlevel = "warning"\n[server]\nrequest_timeout = "5s"\n')
        for _ in range(250):
            if server.config.logging.level == "warning":
                break
            await asyncio.sleep(0.02)
        assert server.config.logging.level == "warning"
        assert server._state is not None
        assert server._state.settings.request_timeout == 5.0
        cfg.write_text('[logging]\nlevel = "loud"\n')
        try:
            assert await server.async_reload() is False
            assert server.config.logging.level == "warning"
        finally:
            reset_logging()
