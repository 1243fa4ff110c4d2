"""``memoryd events tail|export|import`` on a SQLite data dir."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from daemon.cli import main
from events.store.base import EventRecord, NewEvent
from events.store.contract import fact, message
from events.store.sqlite import SqliteEventStore
from tests.paths import REPO_ROOT

# A MessageAppended v1 line as an older memoryd exported it.
V1_LINE = (
    b'{"position":4,"event_id":"0b7c3b1e-5f6a-4a53-9f38-2d5c3f0e8a11","namespace":"default",'
    b'"stream_id":"conversation:c1","stream_version":3,"event_type":"MessageAppended",'
    b'"schema_version":1,"recorded_at":"2026-01-02T00:00:00+00:00","causation_id":null,'
    b'"correlation_id":null,"idempotency_key":null,"payload":{"conversation_id":"c1",'
    b'"message_id":"old","author":"bot","text":"from v1","created_at":"2025-06-01T09:15:00Z"}}'
)


def populate(data_dir: Path) -> None:
    """Write three events: two messages in ``default``, one fact in ``other``."""

    async def run() -> None:
        store = SqliteEventStore.in_data_dir(data_dir)
        await store.open()
        try:
            await store.append("default", [NewEvent(message("c1", 1)), NewEvent(message("c1", 2))])
            await store.append("other", [NewEvent(fact("f1", "tea"), idempotency_key="k")])
        finally:
            await store.close()

    asyncio.run(run())


def stored_records(data_dir: Path) -> list[EventRecord]:
    async def run() -> list[EventRecord]:
        store = SqliteEventStore.in_data_dir(data_dir, readonly=True)
        await store.open()
        try:
            return [r async for r in store.read_records()]
        finally:
            await store.close()

    return asyncio.run(run())


def lines(text: str) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in text.splitlines()]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    populate(path)
    return path


def test_tail_prints_decoded_events(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", "tail", "--data-dir", str(data_dir)]) == 0
    out = lines(capsys.readouterr().out)
    assert [e["position"] for e in out] == [1, 2, 3]
    first = out[0]
    assert first["event_type"] == "MessageAppended"
    assert first["namespace"] == "default"
    assert first["stream_id"] == "conversation:c1"
    payload = first["payload"]
    assert isinstance(payload, dict)
    assert (payload["message_id"], payload["content"]) == ("c1-m1", "message 1 of c1")
    assert out[2]["idempotency_key"] == "k"


@pytest.mark.parametrize(
    ("options", "positions"),
    [
        (["--after", "1"], [2, 3]),
        (["--limit", "2"], [1, 2]),
        (["--after", "1", "--limit", "1"], [2]),
        (["--namespace", "other"], [3]),
        (["--stream", "conversation:c1"], [1, 2]),
        (["--stream", "conversation:none"], []),
        (["--limit", "0"], []),
    ],
)
def test_tail_filters(
    data_dir: Path, capsys: pytest.CaptureFixture[str], options: list[str], positions: list[int]
) -> None:
    assert main(["events", "tail", "--data-dir", str(data_dir), *options]) == 0
    assert [e["position"] for e in lines(capsys.readouterr().out)] == positions


def test_tail_upcasts_old_versions(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = data_dir.parent / "v1.ndjson"
    source.write_bytes(V1_LINE + b"\n")
    assert main(["events", "import", "--data-dir", str(data_dir), str(source)]) == 0
    assert main(["events", "tail", "--data-dir", str(data_dir), "--after", "3"]) == 0
    (event,) = lines(capsys.readouterr().out)
    assert event["schema_version"] == 2
    assert event["payload"] == {
        "conversation_id": "c1",
        "message_id": "old",
        "role": "assistant",
        "content": "from v1",
        "created_at": "2025-06-01T09:15:00+00:00",
        "name": None,
        "metadata": {},
        "finalized": True,
    }
    # The export keeps the record as stored: still v1.
    assert main(["events", "export", "--data-dir", str(data_dir), "--after", "3"]) == 0
    exported = orjson.loads(capsys.readouterr().out)
    # ... with the row's checksum, which the import computed.
    assert isinstance(exported.pop("checksum"), int)
    assert exported.pop("request_hash") is None
    assert exported == orjson.loads(V1_LINE)


def test_tail_of_a_missing_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", "tail", "--data-dir", str(tmp_path / "none")]) == 1
    assert "no event log" in capsys.readouterr().err


def test_tail_follow_prints_new_commits(data_dir: Path) -> None:
    child = subprocess.Popen(
        [
            *(sys.executable, "-m", "daemon.cli", "events", "tail", "--data-dir", str(data_dir)),
            *("--after", "1", "--follow", "--limit", "3", "--namespace", "default"),
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    try:
        assert child.stdout is not None
        # Caught up: position 2 (3 is in another namespace). Now it follows.
        caught_up = orjson.loads(child.stdout.readline())
        assert caught_up["position"] == 2

        async def append_more() -> None:
            store = SqliteEventStore.in_data_dir(data_dir)
            await store.open()
            try:
                await store.append("other", [NewEvent(message("x", 1))])  # filtered out
                await store.append("default", [NewEvent(message("c1", 3))])
                await store.append("default", [NewEvent(message("c2", 1))])
                await store.append("default", [NewEvent(message("c2", 2))])
            finally:
                await store.close()

        asyncio.run(append_more())
        out, _ = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0
    followed = lines(out.decode())
    assert [e["position"] for e in followed] == [5, 6]
    assert {e["namespace"] for e in followed} == {"default"}


def test_export_import_roundtrip(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "export.ndjson"
    assert main(["events", "export", "--data-dir", str(data_dir), "-o", str(target)]) == 0
    assert "exported 3 events" in capsys.readouterr().err
    exported = target.read_bytes().splitlines()
    assert [EventRecord.from_json(line) for line in exported] == stored_records(data_dir)

    copy = tmp_path / "copy"
    assert main(["events", "import", "--data-dir", str(copy), str(target)]) == 0
    assert "imported 3 events (positions 1..3)" in capsys.readouterr().err
    assert stored_records(copy) == stored_records(data_dir)


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_export_draws_a_bar_on_a_terminal_only(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["events", "export", "--data-dir", str(data_dir), "-o", str(tmp_path / "x.ndjson")]
    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert main(argv) == 0
    assert quiet.getvalue() == f"exported 3 events to {tmp_path / 'x.ndjson'}\n"
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(argv) == 0
    drawn = terminal.getvalue()
    assert "\rexport [##############################] 100% 3/3 events" in drawn
    assert drawn.endswith(f"\nexported 3 events to {tmp_path / 'x.ndjson'}\n")


def test_export_range_to_stdout(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", "export", "--data-dir", str(data_dir), "--after", "1"]) == 0
    assert [r["position"] for r in lines(capsys.readouterr().out)] == [2, 3]
    argv = ["events", "export", "--data-dir", str(data_dir), "--after", "1", "--until", "2"]
    assert main(argv) == 0
    assert [r["position"] for r in lines(capsys.readouterr().out)] == [2]


def test_import_from_stdin(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exported = b"".join(r.to_json() + b"\n" for r in stored_records(data_dir))
    stdin = io.TextIOWrapper(io.BytesIO(exported))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["events", "import", "--data-dir", str(tmp_path / "copy"), "-"]) == 0
    assert stored_records(tmp_path / "copy") == stored_records(data_dir)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", None),  # an empty file imports nothing, successfully
        ("gap", "gap: position 5 where 4 was expected"),
        ("clash", "clash: position 3 where 4 was expected"),
        (b"not json\n", "line 1: not an exported event: not JSON"),
        (b'{"position": 4}\n', "missing field 'event_id'"),
        ("unknown", "unknown event type 'NoSuchEvent'"),
    ],
)
def test_import_refusals_write_nothing(
    data_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: bytes | str,
    message: str | None,
) -> None:
    before = stored_records(data_dir)
    last = before[-1]
    if content == "gap":  # the log ends at 3, the file starts at 5
        content = V1_LINE.replace(b'"position":4', b'"position":5') + b"\n"
    elif content == "clash":  # the file repeats position 3, then continues correctly
        content = last.to_json() + b"\n" + V1_LINE
    elif content == "unknown":
        content = V1_LINE.replace(b'"MessageAppended"', b'"NoSuchEvent"')
    assert isinstance(content, bytes)
    source = tmp_path / "in.ndjson"
    source.write_bytes(content)
    status = main(["events", "import", "--data-dir", str(data_dir), str(source)])
    err = capsys.readouterr().err
    if message is None:
        assert status == 0
        assert "imported 0 events" in err
    else:
        assert status == 1
        assert message in err
        assert "nothing was written" in err
    assert stored_records(data_dir) == before


def test_import_of_a_missing_file(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", "import", "--data-dir", str(data_dir), "/no/such/file"]) == 1
    assert "cannot read /no/such/file" in capsys.readouterr().err


def test_export_to_an_unwritable_place(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "no" / "such" / "dir" / "out.ndjson"
    assert main(["events", "export", "--data-dir", str(data_dir), "-o", str(target)]) == 1
    assert f"cannot write {target}" in capsys.readouterr().err
