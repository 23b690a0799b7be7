"""The README's findings table and figure are generated from stored records and their reports, between two markers."""

import math

import pytest

from bench.report.readme import BEGIN, END, update_readme
from harness.store import ResultsStore
from tests.unit.bench.made_up import CORPUS, record

L = 16


def lm_records(variant, seed, ppl_l, ppl_8l, profile="standard", stamp="2026-11-30T23:00:00+00:00", wall=120.0):
    """Made-up records of a character LM that learned: loss and perplexity at L and 8L, training loss."""
    common = record(
        "position_extrapolation",
        variant,
        seed,
        profile=profile,
        profile_settings={"train_len": L, "steps": 1000},
        num_threads=2,
        torch_version="2.13.0",
        timestamp=stamp,
        wall_time_s=wall,
        job_hash=f"{variant}{seed}{profile}",
        x=None,
        parameters=800_000,
        **CORPUS,
    )
    return [
        dict(common, metric="loss", x=float(L), value=math.log(ppl_l)),
        dict(common, metric="perplexity", x=float(L), value=ppl_l),
        dict(common, metric="perplexity", x=float(8 * L), value=ppl_8l),
        dict(common, metric="train_loss", value=math.log(ppl_l) - 0.05),
    ]


@pytest.fixture
def folders(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    store = ResultsStore(results)
    for seed in (0, 1, 2):
        for variant, ppl_l, ppl_8l in (("sinusoidal", 5.0, 21.0), ("alibi", 4.5, 4.4)):
            store.write(
                "position_extrapolation",
                f"{variant}{seed}",
                f"{variant}-s{seed}",
                lm_records(variant, seed, ppl_l + 0.1 * seed, ppl_8l + 0.1 * seed),
            )
    store.write(
        "position_extrapolation",
        "old",
        "alibi-quick",
        lm_records("alibi", 0, 9.0, 90.0, "quick", "2026-11-01T00:00:00+00:00", 9999.0),
    )
    reports.mkdir()
    (reports / "position_extrapolation.md").write_text("# Title\n\n## Figure\n\n![ppl](figures/pe.png)\n")
    return results, reports


def test_the_findings_table_and_figure_are_built_from_made_up_records(tmp_path, folders):
    results, reports = folders
    readme = tmp_path / "README.md"
    readme.write_text(f"# bench\n\n## What it found\n\n{BEGIN}\nstale text\n{END}\n\n## Compare\n")
    update_readme(readme, results, reports)
    text = readme.read_text()
    assert "stale text" not in text and text.endswith("## Compare\n")
    block = text.split(BEGIN)[1].split(END)[0]
    rows = [line for line in block.splitlines() if line.startswith("|")]
    alibi = next(row for row in rows if "ALiBi extrapolates" in row)
    # the newest group only (the quick run's 9.0 -> 90.0 would not be flat), linked to its report, with its number
    assert "(reports/position_extrapolation.md)" in alibi and "**agrees**" in alibi
    assert "ALiBi ppl(8L) vs ppl(L) -" in alibi and "3 seeds" in alibi
    assert sum("**not run**" in row for row in rows) >= 10  # every other suite's claims say not run
    assert "Test CPU" in block and "[reports/index.md](reports/index.md)" in block
    assert "![ppl](reports/figures/pe.png)" in block
    assert not any("bytes" in row.lower() and "formula" in row.lower() for row in rows)  # checks are scored apart
    assert "checks" in block


def test_a_readme_without_markers_is_refused(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# bench\n")
    with pytest.raises(SystemExit, match="no results markers"):
        update_readme(readme, tmp_path, tmp_path)


def test_a_run_of_two_workers_gives_its_clock_time_beside_the_job_time():
    import pandas as pd

    from bench.report.readme import time_words

    # two workers: jobs of 600 s ending at 10:10 and 10:10, then one of 300 s ending at 10:15
    jobs = pd.DataFrame(
        {
            "job_hash": ["a", "b", "c"],
            "wall_time_s": [600.0, 600.0, 300.0],
            "workers": [2, 2, 2],
            "timestamp": ["2026-12-01T10:10:00+00:00", "2026-12-01T10:10:00+00:00", "2026-12-01T10:15:00+00:00"],
        }
    )
    words = time_words(jobs)
    assert words.startswith("25.0 minutes of job wall time") and "2 worker processes" in words
    assert words.endswith("15.0 minutes from the first job's start to the last one's end")
    assert "whatever else" in time_words(jobs.drop(columns="workers"))
