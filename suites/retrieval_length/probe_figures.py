"""The figures of the probe this suite's claims cite (harness/probes.py): ``rope+pi`` fine-tuned for the sources' own
step counts, 400 (YaRN's) and 1000 (PI's), beside the reference's 80 and 200 (records in
reference/probes/pi_finetune_budget; the pre-trained weights are the reference run's, so each seed's four budgets
start from the same model)."""

from __future__ import annotations

from harness.probes import Figure, Probes
from suites.retrieval_length.effective import THRESHOLD

PROBE = "pi_finetune_budget"
SUITE = "retrieval_length"
VARIANT = "rope+pi"
#: the metric of each fine-tuning arm and the profile field holding its steps
ARMS = {"short_finetuned_accuracy": "short_finetune_steps", "finetuned_accuracy": "finetune_steps"}


def _by_steps(frame, seeds=None) -> dict[int, dict[int, float]]:
    """steps -> seed -> rope+pi's accuracy at the fine-tuning length after that many steps."""
    out: dict[int, dict[int, float]] = {}
    rows = frame[frame.variant == VARIANT]
    for r in rows.itertuples():
        field = ARMS.get(r.metric)
        settings = r.profile_settings if isinstance(r.profile_settings, dict) else {}
        if field is None or r.x != float(settings.get("finetune_len", -1)) or (seeds and r.seed not in seeds):
            continue
        out.setdefault(int(settings[field]), {})[int(r.seed)] = float(r.value)
    return out


def pi_steps(probes: Probes) -> str:
    """'0.24, 0.51, 0.66 and 0.88 after 80, 200, 400 and 1000 steps at 512 characters (seed 0), at or above 0.8 first
    after 1000 steps': PI's accuracy at the fine-tuning length against fine-tuning steps, the reference's budgets and
    the probe's, on the probe's seeds."""
    probe = probes.records(PROBE, SUITE)
    seeds = sorted(int(s) for s in probe[probe.variant == VARIANT].seed.unique())
    found = {**_by_steps(probes.reference(SUITE), seeds), **_by_steps(probe)}
    steps = sorted(s for s, by_seed in found.items() if all(seed in by_seed for seed in seeds))
    if not steps or not seeds:
        return "(no fine-tuned rope+pi records)"
    means = [sum(found[s][seed] for seed in seeds) / len(seeds) for s in steps]
    length = int(probe.profile_settings.iloc[0]["finetune_len"])
    listed = lambda items: ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else items[0]  # noqa: E731
    which = f"seed {seeds[0]}" if len(seeds) == 1 else f"mean of seeds {', '.join(map(str, seeds))}"
    first = next((s for s, m in zip(steps, means) if m >= THRESHOLD), None)
    reach = f"at or above {THRESHOLD:g} first after {first} steps" if first else f"below {THRESHOLD:g} at every budget"
    return (
        f"{listed([f'{m:.2f}' for m in means])} after {listed([str(s) for s in steps])} steps at {length} characters "
        f"({which}), {reach}"
    )


PROBE_FIGURES: dict[str, Figure] = {f"{PROBE}.pi_steps": pi_steps}
