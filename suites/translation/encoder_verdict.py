"""How the encoder reads the source, without attention: forward, reversed (Sutskever et al. 2014) or both ways.

The verdict on Sutskever, Vinyals & Le 2014 (arXiv 1409.3215, section 3.3): reversing the source words helps an
encoder-decoder without attention, on long sentences too. Judged on the longest source-length bucket, reversed minus
forward BLEU, paired over seeds, directional. Beside it, a table of how much of attention's gain on that bucket each
encoder recovers: (BLEU of the encoder - BLEU of the forward one) / (BLEU of attention - BLEU of the forward one),
a share whose ceiling (1) is attention's own BLEU.
"""

from __future__ import annotations

import pandas as pd

from harness.findings import Finding, finding, not_run
from harness.paired import directional, paired
from harness.report_kit import fmt_mean_ci, markdown_table, mean_ci
from harness.suite_file import SuiteFile
from suites.translation.tables import _is_rnnsearch, per_seed

#: the claim this file judges (suite.yaml)
(REVERSED,) = SuiteFile.of(__file__).claims("reversed_source_long_sentences")
#: the bounds of a BLEU score
BLEU = (0.0, 100.0)


def encoder_kind(spec: dict) -> str:
    """'forward', 'reversed' or 'bidirectional': how an RNN encoder reads the source (records before the
    reverse_source field existed read it forward)."""
    if spec.get("bidirectional"):
        return "bidirectional"
    return "reversed" if spec.get("reverse_source") else "forward"


def _plain(ok: pd.DataFrame, specs: dict[str, dict], cell: str, kind: str) -> str | None:
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


def reversal_finding(
    ok: pd.DataFrame, specs: dict[str, dict], labels: dict[float, str], flagged: dict[str, str]
) -> Finding:
    """The verdict on Sutskever et al.'s reversed source, from the LSTMs without attention."""
    forward, backward = _plain(ok, specs, "lstm", "forward"), _plain(ok, specs, "lstm", "reversed")
    if not labels or forward is None or backward is None:
        return not_run(
            REVERSED,
            "This run lacks an LSTM encoder-decoder without attention reading the source forward and one reading it "
            "reversed, with BLEU by source length.",
            "bench run suite=translation profile=bottleneck variants=[lstm,lstm+reversed]",
        )
    longest = max(labels)
    bucket = labels[longest].split(" (")[0]
    gap = paired(
        f"BLEU on {bucket}, {backward} - {forward}",
        per_seed(ok, backward, "bleu_by_length", longest),
        per_seed(ok, forward, "bleu_by_length", longest),
        "BLEU",
        bounds=BLEU,
    )
    overall = paired(
        f"test BLEU, {backward} - {forward}",
        per_seed(ok, backward, "bleu"),
        per_seed(ok, forward, "bleu"),
        "BLEU",
        bounds=BLEU,
    )
    text = (
        f"On the longest bucket ({bucket}) `{backward}` - `{forward}` is {gap.mean:+.1f} BLEU over {gap.seeds} seeds "
        f"({gap.why()}); on the whole test set {overall.mean:+.1f} BLEU."
    )
    unlearned = [v for v in (forward, backward) if v in flagged]
    if unlearned:
        cause = (
            f"{' and '.join(f'`{v}`' for v in unlearned)} did not learn ({'; '.join(flagged[v] for v in unlearned)}), "
            "so this run cannot compare the two source orders."
        )
        return finding(REVERSED, "inconclusive", f"{text} {cause}", [gap.estimate, overall.estimate], cause=cause)
    verdict = directional(gap, +1)
    if verdict == "agrees":
        return finding(
            REVERSED,
            "agrees",
            f"{text} Reversing the source helps on long sentences.",
            [gap.estimate, overall.estimate],
        )
    cause = (
        f"the reversed source's difference on the longest bucket does not count ({gap.why()})"
        if verdict == "inconclusive"
        else "the forward source translates long sentences better than the reversed one"
    )
    cause = cause[0].upper() + cause[1:] + "."
    return finding(REVERSED, verdict, f"{text} {cause}", [gap.estimate, overall.estimate], cause=cause)


def encoder_table(ok: pd.DataFrame, specs: dict[str, dict], labels: dict[float, str]) -> list[str]:
    """The section on how much of the bottleneck each way of reading the source removes, beside attention."""
    forward = _plain(ok, specs, "lstm", "forward")
    readers = [
        v for v in (forward, _plain(ok, specs, "lstm", "reversed"), _plain(ok, specs, "lstm", "bidirectional")) if v
    ]
    attention = [
        v for v, s in specs.items() if (ok.variant == v).any() and s.get("cell") == "lstm" and _is_rnnsearch(s)
    ]
    if not labels or forward is None or len(readers) < 2:
        return []
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
    return [
        "## How the encoder reads the source, without attention",
        "",
        f"LSTM encoder-decoders without attention that differ only in how the encoder reads the source: forward, reversed "
        f"(Sutskever et al. 2014, section 3.3; EOS kept last) or both ways (Bahdanau et al. 2014's encoder, its two final "
        f"states bridged to the decoder). Share of attention's gain: on the longest bucket, (BLEU - `{forward}`'s) over "
        f"({ceiling}'s BLEU - `{forward}`'s), means over seeds.",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
    ]
