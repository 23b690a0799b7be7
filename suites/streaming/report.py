"""The streaming report: perplexity against position per cache policy (table and figure), the cost of a step per
policy, the attention on the cache's first slot by layer, and the verdicts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.findings import sentences
from harness.report_kit import begin, markdown_table, pyplot, save_figure, table_section, title, write_markdown
from suites.streaming.policies import POLICIES
from suites.streaming.probe_figures import PROBE_FIGURES  # noqa: F401  (the figures its claims cite)
from suites.streaming.sink_token import is_sink_spec
from suites.streaming.verdicts import CLAIMS, findings  # noqa: F401  (the suite's claims and verdicts, read through this module)

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


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> list[Path]:
    first, variants, seeds = begin(df, out_dir)
    everything = df
    ok = df[df.status == "ok"].assign(policy=lambda d: _policy(d))
    lines = title(suite, "Streaming through a bounded cache", first)
    settings = first.profile_settings
    capacity = int(first.get("capacity") or settings.get("capacity") or settings["train_len"])
    lines += [
        "## Setup",
        "",
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
    dedicated, ok_dedicated = df.spec.apply(is_sink_spec), ok.spec.apply(is_sink_spec)
    token_ok = ok[ok_dedicated]
    df, ok = df[~dedicated], ok[~ok_dedicated]  # the tables and figure: models without a sink token
    curve = _curve(df)
    if len(curve):
        table = curve.rename(columns=LABELS).reset_index().rename(columns={"x": "from position"})
        table["from position"] = table["from position"].astype(int)
        lines += [
            "## Perplexity against position",
            "",
            "Per character, mean over streams (and seeds), bins of "
            f"{int(curve.index[1] - curve.index[0]) if len(curve) > 1 else 0} positions.",
            "",
            markdown_table(table.round(3)),
            "",
        ]
    lines += table_section("Quality and cost per policy", "", _policy_rows(ok, capacity, settings), "No policy ran.")
    lines += _shares_section(ok, capacity)
    if len(token_ok):
        lines += table_section(
            "A model trained with a dedicated sink token",
            "The same model trained with one extra vocabulary entry first in every training window (StreamingLLM "
            "3.3), streamed with that token first; its sink policy keeps only that token, and recomputation puts it "
            "first in every window.",
            _policy_rows(token_ok, capacity, settings, sinks=1),
            "No policy ran.",
        )
        lines += _shares_section(token_ok, capacity, "the sink token")
    figure = curve_figure(df, out_dir / "figures" / f"{suite.name}.png", capacity, settings["train_len"])
    lines += ["## Figure", "", f"![perplexity against position per cache policy](figures/{figure.name})", ""]
    lines += ["## Against the published findings", ""] + [f"- {t}" for t in sentences(findings(everything))] + [""]
    return [write_markdown(suite, lines, out_dir), figure]


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


def _shares_section(ok: pd.DataFrame, capacity: int, first: str = "the text's first token") -> list[str]:
    """The attention on the cache's first slot by layer and policy."""
    lines: list[str] = []
    shares = ok[ok.metric == "first_slot_share"]
    if len(shares):
        table = shares.groupby(["x", "policy"]).value.mean().unstack(1)
        uniform = shares.extra.iloc[0].get("uniform")
        labels = dict(LABELS, sinks="window + 1 sink") if first == "the sink token" else LABELS
        table = table.rename(columns=labels).reset_index().rename(columns={"x": "layer"})
        table["layer"] = table["layer"].astype(int)
        heading = "Attention on the cache's first slot, by layer" + (
            " (sink-token model)" if first == "the sink token" else ""
        )
        lines += [
            f"## {heading}",
            "",
            f"Mean attention weight on slot 0 over heads, streams and the steps from position {capacity} on (with "
            f"sinks: {first}; in the window: the oldest held token; dense: {first}). "
            f"Even attention over a full cache would give {uniform:.4f}.",
            "",
            markdown_table(table.round(4)),
            "",
        ]
    return lines
