"""Made-up streaming records for its claims' tests: one model per seed, its perplexity over all its streams per
cache policy, and the sinks policy's attention on the first slot per layer."""

import math

import pandas as pd

from suites.streaming.claims._shared import prepare

SAME, FAILING = (1.0, 1.0, 1.0), (1.5, 1.45, 1.55)


def _row(variant, spec, metric, seed, x, value, extra):
    return {
        "variant": variant,
        "spec": spec,
        "metric": metric,
        "status": "ok",
        "seed": seed,
        "x": x,
        "value": value,
        "extra": extra,
    }


def records(window_change, sink_shares, uniform=1 / 64, variant="rope", sink_token=False, seeds=(0, 1, 2)):
    """A streaming group of one kind of model, one model per seed: 16 streams' perplexities past the cache per
    policy, window attention ``window_change[seed]`` (a ratio) above the sinks policy in every stream, recomputation
    equal to the sinks; and the sinks policy's first-slot share per layer."""
    spec = {"position": "rope", **({"sink_token": True} if sink_token else {})}
    rows = []
    for seed in seeds:
        sinks = [6.0 + 0.05 * seed + 0.3 * math.sin(i + seed) for i in range(16)]  # streams differ far more than seeds
        window = [p * window_change[seed] for p in sinks]
        for policy, per_stream in (("window", window), ("sinks", sinks), ("recompute", sinks)):
            value = math.exp(sum(math.log(p) for p in per_stream) / len(per_stream))  # the ppl over all its streams
            extra = {"policy": policy, "per_stream": per_stream, "from_position": 64}
            rows.append(_row(variant, spec, "ppl_past_cache", seed, None, value, extra))
        rows += [
            _row(variant, spec, "first_slot_share", seed, float(layer), share, {"policy": "sinks", "uniform": uniform})
            for layer, share in enumerate(sink_shares)
        ]
    return pd.DataFrame(rows)


def past_training(full, recompute, variant="rope"):
    """Perplexities from position 128 on (twice the training length) per seed, under the full cache and under
    recomputation."""
    spec = {"position": "rope"}
    return pd.DataFrame(
        [
            _row(variant, spec, "ppl_past_training", seed, None, value, {"policy": policy, "from_position": 128})
            for policy, values in (("full", full), ("recompute", recompute))
            for seed, value in enumerate(values)
        ]
    )


def judged(claim, *groups):
    """The claim module's finding on the records of ``groups``, one group of records."""
    return claim.judge(prepare(pd.concat(groups, ignore_index=True)))
