"""retrieval_length's verdicts on made-up records: agrees, disagrees, inconclusive and not run."""

import pandas as pd

from suites.retrieval_length import verdicts, window_check
from suites.retrieval_length.passkey import distance

SETTINGS = {
    "train_len": 64,
    "finetune_len": 128,
    "finetune_steps": 120,
    "short_finetune_steps": 48,
    "needle_depths": [0.0, 0.5, 1.0],
    "eval_draws": 32,
}
SPEC = {"n_layers": 4, "window": None}


def rec(variant, metric, x, seed, value, spec=SPEC, extra=None):
    return {
        "variant": variant,
        "metric": metric,
        "x": float(x),
        "seed": seed,
        "value": value,
        "status": "ok",
        "spec": spec,
        "extra": extra or {},
        "profile_settings": SETTINGS,
    }


def frame(values):
    """values: (variant, metric, x) -> per-seed list."""
    return pd.DataFrame([rec(v, m, x, s, val) for (v, m, x), vals in values.items() for s, val in enumerate(vals)])


def test_pi_finetuned_agrees_disagrees_inconclusive_not_run():
    def pi(pi_vals, rope_vals):
        return verdicts.pi_finding(
            frame({("rope+pi", "finetuned_accuracy", 128): pi_vals, ("rope", "finetuned_accuracy", 128): rope_vals})
        ).verdict

    assert pi([0.95, 0.97, 0.9], [0.3, 0.35, 0.2]) == "agrees"
    assert pi([0.3, 0.35, 0.2], [0.95, 0.97, 0.9]) == "disagrees"
    assert pi([0.9, 0.75, 0.95], [0.8, 0.7, 0.6]) == "inconclusive"
    assert pi([0.6, 0.62, 0.61], [0.2, 0.21, 0.22]) == "disagrees"  # beats it but never reaches the threshold
    assert pi([0.9], [0.2]) == "inconclusive"  # one seed: no calibrated margin, no verdict
    assert verdicts.pi_finding(frame({("rope", "finetuned_accuracy", 128): [1.0]})).verdict == "not run"


def test_yarn_fewer_steps():
    def yarn(yarn_short, pi_short, pi_long):
        return verdicts.yarn_finding(
            frame(
                {
                    ("rope+yarn", "short_finetuned_accuracy", 128): yarn_short,
                    ("rope+pi", "short_finetuned_accuracy", 128): pi_short,
                    ("rope+pi", "finetuned_accuracy", 128): pi_long,
                }
            )
        ).verdict

    assert yarn([0.9, 0.92, 0.91], [0.4, 0.5, 0.45], [0.93, 0.95, 0.9]) == "agrees"
    assert yarn([0.3, 0.32, 0.31], [0.4, 0.5, 0.45], [0.93, 0.95, 0.9]) == "disagrees"
    assert yarn([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]) == "inconclusive"  # both there already
    assert verdicts.yarn_finding(frame({("rope+pi", "finetuned_accuracy", 128): [1.0]})).verdict == "not run"


def test_alibi_retrieval_falls():
    def alibi(at_l, at_8l):
        return verdicts.alibi_finding(
            frame(
                {
                    ("alibi", "accuracy", 64): at_l,
                    ("alibi", "accuracy", 512): at_8l,
                    ("alibi", "text_loss", 64): [1.5, 1.5, 1.5],
                    ("alibi", "text_loss", 512): [1.45, 1.5, 1.48],
                }
            )
        )

    found = alibi([1.0, 0.98, 0.99], [0.1, 0.2, 0.15])
    assert found.verdict == "agrees" and "perplexity" in found.sentence
    assert alibi([0.5, 0.4, 0.45], [0.9, 0.95, 0.92]).verdict == "disagrees"
    assert alibi([1.0, 0.5, 0.9], [0.9, 0.8, 0.7]).verdict == "inconclusive"
    assert verdicts.alibi_finding(frame({("rope", "accuracy", 64): [1.0]})).verdict == "not run"


def window_frame(beyond, within, relay=0.0, variant="rope+window32"):
    """One window model (4 layers, W 32: span 124, one window 31 back) at L = 64 and 256, depths 0, 0.5, 1."""
    spec = {"n_layers": 4, "window": 32}
    rows = []
    for length in (64, 256):
        dists = [distance(length, d) for d in SETTINGS["needle_depths"]]
        accs = [beyond if dist > 124 else (within if dist <= 31 else relay) for dist in dists]
        extra = {"depths": SETTINGS["needle_depths"], "by_depth": accs, "distances": dists}
        rows.append(rec(variant, "accuracy", length, 0, sum(accs) / 3, spec, extra))
    return pd.DataFrame(rows)


def test_window_check():
    cells = window_check.cells(window_frame(0.0, 1.0))["rope+window32"]
    assert len(cells["beyond"]) == 2 and len(cells["within"]) == 2 and len(cells["relay"]) == 2
    assert window_check.span_finding(window_frame(0.0, 1.0)).verdict == "agrees"  # relay cells are not judged
    assert window_check.span_finding(window_frame(0.5, 1.0)).verdict == "disagrees"
    assert window_check.span_finding(window_frame(0.0, 0.1)).verdict == "inconclusive"
    # a model that never learned to retrieve is named and left out; the one that learned decides
    both = pd.concat([window_frame(0.0, 0.1), window_frame(0.0, 1.0, variant="other")])
    found = window_check.span_finding(both)
    assert found.verdict == "agrees" and "`rope+window32`" in found.sentence and "not judged" in found.sentence
    # a leak counts whether or not the model learned
    assert window_check.span_finding(pd.concat([window_frame(0.5, 0.1), both])).verdict == "disagrees"
    assert window_check.span_finding(frame({("rope", "accuracy", 64): [1.0]})).verdict == "not run"
    assert window_check.SPAN.kind == "check"


def test_the_claims_are_the_files():
    assert [c.key for c in verdicts.CLAIMS] == [
        "pi_finetuned_retrieves",
        "yarn_fewer_steps",
        "alibi_flat_not_retrieval",
        "window_span_retrieval",
    ]
