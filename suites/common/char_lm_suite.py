"""What every character-LM suite does the same way: its corpus (``data=`` or the profile's), that corpus's checksum,
the check that the corpus fits the profile, and a default base spec (``model_spec``, for a suite with a corpus of its
own too)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from suites.common.data.char_lm import CharLMData, char_lm_data, check_fits
from variants.spec import TransformerSpec


def model_spec(profile: Any, vocab_size: int, **fields: Any) -> TransformerSpec:
    """The profile's d_model, n_layers and n_heads at its training length (a ModelSize and CharLMText profile,
    suites/common/profile_parts.py) over ``vocab_size`` characters; ``fields``: what a suite sets beyond them."""
    return TransformerSpec(
        vocab_size=vocab_size,
        d_model=profile.d_model,
        n_layers=profile.n_layers,
        n_heads=profile.n_heads,
        max_len=profile.train_len,
        **fields,
    )


class CharLMCorpus:
    """Mixin for a Suite whose profile is a CharLMText (suites/common/profile_parts.py): put it before ``Suite`` in the bases."""

    def _data(self, profile: Any, options: dict[str, Any]) -> CharLMData:
        """The corpus split into training and held-out ids; ``data=`` on the command line wins over the profile."""
        return char_lm_data(options.get("data") or profile.data, profile.heldout_fraction)

    def vocabulary(self, record: dict[str, Any]) -> str | None:
        """The characters of the training split the job's model was trained on (its record's corpus and held-out
        fraction); a UsageError when that corpus no longer has the checksum the record was trained on."""
        from harness.errors import UsageError

        settings = record.get("profile_settings") or {}
        data = char_lm_data(settings.get("data"), settings.get("heldout_fraction", 0.1))
        if record.get("data_checksum") and data.corpus.checksum != record["data_checksum"]:
            raise UsageError(
                f"The corpus data={settings.get('data')} has changed since the model was trained (checksum "
                f"{data.corpus.checksum[:12]}, the record's {str(record['data_checksum'])[:12]}); its vocabulary "
                "cannot be rebuilt."
            )
        return data.vocab.chars

    def data_checksum(self, profile: Any, options: dict[str, Any]) -> str:
        return self._data(profile, options).corpus.checksum

    def check_data(self, profile: Any, options: dict[str, Any]) -> None:
        """A UsageError naming ``data`` unless the corpus holds a training window and a held-out one of train_len."""
        check_fits(options.get("data") or profile.data, profile.heldout_fraction, profile.train_len, profile.train_len)

    def base_spec(self, profile: Any, options: dict[str, Any], **fields: Any) -> TransformerSpec:
        """The profile's d_model, n_layers and n_heads at its training length, over the corpus's vocabulary;
        ``fields``: what a suite sets beyond them (``super().base_spec(profile, options, position="rope")``)."""
        return model_spec(profile, self._data(profile, options).vocab.size, **fields)

    def learning_flags(self, records: pd.DataFrame) -> dict[str, str]:
        """Variant -> why its model is flagged (did not learn, or memorised: suites/common/learning.py), for the variants
        of one group of records that are; the index draws them apart so they do not squash its axes."""
        from suites.common.learning import learning_checks

        if not len(records) or "profile_settings" not in records:
            return {}
        settings = records.profile_settings.dropna()
        length = settings.iloc[0].get("train_len") if len(settings) and isinstance(settings.iloc[0], dict) else None
        checks = learning_checks(records, x=None if length is None else float(length))
        return {variant: check.reason() for variant, check in checks.items() if not check.usable}
