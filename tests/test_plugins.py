"""Plugin discovery: hook implementations register factories by kind and name."""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping
from typing import Any

import pytest

from plugins.hookspecs import hookimpl
from plugins.registry import PluginNotFound, Register, load_plugins


class _Echo:
    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = dict(config)


def _make_plugin_module() -> str:
    module = types.ModuleType("memoryd_test_plugin")

    @hookimpl
    def register_embedders(register: Register) -> None:
        register("echo", _Echo)

    module.register_embedders = register_embedders  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    return module.__name__


def test_registered_factory_builds_with_config() -> None:
    registry = load_plugins(entry_points=False, extra_modules=[_make_plugin_module()])
    assert "echo" in registry.names("embedder")
    built = registry.create("embedder", "echo", {"dim": 8})
    assert isinstance(built, _Echo)
    assert built.config == {"dim": 8}


def test_unknown_plugin_names_the_known_ones() -> None:
    registry = load_plugins(entry_points=False, extra_modules=[_make_plugin_module()])
    with pytest.raises(PluginNotFound, match="echo"):
        registry.create("embedder", "nope")


def test_entry_points_naming_builtin_modules_register_once() -> None:
    # memoryd's own entry points name the built-in modules: loading both must not clash.
    registry = load_plugins(entry_points=True)
    assert "hashed" in registry.names("embedder")
