"""sequence_cost's claims, one module per key of its suite.yaml (harness/claims.py)."""
