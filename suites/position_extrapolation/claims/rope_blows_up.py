"""Plain RoPE's perplexity at 4L is at least twice its perplexity at L (Press et al. 2022; Chen et al. 2023), paired
over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from suites.position_extrapolation.claims._shared import Evidence, change, ppl, rises_by, said, says, unjudged

CLAIM = declared(__file__)
#: plain RoPE "blows up": ppl(4L) at least this many % above ppl(L), i.e. 2x (this project's choice: a doubling within
#: 4L; Press et al.'s rotary rises 77% from L to ~7L on WikiText-103, 20.07 -> 35.54)
BLOWS_UP = 100.0


def judge(ev: Evidence) -> Finding:
    """Agrees when the whole interval of plain RoPE's ppl(4L) against its ppl(L) lies at or above +BLOWS_UP%."""
    blocked = unjudged(ev, CLAIM)
    if blocked is not None:
        return blocked
    rope4 = ppl(ev, "rope", 4)
    if not rope4:
        return not_run(CLAIM)
    diff = change("rope ppl(4L) vs ppl(L)", rope4, ppl(ev, "rope", 1))
    word = rises_by(diff, BLOWS_UP)
    sentence = (
        f"Plain RoPE: ppl(4L) is {said(diff)} above ppl(L); {says(word)} "
        f"(blowing up = at least +{BLOWS_UP:g}%, i.e. 2x, over the whole interval)."
    )
    why = f"blowing up needs a rise of at least {BLOWS_UP:g}% ({diff.why()})"
    cause = "" if word == "agrees" else f"plain RoPE's ppl(4L) is {said(diff)} above ppl(L), and {why}."
    return finding(CLAIM, word, sentence, [diff.estimate], cause=cause, boundary=BLOWS_UP)
