"""Figures from probe runs, written into the text of a claim that cites one, so that no number in prose is typed.

A probe is a run kept beside the reference results to answer a question a claim raises (at fan-in initialisation,
does the shape hold?): its records are under ``reference/probes/<name>/<suite>/``, written by
``bench run ... results_dir=reference/probes/<name>``. A claim's text in ``suite.yaml`` cites a figure of it as
``{probe:<name>.<figure>}``; the suite's report module says how each figure is computed (``PROBE_FIGURES``: a dict
"<name>.<figure>" -> a function of a ``Probes`` reader that returns the text), and a report fills each placeholder
from the stored records when it prints the claim. Without the probe's records (a copy installed without
``reference/``) the placeholder reads "(not computed: no records under reference/probes/<name>)".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd

#: where the reference results and the probes are kept (the repository's reference/ folder)
REFERENCE = Path(__file__).resolve().parents[1] / "reference"
#: ``{probe:pe_fan_in.lower_at_L}``: a probe's name, then the figure's
PLACEHOLDER = re.compile(r"\{probe:([A-Za-z0-9_+-]+)\.([A-Za-z0-9_]+)\}")


class MissingProbe(LookupError):
    """No records of a probe (or of the reference run it is compared with) on this machine."""


class Probes:
    """The records of probes and of the reference run, each read once, as frames (one row per record)."""

    def __init__(self, root: Path = REFERENCE) -> None:
        self.root = Path(root)
        self._read: dict[Path, pd.DataFrame] = {}

    def _frame(self, folder: Path, suite: str) -> pd.DataFrame:
        from harness.report import records_frame
        from harness.store import ResultsStore

        if folder not in self._read:
            records = ResultsStore(folder).load(suite) if (folder / suite).is_dir() else []
            if not records:
                raise MissingProbe(f"no records under reference/{folder.relative_to(self.root)}/{suite}")
            self._read[folder] = records_frame(records)
        return self._read[folder]

    def records(self, name: str, suite: str) -> pd.DataFrame:
        """The records of probe ``name`` for ``suite`` (status ok only)."""
        frame = self._frame(self.root / "probes" / name, suite)
        return frame[frame.status == "ok"]

    def reference(self, suite: str, profile: str = "standard") -> pd.DataFrame:
        """The reference run's newest group of ``suite`` at ``profile`` (status ok only), as its report reads it: the
        group a probe is set beside (a store keeps older groups too, which are never mixed in)."""
        from harness.groups import select, split_groups

        group = select(split_groups(self._frame(self.root / "results", suite)), suite, {"profile": profile})
        return group.frame[group.frame.status == "ok"]


Figure = Callable[[Probes], str]


@functools.cache
def _shared() -> Probes:
    """The reader of the repository's reference/ folder, one per process: a report filling several claims reads each
    probe's records (and the reference group beside them) once."""
    return Probes()


def cited(text: str) -> list[tuple[str, str]]:
    """The (probe, figure) pairs ``text`` cites, in order."""
    return PLACEHOLDER.findall(text)


def fill(text: str, figures: Mapping[str, Figure], probes: Probes | None = None) -> str:
    """``text`` with every ``{probe:<name>.<figure>}`` replaced by that figure computed from the stored records."""
    if "{probe:" not in text:
        return text
    probes = probes or _shared()

    def figure(match: re.Match) -> str:
        name, which = match.groups()
        compute = figures.get(f"{name}.{which}")
        if compute is None:
            raise KeyError(f"no PROBE_FIGURES entry '{name}.{which}' for the claim text citing it")
        try:
            return compute(probes)
        except MissingProbe as exc:
            return f"(not computed: {exc})"

    return PLACEHOLDER.sub(figure, text)
