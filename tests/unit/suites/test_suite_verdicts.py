"""Verdict functions of kv_cache and position_extrapolation on
made-up records: each says "agrees", "disagrees", "inconclusive" and "not run" where it can be reached.

(tests/unit/harness/test_report_verdicts.py does the same for gradient_flow and attention_cost.)"""

import pandas as pd
import pytest

from suites.common.learning import LearningCheck
from suites.kv_cache import verdicts as kv
from suites.position_extrapolation import verdicts as extrapolation

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
