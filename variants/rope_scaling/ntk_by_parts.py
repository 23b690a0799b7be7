"""NTK-by-parts: YaRN's frequencies without its attention temperature (bloc97 2023; Peng et al. 2023, arXiv 2309.00071, 3.2).

Peng et al. build YaRN in two steps: "NTK-by-parts" interpolation (section 3.2: pairs that turn more than beta
times within L are kept, fewer than alpha times are divided by s, a ramp between) and then the temperature
sqrt(1/t) = 0.1 ln s + 1 on the logits (section 3.4), fitted on LLaMA. This scaling is the first step alone, the
same frequencies as ``yarn`` with the factor 1, so that the temperature's own share of YaRN's result is measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._base import rope_scalings
from .yarn import Yarn


@dataclass(frozen=True)
class NtkByParts(Yarn):
    """YaRN's ramped frequencies (the authors' pair-index ramp) with no attention temperature."""

    def attention_factor(self, s: float) -> float:
        return 1.0


rope_scalings.add("ntk_by_parts", NtkByParts())
