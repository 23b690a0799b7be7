"""A suite's declarations, read from the ``suite.yaml`` beside its module: profiles, metrics and published claims.

The Python module says how a suite runs; its YAML file holds what is data: the profiles a run chooses from
(``profile=NAME``), the metrics its jobs record and the published findings its report tests. A researcher
adds a profile or corrects a quoted figure there without touching code::

    profiles:              # each entry sets only what differs from the profile class's defaults
      standard:
        description: 4 layers, d 128, ...
        seeds: [0, 1, 2]
        steps: 500
    metrics:               # name: unit, whether higher is better, meaning; or ``common`` for a shared one
      loss: {unit: nats/char, higher_is_better: false, description: held-out cross-entropy per character}
      perplexity: common
    claims:                # key: what was found, by whom, the published figure, the variants that test it
      gqa_keeps_mha_quality: {name: ..., source: ..., published: ..., variants: [baseline, gqa2, mqa]}

Profile values are converted exactly as ``set.FIELD=value`` on the command line is (harness/overrides.py), so a
profile read from YAML is the same object, and gives the same job hashes, as one written in Python. A
mistake in the file is a UsageError naming the file, the entry and the valid choices.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from omegaconf import OmegaConf

from harness.errors import UsageError
from harness.profile import Metric, Profile

P = TypeVar("P", bound=Profile)

FILE_NAME = "suite.yaml"
SECTIONS = ("profiles", "metrics", "claims")
#: a metric entry that names this takes the metric of the same name from the shared table the suite passes
SHARED = "common"


class SuiteFile:
    """The parsed ``suite.yaml`` beside a suite's module: ``SuiteFile.of(__file__)`` from any module of the suite."""

    @staticmethod
    def of(module_file: str | Path) -> SuiteFile:
        """The file beside ``module_file``, read once however many of the suite's modules ask for it."""
        return _read(str(Path(module_file).resolve().with_name(FILE_NAME)))

    def __init__(self, module_file: str | Path) -> None:
        self.path = Path(module_file).with_name(FILE_NAME)  # beside a module, or the file itself
        self.suite = self.path.parent.name
        if not self.path.is_file():
            raise UsageError(f"{self.path} is missing: suite {self.suite} declares its profiles and metrics there.")
        data = OmegaConf.to_container(OmegaConf.load(self.path), resolve=False) or {}
        unknown = [key for key in data if key not in SECTIONS]
        if unknown:
            raise UsageError(f"{self.path}: unknown section {unknown[0]!r}; the sections are {', '.join(SECTIONS)}.")
        self._data: dict[str, dict[str, Any]] = {key: data.get(key) or {} for key in SECTIONS}

    def profiles(self, cls: type[P]) -> dict[str, P]:
        """name -> ``cls`` with that entry's values; a value not given keeps the class's default."""
        from harness.overrides import apply_overrides

        out: dict[str, P] = {}
        for name, entry in self._data["profiles"].items():
            entry = dict(entry or {})
            description = entry.pop("description", "")
            try:
                out[name] = apply_overrides(cls(name=name, description=description), entry)
            except UsageError as exc:
                raise UsageError(f"{self.path}, profile {name}: {exc}") from None
        if not out:
            raise UsageError(f"{self.path} declares no profile; add one under 'profiles:'.")
        return out

    def metrics(self, shared: Mapping[str, Metric] | None = None) -> tuple[Metric, ...]:
        """The metrics in the file's order; an entry ``common`` takes the shared metric of that name."""
        shared = shared or {}
        out = []
        fields = [f.name for f in dataclasses.fields(Metric) if f.name != "name"]
        for name, entry in self._data["metrics"].items():
            if entry == SHARED:
                if name not in shared:
                    raise UsageError(
                        f"{self.path}: metric {name} is marked {SHARED!r} but no shared metric has that name; "
                        f"shared metrics: {', '.join(shared) or 'none'}."
                    )
                out.append(shared[name])
                continue
            if (
                not isinstance(entry, dict)
                or set(entry) - set(fields)
                or "unit" not in entry
                or "higher_is_better" not in entry
            ):
                raise UsageError(
                    f"{self.path}: metric {name} must be {SHARED!r} or a mapping of {', '.join(fields)} "
                    f"(unit and higher_is_better required); got {entry!r}."
                )
            out.append(Metric(name, **entry))
        return tuple(out)

    def claims(self, *keys: str) -> tuple[Any, ...]:
        """The Claims (harness/findings.py) of these keys, in the order asked; with none, all in the file's order."""
        from harness.findings import Claim

        fields = [f.name for f in dataclasses.fields(Claim) if f.name not in ("key", "suite")]
        declared = self._data["claims"]
        for key in keys:
            if key not in declared:
                raise UsageError(f"{self.path} has no claim {key}; its claims: {', '.join(declared) or 'none'}.")
        out = []
        for key in keys or tuple(declared):
            entry = declared[key]
            if not isinstance(entry, dict) or set(entry) - set(fields):
                raise UsageError(f"{self.path}: claim {key} must be a mapping of {', '.join(fields)}; got {entry!r}.")
            out.append(Claim(key, self.suite, **{**entry, "variants": tuple(entry.get("variants") or ())}))
        return tuple(out)


@functools.cache
def _read(path: str) -> SuiteFile:
    return SuiteFile(path)
