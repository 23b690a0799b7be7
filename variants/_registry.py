"""Named registries of components, discovered from built-in modules and from plugins.

One small generic class, one instance per kind (positions, kernels, presets, suites, ...). A built-in
component lives in a module whose file name is its registry key (``variants/position/rope.py``
registers ``rope``), or in a package of its own whose ``__init__`` registers it under the folder's name
(``suites/position_extrapolation/``); the package that holds them is scanned on first use, so there is
no hand-kept import list. Third-party packages add components through the entry-point group
``bench.plugins``: each entry point names a module (or a callable) that registers when loaded. A
component registered without a name outside the registry's package (a plugin module that may hold
several) is keyed by its class name in snake_case (``KerpleLog`` -> ``kerple_log``), never by the name of
the module that holds it.

What ``bench list`` shows is the first line of the module's docstring (a built-in module's cites its paper)
while the module registers one component, and each component's own docstring once it registers several
(in any registries).
"""

from __future__ import annotations

import difflib
import fnmatch
import importlib
import pkgutil
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from typing import Generic, TypeVar

from .errors import UserError

T = TypeVar("T")

PLUGIN_GROUP = "bench.plugins"


class UnknownNameError(UserError, KeyError):
    """An unknown registry key; the message names close matches and the command that lists all."""

    def __str__(self) -> str:  # KeyError quotes its message; show it plainly
        return str(self.args[0])


class DuplicateNameError(ValueError):
    """A registry key registered twice."""


@dataclass
class Entry(Generic[T]):
    """One registered component: its key, the object and where it came from."""

    name: str
    obj: T
    summary: str
    source: str
    #: the summary was given to ``add``, not read from a docstring
    given: bool = False


def first_line(doc: str | None) -> str:
    """The first non-empty line of a docstring (what `bench list` shows)."""
    for line in (doc or "").strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def close_matches(name: str, choices: list[str], n: int = 3) -> list[str]:
    """Registry keys that look like ``name`` (for "did you mean" messages)."""
    return difflib.get_close_matches(name, choices, n=n, cutoff=0.5)


#: module -> the entries it registered with a docstring summary, over every registry
_by_module: dict[str, list[Entry]] = {}


@dataclass
class Registry(Generic[T]):
    """A name -> component map for one kind of component.

    ``package`` is the dotted name of the package scanned on first lookup, ``scan`` how: "modules" imports
    every module below it whose name does not start with an underscore (a file per component), "packages"
    imports each package directly below it, whose ``__init__`` registers what it holds, or nothing (a folder
    per component); ``list_command`` is the command a user runs to see every key (quoted in errors).
    """

    kind: str
    package: str | None = None
    list_command: str = "bench list"
    scan: str = "modules"
    _entries: dict[str, Entry[T]] = field(default_factory=dict)
    _discovered: bool = False
    _builtins_loaded: bool = False

    def register(self, name: str | None = None, *, summary: str | None = None) -> Callable[[T], T]:
        """Decorator: register an object under ``name`` (default: the module's file name)."""

        def decorate(obj: T) -> T:
            key = name or self.default_name(obj)
            self.add(key, obj, summary=summary)
            return obj

        return decorate

    def add(self, name: str, obj: T, *, summary: str | None = None) -> None:
        """Register ``obj`` under ``name``; a name registered twice raises DuplicateNameError.

        While a plugin loads, the built-ins of this registry are imported first, so that a plugin taking a
        built-in's name is refused at its load (and rolled back), never the built-in later.
        """
        if _loading is not None and not self._builtins_loaded:
            self._load_builtins()
        plugin_owned = _loading is not None and not _built_in(obj)
        if name in self._entries:
            raise DuplicateNameError(
                f"{self.kind} '{name}' is registered twice "
                f"(first by {self._entries[name].source}, again by {_source_of(obj)})."
            )
        text = summary if summary is not None else first_line(_doc_of(obj))
        self._entries[name] = Entry(name, obj, text, _source_of(obj), given=summary is not None)
        if plugin_owned:
            _loading.append((self, name))
        module = getattr(obj, "__module__", None)
        if module and summary is None:
            siblings = _by_module.setdefault(module, [])
            siblings.append(self._entries[name])
            if len(siblings) > 1:  # the module's docstring describes none of them alone
                for entry in siblings:
                    entry.summary = first_line(_own_doc(entry.obj)) or entry.summary

    def default_name(self, obj: T) -> str:
        """The key of ``obj`` registered without a name: its module's file name inside ``package`` (one file per
        component), else its class name in snake_case (a plugin's module may hold several)."""
        module = getattr(obj, "__module__", "") or ""
        if self.package and module.startswith(self.package + "."):
            return _module_leaf(obj)
        return snake_case(getattr(obj, "__name__", None) or type(obj).__name__)

    def get(self, name: str) -> T:
        """The component registered as ``name``; an unknown name raises UnknownNameError."""
        self.discover()
        if name not in self._entries:
            raise UnknownNameError(self.unknown_message(name))
        return self._entries[name].obj

    def unknown_message(self, name: str) -> str:
        """One sentence naming the bad key, close matches and the command that lists all."""
        matches = close_matches(name, self.names())
        hint = f" Did you mean {' or '.join(repr(m) for m in matches)}?" if matches else ""
        return f"Unknown {self.kind} '{name}'.{hint} Run `{self.list_command}` to see all {len(self.names())}."

    def __contains__(self, name: object) -> bool:
        self.discover()
        return name in self._entries

    def names(self, pattern: str = "*") -> list[str]:
        """Sorted keys, optionally filtered with a shell wildcard (``gqa*``)."""
        self.discover()
        return sorted(n for n in self._entries if fnmatch.fnmatch(n, pattern))

    def entries(self) -> Iterator[Entry[T]]:
        """Every entry in key order."""
        for name in self.names():
            yield self._entries[name]

    def discover(self) -> None:
        """Import the modules or packages of ``package`` once (each registers itself), then the plugins."""
        if self._discovered:
            return
        self._discovered = True
        self._load_builtins()
        load_plugins()

    def _load_builtins(self) -> None:
        """Import the registry's own package once (each module registers its component)."""
        if self._builtins_loaded:
            return
        self._builtins_loaded = True
        if self.package:
            (import_subpackages if self.scan == "packages" else import_submodules)(self.package)

    def _remove(self, name: str) -> None:
        """Take back a registration (of a plugin whose load failed)."""
        entry = self._entries.pop(name, None)
        if entry is not None:
            for siblings in _by_module.values():
                if entry in siblings:
                    siblings.remove(entry)


#: the project's own packages: what their modules register is built in, never a plugin's to take back
BUILT_IN_PACKAGES = ("variants", "suites", "harness")


def _built_in(obj: object) -> bool:
    """Whether the code registering ``obj`` is the project's own: the first caller outside this module (a
    built-in module imported by a plugin's import registers its own component; a plugin's preset is a Preset of
    variants.presets, so the object's module alone would not tell)."""
    import sys

    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    module = (frame.f_globals.get("__name__") if frame is not None else None) or ""
    return module.split(".", 1)[0] in BUILT_IN_PACKAGES


def import_submodules(package: str) -> None:
    """Import every module below ``package`` whose name does not start with an underscore."""
    pkg = importlib.import_module(package)
    for info in pkgutil.walk_packages(pkg.__path__, prefix=package + "."):
        if not info.name.rsplit(".", 1)[-1].startswith("_"):
            importlib.import_module(info.name)


def import_subpackages(package: str) -> None:
    """Import each package directly below ``package`` (its ``__init__`` registers what it holds, if anything)."""
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__, prefix=package + "."):
        if info.ispkg:
            importlib.import_module(info.name)


@dataclass
class PluginStatus:
    """What happened when an entry point of ``bench.plugins`` was loaded."""

    name: str
    target: str
    error: str | None = None


_plugins: list[PluginStatus] | None = None
#: while a plugin loads: the (registry, name) pairs it registered, taken back if its load fails
_loading: list | None = None


def load_plugins() -> list[PluginStatus]:
    """Load every ``bench.plugins`` entry point once; a broken plugin is recorded, not raised.

    Each load runs under a guard: any exception, and ``SystemExit`` (a plugin calling ``sys.exit``), marks the
    plugin broken with one sentence, and whatever it registered before failing is taken back, so the built-ins
    and the other plugins keep working. A plugin that registers a built-in's name fails that way (the registry's
    built-ins are imported before a plugin may add to it).
    """
    global _plugins, _loading
    if _plugins is not None:
        return _plugins
    _plugins = []
    try:
        found = list(metadata.entry_points(group=PLUGIN_GROUP))
    except Exception as exc:  # a damaged installed distribution's metadata
        _plugins.append(
            PluginStatus("?", PLUGIN_GROUP, f"the installed plugins could not be listed ({type(exc).__name__}: {exc})")
        )
        return _plugins
    for ep in found:
        status = PluginStatus(ep.name, ep.value)
        _loading = []
        try:
            loaded = ep.load()
            if callable(loaded) and not isinstance(loaded, type):
                loaded()
        except SystemExit as exc:
            status.error = f"it called sys.exit({exc.code!r}) while loading; it is not loaded"
        except DuplicateNameError as exc:
            status.error = f"{exc} A plugin may not take a built-in's name; it is not loaded"
        except Exception as exc:  # a plugin's failure must not hide the other components
            status.error = f"{type(exc).__name__}: {exc}"
        finally:
            added, _loading = _loading, None
        if status.error:
            for registry, name in reversed(added):
                registry._remove(name)
        _plugins.append(status)
    return _plugins


def plugin_statuses() -> list[PluginStatus]:
    """The outcome of loading each plugin (loads them if not yet done)."""
    return list(load_plugins())


def snake_case(name: str) -> str:
    """``KerpleLog`` -> ``kerple_log``, ``T5Bias`` -> ``t5_bias``, ``GLUVariant`` -> ``glu_variant``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _own_doc(obj: object) -> str | None:
    """The object's own docstring (a class's, not its module's; an instance's is its class's)."""
    return getattr(obj, "__doc__", None)


def _module_leaf(obj: object) -> str:
    module = getattr(obj, "__module__", "") or ""
    return module.rsplit(".", 1)[-1]


def _doc_of(obj: object) -> str | None:
    doc = getattr(obj, "__doc__", None)
    module = importlib.import_module(obj.__module__) if getattr(obj, "__module__", None) else None
    # a component's module docstring (which cites its paper) is the preferred summary
    return (module.__doc__ if module is not None and module.__doc__ else None) or doc


def _source_of(obj: object) -> str:
    module = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", type(obj).__name__)
    return f"{module}.{qual}" if module else qual
