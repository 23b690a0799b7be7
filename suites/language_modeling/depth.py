"""A variant's own depth: the ``depth<N>`` part of a variant expression (``post_ln+no_warmup+depth6``).

Xiong et al. 2020 (arXiv 2002.04745) train Post-LN and Pre-LN Transformers of 6 encoder and 6 decoder layers, and
the failure of Post-LN without warm-up grows with depth (their section 3: the gradient of the last layers' FFN grows
with the number of layers). The warm-up claim is therefore tested at the source's depth beside the profile's, in one
group of records: this suite reads ``depth<N>`` off the expression, resolves the rest as usual on a base spec of N
layers, and the spec records ``n_layers``, so the job has its own identity (hash). A variant without the part keeps
the profile's depth and its spec, dict and hash are what they were.
"""

from __future__ import annotations

import re

from harness.errors import UserError
from variants.spec import split_variant

#: the expression part that sets the depth: ``depth6`` trains 6 layers
DEPTH_PART = re.compile(r"depth(\d+)")

#: Xiong et al.'s depth: 6 encoder + 6 decoder layers; a decoder-only model of 6 layers has the depth of either stack
SOURCE_DEPTH = 6


def split_depth(variant: str) -> tuple[str, int | None]:
    """(the rest of the expression, the depth it asks for or None): ``'post_ln+depth6'`` -> ``('post_ln', 6)``;
    ``'depth6'`` alone is the baseline at 6 layers. Two depth parts in one expression are refused."""
    parts = split_variant(variant)
    asked = [p for p in parts if DEPTH_PART.fullmatch(p)]
    if len(asked) > 1:
        raise UserError(f"variant {variant!r} asks for {' and '.join(asked)}; a model has one depth: keep one")
    rest = [p for p in parts if not DEPTH_PART.fullmatch(p)]
    if asked and int(DEPTH_PART.fullmatch(asked[0]).group(1)) < 1:
        raise UserError(f"variant {variant!r} asks for {asked[0]}; a model has at least 1 layer")
    return "+".join(rest) or "baseline", (int(DEPTH_PART.fullmatch(asked[0]).group(1)) if asked else None)
