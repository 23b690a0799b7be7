"""Xiong et al.'s Fig. 3 protocol: the gradient of each layer's second FFN matrix W^2 at initialisation, at their size.

Xiong et al. 2020 (arXiv 2002.04745), Fig. 3, plot ||dL/dW^2|| of every layer at initialisation for 6-layer Post-LN
and Pre-LN Transformers of d_model 512 (fairseq's IWSLT14 De-En model: 4 heads, FFN width 1024, ReLU, Xavier
initialisation): Post-LN's grows with the layer index, Pre-LN's stays about level. The ``w2_probe`` part of a variant
expression (``post_ln+w2_probe``) asks for that measurement instead of the training grid: the model of the source's
size with the variant's norm placement, no training, ``INITS_PER_JOB`` initialisations per job (job seed s measures
initialisation seeds s x INITS_PER_JOB ... s x INITS_PER_JOB + INITS_PER_JOB - 1, so the profile's 3 seeds give 21),
each averaged over ``PROBE_BATCHES`` batches of the profile's shape. The per-initialisation statistic is the least-squares slope of
ln ||dL/dW^2|| over all layers (nats per layer), not a ratio of two endpoint layers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

import torch

from harness.contract import Measurement
from suites.common.lm import lm_loss, random_batch, xavier_init
from variants.models.transformer import build
from variants.spec import TransformerSpec, split_variant

#: the expression part that asks for the W^2 probe
PROBE_PART = "w2_probe"

#: the source's model (fairseq transformer_iwslt_de_en, the 6-layer stacks of Xiong et al.'s Fig. 3)
SOURCE_SIZE = {"d_model": 512, "n_layers": 6, "n_heads": 4, "d_ff": 1024, "ffn": "relu"}

#: initialisations measured by one job: with the standard profile's 3 seeds, 21 paired initialisations
INITS_PER_JOB = 7

#: batches averaged per initialisation: the spread that decides is across initialisations, and a d_model 512 model's
#: backward pass costs 64x a d_model 64 one's, so fewer than the grid's probe batches
PROBE_BATCHES = 2

#: the metric of one layer's ||dL/dW^2|| (x: the layer, 1 = nearest the input; extra: init_seed, depth, d_model)
METRIC = "w2_grad_norm"


@dataclass(frozen=True)
class ProbeSpec(TransformerSpec):
    """A TransformerSpec that is measured at initialisation only (``probe``: which measurement)."""

    probe: str = "w2"


def split_probe(variant: str) -> tuple[str, bool]:
    """(the rest of the expression, whether it asks for the probe): ``'post_ln+w2_probe'`` -> ``('post_ln', True)``."""
    parts = split_variant(variant)
    rest = [p for p in parts if p != PROBE_PART]
    return "+".join(rest) or "baseline", len(rest) < len(parts)


def probe_spec(spec: TransformerSpec) -> ProbeSpec:
    """The spec at the source's size, keeping the variant's norm placement and everything else it sets."""
    return ProbeSpec(**{**dataclasses.asdict(spec), **SOURCE_SIZE})


def is_probe(spec: TransformerSpec) -> bool:
    return getattr(spec, "probe", None) is not None


def init_seeds(seed: int) -> range:
    """The initialisation seeds job seed ``seed`` measures (disjoint across job seeds)."""
    return range(seed * INITS_PER_JOB, (seed + 1) * INITS_PER_JOB)


def w2_gradient_norms(model, batches, device: str) -> list[float]:
    """Per block, ||dL/dW^2|| of the FFN's second matrix (``ffn.down``, (d_model, d_ff)), averaged over batches."""
    totals = [0.0] * len(model.blocks)
    for x, y in batches:
        model.zero_grad(set_to_none=True)
        lm_loss(model, x.to(device), y.to(device)).backward()
        for i, block in enumerate(model.blocks):
            totals[i] += float(block.ffn.down.weight.grad.norm())
    model.zero_grad(set_to_none=True)
    return [t / len(batches) for t in totals]


def run_probe(
    spec: ProbeSpec,
    seed: int,
    train_ids: torch.Tensor,
    batch_size: int,
    train_len: int,
    device: str,
    probe_batches: int = PROBE_BATCHES,
) -> list[Measurement]:
    """Every layer's ||dL/dW^2|| at initialisation, for each of this job's initialisation seeds (Xavier, as fairseq)."""
    out: list[Measurement] = []
    for init in init_seeds(seed):
        torch.manual_seed(init)
        model = build(spec).to(device)
        xavier_init(model)
        gen = torch.Generator().manual_seed(init + 10_000)  # the same batches for Post-LN and Pre-LN: paired by init
        batches = [random_batch(train_ids, batch_size, train_len, gen) for _ in range(probe_batches)]
        extra = {"init_seed": init, "depth": spec.n_layers, "d_model": spec.d_model}
        for layer, norm in enumerate(w2_gradient_norms(model, batches, device), start=1):
            out.append(Measurement(METRIC, norm, x=float(layer), x_name="layer", extra=extra))
    return out


def log_slope(norms: dict[int, float]) -> float:
    """Least-squares slope of ln(norm) against the layer index over all layers (nats per layer)."""
    layers = sorted(norms)
    x = torch.tensor(layers, dtype=torch.float64)
    y = torch.tensor([norms[k] for k in layers], dtype=torch.float64).log()
    x = x - x.mean()
    return float((x * (y - y.mean())).sum() / (x * x).sum())


def slopes(records: Iterable) -> dict[str, dict[int, float]]:
    """norm placement -> initialisation seed -> slope of ln ||dL/dW^2|| over layers, from w2_grad_norm records
    (rows with ``spec``, ``x``, ``value`` and ``extra``)."""
    norms: dict[tuple[str, int], dict[int, float]] = {}
    for r in records:
        placement = r.spec.get("norm_placement")
        norms.setdefault((placement, int(r.extra["init_seed"])), {})[int(r.x)] = float(r.value)
    out: dict[str, dict[int, float]] = {}
    for (placement, init), by_layer in norms.items():
        if len(by_layer) > 1:
            out.setdefault(placement, {})[init] = log_slope(by_layer)
    return out


def size_of(records) -> dict[str, int] | None:
    """(depth, d_model) of the probe's records, for the report's sentences."""
    for r in records:
        return {"depth": int(r.extra["depth"]), "d_model": int(r.extra["d_model"])}
    return None
