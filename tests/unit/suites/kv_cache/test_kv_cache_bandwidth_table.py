"""The decode-bandwidth table of kv_cache: the CUDA-graph step in a table of its own beside the eager one."""

import pandas as pd

from suites.kv_cache.tables import bandwidth_section


def test_kv_cache_bandwidth_table_shows_the_cuda_graph_step_beside_the_eager_one():
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
    text = "\n".join(bandwidth_section(df, ["rope"]))
    assert "copy bandwidth of 10 GB/s" in text
    eager, graph = [
        [c.strip() for c in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("| rope")
    ]
    # 2 ms, 4 MB read of which 25% K/V, 2 GB/s (20% of the copy); the graph step in a table of its own (8 columns at
    # most): 0.5 ms, 8 GB/s (80%)
    assert eager == ["rope", "512", "2", "500", "4", "25%", "2", "20%"]
    assert graph == ["rope", "512", "0.5", "8", "80%"] and "replayed from a CUDA graph" in text
