"""The records a run stored, read back the way the end-to-end tests check them."""

import json


def load(results):
    """Every record under the results folder ``results``, file by file in name order."""
    return [json.loads(line) for p in sorted(results.glob("*/*.jsonl")) for line in p.read_text().splitlines()]
