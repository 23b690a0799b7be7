"""The training_stability report: the warm-up table, whether each run learned, per-layer gradient ratios, the finding.

Divergence is the finding here, so diverged runs always count; only the comparison of two runs' held-out losses
(did dropping the warm-up make a run worse?) needs both to have learned and not memorised.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Optional

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run, sentences
from harness.report import fmt_mean_ci, markdown_table, mean_ci
from harness.groups import code_line
from suites.common.learning import LearningCheck, learning_checks, learning_section

PUBLISHED = (
    "Xiong et al. 2020 (arXiv 2002.04745): Post-LN on IWSLT14 De-En with Adam reaches BLEU 8.45 without warm-up and "
    "~34 with 4000 warm-up steps (31.16 with 500 warm-up steps at lr 5e-4, but 2.77 at lr 1e-3), while Pre-LN trains "
    "without warm-up; at initialisation the FFN weights' gradient norm grows with layer index for Post-LN and is "
    "roughly flat for Pre-LN."
)
WARMUP = Claim(
    "post_ln_needs_warmup", "training_stability", "Post-LN needs a learning-rate warm-up; Pre-LN does not",
    "Xiong et al. 2020 (arXiv 2002.04745)",
    "Post-LN IWSLT14 De-En BLEU 8.45 without warm-up, ~34 with 4000 steps; Pre-LN trains without one",
    ("post_ln", "pre_ln"))
GRADIENTS = Claim(
    "post_ln_gradient_grows", "training_stability", "At initialisation Post-LN's FFN gradients grow toward the output; "
    "Pre-LN's stay flat", "Xiong et al. 2020 (arXiv 2002.04745), Fig. 3",
    "gradient norm of the FFN weights grows with layer index for Post-LN, roughly flat for Pre-LN", ("post_ln", "pre_ln"))
TRAINABILITY = Claim(
    "post_ln_harder_to_train", "training_stability", "Post-LN diverges or stalls more often than Pre-LN",
    "Xiong et al. 2020 (arXiv 2002.04745)", "Post-LN BLEU 2.77 at lr 1e-3 with 500 warm-up steps; Pre-LN trains at both rates",
    ("post_ln", "pre_ln"))
CLAIMS = (GRADIENTS, TRAINABILITY, WARMUP)
#: a run without warm-up "trains worse" when its held-out loss exceeds the warmed-up run's by this much (nats/char);
#: a run within this much of the unigram loss learned no more than character frequencies
WORSE_BY = 0.05
ORDER = ("post_ln", "pre_ln")


def _order(variants) -> List[str]:
    return sorted(variants, key=lambda v: (ORDER.index(v) if v in ORDER else len(ORDER), v))


def _expand(frame: pd.DataFrame, *keys: str) -> pd.DataFrame:
    frame = frame.copy()
    for key in keys:
        frame[key] = frame.extra.apply(lambda e: e.get(key) if isinstance(e, dict) else None)
    return frame


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> List[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    first = df.iloc[0]
    s = first.profile_settings
    variants = _order(df.variant.unique())
    seeds = sorted(int(v) for v in df.seed.unique())
    spec = first.spec
    lines = [f"# Post-LN vs Pre-LN training stability ({suite.name}, suite version {first.suite_version})", "",
             suite.description.strip().splitlines()[0], "",
             "## Setup", "",
             f"- Model: decoder-only Transformer, d_model {spec['d_model']}, {spec['n_heads']} heads, depths "
             f"{list(s['depths'])}, {spec['norm']}, {spec['ffn']} FFN, {spec['position']} positions; weights initialised "
             + ("Xavier-uniform in every linear layer (Xiong et al.'s setting)" if s["init"] == "xavier" else "by the model's own scheme")
             + "; variants differ only in norm placement.",
             f"- Training: {s['steps']} Adam steps (betas 0.9/0.98, weight decay {s['weight_decay']:g}, "
             f"{'no clipping' if not s['grad_clip'] else 'clipping at %g' % s['grad_clip']}) of {s['batch_size']} x "
             f"{s['train_len']} characters; peak learning rates {list(s['lrs'])}, warm-up "
             f"steps {list(s['warmups'])} (linear), then cosine decay; seeds {seeds}; profile `{first.profile}`.",
             f"- Corpus: {first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...), "
             f"{first.get('split') or 'last ' + format(s['heldout_fraction'], '.0%') + ' held out'}; "
             f"{int(first.get('train_chars') or 0):,} training characters, read {float(first.get('train_passes') or 0):.2f} "
             "times by each run.",
             "- Diverged: the loss became non-finite or exceeded 3x its start during training, or the final training loss "
             "(mean of the last 10% of steps) is not below the first step's.",
             f"- Held-out loss: {int(first.get('eval_chars', 0)):,} held-out characters in non-overlapping windows of "
             f"{s['train_len']}. Device {first.device} ({first.device_name}), torch {first.torch_version}; "
             f"{code_line(df)}.", ""]
    runs = _expand(df[df.metric == "heldout_loss"], "depth", "warmup")
    grads = _expand(df[(df.metric == "ffn_grad_norm") & (df.status == "ok")], "depth")
    unigram = float(first.get("unigram_loss", float("nan")))
    checks = run_checks(df, variants)
    warm_lines, warm = _warmup_table(runs, variants, s, unigram, checks)
    lines += warm_lines
    lines += learning_section(checks, label="run")
    lines += ["Only runs that finished are in this table. The flags decide which held-out losses the warm-up verdict may "
              "compare; diverged runs, and runs no better than the unigram loss, stay the evidence of instability they are.", ""]
    ratio_lines, ratios, per_seed = _ratio_table(grads, variants)
    lines += ratio_lines
    figure = _figure(grads, variants, out_dir / "figures" / f"{suite.name}.png")
    lines += ["## Figure", "", f"![FFN gradient norm by layer at initialisation](figures/{figure.name})", ""]
    lines += ["## Against the published finding", "", PUBLISHED, ""] + [f"- {t}" for t in sentences(_findings(warm, ratios, per_seed, len(seeds)))] + [""]
    failed = df[df.status.isin(["failed", "oom", "skipped"])].drop_duplicates(["variant", "status", "reason"])
    if len(failed):
        lines += ["## Jobs that did not run", ""] + [f"- `{r.variant}`: {r.status}: {r.reason}" for r in failed.itertuples()] + [""]
    path = out_dir / f"{suite.name}.md"
    path.write_text("\n".join(lines))
    return [path, figure]


def run_label(variant: str, depth: int, lr: float, warmup: int) -> str:
    """How a report names one training run (a variant at one depth, peak learning rate and warm-up)."""
    return f"{variant}, depth {int(depth)}, lr {lr:g}, " + ("no warm-up" if int(warmup) == 0 else f"warm-up {int(warmup)}")


def run_checks(df: pd.DataFrame, variants: List[str]) -> Dict[str, LearningCheck]:
    """Whether each training run that finished learned and did not memorise, by run_label, in table order."""
    runs = _expand(df[df.metric.isin(["heldout_loss", "final_train_loss"])], "depth", "warmup")
    if not len(runs):
        return {}
    keys = {}
    for r in runs[(runs.metric == "heldout_loss") & (runs.status == "ok")].itertuples():
        rank = variants.index(r.variant) if r.variant in variants else len(variants)
        keys[run_label(r.variant, r.depth, r.x, r.warmup)] = (rank, r.variant, int(r.depth), float(r.x), int(r.warmup))
    runs["run"] = [run_label(r.variant, r.depth, r.x, r.warmup) for r in runs.itertuples()]
    checks = learning_checks(runs[runs.run.isin(keys)], "heldout_loss", None, "final_train_loss", by="run")
    return {k: checks[k] for k in sorted(keys, key=keys.get)}


def _short_reason(check: LearningCheck) -> str:
    if not check.heldout:
        return "no held-out loss"
    return ", ".join(why for why, flag in (("did not learn", check.did_not_learn), ("memorised", check.memorised)) if flag)


def _stuck(values, unigram: float) -> bool:
    return len(values) > 0 and mean_ci(values)[0] >= unigram - WORSE_BY


def _cell(part: pd.DataFrame, unigram: float) -> str:
    vals = part[part.status == "ok"].value
    bad = int((part.status == "diverged").sum())
    text = fmt_mean_ci(vals) + (" †" if _stuck(vals, unigram) else "") if len(vals) else ""
    if bad:
        text = (text + "; " if text else "") + f"diverged {bad}/{len(part)}"
    return text or "-"


def _warmup_table(runs: pd.DataFrame, variants: List[str], s: Dict, unigram: float, checks: Dict[str, LearningCheck]):
    """The table, and per variant counts of (depth, lr) cells where no warm-up diverged or trained worse.

    A cell where neither run diverged turns on the two held-out losses; it is left out (its runs listed under
    ``left_out`` with the reason) unless both runs learned and did not memorise.
    """
    warmups = sorted(int(w) for w in runs.warmup.dropna().unique())
    lrs = sorted(runs.x.dropna().unique())
    rows = []
    summary = {v: {"cells": 0, "hurt": 0, "diverged_without": 0, "diverged_with": 0, "runs": 0, "stuck": 0,
                   "left_out": []} for v in variants}
    for depth in sorted(int(d) for d in runs.depth.dropna().unique()):
        for v in variants:
            row = {"depth": depth, "variant": v}
            for lr in lrs:
                for w in warmups:
                    part = runs[(runs.variant == v) & (runs.depth == depth) & (runs.x == lr) & (runs.warmup == w)]
                    row[f"lr {lr:g}, " + ("no warm-up" if w == 0 else f"warm-up {w}")] = _cell(part, unigram)
                    if len(part):
                        summary[v]["runs"] += 1
                        summary[v]["stuck"] += int(_stuck(part[part.status == "ok"].value, unigram)
                                                   or (part.status == "diverged").all())
                if 0 in warmups and len(warmups) > 1:
                    _count(summary[v], runs[(runs.variant == v) & (runs.depth == depth) & (runs.x == lr)], warmups,
                           {w: checks.get(run_label(v, depth, lr, w)) for w in (0, max(warmups))},
                           {w: run_label(v, depth, lr, w) for w in (0, max(warmups))})
            rows.append(row)
    lines = ["## Warm-up: held-out loss by depth, peak learning rate and warm-up", "",
             "Held-out loss in nats/char (mean ± 95% interval over seeds, n = seeds); `diverged k/n` counts diverged seeds; "
             f"† marks a loss within {WORSE_BY:g} of the unigram loss ({unigram:.2f}: character frequencies of the training "
             "text), a run that learned nothing more.", "",
             markdown_table(pd.DataFrame(rows)) if rows else "No training runs.", ""]
    if any(c["cells"] or c["left_out"] for c in summary.values()):
        table = [{"variant": v, "(depth, lr) cells": c["cells"], "diverged without warm-up": c["diverged_without"],
                  "diverged with warm-up": c["diverged_with"],
                  f"no warm-up diverged or > {WORSE_BY:g} nats worse": c["hurt"],
                  "cells left out": len(c["left_out"]),
                  "runs diverged or no better than unigram": f"{c['stuck']} of {c['runs']}"} for v, c in summary.items()]
        lines += ["What dropping the warm-up costs each variant (a cell is one depth at one peak learning rate, mean over seeds). "
                  "A cell where neither run diverged is compared on held-out loss only if both runs learned and did not "
                  "memorise (see the next section); otherwise it is left out.",
                  "", markdown_table(pd.DataFrame(table)), ""]
    return lines, summary


def _count(c: Dict, cell: pd.DataFrame, warmups: List[int], checks: Dict[int, LearningCheck], labels: Dict[int, str]) -> None:
    without = cell[cell.warmup == 0]
    with_ = cell[cell.warmup == max(warmups)]
    if not len(without) or not len(with_):
        return
    div_without = (without.status == "diverged").any()
    div_with = (with_.status == "diverged").any()
    if not div_without and not div_with:
        # the cell turns on the two held-out losses, which mean something only for models that learned
        left = [(labels[w], "no held-out loss" if checks[w] is None else _short_reason(checks[w]))
                for w in (0, max(warmups)) if checks[w] is None or not checks[w].usable]
        if left:
            c["left_out"].append(left)
            return
    c["cells"] += 1
    c["diverged_without"] += int(div_without)
    c["diverged_with"] += int(div_with)
    a, b = without[without.status == "ok"].value, with_[with_.status == "ok"].value
    worse = len(a) and len(b) and mean_ci(a)[0] > mean_ci(b)[0] + WORSE_BY
    c["hurt"] += int(bool(div_without or worse))


def _ratio_table(grads: pd.DataFrame, variants: List[str]):
    rows, ratios, spread = [], {}, {}
    for v in variants:
        for depth in sorted(int(d) for d in grads.depth.dropna().unique()):
            part = grads[(grads.variant == v) & (grads.depth == depth)]
            if not len(part):
                continue
            per_seed = []
            for _, seed_part in part.groupby("seed"):
                last, first = seed_part[seed_part.x == depth].value, seed_part[seed_part.x == 1].value
                if len(last) and len(first):
                    per_seed.append(float(last.iloc[0]) / float(first.iloc[0]))
            ratios[(v, depth)] = mean_ci(per_seed)[0]
            spread[(v, depth)] = per_seed
            rows.append({"variant": v, "depth": depth, "first layer": fmt_mean_ci(part[part.x == 1].value, 3),
                         "last layer": fmt_mean_ci(part[part.x == depth].value, 3),
                         "last / first": fmt_mean_ci(per_seed)})
    return ["## Gradient norm of each layer's FFN weights at initialisation", "",
            "||dL/dW|| over the feed-forward parameters of the first and last layer (mean over the probe batches, then "
            "over seeds) and their ratio per seed.", "", markdown_table(pd.DataFrame(rows)) if rows else "No probes.", ""], \
        ratios, spread


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on Xiong et al.'s findings from one group of records."""
    first = df.iloc[0]
    variants = _order(df.variant.unique())
    runs = _expand(df[df.metric == "heldout_loss"], "depth", "warmup")
    grads = _expand(df[(df.metric == "ffn_grad_norm") & (df.status == "ok")], "depth")
    checks = run_checks(df, variants)
    warm = _warmup_table(runs, variants, first.profile_settings, float(first.get("unigram_loss", float("nan"))), checks)[1]
    _, ratios, per_seed = _ratio_table(grads, variants)
    return _findings(warm, ratios, per_seed, df.seed.nunique())


def _findings(warm: Dict, ratios: Dict, per_seed: Optional[Dict] = None, seeds: int = 0) -> List[Finding]:
    """One finding per claim from the warm-up summary (``_warmup_table``) and the last/first gradient ratios
    (``_ratio_table``: their means, and per seed); ``seeds`` is the number of seeds of the group."""
    per_seed = per_seed or {}
    out = {}
    deep = sorted({d for _, d in ratios if d > 2}) or sorted({d for _, d in ratios})
    post = [ratios[("post_ln", d)] for d in deep if ("post_ln", d) in ratios]
    pre = [ratios[("pre_ln", d)] for d in deep if ("pre_ln", d) in ratios]
    if post and pre:
        grows = all(r > 1 for r in post)
        flatter = all(abs(math.log(b)) < abs(math.log(a)) for a, b in zip(post, pre))
        verdict = "agrees" if grows and flatter else ("disagrees" if not grows and not flatter else "inconclusive")
        estimates = [Estimate.of(f"{name} last/first FFN gradient, depth {d}", per_seed.get((v, d)) or [ratios[(v, d)]])
                     for v, name in (("post_ln", "Post-LN"), ("pre_ln", "Pre-LN")) for d in deep if (v, d) in ratios]
        text = (f"Per-layer gradients at initialisation (depths {deep}): last/first FFN gradient ratio "
                + ", ".join(f"{r:.2f}" for r in post) + " for Post-LN and " + ", ".join(f"{r:.2f}" for r in pre)
                + " for Pre-LN. " + ("This agrees that Post-LN's gradients grow toward the output" if grows else
                                     "Post-LN's gradients do not grow toward the output at every depth here")
                + (", and Pre-LN's profile is flatter." if flatter else
                   "; Pre-LN's profile is not flatter here" + (" (its gradients shrink toward the output instead)."
                                                               if any(r < 1 for r in pre) else ".")))
        out[GRADIENTS.key] = finding(GRADIENTS, verdict, text, estimates)
    p, q = warm.get("post_ln"), warm.get("pre_ln")
    left_note = _left_note(warm)
    if p and q and p["runs"] and q["runs"]:
        harder = p["stuck"] > q["stuck"]
        text = (f"Trainability: {p['stuck']} of {p['runs']} Post-LN runs diverged or learned no more than character "
                f"frequencies, against {q['stuck']} of {q['runs']} Pre-LN runs; this run "
                + ("agrees that Post-LN is the harder one to train." if harder else "does not show Post-LN harder to train."))
        counts = [Estimate("Post-LN runs diverged or unlearned", p["stuck"], unit=f"of {p['runs']}", seeds=0),
                  Estimate("Pre-LN", q["stuck"], unit=f"of {q['runs']}", seeds=0)]
        out[TRAINABILITY.key] = finding(TRAINABILITY, "agrees" if harder else "disagrees", text, counts, seeds)
    if p and q and p["cells"] and q["cells"]:
        agrees = p["hurt"] > q["hurt"]
        text = (f"Warm-up: without it Post-LN diverged or trained more than {WORSE_BY:g} nats/char worse in {p['hurt']} of "
                f"{p['cells']} (depth, lr) cells and Pre-LN in {q['hurt']} of {q['cells']}; "
                + (f"this run agrees that Post-LN needs the warm-up more than Pre-LN does (by {p['hurt'] - q['hurt']} of "
                   f"{p['cells']} cells{', a thin margin for one seed' if p['hurt'] - q['hurt'] == 1 else ''})." if agrees
                   else "this run does not show Post-LN depending on warm-up more than Pre-LN at this budget.")
                + (" " + left_note if left_note else ""))
        counts = [Estimate("Post-LN (depth, lr) cells hurt without warm-up", p["hurt"], unit=f"of {p['cells']}", seeds=0),
                  Estimate("Pre-LN", q["hurt"], unit=f"of {q['cells']}", seeds=0)]
        out[WARMUP.key] = finding(WARMUP, "agrees" if agrees else "disagrees", text, counts, seeds)
    elif p and q and left_note:
        empty = [name for name, c in (("Post-LN", p), ("Pre-LN", q)) if not c["cells"]]
        out[WARMUP.key] = finding(WARMUP, "inconclusive", "Warm-up: no verdict, " + " and ".join(empty)
                                  + (" have" if len(empty) > 1 else " has")
                                  + " no (depth, lr) cell decided by a divergence or by two runs that learned. " + left_note)
    return [out.get(claim.key) or not_run(claim) for claim in CLAIMS]


def _left_note(warm: Dict) -> str:
    """The sentence naming the (depth, lr) cells left out of the warm-up comparison and why ('' when none is)."""
    cells = [cell for c in warm.values() for cell in c["left_out"]]
    if not cells:
        return ""
    total = sum(c["cells"] + len(c["left_out"]) for c in warm.values())
    runs = [f"`{label}` ({why})" for cell in cells for label, why in cell]
    return (f"{len(cells)} of {total} (depth, lr) cells were left out of this comparison because a run in them did not "
            "learn, memorised or has no held-out loss: " + "; ".join(runs) + ".")


def _figure(grads: pd.DataFrame, variants: List[str], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    path.parent.mkdir(parents=True, exist_ok=True)
    depths = sorted(int(d) for d in grads.depth.dropna().unique()) or [0]
    fig, axes = plt.subplots(1, len(depths), figsize=(4.5 * len(depths), 4), squeeze=False)
    for ax, depth in zip(axes[0], depths):
        part = grads[grads.depth == depth].rename(columns={"x": "layer", "value": "FFN gradient norm ||dL/dW||"})
        sns.lineplot(data=part, x="layer", y="FFN gradient norm ||dL/dW||", hue="variant", marker="o",
                     hue_order=[v for v in variants if v in set(part.variant)], errorbar=("ci", 95), ax=ax)
        ax.set_yscale("log")
        ax.set_title(f"{depth} layers")
        ax.set_xticks(range(1, depth + 1) if depth <= 12 else range(1, depth + 1, max(1, depth // 12)))
    fig.suptitle("FFN weight gradient norm by layer at initialisation")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
