"""Made-up kv_cache records for its claims' tests: cache sizes, and cached decode steps whose bytes dominate them
or not at a copy bandwidth of GBS."""

import pandas as pd

from suites.kv_cache.claims._shared import Evidence, prepare
from suites.kv_cache.steps import decode_steps

#: the copy bandwidth of every made-up job: 10 GB/s, so 1 MB takes 0.1 ms
GBS = 10.0
#: an overhead-bound model step: 3 ms for ~1-9 MB (0.1-0.9 ms at 10 GB/s), whatever the heads
OVERHEAD = {("rope", 8): {128: 3.0, 1024: 3.2}, ("rope", 1): {128: 3.0, 1024: 3.1}}


def cache(statuses):
    """cache_bytes records of `rope` at 128, 256, ... tokens, one per status."""
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


def of_frame(frame: pd.DataFrame) -> Evidence:
    """The evidence of records that already carry their grouping (no spec to derive it from)."""
    return Evidence(frame, decode_steps(frame))


def repeats_around(ms: float, relative_sd: float, n: int = 9) -> dict:
    """A timing's extra: ``n`` repeats whose median is ``ms`` and whose log sd is ``relative_sd``, all kept."""
    import numpy as np

    z = np.linspace(-1.5, 1.5, n)
    times = [float(ms * np.exp(relative_sd * v / z.std(ddof=1))) for v in z]
    return {"times": times, "kept_mask": [True] * n, "kept": n}


def kv_records(model=None, attention=None, seeds=(0, 1), relative_sd=0.02):
    """kv_cache records of made-up steps, of ``seeds``. ``model``: (position, kv_heads) -> {context: ms} of the whole
    model's step (8 heads, 1 MB of weights, 1 KB of K/V per token and K/V head); ``attention``: the same for the
    decode-step attention (32 heads of 128 in float32: 1 KiB per token and K/V head; 8 K/V heads stand for 32).
    Every step keeps 9 timing repeats of log sd ``relative_sd``."""
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
                        add(
                            variant,
                            position,
                            kv_heads,
                            "decode_latency",
                            float(x),
                            ms,
                            repeats_around(ms, relative_sd),
                            seed,
                        )
                    else:
                        extra = {
                            "path": "grouped",
                            "heads": 32,
                            "kv_heads": 32 if kv_heads == 8 else kv_heads,
                            "head_dim": 128,
                            **repeats_around(ms, relative_sd),
                        }
                        add(variant, position, kv_heads, "decode_path_latency", float(x), ms, extra, seed)
    frame = pd.DataFrame(
        rows, columns=["variant", "metric", "status", "x", "seed", "value", "extra", "spec", "dtype", "batch"]
    )
    frame["grouping"] = frame.spec.apply(
        lambda s: "MHA" if s["n_kv_heads"] is None else ("MQA" if s["n_kv_heads"] == 1 else "GQA")
    )
    return frame


def attention(mha_ms_4096, mqa_ms_4096, mha_ms_16384=None):
    """The decode-step attention with MHA (32 K/V heads: 32 KiB per token; 4096 tokens = 134 MB = 13.4 ms at 10
    GB/s) and with MQA."""
    mha = {1024: mha_ms_4096 / 4, 4096: mha_ms_4096}
    if mha_ms_16384 is not None:
        mha[16384] = mha_ms_16384
    return {("rope", 8): mha, ("rope", 1): {1024: mqa_ms_4096 / 4, 4096: mqa_ms_4096}}


def overhead_bound(claim):
    """The claim's finding where reading the bytes of the step at the copy bandwidth takes a third of its time or
    less: no verdict either way, and the cause says what would test it."""
    found = judged(claim, kv_records(model=OVERHEAD))
    assert found.verdict == "not testable here"
    assert "overhead-bound" in found.cause and "set.path_contexts" in found.cause


def judged(claim, frame):
    """The claim's finding on ``frame`` as the suite judges a group of records (claims/_shared.py ``prepare``)."""
    return claim.judge(prepare(frame))


def sizes(variant, spec, measured, analytic, extra):
    """cache_bytes and cache_bytes_analytic records of ``variant``: context -> bytes each; ``extra`` the layer's facts."""
    rows = []
    for x in measured:
        for metric, value in (("cache_bytes", measured[x]), ("cache_bytes_analytic", analytic[x])):
            status = "ok" if metric == "cache_bytes_analytic" or measured[x] == analytic[x] else "failed"
            rows.append(
                {
                    "variant": variant,
                    "metric": metric,
                    "status": status,
                    "x": float(x),
                    "seed": 0,
                    "value": float(value),
                    "extra": dict(extra),
                    "spec": spec,
                }
            )
    return rows
