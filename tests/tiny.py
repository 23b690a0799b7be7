"""The reduced sizes the tests run ``bench run`` at, each written once: ``tiny(suite, base, **changes)`` is the list of
arguments ``suite=SUITE``, ``set.KEY=VALUE`` for every setting and ``progress=false``.

A test names a base below and what it changes (a change to None drops a setting), or, for a suite of its own, every
setting; a list is written as the command line writes it (``[1,8]``).
"""

#: the smallest decoder of the language-model suites: one layer of width 16 with two heads, trained 2 steps on 8 tokens
DECODER = dict(steps=2, d_model=16, n_layers=1, n_heads=2, train_len=8, batch_size=2, eval_tokens=256, warmup_steps=1)
#: position_extrapolation end to end: 6 steps of 4 sequences, 512 tokens scored at each length
POSITION = dict(DECODER, steps=6, batch_size=4, eval_tokens=512, warmup_steps=2)
#: language_modeling: width 32 with 8 heads (head size 4), so MQA drops 7/8 of the key/value projection, more than 10%
#: of the parameters
LANGUAGE = dict(DECODER, d_model=32, n_heads=8, batch_size=4)
#: translation: a one-layer encoder-decoder (embedding 8, RNN state 16, Transformer width 16), 3 steps of 8 pairs
TRANSLATION = dict(steps=3, warmup_steps=1, d_embed=8, d_hidden=16, d_model=16, n_heads=2, n_layers=1, batch_size=8)


def value(v) -> str:
    """``v`` as the command line writes it: a list as ``[a,b]``, a bool as ``true``/``false``."""
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(value(x) for x in v) + "]"
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


def settings(base: dict | None = None, **changes) -> list[str]:
    """``set.KEY=VALUE`` for each setting of ``base`` updated by ``changes``: base's order, then the new keys; a change
    to None drops its key."""
    merged = {**(base or {}), **changes}
    return [f"set.{k}={value(v)}" for k, v in merged.items() if v is not None]


def tiny(suite: str | None = None, base: dict | None = None, *, quiet: bool = True, **changes) -> list[str]:
    """The arguments of a reduced-size ``bench run``: ``suite=SUITE`` (when named), the settings of ``base`` updated by
    ``changes`` (see ``settings``), and ``progress=false`` unless ``quiet`` is False."""
    return [*([f"suite={suite}"] if suite else []), *settings(base, **changes), *(["progress=false"] if quiet else [])]
