"""The attention_heads tables: per-head records, specialised heads, entropy trends across layers, and the
sections that show them."""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import fmt_mean_ci, mean_ci, over_seeds, table_section
from harness.report_sections import HEADLINE, Section
from suites.attention_heads import null

#: the order variants are listed in
ORDER = ("none", "sinusoidal", "learned", "rope", "alibi")
#: a head specialises when at least this share of its attention goes to one fixed offset, to delimiters
#: (and at least DELIMITER_FACTOR x what even attention would put there) or to the first token (Clark et al. 2019,
#: section 3.1: heads that put "over 50%" of their attention on the previous or next token)
SPECIALIST = 0.5
#: a delimiter head's share is at least this many times what even attention over the keys would put on delimiters
#: (this project's choice: characters make delimiters common, so 50% alone could be mere even attention)
DELIMITER_FACTOR = 2.0
#: the smallest offset a fixed-offset head may have: 1 is the previous token; offset 0, the query itself, does not count
#: (Clark et al. 2019, section 3.1: "most heads put little attention on the current token", and the specialists they
#: describe attend to the previous or next token; a causal model has no next token)
MIN_OFFSET = 1
#: an entropy trend across layers is systematic when Spearman's rank correlation of layer and head entropy
#: has p below this in every seed, with one sign
TREND_P = 0.05
STAT_COLUMNS = (
    ("entropy", "entropy (nats)", 2),
    ("mean_distance", "mean distance (tokens)", 1),
    ("previous_token_share", "previous token", 2),
    ("first_token_share", "first token", 2),
    ("delimiter_share", "delimiters", 2),
    ("offset_share", "best fixed offset", 2),
)
#: each statistic's interval (harness/intervals.py): shares lie in [0, 1]; an entropy or a distance is at least 0
#: (a head on one key has entropy 0), so its t interval is kept above 0 rather than taken on a log scale
SHARE = ("bounded", (0.0, 1.0))
NON_NEGATIVE = ("bounded", (0.0, math.inf))
KIND = {
    "entropy": NON_NEGATIVE,
    "mean_distance": NON_NEGATIVE,
    "previous_token_share": SHARE,
    "first_token_share": SHARE,
    "delimiter_share": SHARE,
    "offset_share": SHARE,
}


def heads_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The per-head records (ok), with layer, head and offset as columns."""
    rows = df[(df.status == "ok") & df.metric.isin([m for m, _, _ in STAT_COLUMNS])].copy()
    extra = rows["extra"].apply(lambda e: e if isinstance(e, dict) else {})
    rows["layer"] = extra.apply(lambda e: e.get("layer")).astype(int)
    rows["head"] = extra.apply(lambda e: e.get("head")).astype(int)
    rows["offset"] = extra.apply(lambda e: e.get("offset"))
    return rows


def job_values(df: pd.DataFrame, metric: str) -> dict[tuple[str, int], float]:
    """(variant, seed) -> the job's one value of ``metric`` (delimiter_base, uniform_entropy)."""
    rows = df[(df.status == "ok") & (df.metric == metric)]
    return {(r.variant, int(r.seed)): float(r.value) for r in rows.itertuples()}


def _reading(part: pd.DataFrame) -> tuple[int, int]:
    """(windows read, their length) of one job's records: what the shuffled-position null's bound needs (0, 0 when
    the records do not say)."""
    first = part.iloc[0]
    settings = first.get("profile_settings")
    length = settings.get("train_len", 0) if isinstance(settings, dict) else 0
    windows = first.get("eval_windows", 0)
    windows = 0 if windows is None or (isinstance(windows, float) and math.isnan(windows)) else windows
    return int(windows), int(length or 0)


def specialists(heads: pd.DataFrame, base: dict[tuple[str, int], float]) -> pd.DataFrame:
    """Per (variant, seed): how many heads are offset, delimiter and first-token specialists, and which; and the
    shuffled-position null's bound on each share and its count of such heads (null.py)."""
    rows = []
    for (variant, seed), part in heads.groupby(["variant", "seed"]):
        wide = part.pivot_table(index=["layer", "head"], columns="metric", values="value")
        offsets = part[part.metric == "offset_share"].set_index(["layer", "head"]).offset
        even = base.get((variant, int(seed)), 0.0)
        threshold = max(SPECIALIST, DELIMITER_FACTOR * even)
        windows, length = _reading(part)
        offset_bound = null.offset_bound(windows, length, len(wide)) if windows and length else math.inf
        delimiter_bound = null.delimiter_bound(even, windows, length, len(wide)) if windows and length else math.inf
        # a head's best offset is the one with the most attention; shares over all offsets sum to 1, so a head whose
        # best offset is 0 has no other offset at 50% or more, and the best offset alone decides
        share = wide.get("offset_share", pd.Series(dtype=float)).reindex(wide.index).fillna(0)
        best = offsets.reindex(wide.index).fillna(-1)
        offset_heads = wide.index[(share >= SPECIALIST) & (best >= MIN_OFFSET)]
        delimiter_heads = wide.index[
            wide.get("delimiter_share", pd.Series(dtype=float)).reindex(wide.index).fillna(0) >= threshold
        ]
        sink_heads = wide.index[
            wide.get("first_token_share", pd.Series(dtype=float)).reindex(wide.index).fillna(0) >= SPECIALIST
        ]
        rows.append(
            {
                "variant": variant,
                "seed": int(seed),
                "heads": len(wide),
                "offset": len(offset_heads),
                "offsets": sorted(int(offsets.get(i, -1)) for i in offset_heads),
                "offset_names": [f"L{l + 1}H{h + 1} (d={int(offsets.get((l, h), -1))})" for l, h in offset_heads],
                "delimiter": len(delimiter_heads),
                "delimiter_threshold": threshold,
                "delimiter_names": [f"L{l + 1}H{h + 1}" for l, h in delimiter_heads],
                "sink": len(sink_heads),
                "sink_names": [f"L{l + 1}H{h + 1}" for l, h in sink_heads],
                "max_offset_share": float(share[best >= MIN_OFFSET].max()) if (best >= MIN_OFFSET).any() else math.nan,
                "self_heads": int(((share >= SPECIALIST) & (best == 0)).sum()),
                "max_delimiter_share": float(wide["delimiter_share"].max()) if "delimiter_share" in wide else math.nan,
                "offset_bar": SPECIALIST,
                "offset_null_bound": offset_bound,
                "offset_null": null.null_count(offset_bound, SPECIALIST, len(wide)),
                "delimiter_null_bound": delimiter_bound,
                "delimiter_null": null.null_count(delimiter_bound, threshold, len(wide)),
            }
        )
    return pd.DataFrame(rows)


def entropy_trends(heads: pd.DataFrame) -> pd.DataFrame:
    """Per (variant, seed): Spearman's rho of layer against head entropy (over every head), its p-value, and
    the mean entropy of the lowest and the highest layer."""
    from scipy import stats

    rows = []
    for (variant, seed), part in heads[heads.metric == "entropy"].groupby(["variant", "seed"]):
        by_layer = part.groupby("layer").value.mean()
        if part.layer.nunique() < 2:
            rho, p = math.nan, math.nan
        else:
            result = stats.spearmanr(part.layer, part.value)
            rho, p = float(result.statistic), float(result.pvalue)
        half = len(by_layer) // 2  # with an odd count the middle layer joins the upper half
        rows.append(
            {
                "variant": variant,
                "seed": int(seed),
                "rho": rho,
                "p": p,
                "lowest": float(by_layer.iloc[0]),
                "highest": float(by_layer.iloc[-1]),
                "lower_half": float(part[part.layer.isin(by_layer.index[:half])].value.mean()) if half else math.nan,
                "upper_half": float(part[part.layer.isin(by_layer.index[half:])].value.mean()) if half else math.nan,
                "layers": [float(v) for v in by_layer],
            }
        )
    return pd.DataFrame(rows)


def layer_section(heads: pd.DataFrame, variants: list[str]) -> Section:
    """Each statistic per variant and layer, averaged over the layer's heads."""
    rows = []
    for v in variants:
        part = heads[heads.variant == v]
        for layer in sorted(part.layer.unique()):
            row = {"variant": v, "layer": int(layer) + 1}
            for metric, label, digits in STAT_COLUMNS:
                cell = part[(part.layer == layer) & (part.metric == metric)]
                per_seed = cell.groupby("seed").value.mean()  # the layer's mean over heads, per seed
                kind, bounds = KIND[metric]
                row[label] = fmt_mean_ci(per_seed, digits, kind, bounds) if len(per_seed) else "-"
            rows.append(row)
    return table_section(
        "Per layer",
        f"Each statistic averaged over the layer's heads, then {over_seeds(_seeds(heads))}. "
        "Shares are fractions "
        "of a query's attention (0-1); \"best fixed offset\" is the share at each head's most attended offset.",
        rows,
        "No per-head records.",
    )


def _parts(table: pd.DataFrame, variants: list[str]):
    """(variant, its rows of ``table``) for each variant, in order, that has rows."""
    for v in variants:
        part = table[table.variant == v] if len(table) else table
        if len(part):
            yield v, part


def _seeds(table: pd.DataFrame) -> int:
    """The most seeds a variant of a per-(variant, seed) table has (1: no interval anywhere)."""
    return int(table.groupby("variant").seed.nunique().max()) if len(table) else 0


def _with(counts: pd.Series) -> str:
    """'3.3 (range 2-5, n=3); 3 of 3 seeds': heads per model and how many seeds' models have one (what the verdicts read)."""
    return f"{fmt_mean_ci(counts, 1, 'count')}; {int((counts > 0).sum())} of {len(counts)} seeds"


def specialist_section(table: pd.DataFrame, variants: list[str]) -> Section:
    """The specialised heads per variant, as the claims count them (the headline)."""
    rows = []
    for v, part in _parts(table, variants):
        first = part.sort_values("seed").iloc[0]
        rows.append(
            {
                "variant": v,
                "offset heads": _with(part.offset),
                "their offsets (first seed)": ", ".join(first.offset_names) or "none",
                "delimiter heads": _with(part.delimiter),
                "which (first seed)": ", ".join(first.delimiter_names) or "none",
                "first-token heads": fmt_mean_ci(part.sink, 1, "count"),
                "largest offset share": fmt_mean_ci(part.max_offset_share, 2, *SHARE),
                "largest delimiter share": fmt_mean_ci(part.max_delimiter_share, 2, *SHARE),
            }
        )
    threshold = f"max({SPECIALIST:g}, {DELIMITER_FACTOR:g} x the even-attention share)"
    sizes = sorted({int(h) for h in table.heads}) if len(table) else []
    of = f" of the {', '.join(str(n) for n in sizes)} heads of a model" if sizes else ""
    return table_section(
        "Specialised heads",
        f"A head is an *offset head* when at least {SPECIALIST:.0%} of its attention goes to one fixed offset d >= "
        f"{MIN_OFFSET} (d = 1 the previous token; heads on the query itself, d = 0, do not count), a "
        f"*delimiter head* when its delimiter share is at least {threshold}, a *first-token head* (sink) when at least "
        f"{SPECIALIST:.0%} goes to the window's first character. Counts per model{of}: mean (range over seeds, n = seeds), "
        "then how many seeds' models have one; the verdicts pair each family's count with that of the same heads with "
        "the key positions shuffled (0 while the bar lies above that null's bound, suites/attention_heads/null.py); "
        f"largest shares: {over_seeds(_seeds(table))}; heads are named L<layer>H<head> with offset d.",
        rows,
        "No per-head records.",
        HEADLINE,
    )


def _direction(part: pd.DataFrame) -> str:
    """Where a family's broadest heads are, paired over seeds as the entropy verdict reads it (harness/paired.py)."""
    from harness.paired import directional, paired

    by_seed = part.set_index("seed")
    diff = paired("lower - upper half entropy", by_seed.lower_half.to_dict(), by_seed.upper_half.to_dict(), "nats")
    return {"agrees": "broadest below", "disagrees": "broadest above", "inconclusive": "no direction"}[
        directional(diff, +1)
    ]


def trend_section(trends: pd.DataFrame, variants: list[str]) -> Section:
    """Mean head entropy from the lower to the upper layers per variant, and its direction paired over seeds."""
    rows = []
    for v, part in _parts(trends, variants):
        layers = part.layers.tolist()
        means = [mean_ci([seed[i] for seed in layers])[0] for i in range(min(len(s) for s in layers))]
        rows.append(
            {
                "variant": v,
                "mean entropy by layer (nats, 1 -> top)": " -> ".join(f"{m:.2f}" for m in means),
                "lower half - upper half (nats)": fmt_mean_ci(part.lower_half - part.upper_half, 2),
                "Spearman rho (layer, head entropy)": fmt_mean_ci(part.rho, 2, "bounded", (-1.0, 1.0)),
                "largest p over seeds": f"{part.p.max():.2g}",
                "broadest heads": _direction(part),
            }
        )
    return table_section(
        "Entropy from lower to upper layers",
        "The mean head entropy of the lower half of the layers minus the upper half's, per seed (positive: the "
        "broadest heads are in the lower layers, as Clark et al. found), and Spearman's rank correlation of layer "
        "index and head entropy over every head of a model (negative when entropy falls with depth); broadest heads: the "
        "difference's direction paired over seeds (it counts when its 95% interval excludes 0). "
        f"Cells: {over_seeds(_seeds(trends), differences=True)}.",
        rows,
        "No per-head records.",
    )
