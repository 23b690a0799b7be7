"""A training job records its own model's cost beside its quality (suites/common/model_cost.py), at a tiny size."""

from stored import ran

from tests.tiny import LANGUAGE, POSITION, TRANSLATION, tiny

PE = [*tiny("position_extrapolation", POSITION, steps=3, warmup_steps=1, eval_multipliers=[1, 8]), "seeds=[0]"]
LM = [*tiny("language_modeling", LANGUAGE, steps=3), "seeds=[0]"]
COSTS = ("train_flops", "peak_train_memory", "kv_cache_bytes_per_token", "prefill_latency", "decode_latency")


def _by(records):
    out = {}
    for r in records:
        out.setdefault((r["variant"], r["metric"]), []).append(r)
    return out


def test_a_position_job_records_the_cost_of_the_model_it_trained(tmp_path):
    results = tmp_path / "results"
    by = _by(ran(results, "variants=[rope,rope+pi,learned,alibi+mqa]", *PE))
    for variant in ("rope", "rope+pi", "learned", "alibi+mqa"):
        for metric in COSTS:
            assert (variant, metric) in by, (variant, metric)
        flops = by[(variant, "train_flops")][0]
        assert flops["value"] == flops["extra"]["flops_per_step"] * 3 > 0
        assert flops["extra"]["flops_per_token"] == flops["extra"]["flops_per_step"] / (4 * 8)
        memory = by[(variant, "peak_train_memory")][0]
        assert memory["value"] > memory["extra"]["weight_bytes"] > 0 and memory["extra"]["optimizer"] == "adamw"
        kv = by[(variant, "kv_cache_bytes_per_token")][0]
        kv_heads = 1 if variant == "alibi+mqa" else 2
        assert (
            kv["status"] == "ok" and kv["value"] == 2 * 1 * kv_heads * 8 * 4
        )  # 2 x layers x kv_heads x head_dim x 4 B
        assert kv["extra"]["cache_bytes"] == kv["extra"]["cache_bytes_analytic"] == kv["value"] * 8
        prefill = by[(variant, "prefill_latency")][0]
        assert prefill["status"] == "ok" and prefill["x"] == 8.0 and prefill["extra"]["repeats"] >= 5
        assert "cost_time_s" in prefill and prefill["cost_time_s"] > 0
    decode = {(r["variant"], r["x"]): r for rs in by.values() for r in rs if r["metric"] == "decode_latency"}
    for variant in ("rope", "rope+pi", "alibi+mqa"):
        for x in (8.0, 64.0):
            step = decode[(variant, x)]
            assert step["status"] == "ok" and step["extra"]["cached"] == x - 1 and "q1" in step["extra"]
            assert step["extra"]["max_error_vs_full"] < 1e-3
    assert decode[("learned", 8.0)]["status"] == "ok"
    assert (
        decode[("learned", 64.0)]["status"] == "unsupported"
        and "without clipping" in decode[("learned", 64.0)]["reason"]
    )


def test_a_language_modeling_job_records_the_cost_of_the_model_it_trained(tmp_path):
    results = tmp_path / "results"
    by = _by(ran(results, "variants=[baseline,additive+naive]", *LM))
    for variant in ("baseline", "additive+naive"):
        for metric in COSTS:
            assert all(r["status"] == "ok" for r in by[(variant, metric)]), (variant, metric)
        assert [r["x"] for r in by[(variant, "decode_latency")]] == [8.0, 64.0]
    assert by[("baseline", "kv_cache_bytes_per_token")][0]["value"] == 2 * 1 * 8 * 4 * 4


def test_latent_attention_and_a_window_train_and_measure_their_own_cache_formula(tmp_path):
    # mla caches (d_c + d_h^R) per token and layer, a window W = 4 holds min(L, W) = 4 of the L = 8 tokens
    results = tmp_path / "results"
    by = _by(ran(results, "variants=[mla,rope+window4]", *LM))
    for variant in ("mla", "rope+window4"):
        assert all(r["status"] == "ok" for rs in by.values() for r in rs if r["variant"] == variant), variant
        kv = by[(variant, "kv_cache_bytes_per_token")][0]
        assert kv["extra"]["cache_bytes"] == kv["extra"]["cache_bytes_analytic"]
    assert by[("rope+window4", "kv_cache_bytes_per_token")][0]["value"] == 2 * 1 * 8 * 4 * 4 * 4 / 8
    assert by[("mla", "perplexity")][0]["attention_backend"]  # the backend is recorded for latent attention too


TR = [*tiny("translation", TRANSLATION, test_limit=40), "seeds=[0]"]


def test_a_translation_job_records_encoding_and_decoding_with_the_memory(tmp_path):
    results = tmp_path / "results"
    by = _by(ran(results, "variants=[lstm+bahdanau+additive,transformer]", *TR))
    kv = by[("transformer", "kv_cache_bytes_per_token")][0]
    assert kv["status"] == "ok" and kv["value"] == 2 * 1 * 2 * 8 * 4  # 2 x layers x kv_heads x head_dim x 4 B
    assert (
        kv["extra"]["memory_bytes_per_source_token"] == kv["value"]
    )  # the encoder memory's K/V, once per source token
    rnn_kv = by[("lstm+bahdanau+additive", "kv_cache_bytes_per_token")][0]
    assert rnn_kv["status"] == "unsupported" and "fixed-size state" in rnn_kv["reason"]
    rnn_flops = by[("lstm+bahdanau+additive", "train_flops")][0]  # the fused CPU LSTM counted (harness/rnn_flops.py)
    assert rnn_flops["status"] == "ok" and rnn_flops["value"] > 0
    assert by[("transformer", "train_flops")][0]["value"] > 0
    for variant in ("lstm+bahdanau+additive", "transformer"):
        prefill = by[(variant, "prefill_latency")][0]
        assert prefill["status"] == "ok" and prefill["x_name"] == "source_tokens"
        steps = by[(variant, "decode_latency")]
        assert [r["x"] for r in steps] == [prefill["x"], 8 * prefill["x"]] and all(r["status"] == "ok" for r in steps)
