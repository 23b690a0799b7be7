"""GQA keeps MHA's quality and MQA loses a little (Ainslie et al. 2023): held-out perplexity against MHA, paired over
seeds; GQA equivalent within the source's step per character, MQA worse."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import Difference, Verdict, all_hold, directional, equivalent
from suites.common.char_margin import TOLERANCE_PCT
from suites.language_modeling.claims._shared import (
    Evidence,
    deciding,
    diff,
    edge,
    interval,
    left_out_text,
    unjudged,
    unlearned,
)
from suites.language_modeling.summary import Summary, field, spec_of, widening

CLAIM = declared(__file__)
#: the equivalence tolerance of "keeps quality", in % of per-character perplexity: the smallest change Vaswani et
#: al.'s Table 3 calls a loss (d_k 32 -> 16), converted from nats per wordpiece to nats per character
#: (suites/common/char_margin.py)
TOLERANCE = TOLERANCE_PCT


def rule(g: Difference, m: Difference) -> tuple[Verdict, Verdict, Verdict]:
    """(GQA keeps MHA's quality, MQA loses, both): GQA's change equivalent within TOLERANCE, MQA's directional
    (worse), held together by ``all_hold`` (its "disagrees" at 5% across the two parts, Holm)."""
    keeps, loses = equivalent(g, TOLERANCE), directional(m, +1)
    return keeps, loses, all_hold([keeps, loses])


def judge(ev: Evidence) -> Finding:
    """GQA and MQA against MHA, among the variants that learned."""
    return unjudged(ev, CLAIM) or _grouping(ev.learned, ev.everyone)


def _grouping(s: Summary, everyone: Summary) -> Finding:
    """Ainslie et al. 2023: GQA keeps MHA's quality (equivalence within TOLERANCE) and MQA loses a little (MQA
    worse than MHA, a directional claim that needs the difference to count); both must hold."""
    groups = {v: field(s, v, "n_kv_heads") for v, f in s.family.items() if f == "head grouping" and not s.arm.get(v)}
    unmatched = {v for v in groups if (widening(spec_of(s, v), s.base) or "").startswith("unmatched")}
    mqa = sorted((v for v, g in groups.items() if g == 1), key=lambda v: v in unmatched)  # matched ones first
    gqa = sorted((v for v, g in groups.items() if g not in (None, 1)), key=lambda v: v in unmatched)
    text = (
        "Ainslie et al. 2023 (T5-XXL, average score, higher is better): MHA 47.2, GQA-8 47.1, MQA 46.6, i.e. grouped "
        "key/value heads keep nearly all of MHA's quality and a single one loses a little (their models are uptrained "
        "from MHA checkpoints; here each is trained from scratch, its FFN widened to the baseline's parameter count "
        "unless marked unmatched above). "
    )
    if not (mqa and gqa):
        left = unlearned(s, everyone, "head grouping")
        if left:
            return finding(
                CLAIM,
                "inconclusive",
                text + left_out_text(left)[0].upper() + left_out_text(left)[1:],
                cause="a grouped variant did not learn or memorised.",
            )
        return not_run(CLAIM, text + "This run lacks a GQA or MQA variant to compare.")
    g, m = diff(s, gqa[0], gqa[0]), diff(s, mqa[0], mqa[0])
    keeps, loses, verdict = rule(g, m)
    text += (
        f"Here, per-seed Δ perplexity against MHA ({s.mean_ppl(s.baseline):.3f}): {gqa[0]} {interval(g)} "
        f"(equivalent within ±{TOLERANCE:.2f}%, the source's step per character: {keeps}), {mqa[0]} {interval(m)} (worse than MHA: {loses}); this run "
        + {"agrees": "agrees.", "disagrees": "disagrees.", "inconclusive": "is inconclusive."}.get(
            verdict, verdict + "."
        )
    )
    cause = ""
    if verdict != "agrees":
        why = []
        if keeps != "agrees":
            why.append(
                f"{gqa[0]}'s {interval(g)} is "
                + (
                    f"a loss beyond ±{TOLERANCE:.2f}%"
                    if keeps == "disagrees"
                    else f"not resolved within ±{TOLERANCE:.2f}% (its interval reaches past it)"
                )
            )
        if loses != "agrees":
            why.append(f"{mqa[0]}'s {interval(m)} " + ("does not count" if not m.counts else "is not a loss"))
        cause = "; ".join(why) + f" over {g.seeds} paired seeds."
    # the headline is the part the verdict turns on: a refuted part, else the undecided part that needs more seeds
    parts = [(keeps, g.estimate, edge(g, TOLERANCE), None), (loses, m.estimate, 0.0, +1)]
    head = deciding(parts)
    return finding(CLAIM, verdict, text, [g.estimate, m.estimate], cause=cause, headline=head, boundary=parts[head][2])
