"""The index's quality x cost table: one row per trained model, its quality and its cost from the same jobs.

A row is one measured configuration: the records of one suite's group that share a resolved spec (and so the
model size, the data and the training) and came from the jobs that trained and scored that model, where each
job also measured what the model costs (suites/common/model_cost.py). Nothing is joined across suites or
sizes: two variants that train the same weights but evaluate them differently (the RoPE extensions on the rope
weights) are two specs and two rows; only names of one spec (``baseline`` and ``rope``) are one row, shown under
the first name typed, with the others in a footnote. A cell whose job did not measure it (records of an older
suite version) says "not run" and gives the command that measures it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from bench.index.columns import Column, Reading, columns
from bench.index.design import describe, design_of, grouping
from bench.index.fill import run_command

#: the suites whose jobs train a model and measure its quality and cost together
ROW_SUITES = ("position_extrapolation", "language_modeling")
#: the size fields of a spec (written in each row's model column)
SIZE = ("n_layers", "d_model", "n_heads", "max_len", "vocab_size")


@dataclass
class Row:
    """One trained model: the suite, the names it was run under (the first is shown), its spec and its readings."""

    suite: str
    names: list[str]
    spec: dict
    records: pd.DataFrame
    readings: dict[str, Reading] = field(default_factory=dict)
    #: why the model is flagged (did not learn, memorised), or ''
    flag: str = ""

    @property
    def label(self) -> str:
        return self.names[0]


@dataclass
class Table:
    """The table as text (``frame``), its rows with their readings, footnotes and the commands that fill its gaps."""

    frame: pd.DataFrame
    rows: list[Row] = field(default_factory=list)
    #: the command that fills cells marked 'not run [n]' -> n
    commands: dict[str, int] = field(default_factory=dict)
    #: suite -> (profile, the variant expressions its not-run cells need)
    fills: dict[str, tuple[str | None, list[str]]] = field(default_factory=dict)
    #: suite -> its records' profile, device, dtype and model size
    sources: dict[str, str] = field(default_factory=dict)
    #: lines under the table: aliases shown once
    footnotes: list[str] = field(default_factory=list)
    columns: Sequence[Column] = ()

    def note(self, suite: str, variant: str, profile: str | None, results_dir: str | None) -> str:
        """'not run [n]' for a cell of ``variant`` in ``suite``, numbering each distinct command once."""
        command = f"`{run_command(suite, [variant], profile, results_dir)}`"
        wanted = self.fills.setdefault(suite, (profile, []))[1]
        if variant not in wanted:
            wanted.append(variant)
        number = self.commands.setdefault(command, len(self.commands) + 1)
        return f"not run [{number}]"

    def suite_commands(self, results_dir: str | None = None) -> list[str]:
        """One `bench run` per suite that fills all of its not-run cells."""
        return [f"`{run_command(s, variants, profile, results_dir)}`" for s, (profile, variants) in self.fills.items()]


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _names(frame: pd.DataFrame) -> list[str]:
    """The names a model's records were run under, in the order they first appear (``variant``, then ``names``)."""
    out: list[str] = []
    for r in frame.itertuples():
        for name in [r.variant] + list(
            getattr(r, "names", None) if isinstance(getattr(r, "names", None), list) else []
        ):
            if name not in out:
                out.append(name)
    return out


def models(suite: str, frame: pd.DataFrame) -> list[Row]:
    """One Row per trained model in a suite's group: records sharing the resolved spec and the data, in run order.

    Records of different model sizes (or any other spec field, or data) are never one row, whatever their names."""
    if not len(frame):
        return []
    specs = frame.spec.apply(lambda s: _canonical(s) if isinstance(s, dict) else None)
    data = frame.data_checksum.astype(str) if "data_checksum" in frame else pd.Series("", index=frame.index)
    keyed = frame.assign(_model=specs + "|" + data)
    keyed = keyed[specs.notna()]
    rows = []
    for _, part in keyed.groupby("_model", sort=False):
        part = part.drop(columns=["_model"])
        rows.append(Row(suite, _names(part), part.iloc[0].spec, part))
    return rows


def size(spec: Mapping) -> str:
    """'4 x d96, 12 heads, L 32' from a spec's size fields (no L for a recurrence, which has no length limit)."""
    limit = f", L {spec['max_len']}" if spec.get("max_len") is not None else ""
    return f"{spec.get('n_layers')} x d{spec.get('d_model')}, {spec.get('n_heads')} heads{limit}"


def confound(row: Row) -> str:
    """What a reader must know to compare this row's cost: the budget choice, the kernel, the evaluation."""
    spec = row.spec
    notes = []
    group = grouping(spec)
    if group != "MHA":
        if spec.get("d_ff") is not None:
            notes.append(f"{group}, d_ff widened to {spec['d_ff']} to match MHA's parameters")
        else:
            notes.append(f"{group} at the default d_ff: fewer parameters than MHA")
    kernel = spec.get("kernel")
    if kernel and kernel != "sdpa":
        notes.append(f"runs the {kernel} kernel: its latencies are that kernel's, not its scoring's")
    if spec.get("rope_scaling"):
        notes.append(f"the rope weights, {spec['rope_scaling']} applied at evaluation (s = length / L), at 8L too")
    if spec.get("warmup_fraction"):
        notes.append(f"its own warm-up ({spec['warmup_fraction']:.0%} of the steps)")
    if row.flag:
        notes.append(row.flag)
    return "; ".join(notes)


def _flags(suite: str, frame: pd.DataFrame) -> dict[str, str]:
    """Variant -> why the suite flags its model (did not learn, memorised), from the suite itself."""
    from harness.contract import suites

    try:
        flags = getattr(suites.get(suite), "learning_flags", None)
    except Exception:  # an unknown suite name in made-up records: nothing to flag
        return {}
    return flags(frame) if flags is not None else {}


def source_note(suite: str, frame: pd.DataFrame) -> str:
    """'profile `quick`, cpu (AMD EPYC), float32, pydoc_data.topics, seeds [0, 1, 2]'."""
    ok = frame[frame.status == "ok"]
    first = (ok if len(ok) else frame).iloc[0]
    corpus = first.get("corpus")
    names = ok.device_name.dropna().unique() if "device_name" in ok else []
    machine = (
        f"{first.device} ({first.get('device_name', '?')})"
        if len(names) <= 1
        else f"{first.device} ({len(names)} processors: "
        + ", ".join(f"{name}, {ok[ok.device_name == name].job_hash.nunique()} jobs" for name in names)
        + "; their timings are of different machines)"
    )
    parts = [f"profile `{first.profile}`", machine, str(first.get("dtype"))]
    if isinstance(corpus, str):
        parts.append(corpus)
    seeds = sorted(int(s) for s in frame.seed.dropna().unique())
    parts.append(f"seeds {seeds}")
    return ", ".join(parts)


def build(
    groups: Mapping[str, pd.DataFrame],
    profile_for: Callable[[str], str | None] = lambda s: None,
    results_dir: str | None = None,
) -> Table:
    """The table from one group of records per suite (suite -> records); ``profile_for`` names the profile of commands."""
    cols = columns()
    table = Table(pd.DataFrame(), columns=cols)
    lines = []
    for suite in ROW_SUITES:
        frame = groups.get(suite)
        if frame is None or not len(frame):
            continue
        table.sources[suite] = source_note(suite, frame)
        flags = _flags(suite, frame)
        for row in models(suite, frame):
            row.flag = next((f"flagged: {flags[n]}" for n in row.names if n in flags), "")
            first = row.records.iloc[0]
            line = {"suite": suite, "model": row.label, "size": size(row.spec), "design": describe(design_of(row.spec))}
            for col in cols:
                if suite not in col.suites:
                    line[col.title] = "-"
                    continue
                reading = col.read(row.records, first)
                if reading is None:
                    line[col.title] = table.note(suite, row.label, profile_for(suite), results_dir)
                    continue
                if reading.values and not reading.contended:  # a contended timing is shown, never ranked
                    row.readings[col.key] = reading
                line[col.title] = reading.text
            line["what to know"] = confound(row)
            if len(row.names) > 1:
                table.footnotes.append(
                    f"`{row.label}` ({suite}) is also run as "
                    + ", ".join(f"`{n}`" for n in row.names[1:])
                    + ": one spec, one model."
                )
            table.rows.append(row)
            lines.append(line)
    titles = ["suite", "model", "size", "design"] + [c.title for c in cols] + ["what to know"]
    table.frame = pd.DataFrame(lines, columns=titles)
    return table


#: the table's two views on the index page (at most 8 columns each): quality with the training budget, then inference
QUALITY_VIEW = (
    "suite",
    "model",
    "ppl at L",
    "ppl at 8L",
    "parameters",
    "training FLOPs/token",
    "training tokens/s",
    "what to know",
)
COST_VIEW = (
    "suite",
    "model",
    "size",
    "peak training memory (MiB)",
    "KV cache (B/token)",
    "prefill at L (ms)",
    "decode at L (ms/token)",
    "decode at 8L (ms/token)",
)


def views(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(quality and budget, inference cost): the table's rows in two tables of at most 8 columns."""
    return frame[list(QUALITY_VIEW)], frame[list(COST_VIEW)]
