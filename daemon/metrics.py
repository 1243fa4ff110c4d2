"""Prometheus text exposition for the daemon, without a client library.

Counters, gauges and histograms keyed by label values; :meth:`Metrics.render` writes the text
format (version 0.0.4) that ``GET /metrics`` serves. Everything runs on the event loop, so no
locking is needed.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

LATENCY_BUCKETS: tuple[float, ...] = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.02,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)

Labels = tuple[str, ...]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _label_text(names: Sequence[str], values: Sequence[str], extra: str = "") -> str:
    parts = [f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True)]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


def _num(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


@dataclass(slots=True)
class Counter:
    """A monotonically increasing count per label set."""

    name: str
    help: str
    label_names: Labels = ()
    values: dict[Labels, float] = field(default_factory=dict)

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        """Add ``amount`` to the series named by ``labels``."""
        self.values[labels] = self.values.get(labels, 0.0) + amount

    def get(self, *labels: str) -> float:
        """Return one series' value."""
        return self.values.get(labels, 0.0)

    def render(self) -> list[str]:
        """Return the exposition lines."""
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} counter"]
        for labels, value in sorted(self.values.items()):
            lines.append(f"{self.name}{_label_text(self.label_names, labels)} {_num(value)}")
        return lines


@dataclass(slots=True)
class Gauge:
    """A value read when the metrics are rendered."""

    name: str
    help: str
    read: Callable[[], float]

    def render(self) -> list[str]:
        """Return the exposition lines."""
        return [
            f"# HELP {self.name} {self.help}",
            f"# TYPE {self.name} gauge",
            f"{self.name} {_num(self.read())}",
        ]


@dataclass(slots=True)
class _Series:
    counts: list[int]
    total: float = 0.0
    count: int = 0


@dataclass(slots=True)
class Histogram:
    """Observations sorted into cumulative buckets per label set."""

    name: str
    help: str
    label_names: Labels = ()
    buckets: tuple[float, ...] = LATENCY_BUCKETS
    series: dict[Labels, _Series] = field(default_factory=dict)

    def observe(self, value: float, *labels: str) -> None:
        """Record one observation."""
        s = self.series.get(labels)
        if s is None:
            s = self.series[labels] = _Series(counts=[0] * (len(self.buckets) + 1))
        s.counts[bisect.bisect_left(self.buckets, value)] += 1
        s.total += value
        s.count += 1

    def render(self) -> list[str]:
        """Return the exposition lines (cumulative buckets, sum and count)."""
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        for labels, s in sorted(self.series.items()):
            running = 0
            for bound, n in zip((*self.buckets, math.inf), s.counts, strict=True):
                running += n
                le = 'le="' + _num(bound) + '"'
                lines.append(
                    f"{self.name}_bucket{_label_text(self.label_names, labels, le)} {running}"
                )
            text = _label_text(self.label_names, labels)
            lines.append(f"{self.name}_sum{text} {_num(s.total)}")
            lines.append(f"{self.name}_count{text} {s.count}")
        return lines


class Metrics:
    """The daemon's metrics: HTTP requests, appends and projection progress."""

    def __init__(self) -> None:
        self.requests = Counter(
            "memoryd_http_requests_total",
            "HTTP requests by route template, method and status.",
            ("route", "method", "status"),
        )
        self.latency = Histogram(
            "memoryd_http_request_duration_seconds",
            "HTTP request latency by route template and method.",
            ("route", "method"),
        )
        self.appended = Counter(
            "memoryd_events_appended_total",
            "Events appended through the API (rate() of this is the append rate).",
            ("event_type",),
        )
        self.gauges: list[Gauge] = []

    def gauge(self, name: str, help_text: str, read: Callable[[], float]) -> None:
        """Register a gauge read at render time."""
        self.gauges.append(Gauge(name, help_text, read))

    def render(self) -> str:
        """Return the whole exposition text."""
        lines: list[str] = []
        for metric in (self.requests, self.latency, self.appended):
            lines.extend(metric.render())
        for gauge in self.gauges:
            lines.extend(gauge.render())
        return "\n".join(lines) + "\n"
