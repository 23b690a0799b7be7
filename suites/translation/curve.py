"""BLEU during training: the points a curve of BLEU against training compute is drawn from.

At ``bleu_checkpoints`` evenly spaced steps (the last at the end of training) the model translates the first
``checkpoint_sentences`` test sentences greedily and their corpus BLEU is recorded as ``bleu_during_training`` at
x = the steps done, with the training seconds spent so far (evaluation time excluded). Training FLOPs at a point
are the job's FLOPs per step (``train_flops``'s extra) times its steps, so the report can draw BLEU against compute
and ask how much compute each model needs to reach a BLEU (Vaswani et al. 2017, Table 2).
"""

from __future__ import annotations

import time

import torch

from harness.contract import Measurement
from suites.common.bleu import corpus_scores
from suites.common.seq2seq import translate


def checkpoint_steps(steps: int, points: int) -> list[int]:
    """The steps done at each of ``points`` evenly spaced points, the last = ``steps`` (1 <= points <= steps)."""
    return sorted({round(steps * k / points) for k in range(1, points + 1)})


class BleuCurve:
    """``train``'s after_step hook: greedy BLEU of the first test sentences at evenly spaced steps."""

    def __init__(self, model, data, test, texts, profile, ctx):
        self.model, self.data, self.ctx = model, data, ctx
        n = profile.checkpoint_sentences
        self.sources = [src for src, _ in test[:n]]
        self.references = [tgt for _, tgt in texts[:n]]
        self.at = set(checkpoint_steps(profile.steps, profile.bleu_checkpoints))
        self.decode_batch = profile.decode_batch
        self.start = time.perf_counter()
        #: seconds spent scoring, left out of the training time
        self.scoring_s = 0.0
        self.measurements: list[Measurement] = []

    def __call__(self, step: int) -> None:
        done = step + 1
        if done not in self.at:
            return
        t0 = time.perf_counter()
        trained_s = t0 - self.start - self.scoring_s  # training seconds so far, earlier scorings left out
        self.model.eval()
        with torch.no_grad():
            ids = translate(self.model, self.sources, batch_size=self.decode_batch, device=self.ctx.device)
        self.model.train()
        bleu = corpus_scores(self.data.vocab.decode(ids), self.references).bleu
        self.scoring_s += time.perf_counter() - t0
        self.measurements.append(
            Measurement(
                "bleu_during_training",
                bleu,
                x=float(done),
                x_name="step",
                extra={"train_s": trained_s, "sentences": len(self.sources)},
            )
        )
