"""Translation: corpus BLEU and chrF of seq2seq models, and BLEU by source-sentence length.

Bahdanau, Cho & Bengio 2014 (arXiv 1409.0473): an encoder-decoder that squeezes the source into one
fixed vector loses long sentences (BLEU falls past ~20 words, their Figure 2), and attention over the
encoder's states removes the bottleneck. Every variant trains on the same pairs with the same budget and
translates the same test split (greedy or beam search); sacrebleu scores it as a whole and per bucket of
source length in words. Copying the source and emitting the most frequent training target are scored the
same way (suites/translation/baselines.py), so the report can tell a model that learned from one that did not.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any

import torch
from tqdm.auto import tqdm

from harness.contract import JobContext, Measurement, Profile, Suite, suites
from harness.errors import UsageError
from harness.rules import Rule, at_least, between
from harness.suite_file import SuiteFile
from harness.train import TrainSettings, train
from suites.common.bleu import BLEU_PROTOCOL, bucket_bounds, bucket_label, corpus_scores, sample_indices
from suites.common.metrics import COMMON
from suites.common.model_cost import METRICS as COST_METRICS
from suites.common.model_cost import training_costs
from suites.common.profile_parts import ModelSize, TrainingBudget
from suites.common.seq2seq import (
    EncodedCorpus,
    encode_corpus,
    length_batches,
    mean_loss,
    seq2seq_loss,
    teacher_batch,
    translate,
)
from suites.common.seq2seq_cost import seq2seq_inference_costs
from suites.translation.baselines import baseline_scores
from suites.translation.curve import BleuCurve
from variants.models.seq2seq import build
from variants.seq2seq_spec import RNNSeq2SeqSpec, Seq2SeqSpec, Seq2SeqTransformerSpec, resolve_seq2seq


@dataclass(frozen=True)
class ParallelCorpus(Profile):
    """The parallel corpus, its joint subword vocabulary and the longest pair kept."""

    #: the parallel corpus (``data=`` on the command line)
    data: str = "numbers_en_fr"
    #: joint BPE vocabulary size, trained on the training split
    vocab_size: int = 400
    #: the longest side of a pair in tokens (EOS included); longer pairs are dropped and counted
    max_len: int = 128

    rules = {"vocab_size": at_least(5, "4 special tokens and at least one subword"), "max_len": at_least(2)}


@dataclass(frozen=True)
class RNNSize(Profile):
    """The RNN encoder-decoder's embedding size, hidden size and stacked layers (ModelSize sizes the Transformer)."""

    d_embed: int = 64
    d_hidden: int = 128
    rnn_layers: int = 1


@dataclass(frozen=True)
class TransformerSchedule(Profile):
    """The Transformer's own learning rate and warm-up: it needs a longer warm-up than the RNNs (Xiong et al. 2020)."""

    transformer_lr: float = 3e-3
    transformer_warmup_steps: int = 300

    rules = {"transformer_warmup_steps": at_least(0)}


@dataclass(frozen=True)
class Decoding(Profile):
    """How the test split is translated: greedy or beam search, and how many sentences at once."""

    #: 1 = greedy decoding
    beam_size: int = 1
    #: alpha of the length penalty ((5 + |Y|) / 6)^alpha (Wu et al. 2016); 0 ranks by log-probability
    length_penalty: float = 0.6
    #: sentences translated per batch
    decode_batch: int = 100

    rules = {"length_penalty": at_least(0, "0 ranks by log-probability")}


@dataclass(frozen=True)
class LengthBuckets(Profile):
    """Which test pairs are scored, and the source-length buckets BLEU is also given for."""

    #: upper bounds (words, inclusive) of the source-length buckets; one more bucket holds longer sources
    length_buckets: tuple[int, ...] = (10, 20, 30)
    #: a bucket with fewer test sentences gets no BLEU (recorded as unsupported, with the count)
    min_bucket_sentences: int = 20
    #: translate only the first N test pairs (0 = all)
    test_limit: int = 0

    rules = {"length_buckets": Rule(low=1, increasing=True), "test_limit": at_least(0, "0 = all")}


@dataclass(frozen=True)
class TrainingCurve(Profile):
    """BLEU during training: at evenly spaced steps, greedy BLEU of the first test sentences (BLEU against compute)."""

    #: points during training at which BLEU is scored, the last at the end of training (0 = none)
    bleu_checkpoints: int = 0
    #: test sentences scored at each point: the first ones of the test split
    checkpoint_sentences: int = 200

    rules = {"bleu_checkpoints": at_least(0, "0 = none")}


@dataclass(frozen=True)
class TranslationProfile(
    ModelSize, TrainingBudget, ParallelCorpus, RNNSize, TransformerSchedule, Decoding, LengthBuckets, TrainingCurve
):
    """Corpus, model sizes, training budget and decoding of one run (d_model, n_layers, n_heads: the Transformer's)."""

    #: dropout of both families while training
    dropout: float = 0.0

    rules = {"dropout": between(0, 1, high_open=True)}
    # settings added after records were stored, at the value those records ran with (their hashes stay)
    added_later = {**Profile.added_later, "bleu_checkpoints": 0, "checkpoint_sentences": 200}

    def problems(self) -> list[str]:
        out = super().problems()
        if self.bleu_checkpoints > self.steps:
            out.append(
                f"set.bleu_checkpoints={self.bleu_checkpoints} asks for more points than the {self.steps} training "
                "steps (set.steps); give at most that many"
            )
        return out

    def train_settings_for(self, rnn: bool) -> TrainSettings:
        """The shared budget, with the Transformer's own learning rate and warm-up for a Transformer."""
        settings = self.train_settings()
        if rnn:
            return settings
        return dataclasses.replace(settings, lr=self.transformer_lr, warmup_steps=self.transformer_warmup_steps)


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(TranslationProfile)


class Translation(Suite):
    """BLEU and chrF of RNN and Transformer encoder-decoders, and BLEU by source length (Bahdanau et al. 2014)."""

    version = 3  # each job records its own training and inference cost (suites/common/model_cost.py)
    metrics = SuiteFile.of(__file__).metrics({**COMMON, **COST_METRICS})
    profiles = PROFILES
    # lstm+bahdanau+additive is the model of Bahdanau et al. 2014 that the report compares with the paper
    default_variants = ("rnn", "lstm", "lstm+bahdanau+additive", "lstm+luong+dot", "lstm+luong+general", "transformer")
    # the bottleneck profile tests the two findings about RNNs without attention: Bahdanau et al.'s and Sutskever
    # et al.'s reversed source, with a bidirectional encoder beside them
    profile_variants = {
        "bottleneck": ("rnn", "lstm", "lstm+bahdanau+additive", "lstm+reversed", "lstm+bidirectional"),
    }
    options = {"data": None}

    def resolved_profile(self, profile: TranslationProfile, options: dict[str, Any]) -> TranslationProfile:
        if options.get("data"):
            profile = dataclasses.replace(profile, data=options["data"])
        return profile

    def _encoded(self, profile: TranslationProfile) -> EncodedCorpus:
        return encode_corpus(profile.data, profile.vocab_size, profile.max_len)

    def spec_for(self, variant: str, profile: TranslationProfile, options: dict[str, Any]) -> Seq2SeqSpec:
        """A variant naming an RNN cell is an RNNSeq2SeqSpec; any other a Seq2SeqTransformerSpec."""
        vocab = self._encoded(profile).vocab.size
        rnn = RNNSeq2SeqSpec(
            vocab_size=vocab,
            d_embed=profile.d_embed,
            d_hidden=profile.d_hidden,
            n_layers=profile.rnn_layers,
            dropout=profile.dropout,
        )
        transformer = Seq2SeqTransformerSpec(
            vocab_size=vocab,
            d_model=profile.d_model,
            n_layers=profile.n_layers,
            n_heads=profile.n_heads,
            max_len=profile.max_len,
            dropout=profile.dropout,
        )
        return resolve_seq2seq(variant, rnn, transformer)

    def check_data(self, profile: TranslationProfile, options: dict[str, Any]) -> None:
        data = self._encoded(profile)
        for split in ("train", "valid", "test"):
            if not getattr(data, split):
                raise UsageError(
                    f"set.max_len={profile.max_len} keeps no {split} pair of data={profile.data} (all "
                    f"{data.dropped[split]} have a side of {profile.max_len} tokens or more); give a larger set.max_len."
                )

    def data_checksum(self, profile: TranslationProfile, options: dict[str, Any]) -> str:
        return self._encoded(profile).corpus.checksum

    def run_job(self, spec: Seq2SeqSpec, profile: TranslationProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        data = self._encoded(profile)
        torch.manual_seed(seed)
        model = build(spec).to(ctx.device)
        test = data.test[: profile.test_limit or None]
        texts = data.test_pairs[: profile.test_limit or None]
        rnn = isinstance(spec, RNNSeq2SeqSpec)
        settings = profile.train_settings_for(rnn)
        ctx.facts.update(
            parameters=model.num_parameters(),
            corpus=data.corpus.name,
            corpus_description=data.corpus.description,
            languages=f"{data.corpus.source_lang}-{data.corpus.target_lang}",
            vocab_size=data.vocab.size,
            train_pairs=len(data.train),
            test_sentences=len(test),
            dropped_pairs=dict(data.dropped),
            lr=settings.lr,
            warmup_steps=settings.warmup_steps,
            decoding="greedy"
            if profile.beam_size == 1
            else f"beam {profile.beam_size}, length penalty alpha {profile.length_penalty:g}",
            baselines=baseline_scores([tgt for _, tgt in data.corpus.train], texts),
        )
        gen = torch.Generator().manual_seed(seed)
        batches = length_batches(data.train, profile.batch_size, gen)

        def step_loss(m, step):
            src, tgt_in, tgt_out = teacher_batch(next(batches), ctx.device)
            return seq2seq_loss(m, src, tgt_in, tgt_out), int(tgt_out.ne(0).sum())

        curve = BleuCurve(model, data, test, texts, profile, ctx) if profile.bleu_checkpoints else None
        result = train(model, step_loss, settings, progress=ctx.progress, desc=ctx.label or "train", after_step=curve)
        # the evaluations during training are not training: their time leaves the training's
        scoring_s = curve.scoring_s if curve is not None else 0.0
        timed = {**result.load, **({"curve_scoring_s_excluded": scoring_s} if curve is not None else {})}
        out = [
            Measurement("train_loss", result.final_loss),
            Measurement("train_time", result.wall_time_s - scoring_s, extra=timed),
            Measurement("train_throughput", result.tokens / max(result.wall_time_s - scoring_s, 1e-9), extra=timed),
            Measurement("valid_loss", mean_loss(model, data.valid, device=ctx.device)),
        ]

        t0 = time.perf_counter()
        with tqdm(
            total=len(test), desc=f"{ctx.label or 'test'} decode", disable=not ctx.progress, leave=False, unit="sent"
        ) as bar:
            ids = translate(
                model,
                [src for src, _ in test],
                beam_size=profile.beam_size,
                alpha=profile.length_penalty,
                batch_size=profile.decode_batch,
                device=ctx.device,
                progress=bar,
            )
        hyps = data.vocab.decode(ids)
        out.append(Measurement("decode_time", time.perf_counter() - t0))
        out += curve.measurements if curve is not None else []
        return out + self._scores(hyps, texts, profile) + self._costs(model, data, test, settings, profile, seed, ctx)

    @staticmethod
    def _costs(
        model,
        data: EncodedCorpus,
        test,
        settings: TrainSettings,
        profile: TranslationProfile,
        seed: int,
        ctx: JobContext,
    ) -> list[Measurement]:
        """The trained model's own cost (suites/common/model_cost.py, seq2seq_cost.py): training FLOPs and memory on
        the first training batch; encoding a test source of the median length and decoding with its memory."""
        t0 = time.perf_counter()
        src, tgt_in, tgt_out = teacher_batch(data.train[: profile.batch_size], ctx.device)
        out = training_costs(
            model,
            lambda m: seq2seq_loss(m, src, tgt_in, tgt_out),
            int(tgt_out.ne(0).sum()),
            profile.steps,
            ctx.device,
            settings,
        )
        model.eval()
        sources = sorted((s for s, _ in test), key=len)
        out += seq2seq_inference_costs(model, sources[len(sources) // 2], data.vocab.size, ctx.device, seed)
        ctx.facts.update(cost_time_s=time.perf_counter() - t0)
        return out

    def _scores(self, hyps: list[str], texts, profile: TranslationProfile) -> list[Measurement]:
        """Corpus BLEU and chrF, samples, and BLEU per source-length bucket."""
        refs = [tgt for _, tgt in texts]
        lengths = [len(src.split()) for src, _ in texts]
        whole = corpus_scores(hyps, refs)
        samples = [
            {"source": texts[i][0], "reference": refs[i], "hypothesis": hyps[i], "source_words": lengths[i]}
            for i in sample_indices(lengths, profile.length_buckets)
        ]
        extra = {"signature": whole.bleu_signature, "protocol": BLEU_PROTOCOL, "samples": samples}
        out = [
            Measurement("bleu", whole.bleu, extra=extra),
            Measurement("chrf", whole.chrf, extra={"signature": whole.chrf_signature}),
        ]
        for lo, hi in bucket_bounds(profile.length_buckets, max(lengths)):
            idx = [i for i, n in enumerate(lengths) if lo <= n <= hi]
            where = dict(x=float(hi), x_name="source_length")
            info = {"bucket": bucket_label(lo, hi, profile.length_buckets), "low": lo, "sentences": len(idx)}
            if len(idx) < profile.min_bucket_sentences:
                out.append(
                    Measurement(
                        "bleu_by_length",
                        None,
                        status="unsupported",
                        extra=info,
                        **where,
                        reason=f"{len(idx)} test sentences of {info['bucket']} words, fewer than {profile.min_bucket_sentences}",
                    )
                )
                continue
            part = corpus_scores([hyps[i] for i in idx], [refs[i] for i in idx])
            out.append(Measurement("bleu_by_length", part.bleu, extra={**info, "chrf": part.chrf}, **where))
        return out


suites.add("translation", Translation())
