"""Every report leads with its answer: Verdicts first, then the headline table and figure, bookkeeping last."""

from bench.report.layout import VERDICTS, bullet, lead_with_answer
from harness.findings import Claim, Estimate, finding, not_run

CLAIM = Claim("k", "s", "ALiBi extrapolates", "Press et al. 2022 (arXiv 2108.12409)", "flat", confound="a tiny model")
CHECK = Claim("c", "s", "bytes = formula", "by construction", "equal", kind="check")

REPORT = """# Title (s, suite version 1)

One line.

## Setup

- Model: tiny

## Perplexity by length

| variant | 64 |
|---|---|
| alibi | 4.5 |

## Did each model learn?

| variant | flag |
|---|---|
| alibi | no |

## Figure

![ppl](figures/s.png)

## Support

| kernel | ok |
|---|---|
"""


def three_seeds(verdict="agrees", cause=""):
    estimate = Estimate.of("ALiBi ppl(8L)/ppl(L)", [0.97, 0.98, 0.99])
    return finding(CLAIM, verdict, "sentence", [estimate], cause=cause)


def test_the_verdicts_come_first_then_the_headline_table_and_figure_and_bookkeeping_last():
    text = lead_with_answer(REPORT, [three_seeds(), finding(CHECK, "agrees", "", [Estimate("exact", 1.0, seeds=0)])])
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
    # nothing lost, and a rebuilt report is not given a second Verdicts block
    for line in REPORT.splitlines():
        assert line in text.splitlines()
    assert lead_with_answer(text, [three_seeds()]).count(VERDICTS) == 1


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
    text = lead_with_answer(REPORT, [three_seeds()], provenance=note)
    setup = text.split("## Setup")[1].split("\n## ")[0]
    assert setup.rstrip().endswith(f"- {note}") and text.count(note) == 1
    assert lead_with_answer(text, [three_seeds()], provenance=note).count(note) == 1
