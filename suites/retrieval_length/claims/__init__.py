"""retrieval_length's claims, one module per key of its suite.yaml (harness/claims.py)."""

from suites.retrieval_length.probe_figures import PROBE_FIGURES  # noqa: F401  (the figures its claims cite)
