"""The language_modeling report: setup, one table per variant family against the shared baseline, a figure
of perplexity against parameters, and the comparison with the published findings (its claims, claims/)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.findings import sentences
from harness.intervals import spread
from harness.report_kit import (
    begin,
    code_line,
    first_ok,
    fmt_count,
    fmt_mean_ci,
    fmt_pct,
    machines,
    markdown_table,
    over_seeds,
    status_notes,
    title,
)
from harness.report_sections import BOOKKEEPING, FIGURE, HEADLINE, Report, Section, section
from suites.common.facts import fact
from suites.common.learning import learning_checks, learning_section, usable
from suites.language_modeling.figure import perplexity_figure
from suites.language_modeling.schedule import warmup_of
from suites.language_modeling.summary import (
    FAMILY_ORDER,
    PARAM_TOLERANCE,
    Summary,
    arm_label,
    own_arm,
    spec_of,
    widening,
)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    _, _, seeds = begin(df, out_dir)
    s = Summary(df)
    first = first_ok(df)
    settings = first.profile_settings
    figure = perplexity_figure(s, out_dir / "figures" / f"{suite.name}.png", FAMILY_ORDER, PARAM_TOLERANCE)
    checks = learning_checks(df, "loss", float(settings["train_len"]))
    notes = status_notes(df)
    return Report(title(suite, "Language modelling", first), files=[figure]).add(
        _perplexity_section(s),
        section(
            "Perplexity against parameters",
            [f"![held-out perplexity against parameter count](figures/{figure.name})", ""],
            FIGURE,
        ),
        learning_section(checks, [s.baseline] + sorted(v for v in s.family if v != s.baseline) if s.baseline else None),
        _published_section(suite, df, s, usable(checks)[1]),
        _setup_section(s, df, first, seeds),
        section("Cells that are not numbers", notes + [""], BOOKKEEPING) if notes else None,
    )


def _setup_section(s: Summary, df: pd.DataFrame, first, seeds: list[int]) -> Section:
    """The model, training, evaluation, FLOP counting, control arms, kernels and device of the group."""
    settings, spec = first.profile_settings, s.base
    backends = s.ok.drop_duplicates("variant").set_index("variant").get("attention_backend", pd.Series(dtype=str))
    lines = [
        f"- Model: decoder-only character Transformer, {spec['n_layers']} layers, d_model {spec['d_model']}, "
        f"{spec['n_heads']} heads (head size {spec['d_model'] // spec['n_heads']}), tied embeddings, position "
        f"{spec['position']}. Baseline: scoring {spec['scoring']}, {spec['n_kv_heads'] or spec['n_heads']} key/value heads, "
        f"{spec['norm_placement']}-norm {spec['norm']}, FFN {spec['ffn']}, kernel {spec['kernel']}.",
        f"- Training: {settings['steps']} steps of {settings['batch_size']} x {settings['train_len']} characters, AdamW lr "
        f"{settings['lr']:g} (warm-up {settings['warmup_steps']} steps, cosine decay), weight decay {settings['weight_decay']:g}, "
        f"gradient clipping {settings['grad_clip']:g}; profile `{first.profile}`; seeds {seeds}.",
        f"- Evaluation: perplexity per character on {int(first.get('eval_chars') or 0):,} held-out characters of "
        f"{first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...; "
        f"{first.get('split') or 'last ' + format(settings['heldout_fraction'], '.0%') + ' held out'}; training split "
        f"{int(first.get('train_chars') or 0):,} characters, read {float(first.get('train_passes') or 0):.2f} times) in "
        f"**non-overlapping** windows of the training length {settings['train_len']}.",
        "- Training FLOPs: torch.utils.flop_counter.FlopCounterMode on one training step (forward and backward) x steps, "
        "counted on a copy of the model with the `naive` kernel (the counter cannot see inside fused CPU kernels); "
        "matrix products only, so elementwise work (softmax, norms, activations, additive attention's tanh) is not counted, "
        "and the full T x T score matrix is counted, masked half included.",
        *_arms_lines(s, settings),
        "- Attention implementation per variant (as dispatched): "
        + ", ".join(f"{v} {backends[v]}" for v in backends.index)
        + ".",
        f"- Device: {first.device} ({machines(df)}), {first['dtype']}, torch {first.torch_version}, flush denormals "
        f"{fact(first, 'flush_denormal')}; {code_line(df)}.",
        "",
    ]
    return section("Setup", lines, BOOKKEEPING)


def _perplexity_section(s: Summary) -> Section:
    """The headline: one table, one row per variant (each reference once, before the first family compared with it)."""
    arms = sorted({a for a in s.arm.values() if a})
    tables = [
        (fam, arm)
        for arm in [""] + arms
        for fam in FAMILY_ORDER
        if any(f == fam and s.arm[v] == arm for v, f in s.family.items())
    ]
    rows, shown = [], set()
    for fam, arm in tables:
        members = sorted(v for v, f in s.family.items() if f == fam and s.arm[v] == arm)
        refs = sorted({s.reference[v] for v in members if s.reference.get(v)})
        for v in [r for r in refs if r not in shown] + members:
            if v not in shown:
                rows.append(_row(s, v, v in refs, f"{fam}, {arm_label(arm)}" if arm else fam))
                shown.add(v)
    if not tables:
        rows = [_row(s, v) for v in s.family]
    return section(
        f"Perplexity of every variant ({over_seeds(max((len(p) for p in s.ppl.values()), default=0))}; each family "
        "against the shared baseline, an arm against its own)",
        [
            f"Δ ppl is the per-seed relative change against the variant's baseline (the shared one, or its arm's own, "
            f"in the against column) of the same seed; families are listed in turn. Perplexities and their ratios are "
            f"positive: their intervals are on a log scale (harness/intervals.py), so they stay above 0 and above -100%. A variant whose parameter count differs from its baseline's by more than {PARAM_TOLERANCE:.0%} is flagged: its comparison is not at equal budget. "
            "Grouped key/value heads (gqa<g>, mqa) remove K/V projection parameters, so by default their FFN is widened "
            "until the model is within 2% of the baseline's count; the budget column gives the d_ff, and a `+unmatched` "
            "variant keeps the default FFN.",
            "",
            markdown_table(pd.DataFrame(rows)),
            "",
        ],
        HEADLINE,
    )


def _published_section(suite, df: pd.DataFrame, s: Summary, left_out: str) -> Section:
    """The verdicts' sentences, after how much weight the seeds bear and which runs the quality claims leave out."""
    if left_out:
        left_out = (
            left_out.replace(
                "left out of the verdicts", "left out of the verdicts on trained models' quality (scorings, GQA)"
            )
            + " The Post-LN claim is about trainability, so it counts every run "
            "at the perplexity it ended at."
        )
    return section(
        "Against the published findings",
        [_seed_note(s), ""]
        + ([left_out, ""] if left_out else [])
        + [f"- {t}" for t in sentences(judge_all(suite, df))]
        + [""],
    )


#: the Setup line on the arms of another depth or budget, by the end of the arm's name
OWN_ARMS = (
    (
        " layers",
        "- Depth: variants with a `depth<N>` part train N layers and are compared with the baseline of the same depth "
        "({}); the Post-LN warm-up claim is judged at Xiong et al.'s depth, with the profile's beside it.",
    ),
    (
        " steps",
        "- Budget: variants with a `steps<N>` part train N steps (the profile's warm-up, cosine decay over N) and are "
        "compared with the baseline of the same budget ({}); the MLA claim is read at each budget.",
    ),
)


def _arms_lines(s: Summary, settings: dict) -> list[str]:
    """The Setup lines on the control arms this group has: a variant's own warm-up, another position's arm."""
    out = []
    scheduled = [v for v in s.family if spec_of(s, v).get("warmup_fraction") is not None]
    if scheduled:
        out.append(
            "- Own warm-up: "
            + ", ".join(
                f"`{v}` warms up over {warmup_of(spec_of(s, v), settings['warmup_steps'], settings['steps'])} of "
                f"{settings['steps']} steps"
                for v in scheduled
            )
            + " (the control arm of Xiong et al.'s warm-up claim)."
        )
    arms = sorted({a for a in s.arm.values() if a and not own_arm(a)})
    if arms:
        out.append(
            "- Arms: variants with " + ", ".join(arms) + " positions are compared with the baseline of the same "
            "positions (its own tables below); the scorings' main comparison has absolute positions, as in "
            "Vaswani et al. 2017, and the RoPE one is the second arm."
        )
    for suffix, line in OWN_ARMS:
        named = sorted({a for a in s.arm.values() if a.endswith(suffix)})
        if named:
            out.append(line.format(", ".join(named)))
    return out


def _row(s: Summary, v: str, first: bool = False, family: str = "") -> dict[str, str]:
    """One table row (8 columns); a reference (a baseline) shows no change."""
    delta = None if first else s.param_delta(v)
    flagged = delta is not None and abs(delta) > PARAM_TOLERANCE
    widened = widening(spec_of(s, v), s.base)
    ppl = s.ppl.get(v, {})
    deltas = s.ppl_delta_pct(v) if s.reference.get(v) and not first else []
    params = fmt_count(s.params.get(v))
    if delta is not None and s.reference.get(v) is not None:
        params += f" ({100 * delta:+.1f}%)"
    return {
        "variant": v,
        "family": "baseline" if first else (family or s.family.get(v, "")),
        "held-out ppl": fmt_mean_ci(ppl.values(), 3, kind="log") if ppl else s.status(v),
        "Δ ppl": fmt_pct(deltas),
        "against": "-" if first or not s.reference.get(v) else f"`{s.reference[v]}`",
        "parameters (Δ)": params,
        "training FLOPs": fmt_count(s.flops.get(v)),
        "budget": _budget(delta if flagged else None, widened),
    }


def _budget(flagged_delta: float | None, widened: str | None) -> str:
    """'matched', 'flagged: params -12% vs baseline', and for gqa<g>/mqa the FFN width it was compared at."""
    flag = None if flagged_delta is None else f"flagged: params {100 * flagged_delta:+.0f}% vs baseline"
    if widened is None:
        return flag or "matched"
    return f"{flag}; {widened}" if flag else widened


def _seed_note(s: Summary) -> str:
    """How much weight the verdicts below can bear, from the number of seeds and the baseline's spread."""
    base = list(s.ppl.get(s.baseline, {}).values())
    if len(base) < 2:
        return (
            "Each verdict rests on one seed per variant, which cannot separate a difference of a few percent from "
            "seed-to-seed noise; run the standard profile (3 seeds) before trusting the small differences."
        )
    e = spread(base, "log")
    return (
        f"The baseline's 95% interval over {e.n} seeds runs from {100 * (e.low / e.mean - 1):+.1f}% to "
        f"{100 * (e.high / e.mean - 1):+.1f}% of its perplexity; differences smaller than that are within "
        "seed-to-seed noise."
    )
