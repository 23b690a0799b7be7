"""Every report leads with its answer: Verdicts first, then the headline table and figure, bookkeeping last."""

import pytest

from bench.report.layout import VERDICTS, bullet, render
from harness.findings import Claim, Estimate, finding, not_run
from harness.report_sections import BODY, BOOKKEEPING, FIGURE, HEADLINE, Report, Section, section

CLAIM = Claim("k", "s", "ALiBi extrapolates", "Press et al. 2022 (arXiv 2108.12409)", "flat", confound="a tiny model")
CHECK = Claim("c", "s", "bytes = formula", "by construction", "equal", kind="check")


def report() -> Report:
    """Sections written in the order a suite computes them, each saying what it is."""
    return Report(["# Title (s, suite version 1)", "", "One line.", ""]).add(
        section("Setup", ["- Model: tiny", ""], BOOKKEEPING),
        section("Perplexity by length", ["| variant | 64 |", "|---|---|", "| alibi | 4.5 |", ""], HEADLINE),
        section("Did each model learn?", ["| variant | flag |", "|---|---|", "| alibi | no |", ""]),
        section("Figure", ["![ppl](figures/s.png)", ""], FIGURE),
        None,  # a section a report leaves out
        section("Support", ["| kernel | ok |", "|---|---|", ""], BOOKKEEPING),
    )


def three_seeds(verdict="agrees", cause=""):
    estimate = Estimate.of("ALiBi ppl(8L)/ppl(L)", [0.97, 0.98, 0.99])
    return finding(CLAIM, verdict, "sentence", [estimate], cause=cause)


def test_the_verdicts_come_first_then_the_headline_table_and_figure_and_bookkeeping_last():
    text = render(report(), [three_seeds(), finding(CHECK, "agrees", "", [Estimate("exact", 1.0, seeds=0)])])
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == [
        VERDICTS,
        "## Perplexity by length",
        "## Figure",
        "## Did each model learn?",
        "## Setup",
        "## Support",
    ]
    assert text.startswith("# Title (s, suite version 1)\n\nOne line.\n\n## Verdicts")
    verdicts = text.split(VERDICTS)[1].split("\n## ")[0]
    assert (
        "- **agrees**: ALiBi extrapolates; Press et al. 2022 (arXiv 2108.12409). Measured: ALiBi ppl(8L)/ppl(L) 0.98"
        in verdicts
    )
    assert "3 seeds" in verdicts and "Confound: a tiny model." in verdicts
    assert verdicts.index("ALiBi extrapolates") < verdicts.index("Checks") < verdicts.index("bytes = formula")
    for s in report().sections:  # nothing lost
        assert "\n".join(s.markdown()) in text


def test_first_screen_notes_follow_the_title_block_and_precede_the_verdicts():
    text = render(report(), [three_seeds()], notes=["Timings taken under load.", "Records: the newest group."])
    assert text.startswith(
        "# Title (s, suite version 1)\n\nOne line.\n\nTimings taken under load.\n\nRecords: the newest group.\n\n"
        "## Verdicts"
    )
    assert render(report(), []).startswith("# Title (s, suite version 1)\n\nOne line.\n\n## Perplexity by length")


def test_a_section_says_what_it_is_in_one_of_four_kinds():
    assert [s.kind for s in report().ordered()] == [HEADLINE, FIGURE, BODY, BOOKKEEPING, BOOKKEEPING]
    with pytest.raises(ValueError, match="kind 'appendix' is not one of headline, figure, body, bookkeeping"):
        Section("Extra", (), "appendix")
    with pytest.raises(ValueError, match="without its '## '"):
        Section("## Setup", ())


def test_a_bullet_says_one_seed_is_indicative_and_gives_the_cause_of_a_verdict_that_does_not_agree():
    one = finding(CLAIM, "disagrees", "", [Estimate.of("ratio", [1.2])], cause="the ratio is above 1.15")
    text = bullet(one)
    assert "**disagrees**" in text and "1 seed: indicative only." in text and "Why: the ratio is above 1.15." in text
    assert "[" not in text.split("Measured:")[1]  # no interval printed for one seed
    assert "Why:" not in bullet(three_seeds("agrees", cause="ignored when it agrees"))
    missing = not_run(CLAIM, command="bench run suite=s")
    assert bullet(missing).endswith("Not run: `bench run suite=s` runs it.")
    needs = Claim("n", "kv_cache", "MLA's cache", "DeepSeek-AI 2024", "2.25 groups", variants=("mla",))
    assert bullet(not_run(needs), "quick").endswith(
        "Not run: `bench run suite=kv_cache variants=[mla] profile=quick` runs it."
    )


def test_a_group_that_mixes_library_versions_says_so_at_the_end_of_its_setup():
    note = "This group mixes library versions (torch 2.12.0, 2.13.0): its numbers may differ by more than the seeds."
    text = render(report(), [three_seeds()], provenance=note)
    setup = text.split("## Setup")[1].split("\n## ")[0]
    assert setup.rstrip().endswith(f"- {note}") and text.count(note) == 1
    bare = Report(["# T", ""]).add(section("Numbers", ["| a |", "|---|", ""], HEADLINE))
    added = render(bare, [], provenance=note)  # a report without a Setup gets one, last
    assert added.rstrip().endswith(f"## Setup\n\n{note}")
