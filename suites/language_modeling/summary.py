"""The language_modeling per-variant summary its tables, figure and verdicts share: families, parameters, perplexities.

Each variant is compared with a *reference*: the baseline, or, for a variant with another position encoding than
the baseline's, that encoding's own baseline (``sinusoidal`` for ``sinusoidal+dot``): an *arm* of the comparison.
So the scorings are compared with absolute positions and, as a second arm, with the baseline's RoPE. A variant of
another depth (``post_ln+no_warmup+depth6``, depth.py) or budget (``mla+steps2000``, schedule.py) is likewise
compared within its arm ('6 layers', '2000 steps'), against the baseline of that depth or budget (``depth6``,
``steps2000``).
"""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import mean_ci

#: which family a variant belongs to, by the spec field it changes (the kernel never changes quality)
FAMILY_OF_FIELD = {
    "scoring": "scoring",
    "n_kv_heads": "head grouping",
    "norm_placement": "norm placement",
    "norm": "norm type",
    "ffn": "FFN",
    "d_ff": "FFN",
    "position": "position",
    "attention": "head grouping",
    "latent_norm": "head grouping",
    "n_layers": "depth",
    "steps": "budget",
}


FAMILY_ORDER = (
    "scoring",
    "head grouping",
    "norm placement",
    "warm-up",
    "norm type",
    "FFN",
    "position",
    "depth",
    "budget",
    "recurrence",
    "kernel",
    "combined",
)


#: a variant whose parameter count differs from the baseline's by more than this is flagged
PARAM_TOLERANCE = 0.10


#: perplexity differences within this fraction of the baseline count as "about the same"
SIMILAR = 0.03


#: spec fields that are not an axis of the architecture: a variant's own warm-up (schedule.py)
NOT_AXES = ("warmup_fraction",)


def family_of(spec: dict, base: dict) -> str:
    """The family of a spec relative to the baseline spec: the axis it changes ('baseline' when none).

    A variant's own warm-up is not an axis: ``post_ln+long_warmup`` is of the norm-placement family, and the
    baseline with only its warm-up changed (``no_warmup``) of the 'warm-up' family."""
    if spec.get("family") == "mixer":  # a recurrent (mixer) LM in place of the Transformer (mixers.py)
        return "recurrence"
    changed = {k for k in spec if spec[k] != base.get(k)}
    if not changed:
        return "baseline"
    if changed <= set(NOT_AXES):
        return "warm-up"
    axes = changed - {"kernel", *NOT_AXES}
    if not axes:
        return "kernel"
    if axes & {"n_kv_heads", "attention"}:  # a grouped or latent variant's FFN matched to parameters (param_match.py)
        axes.discard("d_ff")
    families = {FAMILY_OF_FIELD.get(k, "combined") for k in axes}
    return families.pop() if len(families) == 1 else "combined"


def baseline_spec(df: pd.DataFrame) -> dict:
    rows = df[df.variant == "baseline"]
    if len(rows):
        return rows.iloc[0].spec
    from variants.spec import TransformerSpec

    default = TransformerSpec().to_dict()
    spec = dict(df.iloc[0].spec)
    spec.update({k: default[k] for k in FAMILY_OF_FIELD if k in default})
    spec["kernel"] = default["kernel"]
    return spec


def depth_arm(n_layers: int) -> str:
    """The arm of the variants of another depth than the baseline's: '6 layers'."""
    return f"{n_layers} layers"


def steps_arm(steps: int) -> str:
    """The arm of the variants trained with another budget than the profile's: '2000 steps'."""
    return f"{steps} steps"


def own_arm(arm: str) -> bool:
    """Whether an arm is a depth's or a budget's (not a position encoding's)."""
    return arm.endswith(" layers") or arm.endswith(" steps")


def arm_label(arm: str) -> str:
    """How a table names an arm: a position encoding's ('sinusoidal positions'), a depth's ('6 layers') or a
    budget's ('2000 steps')."""
    return arm if own_arm(arm) else f"{arm} positions"


def ffn_width(spec: dict) -> int:
    """The FFN hidden size d_ff a stored spec builds (None means 4 x d_model)."""
    return spec.get("d_ff") or 4 * spec["d_model"]


def widening(spec: dict, base: dict) -> str | None:
    """How a grouped (gqa<g>/mqa) variant's FFN relates to the baseline's: widened to match, or unmatched; else None."""
    if spec.get("n_kv_heads") in (None, spec.get("n_heads")) or spec.get("n_kv_heads") == base.get("n_kv_heads"):
        return None
    if ffn_width(spec) != ffn_width(base):
        return f"matched: d_ff widened to {ffn_width(spec)} (baseline {ffn_width(base)})"
    return f"unmatched: d_ff kept at {ffn_width(spec)}"


def per_seed(ok: pd.DataFrame, variant: str, metric: str) -> dict[int, float]:
    rows = ok[(ok.variant == variant) & (ok.metric == metric)]
    return {int(r.seed): float(r.value) for r in rows.itertuples()}


def _same_design(a: dict, b: dict) -> bool:
    """Equal specs but for the kernel (which never changes quality)."""
    keys = (set(a) | set(b)) - {"kernel"}
    return all(a.get(k) == b.get(k) for k in keys)


class Summary:
    """Per-variant numbers the tables, verdicts and figure share."""

    def __init__(self, df: pd.DataFrame):
        self.df, self.ok = df, df[df.status == "ok"]
        self.base = baseline_spec(df)
        specs = df.drop_duplicates("variant").set_index("variant").spec
        self.specs = dict(specs.items())
        base_names = [v for v in specs.index if family_of(specs[v], self.base) == "baseline"]
        self.baseline = "baseline" if "baseline" in base_names else (base_names[0] if base_names else None)
        #: variant -> the variant it is compared with (None: its arm's baseline did not run)
        self.reference: dict[str, str | None] = {}
        #: variant -> its arm: '' for the baseline's position encoding, else the encoding (e.g. 'sinusoidal')
        self.arm: dict[str, str] = {}
        self.family: dict[str, str] = {}
        for v in specs.index:
            self.reference[v], self.arm[v], self.family[v] = self._place(v)
        self.params = {v: self._fact(v, "parameters") for v in specs.index}
        self.ppl = {v: per_seed(self.ok, v, "perplexity") for v in specs.index}
        self.flops = {v: mean_ci(per_seed(self.ok, v, "train_flops").values())[0] for v in specs.index}

    def _place(self, v: str) -> tuple[str | None, str, str]:
        """(reference, arm, family) of a variant: a variant with another position encoding than the baseline's is
        compared with that encoding's baseline (the base spec with only the position changed), when it ran; a
        variant of another depth with that depth's baseline (the base spec with only n_layers changed)."""
        spec, position = self.specs[v], self.specs[v].get("position")
        if spec.get("family") == "mixer":  # a recurrent LM: compared with the baseline at matched parameters
            return (None if v == self.baseline else self.baseline), "", "recurrence"
        for key, name in (("n_layers", depth_arm), ("steps", steps_arm)):
            value = spec.get(key)
            arm_base = {**self.base, key: value}
            if value is not None and value != self.base.get(key) and not _same_design(spec, arm_base):
                refs = [u for u, other in self.specs.items() if _same_design(other, arm_base) and u != v]
                return (refs[0] if refs else None), name(value), family_of(spec, arm_base)
        if position == self.base.get("position") or family_of(spec, self.base) in ("baseline", "position", "kernel"):
            return (None if v == self.baseline else self.baseline), "", family_of(spec, self.base)
        arm_base = {**self.base, "position": position}
        refs = [u for u, other in self.specs.items() if _same_design(other, arm_base) and u != v]
        ref = ("sinusoidal" if "sinusoidal" in refs and position == "sinusoidal" else refs[0]) if refs else None
        return ref, str(position), family_of(spec, arm_base)

    def group(self, v: str) -> str:
        """The family, labelled with its arm when it has one ('scoring, sinusoidal positions', 'warm-up, 6 layers')."""
        return self.family[v] + (f", {arm_label(self.arm[v])}" if self.arm.get(v) else "")

    def _fact(self, variant: str, column: str) -> float | None:
        if column not in self.ok:
            return None
        vals = self.ok[self.ok.variant == variant][column].dropna()
        return float(vals.iloc[0]) if len(vals) else None

    def mean_ppl(self, v: str) -> float:
        return mean_ci(self.ppl.get(v, {}).values())[0] if v else math.nan

    def param_delta(self, v: str) -> float | None:
        b, p = self.params.get(self.reference.get(v) or self.baseline), self.params.get(v)
        return None if b is None or p is None else (p - b) / b

    def ppl_delta_pct(self, v: str) -> list[float]:
        """Per-seed (ppl_v / ppl_reference - 1) x 100 over the seeds both ran."""
        base = self.ppl.get(self.reference.get(v), {})
        return [100 * (p / base[s] - 1) for s, p in self.ppl.get(v, {}).items() if s in base]

    def collapse_ppl(self) -> float:
        """The perplexity of a run that learned nothing but character frequencies: exp(unigram entropy)."""
        if "unigram_entropy" not in self.df:
            return math.nan
        vals = self.df.unigram_entropy.dropna()
        return math.exp(float(vals.iloc[0])) if len(vals) else math.nan

    def outcome_ppl(self, v: str) -> dict[int, float]:
        """Per seed, the perplexity a run ended at, a diverged run entering at the collapse value (never dropped)."""
        out = dict(self.ppl.get(v, {}))
        diverged = self.df[(self.df.variant == v) & (self.df.status == "diverged")]
        for seed in diverged.seed.unique():
            out.setdefault(int(seed), self.collapse_ppl())
        return out

    def status(self, v: str) -> str:
        bad = self.df[(self.df.variant == v) & (self.df.status != "ok")]
        return bad.status.iloc[0] if len(bad) else "-"


def spec_of(s: Summary, variant: str) -> dict:
    rows = s.df[s.df.variant == variant]
    return rows.iloc[0].spec if len(rows) else {}


def field(s: Summary, variant: str, key: str):
    rows = s.df[s.df.variant == variant]
    return rows.iloc[0].spec.get(key) if len(rows) else None
