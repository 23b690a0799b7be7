"""The RoPE-extension section of the position_extrapolation report on hand-made records of the published shape, and
its statements among the suite's findings."""

from harness.contract import suites
from suites.position_extrapolation.claims._shared import EXTENSION_PUBLISHED
from suites.position_extrapolation.rope_extension import extension_section
from tests.unit.suites.position_extrapolation.claims._records import PUBLISHED_SHAPE, L, judged, records

KEYS = ("rope_blows_up", "pi_short", "pi_beats_extrapolation", "ntk_close", "yarn_close")


def _section(df):
    found = judged(df)
    return extension_section(df, L, EXTENSION_PUBLISHED, [found[k].sentence for k in KEYS if found[k].sentence])


def test_no_section_without_extensions():
    assert _section(records({"rope": PUBLISHED_SHAPE["rope"]})) is None


def test_the_section_has_the_table_the_single_training_and_the_verdicts():
    text = "\n".join(_section(records(PUBLISHED_SHAPE)))
    for phrase in (
        "| rope+yarn",
        "ppl(4L) / rope ppl(L)",
        "share one training per seed (2 seed(s))",
        "**agrees**",
        "Chen et al. 2023",
        "Peng et al. 2023",
    ):
        assert phrase in text, phrase


def test_the_extension_statements_are_index_findings_with_their_protocols():
    claims = suites.get("position_extrapolation").claims
    assert [c.key for c in claims] == [
        "alibi_extrapolates",
        "rope_blows_up",
        "pi_short",
        "pi_beats_extrapolation",
        "ntk_close",
        "yarn_close",
        "stacked_window_span",
        "window_costs_little",
    ]
    assert all(c.protocol for c in claims)  # each claim names its source's protocol and where this suite differs


def test_the_statements_a_run_without_plain_rope_cannot_test_are_not_run():
    found = judged(records({"rope+ntk": PUBLISHED_SHAPE["rope+ntk"]}))
    assert all(found[k].verdict == "not run" and not found[k].sentence for k in KEYS)
    unlearned = judged(records(PUBLISHED_SHAPE).assign(bigram_entropy=1.0))  # held-out loss above the bigram entropy
    assert len({unlearned[k].sentence for k in KEYS}) == 1  # one sentence, said once in the report
