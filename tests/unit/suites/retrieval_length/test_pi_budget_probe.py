"""The budget probe's figure: PI's accuracy at the fine-tuning length against steps, reference and probe together."""

import pandas as pd

from suites.retrieval_length import probe_figures


def _rows(steps_short, steps_long, values, seed=0, variant="rope+pi"):
    settings = {"finetune_len": 512, "short_finetune_steps": steps_short, "finetune_steps": steps_long}
    return [
        dict(variant=variant, metric=m, x=512.0, seed=seed, value=v, profile_settings=settings)
        for m, v in zip(("short_finetuned_accuracy", "finetuned_accuracy"), values)
    ] + [dict(variant=variant, metric="finetuned_accuracy", x=128.0, seed=seed, value=0.0, profile_settings=settings)]


class FakeProbes:
    def __init__(self, reference, probe):
        self._reference, self._probe = pd.DataFrame(reference), pd.DataFrame(probe)

    def records(self, name, suite):
        return self._probe

    def reference(self, suite, profile="standard"):
        return self._reference


def test_pi_steps_joins_the_reference_budgets_with_the_probes_on_the_probes_seeds():
    reference = _rows(80, 200, [0.2, 0.5]) + _rows(80, 200, [0.9, 0.9], seed=1) + _rows(80, 200, [1, 1], variant="rope")
    probe = _rows(400, 1000, [0.6, 0.85])
    text = probe_figures.pi_steps(FakeProbes(reference, probe))
    assert text.startswith("0.20, 0.50, 0.60 and 0.85 after 80, 200, 400 and 1000 steps at 512 characters (seed 0)")
    assert text.endswith("at or above 0.8 first after 1000 steps")
    never = probe_figures.pi_steps(FakeProbes(reference, _rows(400, 1000, [0.6, 0.7])))
    assert never.endswith("below 0.8 at every budget")


def test_the_control_and_yarn_are_read_at_the_probes_budgets_on_common_seeds():
    probe = _rows(400, 1000, [0.6, 0.85]) + _rows(400, 1000, [0.3, 0.5], variant="rope")
    probe += _rows(400, 1000, [0.95, 1.0], variant="rope+yarn")
    probes = FakeProbes([], probe)
    control = probe_figures.pi_against_rope(probes)
    assert control.startswith("PI retrieves 0.85 and plain RoPE fine-tuned alike 0.50 after 1000 steps at 512")
    assert control.endswith("PI - RoPE +0.35 (seed 0; one seed: indicative, not a verdict), PI ahead")
    yarn = probe_figures.yarn_at_source_budgets(probes)
    assert yarn.startswith("YaRN after 400 steps retrieves 0.95 and PI after 1000 steps 0.85 at 512 characters")
    assert yarn.endswith("PI(1000) - YaRN(400) -0.10 (seed 0; one seed: indicative, not a verdict)")


def test_without_the_control_the_figure_says_so():
    probes = FakeProbes([], _rows(400, 1000, [0.6, 0.85]))
    assert "no control" in probe_figures.pi_against_rope(probes)
    assert "not fine-tuned" in probe_figures.yarn_at_source_budgets(probes)


def _both(variant, at_l, at_4l):
    settings = {"train_len": 128, "finetune_len": 512, "finetune_steps": 1000, "short_finetune_steps": 0}
    return [
        dict(variant=variant, metric="finetuned_accuracy", x=x, seed=0, value=v, profile_settings=settings)
        for x, v in ((128.0, at_l), (512.0, at_4l))
    ]


def test_both_lengths_say_when_the_fine_tuning_erased_the_task():
    lost = probe_figures.at_both_lengths(FakeProbes([], _both("rope+pi", 0.0, 0.0) + _both("rope", 0.05, 0.0)), "p")
    assert lost.startswith("after 1000 steps PI retrieves 0.00 at 128 and 0.00 at 512 characters, plain RoPE 0.05")
    assert "lose the task even at 128" in lost
    kept = probe_figures.at_both_lengths(FakeProbes([], _both("rope+pi", 1.0, 0.7) + _both("rope", 1.0, 0.2)), "p")
    assert kept == (
        "after 1000 steps PI retrieves 1.00 at 128 and 0.70 at 512 characters, plain RoPE 1.00 and 0.20 (seed 0): both "
        "keep the task at 128, and under neither scaling does retrieval carry to 512"
    )
    carried = probe_figures.at_both_lengths(FakeProbes([], _both("rope+pi", 1.0, 0.9) + _both("rope", 1.0, 0.2)), "p")
    assert carried.endswith("plain RoPE 1.00 and 0.20 (seed 0)")
