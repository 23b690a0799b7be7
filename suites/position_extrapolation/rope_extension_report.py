"""The RoPE context-extension part of the position_extrapolation report: curves and the published shape.

Chen et al. 2023 (Position Interpolation, arXiv 2306.15595) and Peng et al. 2023 (NTK-aware, dynamic NTK,
YaRN, arXiv 2309.00071) stretch a RoPE model trained at L by changing its frequencies. The published shape,
without fine-tuning: plain RoPE blows up past L; PI raises perplexity at short lengths (interpolation blurs
neighbouring positions); NTK-aware scaling and YaRN keep perplexity close to its value at L up to a few
times L. ``section`` turns the records of one run into a table and one verdict per statement; it reads the
variants' specs (``rope_scaling``, ``rope_scale``) from the records, so any ``rope+<scaling>`` joins.
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding
from harness.suite_file import SuiteFile
from harness.report_kit import fmt_mean_ci, markdown_table, mean_ci
from suites.common.learning import learning_checks

#: plain RoPE "blows up": ppl(4L)/ppl(L) at least this
BLOWS_UP = 2.0
#: "close to its value at L": ppl(4L)/ppl(L) at most this
CLOSE = 1.25
#: PI "raises perplexity at short lengths": ppl at its short length at least this much above plain RoPE's at L
PI_RISE = 1.05
NAMES = {"pi": "PI", "ntk": "NTK-aware", "dynamic_ntk": "dynamic NTK", "yarn": "YaRN"}
PUBLISHED = ("Published shape without fine-tuning (Chen et al. 2023, arXiv 2306.15595; Peng et al. 2023, arXiv "
             "2309.00071): plain RoPE blows up past L; PI raises perplexity at short lengths; NTK-aware scaling and "
             "YaRN keep perplexity close to its value at L up to a few times L.")


#: the statements of the published shape, each a finding of the index (the scoreboard; suite.yaml)
CLAIMS = SuiteFile.of(__file__).claims("rope_blows_up", "pi_short", "ntk_close", "dynamic_ntk_close", "yarn_close")
ROPE_BLOWS_UP, PI_SHORT, NTK_CLOSE, DYNAMIC_NTK_CLOSE, YARN_CLOSE = CLAIMS
_CLOSE_CLAIMS = {"ntk": NTK_CLOSE, "dynamic_ntk": DYNAMIC_NTK_CLOSE, "yarn": YARN_CLOSE}


def _scaling(spec) -> Optional[str]:
    return spec.get("rope_scaling") if isinstance(spec, dict) else None


def extension_variants(df: pd.DataFrame) -> Dict[str, dict]:
    """variant -> its spec, for every variant with a RoPE scaling."""
    first = df.drop_duplicates("variant")
    return {r.variant: r.spec for r in first.itertuples() if _scaling(r.spec)}


def _ppl(ok: pd.DataFrame, variant: str, x: float, metric: str = "perplexity") -> Dict[int, float]:
    rows = ok[(ok.variant == variant) & (ok.metric == metric) & (ok.x == x)]
    return {int(r.seed): float(r.value) for r in rows.itertuples()}


def _ratios(ok: pd.DataFrame, variant: str, x: float, ref_variant: str, ref_x: float) -> List[float]:
    num, den = _ppl(ok, variant, x), _ppl(ok, ref_variant, ref_x)
    return [num[s] / den[s] for s in num if s in den]


def _says(verdict: str) -> str:
    return "**inconclusive**" if verdict == "inconclusive" else f"this run **{verdict}**"


def _mean(values: List[float]) -> float:
    return mean_ci(values)[0] if values else math.nan


def section(df: pd.DataFrame, train_len: int) -> List[str]:
    """The report's Markdown lines on RoPE extension (none when the run has no ``rope+<scaling>`` variant)."""
    scaled = extension_variants(df)
    if not scaled:
        return []
    ok = df[df.status == "ok"]
    lengths = sorted(ok[ok.metric == "perplexity"].x.dropna().unique())
    L = float(train_len)
    rows = []
    for v in ["rope"] * ("rope" in set(df.variant)) + sorted(scaled):
        row = {"variant": v, "s": str(scaled[v].get("rope_scale", "auto")) if v in scaled else "-"}
        for x in lengths:
            row[f"{int(x) // train_len}L"] = fmt_mean_ci(_ppl(ok, v, x).values()) if _ppl(ok, v, x) else "-"
        for x in (4 * L, 16 * L):
            vals = _ratios(ok, v, x, "rope", L)
            row[f"ppl({int(x / L)}L) / rope ppl(L)"] = fmt_mean_ci(vals) if vals else "n/a"
        rows.append(row)
    lines = ["## RoPE context extension without retraining", "",
             f"Each `rope+<scaling>` variant evaluates the weights trained for `rope` with its scaling applied at every "
             f"length (s = evaluation length / L = {train_len} unless the variant fixes s). {_one_training(df, scaled)} "
             "Ratios are to plain RoPE's perplexity at L, the trained model's own.", "",
             "Perplexity by evaluation length (mean ± 95% interval over seeds):", "",
             markdown_table(pd.DataFrame(rows)), "", PUBLISHED, ""]
    lines += [f"- {f.sentence}" for f in verdicts(df, train_len)] + [""]
    same = _same_as_ntk(ok, scaled)
    if same:
        lines += [f"`{same}` scores exactly as `rope+ntk` here: every window has the evaluation length, so its per-sequence "
                  "s equals auto's; the two differ with a fixed s or in cached decoding.", ""]
    return lines + _finetuned(df, ok, train_len, lengths)


def _one_training(df: pd.DataFrame, scaled: Dict[str, dict]) -> str:
    if "training_key" not in df:
        return ""
    keys = df[df.variant.isin(set(scaled) | {"rope"})].drop_duplicates(["variant", "seed"])
    per_seed = keys.groupby("seed").training_key.nunique()
    if len(per_seed) and (per_seed == 1).all():
        return f"All of them and `rope` share one training per seed ({len(per_seed)} seed(s)), trained once and reused."
    return "Some variants were trained separately (their `training_key` differs), so they are not one model's curves."


def verdicts(df: pd.DataFrame, train_len: int) -> List[Finding]:
    """One finding per statement of the published shape this run can test, from learned models only."""
    ok = df[df.status == "ok"]
    scaled = extension_variants(df)
    L = float(train_len)
    checks = learning_checks(df, "loss", L)
    if "rope" not in checks or not checks["rope"].usable:
        if "rope" not in checks:
            return []
        return [finding(claim, "inconclusive", "No verdict on RoPE extension: plain `rope` did not learn or memorised "
                        "(see above).") for claim in (ROPE_BLOWS_UP, *_tested(scaled))]
    out = []
    rope4 = _ratios(ok, "rope", 4 * L, "rope", L)
    if rope4:
        m = _mean(rope4)
        word = "agrees" if m >= BLOWS_UP else "disagrees" if m <= CLOSE else "inconclusive"
        out.append(finding(ROPE_BLOWS_UP, word, f"Plain RoPE: ppl(4L)/ppl(L) = {fmt_mean_ci(rope4)}; {_says(word)} "
                           f"(blowing up = at least {BLOWS_UP:g}x).", [Estimate.of("rope ppl(4L)/ppl(L)", rope4)]))
    for v, spec in sorted(scaled.items()):
        name = _scaling(spec)
        if name == "pi":
            out.append(_pi(ok, v, spec, L))
        elif name in _CLOSE_CLAIMS:
            claim = _CLOSE_CLAIMS[name]
            ratio = _ratios(ok, v, 4 * L, "rope", L)
            if not ratio:
                out.append(finding(claim, "not run", f"`{v}`: no perplexity at 4L."))
                continue
            m, plain = _mean(ratio), _mean(rope4)
            word = "agrees" if m <= CLOSE else "disagrees" if m >= plain else "inconclusive"
            detail = (f"within {CLOSE - 1:.0%} of ppl(L)" if word == "agrees" else "no better than plain RoPE"
                      if word == "disagrees" else f"better than plain RoPE ({plain:.2f}) but more than {CLOSE - 1:.0%} above ppl(L)")
            out.append(finding(claim, word, f"{NAMES[name]} (`{v}`): ppl(4L) / plain RoPE's ppl(L) = "
                               f"{fmt_mean_ci(ratio)}, {detail}; {_says(word)}.", [Estimate.of(f"{v} ppl(4L)/rope ppl(L)", ratio)]))
    return _first_per_claim(out)


def _tested(scaled: Dict[str, dict]) -> List[Claim]:
    """The claims the run's scaled variants test."""
    names = {_scaling(spec) for spec in scaled.values()}
    return [c for n, c in (("pi", PI_SHORT), *_CLOSE_CLAIMS.items()) if n in names]


def _first_per_claim(found: List[Finding]) -> List[Finding]:
    """One finding per claim (a run with rope+yarn and rope+yarn4 is judged on the first), in claim order."""
    seen: Dict[str, Finding] = {}
    for f in found:
        seen.setdefault(f.claim.key, f)
    return [seen[c.key] for c in CLAIMS if c.key in seen]


def _pi(ok: pd.DataFrame, v: str, spec: dict, L: float) -> Finding:
    """PI at its shortest extended length: L for a fixed s > 1, 2L for auto; against plain RoPE at L."""
    fixed = spec.get("rope_scale", "auto") != "auto" and float(spec["rope_scale"]) > 1
    short = L if fixed else 2 * L
    ratio = _ratios(ok, v, short, "rope", L)
    if not ratio:
        return finding(PI_SHORT, "not run", f"`{v}`: no perplexity at {int(short / L)}L.")
    word = "agrees" if _mean(ratio) >= PI_RISE else "disagrees"
    others = [(u, _ratios(ok, u, short, "rope", L)) for u in ("rope", "rope+ntk", "rope+yarn") if u != v]
    context = "; ".join(f"`{u}` {fmt_mean_ci(r)}" for u, r in others if r)
    return finding(PI_SHORT, word, f"PI (`{v}`): ppl({int(short / L)}L) / plain RoPE's ppl(L) = {fmt_mean_ci(ratio)}"
                   + (f" (at the same length: {context})" if context else "")
                   + f"; {_says(word)} (a rise of at least {PI_RISE - 1:.0%} at its shortest extended length).",
                   [Estimate.of(f"{v} ppl({int(short / L)}L)/rope ppl(L)", ratio)])


def _same_as_ntk(ok: pd.DataFrame, scaled: Dict[str, dict]) -> Optional[str]:
    dyn = [v for v, s in scaled.items() if _scaling(s) == "dynamic_ntk"]
    if not dyn or "rope+ntk" not in scaled:
        return None
    a, b = ok[(ok.variant == dyn[0]) & (ok.metric == "perplexity")], ok[(ok.variant == "rope+ntk") & (ok.metric == "perplexity")]
    merged = a.merge(b, on=["seed", "x"])
    return dyn[0] if len(merged) and (merged.value_x - merged.value_y).abs().max() < 1e-9 else None


def _finetuned(df: pd.DataFrame, ok: pd.DataFrame, train_len: int, lengths) -> List[str]:
    tuned = ok[ok.metric == "finetuned_perplexity"]
    if tuned.empty:
        return []
    steps = df.iloc[0].profile_settings.get("finetune_steps", "?")
    rows = []
    for v in sorted(tuned.variant.unique()):
        row = {"variant": v}
        for x in lengths:
            vals = _ppl(ok, v, x, "finetuned_perplexity")
            row[f"{int(x) // train_len}L"] = fmt_mean_ci(vals.values()) if vals else "-"
        rows.append(row)
    return [f"After {steps} steps of fine-tuning at each length (learning rate 0.1 x training's, the variant's scaling "
            "applied; Chen et al. 2023 fine-tune PI about 1000 steps):", "", markdown_table(pd.DataFrame(rows)), ""]
