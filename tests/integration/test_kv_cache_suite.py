"""kv_cache end to end at a tiny size: exact bytes, identical greedy tokens, checked decode paths, report."""

import pytest
from stored import load, ran, report

from bench.cli import main

TINY = [
    "suite=kv_cache",
    "set.contexts=[8,32]",
    "set.d_model=32",
    "set.n_layers=2",
    "set.n_heads=4",
    "set.generate=6",
    "set.prompt_len=4",
    "set.path_contexts=[64]",
    "set.path_heads=8",
    "set.path_head_dim=16",
    "set.min_repeats=3",
    "set.min_run_time=0.005",
    "set.threads=1",
    "set.copy_mib=8",
    "progress=false",
]


def test_kv_cache_end_to_end_with_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    records = ran(results, *TINY, "variants=[rope,alibi+mqa,rope+gqa2]")
    assert {r["status"] for r in records} == {"ok"}
    measured = {(r["variant"], r["x"]): r["value"] for r in records if r["metric"] == "cache_bytes"}
    analytic = {(r["variant"], r["x"]): r["value"] for r in records if r["metric"] == "cache_bytes_analytic"}
    assert measured == analytic
    assert (
        measured[("alibi+mqa", 32.0)] == 2 * 2 * 1 * 8 * 32 * 1 * 4
    )  # 2 x layers x kv_heads x head_dim x tokens x batch x 4 B
    assert all(r["value"] == 1.0 for r in records if r["metric"] == "greedy_match")
    paths = [r for r in records if r["metric"] == "decode_path_latency"]
    assert {r["extra"]["path"] for r in paths} == {"repeat", "enable_gqa", "grouped", "split_kv"}
    assert {r["extra"]["kv_heads"] for r in paths} == {8, 1, 2}
    assert all(r["extra"]["max_error"] < 1e-5 for r in paths)
    for metric in (
        "decode_latency",
        "decode_latency_kernel",
        "uncached_latency",
        "decode_tokens_per_s",
        "decode_bandwidth",
    ):
        assert len([r for r in records if r["metric"] == metric]) == 3 * 2
    copies = [r for r in records if r["metric"] == "copy_bandwidth"]
    assert len(copies) == 3 and all(r["extra"]["bytes_moved"] == 2 * 8 * 2**20 and r["value"] > 0 for r in copies)
    reads = [r for r in records if r["metric"] == "read_bandwidth"]
    assert len(reads) == 3 and all(r["extra"]["bytes_read"] == 8 * 2**20 and r["value"] > 0 for r in reads)
    for rate in (r for r in records if r["metric"] == "decode_bandwidth"):
        step = next(
            r
            for r in records
            if r["metric"] == "decode_latency" and (r["variant"], r["x"]) == (rate["variant"], rate["x"])
        )
        e = rate["extra"]
        assert e["step_ms"] == step["value"]
        kv_heads = {"rope": 4, "alibi+mqa": 1, "rope+gqa2": 2}[rate["variant"]]
        assert e["cache_bytes_read"] == 2 * 2 * kv_heads * 8 * (rate["x"] + 1) * 1 * 4  # the context and the new token
        assert rate["value"] == pytest.approx(
            (e["weight_bytes"] + e["cache_bytes_read"]) / (step["value"] * 1e-3) / 1e9
        )

    text = report(
        results,
        reports,
        "kv_cache",
        phrases=(
            "2,147,483,648",
            "3,355,443,200",
            "1,342,177,280",
            "10,737,418,240",
            "Ainslie et al. 2023",
            "uncached / cached",
            "enable_gqa / grouped",
            "identical",
            "Decode throughput and bandwidth",
            "of copy bandwidth",
            "split-KV / grouped",
            "Pope et al. 2022",
        ),
        figures=("kv_cache.png", "kv_cache_roofline.png"),
    )
    assert "| NO" not in text
    assert "read-only bandwidth" in text and "% of read-only (sum)" in text  # the read probe's ceiling, recorded now


@pytest.mark.gpu
def test_kv_cache_on_cuda(tmp_path):
    assert main(["run", f"results_dir={tmp_path}", *TINY, "device=cuda", "variants=[rope+gqa2]"]) == 0
    records = load(tmp_path)
    assert all(r["status"] == "ok" and r["device"] == "cuda" for r in records)
