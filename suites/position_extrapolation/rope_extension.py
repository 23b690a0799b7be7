"""The RoPE context-extension section of the position_extrapolation report, and which variants extend RoPE.

Chen et al. 2023 (Position Interpolation, arXiv 2306.15595) and Peng et al. 2023 (NTK-aware, dynamic NTK,
YaRN, arXiv 2309.00071) stretch a RoPE model trained at L by changing its frequencies. ``extension_section`` turns the
records of one run into two tables (perplexity by length; ratios to plain RoPE's ppl(L) with the free parameters
chosen on validation) and places the verdicts on the published shape (claims/, one module per statement) beside
them; it reads the variants' specs (``rope_scaling``, ``rope_scale``) from the records, so any ``rope+<scaling>``
joins.
"""

from __future__ import annotations

import pandas as pd

from harness.report_kit import fmt_mean_ci, markdown_table, most_seeds, over_seeds
from harness.report_sections import Section, section
from suites.position_extrapolation.tables import ppl_by_seed
from suites.position_extrapolation.tuning import TUNE_MULTIPLIER


def scaling_of(spec) -> str | None:
    """The RoPE scaling a variant's spec names (``pi``, ``ntk``, ...), or None."""
    return spec.get("rope_scaling") if isinstance(spec, dict) else None


def extension_variants(df: pd.DataFrame) -> dict[str, dict]:
    """variant -> its spec, for every variant with a RoPE scaling."""
    first = df.drop_duplicates("variant")
    return {r.variant: r.spec for r in first.itertuples() if scaling_of(r.spec)}


def _ratios(ok: pd.DataFrame, variant: str, x: float, ref_variant: str, ref_x: float) -> list[float]:
    num, den = ppl_by_seed(ok, variant, x), ppl_by_seed(ok, ref_variant, ref_x)
    return [num[s] / den[s] for s in num if s in den]


def extension_section(df: pd.DataFrame, train_len: int, published: str, sentences: list[str]) -> Section | None:
    """The report's section on RoPE extension, with ``published`` (the shape the sources report) and the verdicts'
    ``sentences`` beside its tables (None when the run has no ``rope+<scaling>`` variant)."""
    scaled = extension_variants(df)
    if not scaled:
        return None
    ok = df[df.status == "ok"]
    lengths = sorted(ok[ok.metric == "perplexity"].x.dropna().unique())
    L = float(train_len)
    rows, ratios = [], []  # perplexities by length, and ratios with the chosen parameters: two tables of <= 8 columns
    for v in ["rope"] * ("rope" in set(df.variant)) + sorted(scaled):
        row = {"variant": v, "s": str(scaled[v].get("rope_scale", "auto")) if v in scaled else "-"}
        for x in lengths:
            at = ppl_by_seed(ok, v, x)
            row[f"{int(x) // train_len}L"] = fmt_mean_ci(at.values(), kind="log") if at else "-"
        ratio = {"variant": v, "chosen on validation (per seed)": _chosen(ok, v)}
        for x in (4 * L, 16 * L):
            vals = _ratios(ok, v, x, "rope", L)
            ratio[f"ppl({int(x / L)}L) / rope ppl(L)"] = fmt_mean_ci(vals, kind="log") if vals else "n/a"
        rows.append(row)
        ratios.append(ratio)
    n_seeds = most_seeds(ok[ok.variant.isin(set(scaled) | {"rope"})])
    lines = [
        f"Each `rope+<scaling>` variant evaluates the weights trained for `rope` with its scaling applied at every "
        f"length (s = evaluation length / L = {train_len} unless the variant fixes s). {_one_training(df, scaled)} "
        "Ratios are to plain RoPE's perplexity at L, the trained model's own. A scaling with free parameters "
        "(YaRN's alpha and beta, NTK-aware's headroom h: its base is raised for s' = 1 + h (s - 1)) has them chosen "
        f"per seed from a small grid on validation text at {TUNE_MULTIPLIER}L, the length the verdicts on them read "
        "(held-out characters that no length scores; suites/position_extrapolation/tuning.py). `rope+yarn` ramps in the "
        "pair index as the authors' code does; `rope+yarn_rlinear` ramps linearly in the rotation count r, as the "
        "paper's equation writes it.",
        "",
        "Perplexity by evaluation length ("
        + (
            over_seeds(n_seeds)
            if n_seeds < 2
            else "mean [95% interval over seeds, on a log scale: perplexities and their ratios are positive]"
        )
        + "):",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
        "Against plain RoPE's perplexity at L, with the parameters chosen on validation:",
        "",
        markdown_table(pd.DataFrame(ratios)),
        "",
        published,
        "",
    ]
    lines += [f"- {text}" for text in sentences] + [""]
    same = _same_as_ntk(ok, scaled)
    if same:
        lines += [
            f"`{same}` scores exactly as `rope+ntk` here: every window has the evaluation length, so its per-sequence "
            "s equals auto's; the two differ with a fixed s or in cached decoding.",
            "",
        ]
    return section("RoPE context extension without retraining", lines + _finetuned(df, ok, train_len, lengths))


def _chosen(ok: pd.DataFrame, v: str) -> str:
    """'alpha 1, beta 32 / alpha 0.5, beta 8' over the seeds' ``rope_params`` ('-' without)."""
    if "rope_params" not in ok:
        return "-"
    rows = ok[ok.variant == v].drop_duplicates("seed").sort_values("seed")
    texts = [", ".join(f"{k} {p[k]:g}" for k in p) for p in rows.rope_params if isinstance(p, dict)]
    return " / ".join(texts) if texts else "-"


def _one_training(df: pd.DataFrame, scaled: dict[str, dict]) -> str:
    if "training_key" not in df:
        return ""
    keys = df[df.variant.isin(set(scaled) | {"rope"})].drop_duplicates(["variant", "seed"])
    per_seed = keys.groupby("seed").training_key.nunique()
    if len(per_seed) and (per_seed == 1).all():
        return f"All of them and `rope` share one training per seed ({len(per_seed)} seed(s)), trained once and reused."
    return "Some variants were trained separately (their `training_key` differs), so they are not one model's curves."


def _same_as_ntk(ok: pd.DataFrame, scaled: dict[str, dict]) -> str | None:
    dyn = [v for v, s in scaled.items() if scaling_of(s) == "dynamic_ntk"]
    if not dyn or "rope+ntk" not in scaled:
        return None
    a, b = (
        ok[(ok.variant == dyn[0]) & (ok.metric == "perplexity")],
        ok[(ok.variant == "rope+ntk") & (ok.metric == "perplexity")],
    )
    merged = a.merge(b, on=["seed", "x"])
    return dyn[0] if len(merged) and (merged.value_x - merged.value_y).abs().max() < 1e-9 else None


def _finetuned(df: pd.DataFrame, ok: pd.DataFrame, train_len: int, lengths) -> list[str]:
    tuned = ok[ok.metric == "finetuned_perplexity"]
    if tuned.empty:
        return []
    steps = df.iloc[0].profile_settings.get("finetune_steps", "?")
    rows = []
    for v in sorted(tuned.variant.unique()):
        row = {"variant": v}
        for x in lengths:
            vals = ppl_by_seed(ok, v, x, "finetuned_perplexity")
            row[f"{int(x) // train_len}L"] = fmt_mean_ci(vals.values(), kind="log") if vals else "-"
        rows.append(row)
    return [
        f"After {steps} steps of fine-tuning at each length (learning rate 0.1 x training's, the variant's scaling "
        "applied; Chen et al. 2023 fine-tune PI about 1000 steps):",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
    ]
