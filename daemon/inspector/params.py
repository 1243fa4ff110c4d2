"""Reading the values people type into the pages' forms: moments and log positions."""

from __future__ import annotations

from datetime import UTC, datetime

from daemon.api.errors import ApiError


def moment(raw: str, name: str) -> datetime | None:
    """A ``datetime-local`` value (read as UTC) or an ISO timestamp; empty: none."""
    if not raw.strip():
        return None
    try:
        when = datetime.fromisoformat(raw.strip())
    except ValueError:
        raise ApiError(400, "invalid_request", f"{name}: not a moment: {raw!r}") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def position(raw: str | None, default: int, name: str) -> int:
    """A log position (digits); empty: ``default``."""
    if raw is None or not raw.strip():
        return default
    if not raw.strip().isdigit() or len(raw.strip()) > 18:
        raise ApiError(400, "invalid_request", f"{name}: not a log position: {raw!r}")
    return int(raw)
