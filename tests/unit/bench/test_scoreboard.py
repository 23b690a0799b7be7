"""The index's scoreboard cells: the one number a verdict rests on (Finding.headline), its interval and seeds."""

from bench.index.scoreboard import COLUMNS, INTERVAL, measurement
from harness.findings import Claim, Estimate, finding

CLAIM = Claim("c", "s", "A claim", "Someone 2020", "x is small")


def test_the_measurement_cell_holds_the_headline_and_its_interval_alone():
    estimates = [Estimate("first", 1.0, 0.5, 1.5, seeds=3), Estimate("second", 2.0, 1.9, 2.1, seeds=3)]
    assert measurement(finding(CLAIM, "agrees", "", estimates)) == ("first 1", "[0.5, 1.5], 3 seeds")
    assert measurement(finding(CLAIM, "agrees", "", estimates, headline=1)) == ("second 2", "[1.9, 2.1], 3 seeds")


def test_one_seed_or_an_exact_count_says_why_there_is_no_interval_once():
    one = finding(CLAIM, "agrees", "", [Estimate("lag", 5.0, seeds=1)])
    assert measurement(one) == ("lag 5", "none (1 seed)")
    exact = finding(CLAIM, "agrees", "", [Estimate("bytes", 2048.0, unit="B", seeds=0)], seeds=1)
    assert measurement(exact) == ("bytes 2,048 B", "exact")


def test_a_verdict_without_numbers_points_to_its_report_and_no_cell_says_nan():
    found = finding(CLAIM, "inconclusive", "A long sentence. " * 20, [Estimate("x", float("nan"), seeds=3)])
    cells = measurement(found)
    assert "nan" not in " ".join(cells).lower()
    assert measurement(finding(CLAIM, "inconclusive", "A long sentence. " * 20, [], seeds=3)) == (
        "no number: see the report",
        "3 seeds",
    )


def test_the_scoreboard_has_at_most_eight_columns():
    assert len(COLUMNS) <= 8 and INTERVAL in COLUMNS
