"""``[[consolidation.blocks]]``: read from TOML and the environment, refused with the key
named when a block is malformed, named twice or takes the built-in name."""

from __future__ import annotations

from pathlib import Path

import pytest

from daemon.config import BlockSpec, ConfigError, config_from_mapping, load_config


def test_blocks_are_read_from_toml_and_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "memoryd.toml"
    path.write_text(
        '[[consolidation.blocks]]\nname = "plans"\npurpose = "the week ahead"\nmax_chars = 500\n'
    )
    config = load_config(path, env={})
    assert config.consolidation.blocks == (BlockSpec("plans", "the week ahead", 500),)
    assert config.to_dict()["consolidation"]["blocks"] == [
        {"name": "plans", "purpose": "the week ahead", "max_chars": 500}
    ]
    env = {"MEMORYD_CONSOLIDATION__BLOCKS": '[{"name": "a", "purpose": "b", "max_chars": 9}]'}
    assert config_from_mapping({}, env=env).consolidation.blocks == (BlockSpec("a", "b", 9),)
    assert config_from_mapping({}, env={}).consolidation.blocks == ()


@pytest.mark.parametrize(
    ("blocks", "said"),
    [
        ([{"name": "a", "purpose": "p", "max_chars": 0}], "max_chars 0"),
        ([{"name": "a", "purpose": "p", "max_chars": -5}], "max_chars -5"),
        ([{"name": "a", "purpose": "p", "max_chars": "big"}], "max_chars must be an integer"),
        (
            [{"name": "a", "purpose": "p", "max_chars": 5}] * 2,
            "name 'a' is used twice",
        ),
        ([{"name": "learned_context", "purpose": "p", "max_chars": 5}], "built in"),
        ([{"name": "Bad Name", "purpose": "p", "max_chars": 5}], "must match"),
        ([{"name": "a", "purpose": " ", "max_chars": 5}], "purpose"),
        ([{"name": "a", "purpose": "p", "max_chars": 5, "size": 1}], "unknown key 'size'"),
        ({"name": "a"}, "a list of tables"),
    ],
)
def test_a_bad_block_is_refused_naming_the_key(blocks: object, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_mapping({"consolidation": {"blocks": blocks}}, env={})
    [error] = caught.value.errors
    assert error.startswith("consolidation.blocks: ")
    assert said in error
