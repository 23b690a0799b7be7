"""What scaling's claims share: a claim judged at every rung of the ladder, the verdict at the largest rung, and
whether it flips along the ladder.

Each rung's comparison is the suite's one paired test over seeds (harness/paired.py) of the held-out loss at the end
of training, variant minus baseline, in nats per character: directional for "stronger than", equivalence within the
language_modeling margin (the source's units, suites/common/char_margin.py) for "keeps quality". The claim's
verdict is the one at the largest rung both arms reached, the nearest to the source's scale: one paired test, so the
claim's verdict has that test's size, with no combination over rungs. The sentence lists every rung's verdict, says
where it changes, and marks a rung whose learning-rate sweep does not bracket an arm's best rate (a seed kept an end of
the sweep: that arm may be above its best loss there, so the comparison mixes the arms with how well the sweep suits
them).
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from harness.findings import Claim, Finding, finding, not_run
from harness.paired import Difference, paired
from suites.scaling.ladder import BASELINE
from suites.scaling.tables import final_losses, settings, unbracketed


def flips(verdicts: list[tuple[int, str]]) -> str:
    """'' when every rung has the same verdict, else where it changes ('agrees at rungs 0-1, inconclusive at 2-3')."""
    if len({v for _, v in verdicts}) <= 1:
        return ""
    runs: list[list] = []
    for rung, verdict in verdicts:
        if runs and runs[-1][0] == verdict:
            runs[-1][2] = rung
        else:
            runs.append([verdict, rung, rung])
    return ", ".join(f"{v} at rung{'s' if a != b else ''} {a}{f'-{b}' if a != b else ''}" for v, a, b in runs)


def _show(d: Difference) -> str:
    """'+0.0123 [-0.0100, +0.0346] nats/char (2 seeds)', or the value alone at one seed."""
    e = d.estimate
    inside = f" [{e.low:+.4f}, {e.high:+.4f}]" if e.low is not None else ""
    return f"{e.value:+.4f}{inside} nats/char ({e.seeds} seed{'s' if e.seeds != 1 else ''})"


def one_rate(df: pd.DataFrame) -> str:
    """The sentence that flags a ladder at one learning rate (confounded: the best rate moves with size), or ''."""
    rates = list(settings(df).get("learning_rates") or [])
    if len(rates) >= 2:
        return ""
    return (
        f"Confounded: every rung trained at one learning rate ({', '.join(f'{r:g}' for r in rates)}), and the best "
        "rate moves with model size."
    )


def along_ladder(
    df: pd.DataFrame,
    claim: Claim,
    variant: str,
    judge: Callable[[Difference], str],
    boundary: float,
    says: dict[str, str],
) -> Finding:
    """The claim ``variant`` against the baseline judged at each rung by ``judge``; the verdict at the largest rung."""
    losses = final_losses(df)
    rungs = sorted(r for (v, r) in losses if v == variant and (BASELINE, r) in losses)
    if not rungs:
        return not_run(claim, f"This run lacks `{variant}` or `{BASELINE}` at a common rung.")
    per_rung = [
        (r, paired(f"{variant} - {BASELINE} loss, rung {r}", losses[(variant, r)], losses[(BASELINE, r)], "nats/char"))
        for r in rungs
    ]
    verdicts = [(r, judge(d)) for r, d in per_rung]
    top, top_diff = per_rung[-1]
    verdict = verdicts[-1][1]
    changed = flips(verdicts)
    open_ = {r: bracket_note(df, variant, r) for r in rungs}
    listed = "; ".join(
        f"rung {r}: {_show(d)} ({v}{f'; {open_[r]}' if open_[r] else ''})" for (r, d), (_, v) in zip(per_rung, verdicts)
    )
    sentence = (
        f"Per rung, `{variant}` against `{BASELINE}` in held-out loss at the end of training, paired over seeds: {listed}. "
        + (f"The verdict flips along the ladder: {changed}. " if changed else "Every rung has the same verdict. ")
        + f"At the largest rung ({top}) {says[verdict]}"
    )
    confounded = one_rate(df)
    if confounded:
        sentence += " " + confounded
    if open_[top]:
        sentence += f" The deciding rung is {open_[top]}."
    cause = ""
    if verdict != "agrees" or confounded or open_[top]:
        cause = (
            f"at the largest rung ({top}) `{variant}` - `{BASELINE}` is {_show(top_diff)}"
            + (f"; along the ladder {changed}" if changed else "")
            + (f"; {confounded[0].lower()}{confounded[1:].rstrip('.')}" if confounded else "")
            + (f"; that rung is {open_[top]}" if open_[top] else "")
            + "."
        )
    estimates = [top_diff.estimate] + [d.estimate for _, d in per_rung[:-1]]
    along = (
        "By rung: "
        + ", ".join(f"{r} {v}{' (not bracketed)' if open_[r] else ''}" for r, v in verdicts)
        + ("; it flips." if changed else "; no flip.")
    )
    return finding(claim, verdict, sentence, estimates, cause=cause, boundary=boundary, along=along)


def bracket_note(df: pd.DataFrame, variant: str, rung: int) -> str:
    """'' when both arms' sweeps bracket their best rate at ``rung``; else 'not bracketed: baseline kept 0.03, the
    sweep's top, in 3 of 3 seeds'."""
    open_ = unbracketed(df)
    parts = [f"{v} {open_[(v, rung)]}" for v in (BASELINE, variant) if (v, rung) in open_]
    return "not bracketed: " + "; ".join(parts) if parts else ""
