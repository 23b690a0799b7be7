"""The kv_cache verdicts: checks of the cache-size formula (Llama-2's sizes) and of fewer K/V heads' faster decode-step
attention (Ainslie et al. 2023's argument, on one attention op whose bytes dominate it), and Pope et al. 2022's
memory-bound decode step, judged only on steps pre-selected because their bytes dominate them.

The kinds of estimate (harness/intervals.py): cache bytes are exact; time ratios (MHA / MQA, latency growth over
bytes growth) are positive ("log"), each seed's value a ratio of medians over timing repeats. The timing verdicts
of one seed rest on those repeats and a timing margin set from their noise (NOISE), not on the spread over seeds
(a seed margin would be calibrated from the standard profile's seeds; this one is the repeats' own), so a run of
one seed (the quick profile) is not marked indicative; its estimates have no interval (one value each). With two
seeds or more the paired t test over seeds decides instead, and the margin is not used.
"""

from __future__ import annotations

import pandas as pd

from harness.findings import Estimate, Finding, finding, not_run, not_testable
from harness.paired import all_hold, directional, paired
from harness.suite_file import SuiteFile
from suites.kv_cache.state_section import attention_rows
from suites.kv_cache.steps import DOMINANT, decode_steps, describe
from suites.kv_cache.tables import PUBLISHED_BYTES, _grouping, calculator_table
from variants.cache_size import PUBLISHED, kv_cache_bytes

#: the published findings this suite tests, in the order its report states them (suite.yaml)
KV_BYTES, DECODE, MEMORY_BOUND = CLAIMS = SuiteFile.of(__file__).claims(
    "kv_cache_bytes", "fewer_kv_heads_faster_decode", "decode_is_memory_bound"
)
POPE = (
    "Pope et al. 2022 (arXiv 2211.05102) model a generation step at small batch as memory-bound: its time is the "
    "time to read the weights and the KV cache, so it grows with the cached tokens no faster than those bytes."
)
#: a timing margin, not a seed margin: step times of one seed differ only beyond this factor (their repeat-to-repeat
#: noise, a few % IQR on a quiet CPU): MHA must beat MQA by it, and latency may outgrow the bytes read by it
NOISE = 1.10
AINSLIE = (
    "Ainslie et al. 2023 (arXiv 2305.13245) report T5-XXL inference at 1.51 s per sample with MHA, 0.28 s with "
    "GQA-8 and 0.24 s with MQA: with fewer key/value heads the memory-bound decode step reads a smaller cache."
)
#: what would test the memory claims where no step here is dominated by its bytes
WOULD_TEST = (
    "the decode-step attention at Llama-2-7B's layer shape over 4096 or more cached tokens "
    "(set.path_contexts=[4096,16384], the quick and standard profiles), or the gpu profile on a CUDA device"
)


def findings(df: pd.DataFrame) -> list[Finding]:
    """This suite's check of the cache-size formula and its verdicts on Ainslie et al.'s and Pope et al.'s claims."""
    df = attention_rows(df).copy()  # the recurrent LMs' state has its own table (state_section.py), no verdict here
    df["grouping"] = df.spec.apply(_grouping)
    steps = decode_steps(df)
    return [_bytes_finding(df), _decode_finding(df, steps), _memory_bound_finding(df, steps)]


def _bytes_finding(df: pd.DataFrame) -> Finding:
    """A check (true by construction): the calculator gives the published Llama-2 sizes, and measured cache bytes
    equal the formula."""
    calc = calculator_table()
    agree = bool((calc[calc.published != ""].agrees == "yes").all())
    parts = [
        "The calculator gives exactly the Llama-2 cache sizes from the models' shapes (Touvron et al. 2023: 7B "
        "2 GiB, 13B 3,355,443,200 B, 70B 1,342,177,280 B at 4096 fp16 tokens; 10 GiB if 70B were MHA)."
        if agree
        else "The calculator disagrees with the Llama-2 sizes computed from the models' shapes."
    ]
    cache = df[df.metric == "cache_bytes"]
    equal = int((cache.status == "ok").sum())
    llama = PUBLISHED["Llama-2-7B"]
    estimates = [
        Estimate(
            "Llama-2-7B at 4096 tokens, fp16",
            kv_cache_bytes(llama.layers, llama.kv_heads, llama.head_dim, 4096, 1, 2),
            unit="B",
            seeds=0,
        )
    ]
    if len(cache):
        parts.append(f"Measured cache bytes equal the formula in {equal} of {len(cache)} cases.")
        estimates.append(Estimate("measured = formula", equal, unit=f"of {len(cache)} cases", seeds=0))
    verdict = "agrees" if agree and equal == len(cache) else "disagrees"
    cause = (
        ""
        if verdict == "agrees"
        else (
            "a measured cache size differs from the formula."
            if agree
            else "the calculator misses a published Llama-2 size."
        )
    )
    # the headline, Llama-2-7B's cache from the formula, must equal its published size exactly
    return finding(
        KV_BYTES,
        verdict,
        " ".join(parts),
        estimates,
        int(df.seed.nunique()),
        cause=cause,
        over_seeds=False,
        headline=0,
        boundary=float(PUBLISHED_BYTES["Llama-2-7B"]),
    )


def _judged_steps(steps: pd.DataFrame):
    """(kind, its steps) to judge the memory claims on: the whole model's step where its bytes dominate at the
    longest context, else one layer's decode-step attention where they do; (None, why not) when neither."""
    why = []
    for kind in ("model", "attention"):
        sel = steps[steps.kind == kind]
        if not len(sel):
            continue
        longest = sel[(sel.x == sel.x.max()) & (sel.grouping == "MHA")]
        if len(longest) and longest.groupby("variant").dominated.all().any():
            return kind, sel
        if len(longest):
            what = "the whole model's cached step" if kind == "model" else "one layer's decode-step attention"
            why.append(f"{what} at {int(sel.x.max())} cached tokens with MHA reads {describe(longest)}")
    return None, (
        "the bytes do not dominate any step timed here: " + "; ".join(why)
        if why
        else "these records have no timed cached step with its copy bandwidth"
    )


def _decode_finding(df: pd.DataFrame, steps: pd.DataFrame) -> Finding:
    """Fewer K/V heads make the decode step faster (MHA over MQA beyond NOISE, per position encoding), judged at
    the longest context where the MHA step's bytes dominate it; not testable where no step's bytes dominate."""
    kind, judged = _judged_steps(steps)
    model = _model_step_sentence(df)
    if kind is None:
        if not len(steps):
            return not_run(DECODE)
        return not_testable(
            DECODE,
            f"{judged} (overhead-bound: a step's time is not the time to read its cache)",
            WOULD_TEST,
            _model_ratios(df),
        )
    parts, labels, estimates, causes = [], [], [], []
    whole = {e.label.split(", ")[1]: e for e in _model_ratios(df)}  # position -> the whole model's MHA / MQA step
    for position in sorted(judged.position.unique()):
        mine = judged[judged.position == position]
        mha = mine[(mine.grouping == "MHA") & mine.dominated]
        if not len(mha) or not (mine.grouping == "MQA").any():
            continue
        x = mha.x.max()
        a = mine[(mine.grouping == "MHA") & (mine.x == x)].set_index("seed").ms
        b = mine[(mine.grouping == "MQA") & (mine.x == x)].set_index("seed").ms
        diff = paired(
            f"MHA over MQA step time, {position}", a.to_dict(), b.to_dict(), relative=True, margin=100 * (NOISE - 1)
        )
        # one seed: a difference counts only beyond the timing margin; two or more: on the paired t test over seeds
        label = directional(diff, +1)
        labels.append(label)
        fewer = float(
            mine[(mine.grouping == "MHA") & (mine.x == x)].bytes.mean()
            / mine[(mine.grouping == "MQA") & (mine.x == x)].bytes.mean()
        )  # MHA's bytes over MQA's
        step = whole.get(position)
        also = (
            f" (whole model's step {step.value:.2f}x at {step.label.rsplit(', ', 1)[1]})"
            if kind == "attention" and step is not None
            else ""
        )
        estimates.append(
            Estimate.of(
                f"MHA / MQA {'attention op' if kind == 'attention' else 'step'} time, {position}, "
                f"{int(x)} tokens{also}",
                (a / b).dropna().tolist(),
                kind="log",
            )
        )
        where = "the whole model's step" if kind == "model" else "the decode-step attention"
        parts.append(
            f"With {position}, {where} at {int(x)} cached tokens (MHA: {describe(mine[(mine.grouping == 'MHA') & (mine.x == x)])}, "
            f"bytes dominating) takes {a.mean():.3g} ms with MHA and {b.mean():.3g} ms with MQA "
            f"({a.mean() / b.mean():.2f}x; "
            + (
                diff.why()
                if not diff.one_seed
                else f"beyond the {NOISE - 1:.0%} timing margin"
                if diff.beyond_margin
                else f"within the {NOISE - 1:.0%} timing margin"
            )
            + ")."
        )
        if label != "agrees":
            short = (
                "faster by less than the timing margin" if diff.one_seed else "not faster on the paired test over seeds"
            )
            causes.append(
                f"with {position} MQA is {'slower' if label == 'disagrees' else short} "
                f"({a.mean() / b.mean():.2f}x at {int(x)} tokens)."
            )
    if not labels:
        return not_run(DECODE)
    # every position encoding must hold; the one the verdict turns on is the first that fails, else the smallest ratio
    verdict = all_hold(labels)
    failing = [i for i, label in enumerate(labels) if label != "agrees"]
    head = failing[0] if failing else min(range(len(estimates)), key=lambda i: estimates[i].value)
    where = (
        "Judged on one layer's decode-step attention, chosen because its bytes dominate it (there MHA reads "
        f"{fewer:.0f}x MQA's bytes, so the ratio checks the bytes argument); the whole model's step is shown beside "
        "it. "
        if kind == "attention"
        else ""
    )
    timing = (
        f"The {NOISE - 1:.0%} margin is the timing repeats' noise (one seed), not a seed margin."
        if judged.seed.nunique() == 1
        else ""
    )
    return finding(
        DECODE,
        verdict,
        " ".join([where + parts[0]] + parts[1:] + [model, timing]).strip(),
        estimates,
        cause="" if verdict == "agrees" else causes[0],
        over_seeds=False,
        headline=head,
        boundary=NOISE,
    )


def _model_ratios(df: pd.DataFrame) -> list[Estimate]:
    """MHA / MQA time of the whole model's cached step at the longest context, per position (shown, not judged)."""
    step = df[(df.metric == "decode_latency") & (df.status == "ok")]
    if not len(step):
        return []
    x = step.x.max()
    out = []
    at = step[step.x == x]
    for position in sorted(at.spec.apply(lambda s: s["position"]).unique()):
        mine = at[at.spec.apply(lambda s: s["position"]) == position]
        a = mine[mine.grouping == "MHA"].groupby("seed").value.mean()
        b = mine[mine.grouping == "MQA"].groupby("seed").value.mean()
        if len(a) and len(b):
            out.append(
                Estimate.of(
                    f"MHA / MQA model step time, {position}, {int(x)} tokens", (a / b).dropna().tolist(), kind="log"
                )
            )
    return out


def _model_step_sentence(df: pd.DataFrame) -> str:
    ratios = _model_ratios(df)
    if not ratios:
        return ""
    return (
        "The whole model's cached step (MHA / MQA, not judged where its bytes do not dominate it, and so not the "
        "check's verdict): "
        + "; ".join(f"{e.label.replace('MHA / MQA model step time, ', '')} {e.value:.2f}x" for e in ratios)
        + "."
    )


def _memory_bound_finding(df: pd.DataFrame, steps: pd.DataFrame) -> Finding:
    """Between the two longest contexts, both with the step's bytes dominating it, each variant's step slows by at
    most NOISE x the growth of the bytes it reads: a step that copied its cache, or did work per cached token beyond
    reading it, would grow faster. Not testable where no step's bytes dominate it (an overhead-bound step tells
    nothing about memory)."""
    kind, judged = _judged_steps(steps)
    if kind is None:
        if not len(steps):
            return not_run(MEMORY_BOUND)
        return not_testable(MEMORY_BOUND, f"{judged} (overhead-bound)", WOULD_TEST)
    growth = growth_table(judged)
    if not len(growth):
        return not_testable(
            MEMORY_BOUND, f"no variant's {kind} step has its bytes dominate it at two contexts", WOULD_TEST
        )
    labels = [_within(r.per_seed) for r in growth.itertuples()]
    # each variant judged must stay within the bytes' growth: one that outgrows them refutes the claim
    worst = growth.loc[(growth["latency growth"] / growth["bytes growth"]).idxmax()]
    where = "the whole model's cached step" if kind == "model" else "the decode-step attention (grouped queries)"
    left = sorted(set(judged.variant) - set(growth.variant))
    sentence = (
        f"Judged on {where}, only on steps pre-selected because their bytes dominate them, between the two "
        f"longest contexts at which they do (at least {DOMINANT:.0%} of the latency is the time to read the bytes "
        f"at the copy bandwidth; where no step beats its copy time the selection "
        f"alone bounds the latency's growth by {1 / DOMINANT:g}x the bytes', the verdict asks for {NOISE:.2f}x): "
        + "; ".join(
            f"`{r.variant}` {int(r['from'])} -> {int(r['to'])} tokens, bytes {r['bytes growth']:.2f}x, "
            f"latency {r['latency growth']:.2f}x (share {r['share']:.0%})"
            for _, r in growth.iterrows()
        )
        + f". {labels.count('agrees')} of {len(growth)} variants stay within {NOISE:.2f} x the bytes' growth."
        + (
            f" Not judged (their bytes do not dominate the step at two contexts): {', '.join(f'`{v}`' for v in left)}."
            if left
            else ""
        )
    )
    verdict = all_hold(labels)
    estimates = [
        Estimate.of(f"latency growth / bytes growth, {r.variant}", r.per_seed, kind="log") for r in growth.itertuples()
    ]
    cause = (
        ""
        if verdict == "agrees"
        else (
            f"`{worst.variant}`'s step grows {worst['latency growth']:.2f}x for {worst['bytes growth']:.2f}x the bytes, "
            f"beyond the {NOISE - 1:.0%} allowed for timing noise, on steps pre-selected because their bytes dominate them."
        )
    )
    # the variant whose latency outgrows its bytes the most is the one the verdict turns on
    worst_at = int((growth["latency growth"] / growth["bytes growth"]).values.argmax())
    return finding(
        MEMORY_BOUND, verdict, sentence, estimates, cause=cause, over_seeds=False, headline=worst_at, boundary=NOISE
    )


def _within(per_seed: list[float]) -> str:
    """Latency growth over bytes growth at most NOISE: one seed against the timing margin itself; two or more seeds
    on the 95% interval of the per-seed ratios (agrees when its upper end is within NOISE, disagrees when its lower
    end is beyond, else inconclusive)."""
    e = Estimate.of("ratio", per_seed, kind="log")
    if e.seeds < 2 or e.low is None:
        return "agrees" if e.value <= NOISE else "disagrees"
    return "agrees" if e.high <= NOISE else "disagrees" if e.low > NOISE else "inconclusive"


def growth_table(steps: pd.DataFrame) -> pd.DataFrame:
    """Per variant, between its two longest contexts at which the step's bytes dominate it in every seed: the growth of
    the bytes it reads and of its latency (means over seeds), the per-seed ratio of the two, and the smaller share."""
    rows = []
    for variant, sel in steps.groupby("variant", sort=False):
        dominated = sel.groupby("x").dominated.all()
        xs = sorted(dominated[dominated].index)
        if len(xs) < 2:
            continue
        short, long = xs[-2], xs[-1]
        read = {x: float(sel[sel.x == x].bytes.iloc[0]) for x in (short, long)}
        ms = {x: sel[sel.x == x].set_index("seed").ms for x in (short, long)}
        per_seed = (ms[long] / ms[short]).dropna() / (read[long] / read[short])
        rows.append(
            {
                "variant": variant,
                "from": short,
                "to": long,
                "bytes growth": read[long] / read[short],
                "latency growth": float((ms[long] / ms[short]).mean()),
                "per_seed": list(per_seed),
                "share": float(sel[sel.x.isin([short, long])].share.min()),
            }
        )
    return pd.DataFrame(rows)


# the checks of latent attention's and the sliding window's caches (suites/kv_cache/attention_claims.py), after these
from suites.kv_cache.attention_claims import extend  # noqa: E402

CLAIMS, findings = extend(CLAIMS, findings)
