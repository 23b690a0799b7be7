"""Position Interpolation at a fixed s > 1 raises perplexity at the training length (Chen et al. 2023), against plain
RoPE on the same weights and text, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from suites.position_extrapolation.claims._shared import Evidence, change, fixed_pi, ppl, rises_by, said, says, unjudged

CLAIM = declared(__file__)
#: PI "raises perplexity at short lengths": ppl at L at least this many % above plain RoPE's there (this project's
#: choice: Chen et al. state the cost without a figure)
PI_RISE = 5.0


def judge(ev: Evidence) -> Finding:
    """PI's short-length cost as Chen et al. state it: a fixed s > 1 (the model extended to s x L), scored at L,
    against plain RoPE at L, the same weights and text (with s = length / L, s is 1 at L and nothing is blurred);
    agrees when the whole interval lies at or above +PI_RISE%."""
    blocked = unjudged(ev, CLAIM, "pi")
    if blocked is not None:
        return blocked
    v = fixed_pi(ev.scaled)
    if v is None and "pi" not in ev.by_name:
        return not_run(CLAIM)
    if v is None:
        return not_run(
            CLAIM,
            "PI's short-length cost needs a fixed s > 1 scored at L (`rope+pi2`); "
            "with s = length / L, s is 1 at L and PI is plain RoPE there.",
        )
    diff = change(f"{v} ppl(1L) vs rope ppl(L)", ppl(ev, v, 1), ppl(ev, "rope", 1))
    if not diff.seeds:
        return not_run(CLAIM, f"`{v}`: no perplexity at L.")
    word = rises_by(diff, PI_RISE)
    return finding(
        CLAIM,
        word,
        f"PI at a fixed s (`{v}`), scored at the training length L: ppl(L) is {said(diff)} "
        f"above plain RoPE's ppl(L); {says(word)} (a rise of at least {PI_RISE:g}% over the whole interval).",
        [diff.estimate],
        cause=""
        if word == "agrees"
        else f"PI's ppl(L) at a fixed s is {said(diff)} above plain RoPE's, short of a clear {PI_RISE:g}% rise "
        f"({diff.why()}).",
        boundary=PI_RISE,
    )
