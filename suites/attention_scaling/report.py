"""The attention_scaling report: score statistics by d_k and scoring, the training comparison, the published finding."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.findings import sentences
from harness.report_kit import begin, code_line, title
from harness.report_sections import BOOKKEEPING, FIGURE, Report, section
from suites.attention_scaling.claims._shared import PUBLISHED
from suites.attention_scaling.figures import scaling_figures
from suites.attention_scaling.tables import ORDER, init_section, training_section
from suites.common.learning import learning_checks, learning_section


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    first, variants, seeds = begin(df, out_dir, ORDER)
    ok = df[df.status == "ok"]
    s, spec = first.profile_settings, first.spec
    d_ks = sorted(ok[ok.metric == "qk_variance"].x.dropna().unique())
    setup = section(
        "Setup",
        [
            f"- Initialisation probe: {s['n_queries']} queries, each attending over its own {s['n_keys']} keys; q, k, v "
            "and the upstream gradient G have independent standard-normal components; L = <G, softmax(s(q, K)) V>. The "
            "scoring's own parameters (additive: W, U, v) use their default initialisation.",
            f"- Training comparison: decoder-only Transformer, {spec['n_layers']} layers, {spec['n_heads']} head(s) of "
            f"d_k = {spec['d_model'] // spec['n_heads']}, {spec['position']} positions, Pre-LN, Xavier-uniform "
            f"projections; {s['steps']} AdamW steps of {s['batch_size']} x {s['train_len']} characters, "
            f"lr {s['lr']:g} (warm-up {s['warmup_steps']}), clipping {s['grad_clip']:g}; held-out loss on "
            f"{int(first.get('eval_chars') or 0):,} characters.",
            f"- Corpus: {first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...), "
            f"{first.get('split') or 'last ' + format(s['heldout_fraction'], '.0%') + ' held out'}; "
            f"{int(first.get('train_chars') or 0):,} training characters, read "
            f"{float(first.get('train_passes') or 0):.2f} times by the training comparison.",
            f"- Profile `{first.profile}`, seeds {seeds}; device {first.device} ({first.device_name}), torch "
            f"{first.torch_version}; {code_line(df)}.",
            "",
        ],
        BOOKKEEPING,
    )
    checks = learning_checks(df, "heldout_loss", None, "train_loss")
    figures = scaling_figures(ok, variants, out_dir / "figures", suite.name)
    report = Report(title(suite, "Why the dot product is scaled", first), files=[p for _, p in figures])
    return report.add(
        setup,
        init_section(ok, variants, d_ks, s),
        training_section(df, ok, variants, spec),
        learning_section(checks, variants, "scoring"),
        section("Figures", [f"![{name}](figures/{p.name})" for name, p in figures] + [""], FIGURE),
        section(
            "Against the published finding",
            [PUBLISHED, ""] + [f"- {t}" for t in sentences(judge_all(suite, df))] + [""],
        ),
    )
