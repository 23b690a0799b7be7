"""``bench export``: one trained model of a stored run written as a Hugging Face checkpoint (bench/export/hf.py).

The model is found by its records: the newest group (or the one selected) of ``suite`` under ``results_dir`` holding
``variant`` at ``seed``, whose records name the training that made its weights (``training_key``); the weights are
that training's checkpoint, kept beside the records (``results/<suite>/.checkpoints/``), and the tokenizer is the
suite's vocabulary of the job's corpus (``Suite.vocabulary``). Every refusal is one sentence before anything is
written: no such model, no checkpoint, a spec no Hugging Face architecture computes.
"""

from __future__ import annotations

from pathlib import Path

import torch

from harness.errors import UsageError


def run(args: list[str]) -> int:
    from bench.config import ExportConfig, parse
    from bench.export.hf import export

    cfg: ExportConfig = parse(args, ExportConfig)
    model, record, suite = trained_model(cfg)
    out = Path(cfg.out or Path("exports") / suite.name / f"{cfg.variant}-s{cfg.seed}")
    for written in export(model, out, suite.vocabulary(record)):
        print(f"wrote {written}")
    return 0


def trained_model(cfg, exported: bool = True) -> tuple:
    """(the trained DecoderLM in eval mode, one of its job's records, its suite) that ``cfg`` (an ExportConfig) names;
    a UsageError of one sentence when there is none, no checkpoint, or (``exported``) a spec no Hugging Face
    architecture computes."""
    from bench.export.hf import architecture
    from harness.contract import suites
    from harness.groups import select, split_groups
    from harness.report import records_frame
    from harness.store import ResultsStore
    from variants.models.transformer import build
    from variants.spec import TransformerSpec

    suite = suites.get(cfg.suite)
    if not cfg.variant:
        raise UsageError(
            "bench export needs variant=NAME, the variant whose trained model to write (e.g. variant=rope)."
        )
    records = [r for r in ResultsStore(cfg.results_dir).load(suite.name) if r.get("training_key")]
    if not records:
        raise UsageError(
            f"No trained model of suite {suite.name} under {cfg.results_dir}/{suite.name}/ (its records name none); "
            f"run `bench run suite={suite.name} variants=[{cfg.variant}]` first."
        )
    group = select(split_groups(records_frame(records)), suite.name, cfg.selection())
    rows = group.frame[
        (group.frame.seed == cfg.seed) & group.frame.names.apply(lambda names: cfg.variant in names)
    ].to_dict("records")
    if not rows:
        raise UsageError(
            f"No trained model of variant={cfg.variant} seed={cfg.seed} in the newest matching group of {suite.name} "
            f"under {cfg.results_dir}/; run `bench run suite={suite.name} variants=[{cfg.variant}] seeds=[{cfg.seed}]` "
            "first."
        )
    record = rows[0]
    spec = TransformerSpec(**record["spec"])
    if exported:
        architecture(spec)  # a spec no architecture computes is refused before any file is read
    path = Path(cfg.results_dir) / suite.name / ".checkpoints" / f"{record['training_key']}.pt"
    if not path.is_file():
        raise UsageError(
            f"The checkpoint of variant={cfg.variant} seed={cfg.seed} ({path}) is not there: checkpoints are kept "
            "beside the records of the run that trained them; rerun the job there to keep one."
        )
    model = build(spec)
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True)["state_dict"])
    return model.eval(), record, suite
