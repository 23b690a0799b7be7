"""Did each model learn, and did it memorise? The checks every LM verdict rests on.

A verdict comparing variants is only worth something if the models behind it learned more than which
character follows which, and generalise rather than recall their training text:

- *did not learn*: held-out loss not at least ``LEARN_MARGIN`` nats below the bigram entropy of the
  training split (the best a model of character pairs does on the text it was fitted to);
- *memorised*: held-out loss more than ``MEMORISE_RATIO - 1`` above the training loss (last 10% of steps).

Verdict sentences use only variants with neither flag and say how many were left out, and why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from harness.report import fmt_mean_ci, mean_ci
from harness.report_sections import Section

LEARN_MARGIN = 0.3
MEMORISE_RATIO = 1.15


@dataclass(frozen=True)
class LearningCheck:
    """One variant's held-out and training loss (means over seeds) against the corpus's bigram entropy."""

    variant: str
    heldout: tuple[float, ...]
    train: tuple[float, ...]
    bigram: float | None
    unigram: float | None = None

    @property
    def heldout_mean(self) -> float:
        return mean_ci(self.heldout)[0]

    @property
    def train_mean(self) -> float:
        return mean_ci(self.train)[0]

    @property
    def did_not_learn(self) -> bool:
        """Held-out loss missing, or not LEARN_MARGIN nats below the bigram entropy (unknown bigram: not flagged)."""
        if not self.heldout:
            return True
        return self.bigram is not None and self.heldout_mean > self.bigram - LEARN_MARGIN

    @property
    def memorised(self) -> bool:
        h, t = self.heldout_mean, self.train_mean
        return bool(self.heldout) and bool(self.train) and t > 0 and h > MEMORISE_RATIO * t

    @property
    def usable(self) -> bool:
        return not self.did_not_learn and not self.memorised

    def reason(self) -> str:
        """Why the variant is left out of verdicts ('' when it is not)."""
        if not self.heldout:
            return "no held-out loss"
        why = []
        if self.did_not_learn:
            why.append(
                f"did not learn: held-out {self.heldout_mean:.3f} nats is not {LEARN_MARGIN} below the bigram "
                f"entropy {self.bigram:.3f}"
            )
        if self.memorised:
            why.append(
                f"memorised: held-out {self.heldout_mean:.3f} nats is {self.heldout_mean / self.train_mean - 1:.0%} "
                f"above training {self.train_mean:.3f}"
            )
        return "; ".join(why)


def learning_checks(
    df: pd.DataFrame,
    heldout_metric: str = "loss",
    x: float | None = None,
    train_metric: str = "train_loss",
    by: str = "variant",
) -> dict[str, LearningCheck]:
    """One check per value of ``by`` (default: variant) from a group's records.

    ``heldout_metric`` at ``x`` (the training length; None when the metric has no x) and ``train_metric``
    are averaged over seeds; the bigram entropy comes from the records' ``bigram_entropy`` fact.
    """
    ok = df[df.status == "ok"]
    checks = {}
    for key in df[by].drop_duplicates():
        rows = ok[ok[by] == key]
        held = rows[rows.metric == heldout_metric]
        if x is not None:
            held = held[held.x == x]
        train = rows[rows.metric == train_metric]
        checks[key] = LearningCheck(
            str(key),
            tuple(float(v) for v in held.value),
            tuple(float(v) for v in train.value),
            _fact(rows, "bigram_entropy"),
            _fact(rows, "unigram_entropy"),
        )
    return checks


def _fact(rows: pd.DataFrame, column: str) -> float | None:
    if column not in rows:
        return None
    vals = rows[column].dropna()
    return float(vals.iloc[0]) if len(vals) else None


def learning_table(
    checks: dict[str, LearningCheck], order: Sequence[str] | None = None, label: str = "variant"
) -> pd.DataFrame:
    """Per variant: held-out loss at L, training loss, the bigram baseline and the two flags."""
    rows = []
    for v in order or list(checks):
        c = checks.get(v)
        if c is None:
            continue
        rows.append(
            {
                label: v,
                # a cross-entropy is above 0: log-scale intervals, which never run below it
                "held-out loss at L (nats/char)": fmt_mean_ci(c.heldout, 3, "log"),
                "train loss, last 10% (nats/char)": fmt_mean_ci(c.train, 3, "log"),
                "bigram entropy (nats/char)": "-" if c.bigram is None else f"{c.bigram:.3f}",
                "held-out - bigram": "-" if c.bigram is None or not c.heldout else f"{c.heldout_mean - c.bigram:+.3f}",
                "held-out / train": "-" if not c.heldout or not c.train else f"{c.heldout_mean / c.train_mean:.2f}",
                "did not learn": "**yes**" if c.did_not_learn else "no",
                "memorised": "**yes**" if c.memorised else "no",
            }
        )
    return pd.DataFrame(rows)


def learning_section(
    checks: dict[str, LearningCheck], order: Sequence[str] | None = None, label: str = "variant"
) -> Section:
    """The report section (bookkeeping): what the flags mean, the table, and the baselines of the corpus."""
    from harness.report import markdown_table
    from harness.report_kit import over_seeds
    from harness.report_sections import BOOKKEEPING, section

    any_check = next(iter(checks.values()), None)
    corpus = ""
    if any_check is not None and any_check.bigram is not None:
        corpus = (
            f" On this corpus's training split the unigram entropy is {any_check.unigram:.3f} nats/char "
            f"(perplexity {math.exp(any_check.unigram):.1f}) and the bigram entropy {any_check.bigram:.3f} "
            f"(perplexity {math.exp(any_check.bigram):.1f})."
        )
    return section(
        "Checks: did each model learn?",
        [
            f"*Did not learn*: held-out loss at L not at least {LEARN_MARGIN} nats below the bigram entropy of the training "
            f"split. *Memorised*: held-out loss more than {MEMORISE_RATIO - 1:.0%} above the training loss. Verdicts below use "
            f"only runs with neither flag. Losses: {over_seeds(max((len(c.heldout) for c in checks.values()), default=0))}."
            + corpus,
            "",
            markdown_table(learning_table(checks, order, label)),
            "",
        ],
        BOOKKEEPING,
    )


def usable(checks: dict[str, LearningCheck]) -> tuple[list[str], str]:
    """(variants verdicts may use, a sentence on those left out and why; '' when none is)."""
    keep = [v for v, c in checks.items() if c.usable]
    left = [(v, c.reason()) for v, c in checks.items() if not c.usable]
    if not left:
        return keep, ""
    return keep, (
        f"{len(left)} of {len(checks)} left out of the verdicts: "
        + "; ".join(f"`{v}` ({why})" for v, why in left)
        + "."
    )
