"""The support matrix: which variant runs on which kernel, and the reason when it cannot.

Rows are the single-axis variants (every registered position, every RoPE scaling on rope, scoring, head
grouping, norm placement, norm and FFN, each on the default spec); columns are the registered kernels. A cell is ``ok`` or a
numbered reason from ``problems(spec, device, dtype)``, listed under the table. The matrix is built from
the registries and this installation (missing packages count), not from results, so it can be printed
(`bench list support`) or written beside the reports (`bench report` writes reports/support_matrix.md).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import torch

from harness import atomic

#: (device, dtype, training) of each table
SETTINGS: tuple[tuple[str, torch.dtype, bool], ...] = (
    ("cpu", torch.float32, True),
    ("cpu", torch.float32, False),
    ("cuda", torch.float32, True),
    ("cuda", torch.bfloat16, True),
)


def single_axis_variants() -> list[str]:
    """Every preset that sets one axis, in axis order (positions, RoPE scalings on rope, scorings, groupings and
    attention layers (latent attention, a sliding window), placements, norms, FFNs)."""
    from variants.ffn import ffns
    from variants.norm import norms
    from variants.position import positions
    from variants.rope_scaling import rope_scalings
    from variants.scoring import scorings

    return (
        positions.names()
        + [f"rope+{s}" for s in rope_scalings.names()]
        + scorings.names()
        + ["mha", "gqa2", "mqa", "mla", "window64", "pre_ln", "post_ln"]
        + norms.names()
        + ffns.names()
    )


def support_table(device: str, dtype: torch.dtype, training: bool) -> tuple[pd.DataFrame, list[str]]:
    """(table of variant x kernel cells, numbered reasons) for one device, dtype and mode."""
    from variants.kernel import kernels
    from variants.spec import problems, resolve

    reasons: dict[str, int] = {}
    rows = []
    for variant in single_axis_variants():
        row = {"variant": variant}
        for kernel in kernels.names():
            found = problems(resolve(f"{variant}+{kernel}"), device, dtype, training=training)
            if not found:
                row[kernel] = "ok"
                continue
            numbers = [reasons.setdefault(r, len(reasons) + 1) for r in found]
            row[kernel] = "no " + ",".join(f"[{n}]" for n in numbers)
        rows.append(row)
    return pd.DataFrame(rows), [f"[{n}] {r}" for r, n in sorted(reasons.items(), key=lambda kv: kv[1])]


def availability_table() -> pd.DataFrame:
    """One row per kernel: available here (or why not), devices, dtypes per device, scorings, bias, GQA, backward."""
    from variants.kernel import dtype_name, kernels
    from variants.scoring import scorings

    rows = []
    for entry in kernels.entries():
        k = entry.obj
        missing = k.unavailable()
        rows.append(
            {
                "kernel": entry.name,
                "available here": "no: " + missing if missing else "yes",
                "dtypes by device": "; ".join(
                    f"{d}: {', '.join(dtype_name(t) for t in k.dtypes_on(d))}" for d in k.devices
                ),
                "scorings": ", ".join(s for s in scorings.names() if k.supports_scoring(scorings.get(s))),
                "score bias": ", ".join(d for d in k.devices if k.takes_score_bias_on(d)) or "no",
                "native GQA": "yes" if k.native_gqa else "no (K/V heads repeated)",
                "backward": ", ".join(d for d in k.devices if k.trains_on(d)) or "no",
                "description": entry.summary,
            }
        )
    return pd.DataFrame(rows)


def render_markdown() -> str:
    """The whole support matrix as Markdown: kernel availability, then one table per setting."""
    lines = [
        "# Support matrix: variant x kernel",
        "",
        "Generated from the registries and this installation (`bench list support`); each variant is one preset "
        "on the default spec (sinusoidal, scaled_dot, MHA, Pre-LN, layernorm, gelu), a RoPE scaling on rope. `ok` means `problems(spec)` "
        "found nothing; otherwise the numbered reasons follow each table. Every `ok` kernel is checked against "
        "`naive` by tests/unit/variants/test_equivalence.py before it is timed.",
        "",
        f"torch {torch.__version__}; CUDA available: {torch.cuda.is_available()}.",
        "",
        "## Kernels",
        "",
        availability_table().to_markdown(index=False),
        "",
    ]
    from variants.mixer import fla_unavailable

    lines += [
        "## Chunked recurrences",
        "",
        "flash-linear-attention on cuda: "
        + (fla_unavailable("cuda") or "available: its kernels are checked against the in-house chunked forms."),
        "",
    ]
    for device, dtype, training in SETTINGS:
        table, reasons = support_table(device, dtype, training)
        mode = "training (forward and backward)" if training else "inference (forward only)"
        lines += [f"## {device}, {str(dtype).replace('torch.', '')}, {mode}", "", table.to_markdown(index=False), ""]
        lines += reasons + [""]
    return "\n".join(lines)


def write_support_matrix(reports_dir: Path) -> Path:
    """Write reports/support_matrix.md and return its path."""
    reports_dir.mkdir(parents=True, exist_ok=True)
    path = reports_dir / "support_matrix.md"
    atomic.write_text(path, render_markdown())
    return path
