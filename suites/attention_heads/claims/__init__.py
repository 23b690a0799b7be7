"""attention_heads' claims, one module per key of its suite.yaml (harness/claims.py)."""
