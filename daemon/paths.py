"""Where memoryd keeps its state and its socket, following systemd and XDG conventions."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """Return ``$STATE_DIRECTORY``, else ``$XDG_STATE_HOME/memoryd``, else ~/.local/state."""
    env = os.environ if env is None else env
    state = env.get("STATE_DIRECTORY")
    if state:
        # systemd may pass several colon-separated directories; the first is ours.
        return Path(state.split(":")[0])
    xdg = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(xdg) / "memoryd"


def default_socket_path(env: Mapping[str, str] | None = None) -> Path:
    """Return ``$RUNTIME_DIRECTORY/memoryd.sock``, else ``$XDG_RUNTIME_DIR/memoryd.sock``."""
    env = os.environ if env is None else env
    runtime = env.get("RUNTIME_DIRECTORY")
    if runtime:
        return Path(runtime.split(":")[0]) / "memoryd.sock"
    xdg = env.get("XDG_RUNTIME_DIR")
    if xdg:
        return Path(xdg) / "memoryd.sock"
    return default_data_dir(env) / "memoryd.sock"


PRIVATE_NAMES = ("api-token", "tokens")
"""Files in the data dir that hold credentials."""


def loose_permissions(data_dir: Path) -> list[str]:
    """Return a warning for the data dir, and each credentials file in it, that others may
    read: a data dir made before memoryd (0755, say) keeps its mode."""
    warnings = []
    for path in (data_dir, *(data_dir / name for name in PRIVATE_NAMES)):
        try:
            mode = path.stat().st_mode & 0o777
        except OSError:
            continue
        if mode & 0o077:
            warnings.append(
                f"{path} has mode {mode:04o}: others may read the memory in it; "
                f"`chmod {'700' if path == data_dir else '600'} {path}`"
            )
    return warnings
