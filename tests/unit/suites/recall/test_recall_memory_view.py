"""The index's memory view: recall against bytes kept (recall records) beside the decode step (kv_cache records)."""

import pandas as pd

from suites.recall.memory_view import FIGURE, index_section

SETTINGS = {"mqar_kv": [1, 2, 4], "mqar_keys": 8, "mqar_values": 8}


def _spec(suite, variant):
    from harness.contract import suites

    s = suites.get(suite)
    return s.spec_for(variant, s.profiles["quick"], {}).to_dict()


def _recall():
    rows = []
    for variant, accuracy in (("rope", 0.9), ("mamba2", 0.3), ("lstm", 0.1)):
        for seed in (0, 1):
            for pairs in SETTINGS["mqar_kv"]:
                rows.append(
                    dict(
                        variant=variant,
                        seed=seed,
                        metric="token_accuracy",
                        status="ok",
                        x=float(pairs),
                        value=accuracy + 0.01 * seed,
                        spec=_spec("recall", variant),
                        extra={"task": "mqar"},
                        profile_settings=SETTINGS,
                    )
                )
    return pd.DataFrame(rows)


def _kv_cache():
    rows = []
    for variant, ms in (("rope", lambda x: 1 + x / 100), ("mamba2", lambda x: 2.0), ("rope+mqa", lambda x: 1.0)):
        for x in (128, 512):
            rows.append(
                dict(
                    variant=variant,
                    seed=0,
                    metric="decode_latency",
                    status="ok",
                    x=float(x),
                    value=ms(x),
                    spec=_spec("kv_cache", variant),
                    device="cpu",
                    device_name="Test CPU",
                    profile_settings={"n_layers": 2, "d_model": 64},
                )
            )
    return pd.DataFrame(rows)


def test_the_view_draws_both_suites_and_names_the_right_panels_models(tmp_path):
    lines = index_section({"recall": _recall(), "kv_cache": _kv_cache()}, tmp_path)
    text = "\n".join(lines)
    assert lines[0] == "## Recall against memory" and (tmp_path / "figures" / FIGURE).is_file()
    assert "at 4 pairs" in text and "(2 layers, d_model 64, on Test CPU), not the recall models" in text


def test_without_kv_cache_records_the_right_panel_says_what_would_fill_it(tmp_path):
    lines = index_section({"recall": _recall()}, tmp_path)
    assert (tmp_path / "figures" / FIGURE).is_file() and "not the recall models" not in "\n".join(lines)


def test_without_mqar_records_there_is_no_section(tmp_path):
    assert index_section({"kv_cache": _kv_cache()}, tmp_path) == []
    assert index_section({"recall": _recall().assign(extra=[{"task": "copy"}] * 18)}, tmp_path) == []
