"""The training_stability verdicts: Xiong et al. 2020's Post-LN gradients, trainability and warm-up.

Each is paired over seeds and magnitude-aware (harness/paired.py). Every run counts: a collapse (diverged, or
stuck at the unigram loss) is the outcome these claims are about, so it enters at its loss (a diverged run at
the unigram loss), never left out (outcomes.py).

The kinds of estimate (harness/intervals.py): last/first gradient ratios are positive ("log"), their logs and the
warm-up costs' differences unbounded ("t"); collapsed runs per seed are counts, shown with their range over seeds,
and their paired difference keeps within +-(runs per seed).
"""

from __future__ import annotations

import math
from typing import Dict, List

import pandas as pd

from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import Difference, directional, paired
from harness.report_kit import in_order
from harness.suite_file import SuiteFile
from harness.paired import all_hold
from suites.training_stability.outcomes import (COLLAPSE_WITHIN, Cell, cells, collapse_counts, outcomes, pooled,
                                                runs_per_seed)
from suites.training_stability.tables import ORDER, _expand, _ratio_table

PUBLISHED = (
    "Xiong et al. 2020 (arXiv 2002.04745): Post-LN on IWSLT14 De-En with Adam reaches BLEU 8.45 without warm-up and "
    "~34 with 4000 warm-up steps (31.16 with 500 warm-up steps at lr 5e-4, but 2.77 at lr 1e-3), while Pre-LN trains "
    "without warm-up; at initialisation the FFN weights' gradient norm grows with layer index for Post-LN and is "
    "roughly flat for Pre-LN."
)

#: the published findings this suite tests, in the order its report states them (suite.yaml)
GRADIENTS, TRAINABILITY, WARMUP = CLAIMS = SuiteFile.of(__file__).claims(
    "post_ln_gradient_grows", "post_ln_harder_to_train", "post_ln_needs_warmup")


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on Xiong et al.'s findings from one group of records."""
    first = df.iloc[0]
    variants = in_order(df.variant.unique(), ORDER)
    unigram = float(first.get("unigram_loss", float("nan")))
    runs = _expand(df[df.metric == "heldout_loss"], "depth", "warmup")
    grads = _expand(df[(df.metric == "ffn_grad_norm") & (df.status == "ok")], "depth")
    _, _, ratios = _ratio_table(grads, variants)
    out = outcomes(runs, unigram) if len(runs) else {}
    return [_gradients(ratios), _trainability(out, unigram), _warmup(cells(out, unigram) if out else [])]


def _gradients(ratios: Dict) -> Finding:
    """Post-LN's last/first FFN gradient ratio above 1, and further from 1 than Pre-LN's, at every depth above 2.

    Per seed log(last/first); growth is a direction check (the log ratio's interval above 0, or every seed above
    0); "flatter" pairs |log ratio| of the two variants by seed. Both must hold at every depth."""
    depths = sorted({d for (v, d) in ratios if d > 2}) or sorted({d for _, d in ratios})
    depths = [d for d in depths if ("post_ln", d) in ratios and ("pre_ln", d) in ratios]
    if not depths:
        return not_run(GRADIENTS)
    parts, estimates, texts = [], [], []
    for d in depths:
        post = {s: math.log(r) for s, r in ratios[("post_ln", d)].items() if r > 0}
        pre = {s: math.log(r) for s, r in ratios[("pre_ln", d)].items() if r > 0}
        grows = paired(f"Post-LN log(last/first), depth {d}", post, {s: 0.0 for s in post})
        flatter = paired(f"|log ratio| Post-LN - Pre-LN, depth {d}", {s: abs(x) for s, x in post.items()},
                         {s: abs(x) for s, x in pre.items()})
        parts += [directional(grows, +1), directional(flatter, +1)]
        estimates += [Estimate.of(f"Post-LN last/first, depth {d}", ratios[("post_ln", d)].values(), kind="log"),
                      Estimate.of(f"Pre-LN last/first, depth {d}", ratios[("pre_ln", d)].values(), kind="log"),
                      grows.estimate,
                      flatter.estimate]
        texts.append(f"depth {d}: Post-LN {_seeds(ratios[('post_ln', d)])}, Pre-LN {_seeds(ratios[('pre_ln', d)])}; "
                     f"Post-LN grows: {parts[-2]} (log ratio {_interval(grows)}), Post-LN's profile steeper than "
                     f"Pre-LN's: {parts[-1]} (|log ratio| difference {_interval(flatter)})")
    verdict = all_hold(parts)
    text = ("Per-layer gradients at initialisation, last/first FFN gradient ratio per seed, paired by seed: "
            + "; ".join(texts) + f". This run {_said(verdict)}.")
    cause = ""
    if verdict != "agrees":
        post_all = [r for d in depths for r in ratios[("post_ln", d)].values()]
        cause = (f"Post-LN's last/first ratios straddle 1 from seed to seed ({min(post_all):.2f}-{max(post_all):.2f} at "
                 f"depths {depths}), so at d_model 64 the initialisation's seed-to-seed spread of per-layer gradient norms "
                 "is as large as the growth Xiong et al. show for W^2 at d_model 512; and Pre-LN's ratios fall below 1 "
                 "rather than staying flat.") if any(p != "agrees" for p in parts[::2]) else (
                 "Post-LN's gradients grow toward the output, but Pre-LN's profile is not the flatter one "
                 "(its ratios fall below 1).")
    # the verdict turns on Post-LN's log(last/first) at the first depth (its growth), not the raw ratio
    return finding(GRADIENTS, verdict, text, estimates, cause=cause, headline=2)


def _trainability(out: Dict, unigram: float) -> Finding:
    """Per seed, how many of each variant's runs collapsed (diverged or at the unigram loss); Post-LN's count
    against Pre-LN's, paired by seed, must count and be larger."""
    if not out or not {"post_ln", "pre_ln"} <= {v for (v, _, _, _) in out}:
        return not_run(TRAINABILITY)
    post, pre = collapse_counts(out, "post_ln", unigram), collapse_counts(out, "pre_ln", unigram)
    n_post, n_pre = runs_per_seed(out, "post_ln"), runs_per_seed(out, "pre_ln")
    most = max(n_post, n_pre)
    d = paired("collapsed runs, Post-LN - Pre-LN", post, pre, "runs", bounds=(0, most) if most > 0 else None)
    verdict = directional(d, +1)
    text = (f"Trainability: per seed, Post-LN runs that collapsed (diverged, or ended within {COLLAPSE_WITHIN:g} nats/char "
            f"of the unigram loss {unigram:.2f}) {_seeds(post, '{:.0f}')} of {n_post}, Pre-LN {_seeds(pre, '{:.0f}')} of "
            f"{n_pre}; paired difference {_interval(d, '{:+.1f}')}: this run {_said(verdict)}.")
    cause = "" if verdict == "agrees" else (
        "Post-LN's collapses " + ("do not outnumber Pre-LN's beyond the seeds' spread." if not d.counts
                                  else "are fewer than Pre-LN's."))
    estimates = [Estimate.of("Post-LN collapsed runs per seed", post.values(), f"of {n_post}", "count"),
                 Estimate.of("Pre-LN", pre.values(), f"of {n_pre}", "count"), d.estimate]
    return finding(TRAINABILITY, verdict, text, estimates, cause=cause, headline=2)  # the paired difference


def _warmup(found: List[Cell]) -> Finding:
    """Post-LN's cost of dropping the warm-up against Pre-LN's, paired by seed and pooled over the cells that test
    warm-up; a cell where even the warmed-up Post-LN collapsed in every seed is named, not pooled."""
    found = [c for c in found if {"post_ln", "pre_ln"} <= set(c.cost)]
    if not found:
        return not_run(WARMUP)
    fragile = [c for c in found if c.fails_even_warmed("post_ln") or c.fails_even_warmed("pre_ln")]
    tested = [c for c in found if c not in fragile]
    per_cell = {c.label(): c.difference("post_ln", "pre_ln") for c in tested}
    against = [label for label, d in per_cell.items() if directional(d, +1) == "disagrees"]
    d = pooled(tested, "post_ln", "pre_ln") if tested else None
    verdict = "inconclusive" if d is None else directional(d, +1)
    if verdict == "agrees" and against:
        verdict = "inconclusive"
    warm = found[0].warmup
    cost_text = "; ".join(
        f"{c.label()}: Post-LN {_mean(c.cost['post_ln']):+.2f}, Pre-LN {_mean(c.cost['pre_ln']):+.2f}" for c in tested)
    text = (f"Warm-up: dropping the {warm}-step warm-up costs (held-out nats/char, mean over seeds; a diverged run at the "
            f"unigram loss) " + (cost_text or "nothing that can be compared") + ". ")
    if d is not None:
        text += (f"Post-LN's cost minus Pre-LN's, per seed the mean over these {len(tested)} cells and paired by seed: "
                 f"{_interval(d)}" + (f"; a cell counts the other way ({', '.join(against)})" if against else "")
                 + f": this run {_said(verdict)}. ")
    if fragile:
        text += (f"In {len(fragile)} cell(s) ({', '.join(c.label() for c in fragile)}) the warmed-up Post-LN collapsed too, "
                 f"in every seed: evidence that Post-LN is fragile there (the trainability verdict counts these runs), but "
                 f"not of whether warm-up helps it ({warm} steps were not enough), so they are not pooled.")
    cause = ""
    if verdict != "agrees":
        cause = ("no cell tests warm-up: the warmed-up Post-LN collapsed in every one." if d is None else
                 f"a cell counts against the claim ({', '.join(against)})." if against else
                 f"Post-LN's pooled extra cost {_interval(d)} does not count over the seeds." if not d.counts else
                 "Post-LN's pooled cost of dropping the warm-up is smaller than Pre-LN's.")
    estimates = ([d.estimate] if d is not None else []) + [per_cell[c.label()].estimate for c in tested]
    return finding(WARMUP, verdict, text.strip(), estimates, cause=cause)


def _mean(values: Dict[int, float]) -> float:
    return sum(values.values()) / len(values) if values else math.nan


def _seeds(values: Dict[int, float], fmt: str = "{:.2f}") -> str:
    return "[" + ", ".join(fmt.format(v) for _, v in sorted(values.items())) + "]"


def _interval(d: Difference, fmt: str = "{:+.2f}") -> str:
    e = d.estimate
    if math.isnan(e.value):
        return "no paired seeds"
    return fmt.format(e.value) + (f" [{fmt.format(e.low)}, {fmt.format(e.high)}]" if e.low is not None else "") + \
        f" (n={d.seeds}; {d.why()})"


def _said(verdict: str) -> str:
    return {"agrees": "agrees", "disagrees": "disagrees", "inconclusive": "is inconclusive"}.get(verdict, verdict)


__all__ = ["CLAIMS", "PUBLISHED", "findings"]
