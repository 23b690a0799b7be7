"""At small d_k additive and unscaled dot-product scores are similar (Vaswani et al. 2017, 3.2.1, after Britz et al.
2017): held-out perplexity with sinusoidal positions, paired over seeds, within the source's step per character."""

from __future__ import annotations

import math

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import equivalent, paired
from suites.common.char_margin import TOLERANCE_PCT, derivation
from suites.language_modeling.claims._shared import (
    Evidence,
    diff,
    edge,
    interval,
    left_out_text,
    said,
    unjudged,
    unlearned,
)
from suites.language_modeling.summary import Summary, field

CLAIM = declared(__file__)
#: the equivalence tolerance of "similar", in % of per-character perplexity: the smallest change Vaswani et al.'s
#: Table 3 calls a loss (d_k 32 -> 16, +3.0% per wordpiece), converted from nats per wordpiece to nats per character
#: (suites/common/char_margin.py)
TOLERANCE = TOLERANCE_PCT


def judge(ev: Evidence) -> Finding:
    """Additive against the unscaled dot product of the sinusoidal arm, among the variants that learned."""
    return unjudged(ev, CLAIM) or _scoring(ev.learned, ev.everyone)


def _scorings(s: Summary, arm: str):
    """(the arm's baseline, [unscaled dot and additive variants]) of one arm ('' = the baseline's position)."""
    members = [
        v
        for v, f in s.family.items()
        if f == "scoring" and s.arm.get(v) == arm and field(s, v, "scoring") in ("dot", "additive")
    ]
    members.sort(key=lambda v: field(s, v, "scoring") != "dot")  # dot first
    refs = {s.reference.get(v) for v in members}
    return (refs.pop() if len(refs) == 1 else None), members


def _pair(s: Summary, members: list[str]):
    """Additive against the unscaled dot product of one arm (members: [dot, additive]), or None without both."""
    kinds = {field(s, v, "scoring"): v for v in members}
    if not ("dot" in kinds and "additive" in kinds):
        return None
    dot, add = kinds["dot"], kinds["additive"]
    return paired(f"{add} Δ ppl vs {dot}", s.ppl.get(add, {}), s.ppl.get(dot, {}), relative=True)


def _scoring(s: Summary, everyone: Summary) -> Finding:
    """Vaswani et al. 2017: at small d_k additive and (unscaled) dot-product scores are similar.

    "The two mechanisms" of their 3.2.1 are additive attention and dot-product attention, "identical to our algorithm,
    except for the scaling factor": the claim compares additive with the *unscaled* dot product, so that pair decides
    (an equivalence within TOLERANCE); each is also shown against the scaled dot product of the same positions. The
    main arm has absolute (sinusoidal) positions, as in Vaswani et al. and Britz et al.; the RoPE arm is reported beside
    it but does not decide: RoPE rotates q and k before the score, which keeps its relative-position property only for
    a dot product (Su et al. 2021), not for additive's MLP of q and k.
    """
    head = s.base["d_model"] // s.base["n_heads"]
    text = (
        "Vaswani et al. 2017 (3.2.1) find additive and dot-product attention (theirs without the 1/sqrt(d_k) "
        "scaling) similar for small key sizes d_k, and additive better than unscaled dot products at large d_k, why "
        f"they scale; their setting has sinusoidal absolute positions. Here d_k = {head}, a small key size; additive "
        f"against the unscaled dot product of the same positions, per-seed Δ perplexity with its 95% interval, "
        f"similar when the interval lies within {derivation()}; each also against the scaled dot product. "
    )
    main_ref, main = _scorings(s, "sinusoidal")
    _, rope = _scorings(s, "")
    rope_pair = _pair(s, rope)
    rope_diffs = [diff(s, v, f"{v} (RoPE arm)") for v in rope] + ([rope_pair] if rope_pair else [])
    rope_text = (
        (
            "RoPE arm (second, not judged: RoPE's relative property holds only for dot products): "
            + ", ".join(f"{d.estimate.label} {interval(d)}" for d in rope_diffs)
            + ". "
        )
        if rope
        else ""
    )
    pair = _pair(s, main)
    if pair is None:
        return _without_pair(s, everyone, text, rope_text, rope_diffs)
    beside = [diff(s, v, f"{v}") for v in main]
    verdict = equivalent(pair, TOLERANCE)
    text += (
        f"Sinusoidal arm (main): {pair.estimate.label} {interval(pair)}: {verdict}; against the scaled dot "
        f"product `{main_ref}` ({s.mean_ppl(main_ref):.3f}): "
        + "; ".join(f"{v} {interval(d)}" for v, d in zip(main, beside))
        + ". "
        + rope_text
        + f"This run {said(verdict)} that the scorings are similar at small d_k."
    )
    cause = ""
    if verdict != "agrees":
        missing = [v for v in main if math.isnan(s.mean_ppl(v))]
        cause = (
            f"{', '.join(missing)} has no perplexity to compare ({s.status(missing[0])})."
            if missing
            else f"with sinusoidal positions additive changes perplexity against the unscaled dot product by "
            f"{interval(pair)}, "
            + ("beyond" if verdict == "disagrees" else "not resolved within")
            + f" the ±{TOLERANCE:.2f}% tolerance at this size and budget."
        )
    return finding(
        CLAIM,
        verdict,
        text,
        [pair.estimate] + [d.estimate for d in beside + rope_diffs],
        cause=cause,
        boundary=edge(pair, TOLERANCE),
    )


def _without_pair(s: Summary, everyone: Summary, text: str, rope_text: str, rope_diffs: list) -> Finding:
    """No verdict without the sinusoidal arm's pair: inconclusive where it ran but did not learn, else not run."""
    left = [v for v in unlearned(s, everyone, "scoring") if everyone.arm.get(v) == "sinusoidal"]
    if "sinusoidal" in everyone.family and "sinusoidal" not in s.family:
        left = ["sinusoidal"] + left
    if left:
        return finding(
            CLAIM,
            "inconclusive",
            text + "Sinusoidal arm: " + left_out_text(left) + " " + rope_text,
            [d.estimate for d in rope_diffs],
            cause="the sinusoidal arm's models did not learn or memorised.",
        )
    return not_run(
        CLAIM,
        text + rope_text + "This run lacks the sinusoidal arm's `sinusoidal+dot` and "
        "`sinusoidal+additive+naive`, the pair the claim is about.",
    )
