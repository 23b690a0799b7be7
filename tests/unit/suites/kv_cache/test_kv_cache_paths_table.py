"""The decode-path table of kv_cache: a variant no path can read is one sentence with its reason, not rows of cells."""

import pandas as pd

from suites.kv_cache.tables import paths_section


def _rows():
    rows = []
    for path in ("repeat", "enable_gqa", "grouped", "split_kv"):
        rows.append(
            {
                "variant": "rope+gqa2",
                "metric": "decode_path_latency",
                "x": 256.0,
                "status": "ok",
                "value": 0.1,
                "reason": None,
                "extra": {"path": path, "kv_heads": 2, "noise": 0.02, "times": [0.1, 0.1, 0.1]},
            }
        )
        rows.append(
            {
                "variant": "mla",
                "metric": "decode_path_latency",
                "x": 256.0,
                "status": "unsupported",
                "value": None,
                "reason": "latent attention keeps no grouped cache",
                "extra": {"path": path},
            }
        )
    return pd.DataFrame(rows)


def test_a_variant_with_no_timed_path_is_named_once_with_its_reason():
    text = "\n".join(paths_section(_rows(), ["rope+gqa2", "mla"]))
    assert "| rope+gqa2 " in text and "| mla " not in text
    assert "Not timed here: `mla` (latent attention keeps no grouped cache)." in text
