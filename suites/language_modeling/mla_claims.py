"""The language_modeling verdict on multi-head latent attention: DeepSeek-V2's "stronger than MHA" (arXiv 2405.04434),
paired over seeds at matched parameters, with MLA against GQA shown beside it."""

from __future__ import annotations

from typing import Callable, List, Tuple

import pandas as pd

from harness.findings import Finding, finding, not_run
from harness.paired import directional, paired
from harness.suite_file import SuiteFile
from suites.common.learning import learning_checks, usable
from suites.language_modeling.summary import Summary, field

MLA_QUALITY, = MLA_CLAIMS = SuiteFile.of(__file__).claims("mla_beats_mha")


def _interval(d) -> str:
    e = d.estimate
    inside = f" [{e.low:+.1f}, {e.high:+.1f}]" if e.low is not None else ""
    return f"{e.value:+.1f}%{inside} (n={d.seeds})"


def mla_finding(df: pd.DataFrame) -> Finding:
    """MLA is stronger than MHA: its per-seed perplexity change against the baseline is negative and counts."""
    s = Summary(df)
    latent = sorted(v for v in s.specs if field(s, v, "attention") == "mla" and not s.arm.get(v))
    if not latent or s.baseline is None:
        return not_run(MLA_QUALITY, "This run lacks an `mla` variant or the MHA baseline to compare.")
    checks = learning_checks(df, "loss", float(df.iloc[0].profile_settings["train_len"]))
    kept = usable(checks)[0]
    v = latent[0]
    left = [name for name in (v, s.baseline) if name not in kept]
    if left:
        return finding(MLA_QUALITY, "inconclusive", f"No verdict on MLA: {', '.join(f'`{n}`' for n in left)} did not "
                       f"learn or memorised.", cause="a compared variant did not learn or memorised.")
    vs_mha = paired(f"{v} Δ ppl vs {s.baseline}", s.ppl[v], s.ppl[s.baseline], relative=True)
    verdict = directional(vs_mha, -1)  # stronger: lower perplexity
    text = (f"DeepSeek-V2 (arXiv 2405.04434) finds MLA stronger than MHA at a KV cache of 2.25 GQA groups. Here, at "
            f"matched parameters, `{v}` ({s.mean_ppl(v):.3f}) against MHA ({s.mean_ppl(s.baseline):.3f}): per-seed Δ "
            f"perplexity {_interval(vs_mha)}")
    estimates = [vs_mha.estimate]
    grouped = sorted(g for g in s.specs if field(s, g, "n_kv_heads") not in (None, 1)
                     and field(s, g, "attention") in (None, "grouped") and g in kept and not s.arm.get(g))
    if grouped:
        vs_gqa = paired(f"{v} Δ ppl vs {grouped[0]}", s.ppl[v], s.ppl[grouped[0]], relative=True)
        text += f"; against `{grouped[0]}` ({s.mean_ppl(grouped[0]):.3f}) {_interval(vs_gqa)}"
        estimates.append(vs_gqa.estimate)
    text += {"agrees": "; this run agrees that MLA is stronger than MHA.",
             "disagrees": "; this run disagrees: MLA is weaker than MHA here.",
             "inconclusive": "; the difference does not count over these seeds, so this run is inconclusive."}[verdict]
    head = s.base["d_model"] // s.base["n_heads"]
    cause = "" if verdict == "agrees" else (
        f"MLA's Δ ppl {_interval(vs_mha)} is " + ("a loss" if verdict == "disagrees" else "a difference that does not count")
        + f" against MHA with the authors' formula (latent RMSNorm included) at matched parameters; a result at this "
        f"size, not a defect found: here d_h = {head}, so the decoupled RoPE key has {head // 2} dimensions (DeepSeek-V2: "
        f"64), and each model trains {s.df.iloc[0].profile_settings.get('steps')} steps from scratch, where the "
        f"source's 7B dense models saw 1.33T tokens with MLA's fewer attention parameters made up by more layers.")
    return finding(MLA_QUALITY, verdict, text, estimates, cause=cause)


def extend(claims: Tuple, findings: Callable[[pd.DataFrame], List[Finding]]):
    """The suite's claims and findings function with the MLA verdict after its own."""
    def all_findings(df: pd.DataFrame) -> List[Finding]:
        return list(findings(df)) + [mla_finding(df)]

    all_findings.__doc__ = findings.__doc__
    return tuple(claims) + MLA_CLAIMS, all_findings
