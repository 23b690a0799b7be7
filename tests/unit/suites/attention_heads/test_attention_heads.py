"""attention_heads: per-head statistics on hand-built attention patterns, the recorder, and the report from made-up records."""

import math

import pytest
import torch

from bench.report.layout import render
from harness.claims import judge_all
from harness.contract import suites
from suites.attention_heads.head_stats import HeadStats, at_offset, delimiter_mask, recorded_attention
from suites.attention_heads.report import write_report
from suites.attention_heads.suite import MAP_CRITERIA, distinct_heads
from tests.report_shape import check_reports
from tests.unit.suites.attention_heads.claims._records import TEXT, T, causal_uniform, frame, made_up_records
from variants.models.transformer import build
from variants.spec import TransformerSpec


def offset_head(d: int, length: int = T) -> torch.Tensor:
    """(T, T): query i attends only to key i - d (to itself when there is none)."""
    a = torch.zeros(length, length)
    for i in range(length):
        a[i, i - d if i >= d else i] = 1.0
    return a


def stats_of(*heads: torch.Tensor, text: str = TEXT, first_query: int = 1):
    """The statistics of one layer whose heads are the given (T, T) patterns, on one window of ``text``."""
    s = HeadStats(1, len(heads), first_query)
    s.add(0, torch.stack(heads)[None], delimiter_mask(text)[None])
    return s, {k: v[0] for k, v in s.result().items()}


def test_a_previous_token_head_scores_one_on_that_share_and_distance_one():
    _, r = stats_of(offset_head(1))
    assert r["previous_token_share"][0] == pytest.approx(1.0)
    assert r["offset_share"][0] == pytest.approx(1.0) and r["best_offset"][0] == 1
    assert r["mean_distance"][0] == pytest.approx(1.0)
    assert r["entropy"][0] == pytest.approx(0.0)


def test_a_uniform_head_has_entropy_log_n():
    uniform = torch.full((T, T), 1.0 / T)  # every query spread evenly over all T keys
    _, r = stats_of(uniform, first_query=0)
    assert r["entropy"][0] == pytest.approx(math.log(T))
    assert r["previous_token_share"][0] == pytest.approx((T - 1) / T / T)  # query 0 has no previous token
    assert r["first_token_share"][0] == pytest.approx(1.0 / T)


def test_a_causal_uniform_head_is_the_even_attention_yardstick():
    s, r = stats_of(causal_uniform())
    assert r["entropy"][0] == pytest.approx(sum(math.log(i + 1) for i in range(1, T)) / (T - 1))
    assert s.uniform_entropy == pytest.approx(r["entropy"][0].item())
    assert r["delimiter_share"][0] == pytest.approx(s.delimiter_base)
    delim = [c in " ,." for c in TEXT]
    expected = sum(sum(delim[: i + 1]) / (i + 1) for i in range(1, T)) / (T - 1)
    assert s.delimiter_base == pytest.approx(expected)


def test_first_token_delimiter_and_fixed_offset_heads():
    first = torch.zeros(T, T)
    first[:, 0] = 1.0
    delim = torch.zeros(T, T)
    for i in range(T):  # each query attends to the latest delimiter it may see (itself before any)
        seen = [j for j in range(i + 1) if TEXT[j] in " ,."]
        delim[i, seen[-1] if seen else i] = 1.0
    _, r = stats_of(first, delim, offset_head(2))
    assert r["first_token_share"][0] == pytest.approx(1.0)
    assert r["mean_distance"][0] == pytest.approx(sum(range(1, T)) / (T - 1))
    # queries 1 and 2 ('b', ',') have no delimiter before them but ',' is one: 6 of 7 queries land on one
    assert r["delimiter_share"][1] == pytest.approx(6 / 7)
    # queries 1 .. 7 of an offset-2 head: query 1 has no key two back, the other six do
    assert r["offset_share"][2] == pytest.approx(6 / 7) and r["best_offset"][2] == 2
    assert r["previous_token_share"][2] == pytest.approx(0.0)


def test_statistics_average_over_batches_and_layers_separately():
    s = HeadStats(2, 1)
    for _ in range(3):
        s.add(0, offset_head(1)[None, None].expand(2, 1, T, T), delimiter_mask(TEXT)[None].expand(2, T))
        s.add(1, causal_uniform()[None, None].expand(2, 1, T, T), delimiter_mask(TEXT)[None].expand(2, T))
    r = s.result()
    assert r["previous_token_share"][0, 0] == pytest.approx(1.0)
    assert r["entropy"][1, 0] == pytest.approx(s.uniform_entropy)


def test_at_offset_pads_queries_without_a_key_that_far_back():
    a = offset_head(1)[None, None]
    assert at_offset(a, 1, 0)[0, 0].tolist() == [0.0] + [1.0] * (T - 1)
    assert at_offset(a, 3, 1).shape[-1] == T - 1


def test_recorded_attention_reads_the_model_without_changing_it():
    spec = TransformerSpec(vocab_size=11, d_model=16, n_layers=2, n_heads=4, max_len=T, position="alibi")
    model = build(spec).eval()
    x = torch.randint(0, 11, (3, T))
    with torch.no_grad():
        plain = model(x)
        with recorded_attention(model) as sink:
            recorded = model(x)
    assert torch.allclose(plain, recorded, atol=1e-5)
    assert sorted(sink) == [0, 1]
    for weights in sink.values():
        assert weights.shape == (3, 4, T, T)
        assert torch.allclose(weights.sum(-1), torch.ones(3, 4, T), atol=1e-6)
        assert weights.triu(1).abs().max() == 0  # causal: no attention to later keys
    assert all(type(b.attn.kernel).__name__ == "Sdpa" for b in model.blocks)  # restored


def test_the_most_distinct_heads_are_each_shown_once():
    heads = [offset_head(1), torch.zeros(T, T), causal_uniform(), offset_head(0)]
    heads[1][:, 0] = 1.0
    _, r = stats_of(*heads)
    table = {k: v[None] for k, v in r.items()}
    s, _ = stats_of(*heads)
    chosen = distinct_heads(table, s.delimiter_base)
    assert [c[0] for c in chosen] == [name for name, _, _ in MAP_CRITERIA][: len(heads)]
    assert chosen[0][1:3] == (0, 0) and chosen[0][3] == pytest.approx(1.0)  # previous token: head 1
    assert chosen[1][1:3] == (0, 1)  # first token: head 2
    assert len({c[1:3] for c in chosen}) == len(chosen) == len(heads)


# --------------------------------------------------------------------------- the report from made-up records


def test_report_from_made_up_records_agrees_when_the_heads_specialise(tmp_path):
    df = frame(*(made_up_records(v, s, True, (2.0 - 0.1 * s, 1.5, 1.0)) for v in ("rope", "alibi") for s in (0, 1)))
    report = write_report(suites.get("attention_heads"), df, tmp_path)
    text = render(report, [])  # the report's own sections, without the Verdicts block the layout adds
    (tmp_path / "attention_heads.md").write_text(text)
    check_reports(tmp_path)  # tables of at most 8 columns, no nan or None
    for phrase in (
        "## Per layer",
        "Specialised heads",
        "L1H1 (d=1)",
        "L2H1",
        "Spearman",
        "Clark et al. 2019",
        "broadest below",
        "lower half - upper half",
        "(n=2)",
        "Layer x head grids",
        "Typical attention maps",
        "previous token",
    ):
        assert phrase in text, phrase
    assert text.count("**agrees**") == 3
    assert [p.name for p in report.files] == [
        "attention_heads_rope.png",
        "attention_heads_maps_rope.png",
        "attention_heads_alibi.png",
        "attention_heads_maps_alibi.png",
    ]
    assert all(p.stat().st_size > 10_000 for p in report.files)
    suite = suites.get("attention_heads")
    assert [f.claim for f in judge_all(suite, df)] == list(suite.claims)


def test_each_profile_trains_position_extrapolations_model_of_the_same_name():
    from suites.attention_heads.suite import PROFILES
    from suites.position_extrapolation.models import training_fields
    from suites.position_extrapolation.suite import PROFILES as EXTRAPOLATION

    for name, profile in PROFILES.items():
        theirs = EXTRAPOLATION[name]
        assert {f: getattr(profile, f) for f in training_fields()} == {
            f: getattr(theirs, f) for f in training_fields()
        }, name
        assert profile.seeds == theirs.seeds
    assert PROFILES["quick"].n_layers >= 4
