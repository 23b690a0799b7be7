"""Xiong et al. 2020: at initialisation Post-LN's FFN gradients grow toward the output, Pre-LN's do not."""

import functools

import torch

from suites.common.lm import random_batch, xavier_init
from suites.training_stability.suite import ffn_gradient_norms
from variants.spec import TransformerSpec
from variants.transformer import build


@functools.lru_cache(maxsize=None)
def layer_ratio(placement: str, depth: int = 6) -> float:
    torch.manual_seed(0)
    model = build(TransformerSpec(vocab_size=64, d_model=64, n_layers=depth, n_heads=4, max_len=32,
                                  norm_placement=placement))
    xavier_init(model)
    ids = torch.randint(0, 64, (4096,), generator=torch.Generator().manual_seed(0))
    gen = torch.Generator().manual_seed(1)
    norms = ffn_gradient_norms(model, [random_batch(ids, 8, 32, gen) for _ in range(4)], "cpu")
    assert len(norms) == depth and all(n > 0 for n in norms)
    return norms[-1] / norms[0]


def test_post_ln_gradients_grow_from_the_first_to_the_last_layer_at_initialisation():
    assert layer_ratio("post") > 1.2


def test_pre_ln_gradients_stay_near_flat_at_initialisation():
    ratio = layer_ratio("pre")
    assert 0.5 < ratio < 1.5
    assert ratio < layer_ratio("post")


def test_xavier_init_leaves_the_tied_output_layer_alone():
    torch.manual_seed(0)
    model = build(TransformerSpec(vocab_size=32, d_model=16, n_layers=1, n_heads=2))
    before = model.embed.weight.clone()
    xavier_init(model)
    assert torch.equal(model.embed.weight, before) and model.head.weight is model.embed.weight
    bound = (6 / (16 + 64)) ** 0.5  # the FFN's up projection, 16 -> 64
    assert model.blocks[0].ffn.up.weight.abs().max() <= bound


def stability_records(variant, depth, lr, warmup, heldout, train, status="ok"):
    """Made-up records of one training run: its held-out and final training loss, with the corpus's bigram entropy."""
    common = dict(variant=variant, seed=0, x=lr, extra={"depth": depth, "warmup": warmup}, bigram_entropy=2.5,
                  unigram_entropy=3.2)
    return [dict(common, metric="heldout_loss", value=heldout, status=status),
            dict(common, metric="final_train_loss", value=train, status=status)]


def warmup_verdict(rows):
    import pandas as pd

    from suites.training_stability.report import _expand, _findings, _warmup_table, run_checks

    df = pd.DataFrame(rows)
    variants = ["post_ln", "pre_ln"]
    checks = run_checks(df, variants)
    _, warm = _warmup_table(_expand(df[df.metric == "heldout_loss"], "depth", "warmup"), variants, {}, 3.3, checks)
    return checks, warm, " ".join(f.sentence for f in _findings(warm, {}))


def test_a_run_without_warm_up_that_did_not_learn_counts_against_dropping_it():
    rows = (stability_records("post_ln", 2, 0.01, 0, None, None, status="diverged")  # the finding: kept
            + stability_records("post_ln", 2, 0.01, 30, 2.0, 1.95)
            + stability_records("post_ln", 2, 0.001, 0, 2.1, 2.05) + stability_records("post_ln", 2, 0.001, 30, 2.0, 1.95)
            + stability_records("pre_ln", 2, 0.01, 0, 2.0, 1.95) + stability_records("pre_ln", 2, 0.01, 30, 2.0, 1.95)
            # 2.4 is not 0.3 below the bigram entropy 2.5, while the warmed-up run learned: warm-up made the difference
            + stability_records("pre_ln", 2, 0.001, 0, 2.4, 2.35) + stability_records("pre_ln", 2, 0.001, 30, 2.0, 1.95))
    checks, warm, text = warmup_verdict(rows)
    assert "post_ln, depth 2, lr 0.01, no warm-up" not in checks  # diverged: not a run that finished
    assert checks["pre_ln, depth 2, lr 0.001, no warm-up"].did_not_learn
    assert list(checks)[0] == "post_ln, depth 2, lr 0.001, no warm-up"
    # Post-LN: the diverged cell and a compared cell (0.1 worse without warm-up); Pre-LN: the cell it failed without
    assert (warm["post_ln"]["cells"], warm["post_ln"]["hurt"], warm["post_ln"]["diverged_without"]) == (2, 2, 1)
    assert (warm["pre_ln"]["cells"], warm["pre_ln"]["hurt"]) == (2, 1)
    assert "in 2 of 2 (depth, lr) cells and Pre-LN in 1 of 2" in text and "agrees" in text
    assert "left out" not in text


def test_a_cell_whose_warmed_up_run_did_not_learn_is_left_out_and_named():
    rows = (stability_records("post_ln", 6, 0.01, 0, 3.2, 3.15) + stability_records("post_ln", 6, 0.01, 30, 2.45, 2.4)
            + stability_records("post_ln", 2, 0.01, 0, 3.2, 3.15) + stability_records("post_ln", 2, 0.01, 30, 2.0, 1.95)
            + stability_records("pre_ln", 2, 0.01, 0, 2.0, 1.95) + stability_records("pre_ln", 2, 0.01, 30, 2.0, 1.95))
    _, warm, text = warmup_verdict(rows)
    assert (warm["post_ln"]["cells"], warm["post_ln"]["hurt"]) == (1, 1) and warm["pre_ln"]["hurt"] == 0
    assert "1 of 3 (depth, lr) cells were left out" in text
    assert "`post_ln, depth 6, lr 0.01, warm-up 30` (did not learn)" in text


def test_no_warm_up_verdict_when_every_comparison_rests_on_a_run_that_did_not_learn():
    rows = (stability_records("post_ln", 2, 0.01, 0, 2.1, 2.05) + stability_records("post_ln", 2, 0.01, 30, 2.45, 2.4)
            + stability_records("pre_ln", 2, 0.01, 0, 2.0, 1.95) + stability_records("pre_ln", 2, 0.01, 30, 2.0, 1.5))
    _, warm, text = warmup_verdict(rows)
    assert warm["post_ln"]["cells"] == warm["pre_ln"]["cells"] == 0
    assert "Warm-up: no verdict, Post-LN and Pre-LN have no (depth, lr) cell" in text
    assert "`post_ln, depth 2, lr 0.01, warm-up 30` (did not learn)" in text
    assert "`pre_ln, depth 2, lr 0.01, warm-up 30` (memorised)" in text


def test_the_warm_up_verdict_compares_shares_of_cells_not_counts():
    rows = (stability_records("post_ln", 2, 0.01, 0, None, None, status="diverged")
            + stability_records("post_ln", 2, 0.01, 30, 2.0, 1.95)
            + stability_records("pre_ln", 2, 0.01, 0, 2.2, 2.15) + stability_records("pre_ln", 2, 0.01, 30, 2.0, 1.95)
            + stability_records("pre_ln", 2, 0.001, 0, 2.0, 1.95) + stability_records("pre_ln", 2, 0.001, 30, 2.0, 1.95))
    _, warm, text = warmup_verdict(rows)
    assert (warm["post_ln"]["hurt"], warm["post_ln"]["cells"], warm["pre_ln"]["hurt"], warm["pre_ln"]["cells"]) == (1, 1, 1, 2)
    assert "agrees that Post-LN needs the warm-up more than Pre-LN does (100% of its cells against 50%)" in text
