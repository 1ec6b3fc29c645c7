"""The one registry type: built-ins, lazy targets, local registrations, plug-ins via entry points."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.plugin_support import installed_plugin

from kgrag.core.builtins import KINDS, new_registry
from kgrag.core.errors import ConfigError
from kgrag.core.registry import Registry


def test_lazy_target_is_imported_on_first_load() -> None:
    registry: Registry[object] = Registry("thing", {"join": "os.path:join"})
    assert registry.names() == ["join"]
    import os.path

    assert registry.load("join") is os.path.join
    assert registry.create("join", "a", "b") == os.path.join("a", "b")


def test_unknown_name_lists_the_known_ones() -> None:
    registry: Registry[object] = Registry("widget", {"a": "os:getcwd", "b": "os:getpid"})
    with pytest.raises(ConfigError, match=r"unknown widget 'c'; available: a, b"):
        registry.load("c")
    with pytest.raises(ValueError, match=r"shop\.widget: unknown widget 'c'"):
        registry.check("c", "shop.widget")


def test_bad_targets_are_config_errors() -> None:
    registry: Registry[object] = Registry(
        "thing", {"nomod": "no_such_module_xyz:f", "noattr": "os:no_such_attr", "bad": "no-colon"}
    )
    with pytest.raises(ConfigError, match="cannot import 'no_such_module_xyz'"):
        registry.load("nomod")
    with pytest.raises(ConfigError, match="has no attribute 'no_such_attr'"):
        registry.load("noattr")
    with pytest.raises(ConfigError, match="not of the form"):
        registry.load("bad")


def test_local_registration_stays_on_its_instance() -> None:
    first = new_registry("pipeline")
    first.register("mine", lambda: "x", summary="a local one")
    assert "mine" in first and first.entry("mine").origin == "local"
    assert "mine" not in new_registry("pipeline")
    with pytest.raises(ConfigError, match="already registered"):
        first.register("mine", lambda: "y")
    first.register("mine", lambda: "y", replace=True)
    assert first.create("mine") == "y"


def test_every_builtin_target_resolves() -> None:
    """A typo in the built-in table must fail here, not in a user's run."""
    for kind, spec in KINDS.items():
        registry = new_registry(kind)
        for name in spec.builtins:
            assert registry.load(name) is not None, f"{kind}:{name}"


def test_plugin_entry_point_is_found_and_cannot_shadow_a_builtin(tmp_path: Path) -> None:
    source = "def make():\n    return 'from plugin'\n"
    points = {"kgrag.loaders": {".toy": "toy_registry_plugin:make", ".txt": "toy_registry_plugin:make"}}
    with installed_plugin(tmp_path / "site", "toy_registry_plugin", source, points):
        loaders = new_registry("loader")
        assert ".toy" in loaders
        assert loaders.entry(".toy").origin == "plugin:toy_registry_plugin"
        assert loaders.create(".toy") == "from plugin"
        assert loaders.entry(".txt").origin == "builtin"
    assert ".toy" not in new_registry("loader")


def test_a_registry_travels_pickled_with_what_was_registered_on_it() -> None:
    """A Ray worker gets the workspace's loaders and embedders this way: its local entries, not the lock
    nor what the sender had imported already."""
    import os.path
    import pickle

    registry: Registry[object] = Registry("thing", {"join": "os.path:join"})
    registry.register("split", os.path.split)
    registry.load("join")
    copy = pickle.loads(pickle.dumps(registry))
    assert copy.names() == ["join", "split"] and copy.entry("split").origin == "local"
    assert copy.create("split", "a/b") == ("a", "b") and copy.load("join") is os.path.join
    copy.register("base", os.path.basename)  # the copy has a lock of its own
    assert "base" not in registry
