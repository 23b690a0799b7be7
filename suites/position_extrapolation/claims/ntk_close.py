"""NTK-aware scaling keeps ppl(4L) close to plain RoPE's ppl(L) without fine-tuning (Peng et al. 2023; bloc97 2023),
its headroom chosen on validation text at 4L, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from suites.position_extrapolation.claims._shared import (
    Evidence,
    change,
    mistuned,
    params,
    ppl,
    said,
    says,
    stays_within,
    unjudged,
)
from suites.position_extrapolation.tuning import JUDGED_MULTIPLIER

CLAIM = declared(__file__)
#: "close to its value at L": ppl(4L) at most this many % above plain RoPE's ppl(L) (this project's choice: Peng et
#: al. state closeness without a figure)
CLOSE = 25.0


def judge(ev: Evidence) -> Finding:
    """NTK-aware at JUDGED_MULTIPLIER x L (where its headroom was chosen) against plain RoPE's ppl(L): agrees when the
    interval's upper end is within +CLOSE%; records whose headroom was chosen at another length cannot judge it."""
    blocked = unjudged(ev, CLAIM, "ntk")
    if blocked is not None:
        return blocked
    v = ev.by_name.get("ntk")
    if v is None:
        return not_run(CLAIM)
    J = JUDGED_MULTIPLIER
    at4, rope4 = ppl(ev, v, J), ppl(ev, "rope", J)
    if not at4:
        return not_run(CLAIM, f"`{v}`: no perplexity at {J}L.")
    diff = change(f"{v} ppl({J}L) vs rope ppl(L)", at4, _at_l(ev, v, ev.scaled[v]))
    word = stays_within(diff, CLOSE)
    why_not = mistuned(ev, [v])
    if why_not:
        word = "inconclusive"
    plain = change(f"{v} ppl({J}L) vs rope ppl({J}L)", at4, rope4)
    sentence = (
        f"NTK-aware (`{v}`{params(ev.ok, v)}): ppl({J}L) is {said(diff)} above plain RoPE's ppl(L) "
        f"(against plain RoPE at {J}L: {said(plain)}); {says(word)} (close = within +{CLOSE:g}%)."
    )
    cause = (
        ""
        if word == "agrees"
        else (
            f"NTK-aware's ppl({J}L) is {said(diff)} above ppl(L): "
            + (
                f"beyond the {CLOSE:g}% of 'close' over the whole interval."
                if word == "disagrees"
                else f"the interval reaches past {CLOSE:g}%, so the seeds cannot tell close from not."
            )
        )
    )
    if why_not:
        cause = why_not
    # records tuned at another length: no seed plan (over_seeds=False), the cause says what would judge it
    return finding(
        CLAIM, word, sentence, [diff.estimate, plain.estimate], cause=cause, boundary=CLOSE, over_seeds=not why_not
    )


def _at_l(ev: Evidence, v: str, spec: dict) -> dict[int, float]:
    """The reference ppl(L) of an extension: its own at L when s = auto (s = 1 there: the same weights as plain RoPE,
    scored in the same job, so a retraining that differs in the last digits never enters the comparison), else
    plain RoPE's."""
    own = ppl(ev, v, 1)
    return own if spec.get("rope_scale", "auto") == "auto" and own else ppl(ev, "rope", 1)
