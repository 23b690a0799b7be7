"""The recall report: models and budgets, MQAR by key-value pairs, copying and length generalisation, verdicts."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.findings import sentences
from harness.report_kit import begin, code_line, status_notes, title
from harness.report_sections import BODY, BOOKKEEPING, FIGURE, HEADLINE, Report, Section, section
from suites.recall.figures import figures as make_figures
from suites.recall.learning_rates import sweep_table
from suites.recall.memory_view import index_section as memory_section
from suites.recall.tables import ORDER, accuracy_table, budget_table, learned, memory_table, with_task
from suites.recall.tasks import LENGTH_TASKS, mqar_of


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    first, variants, seeds = begin(df, out_dir, ORDER)
    data = with_task(df)
    s = first.profile_settings
    mqar = mqar_of(s)
    tokens = mqar.length(max(s["mqar_kv"]))
    figures = make_figures(data, variants, out_dir / "figures", tokens)
    tables = [
        sweep_table(with_task(df, every_rate=True), variants),
        memory_table(data, variants, tokens),
        accuracy_table(
            data,
            variants,
            "mqar",
            "token_accuracy",
            "Associative recall (MQAR): token accuracy by key-value pairs",
            "(n) marks the most pairs trained on. Guessing without keys is what a model that reads the "
            "values in context but binds no key to its value can score: at each query the most frequent "
            "value not yet answered (teacher forcing shows the earlier answers), about H_N / N at N "
            "pairs, well above 1/N. Recall is accuracy above it.",
            guess=mqar.key_blind_guess,
        ),
    ]
    for task in LENGTH_TASKS:
        tables += [
            accuracy_table(
                data,
                variants,
                task,
                "token_accuracy",
                f"{task.capitalize()}: token accuracy by length",
                "Trained on lengths 1..n; columns past (n) are longer than any training sequence.",
            ),
            accuracy_table(
                data, variants, task, "sequence_accuracy", f"{task.capitalize()}: whole answers right by length", ""
            ),
        ]
    body = [budget_table(data, variants, HEADLINE)] + [t for t in tables if t is not None]
    body[-1] = _with_lines(body[-1], _not_learned(data, variants, s))
    return Report(title(suite, "Recall, copying and length generalisation", first), files=figures).add(
        _setup(df, first, s, seeds),
        body[0],
        _figures(figures),
        *body[1:],
        section(
            "Against the published findings",
            [f"- {c.source}: {c.published}" for c in suite.claims]
            + [""]
            + [f"- {sentence}" for sentence in sentences(judge_all(suite, df))]
            + [""],
        ),
        _not_finished(data),
    )


def index_section(frames: Mapping[str, pd.DataFrame], reports_dir: Path) -> list[str]:
    """The index's "Recall against memory" section (memory_view.py), which the index reads from this module."""
    return memory_section(frames, reports_dir)


def _setup(df: pd.DataFrame, first, s, seeds: list[int]) -> Section:
    lines = [
        f"- Models: the Transformer (Pre-LN, d_model {s['d_model']}, {s['n_layers']} blocks, {s['n_heads']} heads) with "
        "no position encoding (`none`), RoPE, ALiBi or T5's bucketed bias; a "
        f"{s['n_layers']}-layer LSTM; {s['n_layers']} Pre-LN blocks of minGRU or of causal linear attention (elu+1 "
        "features, no position encoding) each with a GELU FFN. The other families' widths are matched to the "
        f"Transformer's parameter count (table below). The Transformer and the mixer LMs are {_initialised(s)}; the "
        "LSTM keeps PyTorch's (U(±1/sqrt(width)) weights, its own untied output layer), with embeddings from "
        "U(-0.1, 0.1) and forget-gate biases at 1.",
        f"- Training: per task one model from the seed, {s['steps']} AdamW steps of {s['batch_size']} sequences, lr "
        f"{s['lr']:g} (warm-up {s['warmup_steps']}, cosine decay), clipping {s['grad_clip']:g}, weight decay "
        f"{s['weight_decay']:g}; each batch draws one size uniformly from 1..n; the loss is on answer tokens only."
        + _sweep_sentence(s),
        f"- Tasks: MQAR with {s['mqar_keys']} keys and {s['mqar_values']} values, trained on 1..{max(s['mqar_kv'])} pairs; "
        f"copy (alphabet {s['copy_alphabet']}, n = {s['copy_len']}), reverse (digits, n = {s['reverse_len']}), addition "
        f"(n = {s['addition_len']} digits per operand, least-significant digit first), each scored at "
        f"{', '.join(f'{f:g}' for f in s['length_factors'])} x n on {s['eval_sequences']} held-out sequences per size. "
        "Chance is the best guess that does not read the prompt (the most frequent token at each answer position); "
        "a sequence counts as right when all its answer tokens are, which under teacher forcing is exactly greedy "
        "decoding writing the whole answer.",
        f"- A task counts as learned in distribution at token accuracy >= {s['learned_accuracy']:g} at n (mean over "
        "seeds); a difference counts when its paired 95% interval over seeds excludes 0 (one seed: no verdict).",
        f"- Profile `{first.profile}`, seeds {seeds}; device {first.device} ({first.device_name}), torch "
        f"{first.torch_version}, {first.get('num_threads')} threads; {code_line(df)}.",
        "",
    ]
    return section("Setup", lines, BOOKKEEPING)


def _figures(figures: list[Path]) -> Section:
    """The figures' links, and where the index draws the recall-memory figure beside the kv_cache suite's."""
    lines = [f"![{p.stem}](figures/{p.name})" for p in figures] + [""]
    if any(p.name == "recall_memory.png" for p in figures):
        lines += [
            "The index (index.md, Recall against memory) draws this figure beside the kv_cache suite's measured "
            "decode step against context.",
            "",
        ]
    return section("Figures", lines, FIGURE if figures else BODY)


def _not_learned(data: pd.DataFrame, variants: list[str], s) -> list[str]:
    """The paragraph naming the tasks a variant did not learn in distribution (none where every one did)."""
    not_learned = [
        f"`{v}` on {t}"
        for t in ("mqar", *LENGTH_TASKS)
        for v in variants
        if learned(data, v, t, s["learned_accuracy"]) is False
    ]
    if not not_learned:
        return []
    return [
        "Not learned in distribution (token accuracy at n below "
        f"{s['learned_accuracy']:g}): "
        + ", ".join(not_learned)
        + ". The position arms among these on copy, reverse and addition are left out of the verdict on "
        "position encodings and length generalisation (a model that cannot do a task at the lengths it was "
        "trained on says nothing about longer ones).",
        "",
    ]


def _with_lines(part: Section, lines: list[str]) -> Section:
    """``part`` with ``lines`` after its own."""
    return Section(part.heading, (*part.lines, *lines), part.kind) if lines else part


def _not_finished(data: pd.DataFrame) -> Section | None:
    notes = status_notes(
        data,
        lambda r: f"- `{r.variant}` seed {r.seed}, {r.task}: {r.status}: {r.reason}",
        keys=("variant", "seed", "task", "status"),
    )
    return section("Runs that did not finish", notes + [""], BOOKKEEPING) if notes else None


def _initialised(s) -> str:
    """How the Transformer and mixer LMs of these records were initialised (suite version 1 records lack the fields)."""
    scheme = s.get("init", "gpt2")
    drawn = {"gpt2": "initialised at GPT-2's N(0, 0.02)", "fan_in": "initialised at fan-in scale, N(0, 1/fan_in)"}
    tied = "tied" if s.get("tie_embeddings", True) else "untied"
    return f"{drawn.get(scheme, f'initialised by {scheme!r}')}, their output layers {tied} to the token embedding"


def _sweep_sentence(s) -> str:
    """How MQAR's learning rate was chosen, where the profile sweeps it."""
    rates = s.get("mqar_learning_rates") or []
    if not rates:
        return ""
    return (
        f" MQAR's model trains at each of the learning rates {', '.join(f'{r:g}' for r in rates)} (the lr above is "
        "the other tasks'), and each variant keeps the rate that scores best on validation sequences (table below)."
    )
