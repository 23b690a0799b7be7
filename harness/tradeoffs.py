"""The index's quality x cost table: one row per variant design, each cell read from the suite that measures it.

Rows are the designs (harness/design.py) that the quality suites and kv_cache ran; a cell is filled by
the first of its column's suites with a record whose design matches the row on the fields that column
depends on (harness/columns.py), and marks its source with a letter whose footnote gives the suite,
profile, device, dtype and model size. A cell no record fills says "not run" and the command that would.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from harness.columns import Column, Reading, columns
from harness.design import FIELDS, describe, design_of, is_transformer, key
from harness.fill import run_command, variant_for

#: suites whose variants become rows (the attention_cost kernels only fill cells)
ROW_SUITES = ("position_extrapolation", "language_modeling", "kv_cache")


@dataclass
class Table:
    """The table as text (``frame``), the readings behind it, and the footnotes of its sources."""

    frame: pd.DataFrame
    readings: Dict[Tuple[str, str], Reading] = field(default_factory=dict)
    #: footnote letter -> the suite, profile, device and model size of the records behind cells marked [letter]
    sources: Dict[str, str] = field(default_factory=dict)
    #: the command that fills cells marked 'not run [n]' (or why no command can) -> n
    commands: Dict[str, int] = field(default_factory=dict)
    #: suite -> (profile, the variant expressions its not-run cells need)
    fills: Dict[str, Tuple[Optional[str], List[str]]] = field(default_factory=dict)
    columns: Sequence[Column] = ()

    def note(self, fill: Tuple[Optional[str], Optional[str], Optional[str]], why: str, results_dir: Optional[str]) -> str:
        """'not run [n]' for a (suite, expression, profile) fill, numbering each distinct command once."""
        suite, variant, profile = fill
        command = f"`{run_command(suite, [variant], profile, results_dir)}`" if variant else why
        if variant:
            wanted = self.fills.setdefault(suite, (profile, []))[1]
            if variant not in wanted:
                wanted.append(variant)
        number = self.commands.setdefault(command, len(self.commands) + 1)
        return f"not run [{number}]"

    def suite_commands(self, results_dir: Optional[str] = None) -> List[str]:
        """One `bench run` per suite that fills all of its not-run cells."""
        return [f"`{run_command(s, variants, profile, results_dir)}`" for s, (profile, variants) in self.fills.items()]


def _with_designs(frame: pd.DataFrame) -> pd.DataFrame:
    """The Transformer records of a group, each with its design dict."""
    rows = frame[frame.spec.apply(is_transformer)].copy()
    rows["design"] = rows.spec.apply(design_of)
    return rows


def _rows(frames: Mapping[str, pd.DataFrame]) -> List[Tuple[dict, List[str]]]:
    """(design, the variants it ran under) for each design the row suites ran, in their order."""
    found: Dict[tuple, Tuple[dict, List[str]]] = {}
    for suite in ROW_SUITES:
        frame = frames.get(suite)
        if frame is None:
            continue
        for variant, design in frame.drop_duplicates("variant")[["variant", "design"]].itertuples(index=False):
            entry = found.setdefault(key(design), (design, []))
            if variant not in entry[1]:
                entry[1].append(variant)
    return list(found.values())


def source_note(suite: str, frame: pd.DataFrame) -> str:
    """'position_extrapolation: profile standard, cpu (AMD EPYC), float32, 4 layers x d_model 128, L = 64 chars of ...'."""
    ok = frame[frame.status == "ok"]
    first = (ok if len(ok) else frame).iloc[0]
    spec, settings = first.spec, first.profile_settings or {}
    parts = [f"profile `{first.profile}`", f"{first.device} ({first.get('device_name', '?')})", str(first.get("dtype"))]
    if isinstance(spec, dict) and "n_layers" in spec:
        layers = f"{spec['n_layers']} layer" + ("" if spec["n_layers"] == 1 else "s")
        parts.append(f"{layers} x d_model {spec['d_model']}, {spec['n_heads']} heads")
    if "train_len" in settings:
        corpus = first.get("corpus")
        parts.append(f"L = {settings['train_len']} characters" + (f" of {corpus}" if isinstance(corpus, str) else ""))
    if "batch" in settings:
        parts.append(f"batch {settings['batch']}")
    seeds = sorted(int(s) for s in frame.seed.dropna().unique())
    parts.append(f"seeds {seeds}")
    return f"{suite}: " + ", ".join(parts)


def build(groups: Mapping[str, pd.DataFrame], profile_for: Callable[[str], Optional[str]] = lambda s: None,
          results_dir: Optional[str] = None) -> Table:
    """The table from one group of records per suite (suite -> records); ``profile_for`` names the profile of commands."""
    frames = {s: _with_designs(f) for s, f in groups.items() if s in ROW_SUITES + ("attention_cost",)}
    cols = columns(frames.get("kv_cache"))
    table = Table(pd.DataFrame(), columns=cols)
    rows = []
    for design, variants in _rows(frames):
        label = " = ".join(variants)
        row = {"variant": label, "design": describe(design)}
        for col in cols:
            row[col.title] = _cell(table, col, design, label, frames) or table.note(
                fill(col, design, variants, profile_for), f"no {' or '.join(col.suites)} variant expression has this design",
                results_dir)
        rows.append(row)
    table.frame = pd.DataFrame(rows, columns=["variant", "design"] + [c.title for c in cols])
    return table


def _cell(table: Table, col: Column, design: dict, label: str, frames) -> Optional[str]:
    """The first measured reading of the column's suites for records matching the row, with its source letter.

    A matching record that measured nothing (skipped, unsupported, failed) gives its status when no other
    record has a value; None when no record matches at all.
    """
    wanted = key(design, col.fields)
    status = None
    for suite in col.suites:
        frame = frames.get(suite)
        if frame is None:
            continue
        match = frame[frame.design.apply(lambda d: key(d, col.fields) == wanted)]
        for variant in dict.fromkeys(match.variant):
            reading = col.read(match[match.variant == variant], match.iloc[0])
            if reading is None:
                continue
            text = f"{reading.text} [{_letter(table, suite, frame)}]"
            if not reading.values:
                status = status or text
                continue
            table.readings[(label, col.key)] = replace(reading, suite=suite)
            return text
    return status


def _letter(table: Table, suite: str, frame: pd.DataFrame) -> str:
    """The footnote letter of a suite's records, given on first use."""
    letter = next((k for k, v in table.sources.items() if v.startswith(f"{suite}:")), None)
    if letter is None:
        letter = "abcdefghijklmnop"[len(table.sources)]
        table.sources[letter] = source_note(suite, frame)
    return letter


def fill(col: Column, design: dict, variants: List[str], profile_for) -> Tuple[str, Optional[str], Optional[str]]:
    """(suite, variant expression, profile) of the first of the column's suites that can express the design;
    the expression is None when none can."""
    from harness.contract import suites

    for suite in col.suites:
        variant = variant_for(suites.get(suite), design, col.fields, profile_for(suite), variants)
        if variant is not None:
            return suite, variant, profile_for(suite)
    return col.suites[0], None, None


def fields_note(cols: Sequence[Column]) -> List[str]:
    """One line per column: the suites it comes from and the design fields a record must share with the row."""
    out = []
    for col in cols:
        matched = "the whole design" if tuple(col.fields) == FIELDS else (
            "the whole design but the kernel" if set(FIELDS) - set(col.fields) == {"kernel"} else ", ".join(col.fields))
        out.append(f"- {col.title}: from {' or '.join(col.suites)}; a record fills the cell when it matches on {matched}.")
    return out
