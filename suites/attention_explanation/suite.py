"""Do a translator's attention weights explain it? Jain & Wallace 2019 against Wiegreffe & Pinter 2019.

Each job trains one RNN encoder-decoder on the generated number-word corpus (numbers_en_fr, as translation's
bottleneck profile) and scores its greedy test BLEU. A model with learned attention is then probed
(suites/attention_explanation/probes.py): Kendall's tau between its attention weights and gradient and
leave-one-out importance at every target step, and how far its output moves when the weights are permuted or made
uniform. The default variants are Jain & Wallace's encoder and score (a bidirectional LSTM, additive attention) and
Wiegreffe & Pinter's baseline, the same model trained with uniform weights (variants/scoring/uniform.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from harness.contract import JobContext, Measurement, Suite, suites
from harness.errors import UsageError
from harness.rules import at_least
from harness.suite_file import SuiteFile
from harness.train import train
from suites.attention_explanation.probes import probe, reweighed, summary, uniform
from suites.common.bleu import corpus_scores
from suites.common.metrics import COMMON
from suites.common.profile_parts import TrainingBudget
from suites.common.seq2seq import encode_corpus, length_batches, seq2seq_loss, teacher_batch, translate
from variants.models.seq2seq import build
from variants.seq2seq_spec import RNNSeq2SeqSpec, Seq2SeqTransformerSpec, resolve_seq2seq


@dataclass(frozen=True)
class ExplanationProfile(TrainingBudget):
    """The corpus, the RNN's sizes, its training budget and how many test sentences are probed."""

    #: the parallel corpus (a translation corpus name)
    data: str = "numbers_en_fr"
    #: joint BPE vocabulary size
    vocab_size: int = 400
    #: the longest side of a pair in tokens
    max_len: int = 128
    d_embed: int = 64
    d_hidden: int = 128
    #: test sentences translated for BLEU (0 = all)
    test_limit: int = 0
    #: test sentences whose every target step is probed
    probe_sentences: int = 100
    #: random permutations of each step's weights (their median distance is kept)
    permutations: int = 10

    rules = {"test_limit": at_least(0, "0 = all"), "vocab_size": at_least(5)}


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(ExplanationProfile)


class AttentionExplanation(Suite):
    """Attention weights against gradient and leave-one-out importance; permuted and uniform weights."""

    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    #: Jain & Wallace's BiLSTM with additive attention, and Wiegreffe & Pinter's uniform-weights baseline
    default_variants = ("lstm+luong+additive+bidirectional", "lstm+luong+uniform+bidirectional")

    def _encoded(self, profile: ExplanationProfile):
        return encode_corpus(profile.data, profile.vocab_size, profile.max_len)

    def spec_for(self, variant: str, profile: ExplanationProfile, options: dict[str, Any]):
        rnn = RNNSeq2SeqSpec(
            vocab_size=self._encoded(profile).vocab.size, d_embed=profile.d_embed, d_hidden=profile.d_hidden
        )
        spec = resolve_seq2seq(variant, rnn, Seq2SeqTransformerSpec())
        if not isinstance(spec, RNNSeq2SeqSpec) or spec.scoring == "none":
            raise UsageError(
                f"variant {variant!r} is not an RNN encoder-decoder with attention; this suite probes the attention "
                "of one (for example lstm+luong+additive+bidirectional or lstm+luong+uniform+bidirectional)"
            )
        return spec

    def check_data(self, profile: ExplanationProfile, options: dict[str, Any]) -> None:
        data = self._encoded(profile)
        if len(data.test) < profile.probe_sentences:
            raise UsageError(
                f"set.probe_sentences={profile.probe_sentences} exceeds the {len(data.test)} test pairs of "
                f"data={profile.data}; give at most that many"
            )

    def data_checksum(self, profile: ExplanationProfile, options: dict[str, Any]) -> str:
        return self._encoded(profile).corpus.checksum

    def run_job(self, spec: RNNSeq2SeqSpec, profile: ExplanationProfile, seed: int, ctx: JobContext):
        data = self._encoded(profile)
        torch.manual_seed(seed)
        model = build(spec).to(ctx.device)
        ctx.facts.update(parameters=model.num_parameters(), corpus=data.corpus.name, train_pairs=len(data.train))
        batches = length_batches(data.train, profile.batch_size, torch.Generator().manual_seed(seed))

        def step_loss(m, step):
            src, tgt_in, tgt_out = teacher_batch(next(batches), ctx.device)
            return seq2seq_loss(m, src, tgt_in, tgt_out), int(tgt_out.ne(0).sum())

        result = train(model, step_loss, profile.train_settings(), progress=ctx.progress, desc=ctx.label or "train")
        test = data.test[: profile.test_limit or None]
        refs = [tgt for _, tgt in data.test_pairs[: len(test)]]

        def bleu() -> float:
            ids = translate(model, [src for src, _ in test], batch_size=100, device=ctx.device)
            return corpus_scores(data.vocab.decode(ids), refs).bleu

        out = [Measurement("train_loss", result.final_loss), Measurement("bleu", bleu())]
        if spec.scoring == "uniform":
            return out  # its weights are uniform by construction: nothing to probe
        with reweighed(model, uniform):
            out.append(Measurement("uniform_bleu", bleu()))
        found = probe(model, data.test[: profile.probe_sentences], 50, profile.permutations, seed, ctx.device)
        steps = {"steps": len(found.permutation_tvd), "sentences": profile.probe_sentences}
        for metric in ("tau_attention_gradient", "tau_attention_loo", "tau_gradient_loo"):
            values = getattr(found, metric)
            out.append(Measurement(metric, summary(values), extra={**steps, "ranked_steps": len(values)}))
        significant = found.significant_attention_gradient
        out.append(
            Measurement(
                "significant_attention_gradient", 100.0 * sum(significant) / max(len(significant), 1), extra=steps
            )
        )
        for metric in ("permutation_tvd", "uniform_tvd", "max_attention"):
            out.append(Measurement(metric, summary(getattr(found, metric)), extra=steps))
        return out


suites.add("attention_explanation", AttentionExplanation())
