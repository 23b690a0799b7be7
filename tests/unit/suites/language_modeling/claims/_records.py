"""Made-up language_modeling records for its claims' tests: a group of variants by their per-seed perplexities."""

import math

import pandas as pd

from suites.language_modeling.claims._shared import Evidence
from suites.language_modeling.summary import Summary

BASE = {
    "d_model": 64,
    "n_layers": 4,
    "n_heads": 4,
    "n_kv_heads": None,
    "d_ff": None,
    "scoring": "scaled_dot",
    "norm_placement": "pre",
    "norm": "layernorm",
    "ffn": "gelu",
    "position": "rope",
    "kernel": "naive",
}
#: a variant's spec changes against the baseline
CHANGES = {
    "baseline": {},
    "dot": {"scoring": "dot"},
    "additive+naive": {"scoring": "additive"},
    "sinusoidal": {"position": "sinusoidal"},
    "sinusoidal+dot": {"position": "sinusoidal", "scoring": "dot"},
    "sinusoidal+additive+naive": {"position": "sinusoidal", "scoring": "additive"},
    "gqa2": {"n_kv_heads": 2, "d_ff": 288},
    "mqa": {"n_kv_heads": 1, "d_ff": 304},
    "post_ln": {"norm_placement": "post"},
    "post_ln+long_warmup": {"norm_placement": "post", "warmup_fraction": 0.5},
    "post_ln+no_warmup": {"norm_placement": "post", "warmup_fraction": 0.0},
    "no_warmup": {"warmup_fraction": 0.0},
    "depth6": {"n_layers": 6},
    "no_warmup+depth6": {"n_layers": 6, "warmup_fraction": 0.0},
    "post_ln+no_warmup+depth6": {"n_layers": 6, "norm_placement": "post", "warmup_fraction": 0.0},
    "post_ln+long_warmup+depth6": {"n_layers": 6, "norm_placement": "post", "warmup_fraction": 0.5},
    "mla": {"attention": "mla", "d_ff": 270},
    "steps2000": {"steps": 2000},
    "mla+steps2000": {"attention": "mla", "d_ff": 270, "steps": 2000},
}
UNIGRAM = 3.05  # nats/char: a collapsed run's perplexity is exp(3.05) = 21.1

BASELINE = [5.0, 5.1, 4.9]
#: within the seeds' noise of BASELINE: per-seed changes +0.4%, -0.4%, +0.2% (interval about [-1, 1]%)
NOISY = [5.02, 5.08, 4.91]
#: close to BASELINE: per-seed changes +0.1%, -0.1%, +0.05% (interval about [-0.25, 0.25]%, inside the tolerance)
CLOSE = [5.005, 5.095, 4.9025]
COLLAPSED = [21.1, 21.2, 21.0]


def times(factor, base=BASELINE):
    return [p * factor for p in base]


def lm(ppl):
    """A language_modeling group: variant -> per-seed perplexities (a list) or a status that is not ok."""
    rows = []
    for v, values in ppl.items():
        spec = {**BASE, **CHANGES[v]}
        for seed in (0, 1, 2):
            ok = isinstance(values, list)
            rows.append(
                {
                    "variant": v,
                    "seed": seed,
                    "status": "ok" if ok else values,
                    "reason": None if ok else "x",
                    "metric": "perplexity",
                    "value": values[seed] if ok else float("nan"),
                    "spec": spec,
                    "unigram_entropy": UNIGRAM,
                    "profile_settings": {"warmup_steps": 10, "steps": 100},
                }
            )
    return Summary(pd.DataFrame(rows))


def evidence(learned: Summary, everyone: Summary | None = None) -> Evidence:
    """What the claims read when ``learned`` holds the variants that learned (all of ``everyone``'s by default)."""
    everyone = everyone or learned
    return Evidence(everyone.df, everyone, learned, {}, sorted(learned.family))


def lm_records(ppl_by_variant, bigram=2.3, train_len=64.0):
    """Whole records of a group (held-out loss, training loss, perplexity), for ``prepare`` and its learning checks."""
    rows = []
    for v, ppls in ppl_by_variant.items():
        for seed, ppl in enumerate(ppls):
            common = {
                "variant": v,
                "seed": seed,
                "status": "ok",
                "reason": None,
                "spec": {**BASE, **CHANGES[v]},
                "bigram_entropy": bigram,
                "unigram_entropy": UNIGRAM,
                "profile_settings": {"warmup_steps": 50, "steps": 500, "train_len": int(train_len)},
            }
            rows += [
                dict(common, metric="loss", value=math.log(ppl), x=train_len),
                dict(common, metric="perplexity", value=ppl, x=train_len),
                dict(common, metric="train_loss", value=math.log(ppl) - 0.02, x=None),
            ]
    return pd.DataFrame(rows)
