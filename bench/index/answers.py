"""The answers the index opens with: one per question a user brings, each drawn from the scoreboard's verdicts.

The rule, the same for every question: a finding that agrees is stated as this benchmark's answer; one that
disagrees is stated as contradicted here; the rest (inconclusive, not testable here, not run) are counted as
undecided, and a question none of whose findings agrees or disagrees says that the evidence here cannot decide it.
Every statement links the finding it rests on, and each answer carries its scale in one line (parameters, training
steps and seeds of the records behind it), since a verdict at this scale is no verdict at a billion parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

#: the hidden scoreboard column holding each row's claim key (bench/index/scoreboard.py)
CLAIM = "claim"


@dataclass(frozen=True)
class Question:
    """A question a user brings, and the claims (by key) whose verdicts answer it."""

    text: str
    claims: tuple[str, ...]


#: the questions the index opens with, by the key a claim names in its suite.yaml (``answers: <key>``), in order
QUESTION_TEXT: dict[str, str] = {
    "position": "Which position encoding holds up past the training length?",
    "kv_cache": "How small can the KV cache get at equal quality?",
    "recall": "Which architecture recalls and copies what it has read?",
    "attention_vs_recurrence": "What does attention buy over recurrence, and do its weights explain the model?",
    "stability": "Which normalisation and warm-up train stably?",
}
#: what a claim that answers no question says in its ``answers`` field
NONE = "none"


def questions() -> tuple[Question, ...]:
    """Every question with the claims that answer it, read from the registered suites' ``suite.yaml`` files."""
    from harness.contract import suites

    claims = [c for name in suites.names() for c in suites.get(name).claims]
    return tuple(
        Question(text, tuple(c.key for c in claims if c.answers == key)) for key, text in QUESTION_TEXT.items()
    )


def scale(frames: Mapping[str, pd.DataFrame], suites_used: list[str]) -> str:
    """'up to 0.8M parameters, 500-3000 training steps, 3 seeds' of the records of ``suites_used``."""
    params, steps, seeds = [], [], []
    for name in suites_used:
        frame = frames.get(name)
        if frame is None or not len(frame):
            continue
        if "parameters" in frame:
            params += [p for p in pd.to_numeric(frame.parameters, errors="coerce").dropna()]
        settings = frame.profile_settings.dropna() if "profile_settings" in frame else []
        steps += [s["steps"] for s in settings if isinstance(s, dict) and isinstance(s.get("steps"), int)]
        if "seed" in frame:
            seeds.append(int(frame.seed.nunique()))
    parts = []
    if params:
        parts.append(f"up to {max(params) / 1e6:.1f}M parameters")
    if steps:
        low, high = min(steps), max(steps)
        parts.append(f"{low} training steps" if low == high else f"{low}-{high} training steps")
    if seeds:
        low, high = min(seeds), max(seeds)
        parts.append(f"{low} seed{'s' if low > 1 else ''}" if low == high else f"{low}-{high} seeds")
    return ", ".join(parts) or "no records"


def answer_lines(
    question: Question, board: pd.DataFrame, frames: Mapping[str, pd.DataFrame], suite_of: Mapping[str, str]
) -> list[str]:
    """The Markdown of one question's answer under the module's rule."""
    rows = board[board[CLAIM].isin(question.claims)]
    agree = [r.finding for r in rows.itertuples() if r.verdict == "agrees"]
    disagree = [r.finding for r in rows.itertuples() if r.verdict == "disagrees"]
    undecided = rows[~rows.verdict.isin(["agrees", "disagrees"])]
    lines = [f"**{question.text}**", ""]
    if agree:
        lines += ["- Supported here: " + "; ".join(agree) + "."]
    if disagree:
        lines += ["- Contradicted here: " + "; ".join(disagree) + "."]
    if not agree and not disagree:
        lines += [
            "- The evidence here cannot decide it: every finding it rests on is inconclusive, not testable here "
            "or not run."
        ]
    if len(undecided):
        lines += [
            "- Undecided: "
            + "; ".join(f"{r.finding} ({r.verdict})" for r in undecided.itertuples())
            + ". The scoreboard says why for each."
        ]
    used = sorted(
        {suite_of[c] for c in rows[CLAIM] if c in suite_of and rows[rows[CLAIM] == c].verdict.iloc[0] != "not run"}
    )
    lines += [f"- Scale: {scale(frames, used)}" + (f" ({', '.join(used)})." if used else "."), ""]
    return lines


def answers_section(
    board: pd.DataFrame, frames: Mapping[str, pd.DataFrame], suite_of: Mapping[str, str] | None = None
) -> list[str]:
    """The index's opening section: every question's answer, under the rule this module states."""
    from harness.contract import suites

    if suite_of is None:
        suite_of = {c.key: name for name in suites.names() for c in suites.get(name).claims}
    lines = [
        "## Answers",
        "",
        "Each answer is drawn from the findings scoreboard below by one rule: a finding that agrees is stated as "
        "supported here, one that disagrees as contradicted here, and the rest are counted as undecided; a "
        "question with no finding either way says the evidence here cannot decide it. The scale line says how "
        "small these models are: a verdict here is evidence at that scale, not at a production model's.",
        "",
    ]
    for question in questions():
        lines += answer_lines(question, board, frames, suite_of)
    return lines
