"""``bench report``: reports rebuilt from stored records, one group of each suite (bench/report/build.py).

    bench report [suite=position_extrapolation] [profile=P device=D dtype=T suite_version=N data=SHA set.FIELD=V] [index=false]

Each suite with results (or the one ``suite=`` names) gets the report of its newest group of records matching the
selectors; then the support matrix and the index are written too, unless ``index=false``.
"""

from __future__ import annotations

from pathlib import Path


def run(args: list[str]) -> int:
    """Rebuild the reports the arguments select, saying each line and each file written."""
    from bench.config import ReportConfig, parse
    from bench.report.build import build_reports

    cfg: ReportConfig = parse(args, ReportConfig)
    paths, lines = build_reports(cfg.suite, Path(cfg.results_dir), Path(cfg.reports_dir), cfg.selection(), cfg.index)
    for line in lines:
        print(line)
    for path in paths:
        print(f"wrote {path}")
    return 0
