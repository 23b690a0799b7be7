"""Numbers in a claim's text come from records: every ``{probe:...}`` placeholder a suite.yaml holds has a figure, and
each figure is computed from the probe's stored records (harness/probes.py)."""

from pathlib import Path

import pytest

from harness.contract import suites
from harness.probes import REFERENCE, Probes, cited, fill

ROOT = Path(__file__).resolve().parents[3]


def _cited_figures():
    for name in suites.names():
        suite = suites.get(name)
        for claim in suite.claims:
            for field in ("confound", "confound_gpu", "protocol", "precondition"):
                for probe, figure in cited(getattr(claim, field)):
                    yield name, claim.key, probe, figure


CITED = sorted(set(_cited_figures()))


def test_the_claims_cite_probe_figures():
    assert {probe for _, _, probe, _ in CITED} >= {"pe_fan_in", "recall_lr3e-3", "streaming_fan_in"}


@pytest.mark.parametrize("suite, claim, probe, figure", CITED)
def test_every_cited_figure_is_computed_from_the_probe_records(suite, claim, probe, figure):
    figures = suites.get(suite).probe_figures
    assert f"{probe}.{figure}" in figures, f"{suite}: claim {claim} cites {probe}.{figure}, which no figure computes"
    text = figures[f"{probe}.{figure}"](Probes())
    assert text and "not computed" not in text and "nan" not in text.lower()
    assert any(ch.isdigit() for ch in text)


def test_a_placeholder_is_replaced_and_a_missing_probe_says_so(tmp_path):
    figures = {"p.x": lambda probes: probes.records("p", "s").value.iloc[0].astype(str)}
    assert fill("no figure here", figures) == "no figure here"
    text = fill("it reads {probe:p.x}.", figures, Probes(tmp_path))
    assert text == "it reads (not computed: no records under reference/probes/p/s)."
    with pytest.raises(KeyError):
        fill("{probe:p.unknown}", figures, Probes(tmp_path))


def test_the_reference_folder_is_the_repository_s():
    assert REFERENCE == ROOT / "reference"
