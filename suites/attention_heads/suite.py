"""Attention heads: what each head of a trained character LM attends to (Clark et al. 2019), per layer and head.

The models of position_extrapolation (same data, training recipe and sizes per profile: loaded from its
checkpoints when a run of it with the same weights is stored next to these results, trained here otherwise;
suites/position_extrapolation/models.py) are read on held-out windows of the training length: per head, the entropy of its attention (nats), the mean
distance to the keys it attends to (tokens), and the shares of its attention on the previous token, on
the first token of the window (an attention sink, Xiao et al. 2023, arXiv 2309.17453) and on delimiter
characters (space, newline, punctuation). Clark et al. 2019 (arXiv 1906.04341) found BERT heads that
put most of their attention on a fixed offset or on delimiters, and broad attention (high entropy) in
the lowest layers; Voita et al. 2019 (arXiv 1905.09418) that a few specialised heads do most of the work.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.nn import functional as F

from harness.contract import JobContext, Measurement, Suite, suites
from harness.suite_file import SuiteFile
from suites.attention_heads.head_stats import STATS, HeadStats, delimiter_mask, recorded_attention
from suites.attention_heads.null import FIRST_QUERY  # the query at position 0 can only attend to itself
from suites.common.char_lm_suite import CharLMCorpus
from suites.common.metrics import COMMON
from suites.position_extrapolation.models import ExtrapolationRecipe, autocast, trained_model
from variants.spec import TransformerSpec

#: how the heads whose attention maps are kept are chosen: (name, statistic, largest or smallest)
MAP_CRITERIA: tuple[tuple[str, str, bool], ...] = (
    ("previous token", "previous_token_share", True),
    ("first token", "first_token_share", True),
    ("delimiters", "delimiter_excess", True),
    ("sharpest", "entropy", False),
    ("longest reach", "mean_distance", True),
)


@dataclass(frozen=True)
class AttentionHeadsProfile(ExtrapolationRecipe):
    """The position_extrapolation model and training budget of the same profile name, and what is read after."""

    #: held-out windows of train_len characters read after training (non-overlapping, from the split's start)
    eval_windows: int = 256
    #: windows per forward pass while reading
    eval_batch: int = 64
    #: characters of the first held-out window shown in each kept attention map (at most train_len)
    map_len: int = 32

    limits = {"map_len": ("train_len", "a map shows part of one window of the training length")}


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(AttentionHeadsProfile)


class AttentionHeads(CharLMCorpus, Suite):
    """Per layer and head of a trained char LM: attention entropy, distance, previous/first-token and delimiter shares."""

    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    default_variants = ("none", "sinusoidal", "learned", "rope", "alibi")
    options = {"data": None}
    dtypes = ("float32", "bfloat16")

    def run_job(
        self, spec: TransformerSpec, profile: AttentionHeadsProfile, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        data = self._data(profile, ctx.options)
        length = profile.train_len
        ids = data.eval_ids(profile.eval_windows * length, length)
        windows = ids[:-1].view(-1, length)  # (N, L) inputs
        targets = ids[1:].view(-1, length)  # (N, L) next characters
        model, result = trained_model(spec, profile, data, seed, ctx, self.name)
        ctx.facts.update(
            parameters=model.num_parameters(),
            steps=profile.steps,
            lr=profile.lr,
            weights=result.source,
            training_key=result.key,
            train_passes=data.passes(profile.steps * profile.batch_size * length),
            eval_windows=int(windows.shape[0]),
            **data.facts(),
        )
        delimiters = delimiter_mask("?" + data.vocab.chars)  # by id; id 0 (unseen character) is not a delimiter
        delimiters[0] = False
        stats, loss, first = _read(model, windows, targets, delimiters, profile, ctx)
        out = [
            Measurement("train_loss", result.final_loss),
            Measurement("train_time", result.wall_time_s, extra={**result.load, "tokens_per_s": result.tokens_per_s}),
            Measurement("loss", loss, extra={"scored_tokens": int(targets.numel())}),
            Measurement("delimiter_base", stats.delimiter_base),
            Measurement("uniform_entropy", stats.uniform_entropy),
        ]
        table = stats.result()
        for layer in range(spec.n_layers):
            for head in range(spec.n_heads):
                where = dict(x=float(layer), x_name="layer")
                for name, _ in STATS:
                    extra = {"layer": layer, "head": head}
                    if name == "offset_share":
                        extra["offset"] = int(table["best_offset"][layer, head])
                    out.append(Measurement(name, float(table[name][layer, head]), extra=extra, **where))
        text = data.vocab.decode(windows[0, : profile.map_len])
        for criterion, layer, head, value in distinct_heads(table, stats.delimiter_base):
            weights = first[layer][0, head, : profile.map_len, : profile.map_len]
            out.append(
                Measurement(
                    "attention_map",
                    value,
                    x=float(layer),
                    x_name="layer",
                    extra={
                        "layer": layer,
                        "head": head,
                        "criterion": criterion,
                        "text": text,
                        "weights": [[round(float(w), 4) for w in row] for row in weights.tolist()],
                    },
                )
            )
        return out


@torch.inference_mode()
def _read(
    model,
    windows: torch.Tensor,
    targets: torch.Tensor,
    delimiters: torch.Tensor,
    profile: AttentionHeadsProfile,
    ctx: JobContext,
) -> tuple[HeadStats, float, dict[int, torch.Tensor]]:
    """(per-head statistics over every window, held-out loss in nats/char, each layer's probabilities of the first batch)."""
    spec = model.spec
    stats = HeadStats(spec.n_layers, spec.n_heads, FIRST_QUERY)
    nll, first = 0.0, {}
    with recorded_attention(model) as sink:
        for start in range(0, windows.shape[0], profile.eval_batch):
            x = windows[start : start + profile.eval_batch].to(ctx.device)
            y = targets[start : start + profile.eval_batch].to(ctx.device)
            with autocast(ctx):
                logits = model(x)
            nll += float(F.cross_entropy(logits.float().flatten(0, 1), y.flatten(), reduction="sum"))
            keys = delimiters.to(ctx.device)[x]  # (b, L)
            for layer in range(spec.n_layers):
                stats.add(layer, sink[layer].float(), keys)
            if not first:
                first = {layer: w[:1].float().cpu() for layer, w in sink.items()}
    return stats, nll / targets.numel(), first


def distinct_heads(table: dict[str, torch.Tensor], delimiter_base: float) -> list[tuple[str, int, int, float]]:
    """(criterion, layer, head, the statistic it was chosen by) of the most distinct heads: the largest
    previous-token, first-token and delimiter share (ranked by its excess over the even-attention share),
    the smallest entropy and the largest mean distance. A head chosen by an earlier criterion gives way to
    the next one of a later criterion, so each head is shown once."""
    ranked = dict(table, delimiter_excess=table["delimiter_share"] - delimiter_base)
    n_heads = table["entropy"].shape[1]
    chosen: list[tuple[str, int, int, float]] = []
    for criterion, stat, largest in MAP_CRITERIA:
        taken = {(layer, head) for _, layer, head, _ in chosen}
        order = torch.argsort(ranked[stat].flatten(), descending=largest, stable=True).tolist()
        free = [divmod(i, n_heads) for i in order if divmod(i, n_heads) not in taken]
        if not free:
            break
        layer, head = free[0]
        shown = "delimiter_share" if stat == "delimiter_excess" else stat
        chosen.append((criterion, layer, head, float(table[shown][layer, head])))
    return chosen


suites.add("attention_heads", AttentionHeads())
