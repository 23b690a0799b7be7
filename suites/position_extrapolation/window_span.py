"""Sliding windows in position_extrapolation: how far back stacked windows reach, and what a window costs in quality.

Mistral 7B (Jiang et al. 2023, arXiv 2310.06825, section 2): with a window of W keys per layer "the hidden state in
position i of the layer k attends to all hidden states from the previous layer with positions between i - W and i",
so after k layers information can move forward by up to k x W tokens. Here a window of W keys includes the query's
own, so one layer reaches W - 1 positions back and ``n_layers`` reach ``n_layers x (W - 1)``.

The job measures that span on the trained model itself (``span_measurements``): the gradient of the last position's
logits with respect to every input embedding of a sequence longer than the span is exactly zero past it (the window
mask puts -inf there, a softmax weight of exactly 0) and nonzero inside. That is true by construction, a *check* of
the mask and its stacking (claims/stacked_window_span.py); the finding-like question, what a window costs in
perplexity at matched training (the same steps, data and parameters as full attention), is the table
``window_section`` writes beside it (claims/window_costs_little.py judges it).
"""

from __future__ import annotations

import pandas as pd
import torch

from harness.contract import Measurement
from harness.report_kit import fmt_pct, table_section
from harness.report_sections import Section
from suites.position_extrapolation.tables import ppl_by_seed

#: the metric of a window model's measured span
METRIC = "receptive_span"


def expected_span(n_layers: int, window: int) -> int:
    """Positions back the last position's output can read through ``n_layers`` windows of ``window`` keys each."""
    return n_layers * (window - 1)


def receptive_span(model, length: int, device, seed: int = 0) -> int:
    """How many positions back the last position's logits depend on the input: (B=1, T=length) random tokens, the
    gradient of the last logits' sum with respect to each position's embedding, and the farthest position whose
    gradient is not exactly zero (T - 1 when every position reaches the last)."""
    tokens = torch.randint(0, model.spec.vocab_size, (1, length), generator=torch.Generator().manual_seed(seed))
    captured = {}

    def keep(module, args, output):  # (1, T, D): the embeddings every later layer reads
        output.retain_grad()
        captured["embedded"] = output
        return output

    handle = model.embed.register_forward_hook(keep)
    was_training = model.training
    try:
        model.eval()
        with torch.enable_grad():
            logits = model(tokens.to(device))
            logits[0, -1].sum().backward()
    finally:
        handle.remove()
        model.train(was_training)
        model.zero_grad(set_to_none=True)
    reach = captured["embedded"].grad[0].abs().sum(-1)  # (T,) influence of each input position on the last output
    first = int(torch.nonzero(reach > 0)[0])
    return length - 1 - first


def span_measurements(model, n_layers: int, window: int | None, train_len: int, device) -> list[Measurement]:
    """The measured span of a window model (none for full attention), on a sequence twice the span or 2 L long."""
    if window is None:
        return []
    expected = expected_span(n_layers, window)
    length = max(2 * expected + 2, 2 * train_len)
    span = receptive_span(model, length, device)
    return [
        Measurement(
            METRIC, float(span), extra={"window": window, "layers": n_layers, "expected": expected, "length": length}
        )
    ]


def window_specs(ok: pd.DataFrame) -> dict[str, dict]:
    """variant -> spec of the variants of ``ok`` whose spec sets a sliding window, in their order of appearance."""
    specs = ok.groupby("variant", sort=False).spec.first()
    return {v: specs[v] for v in specs.index if isinstance(specs[v], dict) and specs[v].get("window")}


def window_section(ok: pd.DataFrame, variants: list[str], lengths: list[float], train_len: int) -> Section | None:
    """A table of each window model against full-attention RoPE trained alike: W, span, ppl change at L and past it
    (None without a window model and rope beside it)."""
    specs = window_specs(ok)
    windows = [v for v in variants if v in specs]
    if not windows or "rope" not in set(ok.variant):
        return None
    ppl = ok[ok.metric == "perplexity"]
    shown = [x for x in lengths if x in (train_len, 2 * train_len, 8 * train_len)]
    rows = []
    for v in windows:
        spec = specs[v]
        span = ok[(ok.variant == v) & (ok.metric == METRIC)].value
        row = {
            "variant": v,
            "W": spec["window"],
            "layers x (W - 1)": expected_span(spec["n_layers"], spec["window"]),
            "measured span": f"{int(span.max())}" if len(span) else "-",
        }
        for x in shown:
            a, b = ppl_by_seed(ppl, v, x), ppl_by_seed(ppl, "rope", x)
            changes = [100.0 * (a[s] / b[s] - 1.0) for s in a if s in b]
            row[f"Δ ppl vs rope at {int(x / train_len)}L"] = fmt_pct(changes)
        rows.append(row)
    note = (
        "Each window model trained exactly as `rope` (same steps, data, parameters and seeds; its attention reads "
        "at most W keys, so its attention FLOPs are lower), its held-out perplexity against rope's per seed "
        "(mean [95% interval] of the changes); span: positions back the last position's logits depend on, "
        "measured by their gradient, against Mistral 7B's layers x W (W - 1 here, as a window of W keys includes "
        "the query)."
    )
    return table_section("Sliding windows", note, rows, "")
