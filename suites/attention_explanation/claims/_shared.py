"""What attention_explanation's claims read: the finished records, each variant's spec, and the model with learned
attention whose probes the run recorded; each claim is one paired test over seeds (two for the first, both of which
must hold)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

#: the bounds of a BLEU score
BLEU = (0.0, 100.0)


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the records of finished jobs
    ok: pd.DataFrame
    #: variant -> its stored spec
    specs: dict[str, dict]


def prepare(df: pd.DataFrame) -> Evidence:
    return Evidence(df[df.status == "ok"], {r.variant: r.spec for r in df.drop_duplicates("variant").itertuples()})


def seeds_text(n: int) -> str:
    """'3 seeds', '1 seed'."""
    return f"{n} seed{'' if n == 1 else 's'}"


def by_seed(ok: pd.DataFrame, variant: str, metric: str) -> dict[int, float]:
    """seed -> value of one variant's ``metric``."""
    rows = ok[(ok.variant == variant) & (ok.metric == metric)]
    return {int(r.seed): float(r.value) for r in rows.itertuples()}


def probed(ok: pd.DataFrame, specs: dict[str, dict]) -> str | None:
    """The variant with learned (not uniform) attention whose probes the run recorded."""
    return next(
        (
            v
            for v, s in specs.items()
            if s.get("scoring") != "uniform" and (ok[ok.variant == v].metric == "tau_gradient_loo").any()
        ),
        None,
    )
