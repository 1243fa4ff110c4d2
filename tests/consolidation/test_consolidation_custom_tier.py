"""``tier = "custom"``: the phases and agents an operator names, checked by config check."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from daemon.api.keys import CONSOLIDATION
from daemon.config import ConfigError, ConsolidationConfig, config_from_mapping
from tests.api_fixtures import api_client


def test_a_custom_tier_is_read() -> None:
    config = config_from_mapping(
        {
            "consolidation": {
                "tier": "custom",
                "custom_phases": ["deep", "light"],
                "custom_agents": ["linker"],
                "daily_calls": 20,
            }
        }
    ).consolidation
    assert (config.custom_phases, config.custom_agents) == (("deep", "light"), ("linker",))


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ({"tier": "custom", "custom_phases": ["light", "dream"]}, r"custom_phases: 'dream'"),
        (
            {"tier": "custom", "custom_phases": ["light"], "custom_agents": ["oracle"]},
            r"custom_agents: 'oracle' is not one of the registered agent plugins",
        ),
        ({"tier": "custom"}, r"custom_phases: required"),
        ({"tier": "custom", "custom_phases": []}, r"custom_phases: required"),
        ({"tier": "full", "custom_phases": ["light"]}, r"custom_phases: set, but .*tier is full"),
        ({"custom_agents": ["linker"]}, r"custom_agents: set, but .*tier is free"),
        ({"tier": "bespoke"}, r"consolidation.tier: 'bespoke'"),
    ],
)
def test_config_check_names_what_is_wrong_with_a_custom_tier(
    table: dict[str, object], says: str
) -> None:
    with pytest.raises(ConfigError, match=says):
        config_from_mapping({"consolidation": table})


async def test_a_custom_tier_runs_its_phases_in_order_with_its_agents(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        service = api.client.app[CONSOLIDATION]
        service.config = ConsolidationConfig(
            tier="custom", custom_phases=("deep", "light"), custom_agents=("linker", "health")
        )
        assert service.agent_names() == ("linker", "health")
        status, run = await api.call("POST", "/v1/consolidation/run", {})
        assert status == 200, run
        assert (run["status"], run["phases"]) == ("completed", ["light", "deep"])
        _, runs = await api.call("GET", "/v1/consolidation/runs")
        assert runs["runs"][0]["tier"] == "custom"
        assert runs["runs"][0]["inputs"]["budget"]["ceiling"] == 0  # no calls until daily_calls
        service.config = dataclasses.replace(service.config, agents=("separator",))
        assert service.agent_names() == ("separator",)
