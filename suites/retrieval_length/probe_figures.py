"""The figures of the probe this suite's claims cite (harness/probes.py): ``rope+pi``, plain ``rope`` (Chen et al.'s
control) and ``rope+yarn`` fine-tuned for the sources' own step counts, 400 (YaRN's) and 1000 (PI's), beside the
reference's 80 and 200 (records in reference/probes/pi_finetune_budget; the pre-trained weights are the reference
run's, so each seed's budgets and arms start from the same model)."""

from __future__ import annotations

from harness.probes import Figure, Probes
from suites.retrieval_length.effective import THRESHOLD

PROBE = "pi_finetune_budget"
SUITE = "retrieval_length"
VARIANT = "rope+pi"
#: the metric of each fine-tuning arm and the profile field holding its steps
ARMS = {"short_finetuned_accuracy": "short_finetune_steps", "finetuned_accuracy": "finetune_steps"}


def _by_steps(frame, seeds=None, variant: str = VARIANT) -> dict[int, dict[int, float]]:
    """steps -> seed -> ``variant``'s accuracy at the fine-tuning length after that many steps."""
    out: dict[int, dict[int, float]] = {}
    rows = frame[frame.variant == variant]
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
    which = _which(seeds)
    first = next((s for s, m in zip(steps, means) if m >= THRESHOLD), None)
    reach = f"at or above {THRESHOLD:g} first after {first} steps" if first else f"below {THRESHOLD:g} at every budget"
    return (
        f"{listed([f'{m:.2f}' for m in means])} after {listed([str(s) for s in steps])} steps at {length} characters "
        f"({which}), {reach}"
    )


def _at_budget(probes: Probes, variant: str, field: str, name: str = PROBE) -> tuple[int, int, dict[int, float]] | None:
    """(steps, length, seed -> accuracy at the fine-tuning length) of ``variant`` in probe ``name``, after the budget
    its profile field ``field`` names; None without such records."""
    probe = probes.records(name, SUITE)
    if probe.empty:
        return None
    settings = probe.profile_settings.iloc[0]
    steps = int(settings[field])
    values = _by_steps(probe, variant=variant).get(steps, {})
    return (steps, int(settings["finetune_len"]), values) if values else None


def _which(seeds: list[int]) -> str:
    """'seed 0', or 'mean of seeds 0, 1, 2': the seeds a figure averages."""
    return f"seed {seeds[0]}" if len(seeds) == 1 else f"mean of seeds {', '.join(map(str, seeds))}"


def _mean(values: dict[int, float], seeds: list[int]) -> float:
    return sum(values[s] for s in seeds) / len(seeds)


def _one_seed_gap(name: str, a: dict[int, float], b: dict[int, float]) -> str:
    """'PI - RoPE +0.31 (seed 0; one seed: indicative, not a verdict)' over the seeds both arms ran."""
    common = sorted(set(a) & set(b))
    note = "; one seed: indicative, not a verdict" if len(common) == 1 else ""
    return f"{name} {_mean(a, common) - _mean(b, common):+.2f} ({_which(common)}{note})"


def pi_against_rope(probes: Probes, name: str = PROBE) -> str:
    """'PI retrieves 0.88 and plain RoPE fine-tuned alike 0.57 after 1000 steps at 512 characters: PI - RoPE +0.31
    (seed 0; ...)': Chen et al.'s comparison at their own step count, in probe ``name``."""
    pi, rope = _at_budget(probes, VARIANT, "finetune_steps", name), _at_budget(probes, "rope", "finetune_steps", name)
    if not pi or not rope or not set(pi[2]) & set(rope[2]):
        return "(plain RoPE was not fine-tuned for the probe's budget: no control)"
    steps, length = pi[0], pi[1]
    common = sorted(set(pi[2]) & set(rope[2]))
    a, b = _mean(pi[2], common), _mean(rope[2], common)
    lead = "PI ahead" if a > b else "plain RoPE fine-tuned on the same task at least as good"
    return (
        f"PI retrieves {a:.2f} and plain RoPE fine-tuned alike {b:.2f} after {steps} steps at "
        f"{length} characters: {_one_seed_gap('PI - RoPE', pi[2], rope[2])}, {lead}"
    )


def yarn_at_source_budgets(probes: Probes) -> str:
    """'YaRN after 400 steps retrieves 1.00 and PI after 1000 steps 0.88 at 512 characters: PI(1000) - YaRN(400) -0.12
    (seed 0; ...)': Peng et al.'s comparison at the sources' own step counts."""
    yarn, pi = _at_budget(probes, "rope+yarn", "short_finetune_steps"), _at_budget(probes, VARIANT, "finetune_steps")
    if not yarn or not pi or not set(yarn[2]) & set(pi[2]):
        return "(YaRN was not fine-tuned for the probe's budgets)"
    common = sorted(set(yarn[2]) & set(pi[2]))
    return (
        f"YaRN after {yarn[0]} steps retrieves {_mean(yarn[2], common):.2f} and PI after {pi[0]} steps "
        f"{_mean(pi[2], common):.2f} at "
        f"{pi[1]} characters: {_one_seed_gap(f'PI({pi[0]}) - YaRN({yarn[0]})', pi[2], yarn[2])}"
    )


#: the same arms fine-tuned on plain text (set.finetune_task=text), as the sources fine-tune, and on plain text with
#: the task kept at L (set.finetune_task=mixed), seed 0 each
TEXT_PROBE, MIXED_PROBE = "pi_text_finetune", "pi_mixed_finetune"
#: below this accuracy at L after fine-tuning, a model has lost the task it was trained on
FORGOTTEN = 0.1


def at_both_lengths(probes: Probes, name: str) -> str:
    """'after 1000 steps PI retrieves 0.00 at 128 and 0.00 at 512 characters, plain RoPE 0.00 and 0.00 (seed 0); the
    task is forgotten ...': both arms of probe ``name`` at the training length and the fine-tuning length."""
    probe = probes.records(name, SUITE)
    if probe.empty:
        return f"(no records under reference/probes/{name})"
    settings = probe.profile_settings.iloc[0]
    short, long, steps = int(settings["train_len"]), int(settings["finetune_len"]), int(settings["finetune_steps"])
    rows = probe[probe.metric == "finetuned_accuracy"]
    at = {(v, int(x)): part.value.mean() for (v, x), part in rows[rows.x.isin([short, long])].groupby(["variant", "x"])}
    if not all((v, n) in at for v in (VARIANT, "rope") for n in (short, long)):
        return f"(probe {name} lacks rope+pi or rope at {short} and {long})"
    seeds = sorted(int(s) for s in rows.seed.unique())
    text = (
        f"after {steps} steps PI retrieves {at[VARIANT, short]:.2f} at {short} and {at[VARIANT, long]:.2f} at {long} "
        f"characters, plain RoPE {at['rope', short]:.2f} and {at['rope', long]:.2f} ({_which(seeds)})"
    )
    if max(at[VARIANT, short], at["rope", short]) < FORGOTTEN:
        text += (
            f": both lose the task even at {short}, which at this size is a trained skill, not an in-context ability, "
            "so this protocol cannot test the claim here"
        )
    elif (
        min(at[VARIANT, short], at["rope", short]) >= THRESHOLD and max(at[VARIANT, long], at["rope", long]) < THRESHOLD
    ):
        text += f": both keep the task at {short}, and under neither scaling does retrieval carry to {long}"
    return text


PROBE_FIGURES: dict[str, Figure] = {
    f"{TEXT_PROBE}.at_both_lengths": lambda probes: at_both_lengths(probes, TEXT_PROBE),
    f"{MIXED_PROBE}.at_both_lengths": lambda probes: at_both_lengths(probes, MIXED_PROBE),
    f"{PROBE}.pi_steps": pi_steps,
    f"{PROBE}.pi_against_rope": pi_against_rope,
    f"{PROBE}.yarn_at_source_budgets": yarn_at_source_budgets,
}
