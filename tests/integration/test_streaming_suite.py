"""`bench run suite=streaming` at a tiny size: a model with a dedicated sink token trains, streams with only that
token kept, and its report section and verdict stand beside the plain model's."""

from stored import ran, report

TINY = [
    "suite=streaming",
    "seeds=[0]",
    "set.steps=20",
    "set.d_model=32",
    "set.n_layers=2",
    "set.n_heads=2",
    "set.train_len=16",
    "set.batch_size=8",
    "set.streams=2",
    "set.stream_len=64",
    "set.warmup_steps=2",
    "progress=false",
]


def test_a_sink_token_model_streams_with_its_one_token(tmp_path):
    results = tmp_path / "results"
    records = ran(results, "variants=[rope,rope+sink_token]", *TINY)
    token = [r for r in records if r["variant"] == "rope+sink_token"]
    plain = [r for r in records if r["variant"] == "rope"]
    assert token[0]["spec"]["sink_token"] is True and "sink_token" not in plain[0]["spec"]
    assert token[0]["spec"]["vocab_size"] == plain[0]["spec"]["vocab_size"] + 1
    kept = {
        r["variant"]: r["extra"]["sinks"]
        for r in records
        if r["metric"] == "cache_tokens" and r["extra"]["policy"] == "sinks"
    }
    assert kept == {"rope": 4, "rope+sink_token": 1}
    phrases = ("## A model trained with a dedicated sink token", "window + 1 sink", "streams with only that token kept")
    report(results, tmp_path / "reports", "streaming", "suite=streaming", phrases=phrases)
