"""streaming's claims, one module per key of its suite.yaml (harness/claims.py)."""

from suites.streaming.probe_figures import PROBE_FIGURES

__all__ = ["PROBE_FIGURES"]
