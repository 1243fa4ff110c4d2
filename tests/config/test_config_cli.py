"""``memoryd config check|show|keys`` through the real command-line entry point."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from daemon.cli import main
from daemon.cli.config_cmd import to_toml
from daemon.config import config_from_mapping, describe_keys
from tests.config.test_config import BAD_CONSOLIDATION_VALUES


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("MEMORYD_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "memoryd.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_check_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _file(tmp_path, '[server]\nmax_body_size = "2MiB"\n')
    assert main(["config", "check", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: OK\n"


def test_check_json_prints_the_effective_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _file(tmp_path, '[server]\nmax_body_size = "2MiB"\n')
    monkeypatch.setenv("MEMORYD_RETROSPECTIVE__MIN_COOLDOWN", "90s")
    assert main(["config", "check", "--json", str(path)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["server"]["max_body_size"] == "2MiB"
    assert document["retrospective"]["min_cooldown"] == "1m30s"
    assert document["storage"]["data_dir"] == str(tmp_path / "state")
    assert document["llm"]["budget"]["reset"] == "utc"


def test_check_lists_every_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _file(
        tmp_path,
        '[server]\nmax_body_size = "big"\n[retrospective]\nmin_cooldown = "5x"\ncolour = 1\n',
    )
    monkeypatch.setenv("MEMORYD_LOGGING__LEVEL", "loud")
    assert main(["config", "check", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"{path}: 4 problems"
    assert sorted(line.split(":")[0].strip() for line in err[1:]) == [
        "logging.level",
        "retrospective.colour",
        "retrospective.min_cooldown",
        "server.max_body_size",
    ]
    # --no-env ignores the bad override.
    assert main(["config", "check", "--no-env", str(path)]) == 1
    assert capsys.readouterr().err.splitlines()[0] == f"{path}: 3 problems"


def test_check_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", str(tmp_path / "nope.toml")]) == 1
    assert "no such file" in capsys.readouterr().err


def test_check_reports_the_clamp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _file(tmp_path, '[retrospective]\nsweep_interval = "1h"\nsweep_lookback = "30m"\n')
    assert main(["config", "check", str(path)]) == 0
    err = capsys.readouterr().err
    assert "note: retrospective.sweep_lookback: 30m -> 2h" in err


def test_show_toml_round_trips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _file(
        tmp_path,
        '[llm]\nprovider = "openai"\nmodel = "m"\n[llm.budget]\ncalls_per_day = 9\n'
        '[storage]\ndatabase_url = "postgresql+asyncpg://u:pw@h/d"\n',
    )
    monkeypatch.setenv("MEMORYD_CONFIG", str(path))
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# effective memoryd configuration; read from: {path}")
    assert "pw@" not in out
    document = tomllib.loads(out)
    assert document["llm"]["budget"]["calls_per_day"] == 9
    assert document["storage"]["database_url"] == "postgresql+asyncpg://u:***@h/d"
    assert "# http is unset" in out


def test_show_json_without_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["config", "show", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["logging"]["format"] == "auto"


def test_to_toml_reads_back_to_the_same_config(tmp_path: Path) -> None:
    config = config_from_mapping(
        {
            "server": {"http": "[::1]:8765"},
            "retrospective": {"prompt_path": 'we"ird.md'},
            "consolidation": {"agents": ["linker", "health"]},
        },
        env={"STATE_DIRECTORY": str(tmp_path)},
    )
    again = config_from_mapping(tomllib.loads(to_toml(config.to_dict())), env={})
    assert again == config


def test_keys_lists_every_key(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "keys"]) == 0
    out = capsys.readouterr().out
    for key, *_ in describe_keys():
        assert f"{key}  (" in out


def test_store_commands_open_the_data_dir_memoryd_toml_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command that opens the store finds it where the daemon would: ``storage.data_dir``
    from the config file, unless ``--data-dir`` names another."""
    configured = tmp_path / "configured"
    path = _file(tmp_path, f'[storage]\ndata_dir = "{configured}"\n')
    monkeypatch.setenv("MEMORYD_CONFIG", str(path))
    assert main(["db", "upgrade"]) == 0
    assert (configured / "events.sqlite3").exists()
    assert not (tmp_path / "state").exists()
    capsys.readouterr()
    assert main(["db", "status"]) == 0
    assert str(configured) in capsys.readouterr().out
    given = tmp_path / "given"
    assert main(["db", "status", "--data-dir", str(given)]) == 0
    assert str(given) in capsys.readouterr().out


def test_a_store_command_refuses_an_invalid_config_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _file(tmp_path, "[storage]\nreserved_space = -1\n")
    monkeypatch.setenv("MEMORYD_CONFIG", str(path))
    assert main(["db", "status"]) == 2
    err = capsys.readouterr().err
    assert "storage.reserved_space" in err
    assert not (tmp_path / "state").exists()


def test_check_names_the_consolidation_key_at_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(
        tmp_path,
        '[consolidation]\non_exceed = "stop"\ncooldown = "soon"\nmax_retries = -1\n'
        "[consolidation.salience_weights]\ntrust = 11\n",
    )
    assert main(["config", "check", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert sorted(line.split(":")[0].strip() for line in err[1:]) == [
        "consolidation.cooldown",
        "consolidation.max_retries",
        "consolidation.on_exceed",
        "consolidation.salience_weights.trust",
    ]


def test_check_names_every_bad_consolidation_key_in_one_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A key naming a plugin is checked once its section is otherwise valid, so it is left out.
    bad = [(key, value) for key, value in BAD_CONSOLIDATION_VALUES if key != "ingest_gate"]
    section: dict[str, object] = {}
    for key, value in bad:
        *tables, name = key.split(".")
        table = section
        for part in tables:
            table = table.setdefault(part, {})  # type: ignore[assignment]
        table[name] = value
    path = _file(tmp_path, to_toml({"consolidation": section}))
    assert main(["config", "check", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert sorted(line.split(":")[0].strip() for line in err[1:]) == sorted(
        f"consolidation.{key}" for key, _ in bad
    )
