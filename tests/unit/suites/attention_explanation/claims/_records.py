"""Made-up attention_explanation records for its claims' tests."""

import pandas as pd

from suites.attention_explanation.claims._shared import Evidence

LEARNED, UNIFORM = "lstm+luong+additive+bidirectional", "lstm+luong+uniform+bidirectional"
SPECS = {LEARNED: {"scoring": "additive"}, UNIFORM: {"scoring": "uniform"}}


def records(tau_ag, tau_al, tau_gl, learned, flat):
    """Three seeds of the learned model's taus and BLEU, and the uniform twin's BLEU."""
    rows = []
    for seed in range(3):
        for metric, values in (
            ("tau_attention_gradient", tau_ag),
            ("tau_attention_loo", tau_al),
            ("tau_gradient_loo", tau_gl),
            ("bleu", learned),
        ):
            rows.append({"variant": LEARNED, "metric": metric, "seed": seed, "value": values[seed]})
        rows.append({"variant": LEARNED, "metric": "uniform_bleu", "seed": seed, "value": 5.0})
        rows.append({"variant": UNIFORM, "metric": "bleu", "seed": seed, "value": flat[seed]})
    return pd.DataFrame(rows)


#: attention ranks weakly with importance, and the learned model far above its uniform twin
WEAK = ([0.1, 0.12, 0.11], [0.2, 0.22, 0.19], [0.6, 0.62, 0.61], [99, 98, 99], [20, 22, 21])
#: attention ranks strongly with importance, and the uniform twin above the learned model
STRONG = ([0.8, 0.82, 0.81], [0.7, 0.72, 0.71], [0.3, 0.31, 0.32], [20, 21, 20], [40, 42, 41])


def evidence(ok, specs=SPECS) -> Evidence:
    return Evidence(ok, dict(specs))
