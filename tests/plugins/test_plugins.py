"""Plugin discovery: hook implementations register factories by kind and name; the typed
accessors check what they build; config names are validated against what is registered."""

from __future__ import annotations

import importlib.metadata
import re
import sys
import types
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from daemon.config import ConfigError, config_from_mapping
from daemon.consolidation.service import TIER_AGENTS
from plugins import hookspecs
from plugins.embedders.base import Vectors
from plugins.hookspecs import hookimpl
from plugins.registry import (
    BUILTIN_PLUGINS,
    PluginNotFound,
    PluginTypeError,
    Register,
    build_plugins,
    default_plugins,
)
from tests.paths import REPO_ROOT

DOCS = REPO_ROOT / "docs" / "plugins.md"


class _Ones:
    """A tiny embedder: every text is the same unit vector."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = dict(config)

    @property
    def embedder_id(self) -> str:
        return "ones/4"

    @property
    def dim(self) -> int:
        return 4

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return np.full((len(texts), 4), 0.5, dtype=np.float32)


class _NotAnEmbedder:
    def __init__(self, config: Mapping[str, Any]) -> None:
        pass


@pytest.fixture
def plugin_module() -> Iterator[str]:
    module = types.ModuleType("memoryd_test_plugin")

    @hookimpl
    def register_embedders(register: Register) -> None:
        register("ones", _Ones)
        register("broken", _NotAnEmbedder)

    module.register_embedders = register_embedders  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    yield module.__name__
    del sys.modules[module.__name__]


def test_registered_factory_builds_with_config(plugin_module: str) -> None:
    plugins = build_plugins(entry_points=False, extra_modules=[plugin_module])
    assert "ones" in plugins.names("embedder")
    built = plugins.embedder("ones", {"dim": 8})
    assert isinstance(built, _Ones)
    assert built.config == {"dim": 8}


def test_unknown_plugin_names_the_known_ones(plugin_module: str) -> None:
    plugins = build_plugins(entry_points=False, extra_modules=[plugin_module])
    with pytest.raises(PluginNotFound, match=r"known: broken, hashed, minilm, ones"):
        plugins.embedder("nope")


def test_a_factory_that_builds_the_wrong_thing_is_refused(plugin_module: str) -> None:
    plugins = build_plugins(entry_points=False, extra_modules=[plugin_module])
    with pytest.raises(PluginTypeError, match="'broken' built a _NotAnEmbedder"):
        plugins.embedder("broken")


def test_two_plugins_with_one_name_are_refused(plugin_module: str) -> None:
    plugins = build_plugins(entry_points=False)
    with pytest.raises(ValueError, match="two embedder plugins are named 'hashed'"):
        plugins.add("embedder", "hashed", _Ones)


def test_builtins_come_from_one_list_and_are_not_entry_points() -> None:
    plugins = build_plugins(entry_points=False)
    assert plugins.manager is not None
    assert sorted(plugins.manager.list_name_plugin()) == sorted(
        (name, sys.modules[name]) for name in BUILTIN_PLUGINS
    )
    ours = [
        ep
        for dist in importlib.metadata.distributions()
        if dist.metadata["Name"] == "memoryd"
        for ep in dist.entry_points
        if ep.group == hookspecs.PROJECT
    ]
    assert ours == []


class _FakeDistribution:
    """An installed distribution that declares one ``memoryd`` entry point."""

    def __init__(self, module: str) -> None:
        self.entry_points = [
            importlib.metadata.EntryPoint(name="ones", value=module, group=hookspecs.PROJECT)
        ]
        self.metadata = {"name": "memoryd-ones", "Name": "memoryd-ones", "version": "1.0"}


def test_third_party_plugins_load_from_entry_points(
    plugin_module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        importlib.metadata, "distributions", lambda: [_FakeDistribution(plugin_module)]
    )
    plugins = build_plugins()
    assert "ones" in plugins.names("embedder")
    config = config_from_mapping({"recall": {"embedder": "ones"}}, env={}, plugins=plugins)
    assert config.recall.embedder == "ones"
    assert build_plugins(entry_points=False).names("embedder") == ["hashed", "minilm"]


def test_the_default_manager_is_built_once() -> None:
    assert default_plugins() is default_plugins()


def test_config_names_are_checked_against_the_registered_plugins() -> None:
    raw = {
        "recall": {"embedder": "bert"},
        "llm": {"provider": "cohere", "model": "m"},
        "retrospective": {"extractor": "spacy"},
        "consolidation": {"agents": ["linker", "critic"]},
    }
    with pytest.raises(ConfigError) as caught:
        config_from_mapping(raw, env={}, plugins=build_plugins(entry_points=False))
    assert caught.value.errors == [
        "recall.embedder: 'bert' is not one of the registered embedder plugins: hashed, minilm",
        "llm.provider: 'cohere' is not one of the registered llm provider plugins: "
        "none, anthropic, openai",
        "retrospective.extractor: 'spacy' is not one of the registered extractor plugins: "
        "offline-extractor",
        "consolidation.agents: 'critic' is not one of the registered agent plugins: "
        "health, linker, replay, separator, split, transfer",
    ]


def test_agents_are_a_list_of_names_from_toml_or_the_environment() -> None:
    assert config_from_mapping({}, env={}).consolidation.agents is None
    raw = {"consolidation": {"agents": ["health", "linker"]}}
    assert config_from_mapping(raw, env={}).consolidation.agents == ("health", "linker")
    env = {"MEMORYD_CONSOLIDATION__AGENTS": "replay, transfer"}
    assert config_from_mapping({}, env=env).consolidation.agents == ("replay", "transfer")
    none: dict[str, object] = {"consolidation": {"agents": []}}
    assert config_from_mapping(none, env={}).consolidation.agents == ()
    with pytest.raises(ConfigError, match=r"consolidation\.agents: names a plugin twice"):
        config_from_mapping({"consolidation": {"agents": ["linker", "linker"]}}, env={})
    with pytest.raises(ConfigError, match=r"consolidation\.agents: must be a list of names"):
        config_from_mapping({"consolidation": {"agents": "linker"}}, env={})


def test_every_tier_agent_is_registered() -> None:
    plugins = build_plugins(entry_points=False)
    for names in TIER_AGENTS.values():
        for name in names:
            assert plugins.agent(name).name == name


def _hook_names() -> list[str]:
    return sorted(
        name
        for name in dir(hookspecs)
        if name.startswith("register_") and hasattr(getattr(hookspecs, name), "memoryd_spec")
    )


def test_every_hook_is_documented() -> None:
    # As datasette does: a hook added to hookspecs.py without a section in the docs fails.
    documented = set(re.findall(r"^## `?(\w+)", DOCS.read_text(encoding="utf-8"), re.M))
    hooks = _hook_names()
    assert len(hooks) == 5
    assert [hook for hook in hooks if hook not in documented] == []
