"""The training_stability table of Xiong et al.'s Fig. 3 probe: ||dL/dW^2|| by layer at initialisation, and its slope."""

from __future__ import annotations

import pandas as pd

from harness.report_kit import fmt_mean_ci, markdown_table
from harness.report_sections import Section, section
from suites.training_stability.init_probe import size_of, slopes

PLACEMENT = {"post": "Post-LN", "pre": "Pre-LN"}


def probe_section(probe: pd.DataFrame) -> Section | None:
    """Per norm placement, the geometric mean of ||dL/dW^2|| at each layer over the initialisations (log-scale
    95% interval), and the slope of ln ||dL/dW^2|| over layers with its t interval; None without probe records."""
    if not len(probe):
        return None
    size = size_of(probe.itertuples())
    placement = probe.spec.apply(lambda s: s.get("norm_placement"))
    found = slopes(probe.itertuples())
    rows = []
    for key, name in PLACEMENT.items():
        part = probe[placement == key]
        if not len(part):
            continue
        row = {"variant": name}
        for layer in sorted(int(x) for x in part.x.unique()):
            row[f"layer {layer}"] = fmt_mean_ci(part[part.x == layer].value, 2, "log").split(" ")[0]
        row["slope of ln norm per layer"] = fmt_mean_ci(found.get(key, {}).values(), 3)
        rows.append(row)
    n = max(len(v) for v in found.values()) if found else 0
    return section(
        "Xiong et al.'s Fig. 3 protocol: W^2's gradient by layer at initialisation",
        [
            f"||dL/dW^2|| of each layer's second FFN matrix, {size['depth']} layers of d_model {size['d_model']} "
            f"(Xavier), not trained: the geometric mean over {n} initialisations at each layer, and per initialisation "
            "the least-squares slope of ln ||dL/dW^2|| over all layers (mean and 95% t interval over initialisations; "
            "the gradient verdict reads the slopes).",
            "",
            markdown_table(pd.DataFrame(rows)),
            "",
        ],
    )
