"""What every character-LM suite does the same way: its corpus (``data=`` or the profile's) and that corpus's checksum."""

from __future__ import annotations

from typing import Any, Dict

from suites.common.data.char_lm import CharLMData, char_lm_data


class CharLMCorpus:
    """Mixin for a Suite whose profile has ``data`` and ``heldout_fraction``: put it before ``Suite`` in the bases."""

    def _data(self, profile: Any, options: Dict[str, Any]) -> CharLMData:
        """The corpus split into training and held-out ids; ``data=`` on the command line wins over the profile."""
        return char_lm_data(options.get("data") or profile.data, profile.heldout_fraction)

    def data_checksum(self, profile: Any, options: Dict[str, Any]) -> str:
        return self._data(profile, options).corpus.checksum
