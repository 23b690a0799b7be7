"""The README's Results section is generated from stored records and their reports, between two markers."""

import pytest

from harness.results_section import BEGIN, END, update_readme
from harness.store import ResultsStore


def record(seed, profile="standard", stamp="2026-11-30T23:00:00", wall=120.0):
    return {"suite": "position_extrapolation", "suite_version": 2, "variant": "alibi", "seed": seed, "metric": "loss",
            "status": "ok", "value": 1.5, "x": 64.0, "profile": profile, "profile_settings": {"steps": 1000},
            "device": "cpu", "device_name": "Test CPU", "dtype": "float32", "data_checksum": "abc", "num_threads": 2,
            "torch_version": "2.13.0", "timestamp": stamp, "wall_time_s": wall, "job_hash": f"h{seed}{profile}",
            "corpus": "World English Bible (engWEB2015eb)"}


def test_results_section_is_built_from_records_and_the_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    store = ResultsStore(results)
    for seed in (0, 1, 2):
        store.write("position_extrapolation", f"h{seed}", f"alibi-s{seed}", [record(seed)])
    store.write("position_extrapolation", "old", "alibi-quick", [record(0, "quick", "2026-11-01T00:00:00", 9999.0)])
    reports.mkdir()
    (reports / "position_extrapolation.md").write_text(
        "# Title\n\n## Setup\n\n- text\n\n## Perplexity by evaluation length\n\n| variant | 64 |\n|---|---|\n| alibi | 4.5 |\n\n"
        "## Figure\n\n![ppl](figures/pe.png)\n\n## Against the published finding\n\nPress et al. 2022: this run **agrees**.\n")
    readme = tmp_path / "README.md"
    readme.write_text(f"# bench\n\n## Results\n\n{BEGIN}\nstale text\n{END}\n\n## Using it\n")
    update_readme(readme, results, reports)
    text = readme.read_text()
    assert "stale text" not in text and text.endswith("## Using it\n")
    block = text.split(BEGIN)[1].split(END)[0]
    assert "### position_extrapolation" in block and "3 seeds" in block and "Test CPU" in block
    assert "6.0 minutes of job wall time" in block  # the newest group only: 3 x 120 s, not the quick run
    assert "| alibi | 4.5 |" in block and "![ppl](reports/figures/pe.png)" in block
    assert "this run **agrees**" in block
    assert "no index at reports/index.md yet" in block  # linked once `bench report` writes it
    (reports / "index.md").write_text("# Which variant should I use?\n")
    update_readme(readme, results, reports)
    block = readme.read_text().split(BEGIN)[1].split(END)[0]
    assert block.lstrip().startswith("Every finding on one page") and "[reports/index.md](reports/index.md)" in block


def test_a_readme_without_markers_is_refused(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# bench\n")
    with pytest.raises(SystemExit, match="no results markers"):
        update_readme(readme, tmp_path, tmp_path)


def test_a_run_of_two_workers_gives_its_clock_time_beside_the_job_time():
    import pandas as pd

    from harness.results_section import time_words

    # two workers: jobs of 600 s ending at 10:10 and 10:10, then one of 300 s ending at 10:15
    jobs = pd.DataFrame({"job_hash": ["a", "b", "c"], "wall_time_s": [600.0, 600.0, 300.0], "workers": [2, 2, 2],
                         "timestamp": ["2026-12-01T10:10:00+00:00", "2026-12-01T10:10:00+00:00", "2026-12-01T10:15:00+00:00"]})
    words = time_words(jobs)
    assert words.startswith("25.0 minutes of job wall time") and "2 worker processes" in words
    assert words.endswith("15.0 minutes from the first job's start to the last one's end")
    assert "whatever else" in time_words(jobs.drop(columns="workers"))
