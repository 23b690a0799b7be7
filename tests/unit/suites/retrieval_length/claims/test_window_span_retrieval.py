"""A check: beyond its stacked span a window model retrieves at most 0.02, judged on the models that retrieve within
one window."""

import pandas as pd

from suites.retrieval_length.claims import window_span_retrieval as claim
from tests.unit.suites.retrieval_length.claims._records import frame, window_frame


def test_it_is_a_check():
    assert claim.CLAIM.kind == "check" and claim.CLAIM.protocol


def test_window_check():
    cells = claim.cells(window_frame(0.0, 1.0))["rope+window32"]
    assert len(cells["beyond"]) == 2 and len(cells["within"]) == 2 and len(cells["relay"]) == 2
    assert claim.judge(window_frame(0.0, 1.0)).verdict == "agrees"  # relay cells are not judged
    assert claim.judge(window_frame(0.5, 1.0)).verdict == "disagrees"
    assert claim.judge(window_frame(0.0, 0.1)).verdict == "inconclusive"
    # a model that never learned to retrieve is named and left out; the one that learned decides
    both = pd.concat([window_frame(0.0, 0.1), window_frame(0.0, 1.0, variant="other")])
    found = claim.judge(both)
    assert found.verdict == "agrees" and "`rope+window32`" in found.sentence and "not judged" in found.sentence
    # a leak counts whether or not the model learned
    assert claim.judge(pd.concat([window_frame(0.5, 0.1), both])).verdict == "disagrees"
    assert claim.judge(frame({("rope", "accuracy", 64): [1.0]})).verdict == "not run"
