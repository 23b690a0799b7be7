"""A check: a sliding window cannot retrieve a key farther back than its stacked span, layers x (W - 1) positions.

Stacked windows of W keys (Beltagy et al. 2020, arXiv 2004.05150; Jiang et al. 2023, arXiv 2310.06825) let the
last position depend on at most layers x (W - 1) earlier positions. The distance from the key's first digit to the
question's end is fixed by the length and the needle's depth (passkey.distance, stored in each accuracy record), so
every (length, depth) cell is either within the span or beyond it, and beyond it the model can only guess 5 random
digits. Checked on the stored per-depth accuracies. The positive control is the cells whose key lies within one
window (distance at most W - 1), which one attention hop reaches; between W and the span a stack may relay the key
but need not learn to, so those cells are shown, not judged.
"""

from __future__ import annotations

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from suites.retrieval_length.records import SHARE, ok_records

CLAIM = declared(__file__)
#: beyond the span, the most mean accuracy the check allows (this project's choice: guessing scores 1e-5 per
#: sequence, so 0.02 leaves room only for a handful of lucky draws)
BEYOND_MOST = 0.02
#: within one window, the least mean accuracy for the zero beyond the span to say something (the model learned to
#: retrieve; this project's choice)
WITHIN_LEAST = 0.5


def span_of(spec: dict) -> int | None:
    """layers x (W - 1): how far back the last position sees through a stack of windows (None: no window)."""
    window = spec.get("window")
    return None if window is None else int(spec["n_layers"]) * (int(window) - 1)


def cells(df: pd.DataFrame) -> dict[str, dict[str, list[float]]]:
    """variant -> {'beyond': ..., 'relay': ..., 'within': ...} accuracies over every (seed, length, depth) cell of its
    window models' accuracy records (without fine-tuning): beyond the span, between one window and the span, within
    one window."""
    ok = ok_records(df)
    out: dict[str, dict[str, list[float]]] = {}
    for r in ok[ok.metric == "accuracy"].itertuples():
        span = span_of(r.spec if isinstance(r.spec, dict) else {})
        extra = r.extra if isinstance(r.extra, dict) else {}
        if span is None or "distances" not in extra:
            continue
        window = int(r.spec["window"])
        side = out.setdefault(r.variant, {"beyond": [], "relay": [], "within": []})
        for dist, acc in zip(extra["distances"], extra["by_depth"]):
            where = "beyond" if dist > span else ("within" if dist <= window - 1 else "relay")
            side[where].append(float(acc))
    return out


def judge(df: pd.DataFrame) -> Finding:
    """Every window model at most BEYOND_MOST beyond its span; judged on the models that retrieve at least WITHIN_LEAST
    within one window (a model that never learned to retrieve is named and left out), inconclusive when none does."""
    found = cells(df)
    if not found or not any(c["beyond"] for c in found.values()):
        return not_run(
            CLAIM,
            "This run has no window model scored where the key lies beyond its span.",
            "bench run suite=retrieval_length variants=[rope+window32]",
        )
    judged, left_out, words, parts = [], [], [], []
    for variant, c in found.items():
        beyond = sum(c["beyond"]) / len(c["beyond"]) if c["beyond"] else 0.0
        within = sum(c["within"]) / len(c["within"]) if c["within"] else 0.0
        shown = [Estimate.of(f"{variant} accuracy beyond its span", c["beyond"], kind="bounded", bounds=SHARE)]
        if c["within"]:
            shown.append(Estimate.of(f"{variant} accuracy within its span", c["within"], kind="bounded", bounds=SHARE))
        if beyond > BEYOND_MOST:  # a leak, whether or not the model learned the task
            words.append("disagrees")
        elif within < WITHIN_LEAST:  # never learned to retrieve: its zero beyond says nothing, so it is left out
            words.append("left out")
        else:
            words.append("agrees")
        # the headline (the first estimate) is a judged model's: one left out for never learning says nothing
        (left_out if words[-1] == "left out" else judged).extend(shown)
        relay = f", {sum(c['relay']) / len(c['relay']):.2f} over {len(c['relay'])} between" if c["relay"] else ""
        parts.append(
            f"`{variant}` {beyond:.3f} over {len(c['beyond'])} cells beyond its span, {within:.2f} over "
            f"{len(c['within'])} within one window{relay}"
            + (f" (below {WITHIN_LEAST:g} within one window: not judged)" if words[-1] == "left out" else "")
        )
    word = (
        "disagrees" if "disagrees" in words else ("agrees" if "agrees" in words else "inconclusive")
    )  # agrees on the models that learned to retrieve within one window, when at least one did
    cause = {
        "agrees": "",
        "disagrees": f"A window model retrieves beyond its span (more than {BEYOND_MOST:g}): the mask leaks.",
        "inconclusive": f"Every window model retrieves less than {WITHIN_LEAST:g} even within one window, so its "
        "zero beyond says nothing.",
    }[word]
    text = f"Mean accuracy: {'; '.join(parts)}. Check: **{word}**."
    return finding(CLAIM, word, text, judged + left_out, cause=cause, over_seeds=False, pairs="cell")
