"""scaling's claims, one module per key of its suite.yaml, each judged at every rung of the ladder (harness/claims.py)."""
