"""The suites ``make reference`` runs, asked of the registry: the cost suites first, then the training suites.

    python -m bench.reference cost        # kv_cache attention_cost sequence_cost
    python -m bench.reference training    # position_extrapolation attention_heads ... retrieval_length

A cost suite's jobs train nothing and only time (its Suite class is a ``TimesOnly``, harness/contract.py), so the
reference runs them first, one process with nothing else running; every other registered suite trains. Each list
keeps ``ORDER``, the order the reference has always been run in (attention_heads reads the models
position_extrapolation stored, so it comes after it); a suite registered since runs after those, in the registry's
order. tools/regen_reference.sh rebuilds the reports in the same order.
"""

from __future__ import annotations

import sys

#: the order of the reference runs: cost suites, then training suites (translation's two profiles run at its place)
ORDER = (
    "kv_cache",
    "attention_cost",
    "sequence_cost",
    "position_extrapolation",
    "attention_heads",
    "language_modeling",
    "attention_scaling",
    "training_stability",
    "gradient_flow",
    "translation",
    "recall",
    "streaming",
    "scaling",
    "attention_explanation",
    "retrieval_length",
)
KINDS = ("cost", "training")


def reference_suites(kind: str) -> list[str]:
    """The registered suites of ``kind`` (cost or training) in the order the reference runs them."""
    from harness.contract import TimesOnly, suites

    if kind not in KINDS:
        raise ValueError(f"unknown kind of suite '{kind}'; choose one of {', '.join(KINDS)}")
    names = [name for name in suites.names() if isinstance(suites.get(name), TimesOnly) == (kind == "cost")]
    rank = {name: i for i, name in enumerate(ORDER)}
    return sorted(names, key=lambda name: (rank.get(name, len(ORDER)), name))


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in KINDS:
        raise SystemExit(f"usage: python -m bench.reference {'|'.join(KINDS)}")
    print(" ".join(reference_suites(sys.argv[1])))
