"""How a benchmark prints its result: one JSON line, or aligned ``key: value`` lines."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def print_result(result: Mapping[str, Any], *, as_json: bool, width: int) -> None:
    """Print ``result`` as JSON (``as_json``) or a line per key, right-aligned to ``width``."""
    if as_json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>{width}}: {value}")
