"""Verdict functions of language_modeling, kv_cache and position_extrapolation on
made-up records: each says "agrees", "disagrees", "inconclusive" and "not run" where it can be reached.

(tests/unit/harness/test_report_verdicts.py does the same for gradient_flow and attention_cost.)"""

import pandas as pd
import pytest

from suites.common.learning import LearningCheck
from suites.kv_cache import verdicts as kv
from suites.language_modeling import verdicts as lm
from suites.language_modeling.summary import Summary
from suites.position_extrapolation import verdicts as extrapolation

# --- language_modeling ---------------------------------------------------------------------------------

BASE = {
    "d_model": 64,
    "n_layers": 4,
    "n_heads": 4,
    "n_kv_heads": None,
    "d_ff": None,
    "scoring": "scaled_dot",
    "norm_placement": "pre",
    "norm": "layernorm",
    "ffn": "gelu",
    "position": "rope",
    "kernel": "naive",
}
#: a variant's spec changes against the baseline
CHANGES = {
    "baseline": {},
    "dot": {"scoring": "dot"},
    "additive+naive": {"scoring": "additive"},
    "sinusoidal": {"position": "sinusoidal"},
    "sinusoidal+dot": {"position": "sinusoidal", "scoring": "dot"},
    "sinusoidal+additive+naive": {"position": "sinusoidal", "scoring": "additive"},
    "gqa2": {"n_kv_heads": 2, "d_ff": 288},
    "mqa": {"n_kv_heads": 1, "d_ff": 304},
    "post_ln": {"norm_placement": "post"},
    "post_ln+long_warmup": {"norm_placement": "post", "warmup_fraction": 0.5},
    "post_ln+no_warmup": {"norm_placement": "post", "warmup_fraction": 0.0},
    "no_warmup": {"warmup_fraction": 0.0},
    "depth6": {"n_layers": 6},
    "no_warmup+depth6": {"n_layers": 6, "warmup_fraction": 0.0},
    "post_ln+no_warmup+depth6": {"n_layers": 6, "norm_placement": "post", "warmup_fraction": 0.0},
    "post_ln+long_warmup+depth6": {"n_layers": 6, "norm_placement": "post", "warmup_fraction": 0.5},
    "mla": {"attention": "mla", "d_ff": 270},
    "steps2000": {"steps": 2000},
    "mla+steps2000": {"attention": "mla", "d_ff": 270, "steps": 2000},
}
UNIGRAM = 3.05  # nats/char: a collapsed run's perplexity is exp(3.05) = 21.1


def _lm(ppl):
    """A language_modeling group: variant -> per-seed perplexities (a list) or a status that is not ok."""
    rows = []
    for v, values in ppl.items():
        spec = {**BASE, **CHANGES[v]}
        for seed in (0, 1, 2):
            ok = isinstance(values, list)
            rows.append(
                {
                    "variant": v,
                    "seed": seed,
                    "status": "ok" if ok else values,
                    "reason": None if ok else "x",
                    "metric": "perplexity",
                    "value": values[seed] if ok else float("nan"),
                    "spec": spec,
                    "unigram_entropy": UNIGRAM,
                    "profile_settings": {"warmup_steps": 10, "steps": 100},
                }
            )
    return Summary(pd.DataFrame(rows))


BASELINE = [5.0, 5.1, 4.9]
#: within the seeds' noise of BASELINE: per-seed changes +0.4%, -0.4%, +0.2% (interval about [-1, 1]%)
NOISY = [5.02, 5.08, 4.91]
#: close to BASELINE: per-seed changes +0.1%, -0.1%, +0.05% (interval about [-0.25, 0.25]%, inside lm.TOLERANCE)
CLOSE = [5.005, 5.095, 4.9025]
COLLAPSED = [21.1, 21.2, 21.0]


def _times(factor, base=BASELINE):
    return [p * factor for p in base]


@pytest.mark.parametrize(
    "judge, variants, verdict",
    [
        # Vaswani et al.'s scorings: similar at small d_k, judged with sinusoidal positions (an equivalence within
        # lm.TOLERANCE, their Table 3 step per character: 0.66%)
        (
            lm._scoring,
            {"sinusoidal": BASELINE, "sinusoidal+dot": BASELINE, "sinusoidal+additive+naive": CLOSE},
            "agrees",
        ),
        # the per-seed noise of NOISY (an interval of about ±1%) cannot show a change within ±0.66%
        (
            lm._scoring,
            {"sinusoidal": BASELINE, "sinusoidal+dot": BASELINE, "sinusoidal+additive+naive": NOISY},
            "inconclusive",
        ),
        (
            lm._scoring,
            {"sinusoidal": BASELINE, "sinusoidal+dot": NOISY, "sinusoidal+additive+naive": _times(1.10)},
            "disagrees",
        ),  # additive 10% worse in every seed
        (
            lm._scoring,
            {"sinusoidal": BASELINE, "sinusoidal+dot": _times(1.02), "sinusoidal+additive+naive": _times(1.02 * 1.004)},
            "agrees",
        ),  # +0.4% counts, inside 0.66%: alike
        (
            lm._scoring,
            {"sinusoidal": BASELINE, "sinusoidal+dot": _times(1.02), "sinusoidal+additive+naive": _times(1.02 * 1.015)},
            "disagrees",
        ),  # +1.5%: a loss by the source's step
        # the pair is additive against the *unscaled* dot product: both 8-9% above the scaled one, alike to each other
        (
            lm._scoring,
            {"sinusoidal": BASELINE, "sinusoidal+dot": _times(1.08), "sinusoidal+additive+naive": _times(1.085)},
            "agrees",
        ),
        (
            lm._scoring,
            {"sinusoidal": BASELINE, "sinusoidal+dot": "failed", "sinusoidal+additive+naive": NOISY},
            "inconclusive",
        ),  # no perplexity to compare
        (lm._scoring, {"sinusoidal": BASELINE, "sinusoidal+additive+naive": NOISY}, "not run"),  # no unscaled dot
        # the RoPE arm is shown but never decides: RoPE rotates q and k, which only a dot product undoes
        (lm._scoring, {"dot": NOISY, "additive+naive": _times(1.24)}, "not run"),
        (
            lm._scoring,
            {
                "dot": NOISY,
                "additive+naive": NOISY,
                "sinusoidal": BASELINE,
                "sinusoidal+dot": NOISY,
                "sinusoidal+additive+naive": _times(1.10),
            },
            "disagrees",
        ),
        (
            lm._scoring,
            {
                "dot": _times(1.10),
                "additive+naive": _times(1.24),
                "sinusoidal": BASELINE,
                "sinusoidal+dot": BASELINE,
                "sinusoidal+additive+naive": CLOSE,
            },
            "agrees",
        ),
        # Ainslie et al.: GQA equivalent to MHA within lm.TOLERANCE, MQA worse (a difference that counts)
        (lm._grouping, {"gqa2": CLOSE, "mqa": _times(1.03)}, "agrees"),
        (
            lm._grouping,
            {"gqa2": _times(1.005), "mqa": _times(1.034)},
            "agrees",
        ),  # GQA's loss counts but is inside 0.66%
        (lm._grouping, {"gqa2": NOISY, "mqa": _times(1.034)}, "inconclusive"),  # GQA's interval crosses 0.66%
        (lm._grouping, {"gqa2": NOISY, "mqa": NOISY}, "inconclusive"),  # MQA's loss does not count
        (lm._grouping, {"gqa2": _times(1.08), "mqa": _times(1.03)}, "disagrees"),  # GQA loses more than 0.66%
        (lm._grouping, {"gqa2": NOISY, "mqa": _times(0.97)}, "disagrees"),  # MQA better than MHA
        (lm._grouping, {"gqa2": _times(1.005), "mqa": "failed"}, "inconclusive"),  # MQA has no perplexity
        (lm._grouping, {"gqa2": _times(1.005)}, "not run"),  # no MQA
        # Xiong et al.'s Post-LN: a trainability claim, every run counts at the perplexity it ended at
        (lm._post_ln, {"post_ln": COLLAPSED}, "agrees"),  # stuck at the unigram level: the effect itself
        (lm._post_ln, {"post_ln": "diverged"}, "agrees"),  # enters at exp(unigram entropy)
        (lm._post_ln, {"post_ln": _times(0.95)}, "disagrees"),
        (lm._post_ln, {"post_ln": NOISY}, "inconclusive"),  # inside the seeds' noise
        (lm._post_ln, {"post_ln": "failed"}, "inconclusive"),  # no perplexity, did not diverge
        (lm._post_ln, {"post_ln": COLLAPSED, "post_ln+long_warmup": NOISY}, "agrees"),  # the long warm-up rescues it
        (
            lm._post_ln,
            {"post_ln": COLLAPSED, "post_ln+long_warmup": COLLAPSED},
            "inconclusive",
        ),  # warm-up not the cause
        (lm._post_ln, {}, "not run"),
        # without warm-up (the source's failing row) the judged arm is Post-LN at 0 against Pre-LN at 0, whatever Post-LN
        # does at the profile's warm-up (shown, not judged)
        (
            lm._post_ln,
            {
                "no_warmup": BASELINE,
                "post_ln+no_warmup": COLLAPSED,
                "post_ln": _times(0.95),
                "post_ln+long_warmup": NOISY,
            },
            "agrees",
        ),
        (lm._post_ln, {"no_warmup": BASELINE, "post_ln+no_warmup": _times(0.93), "post_ln": _times(0.95)}, "disagrees"),
    ],
)
def test_language_modeling_verdicts(judge, variants, verdict):
    s = _lm({"baseline": BASELINE, **variants})
    found = judge(s, s) if judge is not lm._post_ln else judge(s)
    assert found.verdict == verdict
    assert found.verdict in ("agrees", "not run") or found.cause  # every other verdict says why


def test_language_modeling_scoring_with_a_variant_that_did_not_learn():
    learned = _lm({"baseline": BASELINE, "sinusoidal": BASELINE})
    everyone = _lm({"baseline": BASELINE, "sinusoidal": BASELINE, "sinusoidal+dot": _times(1.01)})
    assert lm._scoring(learned, everyone).verdict == "inconclusive"  # sinusoidal+dot ran but did not learn


def test_post_ln_without_warm_up_is_judged_against_pre_ln_without_warm_up():
    s = _lm({"baseline": BASELINE, "no_warmup": _times(1.5), "post_ln+no_warmup": _times(1.2), "post_ln": NOISY})
    found = lm._post_ln(s)
    # worse than the baseline (warm-up 10) but better than Pre-LN without warm-up: the pair at 0 decides
    assert s.family["no_warmup"] == "warm-up" and found.verdict == "disagrees"
    assert "Post-LN without warm-up is" in found.cause and "better, not worse" in found.cause
    assert "shown, not judged" in found.sentence


def test_post_ln_is_judged_at_the_sources_depth_with_the_profiles_depth_beside_it():
    # at 4 layers Post-LN without warm-up is better than Pre-LN without (the reference's sign); at 6 it collapses
    s = _lm(
        {
            "baseline": BASELINE,
            "no_warmup": BASELINE,
            "post_ln+no_warmup": _times(0.94),
            "depth6": BASELINE,
            "no_warmup+depth6": BASELINE,
            "post_ln+no_warmup+depth6": COLLAPSED,
            "post_ln+long_warmup+depth6": NOISY,
        }
    )
    assert s.arm["post_ln+no_warmup+depth6"] == "6 layers" and s.reference["no_warmup+depth6"] == "depth6"
    found = lm._post_ln(s)
    assert found.verdict == "agrees" and "At 6 layers (the source's depth, judged)" in found.sentence
    assert "4 layers: `post_ln+no_warmup`" in found.sentence  # the trend in depth, shown
    assert found.headline.label == "post_ln+no_warmup+depth6 Δ ppl vs no_warmup+depth6"
    # without the 6-layer arms the profile's depth decides, and says the source's did not run
    s = _lm({"baseline": BASELINE, "no_warmup": BASELINE, "post_ln+no_warmup": _times(0.94)})
    found = lm._post_ln(s)
    assert found.verdict == "disagrees" and "the source's 6 did not" in found.sentence


def test_the_headline_of_a_conjunction_is_the_part_its_verdict_turns_on():
    # GQA's part passes and MQA's is undecided: the headline is MQA's estimate, with boundary 0
    s = _lm({"baseline": BASELINE, "gqa2": CLOSE, "mqa": NOISY})
    found = lm._grouping(s, s)
    assert found.verdict == "inconclusive" and found.headline.label.startswith("mqa") and found.boundary == 0.0
    assert "seeds" in found.cause  # the power sentence, planned from the headline
    # GQA's part is undecided, MQA's loss counts: the headline is GQA's, with the tolerance as its boundary
    found = lm._grouping(*(2 * [_lm({"baseline": BASELINE, "gqa2": NOISY, "mqa": _times(1.03)})]))
    assert found.headline.label.startswith("gqa2") and abs(found.boundary) == lm.TOLERANCE
    # Post-LN without warm-up on the wrong side of 0 decides, not the long warm-up's part
    s = _lm(
        {
            "baseline": BASELINE,
            "no_warmup": BASELINE,
            "post_ln+no_warmup": [4.9, 5.2, 4.7],
            "post_ln+long_warmup": [4.95, 5.0, 4.8],
        }
    )
    assert lm._post_ln(s).headline.label.startswith("post_ln+no_warmup Δ")


def test_the_mla_verdict_is_read_at_each_budget_and_decided_at_the_longest():
    from suites.language_modeling.mla_claims import mla_finding

    df = _lm_records(
        {"baseline": BASELINE, "mla": _times(1.04), "steps2000": _times(0.8), "mla+steps2000": _times(0.8 * 1.0)}
    )
    found = mla_finding(df)
    # +4% at 500 steps (a loss that counts) but no difference at 2000: the longest budget decides
    assert "500 steps `mla`" in found.sentence and "2000 steps `mla+steps2000`" in found.sentence
    assert found.headline.label.endswith("2000 steps") and found.verdict == "inconclusive"
    assert "by budget: 500 steps" in found.cause
    found = mla_finding(_lm_records({"baseline": BASELINE, "mla": _times(1.04)}))
    assert found.verdict == "disagrees" and found.headline.label.endswith("500 steps")


def test_the_scorings_are_compared_within_their_arm():
    s = _lm({"baseline": BASELINE, "dot": NOISY, "sinusoidal": _times(1.2), "sinusoidal+dot": _times(1.2 * 1.02)})
    assert s.reference["sinusoidal+dot"] == "sinusoidal" and s.reference["dot"] == "baseline"
    assert s.family["sinusoidal+dot"] == "scoring" and s.family["sinusoidal"] == "position"
    assert s.ppl_delta_pct("sinusoidal+dot") == pytest.approx(
        [2.0, 2.0, 2.0]
    )  # against sinusoidal, not the RoPE baseline


def _lm_records(ppl_by_variant, bigram=2.3, train_len=64.0):
    """Whole records of a group (held-out loss, training loss, perplexity), for ``findings`` and its learning checks."""
    import math

    rows = []
    for v, ppls in ppl_by_variant.items():
        for seed, ppl in enumerate(ppls):
            common = {
                "variant": v,
                "seed": seed,
                "status": "ok",
                "reason": None,
                "spec": {**BASE, **CHANGES[v]},
                "bigram_entropy": bigram,
                "unigram_entropy": UNIGRAM,
                "profile_settings": {"warmup_steps": 50, "steps": 500, "train_len": int(train_len)},
            }
            rows += [
                dict(common, metric="loss", value=math.log(ppl), x=train_len),
                dict(common, metric="perplexity", value=ppl, x=train_len),
                dict(common, metric="train_loss", value=math.log(ppl) - 0.02, x=None),
            ]
    return pd.DataFrame(rows)


def test_a_collapsed_post_ln_run_is_the_trainability_claims_outcome_not_left_out():
    # post_ln stays at the unigram level (ppl 21.1, 'did not learn'); with the long warm-up it trains like Pre-LN
    df = _lm_records(
        {"baseline": BASELINE, "post_ln": COLLAPSED, "post_ln+long_warmup": NOISY, "gqa2": CLOSE, "mqa": _times(1.03)}
    )
    found = {f.claim.key: f for f in lm.findings(df)}
    post = found["post_ln_trains_worse"]
    assert post.verdict == "agrees" and "did not learn" not in post.sentence
    assert post.estimates[0].value == pytest.approx(100 * (21.1 / 5.0 - 1), rel=0.02)
    assert found["gqa_keeps_mha_quality"].verdict == "agrees"
    # the quality claims still leave out a model that did not learn
    df = _lm_records({"baseline": BASELINE, "post_ln": COLLAPSED, "gqa2": NOISY, "mqa": COLLAPSED})
    found = {f.claim.key: f for f in lm.findings(df)}
    assert (
        found["gqa_keeps_mha_quality"].verdict == "inconclusive"
        and "did not learn" in found["gqa_keeps_mha_quality"].sentence
    )
    assert found["post_ln_trains_worse"].verdict == "agrees"


# --- kv_cache ------------------------------------------------------------------------------------------


def _cache(statuses):
    return pd.DataFrame(
        [
            {
                "variant": "rope",
                "metric": "cache_bytes",
                "status": s,
                "x": 128.0 * (i + 1),
                "seed": 0,
                "value": 1.0,
                "spec": {"position": "rope"},
                "grouping": "MHA",
            }
            for i, s in enumerate(statuses)
        ]
    )


def test_kv_cache_bytes_is_a_check():
    assert kv.KV_BYTES.kind == "check" and "REFERENCES" not in kv.KV_BYTES.source
    assert kv._bytes_finding(_cache(["ok", "ok"])).verdict == "agrees"
    differs = kv._bytes_finding(_cache(["ok", "failed"]))  # a measured size differs from the formula
    assert differs.verdict == "disagrees" and differs.cause


#: the copy bandwidth of every made-up job: 10 GB/s, so 1 MB takes 0.1 ms
GBS = 10.0


def _kv_records(model=None, attention=None, seeds=(0, 1)):
    """kv_cache records of made-up steps, of ``seeds``. ``model``: (position, kv_heads) -> {context: ms} of the whole
    model's step (8 heads, 1 MB of weights, 1 KB of K/V per token and K/V head); ``attention``: the same for the
    decode-step attention (32 heads of 128 in float32: 1 KiB per token and K/V head; 8 K/V heads stand for 32)."""
    rows = []

    def spec(position, kv):
        return {"position": position, "n_heads": 8, "n_kv_heads": None if kv == 8 else kv}

    def add(variant, position, kv, metric, x, ms, extra, seed):
        rows.append(
            {
                "variant": variant,
                "metric": metric,
                "status": "ok",
                "x": x,
                "seed": seed,
                "value": ms,
                "extra": extra,
                "spec": spec(position, kv),
                "dtype": "float32",
                "batch": 1,
            }
        )

    for kind, steps in (("model", model or {}), ("attention", attention or {})):
        for (position, kv_heads), by_x in steps.items():
            variant = f"{position}+kv{kv_heads}"
            for seed in seeds:
                if not any(
                    r["variant"] == variant and r["seed"] == seed and r["metric"] == "copy_bandwidth" for r in rows
                ):
                    add(variant, position, kv_heads, "copy_bandwidth", None, GBS, {}, seed)
                for x, ms in by_x.items():
                    ms = ms * (1 + 0.01 * seed)
                    if kind == "model":
                        extra = {"weight_bytes": 1_000_000, "cache_bytes_read": 1000 * kv_heads * int(x), "step_ms": ms}
                        add(variant, position, kv_heads, "decode_bandwidth", float(x), 0.0, extra, seed)
                        add(variant, position, kv_heads, "decode_latency", float(x), ms, {}, seed)
                    else:
                        extra = {
                            "path": "grouped",
                            "heads": 32,
                            "kv_heads": 32 if kv_heads == 8 else kv_heads,
                            "head_dim": 128,
                        }
                        add(variant, position, kv_heads, "decode_path_latency", float(x), ms, extra, seed)
    frame = pd.DataFrame(
        rows, columns=["variant", "metric", "status", "x", "seed", "value", "extra", "spec", "dtype", "batch"]
    )
    frame["grouping"] = frame.spec.apply(
        lambda s: "MHA" if s["n_kv_heads"] is None else ("MQA" if s["n_kv_heads"] == 1 else "GQA")
    )
    return frame


def _kv(frame, which):
    return {f.claim.key: f for f in kv.findings(frame)}[which]


#: an overhead-bound model step: 3 ms for ~1-9 MB (0.1-0.9 ms at 10 GB/s), whatever the heads
OVERHEAD = {("rope", 8): {128: 3.0, 1024: 3.2}, ("rope", 1): {128: 3.0, 1024: 3.1}}


def test_kv_cache_memory_claims_are_not_testable_where_the_step_is_overhead_bound():
    """Reading the bytes of the step at the copy bandwidth takes a third of its time or less: no verdict either way."""
    for claim in ("fewer_kv_heads_faster_decode", "decode_is_memory_bound"):
        found = _kv(_kv_records(model=OVERHEAD), claim)
        assert found.verdict == "not testable here", claim
        assert "overhead-bound" in found.cause and "set.path_contexts" in found.cause


#: the decode-step attention with MHA (32 K/V heads: 32 KiB per token; 4096 tokens = 134 MB = 13.4 ms at 10 GB/s)
def _attention(mha_ms_4096, mqa_ms_4096, mha_ms_16384=None):
    mha = {1024: mha_ms_4096 / 4, 4096: mha_ms_4096}
    if mha_ms_16384 is not None:
        mha[16384] = mha_ms_16384
    return {("rope", 8): mha, ("rope", 1): {1024: mqa_ms_4096 / 4, 4096: mqa_ms_4096}}


@pytest.mark.parametrize(
    "attention, seeds, verdict",
    [
        (_attention(15.0, 1.5), (0,), "agrees"),  # bytes dominate MHA's step (13.4 of 15 ms), MQA 10x faster
        (_attention(15.0, 14.5), (0,), "inconclusive"),  # one seed, 3% faster: within the 10% timing margin
        (_attention(15.0, 20.0), (0,), "disagrees"),  # MQA slower beyond the margin
        (_attention(15.0, 1.5), (0, 1), "agrees"),  # two seeds: the paired t test decides, no margin
        (_attention(60.0, 1.5), (0,), "not testable here"),  # the bytes' 13.4 ms are under half of 60: not dominated
    ],
)
def test_kv_cache_fewer_kv_heads_verdict_is_judged_where_bytes_dominate(attention, seeds, verdict):
    found = _kv(_kv_records(model=OVERHEAD, attention=attention, seeds=seeds), "fewer_kv_heads_faster_decode")
    assert kv.DECODE.kind == "check"  # one attention op chosen because its bytes dominate it
    assert found.verdict == verdict
    assert (found.cause != "") == (verdict != "agrees")
    if verdict != "not testable here":
        assert "MHA / MQA model step time" not in " ".join(
            e.label for e in found.estimates
        )  # the model step is shown only
        assert "not judged where its bytes do not dominate" in found.sentence
        assert "whole model's step" in found.headline.label and found.boundary == kv.NOISE


@pytest.mark.parametrize(
    "mha_16384, verdict",
    [
        (60.0, "agrees"),  # 4x the bytes, 4x the time (13.4 -> 53.7 ms of memory time)
        (64.0, "agrees"),  # 4.27x: within 1.1 x 4
        (75.0, "disagrees"),  # 5x for 4x the bytes: beyond the noise, as a step that copied its cache would grow
    ],
)
def test_kv_cache_memory_bound_verdict_between_the_two_longest_dominated_contexts(mha_16384, verdict):
    found = _kv(_kv_records(model=OVERHEAD, attention=_attention(15.0, 1.5, mha_16384)), "decode_is_memory_bound")
    assert found.verdict == verdict
    assert "4096 -> 16384" in found.sentence  # not 1024, the shortest
    assert "Not judged" in found.sentence and "`rope+kv1`" in found.sentence  # MQA's 1.5 ms is not its bytes' time


def test_kv_cache_memory_claims_not_run_without_steps():
    assert _kv(_kv_records(), "fewer_kv_heads_faster_decode").verdict == "not run"
    assert _kv(_kv_records(), "decode_is_memory_bound").verdict == "not run"


# --- position_extrapolation ----------------------------------------------------------------------------

BOTH = {"alibi", "sinusoidal"}


@pytest.mark.parametrize(
    "alibi, sinusoidal, comparable, verdict",
    [
        ([1.0, 1.02, 0.99], [3.0, 3.5, 3.2], BOTH, "agrees"),  # ALiBi flat, sinusoidal blows up
        ([1.5, 1.6, 1.55], [3.0, 3.5, 3.2], BOTH, "disagrees"),  # ALiBi rises past 15% over every seed's interval
        ([1.1, 1.1, 1.1], [1.05, 1.05, 1.05], BOTH, "disagrees"),  # sinusoidal flat, and no worse than ALiBi
        ([1.0, 1.02, 0.99], [1.1, 1.5, 1.2], BOTH, "inconclusive"),  # sinusoidal's rise: its interval spans 0 and 15%
        ([1.0, 1.05], [3.0, 3.5], BOTH, "inconclusive"),  # two seeds: ALiBi's interval reaches past 15%
        ([1.0, 1.02, 0.99], [3.0, 3.5, 3.2], {"sinusoidal"}, "inconclusive"),  # ALiBi not comparable at L
        ([1.0, 1.05], [], BOTH, "not run"),  # no sinusoidal results at L and 8L
    ],
)
def test_position_extrapolation_verdict(alibi, sinusoidal, comparable, verdict):
    ratios = {"alibi": alibi, "sinusoidal": sinusoidal}
    assert extrapolation.verdict(ratios, comparable, BOTH).verdict == verdict


@pytest.mark.parametrize(
    "alibi, sinusoidal, verdict",
    [
        ([1.0], [3.0], "agrees"),  # one seed (make run): each part clears its threshold by its own calibrated margin
        ([1.0], [0.9], "disagrees"),  # sinusoidal's one value -10%: below 15% even with its margin (about 24%) added
        ([1.0], [1.08], "inconclusive"),  # +8%: within sinusoidal's margin of the 15% threshold
        ([1.5], [3.0], "disagrees"),  # ALiBi itself 50% up, far beyond its margin (under 1%)
    ],
)
def test_one_seed_is_judged_by_each_quantitys_calibrated_margin_and_marked_indicative(alibi, sinusoidal, verdict):
    found = extrapolation.verdict({"alibi": alibi, "sinusoidal": sinusoidal}, BOTH, BOTH)
    assert found.verdict == verdict
    assert (found.note == "1 seed: indicative only") == (verdict != "inconclusive")


def test_one_seed_without_a_calibrated_margin_gives_no_verdict(monkeypatch):
    from suites.position_extrapolation import margins

    monkeypatch.setattr(margins, "MARGINS", {})
    found = extrapolation.verdict({"alibi": [1.0], "sinusoidal": [3.0]}, BOTH, BOTH)
    assert found.verdict == "inconclusive" and "1 seed: no verdict" in found.cause
    # three seeds need no margin: the intervals decide
    assert (
        extrapolation.verdict({"alibi": [1.0, 1.02, 0.99], "sinusoidal": [3.0, 3.5, 3.2]}, BOTH, BOTH).verdict
        == "agrees"
    )


def test_the_extrapolation_headline_is_the_part_that_decides_with_its_threshold():
    found = extrapolation.verdict({"alibi": [1.0, 1.02, 0.99], "sinusoidal": [1.1, 1.5, 1.2]}, BOTH, BOTH)
    assert found.verdict == "inconclusive" and found.headline.label.startswith("sinusoidal")
    assert found.boundary == extrapolation.FLAT


def test_kv_cache_bandwidth_table_shows_the_cuda_graph_step_beside_the_eager_one():
    from suites.kv_cache.tables import _bandwidth_section

    extra = {"weight_bytes": 3_000_000, "cache_bytes_read": 1_000_000, "step_ms": 2.0}
    rows = [
        ("copy_bandwidth", None, 10.0, {}),
        ("decode_bandwidth", 512.0, 2.0, extra),
        ("decode_tokens_per_s", 512.0, 500.0, extra),
        ("decode_bandwidth_graph", 512.0, 8.0, {**extra, "step_ms": 0.5}),
    ]
    df = pd.DataFrame(
        [
            {"variant": "rope", "metric": m, "x": x, "value": v, "extra": e, "status": "ok", "seed": 0}
            for m, x, v, e in rows
        ]
    )
    text = "\n".join(_bandwidth_section(df, ["rope"]))
    assert "copy bandwidth of 10 GB/s" in text
    eager, graph = [
        [c.strip() for c in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("| rope")
    ]
    # 2 ms, 4 MB read of which 25% K/V, 2 GB/s (20% of the copy); the graph step in a table of its own (8 columns at
    # most): 0.5 ms, 8 GB/s (80%)
    assert eager == ["rope", "512", "2", "500", "4", "25%", "2", "20%"]
    assert graph == ["rope", "512", "0.5", "8", "80%"] and "replayed from a CUDA graph" in text
