"""The records a run stored, read back the way the end-to-end tests check them, and a reduced-size ``bench run``."""

import json

from bench.cli import main


def load(results):
    """Every record under the results folder ``results``, file by file in name order."""
    return [json.loads(line) for p in sorted(results.glob("*/*.jsonl")) for line in p.read_text().splitlines()]


def runner(*settings):
    """``run(results, *args)``: ``bench run`` into ``results`` with ``settings`` (a reduced size) before ``args``."""
    return lambda results, *args: main(["run", f"results_dir={results}", *settings, *args])
