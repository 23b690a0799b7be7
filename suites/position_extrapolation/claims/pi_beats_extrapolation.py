"""Position Interpolation (s = length / L) has lower perplexity past L than plain extrapolation, here without
fine-tuning (Chen et al. 2023): at 2L and 4L, the same length for both, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import all_hold
from suites.position_extrapolation.claims._shared import (
    Evidence,
    change,
    deciding_part,
    fixed_pi,
    lower,
    ppl,
    said,
    says,
    short_of_holm,
    unjudged,
)

CLAIM = declared(__file__)
#: PI against plain extrapolation is read at these multiples of L, each at the same length for both (this project's
#: choice: past L, within the 4L the other extensions are judged at)
PI_LENGTHS = (2, 4)


def judge(ev: Evidence) -> Finding:
    """PI (s = length / L) against plain extrapolation at each of PI_LENGTHS: lower at every one (all_hold), as
    Chen et al.'s bounded interpolated scores predict; the cause of a verdict short of that cites what a fixed s
    costs at L, where nothing extrapolates."""
    blocked = unjudged(ev, CLAIM, "pi")
    if blocked is not None:
        return blocked
    v = ev.by_name.get("pi")
    if v is None or str(ev.scaled[v].get("rope_scale", "auto")) != "auto":
        return not_run(CLAIM)
    diffs = [change(f"{v} ppl({k}L) vs rope ppl({k}L)", ppl(ev, v, k), ppl(ev, "rope", k)) for k in PI_LENGTHS]
    diffs = [d for d in diffs if d.seeds]
    if not diffs:
        return not_run(CLAIM, f"`{v}`: no perplexity past L.")
    words = [lower(d) for d in diffs]
    word = all_hold(words)
    parts = "; ".join(f"at {k}L {said(d)}" for k, d in zip(PI_LENGTHS, diffs))
    sentence = (
        f"PI without fine-tuning (`{v}`, s = length / L) against plain RoPE at the same length: {parts}; "
        f"{says(word)} (lower at each length, paired over seeds)."
    )
    deciding = deciding_part(word, words)
    cause = ""
    if word != "agrees":
        worse = [f"{k}L" for k, d, w in zip(PI_LENGTHS, diffs, words) if w == "disagrees"]
        cause = (
            f"PI is higher than plain extrapolation at {', '.join(worse)}"
            if worse
            else f"PI against plain extrapolation {said(diffs[deciding])} ({diffs[deciding].why()})"
        )
        cause += short_of_holm(word, words) + _blur(ev, fixed_pi(ev.scaled))
    return finding(CLAIM, word, sentence, [d.estimate for d in diffs], cause=cause, headline=deciding, boundary=0.0)


def _blur(ev: Evidence, fixed: str | None) -> str:
    """Why interpolation costs without fine-tuning, with what the fixed-s PI variant ``fixed`` costs at L."""
    blur = change(f"{fixed} ppl(1L) vs rope ppl(L)", ppl(ev, fixed, 1), ppl(ev, "rope", 1)) if fixed else None
    return (
        "; without fine-tuning, interpolation divides the offsets between neighbouring characters by s, "
        "offsets the model never saw and the ones a character LM leans on most"
        + (
            f": at the training length, where nothing extrapolates, `{fixed}` alone costs {said(blur)}"
            if blur is not None and blur.seeds
            else ""
        )
        + "; Chen et al. fine-tune about 1000 steps to adapt to it."
    )
