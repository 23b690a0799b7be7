"""Made-up attention_heads records for its claims' tests (and its report's): jobs of 3 layers x 4 heads as the runner
would store them."""

import pandas as pd
import torch

from variants.spec import TransformerSpec

T = 8
#: held-out windows read: enough scored queries (512 x 7) that a head with shuffled key positions stays below the
#: bars (suites/attention_heads/null.py); 4 windows are too few
WINDOWS = 512
TEXT = "ab, cd.e"  # delimiters at positions 2 (','), 3 (' ') and 6 ('.')
FALLS, RISES = (2.0, 1.5, 1.0), (1.0, 1.5, 2.0)


def causal_uniform(length: int = T) -> torch.Tensor:
    a = torch.tril(torch.ones(length, length))
    return a / a.sum(-1, keepdim=True)


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
    eval_windows=WINDOWS,
    eval_batch=4,
    map_len=T,
    data="pydoc",
)


def made_up_records(
    variant: str,
    seed: int,
    specialised: bool,
    entropy_by_layer,
    loss: float = 1.5,
    offset: int = 1,
    windows: int = WINDOWS,
    specialists: int = 1,
):
    """Records of one job as the runner would store them: 3 layers x 4 heads; a specialised model's first
    ``specialists`` heads of layer 1 put 0.9 of their attention at ``offset`` (and of layer 2 0.8 on delimiters)."""
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
        eval_windows=windows,
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
            special = specialised and head < specialists
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


def judged(*jobs) -> dict:
    """claim key -> its finding on the records of ``jobs``, judged as the registry judges them."""
    from harness.claims import judge_all
    from harness.contract import suites

    return {f.claim.key: f for f in judge_all(suites.get("attention_heads"), frame(*jobs))}
