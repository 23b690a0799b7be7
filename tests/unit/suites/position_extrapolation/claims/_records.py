"""Made-up position_extrapolation records for its claims' tests: RoPE-extension curves, sliding-window perplexities
and spans, and the per-seed ratios ALiBi's claim reads."""

import math

import pandas as pd

from harness.claims import judge_all
from harness.contract import suites
from suites.position_extrapolation.claims._shared import Evidence, prepare

L = 32

#: variant -> (rope_scaling or None, rope_scale, [ppl at 1L, 2L, 4L, 8L]): the shape Chen et al. and Peng et al. publish
PUBLISHED_SHAPE = {
    "rope": (None, "auto", [4.2, 5.3, 15.0, 27.0]),
    "rope+pi": ("pi", "auto", [4.2, 4.9, 5.6, 6.5]),
    "rope+pi2": ("pi", 2.0, [4.6, 4.9, 9.0, 20.0]),  # fixed s = 2: blurred already at L
    "rope+ntk": ("ntk", "auto", [4.2, 4.3, 4.6, 5.5]),
    "rope+yarn": ("yarn", "auto", [4.2, 4.25, 4.5, 5.0]),
}
#: a run where nothing helps: plain RoPE flat, NTK-aware blowing up, PI at a fixed s costing nothing at L
NOTHING_HELPS = dict(
    PUBLISHED_SHAPE,
    rope=(None, "auto", [4.2, 4.3, 4.4, 4.5]),
    **{"rope+ntk": ("ntk", "auto", [4.2, 5.0, 9.0, 20.0]), "rope+pi2": ("pi", 2.0, [4.2, 4.2, 4.3, 4.4])},
)


def records(curves, seeds=(0, 1)):
    """curves: variant -> (rope_scaling or None, rope_scale, [ppl at 1L, 2L, 4L, 8L])."""
    rows = []
    for variant, (scaling, scale, ppl) in curves.items():
        spec = (
            {"position": "rope"}
            if scaling is None
            else {"position": "rope", "rope_scaling": scaling, "rope_scale": scale}
        )
        for seed in seeds:
            base = dict(
                variant=variant,
                seed=seed,
                status="ok",
                spec=spec,
                training_key=f"k{seed}",
                bigram_entropy=2.5,
                profile_settings={"train_len": L},
            )
            rows.append({**base, "metric": "train_loss", "x": None, "value": 1.4})
            for mult, p in zip((1, 2, 4, 8), ppl):
                value = p * (1 + 0.01 * seed)
                rows.append({**base, "metric": "perplexity", "x": float(mult * L), "value": value})
                rows.append({**base, "metric": "loss", "x": float(mult * L), "value": math.log(value)})
    return pd.DataFrame(rows)


def judged(df: pd.DataFrame) -> dict:
    """claim key -> its finding, every claim of the suite judged on ``df`` as the registry judges them."""
    return {f.claim.key: f for f in judge_all(suites.get("position_extrapolation"), df)}


def one_seed(monkeypatch, judge):
    """``judge``'s finding on one seed of the published shape, where only plain RoPE's rise has a calibrated margin."""
    from suites.position_extrapolation import margins

    monkeypatch.setattr(margins, "MARGINS", {"rope ppl(4L) vs ppl(L)": 30.0})
    return judge(prepare(records(PUBLISHED_SHAPE, seeds=(0,))))


def check_tuned_elsewhere(judge) -> None:
    """Records of the published shape whose free parameters were chosen at 2L cannot judge at the judged 4L, and say
    so; chosen at 4L, they agree."""
    df = records(PUBLISHED_SHAPE, seeds=(0, 1, 2))
    elsewhere, judged_length = judge(prepare(tuned(df, 2 * L))), judge(prepare(tuned(df, 4 * L)))
    assert elsewhere.verdict == "inconclusive"
    assert "chosen on validation text at 2L, not at the judged 4L" in elsewhere.cause
    assert judged_length.verdict == "agrees"


def unlearned(judge):
    """``judge``'s finding on the published shape where plain rope did not learn (held-out loss above the bigram
    entropy)."""
    return judge(prepare(records(PUBLISHED_SHAPE).assign(bigram_entropy=1.0)))


def tuned(df: pd.DataFrame, length: float, variants=("rope+ntk", "rope+yarn"), seeds=(0, 1, 2)) -> pd.DataFrame:
    """``df`` with ``validation_loss`` records saying each variant's free parameters were chosen at ``length``."""
    rows = [
        {
            "variant": v,
            "seed": s,
            "status": "ok",
            "metric": "validation_loss",
            "x": 0.0,
            "value": 1.0,
            "spec": {"position": "rope", "rope_scaling": v.split("+")[1], "rope_scale": "auto"},
            "extra": {"eval_length": length, "params": {}},
        }
        for v in variants
        for s in seeds
    ]
    return pd.concat([df, pd.DataFrame(rows)], ignore_index=True)


def ratios(alibi, sinusoidal, comparable, learned, left_out="") -> Evidence:
    """The evidence ALiBi's claim reads: per-seed ppl(8L)/ppl(L) (lists, seeds 0, 1, ... in order), the variants
    comparable at L and those that learned."""
    by_seed = {v: dict(enumerate(r)) for v, r in (("alibi", alibi), ("sinusoidal", sinusoidal)) if r}
    empty = pd.DataFrame(columns=["variant", "seed", "metric", "x", "value", "status"])
    return Evidence(empty, empty, L, {}, by_seed, set(comparable), set(learned), left_out, {}, {})


#: sliding-window columns, so that a group without records still has them
COLUMNS = ["variant", "seed", "metric", "x", "value", "status", "spec", "extra"]
ROPE = (4.0, 4.1, 4.2)
CAUGHT = (4.6, 4.75, 4.8)  # W 4: about +15% on every seed


def windows(window32, window4=CAUGHT, window16=None, train_len=64) -> pd.DataFrame:
    """Perplexity at L and 8L of rope and its window models trained alike (per seed)."""
    rows = []
    arms = [("rope", {"window": None, "n_layers": 4}, ROPE), ("rope+window32", {"window": 32, "n_layers": 4}, window32)]
    arms += [("rope+window4", {"window": 4, "n_layers": 4}, window4)] if window4 else []
    arms += [("rope+window16", {"window": 16, "n_layers": 4}, window16)] if window16 else []
    for variant, spec, ppls in arms:
        for seed, p in enumerate(ppls):
            base = {"variant": variant, "seed": seed, "metric": "perplexity", "status": "ok", "spec": spec}
            rows.append({**base, "x": float(train_len), "value": p})
            # past L the window is far better; the verdict reads L only
            rows.append({**base, "x": 8.0 * train_len, "value": p * (1.1 if spec["window"] else 5.0)})
    return pd.DataFrame(rows, columns=COLUMNS)


def spans(measured, expected=9) -> pd.DataFrame:
    """rope+window4 (3 layers) with its measured span per seed."""
    rows = [
        {
            "variant": "rope+window4",
            "seed": s,
            "metric": "receptive_span",
            "value": float(v),
            "status": "ok",
            "x": None,
            "spec": {"window": 4, "n_layers": 3},
            "extra": {"window": 4, "layers": 3, "expected": expected, "length": 20},
        }
        for s, v in enumerate(measured)
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def evidence(df: pd.DataFrame, train_len: int = 64) -> Evidence:
    """The evidence of records without profile settings, at L = ``train_len``."""
    return prepare(df, train_len)
