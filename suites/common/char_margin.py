"""The equivalence margin of the character-LM suites in the source's units: Vaswani et al.'s Table 3 step, per character.

Vaswani et al. 2017 (arXiv 1706.03762), Table 3 (B): halving d_k from 32 to 16 moves newstest2013 perplexity per
*wordpiece* from 5.01 to 5.16, and they call it a loss ("reducing the attention key size d_k hurts model quality"):
ln(5.16 / 5.01) nats per wordpiece. These suites score perplexity per *character*, so the step is divided by the
characters a wordpiece spans. Their text is byte-pair encoded with a shared English-German vocabulary of about
37000 tokens; the paper does not say how many characters a token spans, so CHARS_PER_WORDPIECE is this project's
estimate (about 1.3 tokens per word at that vocabulary size, words of about 5 characters plus their space). The
smallest change the source calls a loss is then TOLERANCE_NATS per character, TOLERANCE_PCT of per-character
perplexity: "similar" and "keeps quality" mean a change within that.
"""

from __future__ import annotations

import math

#: Vaswani et al.'s Table 3: dev perplexity per wordpiece at d_k 32 (row "base") and at d_k 16 (row (B))
SOURCE_PPL = (5.01, 5.16)
#: characters per BPE token of a 37k English-German vocabulary: this project's estimate, not the paper's
CHARS_PER_WORDPIECE = 4.5
#: the source's step in nats per wordpiece, and per character
STEP_NATS_PER_WORDPIECE = math.log(SOURCE_PPL[1] / SOURCE_PPL[0])
TOLERANCE_NATS = STEP_NATS_PER_WORDPIECE / CHARS_PER_WORDPIECE
#: the same step as a change of per-character perplexity, in % to two decimals: the unit the paired comparisons
#: are in, and the margin they are judged against
TOLERANCE_PCT = round(100 * math.expm1(TOLERANCE_NATS), 2)


def derivation() -> str:
    """The margin with its derivation, for a report's sentence."""
    return (
        f"±{TOLERANCE_NATS:.4f} nats per character (±{TOLERANCE_PCT:.2f}% of per-character perplexity): Vaswani et "
        f"al.'s Table 3 step d_k 32 -> 16, dev perplexity {SOURCE_PPL[0]} -> {SOURCE_PPL[1]} per wordpiece "
        f"({STEP_NATS_PER_WORDPIECE:.4f} nats), which they call a loss, over {CHARS_PER_WORDPIECE:g} characters per "
        f"wordpiece (this project's estimate for their 37k BPE vocabulary; the paper gives none)"
    )
