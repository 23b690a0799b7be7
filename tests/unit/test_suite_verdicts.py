"""Verdict functions of language_modeling, translation, kv_cache, attention_scaling and position_extrapolation on
made-up records: each says "agrees", "disagrees", "inconclusive" and "not run" where it can be reached.

(tests/unit/test_report_verdicts.py does the same for gradient_flow and attention_cost.)"""

import pandas as pd
import pytest

from suites.attention_scaling import verdicts as scaling
from suites.common.learning import LearningCheck
from suites.kv_cache import verdicts as kv
from suites.language_modeling import verdicts as lm
from suites.language_modeling.summary import Summary
from suites.position_extrapolation import verdicts as extrapolation
from suites.translation import verdicts as translation

# --- language_modeling ---------------------------------------------------------------------------------

BASE = {"d_model": 64, "n_heads": 4, "n_kv_heads": None, "d_ff": None, "scoring": "scaled_dot", "norm_placement": "pre",
        "norm": "layernorm", "ffn": "gelu", "position": "rope", "kernel": "naive"}
#: a variant's spec changes against the baseline
CHANGES = {"baseline": {}, "dot": {"scoring": "dot"}, "additive+naive": {"scoring": "additive"},
           "gqa2": {"n_kv_heads": 2, "d_ff": 288}, "mqa": {"n_kv_heads": 1, "d_ff": 304},
           "post_ln": {"norm_placement": "post"}}


def _lm(ppl):
    """A language_modeling group: variant -> per-seed perplexities (a list) or a status that is not ok."""
    rows = []
    for v, values in ppl.items():
        spec = {**BASE, **CHANGES[v]}
        for seed in (0, 1, 2):
            ok = isinstance(values, list)
            rows.append({"variant": v, "seed": seed, "status": "ok" if ok else values, "reason": None if ok else "x",
                         "metric": "perplexity", "value": values[seed] if ok else float("nan"), "spec": spec,
                         "profile_settings": {"warmup_steps": 10}})
    return Summary(pd.DataFrame(rows))


BASELINE = [5.0, 5.1, 4.9]


def _times(factor):
    return [p * factor for p in BASELINE]


@pytest.mark.parametrize("judge, variants, verdict", [
    # Vaswani et al.'s scorings: similar at small d_k
    (lm._scoring, {"dot": _times(1.01)}, "agrees"),            # within 3% of the baseline
    (lm._scoring, {"dot": _times(1.10)}, "disagrees"),         # 10% worse
    (lm._scoring, {"dot": "failed"}, "inconclusive"),          # no perplexity to compare
    (lm._scoring, {}, "not run"),                              # no unscaled-dot or additive variant
    # Ainslie et al.'s GQA: within 3% of MHA and no worse than MQA
    (lm._grouping, {"gqa2": _times(1.01), "mqa": _times(1.02)}, "agrees"),
    (lm._grouping, {"gqa2": _times(1.05), "mqa": _times(1.02)}, "disagrees"),
    (lm._grouping, {"gqa2": _times(1.01), "mqa": "failed"}, "inconclusive"),  # MQA has no perplexity
    (lm._grouping, {"gqa2": _times(1.01)}, "not run"),                        # no MQA
    # Xiong et al.'s Post-LN: worse than Pre-LN (perplexity: lower is better)
    (lm._post_ln, {"post_ln": _times(1.05)}, "agrees"),
    (lm._post_ln, {"post_ln": "diverged"}, "agrees"),
    (lm._post_ln, {"post_ln": _times(0.95)}, "disagrees"),
    (lm._post_ln, {"post_ln": "failed"}, "inconclusive"),      # no perplexity, did not diverge
    (lm._post_ln, {}, "not run"),
])
def test_language_modeling_verdicts(judge, variants, verdict):
    s = _lm({"baseline": BASELINE, **variants})
    assert judge(s, s).verdict == verdict


def test_language_modeling_scoring_with_a_variant_that_did_not_learn():
    learned = _lm({"baseline": BASELINE})
    everyone = _lm({"baseline": BASELINE, "dot": _times(1.01)})
    assert lm._scoring(learned, everyone).verdict == "inconclusive"  # dot ran but did not learn


# --- translation ---------------------------------------------------------------------------------------

SPECS = {"rnn": {"family": "rnn_seq2seq", "scoring": "none", "cell": "rnn"},
         "lstm+bahdanau+additive": {"family": "rnn_seq2seq", "scoring": "additive", "decoder": "bahdanau", "cell": "lstm"}}
LABELS = {10.0: "1-10 words (n=50)", 30.0: "11-30 words (n=50)"}


def _bleu(by_variant):
    """BLEU by length: variant -> (short bucket, long bucket), seeds 0 and 1."""
    return pd.DataFrame([{"variant": v, "metric": "bleu_by_length", "x": x, "value": bleu + seed * 0.1, "seed": seed,
                          "status": "ok"}
                         for v, (short, long) in by_variant.items() for x, bleu in ((10.0, short), (30.0, long))
                         for seed in (0, 1)])


@pytest.mark.parametrize("plain, search, flagged, verdict", [
    ((20, 8), (22, 21), {}, "agrees"),            # attention holds BLEU on long sources, the plain RNN falls
    ((20, 19), (22, 21), {}, "disagrees"),        # the plain RNN holds its BLEU too
    ((20, 8), (22, 6), {}, "disagrees"),          # attention falls as well
    ((20, 8), (22, 21), {"lstm+bahdanau+additive": "BLEU 1.0"}, "inconclusive"),  # attention did not learn
    ((20, 8), (22, 21), {"rnn": "BLEU 1.0"}, "inconclusive"),                     # no plain RNN learned
])
def test_translation_verdict(plain, search, flagged, verdict):
    ok = _bleu({"rnn": plain, "lstm+bahdanau+additive": search})
    variants = ["rnn", "lstm+bahdanau+additive"]
    assert translation._verdict(ok, variants, SPECS, LABELS, flagged).verdict == verdict


def test_translation_verdict_not_run():
    ok = _bleu({"rnn": (20, 8), "lstm+bahdanau+additive": (22, 21)})
    assert translation._verdict(ok, list(SPECS), SPECS, {}).verdict == "not run"  # no BLEU by length
    only = _bleu({"lstm+bahdanau+additive": (22, 21)})
    assert translation._verdict(only, ["lstm+bahdanau+additive"], SPECS, LABELS).verdict == "not run"  # no plain RNN


# --- kv_cache ------------------------------------------------------------------------------------------

def _cache(statuses):
    return pd.DataFrame([{"variant": "rope", "metric": "cache_bytes", "status": s, "x": 128.0 * (i + 1), "seed": 0,
                          "value": 1.0, "spec": {"position": "rope"}, "grouping": "MHA"} for i, s in enumerate(statuses)])


def test_kv_cache_bytes_verdict():
    assert kv._bytes_finding(_cache(["ok", "ok"])).verdict == "agrees"
    assert kv._bytes_finding(_cache(["ok", "failed"])).verdict == "disagrees"  # a measured size differs from the formula


def _steps(ms):
    """Cached decode steps: (position, grouping) -> ms at the longest context, seeds 0 and 1."""
    return pd.DataFrame([{"variant": f"{p}+{g}", "metric": "decode_latency", "status": "ok", "x": 2048.0, "seed": seed,
                          "value": t + 0.01 * seed, "spec": {"position": p}, "grouping": g}
                         for (p, g), t in ms.items() for seed in (0, 1)],
                        columns=["variant", "metric", "status", "x", "seed", "value", "spec", "grouping"])


@pytest.mark.parametrize("ms, verdict", [
    ({("rope", "MHA"): 2.0, ("rope", "MQA"): 1.0}, "agrees"),
    ({("rope", "MHA"): 1.0, ("rope", "MQA"): 1.5}, "disagrees"),
    ({("rope", "MHA"): 2.0, ("rope", "MQA"): 1.0, ("alibi", "MHA"): 1.0, ("alibi", "MQA"): 1.5}, "inconclusive"),
    ({("rope", "MHA"): 1.05, ("rope", "MQA"): 1.0}, "inconclusive"),  # 5% faster: within the timing noise
    ({("rope", "MHA"): 2.0}, "not run"),  # no MQA to compare
    ({}, "not run"),
])
def test_kv_cache_decode_verdict(ms, verdict):
    assert kv._decode_finding(_steps(ms)).verdict == verdict


def _rates(growth):
    """Cached-step bandwidth records: variant -> latency (ms) at 512 and 2048 cached tokens, seeds 0 and 1, with
    1 MB of weights and 1 MB of cache per 512 tokens: 2 MB read at 512, 5 MB at 2048 (2.5x the bytes)."""
    rows = []
    for variant, (short_ms, long_ms) in growth.items():
        for x, ms in ((512.0, short_ms), (2048.0, long_ms)):
            for seed in (0, 1):
                extra = {"weight_bytes": 1_000_000, "cache_bytes_read": int(1_000_000 * x / 512), "step_ms": ms}
                rows.append({"variant": variant, "metric": "decode_bandwidth", "status": "ok", "x": x, "seed": seed,
                             "value": 0.0, "extra": extra, "spec": {"position": "rope"}})
    return pd.DataFrame(rows, columns=["variant", "metric", "status", "x", "seed", "value", "extra", "spec"])


@pytest.mark.parametrize("growth, verdict", [
    ({"rope": (1.0, 1.5), "rope+mqa": (1.0, 1.2)}, "agrees"),  # latency 1.5x and 1.2x for 2.5x the bytes
    ({"rope": (1.0, 2.7)}, "agrees"),  # 2.7x: over 2.5x, within the noise allowance (1.1 x 2.5 = 2.75)
    ({"rope": (1.0, 3.0), "rope+mqa": (1.0, 4.0)}, "disagrees"),  # as a step that also copied its cache would grow
    ({"rope": (1.0, 1.2), "rope+mqa": (1.0, 4.0)}, "inconclusive"),
    ({}, "not run"),
])
def test_kv_cache_memory_bound_verdict(growth, verdict):
    assert kv._memory_bound_finding(_rates(growth)).verdict == verdict


# --- attention_scaling ---------------------------------------------------------------------------------

def _probe(values):
    """Probe records: (variant, metric) -> {d_k: value}, seeds 0 and 1."""
    return pd.DataFrame([{"variant": v, "metric": m, "x": float(d), "value": val, "seed": seed, "status": "ok"}
                         for (v, m), by_d in values.items() for d, val in by_d.items() for seed in (0, 1)],
                        columns=["variant", "metric", "x", "value", "seed", "status"])


def test_attention_scaling_variance_verdict():
    d_ks = [16.0, 256.0]
    assert scaling._variance(_probe({("scaled_dot", "qk_variance"): {16: 16.5, 256: 250.0}}), d_ks).verdict == "agrees"
    assert scaling._variance(_probe({("scaled_dot", "qk_variance"): {16: 32.0, 256: 512.0}}), d_ks).verdict == "disagrees"
    assert scaling._variance(_probe({}), []).verdict == "not run"


def _saturation(dot_entropy_hi, dot_saturated_hi, dot_jacobian_hi):
    return _probe({
        ("dot", "softmax_entropy"): {16: 2.0, 256: dot_entropy_hi},
        ("scaled_dot", "softmax_entropy"): {16: 3.0, 256: 3.0},
        ("dot", "softmax_saturated_fraction"): {16: 0.1, 256: dot_saturated_hi},
        ("scaled_dot", "softmax_saturated_fraction"): {16: 0.0, 256: 0.0},
        ("dot", "softmax_jacobian_norm"): {256: dot_jacobian_hi},
        ("scaled_dot", "softmax_jacobian_norm"): {256: 0.1},
        ("dot", "query_grad_norm"): {256: 2.0},
        ("scaled_dot", "query_grad_norm"): {256: 1.0},
    })


def test_attention_scaling_saturation_verdict():
    variants, d_ks = ["scaled_dot", "dot"], [16.0, 256.0]
    assert scaling._saturation(_saturation(0.5, 0.8, 0.01), variants, d_ks).verdict == "agrees"
    assert scaling._saturation(_saturation(2.9, 0.05, 0.2), variants, d_ks).verdict == "disagrees"
    assert scaling._saturation(_saturation(0.5, 0.8, 0.01), ["scaled_dot"], d_ks).verdict == "not run"
    assert scaling._saturation(_saturation(0.5, 0.8, 0.01), variants, [256.0]).verdict == "not run"  # one d_k


def _check(v, heldout, bigram=3.0):
    return LearningCheck(v, tuple(heldout), tuple(h - 0.05 for h in heldout), bigram)


@pytest.mark.parametrize("additive, dot, verdict", [
    ([2.0, 2.1], [2.3, 2.4], "agrees"),        # additive's held-out loss lower
    ([2.3, 2.4], [2.0, 2.1], "disagrees"),
    ([2.0, 2.1], [3.5, 3.6], "inconclusive"),  # unscaled dot did not learn (above the bigram entropy)
])
def test_attention_scaling_training_verdict(additive, dot, verdict):
    ok = pd.DataFrame([{"variant": v, "metric": "heldout_loss", "x": None, "value": h, "seed": seed, "status": "ok"}
                       for v, losses in (("additive+naive", additive), ("dot", dot)) for seed, h in enumerate(losses)])
    checks = {"additive+naive": _check("additive+naive", additive), "dot": _check("dot", dot)}
    assert scaling.training_verdict(ok, ["dot", "additive+naive"], checks).verdict == verdict


def test_attention_scaling_training_verdict_not_run_without_additive():
    assert scaling.training_verdict(pd.DataFrame(), ["scaled_dot", "dot"], {}).verdict == "not run"


# --- position_extrapolation ----------------------------------------------------------------------------

BOTH = {"alibi", "sinusoidal"}


@pytest.mark.parametrize("alibi, sinusoidal, comparable, verdict", [
    ([1.0, 1.05], [3.0, 3.5], BOTH, "agrees"),             # ALiBi flat, sinusoidal blows up
    ([1.5, 1.6], [3.0, 3.5], BOTH, "disagrees"),           # ALiBi rises
    ([1.1, 1.1], [1.05, 1.05], BOTH, "disagrees"),         # sinusoidal no worse than ALiBi
    ([1.0, 1.05], [1.5, 1.6], BOTH, "inconclusive"),       # sinusoidal rises, short of the blow-up
    ([1.0, 1.05], [3.0, 3.5], {"sinusoidal"}, "inconclusive"),  # ALiBi not comparable at L
    ([1.0, 1.05], [], BOTH, "not run"),                    # no sinusoidal results at L and 8L
])
def test_position_extrapolation_verdict(alibi, sinusoidal, comparable, verdict):
    ratios = {"alibi": alibi, "sinusoidal": sinusoidal}
    assert extrapolation.verdict(ratios, comparable, BOTH).verdict == verdict


def test_kv_cache_bandwidth_table_shows_the_cuda_graph_step_beside_the_eager_one():
    from suites.kv_cache.tables import _bandwidth_section

    extra = {"weight_bytes": 3_000_000, "cache_bytes_read": 1_000_000, "step_ms": 2.0}
    rows = [("copy_bandwidth", None, 10.0, {}), ("decode_bandwidth", 512.0, 2.0, extra),
            ("decode_tokens_per_s", 512.0, 500.0, extra), ("decode_bandwidth_graph", 512.0, 8.0, {**extra, "step_ms": 0.5})]
    df = pd.DataFrame([{"variant": "rope", "metric": m, "x": x, "value": v, "extra": e, "status": "ok", "seed": 0}
                       for m, x, v, e in rows])
    text = "\n".join(_bandwidth_section(df, ["rope"]))
    assert "copy bandwidth of 10 GB/s" in text
    row = next(line for line in text.splitlines() if line.startswith("| rope"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # 2 ms, 4 MB read of which 25% K/V, 2 GB/s (20% of the copy); the graph step: 0.5 ms, 8 GB/s (80%)
    assert cells == ["rope", "512", "2", "500", "4", "25%", "2", "20%", "0.5", "8", "80%"]
    assert "GB/s, graph" in text
