"""The picture of a fact's bi-temporal life, as boxes to draw in an SVG.

Across: valid time (when the fact was true in the world). Down: transaction time (when
memoryd believed it). Each stored version is one box, from its ``valid_from`` to its
``valid_to`` and from when it was recorded to when it was replaced; a side still open
(true until further notice, believed now) runs to the edge, where "now" is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from projections.facts import FactRow

WIDTH = 640
HEIGHT = 240
MARGIN = 48


@dataclass(frozen=True, slots=True)
class Box:
    """One version drawn: its place in the picture and what its tooltip says."""

    x: float
    y: float
    width: float
    height: float
    label: str
    title: str
    open_ended: bool


@dataclass(frozen=True, slots=True)
class Lifeline:
    """The boxes and the axes' end labels (valid time across, transaction time down)."""

    boxes: list[Box]
    valid_start: datetime
    valid_end: datetime
    known_start: datetime
    known_end: datetime
    width: int = WIDTH
    height: int = HEIGHT
    margin: int = MARGIN


def _scale(start: datetime, end: datetime, size: float) -> tuple[float, float]:
    """Return (origin seconds, pixels per second) so that start..end fills ``size``."""
    span = max((end - start).total_seconds(), 1.0)
    return start.timestamp(), size / span


def lifeline(versions: Sequence[FactRow], now: datetime) -> Lifeline:
    """Lay out every version of a fact (oldest first) against both times."""
    valid_start = min(v.valid_from for v in versions)
    known_start = min(v.recorded_from for v in versions)
    # A little past now, so that what is still open shows as running on.
    horizon = max(now, *(v.recorded_from for v in versions)) + timedelta(seconds=1)
    valid_end = max(horizon, *(v.valid_to or horizon for v in versions))
    known_end = horizon
    inner_w, inner_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN
    vx0, vk = _scale(valid_start, valid_end, inner_w)
    ky0, kk = _scale(known_start, known_end, inner_h)
    boxes = []
    for number, version in enumerate(versions, start=1):
        x1 = MARGIN + (version.valid_from.timestamp() - vx0) * vk
        x2 = MARGIN + ((version.valid_to or valid_end).timestamp() - vx0) * vk
        y1 = MARGIN + (version.recorded_from.timestamp() - ky0) * kk
        y2 = MARGIN + ((version.recorded_to or known_end).timestamp() - ky0) * kk
        boxes.append(
            Box(
                x=round(x1, 1),
                y=round(y1, 1),
                width=round(max(x2 - x1, 2.0), 1),
                height=round(max(y2 - y1, 2.0), 1),
                label=f"v{number} {version.status}",
                title=f"v{number} ({version.status}): {version.text}",
                open_ended=version.valid_to is None or version.recorded_to is None,
            )
        )
    return Lifeline(boxes, valid_start, valid_end, known_start, known_end)
