"""The language_modeling suite end to end at a tiny size: records, skips with reasons, budget flags, report."""

from stored import ran, report

from tests.tiny import LANGUAGE, tiny

# LANGUAGE: MQA drops 7/8 of the key/value projection, more than 10% of the parameters
TINY = tiny("language_modeling", LANGUAGE, steps=4)


def test_language_modeling_end_to_end_with_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    variants = "variants=[baseline,additive+naive,additive,mqa,mqa+unmatched,post_ln,swiglu]"
    records = ran(results, variants, *TINY, "allow_skips=true")  # additive: skipped, recorded
    by = {(r["variant"], r["metric"]): r for r in records}
    skipped = by[("additive", "job")]
    assert skipped["status"] == "skipped" and "scoring 'additive' is not one" in skipped["reason"]
    for v in ("baseline", "additive+naive", "mqa", "mqa+unmatched", "post_ln", "swiglu"):
        ppl, flops = by[(v, "perplexity")], by[(v, "train_flops")]
        assert ppl["status"] == "ok" and ppl["value"] > 1 and ppl["x"] == 8.0
        assert flops["value"] == flops["extra"]["flops_per_step"] * 4 > 0
        assert ppl["parameters"] > 0 and ppl["attention_backend"]
    assert by[("additive+naive", "perplexity")]["attention_backend"] == "naive"
    assert by[("baseline", "perplexity")]["attention_backend"].startswith("sdpa:")
    baseline_params = by[("baseline", "perplexity")]["parameters"]
    assert by[("mqa+unmatched", "perplexity")]["parameters"] < 0.9 * baseline_params
    assert abs(by[("mqa", "perplexity")]["parameters"] - baseline_params) <= 0.02 * baseline_params  # FFN widened

    text = report(
        results,
        reports,
        "language_modeling",
        phrases=(
            "flagged: params",
            "(n=1)",
            "non-overlapping",
            "FlopCounterMode",
            "skipped",
            "Checks: did each model learn?",
            "bigram entropy",
        ),
        figures=("language_modeling.png",),
    )
    # one table of every variant, its family in the second column
    families = {
        line.split("|")[2].strip() for line in text.splitlines() if line.startswith("| ") and line.count("|") == 9
    }
    assert {"baseline", "scoring", "head grouping", "norm placement", "FFN"} <= families
    # four steps of a tiny model learn nothing, so no verdict is drawn from them
    assert "No verdict: the baseline `baseline` did not learn" in text
    verdicts, body = text.split("## Verdicts", 1)[1].split("\n## ", 1)
    assert "**inconclusive**" in verdicts and "did not learn" in verdicts  # the Verdicts block says why
    assert "Vaswani et al. 2017" not in body  # and no section compares an untrained model with the paper
    mqa_row = next(line for line in text.splitlines() if line.startswith("| mqa "))
    assert "matched: d_ff widened to" in mqa_row and "flagged" not in mqa_row
    unmatched_row = next(line for line in text.splitlines() if line.startswith("| mqa+unmatched"))
    assert "flagged" in unmatched_row and "unmatched: d_ff kept at 128" in unmatched_row
    swiglu_row = next(line for line in text.splitlines() if line.startswith("| swiglu"))
    assert "matched" in swiglu_row
    assert "additive" in (reports / "support_matrix.md").read_text()
