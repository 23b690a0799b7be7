"""The training_stability verdicts: Xiong et al. 2020's Post-LN gradients, trainability and warm-up."""

from __future__ import annotations

import math
from typing import Dict, List, Optional

import pandas as pd

from harness.suite_file import SuiteFile
from harness.findings import Estimate, Finding, finding, not_run
from harness.report_kit import in_order
from suites.training_stability.tables import ORDER, WORSE_BY, _expand, _ratio_table, _warmup_table, run_checks

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
        agrees = p["hurt"] / p["cells"] > q["hurt"] / q["cells"]  # shares: the variants may have different cells
        text = (f"Warm-up: without it Post-LN diverged, did not learn or trained more than {WORSE_BY:g} nats/char worse in {p['hurt']} of "
                f"{p['cells']} (depth, lr) cells and Pre-LN in {q['hurt']} of {q['cells']}; "
                + (f"this run agrees that Post-LN needs the warm-up more than Pre-LN does ({p['hurt'] / p['cells']:.0%} of "
                   f"its cells against {q['hurt'] / q['cells']:.0%})." if agrees
                   else "this run does not show Post-LN depending on warm-up more than Pre-LN at this budget.")
                + (" " + left_note if left_note else ""))
        counts = [Estimate("Post-LN (depth, lr) cells hurt without warm-up", p["hurt"], unit=f"of {p['cells']}", seeds=0),
                  Estimate("Pre-LN", q["hurt"], unit=f"of {q['cells']}", seeds=0)]
        out[WARMUP.key] = finding(WARMUP, "agrees" if agrees else "disagrees", text, counts, seeds)
    elif p and q and left_note:
        empty = [name for name, c in (("Post-LN", p), ("Pre-LN", q)) if not c["cells"]]
        out[WARMUP.key] = finding(WARMUP, "inconclusive", "Warm-up: no verdict, " + " and ".join(empty)
                                  + (" have" if len(empty) > 1 else " has")
                                  + " no (depth, lr) cell where the warmed-up run learned or a run diverged. " + left_note)
    return [out.get(claim.key) or not_run(claim) for claim in CLAIMS]


def _left_note(warm: Dict) -> str:
    """The sentence naming the (depth, lr) cells left out of the warm-up comparison and why ('' when none is)."""
    cells = [cell for c in warm.values() for cell in c["left_out"]]
    if not cells:
        return ""
    total = sum(c["cells"] + len(c["left_out"]) for c in warm.values())
    runs = [f"`{label}` ({why})" for cell in cells for label, why in cell]
    return (f"{len(cells)} of {total} (depth, lr) cells were left out of this comparison because the warmed-up run did "
            "not learn, a run memorised or has no held-out loss: " + "; ".join(runs) + ".")
