"""The daemon's own token: made once, kept private, and safe to paste after ``--token``."""

from __future__ import annotations

import secrets
import stat
from pathlib import Path

import pytest

from daemon.auth import TOKEN_FILE, ensure_token_file, new_token


def test_a_token_never_starts_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = iter(["-looks-like-an-option", "--also", "fine-token"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda _n: next(drawn))
    assert new_token() == "fine-token"


def test_the_token_file_is_made_once_and_private(tmp_path: Path) -> None:
    token = ensure_token_file(tmp_path)
    assert not token.startswith("-")
    assert len(token) >= 40
    mode = stat.S_IMODE((tmp_path / TOKEN_FILE).stat().st_mode)
    assert mode == 0o600
    assert ensure_token_file(tmp_path) == token
