"""Where the repository is, for tests that read its files or start a child in it (a test's own
``__file__`` would tie the answer to how deep its folder is)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
