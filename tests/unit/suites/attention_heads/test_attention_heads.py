"""attention_heads: per-head statistics on hand-built attention patterns, the recorder, and the report from made-up records."""

import math

import pandas as pd
import pytest
import torch

from harness.contract import suites
from suites.attention_heads.head_stats import HeadStats, at_offset, delimiter_mask, recorded_attention
from suites.attention_heads.report import CLAIMS, findings, write_report
from suites.attention_heads.suite import MAP_CRITERIA, distinct_heads
from tests.report_shape import check_reports
from variants.spec import TransformerSpec
from variants.transformer import build

T = 8
TEXT = "ab, cd.e"  # delimiters at positions 2 (','), 3 (' ') and 6 ('.')


def offset_head(d: int, length: int = T) -> torch.Tensor:
    """(T, T): query i attends only to key i - d (to itself when there is none)."""
    a = torch.zeros(length, length)
    for i in range(length):
        a[i, i - d if i >= d else i] = 1.0
    return a


def causal_uniform(length: int = T) -> torch.Tensor:
    a = torch.tril(torch.ones(length, length))
    return a / a.sum(-1, keepdim=True)


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

SETTINGS = dict(
    d_model=16,
    n_layers=3,
    n_heads=4,
    train_len=T,
    batch_size=4,
    steps=10,
    lr=1e-3,
    warmup_steps=1,
    weight_decay=0.1,
    grad_clip=1.0,
    heldout_fraction=0.1,
    eval_windows=4,
    eval_batch=4,
    map_len=T,
    data="pydoc",
)


def made_up_records(variant: str, seed: int, specialised: bool, entropy_by_layer, loss: float = 1.5, offset: int = 1):
    """Records of one job as the runner would store them: 3 layers x 4 heads; a specialised model's head 1 of layer 1
    puts 0.9 of its attention at ``offset``."""
    spec = TransformerSpec(vocab_size=11, d_model=16, n_layers=3, n_heads=4, max_len=T, position=variant).to_dict()
    common = dict(
        suite="attention_heads",
        suite_version=1,
        task="attention_heads",
        variant=variant,
        spec=spec,
        profile="quick",
        profile_settings=SETTINGS,
        seed=seed,
        dtype="float32",
        data_checksum="abc123",
        device="cpu",
        device_name="test cpu",
        torch_version="2.x",
        git_commit="0123456789ab",
        git_dirty=False,
        timestamp="2026-01-01T00:00:00+00:00",
        parameters=1000,
        bigram_entropy=2.5,
        unigram_entropy=3.2,
        corpus="made up",
        split="last 10% held out",
        train_chars=1000,
        train_passes=0.5,
        eval_windows=4,
        status="ok",
        reason=None,
    )
    rows = [
        dict(common, metric="loss", value=loss, x=None, extra={}),
        dict(common, metric="train_loss", value=loss - 0.1, x=None, extra={}),
        dict(common, metric="delimiter_base", value=0.2, x=None, extra={}),
        dict(common, metric="uniform_entropy", value=1.5, x=None, extra={}),
    ]
    for layer in range(3):
        for head in range(4):
            special = specialised and head == 0
            values = {
                "entropy": entropy_by_layer[layer] + 0.01 * head,
                "mean_distance": 1.0 + layer,
                "previous_token_share": 0.9 if special and layer == 0 else 0.1,
                "first_token_share": 0.05,
                "delimiter_share": 0.8 if special and layer == 1 else 0.2,
                "offset_share": 0.9 if special and layer == 0 else 0.2,
            }
            for metric, value in values.items():
                best = offset if special and layer == 0 else 1
                extra = {"layer": layer, "head": head, **({"offset": best} if metric == "offset_share" else {})}
                rows.append(dict(common, metric=metric, value=value, x=float(layer), x_name="layer", extra=extra))
    weights = causal_uniform().tolist()
    for i, criterion in enumerate(("previous token", "first token")):
        rows.append(
            dict(
                common,
                metric="attention_map",
                value=0.9,
                x=0.0,
                extra={"layer": 0, "head": i, "criterion": criterion, "text": TEXT, "weights": weights},
            )
        )
    return rows


def frame(*jobs) -> pd.DataFrame:
    return pd.DataFrame([r for job in jobs for r in job])


def test_report_from_made_up_records_agrees_when_the_heads_specialise(tmp_path):
    df = frame(*(made_up_records(v, s, True, (2.0 - 0.1 * s, 1.5, 1.0)) for v in ("rope", "alibi") for s in (0, 1)))
    paths = write_report(suites.get("attention_heads"), df, tmp_path)
    text = (tmp_path / "attention_heads.md").read_text()
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
    assert [p.name for p in paths[1:]] == [
        "attention_heads_rope.png",
        "attention_heads_maps_rope.png",
        "attention_heads_alibi.png",
        "attention_heads_maps_alibi.png",
    ]
    assert all(p.stat().st_size > 10_000 for p in paths[1:])
    assert [f.claim for f in findings(df)] == list(CLAIMS)


def test_verdicts_disagree_without_specialists_and_leave_out_models_that_did_not_learn():
    flat = (1.5, 1.5, 1.5)
    df = frame(made_up_records("rope", 0, False, flat), made_up_records("alibi", 0, True, (2.0, 1.5, 1.0), loss=3.0))
    found = {f.claim.key: f for f in findings(df)}
    assert {k: f.verdict for k, f in found.items()} == {
        "offset_heads": "disagrees",
        "delimiter_heads": "disagrees",
        "entropy_by_layer": "inconclusive",
    }  # flat, one seed
    assert all(f.cause for f in found.values())
    assert "`alibi` (did not learn" in found["offset_heads"].sentence
    nothing = frame(made_up_records("rope", 0, True, flat, loss=3.0))
    assert {f.verdict for f in findings(nothing)} == {"not run"}


def _verdict(key, *jobs):
    return {f.claim.key: f for f in findings(frame(*jobs))}[key]


FALLS, RISES = (2.0, 1.5, 1.0), (1.0, 1.5, 2.0)


def test_a_head_on_the_query_itself_is_not_a_fixed_offset_head():
    """Offset 0 is the current token, which Clark et al. find most heads ignore; fixed offsets are d >= 1."""
    on_self = _verdict("offset_heads", *(made_up_records("rope", s, True, FALLS, offset=0) for s in (0, 1)))
    assert on_self.verdict == "disagrees" and "d = 0, does not count" in on_self.sentence
    two_back = _verdict("offset_heads", *(made_up_records("rope", s, True, FALLS, offset=2) for s in (0, 1)))
    assert two_back.verdict == "agrees" and "at d = 2" in two_back.sentence


def test_fixed_offset_heads_are_stated_per_family():
    """One family with such a head in every seed is enough for 'some heads'; a family with it in one seed of two is not."""
    jobs = [made_up_records("rope", s, True, FALLS) for s in (0, 1)]
    jobs += [made_up_records(v, s, False, FALLS) for v in ("alibi", "learned", "sinusoidal") for s in (0, 1)]
    found = _verdict("offset_heads", *jobs)
    assert found.verdict == "agrees" and "`rope`" in found.sentence and "have none" in found.sentence
    once = [made_up_records("rope", 0, True, FALLS), made_up_records("rope", 1, False, FALLS)]
    assert _verdict("offset_heads", *once).verdict == "inconclusive"


@pytest.mark.parametrize(
    "profiles, verdict",
    [
        ({"rope": FALLS, "alibi": FALLS}, "agrees"),  # broadest heads in the lower layers, as Clark et al.
        ({"rope": RISES, "alibi": RISES}, "disagrees"),  # a systematic change, in the other direction
        ({"rope": FALLS, "alibi": RISES}, "inconclusive"),  # the direction depends on the family
    ],
)
def test_the_entropy_verdict_checks_the_direction(profiles, verdict):
    found = _verdict(
        "entropy_by_layer", *(made_up_records(v, s, True, by_layer) for v, by_layer in profiles.items() for s in (0, 1))
    )
    assert found.verdict == verdict
    assert (found.cause == "") == (verdict == "agrees")


def test_a_delimiter_head_must_beat_twice_the_even_share():
    df = frame(made_up_records("rope", 0, True, (2.0, 1.5, 1.0)))
    df.loc[df.metric == "delimiter_base", "value"] = 0.45  # 0.8 < 2 x 0.45
    assert {f.claim.key: f.verdict for f in findings(df)}["delimiter_heads"] == "disagrees"


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
