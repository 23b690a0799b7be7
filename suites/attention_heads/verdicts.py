"""The attention_heads verdicts: Clark et al. 2019's offset heads, delimiter heads and entropy across layers."""

from __future__ import annotations

import math
from typing import Dict, List, Optional

import pandas as pd

from harness.suite_file import SuiteFile
from harness.findings import Claim, Estimate, Finding, finding, not_run
from harness.report_kit import fmt_mean_ci, in_order
from suites.attention_heads.tables import ORDER, TREND_P, _job_value, entropy_trends, heads_frame, specialists
from suites.common.learning import learning_checks, usable

#: the published findings this suite tests, in the order its report states them (suite.yaml)
OFFSET_HEADS, DELIMITER_HEADS, ENTROPY_BY_LAYER = CLAIMS = SuiteFile.of(__file__).claims(
    "offset_heads", "delimiter_heads", "entropy_by_layer")


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on Clark et al.'s findings, from the variants that learned and did not memorise."""
    checks = learning_checks(df, "loss")
    kept, left_out = usable(checks)
    heads = heads_frame(df)
    heads = heads[heads.variant.isin(kept)]
    if not len(heads):
        why = "No model that learned has per-head records" + (f" ({left_out})" if left_out else "") + "."
        return [not_run(c, why) for c in CLAIMS]
    note = f" {left_out}" if left_out else ""
    table = specialists(heads, _job_value(df, "delimiter_base"))
    out = [_specialist_finding(OFFSET_HEADS, table, "offset", "max_offset_share", "fixed-offset", note),
           _specialist_finding(DELIMITER_HEADS, table, "delimiter", "max_delimiter_share", "delimiter", note)]
    out.append(_trend_finding(entropy_trends(heads), note))
    return out


def _specialist_finding(claim: Claim, table: pd.DataFrame, column: str, largest: str, kind: str, note: str) -> Finding:
    """Agrees when at least half of the learned variants have such a head in every seed; disagrees when none
    has one in any seed; inconclusive in between."""
    variants = in_order(table.variant.unique(), ORDER)
    every = [v for v in variants if (table[table.variant == v][column] > 0).all()]
    some = [v for v in variants if (table[table.variant == v][column] > 0).any()]
    estimates = [Estimate.of(f"{v} {kind} heads", table[table.variant == v][column]) for v in variants]
    shares = ", ".join(f"`{v}` {fmt_mean_ci(table[table.variant == v][largest], 2)}" for v in variants)
    counts = ", ".join(f"`{v}` {fmt_mean_ci(table[table.variant == v][column], 1)}" for v in variants)
    told = (f"{kind.capitalize()} heads per model (mean over seeds): {counts}; the largest {kind} share: {shares}.")
    if len(every) * 2 >= len(variants):
        return finding(claim, "agrees", f"{told} {len(every)} of {len(variants)} models have one in every seed: this run "
                       f"**agrees** with Clark et al. that some heads specialise in {kind.replace('-', ' ')}s." + note, estimates)
    if not some:
        return finding(claim, "disagrees", f"{told} No model has one: this run **disagrees** with Clark et al." + note,
                       estimates)
    return finding(claim, "inconclusive", f"{told} Only {len(every)} of {len(variants)} models have one in every seed "
                   f"({len(some)} in some seed): **inconclusive**." + note, estimates)


def _trend_finding(trends: pd.DataFrame, note: str) -> Finding:
    """Agrees when at least half of the learned variants show a systematic trend; disagrees when none does."""
    variants = in_order(trends.variant.unique(), ORDER)
    direction: Dict[str, Optional[str]] = {}
    for v in variants:
        part = trends[trends.variant == v]
        signs = set(part.rho.apply(lambda r: math.copysign(1, r) if r == r and r != 0 else 0))
        systematic = bool(len(part)) and (part.p < TREND_P).all() and len(signs) == 1 and 0 not in signs
        direction[v] = ("falls" if signs == {-1.0} else "rises") if systematic else None
    estimates = [Estimate.of(f"{v} Spearman rho", trends[trends.variant == v].rho) for v in variants]
    described = "; ".join(
        f"`{v}` {trends[trends.variant == v].lowest.mean():.2f} -> {trends[trends.variant == v].highest.mean():.2f} nats, "
        f"rho {fmt_mean_ci(trends[trends.variant == v].rho, 2)}" + (f" ({direction[v]} with depth)" if direction[v] else
                                                                     " (no systematic trend)")
        for v in variants)
    told = f"Mean head entropy from the lowest to the highest layer: {described}."
    systematic = [v for v in variants if direction[v]]
    falling = [v for v in systematic if direction[v] == "falls"]
    clark = (f" Clark et al. found the broadest heads in the lower layers (entropy falling with depth); here it falls in "
             f"{len(falling)} and rises in {len(systematic) - len(falling)} of the {len(systematic)} models with a trend.")
    if len(systematic) * 2 >= len(variants) and systematic:
        return finding(ENTROPY_BY_LAYER, "agrees", f"{told} {len(systematic)} of {len(variants)} models change "
                       f"systematically: this run **agrees** that entropy changes from lower to upper layers.{clark}" + note,
                       estimates)
    if not systematic:
        return finding(ENTROPY_BY_LAYER, "disagrees", f"{told} No model shows a systematic trend: this run **disagrees**."
                       + note, estimates)
    return finding(ENTROPY_BY_LAYER, "inconclusive", f"{told} Only {len(systematic)} of {len(variants)} models change "
                   f"systematically: **inconclusive**.{clark}" + note, estimates)
