"""The records a run stored, read back the way the end-to-end tests check them, a reduced-size ``bench run`` (and one
that must succeed, read back), and the report built from them, checked."""

import json

from bench.cli import main
from tests.report_shape import check_reports


def load(results):
    """Every record under the results folder ``results``, file by file in name order."""
    return [json.loads(line) for p in sorted(results.glob("*/*.jsonl")) for line in p.read_text().splitlines()]


def runner(*settings):
    """``run(results, *args)``: ``bench run`` into ``results`` with ``settings`` (a reduced size) before ``args``."""
    return lambda results, *args: main(["run", f"results_dir={results}", *settings, *args])


def ran(results, *args):
    """``bench run`` into ``results`` with ``args``, which must exit 0: every record stored there (``load``)."""
    assert main(["run", f"results_dir={results}", *args]) == 0
    return load(results)


def report(results, reports, page, *args, phrases=(), figures=()):
    """``bench report`` of ``results`` into ``reports`` (``args`` first: ``suite=NAME`` for one suite's alone), which
    must succeed with every report in shape (tests/report_shape.py), each of ``phrases`` in the report ``page``.md and
    each of ``figures`` drawn (over 10 kB, under figures/). The page's text."""
    assert main(["report", *args, f"results_dir={results}", f"reports_dir={reports}"]) == 0
    text = (reports / f"{page}.md").read_text()
    check_reports(reports)  # tables of at most 8 columns, no nan or None
    for phrase in phrases:
        assert phrase in text, phrase
    for name in figures:
        assert (reports / "figures" / name).stat().st_size > 10_000, name
    return text
