"""Hot reload on a real directory: atomic replaces, rejections, SIGHUP with systemd notify."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import signal
import socket
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from watchfiles import Change

from daemon.config import Config, load_config
from daemon.logging import configure_logging, reset_logging
from daemon.reload import ConfigWatcher, ReloadOutcome, install_sighup, log_adjustments

WAIT = 20.0  # generous upper bound for a file event to arrive; never a timing assertion


@pytest.fixture
def logs() -> Iterator[io.BytesIO]:
    out = io.BytesIO()
    configure_logging("debug", "json", stream=out)
    yield out
    reset_logging()


def _events(out: io.BytesIO, name: str) -> list[dict[str, Any]]:
    lines = [orjson.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    return [line for line in lines if line["event"] == name]


def _replace(path: Path, text: str) -> None:
    """Write the way editors do: a temporary file in the same directory, renamed over."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _remove(path: Path) -> None:
    path.unlink()


ENV = {"STATE_DIRECTORY": "/srv/memoryd-test"}


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    path = tmp_path / "memoryd.toml"
    path.write_text('[retrospective]\nmin_cooldown = "5m"\n', encoding="utf-8")
    return path


@pytest.fixture
async def watcher(config_path: Path) -> AsyncIterator[ConfigWatcher]:
    w = ConfigWatcher(
        config_path, load_config(config_path, ENV), env=ENV, debounce_ms=50, step_ms=10
    )
    async with w:
        await _until_watching(w, config_path)
        yield w


async def _until_watching(w: ConfigWatcher, path: Path) -> None:
    """Rewrite the file unchanged until the watcher reacts: from then on it sees changes."""
    text = _read(path)
    for _ in range(100):
        outcome = asyncio.ensure_future(w.next_outcome())
        _replace(path, text)
        done, _ = await asyncio.wait({outcome}, timeout=0.2)
        if done:
            assert outcome.result().status == "unchanged"
            return
        outcome.cancel()
    raise AssertionError("the watcher never reacted to the config file")


async def test_atomic_replace_is_applied(
    watcher: ConfigWatcher, config_path: Path, logs: io.BytesIO
) -> None:
    seen: list[tuple[Config, Config]] = []

    async def on_change(old: Config, new: Config) -> None:
        seen.append((old, new))

    watcher.subscribe(on_change)
    outcome = asyncio.ensure_future(watcher.next_outcome())
    _replace(config_path, '[retrospective]\nmin_cooldown = "1m"\n[logging]\nlevel = "debug"\n')
    result = await asyncio.wait_for(outcome, WAIT)
    assert result == ReloadOutcome(
        "applied", "file changed", changed=("logging.level", "retrospective.min_cooldown")
    )
    [(old, new)] = seen
    assert old.retrospective.min_cooldown.total_seconds() == 300
    assert new.retrospective.min_cooldown.total_seconds() == 60
    assert watcher.current is new
    [line] = _events(logs, "config.reloaded")
    assert line["changed"] == ["logging.level", "retrospective.min_cooldown"]
    assert line["source"] == str(config_path)


async def test_invalid_file_is_rejected_and_the_old_config_stays(
    watcher: ConfigWatcher, config_path: Path, logs: io.BytesIO
) -> None:
    before = watcher.current
    outcome = asyncio.ensure_future(watcher.next_outcome())
    _replace(config_path, '[retrospective]\nmin_cooldown = "soon"\nbogus = 1\n')
    result = await asyncio.wait_for(outcome, WAIT)
    assert result.status == "rejected"
    assert watcher.current is before
    [line] = _events(logs, "config.rejected")
    assert any(e.startswith("retrospective.min_cooldown: 'soon'") for e in line["errors"])
    assert "retrospective.bogus: unknown key" in line["errors"]
    # A later good version is applied again.
    outcome = asyncio.ensure_future(watcher.next_outcome())
    _replace(config_path, '[retrospective]\nmin_cooldown = "2m"\n')
    assert (await asyncio.wait_for(outcome, WAIT)).status == "applied"
    assert watcher.current.retrospective.min_cooldown.total_seconds() == 120


async def test_other_files_in_the_directory_are_ignored(
    watcher: ConfigWatcher, config_path: Path
) -> None:
    before = watcher.attempts
    outcome = asyncio.ensure_future(watcher.next_outcome())
    (config_path.parent / "other.toml").write_text("[nope]\n")
    (config_path.parent / ".memoryd.toml.swp").write_text("junk")
    _replace(config_path, '[retrospective]\nmin_cooldown = "3m"\n')
    assert (await asyncio.wait_for(outcome, WAIT)).status == "applied"
    assert watcher.attempts == before + 1


def test_filter_matches_only_the_config_file_name(config_path: Path) -> None:
    w = ConfigWatcher(config_path, load_config(config_path, ENV), env=ENV)
    directory = str(config_path.parent)
    assert w._matches(Change.modified, f"{directory}/memoryd.toml")
    assert w._matches(Change.added, f"{directory}/memoryd.toml")
    assert not w._matches(Change.added, f"{directory}/.memoryd.toml.tmp")
    assert not w._matches(Change.modified, f"{directory}/memoryd.toml~")


async def test_deleted_file_is_rejected(watcher: ConfigWatcher, config_path: Path) -> None:
    outcome = asyncio.ensure_future(watcher.next_outcome())
    _remove(config_path)
    result = await asyncio.wait_for(outcome, WAIT)
    assert result.status == "rejected"
    assert result.errors == (f"{config_path}: no such file",)


async def test_reload_on_demand_keeps_env_overrides(config_path: Path, logs: io.BytesIO) -> None:
    env = {**ENV, "MEMORYD_SERVER__MAX_BODY_SIZE": "2MiB"}
    w = ConfigWatcher(config_path, load_config(config_path, env), env=env)
    assert await w.async_reload() is True
    assert w.last_outcome == ReloadOutcome("unchanged", "request")
    _write(config_path, '[retrospective]\nmin_cooldown = "10m"\n')
    assert await w.async_reload() is True
    assert w.current.server.max_body_size == 2 * 1024 * 1024
    assert w.current.retrospective.min_cooldown.total_seconds() == 600
    _write(config_path, "[server\n")
    assert await w.async_reload() is False
    assert w.current.retrospective.min_cooldown.total_seconds() == 600


async def test_a_failing_callback_does_not_stop_the_others(
    config_path: Path, logs: io.BytesIO
) -> None:
    calls: list[str] = []

    async def broken(old: Config, new: Config) -> None:
        calls.append("broken")
        raise RuntimeError("callback bug")

    async def fine(old: Config, new: Config) -> None:
        calls.append("fine")

    w = ConfigWatcher(config_path, load_config(config_path, ENV), broken, env=ENV)
    w.subscribe(fine)
    _write(config_path, '[logging]\nlevel = "warning"\n')
    assert await w.async_reload() is True
    assert calls == ["broken", "fine"]
    assert w.current.logging.level == "warning"
    [failure] = _events(logs, "config.callback_failed")
    assert failure["exception"][0]["exc_value"] == "callback bug"


async def test_clamp_is_logged_on_reload(config_path: Path, logs: io.BytesIO) -> None:
    w = ConfigWatcher(config_path, load_config(config_path, ENV), env=ENV)
    _write(config_path, '[retrospective]\nsweep_interval = "8h"\nsweep_lookback = "1h"\n')
    assert await w.async_reload() is True
    [line] = _events(logs, "config.adjusted")
    assert line["key"] == "retrospective.sweep_lookback"
    assert (line["given"], line["used"]) == ("1h", "16h")
    log_adjustments(w.current)
    assert len(_events(logs, "config.adjusted")) == 2


async def test_sighup_reloads_between_reloading_and_ready(
    config_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    short = Path(tempfile.mkdtemp(prefix="md-"))
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(short / "notify"))
    monkeypatch.setenv("NOTIFY_SOCKET", str(short / "notify"))
    w = ConfigWatcher(config_path, load_config(config_path, ENV), env=ENV)
    remove = install_sighup(w)
    try:
        _write(config_path, '[retrospective]\nmin_cooldown = "7m"\n')
        outcome = asyncio.ensure_future(w.next_outcome())
        os.kill(os.getpid(), signal.SIGHUP)
        result = await asyncio.wait_for(outcome, WAIT)
        assert result.status == "applied"
        assert result.reason == "SIGHUP"
        notify.settimeout(WAIT)
        reloading = (await asyncio.to_thread(notify.recv, 4096)).decode().split("\n")
        ready = (await asyncio.to_thread(notify.recv, 4096)).decode()
        assert reloading[0] == "RELOADING=1"
        assert reloading[1].startswith("MONOTONIC_USEC=")
        assert ready == "READY=1\nSTATUS=configuration reloaded"
        # A rejected reload still ends the reloading state.
        _write(config_path, "[retrospective]\nmin_cooldown = 3\n")
        outcome = asyncio.ensure_future(w.next_outcome())
        os.kill(os.getpid(), signal.SIGHUP)
        assert (await asyncio.wait_for(outcome, WAIT)).status == "rejected"
        await asyncio.to_thread(notify.recv, 4096)
        ready = (await asyncio.to_thread(notify.recv, 4096)).decode()
        assert ready == "READY=1\nSTATUS=configuration rejected; previous one in force"
    finally:
        remove()
        notify.close()
        shutil.rmtree(short, ignore_errors=True)


async def test_no_path_means_nothing_to_watch() -> None:
    w = ConfigWatcher(None, load_config(None, ENV), env=ENV)
    await w.run()  # returns at once
    assert await w.async_reload() is True


async def test_polling_watcher_sees_an_atomic_replace(config_path: Path) -> None:
    """The fallback when inotify is unavailable (or out of watches) sees the same changes."""
    w = ConfigWatcher(
        config_path,
        load_config(config_path, ENV),
        env=ENV,
        debounce_ms=50,
        step_ms=10,
        force_polling=True,
        poll_interval=0.02,
    )
    async with w:
        await _until_watching(w, config_path)
        outcome = asyncio.ensure_future(w.next_outcome())
        _replace(config_path, '[retrospective]\nmin_cooldown = "4m"\n')
        assert (await asyncio.wait_for(outcome, WAIT)).changed == ("retrospective.min_cooldown",)
