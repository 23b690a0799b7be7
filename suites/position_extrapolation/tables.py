"""The position_extrapolation tables: perplexity by evaluation length, and whether each variant extrapolates
(``Shape``: per-seed perplexity at L and 8L, their ratio, the learning checks, which the claims read too)."""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import fmt_mean_ci, mean_ci, most_seeds, over_seeds, status_notes, table_section
from harness.report_sections import HEADLINE, Section, section
from suites.common.learning import learning_checks, usable
from suites.common.narrow import narrow

#: the order variants are listed in
ORDER = ("none", "sinusoidal", "learned", "rope", "alibi")
#: a variant whose perplexity at L is this much above the best variant's did not train comparably
NOT_COMPARABLE = 1.15


def ppl_by_seed(ok: pd.DataFrame, variant: str, x: float, metric: str = "perplexity") -> dict[int, float]:
    """seed -> ``metric`` (perplexity) of ``variant`` at evaluation length ``x``."""
    rows = ok[(ok.variant == variant) & (ok.metric == metric) & (ok.x == x)]
    return {int(r.seed): float(r.value) for r in rows.itertuples()}


def _per_seed(ok: pd.DataFrame, metric: str, x: float) -> dict[str, dict[int, float]]:
    rows = ok[(ok.metric == metric) & (ok.x == x)]
    out: dict[str, dict[int, float]] = {}
    for r in rows.itertuples():
        out.setdefault(r.variant, {})[int(r.seed)] = float(r.value)
    return out


class Shape:
    """What the claims and the summary table share: per-seed perplexity at L and 8L, their ratio, the learning checks.

    ``train_len``: L, by default the records' own (their profile settings')."""

    def __init__(self, df: pd.DataFrame, train_len: float | None = None):
        ok = df[df.status == "ok"]
        train_len = float(df.iloc[0].profile_settings["train_len"] if train_len is None else train_len)
        self.checks = learning_checks(df, "loss", train_len)
        self.kept, self.left_out = usable(self.checks)
        self.at_l = _per_seed(ok, "perplexity", train_len)
        self.at_8l = at_8l = _per_seed(ok, "perplexity", 8 * train_len)
        self.best_l = min((mean_ci(self.at_l[v].values())[0] for v in self.kept if v in self.at_l), default=math.nan)
        self.ratios = {
            v: [at_8l[v][s] / l_vals[s] for s in l_vals if s in at_8l.get(v, {})]
            for v, l_vals in ((v, self.at_l.get(v, {})) for v in df.variant.unique())
        }
        self.comparable = {
            v for v in self.kept if v in self.at_l and mean_ci(self.at_l[v].values())[0] <= NOT_COMPARABLE * self.best_l
        }


def perplexity_section(
    df: pd.DataFrame, ok: pd.DataFrame, variants: list[str], lengths: list[float], train_len: int
) -> Section:
    """Perplexity per variant and evaluation length, and notes on the cells that are not numbers (the headline)."""
    # perplexities are positive: their interval is on a log scale (harness/intervals.py), never below 0
    table = []
    for v in variants:
        row = {"variant": v}
        for x in lengths:
            vals = ok[(ok.variant == v) & (ok.metric == "perplexity") & (ok.x == x)].value
            bad = df[(df.variant == v) & (df.metric == "perplexity") & (df.x == x) & (df.status != "ok")]
            row[f"{int(x)} ({int(x) // train_len}L)"] = (
                fmt_mean_ci(vals, kind="log") if len(vals) else (bad.status.iloc[0] if len(bad) else "-")
            )
        table.append(row)
    lines = [narrow(pd.DataFrame(table), ["variant"]), ""]
    reasons = status_notes(df)
    if reasons:
        lines += ["Cells that are not numbers:", ""]
        lines += reasons + [""]
    return section(f"Perplexity by evaluation length ({over_seeds(most_seeds(ok))}; L = {train_len})", lines, HEADLINE)


def extrapolation_section(shape: Shape, variants: list[str]) -> Section:
    """Each variant's perplexity at L, its ppl(8L)/ppl(L) and whether it is comparable at L."""
    summary = []
    for v in variants:
        l_vals = shape.at_l.get(v, {})
        flags = [
            name
            for name, on in (("did not learn", shape.checks[v].did_not_learn), ("memorised", shape.checks[v].memorised))
            if on
        ]
        comparable = not flags and bool(l_vals) and mean_ci(l_vals.values())[0] <= NOT_COMPARABLE * shape.best_l
        summary.append(
            {
                "variant": v,
                "ppl at L": fmt_mean_ci(l_vals.values(), kind="log"),
                "ppl(8L) / ppl(L)": fmt_mean_ci(shape.ratios[v], kind="log") if shape.ratios[v] else "n/a",
                "comparable at L": "yes"
                if comparable
                else "no: " + (" and ".join(flags) if flags else f"ppl at L > {NOT_COMPARABLE:.2f} x best learned"),
            }
        )
    note = (
        "A flat curve from a model that never learned is not extrapolation, and a curve is compared with another only "
        f"when both start from a similar perplexity at L: a variant more than {NOT_COMPARABLE - 1:.0%} above the "
        "best variant that learned is marked as not comparable."
    )
    return table_section("Does it extrapolate?", note, summary, "")


def consecutive_section(ok: pd.DataFrame, lengths: list[float], train_len: int) -> Section | None:
    """Randomized positions scored both ways: at test-time draws (the protocol, in every other table) and at 0..T-1
    (None without randomized positions)."""
    extra = ok[ok.metric == "consecutive_perplexity"]
    if extra.empty:
        return None
    rows = []
    for v in sorted(extra.variant.unique()):
        for metric, how in (
            ("perplexity", "sorted draws of 0..16L-1 (Ruoss et al.'s protocol)"),
            ("consecutive_perplexity", "positions 0..T-1 (extra)"),
        ):
            row = {"variant": v, "positions at test time": how}
            for x in lengths:
                vals = ok[(ok.variant == v) & (ok.metric == metric) & (ok.x == x)].value
                row[f"{int(x) // train_len}L"] = fmt_mean_ci(vals, kind="log") if len(vals) else "-"
            rows.append(row)
    scored = ok[(ok.metric == "perplexity") & ok.variant.isin(set(extra.variant))]
    n = next((e["draws"] for e in scored.get("extra", []) if isinstance(e, dict) and e.get("draws")), "several")
    note = (
        "Ruoss et al. 2023 (arXiv 2305.16843; their code draws at test time too) train and test on sorted random "
        f"positions from 0..16L-1; every table above scores them so, as the mean loss over {n} draws of fixed "
        "seeds. Positions 0..T-1, in order, are an extra: training never showed them together."
    )
    return table_section("Randomized positions at test time", note, rows, "")
