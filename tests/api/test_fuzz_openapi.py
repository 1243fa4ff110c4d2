"""A bounded fuzz run of every operation in the OpenAPI document the daemon serves.

Schemathesis reads ``GET /v1/openapi.json`` from a running daemon (so a new route is fuzzed as
soon as it is documented, and ``tests/api/test_api_openapi.py`` keeps every route documented) and
sends each operation a fixed number of generated requests, valid and invalid, from a fixed
seed. Every answer must be below 500, JSON where the document says JSON, and match the
documented schema for its status. Streams are left out: an SSE response never ends (its bad
inputs are tested in ``tests/api/test_api_bad_input.py``).
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)

from tests.api_fixtures import make_config, running

EXAMPLES_PER_MODE = int(os.environ.get("MEMORYD_FUZZ_EXAMPLES", "40"))
"""Requests per operation and generation mode (valid, invalid): at 40, about 2,300 in all, 45 s.
``MEMORYD_FUZZ_EXAMPLES`` raises it for a long run (``docs/performance.md``)."""
SEED = 23


def fuzz_operations(base_url: str, token: str) -> tuple[Counter[int], list[str]]:
    """Fuzz every documented operation; return the status counts and the failures."""
    headers = {"Authorization": f"Bearer {token}"}
    session = requests.Session()
    document = session.get(f"{base_url}/v1/openapi.json", headers=headers, timeout=30)
    schema = schemathesis.openapi.from_dict(document.json())
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), f"the document does not parse: {result}"
        operation = result.ok()
        responses: dict[str, Any] = operation.definition.raw.get("responses", {})
        success: dict[str, Any] = next(iter(responses.values()), {})
        if "text/event-stream" in success.get("content", {}):
            continue
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @settings(
                max_examples=EXAMPLES_PER_MODE,
                derandomize=True,
                deadline=None,
                database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case: Any) -> None:
                response = case.call(base_url=base_url, session=session, headers=headers)
                statuses[response.status_code] += 1
                try:
                    case.validate_response(
                        response,
                        checks=[
                            not_a_server_error,
                            content_type_conformance,
                            response_schema_conformance,
                        ],
                        headers=headers,
                    )
                except AssertionError as exc:
                    failures.append(f"{case.operation.label}: {exc}"[:2000])

            try:
                run()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # nothing to get wrong (no inputs)
    return statuses, failures


@pytest.mark.slow
async def test_fuzz_every_documented_operation(tmp_path: Path) -> None:
    config = make_config(
        tmp_path,
        **{
            "server.http": "127.0.0.1:0",
            "server.projector": "inline",
            "retrospective.enabled": True,
        },
    )
    async with running(config) as (_server, lines):
        url = next(
            w for line in lines for w in line.replace(",", " ").split() if w.startswith("http://")
        )
        token = (config.storage.data_dir / "api-token").read_text().strip()
        statuses, failures = await asyncio.to_thread(fuzz_operations, url, token)
    total = sum(statuses.values())
    server_errors = sum(n for status, n in statuses.items() if status >= 500)
    print(f"fuzz: {total} requests, {server_errors} answered 5xx, statuses {dict(statuses)}")
    assert total > 500
    assert not failures, "\n\n".join(failures[:10])
    assert server_errors == 0
