"""The registry: discovery, duplicates, unknown names, wildcards and plugins."""

import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from variants import _registry
from variants._registry import DuplicateNameError, Registry, UnknownNameError
from variants.kernel._base import kernels
from variants.position._base import positions


def test_builtin_modules_are_discovered_without_an_import_list():
    """Every public module of variants/position/ registers its file name (read from the folder, not a list here)."""
    import variants.position

    files = sorted(p.stem for p in Path(variants.position.__file__).parent.glob("*.py") if not p.stem.startswith("_"))
    built_in = sorted(e.name for e in positions.entries() if e.source.startswith("variants.position."))
    assert files == built_in and {"alibi", "rope", "t5_bias"} <= set(files)
    assert {"naive", "sdpa"} <= set(kernels.names())


def test_a_component_outside_the_package_is_keyed_by_its_class_and_shows_its_own_docstring():
    """A plugin module holding two components: neither is keyed by the module's name or shows its docstring."""
    import types

    # a package of their own (not the plugin's), already scanned
    widgets, gadgets = (Registry(kind, package="my_widgets", _discovered=True) for kind in ("widget", "gadget"))
    module = types.ModuleType("my_plugin.components", "The module's docstring, about both.")
    sys.modules[module.__name__] = module
    try:
        exec(
            textwrap.dedent("""
            class KerpleLog:
                \"\"\"A learned log bias.\"\"\"

            class GLUVariant:
                \"\"\"A gated layer.\"\"\"
        """),
            module.__dict__,
        )
        module.KerpleLog.__module__ = module.GLUVariant.__module__ = module.__name__
        widgets.register()(module.KerpleLog)
        assert widgets._entries["kerple_log"].summary == "The module's docstring, about both."  # one so far
        gadgets.register()(module.GLUVariant)
    finally:
        del sys.modules[module.__name__]
    assert widgets.names() == ["kerple_log"] and gadgets.names() == ["glu_variant"]
    assert widgets._entries["kerple_log"].summary == "A learned log bias."
    assert gadgets._entries["glu_variant"].summary == "A gated layer."


def test_a_position_that_overrides_a_hook_takes_no_device_position_unless_it_says_so():
    from variants.position import PositionEncoding

    class IntOffsets(PositionEncoding):
        def score_bias(self, q_len, k_len, q_offset, dtype):
            return None

    class DeviceOffsets(IntOffsets):
        static_positions = True

    assert PositionEncoding.static_positions and not IntOffsets.static_positions and DeviceOffsets.static_positions
    assert IntOffsets(8, 2, 4, 16).static_problem() == "IntOffsets positions do not take a position held on the device"
    built_in = {name: positions.get(name).static_positions for name in positions.names()}
    assert built_in == {
        "alibi": True,
        "learned": True,
        "none": True,
        "randomized": False,
        "rope": True,
        "sinusoidal": True,
        "t5_bias": False,
    }


def test_registering_a_name_twice_raises():
    reg = Registry("widget")
    reg.add("a", object())
    with pytest.raises(DuplicateNameError, match="'a' is registered twice"):
        reg.add("a", object())


def test_unknown_name_suggests_close_matches_and_the_list_command():
    with pytest.raises(UnknownNameError) as info:
        positions.get("alibbi")
    message = str(info.value)
    assert "'alibbi'" in message and "'alibi'" in message and "bench list positions" in message


def test_wildcard_listing():
    assert positions.names("*i*") == ["alibi", "randomized", "sinusoidal", "t5_bias"]


def test_summary_is_the_first_docstring_line():
    summary = next(e.summary for e in positions.entries() if e.name == "alibi")
    assert summary.startswith("ALiBi") and "\n" not in summary


class _FakeEntryPoint:
    def __init__(self, name, loader):
        self.name, self.value, self._loader = name, f"fake:{name}", loader

    def load(self):
        return self._loader()


def test_a_broken_plugin_is_reported_and_does_not_hide_the_others(monkeypatch):
    widgets = Registry("widget")

    def good():
        def register():
            widgets.add("from_plugin", object(), summary="a plugin widget")

        return register

    def broken():
        raise ImportError("no module named 'missing_dep'")

    eps = [_FakeEntryPoint("broken", broken), _FakeEntryPoint("good", good)]
    monkeypatch.setattr(metadata, "entry_points", lambda group: eps if group == _registry.PLUGIN_GROUP else [])
    monkeypatch.setattr(_registry, "_plugins", None)
    statuses = {s.name: s for s in _registry.load_plugins()}
    assert statuses["broken"].error and "missing_dep" in statuses["broken"].error
    assert statuses["good"].error is None
    assert widgets.names() == ["from_plugin"]
    monkeypatch.setattr(_registry, "_plugins", None)


def test_bench_list_reports_a_broken_plugin(monkeypatch):
    from bench.listing import render

    monkeypatch.setattr(_registry, "_plugins", [_registry.PluginStatus("bad", "bad_pkg:register", "ImportError: boom")])
    text = render("all")
    assert "bad" in text and "ImportError: boom" in text
    assert "rope" in text  # the other components are still listed


def test_suites_are_found_by_registration_one_package_each():
    """Every package below suites/ except common registers the suite of its folder's name (suites.add in its suite
    module, imported by its __init__); discovery reads no file names, so no other module of suites/ registers one."""
    from pathlib import Path

    import suites as package
    from harness.contract import suites

    root = Path(package.__file__).parent
    folders = sorted(p.name for p in root.iterdir() if (p / "__init__.py").is_file() and p.name != "common")
    builtin = {e.name: e.source for e in suites.entries() if e.source.startswith("suites.")}
    assert sorted(builtin) == folders
    for name, source in builtin.items():
        assert source.startswith(f"suites.{name}.suite."), (name, source)
