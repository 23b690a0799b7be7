"""How the encoder reads the source, without attention: forward, reversed (Sutskever et al. 2014) or both ways.

Beside the verdict on the reversed source (claims/reversed_source_long_sentences.py), a table of how much of
attention's gain on the longest source-length bucket each encoder recovers: (BLEU of the encoder - BLEU of the
forward one) / (BLEU of attention - BLEU of the forward one), a share whose ceiling (1) is attention's own BLEU.
"""

from __future__ import annotations

import pandas as pd

from harness.report_kit import fmt_mean_ci, markdown_table, mean_ci
from harness.report_sections import Section, section
from suites.translation.tables import BLEU, _is_rnnsearch


def encoder_kind(spec: dict) -> str:
    """'forward', 'reversed' or 'bidirectional': how an RNN encoder reads the source (records before the
    reverse_source field existed read it forward)."""
    if spec.get("bidirectional"):
        return "bidirectional"
    return "reversed" if spec.get("reverse_source") else "forward"


def plain(ok: pd.DataFrame, specs: dict[str, dict], cell: str, kind: str) -> str | None:
    """The variant without attention of ``cell`` whose encoder reads the source the ``kind`` way, if the run has it."""
    for v, s in specs.items():
        if (
            (ok.variant == v).any()
            and s.get("family") == "rnn_seq2seq"
            and s["scoring"] == "none"
            and s["cell"] == cell
            and encoder_kind(s) == kind
        ):
            return v
    return None


def encoder_section(ok: pd.DataFrame, specs: dict[str, dict], labels: dict[float, str]) -> Section | None:
    """The section on how much of the bottleneck each way of reading the source removes, beside attention."""
    forward = plain(ok, specs, "lstm", "forward")
    readers = [
        v for v in (forward, plain(ok, specs, "lstm", "reversed"), plain(ok, specs, "lstm", "bidirectional")) if v
    ]
    attention = [
        v for v, s in specs.items() if (ok.variant == v).any() and s.get("cell") == "lstm" and _is_rnnsearch(s)
    ]
    if not labels or forward is None or len(readers) < 2:
        return None
    longest = max(labels)
    bucket = labels[longest].split(" (")[0]

    def bleu(v, x=None):
        rows = ok[(ok.variant == v) & (ok.metric == ("bleu" if x is None else "bleu_by_length"))]
        return rows.value if x is None else rows[rows.x == x].value

    base = mean_ci(bleu(forward, longest))[0]
    top = mean_ci(bleu(attention[0], longest))[0] if attention else None
    rows = []
    for v in readers + attention[:1]:
        here = mean_ci(bleu(v, longest))[0]
        share = (here - base) / (top - base) if top is not None and top != base else None
        rows.append(
            {
                "variant": v,
                "encoder": encoder_kind(specs[v]) + (", attention" if specs[v]["scoring"] != "none" else ""),
                "test BLEU": fmt_mean_ci(bleu(v), kind="bounded", bounds=BLEU),
                f"BLEU on {bucket}": fmt_mean_ci(bleu(v, longest), kind="bounded", bounds=BLEU),
                "share of attention's gain": "-" if share is None else f"{share:.0%}",
            }
        )
    ceiling = (
        f"`{attention[0]}` (the ceiling, 100%)" if attention else "an attention model (none in this run, so no share)"
    )
    return section(
        "How the encoder reads the source, without attention",
        [
            f"LSTM encoder-decoders without attention that differ only in how the encoder reads the source: forward, "
            f"reversed (Sutskever et al. 2014, section 3.3; EOS kept last) or both ways (Bahdanau et al. 2014's encoder, "
            f"its two final states bridged to the decoder). Share of attention's gain: on the longest bucket, (BLEU - "
            f"`{forward}`'s) over ({ceiling}'s BLEU - `{forward}`'s), means over seeds.",
            "",
            markdown_table(pd.DataFrame(rows)),
            "",
        ],
    )
