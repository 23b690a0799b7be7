"""A joint subword vocabulary for both languages: byte-pair encoding (Sennrich et al. 2016) via ``tokenizers``.

Trained on the training split alone, source and target together, so the models can share one embedding
table. Words are marked with a leading "▁" (the SentencePiece convention, ``Metaspace``), which makes
decoding exact: decode(encode(text)) == text for any whitespace-normalised text whose characters were
seen in training. Ids 0-3 are the special tokens every seq2seq model expects (PAD, BOS, EOS, UNK).
"""

from __future__ import annotations

from collections.abc import Iterable

from variants.seq2seq_spec import BOS, EOS, PAD, UNK

SPECIALS = {PAD: "<pad>", BOS: "<s>", EOS: "</s>", UNK: "<unk>"}


class SubwordVocab:
    """A trained BPE tokenizer: text -> ids and back."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    @classmethod
    def train(cls, texts: Iterable[str], vocab_size: int) -> SubwordVocab:
        from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE(unk_token=SPECIALS[UNK]))
        tok.normalizer = normalizers.NFC()
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        specials = [SPECIALS[i] for i in sorted(SPECIALS)]  # ids 0..3 in this order
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False)
        tok.train_from_iterator(list(texts), trainer)
        for i, name in SPECIALS.items():
            assert tok.token_to_id(name) == i, (name, tok.token_to_id(name))
        return cls(tok)

    @property
    def size(self) -> int:
        return self.tokenizer.get_vocab_size()

    def encode(self, texts: list[str]) -> list[list[int]]:
        return [e.ids for e in self.tokenizer.encode_batch(texts, add_special_tokens=False)]

    def decode(self, ids: list[list[int]]) -> list[str]:
        return self.tokenizer.decode_batch(ids, skip_special_tokens=True)

    def to_str(self) -> str:
        """The tokenizer as JSON (its vocabulary and merges), for checksums."""
        return self.tokenizer.to_str()
