"""Reports read in a minute: tables of at most 8 columns and no 'nan' or 'None', checked on every stored reference
group of the suites whose report builds in seconds (the others are checked by their end-to-end tests)."""

from pathlib import Path

import pytest

from tests.report_shape import MAX_COLUMNS, check_reports, columns, problems

REFERENCE = Path(__file__).resolve().parents[3] / "reference" / "results"
#: suites whose report from the stored reference records takes over ~15 s (per-head maps, gradient probes): their
#: end-to-end tests check their reports instead
SLOW = ("attention_heads", "gradient_flow")


def _reference_suites():
    return (
        sorted(p.name for p in REFERENCE.iterdir() if p.is_dir() and any(p.glob("*.jsonl")))
        if REFERENCE.is_dir()
        else []
    )


def test_the_checker_finds_wide_tables_split_headers_and_missing_values():
    wide = "| " + " | ".join(f"c{i}" for i in range(9)) + " |\n|" + "---|" * 9 + "\n| " + " | ".join("1" * 9) + " |\n"
    assert columns(wide.splitlines()[0]) == 9 and problems(wide)
    split = "| a | ||q|| | b |\n|---|---|---|---|---|---|---|\n"  # '||q||' in a header makes four more columns
    assert columns(split.splitlines()[0]) == 7
    assert problems("- Device: cpu, nan threads while measuring.") and problems("allocator None")
    narrow = "## Table\n\n| variant | ppl |\n|:---|---:|\n| none | 4.2 |\n\nThe `none` encoding: - (no value)."
    assert problems(narrow) == []
    escaped = "| a | b \\| c |\n|---|---|\n"
    assert columns(escaped.splitlines()[0]) == 2 <= MAX_COLUMNS


@pytest.mark.parametrize("suite", [s for s in _reference_suites() if s not in SLOW])
def test_every_reference_report_has_narrow_tables_and_no_nan(suite, tmp_path):
    from bench.report.build import write_suite_report
    from harness.contract import suites
    from harness.groups import split_groups
    from harness.report import records_frame
    from harness.store import ResultsStore

    records = ResultsStore(REFERENCE).load(suite)
    for i, group in enumerate(split_groups(records_frame(records))):  # every group `bench report` can select
        write_suite_report(suites.get(suite), group.frame, tmp_path / str(i))
        check_reports(tmp_path / str(i))


def test_a_job_fact_a_record_lacks_reads_not_recorded():
    import pandas as pd

    from suites.common.facts import fact

    # a skipped job's record carries no job facts: pandas gives it NaN and turns the others' integers into floats
    frame = pd.DataFrame([{"status": "skipped"}, {"status": "ok", "timing_threads": 2, "allocator": "glibc"}])
    skipped, ran = frame.iloc[0], frame.iloc[1]
    assert fact(skipped, "timing_threads") == "not recorded" and fact(skipped, "allocator") == "not recorded"
    assert fact(ran, "timing_threads") == "2" and fact(ran, "allocator") == "glibc"
    assert fact({"flush_denormal": None}, "flush_denormal") == "not recorded" and fact({}, "x") == "not recorded"


def test_a_table_with_a_column_per_length_splits_by_pass_then_into_chunks():
    import pandas as pd

    from suites.common.narrow import narrow

    lengths = (512, 1024, 2048, 4096, 8192, 16384)  # attention_cost's gpu profile: 9 columns in one table
    rows = [
        {"variant": v, "mask": m, "pass": p, **{str(x): f"{x / 1000:.1f}" for x in lengths}}
        for p in ("fwd", "fwd+bwd")
        for m in ("full", "causal")
        for v in ("naive", "sdpa")
    ]
    text = narrow(pd.DataFrame(rows), ["variant", "pass", "mask"])
    assert problems(text) == [] and "pass fwd:" in text and "pass fwd+bwd:" in text
    assert text.count("| naive ") == 4 and "16384" in text  # every row and length kept
    wide = pd.DataFrame([{"layer": "lstm", **{str(x): "1" for x in range(12)}}])
    chunks = narrow(wide, ["layer"])
    assert problems(chunks) == [] and chunks.count("| lstm ") == 2 and " 11 |" in chunks  # two tables, each keyed
    small = pd.DataFrame([{"variant": "rope", "ppl": "4.2"}])
    assert narrow(small, ["variant"]) == small.to_markdown(index=False)
