"""memoryd's version, as installed."""

from __future__ import annotations

from importlib import metadata


def package_version() -> str:
    """Return memoryd's installed version."""
    try:
        return metadata.version("memoryd")
    except metadata.PackageNotFoundError:
        return "0.0.0"
