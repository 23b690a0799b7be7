"""The streaming report: perplexity against position per cache policy (table and figure), the cost of a step per
policy, the attention on the cache's first slot by layer, and the verdicts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.findings import sentences
from harness.report_kit import begin, markdown_table, pyplot, save_figure, table_section, title
from harness.report_sections import BOOKKEEPING, FIGURE, HEADLINE, Report, Section, section
from suites.streaming.policies import POLICIES
from suites.streaming.sink_token import is_sink_spec

LABELS = {
    "full": "dense (everything cached)",
    "window": "window (last C)",
    "sinks": "window + 4 sinks",
    "recompute": "sliding-window recomputation",
}


def _policy(df: pd.DataFrame) -> pd.Series:
    return df.extra.apply(lambda e: e.get("policy") if isinstance(e, dict) else None)


def _curve(df: pd.DataFrame) -> pd.DataFrame:
    """Perplexity by (policy, bin start), mean over seeds."""
    rows = df[(df.metric == "stream_ppl") & (df.status == "ok")].assign(policy=_policy)
    return rows.groupby(["policy", "x"]).value.mean().unstack(0)


def curve_figure(df: pd.DataFrame, path: Path, capacity: int, train_len: int) -> Path:
    plt = pyplot()
    curve = _curve(df)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for policy in POLICIES:
        if policy in curve:
            ax.plot(curve.index, curve[policy], marker=".", label=LABELS[policy])
    ax.axvline(capacity, color="grey", linestyle=":", label=f"cache size C = {capacity}")
    ax.axvline(2 * train_len, color="grey", linestyle="--", label=f"2 x training length = {2 * train_len}")
    ax.set_yscale("log")
    ax.set_xlabel("text position (first of each bin)")
    ax.set_ylabel("perplexity per character")
    ax.set_title("Streaming perplexity against position, per cache policy")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    first, variants, seeds = begin(df, out_dir)
    everything = df
    ok = df[df.status == "ok"].assign(policy=lambda d: _policy(d))
    settings = first.profile_settings
    capacity = int(first.get("capacity") or settings.get("capacity") or settings["train_len"])
    dedicated, ok_dedicated = df.spec.apply(is_sink_spec), ok.spec.apply(is_sink_spec)
    token_ok = ok[ok_dedicated]
    df, ok = df[~dedicated], ok[~ok_dedicated]  # the tables and figure: models without a sink token
    figure = curve_figure(df, out_dir / "figures" / f"{suite.name}.png", capacity, settings["train_len"])
    report = Report(title(suite, "Streaming through a bounded cache", first), files=[figure])
    report.add(
        _setup(first, variants, seeds, capacity),
        _curve_section(df),
        table_section("Quality and cost per policy", "", _policy_rows(ok, capacity, settings), "No policy ran."),
        _shares_section(ok, capacity),
    )
    if len(token_ok):
        report.add(
            table_section(
                "A model trained with a dedicated sink token",
                "The same model trained with one extra vocabulary entry first in every training window (StreamingLLM "
                "3.3), streamed with that token first; its sink policy keeps only that token, and recomputation puts it "
                "first in every window.",
                _policy_rows(token_ok, capacity, settings, sinks=1),
                "No policy ran.",
            ),
            _shares_section(token_ok, capacity, "the sink token"),
        )
    return report.add(
        section("Figure", [f"![perplexity against position per cache policy](figures/{figure.name})", ""], FIGURE),
        section("Against the published findings", [f"- {t}" for t in sentences(judge_all(suite, everything))] + [""]),
    )


def _setup(first, variants: list[str], seeds: list[int], capacity: int) -> Section:
    settings = first.profile_settings
    lines = [
        f"- Model: {', '.join(f'`{v}`' for v in variants)}, {settings['n_layers']} layers, d_model {settings['d_model']}, "
        f"{settings['n_heads']} heads, trained {settings['steps']} steps on windows of L = {settings['train_len']} "
        f"characters of {first.get('corpus')}; seeds {seeds}.",
        f"- Streams: {first.get('streams')} held-out streams of {settings['stream_len']} characters "
        f"({settings['stream_len'] // settings['train_len']} L), fed one token at a time; cache of C = {capacity} "
        f"entries (the step's own token included), {settings['sinks']} sinks; positions within the cache "
        f"(StreamingLLM 3.2), the text's own positions for the dense cache.",
        "- Cost: one step at the end of the text, torch.utils.benchmark median; a timing with fewer than 3 repeats that "
        "ran alone on the machine is marked contended (harness/timing.py; its record's extra holds every repeat). "
        "The streaming step "
        "concatenates each layer's cache and "
        "selects the kept entries, so its cost includes a copy of what it holds.",
        "",
    ]
    return section("Setup", lines, BOOKKEEPING)


def _curve_section(df: pd.DataFrame) -> Section | None:
    """The headline: perplexity by bin of positions and policy (None without stream records)."""
    curve = _curve(df)
    if not len(curve):
        return None
    table = curve.rename(columns=LABELS).reset_index().rename(columns={"x": "from position"})
    table["from position"] = table["from position"].astype(int)
    return section(
        "Perplexity against position",
        [
            "Per character, mean over streams (and seeds), bins of "
            f"{int(curve.index[1] - curve.index[0]) if len(curve) > 1 else 0} positions.",
            "",
            markdown_table(table.round(3)),
            "",
        ],
        HEADLINE,
    )


def _policy_rows(ok: pd.DataFrame, capacity: int, settings, sinks: int = 0) -> list[dict]:
    """One row per policy: perplexity past the cache and past 2 L, the cost of a step, what the cache holds."""
    rows = []
    for policy in POLICIES:
        mine = ok[ok.policy == policy]
        if not len(mine):
            continue
        value = {
            m: mine[mine.metric == m].value.mean()
            for m in ("ppl_past_cache", "ppl_past_training", "decode_ms", "cache_tokens", "cache_bytes")
        }
        label = LABELS[policy] if not (sinks and policy == "sinks") else f"window + {sinks} sink"
        timing = mine[mine.metric == "decode_ms"]
        contended = bool(len(timing)) and all(bool((e or {}).get("contaminated")) for e in timing.extra)
        step = f"{value['decode_ms']:.3g}" + (" (contended)" if contended else "")
        rows.append(
            {
                "policy": label,
                f"ppl from {capacity} on": f"{value['ppl_past_cache']:.3f}",
                f"ppl from {2 * settings['train_len']} on": f"{value['ppl_past_training']:.3f}",
                "ms / token (end of text)": step,
                "tokens held": int(value["cache_tokens"]),
                "cache bytes": f"{int(value['cache_bytes']):,}",
            }
        )
    return rows


def _shares_section(ok: pd.DataFrame, capacity: int, first: str = "the text's first token") -> Section | None:
    """The attention on the cache's first slot by layer and policy (None without the records)."""
    shares = ok[ok.metric == "first_slot_share"]
    if not len(shares):
        return None
    table = shares.groupby(["x", "policy"]).value.mean().unstack(1)
    uniform = shares.extra.iloc[0].get("uniform")
    labels = dict(LABELS, sinks="window + 1 sink") if first == "the sink token" else LABELS
    table = table.rename(columns=labels).reset_index().rename(columns={"x": "layer"})
    table["layer"] = table["layer"].astype(int)
    heading = "Attention on the cache's first slot, by layer" + (
        " (sink-token model)" if first == "the sink token" else ""
    )
    return section(
        heading,
        [
            f"Mean attention weight on slot 0 over heads, streams and the steps from position {capacity} on (with "
            f"sinks: {first}; in the window: the oldest held token; dense: {first}). "
            f"Even attention over a full cache would give {uniform:.4f}.",
            "",
            markdown_table(table.round(4)),
            "",
        ],
    )
