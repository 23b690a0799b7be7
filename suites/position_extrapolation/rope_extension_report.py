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

import pandas as pd

from harness.findings import Claim, Finding, finding, sentences
from harness.paired import all_hold
from harness.report_kit import fmt_mean_ci, markdown_table, mean_ci, most_seeds, over_seeds
from harness.suite_file import SuiteFile
from suites.common.learning import learning_checks
from suites.position_extrapolation.rules import change, lower, rises_by, said, stays_within
from suites.position_extrapolation.tuning import JUDGED_MULTIPLIER, TUNE_MULTIPLIER

#: plain RoPE "blows up": ppl(4L) at least this many % above ppl(L)
BLOWS_UP = 100.0
#: "close to its value at L": ppl(4L) at most this many % above plain RoPE's ppl(L)
CLOSE = 25.0
#: PI "raises perplexity at short lengths": ppl at its short length at least this many % above plain RoPE's at L
PI_RISE = 5.0
NAMES = {
    "pi": "PI",
    "ntk": "NTK-aware",
    "dynamic_ntk": "dynamic NTK",
    "yarn": "YaRN",
    "yarn_rlinear": "YaRN (r-linear ramp)",
    "ntk_by_parts": "NTK-by-parts (YaRN without its temperature)",
}
PUBLISHED = (
    "Published shape without fine-tuning (Chen et al. 2023, arXiv 2306.15595; Peng et al. 2023, arXiv "
    "2309.00071): plain RoPE blows up past L; PI raises perplexity at short lengths; NTK-aware scaling keeps "
    "perplexity close to its value at L up to a few times L; YaRN does better past L than PI and NTK-aware."
)


#: the statements of the published shape, each a finding of the index (the scoreboard; suite.yaml); dynamic NTK
#: is NTK-aware's finding (on windows of the evaluation length the two are one measurement)
CLAIMS = SuiteFile.of(__file__).claims("rope_blows_up", "pi_short", "pi_beats_extrapolation", "ntk_close", "yarn_close")
ROPE_BLOWS_UP, PI_SHORT, PI_EXTRAPOLATION, NTK_CLOSE, YARN_CLOSE = CLAIMS
#: PI against plain extrapolation is read at these multiples of L, each at the same length for both
PI_LENGTHS = (2, 4)


def _scaling(spec) -> str | None:
    return spec.get("rope_scaling") if isinstance(spec, dict) else None


def extension_variants(df: pd.DataFrame) -> dict[str, dict]:
    """variant -> its spec, for every variant with a RoPE scaling."""
    first = df.drop_duplicates("variant")
    return {r.variant: r.spec for r in first.itertuples() if _scaling(r.spec)}


def _ppl(ok: pd.DataFrame, variant: str, x: float, metric: str = "perplexity") -> dict[int, float]:
    rows = ok[(ok.variant == variant) & (ok.metric == metric) & (ok.x == x)]
    return {int(r.seed): float(r.value) for r in rows.itertuples()}


def _ratios(ok: pd.DataFrame, variant: str, x: float, ref_variant: str, ref_x: float) -> list[float]:
    num, den = _ppl(ok, variant, x), _ppl(ok, ref_variant, ref_x)
    return [num[s] / den[s] for s in num if s in den]


def _says(verdict: str) -> str:
    return "**inconclusive**" if verdict == "inconclusive" else f"this run **{verdict}**"


def _mean(values: list[float]) -> float:
    return mean_ci(values)[0] if values else math.nan


def section(df: pd.DataFrame, train_len: int) -> list[str]:
    """The report's Markdown lines on RoPE extension (none when the run has no ``rope+<scaling>`` variant)."""
    scaled = extension_variants(df)
    if not scaled:
        return []
    ok = df[df.status == "ok"]
    lengths = sorted(ok[ok.metric == "perplexity"].x.dropna().unique())
    L = float(train_len)
    rows, ratios = [], []  # perplexities by length, and ratios with the chosen parameters: two tables of <= 8 columns
    for v in ["rope"] * ("rope" in set(df.variant)) + sorted(scaled):
        row = {"variant": v, "s": str(scaled[v].get("rope_scale", "auto")) if v in scaled else "-"}
        for x in lengths:
            row[f"{int(x) // train_len}L"] = fmt_mean_ci(_ppl(ok, v, x).values(), kind="log") if _ppl(ok, v, x) else "-"
        ratio = {"variant": v, "chosen on validation (per seed)": _chosen(ok, v)}
        for x in (4 * L, 16 * L):
            vals = _ratios(ok, v, x, "rope", L)
            ratio[f"ppl({int(x / L)}L) / rope ppl(L)"] = fmt_mean_ci(vals, kind="log") if vals else "n/a"
        rows.append(row)
        ratios.append(ratio)
    n_seeds = most_seeds(ok[ok.variant.isin(set(scaled) | {"rope"})])
    lines = [
        "## RoPE context extension without retraining",
        "",
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
        PUBLISHED,
        "",
    ]
    lines += [f"- {text}" for text in sentences(verdicts(df, train_len))] + [""]
    same = _same_as_ntk(ok, scaled)
    if same:
        lines += [
            f"`{same}` scores exactly as `rope+ntk` here: every window has the evaluation length, so its per-sequence "
            "s equals auto's; the two differ with a fixed s or in cached decoding.",
            "",
        ]
    return lines + _finetuned(df, ok, train_len, lengths)


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


def verdicts(df: pd.DataFrame, train_len: int) -> list[Finding]:
    """One finding per statement of the published shape this run can test, from learned models only, each paired
    over seeds (rules.py)."""
    ok = df[df.status == "ok"]
    scaled = extension_variants(df)
    L = float(train_len)
    checks = learning_checks(df, "loss", L)
    if "rope" not in checks or not checks["rope"].usable:
        if "rope" not in checks:
            return []
        why = "plain `rope` did not learn or memorised, so no extension of it can be judged"
        return [
            finding(
                claim,
                "inconclusive",
                "No verdict on RoPE extension: plain `rope` did not learn or memorised (see above).",
                cause=why + ".",
            )
            for claim in (ROPE_BLOWS_UP, *_tested(scaled))
        ]
    out = []
    rope_l, rope4 = _ppl(ok, "rope", L), _ppl(ok, "rope", 4 * L)
    if rope4:
        diff = change("rope ppl(4L) vs ppl(L)", rope4, rope_l)
        word = rises_by(diff, BLOWS_UP)
        out.append(
            finding(
                ROPE_BLOWS_UP,
                word,
                f"Plain RoPE: ppl(4L) is {said(diff)} above ppl(L); {_says(word)} "
                f"(blowing up = at least +{BLOWS_UP:g}%, i.e. 2x, over the whole interval).",
                [diff.estimate],
                cause=""
                if word == "agrees"
                else f"plain RoPE's ppl(4L) is {said(diff)} above ppl(L), and "
                f"blowing up needs a rise of at least {BLOWS_UP:g}% ({diff.why()}).",
                boundary=BLOWS_UP,
            )
        )
    by_name = _first_by_scaling(scaled)
    fixed_pi = _fixed_pi(scaled)
    if fixed_pi or "pi" in by_name:
        out.append(_pi(ok, fixed_pi, L))
    if "pi" in by_name and str(scaled[by_name["pi"]].get("rope_scale", "auto")) == "auto":
        out.append(_pi_extrapolation(ok, by_name["pi"], L, fixed_pi))
    if "ntk" in by_name:
        v = by_name["ntk"]
        out.append(_ntk(ok, v, _at_l(ok, v, scaled[v], L), L))
    if "yarn" in by_name:
        out.append(_yarn(ok, by_name, L))
    return [f for c in CLAIMS for f in out if f.claim.key == c.key]


def _first_by_scaling(scaled: dict[str, dict]) -> dict[str, str]:
    """scaling name -> the first variant (by name) with it and ``auto`` s (a run with rope+yarn and rope+yarn4 is judged
    on rope+yarn); fixed-s variants count when no auto one exists."""
    out: dict[str, str] = {}
    for v, spec in sorted(scaled.items(), key=lambda kv: (str(kv[1].get("rope_scale", "auto")) != "auto", kv[0])):
        out.setdefault(_scaling(spec), v)
    return out


def _at_l(ok: pd.DataFrame, v: str, spec: dict, L: float) -> dict[int, float]:
    """The reference ppl(L) of an extension: its own at L when s = auto (s = 1 there: the same weights as plain RoPE,
    scored in the same job, so a retraining that differs in the last digits never enters the comparison), else
    plain RoPE's."""
    own = _ppl(ok, v, L)
    return own if spec.get("rope_scale", "auto") == "auto" and own else _ppl(ok, "rope", L)


def _ntk(ok: pd.DataFrame, v: str, rope_l: dict[int, float], L: float) -> Finding:
    """NTK-aware at JUDGED_MULTIPLIER x L (where its headroom was chosen) against plain RoPE's ppl(L): within CLOSE%."""
    J = JUDGED_MULTIPLIER
    at4, rope4 = _ppl(ok, v, J * L), _ppl(ok, "rope", J * L)
    if not at4:
        return finding(NTK_CLOSE, "not run", f"`{v}`: no perplexity at {J}L.")
    diff = change(f"{v} ppl({J}L) vs rope ppl(L)", at4, rope_l)
    word = stays_within(diff, CLOSE)
    mistuned = _mistuned(ok, [v], L)
    if mistuned:
        word = "inconclusive"
    plain = change(f"{v} ppl({J}L) vs rope ppl({J}L)", at4, rope4)
    sentence = (
        f"NTK-aware (`{v}`{_params(ok, v)}): ppl({J}L) is {said(diff)} above plain RoPE's ppl(L) "
        f"(against plain RoPE at {J}L: {said(plain)}); {_says(word)} (close = within +{CLOSE:g}%)."
    )
    cause = (
        ""
        if word == "agrees"
        else (
            f"NTK-aware's ppl({J}L) is {said(diff)} above ppl(L): "
            + (
                f"beyond the {CLOSE:g}% of 'close' over the whole interval."
                if word == "disagrees"
                else f"the interval reaches past {CLOSE:g}%, so the seeds cannot tell close from not."
            )
        )
    )
    if mistuned:
        cause = (
            f"{mistuned[0].upper()}{mistuned[1:]}, so these records cannot judge it: more seeds of them cannot "
            f"help; a rerun tuned at {JUDGED_MULTIPLIER}L (3 seeds) would."
        )
    # records tuned at another length: no seed plan (over_seeds=False), the cause says what would judge it
    return finding(
        NTK_CLOSE, word, sentence, [diff.estimate, plain.estimate], cause=cause, boundary=CLOSE, over_seeds=not mistuned
    )


def _yarn(ok: pd.DataFrame, by_name: dict[str, str], L: float) -> Finding:
    """YaRN at JUDGED_MULTIPLIER x L (where its alpha and beta were chosen) against PI and NTK-aware there: lower,
    paired over seeds."""
    J = JUDGED_MULTIPLIER
    v = by_name["yarn"]
    at4 = _ppl(ok, v, J * L)
    if not at4:
        return finding(YARN_CLOSE, "not run", f"`{v}`: no perplexity at {J}L.")
    diffs = [
        change(f"{v} ppl({J}L) vs {by_name[o]}", at4, _ppl(ok, by_name[o], J * L))
        for o in ("pi", "ntk")
        if o in by_name
    ]
    diffs = [d for d in diffs if d.seeds]
    if not diffs:
        return finding(YARN_CLOSE, "not run", f"`{v}`: no PI or NTK-aware perplexity at {J}L to compare with.")
    words = [lower(d) for d in diffs]
    word = all_hold(words)
    mistuned = _mistuned(ok, [v] + [by_name[o] for o in ("pi", "ntk") if o in by_name], L)
    word = "inconclusive" if mistuned else word
    parts = "; ".join(f"against `{d.estimate.label.split(' vs ')[1]}` {said(d)}" for d in diffs)
    sentence = f"YaRN (`{v}`{_params(ok, v)}): ppl({J}L) {parts}; {_says(word)} (lower than each, paired over seeds)."
    failed = [(d, w) for d, w in zip(diffs, words) if w != "agrees"]
    cause = (
        ""
        if word == "agrees"
        else "; ".join(
            f"YaRN's ppl({J}L) is {said(d)} against `{d.estimate.label.split(' vs ')[1]}` "
            f"({'higher' if w == 'disagrees' else d.why()})"
            for d, w in failed
        )
        + "."
    )
    if mistuned:
        cause = (
            f"{mistuned[0].upper()}{mistuned[1:]}, so these records cannot judge it: more seeds of them cannot "
            f"help; a rerun tuned at {JUDGED_MULTIPLIER}L (3 seeds) would."
        )
    # the comparison closest to failing (the highest of YaRN's changes) decides "lower than each"
    closest = max(range(len(diffs)), key=lambda i: diffs[i].estimate.value)
    return finding(
        YARN_CLOSE,
        word,
        sentence,
        [d.estimate for d in diffs],
        cause=cause,
        headline=closest,
        boundary=0.0,
        over_seeds=not mistuned,
    )


def tuned_at(ok: pd.DataFrame, v: str) -> list[float]:
    """The lengths ``v``'s free parameters were chosen at, from its ``validation_loss`` records (sorted; [] without)."""
    rows = ok[(ok.variant == v) & (ok.metric == "validation_loss")]
    if "extra" not in rows:
        return []
    return sorted({float(e["eval_length"]) for e in rows.extra if isinstance(e, dict) and "eval_length" in e})


def _mistuned(ok: pd.DataFrame, variants: list[str], L: float) -> str:
    """Why the records cannot judge ``variants`` at JUDGED_MULTIPLIER x L: a free parameter chosen at another length
    ('' when every one was chosen there or has none)."""
    judged = JUDGED_MULTIPLIER * L
    wrong = [(v, [x for x in tuned_at(ok, v) if x != judged]) for v in variants]
    wrong = [(v, xs) for v, xs in wrong if xs]
    return "; ".join(
        f"`{v}`'s free parameters were chosen on validation text at "
        f"{', '.join(f'{x / L:g}L' for x in xs)}, not at the judged {JUDGED_MULTIPLIER}L"
        for v, xs in wrong
    )


def _params(ok: pd.DataFrame, v: str) -> str:
    """', alpha 1, beta 32 chosen on validation (seed 0)' from the records' ``rope_params``, or ''."""
    if "rope_params" not in ok:
        return ""
    chosen = ok[(ok.variant == v)].drop_duplicates("seed")
    texts = sorted({", ".join(f"{k} {p[k]:g}" for k in p) for p in chosen.rope_params if isinstance(p, dict)})
    return f"; chosen on validation text: {' / '.join(texts)}" if texts else ""


def _tested(scaled: dict[str, dict]) -> list[Claim]:
    """The claims the run's scaled variants test."""
    names = {_scaling(spec) for spec in scaled.values()}
    return [
        c
        for n, c in (("pi", PI_SHORT), ("pi", PI_EXTRAPOLATION), ("ntk", NTK_CLOSE), ("yarn", YARN_CLOSE))
        if n in names
    ]


def _fixed_pi(scaled: dict[str, dict]) -> str | None:
    """The first PI variant (by name) with a fixed s > 1 (``rope+pi2``), or None."""
    fixed = [
        v
        for v, spec in sorted(scaled.items())
        if _scaling(spec) == "pi" and str(spec.get("rope_scale", "auto")) != "auto" and float(spec["rope_scale"]) > 1
    ]
    return fixed[0] if fixed else None


def _pi(ok: pd.DataFrame, v: str | None, L: float) -> Finding:
    """PI's short-length cost as Chen et al. state it: a fixed s > 1 (the model extended to s x L), scored at L,
    against plain RoPE at L, the same weights and text (with s = length / L, s is 1 at L and nothing is blurred)."""
    if v is None:
        return finding(
            PI_SHORT,
            "not run",
            "PI's short-length cost needs a fixed s > 1 scored at L (`rope+pi2`); "
            "with s = length / L, s is 1 at L and PI is plain RoPE there.",
        )
    diff = change(f"{v} ppl(1L) vs rope ppl(L)", _ppl(ok, v, L), _ppl(ok, "rope", L))
    if not diff.seeds:
        return finding(PI_SHORT, "not run", f"`{v}`: no perplexity at L.")
    word = rises_by(diff, PI_RISE)
    return finding(
        PI_SHORT,
        word,
        f"PI at a fixed s (`{v}`), scored at the training length L: ppl(L) is {said(diff)} "
        f"above plain RoPE's ppl(L); {_says(word)} (a rise of at least {PI_RISE:g}% over the whole interval).",
        [diff.estimate],
        cause=""
        if word == "agrees"
        else f"PI's ppl(L) at a fixed s is {said(diff)} above plain RoPE's, short of a clear {PI_RISE:g}% rise "
        f"({diff.why()}).",
        boundary=PI_RISE,
    )


def _pi_extrapolation(ok: pd.DataFrame, v: str, L: float, fixed: str | None) -> Finding:
    """PI (s = length / L) against plain extrapolation at each of PI_LENGTHS, the same length for both: lower at
    every one (all_hold), as Chen et al.'s bounded interpolated scores predict."""
    diffs = [
        change(f"{v} ppl({k}L) vs rope ppl({k}L)", _ppl(ok, v, k * L), _ppl(ok, "rope", k * L)) for k in PI_LENGTHS
    ]
    diffs = [d for d in diffs if d.seeds]
    if not diffs:
        return finding(PI_EXTRAPOLATION, "not run", f"`{v}`: no perplexity past L.")
    words = [lower(d) for d in diffs]
    word = all_hold(words)
    parts = "; ".join(f"at {k}L {said(d)}" for k, d in zip(PI_LENGTHS, diffs))
    sentence = (
        f"PI without fine-tuning (`{v}`, s = length / L) against plain RoPE at the same length: {parts}; "
        f"{_says(word)} (lower at each length, paired over seeds)."
    )
    deciding = next((i for i, w in enumerate(words) if w != "agrees"), 0)
    cause = ""
    if word != "agrees":
        worse = [f"{k}L" for k, d, w in zip(PI_LENGTHS, diffs, words) if w == "disagrees"]
        cause = (
            f"PI is higher than plain extrapolation at {', '.join(worse)}"
            if worse
            else f"PI against plain extrapolation {said(diffs[deciding])} ({diffs[deciding].why()})"
        )
        blur = change(f"{fixed} ppl(1L) vs rope ppl(L)", _ppl(ok, fixed, L), _ppl(ok, "rope", L)) if fixed else None
        cause += (
            "; without fine-tuning, interpolation divides the offsets between neighbouring characters by s, "
            "offsets the model never saw and the ones a character LM leans on most"
            + (
                f": at the training length, where nothing extrapolates, `{fixed}` alone costs {said(blur)}"
                if blur is not None and blur.seeds
                else ""
            )
            + "; Chen et al. fine-tune about 1000 steps to adapt to it."
        )
    return finding(
        PI_EXTRAPOLATION, word, sentence, [d.estimate for d in diffs], cause=cause, headline=deciding, boundary=0.0
    )


def _same_as_ntk(ok: pd.DataFrame, scaled: dict[str, dict]) -> str | None:
    dyn = [v for v, s in scaled.items() if _scaling(s) == "dynamic_ntk"]
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
            vals = _ppl(ok, v, x, "finetuned_perplexity")
            row[f"{int(x) // train_len}L"] = fmt_mean_ci(vals.values(), kind="log") if vals else "-"
        rows.append(row)
    return [
        f"After {steps} steps of fine-tuning at each length (learning rate 0.1 x training's, the variant's scaling "
        "applied; Chen et al. 2023 fine-tune PI about 1000 steps):",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
    ]
