"""The typed configuration of ``bench run`` and ``bench report`` and its parsing from ``key=value`` arguments.

Each value is converted to its field's type here (no YAML guessing, no ``${...}`` interpolation) and
checked against the field's rule (harness/rules.py): whole numbers, lists in brackets, known devices,
folders that can be written. Every mistake is a UsageError of one sentence that names the key, the bad
value and what the key takes, raised before any data is read or any model is built.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.arguments import any_value, check_text, convert, scalar, split_argument  # noqa: F401  (read through this module too)
from harness.errors import UsageError
from harness.rules import Rule, between, rule_for, shape_of, show, value_problem

LIST_KEYS = ("variants", "seeds")
#: the largest seed: suites add offsets of at most 20000 and torch and numpy take 32-bit seeds
MAX_SEED = 2**31 - 1


def writable_folder(key: str, value: str) -> str | None:
    """Why ``value`` cannot be (created as) a folder this process writes into, or None.

    Checked by creating and removing a temporary folder inside it (or inside its nearest existing
    parent), which is what a later save does; nothing is left behind.
    """
    path = Path(value).expanduser()
    example = f"{key}={'reports' if key == 'reports_dir' else 'results'}"
    try:
        path.resolve()
    except (RuntimeError, OSError):  # RuntimeError before Python 3.13, OSError (ELOOP) after
        return f"{key}={show(value)} is a loop of symbolic links, no folder; give a real folder, e.g. {example}."
    too_long = name_too_long(path)
    if too_long:
        return f"{key}={show(value)} {too_long}; give a shorter folder name, e.g. {example}."
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        what = "is a file" if existing == path else f"lies under the file {existing}"
        return f"{key}={show(value)} {what}, not a folder; give a folder that can be written, e.g. {example}."
    try:
        probe = tempfile.mkdtemp(prefix=".bench-write-check-", dir=existing)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        where = "in it" if existing == path else f"in {existing}, where it would be created"
        return f"{key}={show(value)} cannot be written ({reason} {where}); give a folder that can be written, e.g. {example}."
    try:
        os.rmdir(probe)
    except OSError:  # the folder was written; another process of the same sweep may have tidied the probe away first
        pass
    return None


#: the longest file name below a results folder (``<variant>-s<seed>-<hash>.jsonl``'s room is left to the variant)
NAME_MAX_FALLBACK, PATH_MAX_FALLBACK = 255, 4096


def name_too_long(path: Path) -> str | None:
    """Why the file system cannot hold ``path`` (a part longer than its names may be, or the whole path too
    long), or None; asked of the nearest existing folder, before anything is created."""
    existing = Path(path).absolute()
    while existing != existing.parent:
        try:
            if existing.exists():
                break
        except OSError:  # the name itself is too long to ask about
            pass
        existing = existing.parent
    try:
        name_max = os.pathconf(existing, "PC_NAME_MAX")
        path_max = os.pathconf(existing, "PC_PATH_MAX")
    except (OSError, ValueError):
        name_max, path_max = NAME_MAX_FALLBACK, PATH_MAX_FALLBACK
    for part in Path(path).parts:
        if len(os.fsencode(part)) > name_max:
            return f"has a name of {len(os.fsencode(part))} bytes, and this file system takes at most {name_max}"
    # the store adds <suite>/<variant>-s<seed>-<hash>.jsonl below it: leave room for that
    if len(os.fsencode(str(Path(path).absolute()))) + 200 > path_max:
        return f"is too long a path for this file system (at most {path_max} bytes with the files stored below it)"
    return None


def readable_folder(key: str, value: str) -> str | None:
    """Why ``value`` cannot be a results folder to read (a name the file system refuses, a file), or None; a
    folder that does not exist yet is the reader's to report (it holds no results)."""
    path = Path(value).expanduser()
    too_long = name_too_long(path)
    if too_long:
        return f"{key}={show(value)} {too_long}; give the folder a run wrote its records to, e.g. {key}=results."
    try:
        if path.exists() and not path.is_dir():
            return f"{key}={show(value)} is a file, not a folder; give the folder a run wrote its records to, e.g. {key}=results."
    except OSError as exc:
        return (
            f"{key}={show(value)} cannot be read ({exc.strerror or exc}); give a folder of records, e.g. {key}=results."
        )
    return None


DEVICES = "auto, cpu, cuda or cuda:N (N below the number of CUDA devices torch sees)"


def usable_device(key: str, value: str) -> str | None:
    """Why ``value`` is not a device this machine has, or None (``cuda:N`` is checked against the devices present)."""
    if value in ("auto", "cpu"):
        return None
    match = re.fullmatch(r"cuda(?::(\d+))?", value)
    if match is None:
        return f"Unknown device '{show(value)}' ({key}); choose {DEVICES}."
    import torch

    if not torch.cuda.is_available():
        return f"{key}={value} was asked for but torch sees no CUDA device; use {key}=cpu or {key}=auto."
    count = torch.cuda.device_count()
    if match.group(1) is not None and int(match.group(1)) >= count:
        return (
            f"{key}={value} names a CUDA device torch does not see; it sees {count} "
            f"(cuda:0{f' to cuda:{count - 1}' if count > 1 else ''})."
        )
    return None


def well_formed_variants(key: str, value: list[str]) -> str | None:
    """Why one of the variants is malformed ('rope+', '+alibi'), or None; its presets are checked at planning."""
    for variant in value:
        if any(not preset.strip() for preset in variant.split("+")):
            return (
                f"{key}={show(value)} has the expression '{show(variant)}' with an empty part; join preset names "
                f"with '+', e.g. {key}=[alibi+sdpa]."
            )
    return None


@dataclass
class RunConfig:
    """Everything ``bench run`` accepts; unset values fall back to the suite's and profile's defaults."""

    suite: str = "position_extrapolation"
    variants: list[str] | None = None
    profile: str | None = None
    seeds: list[int] | None = None
    device: str = "auto"
    #: auto: bfloat16 autocast for a training suite that takes it on CUDA, else float32 (bench/run/plan.py)
    dtype: str = "auto"
    dry_run: bool = False
    #: exit 0, not 3, when some variants asked for cannot run here (bench/run/runner.py exit_status)
    allow_skips: bool = False
    data: str | None = None
    protocol: str | None = None
    #: hf:PATH, a local Hugging Face config.json whose shapes a cost suite measures (suite=kv_cache)
    model: str | None = None
    #: also log each job that ran to an experiment tracker (bench/run/trackers.py)
    tracker: str | None = None
    results_dir: str = "results"
    reports_dir: str = "reports"
    progress: bool = True
    #: after the run, rebuild the report of the group this run wrote (its profile, device, dtype and data), no other
    report: bool = False
    #: train nothing: take the contended timings of this plan's stored jobs again, alone (bench/run/retime.py)
    retime: bool = False
    #: local processes sharing the sweep, each with cores // workers intra-op threads (bench/run/workers.py)
    workers: int = 1
    #: where jobs run: local (this process) or submitit (SLURM, or local subprocesses)
    executor: str = "local"
    #: submitit parameters, written ``submitit.timeout_min=120 submitit.slurm_partition=gpu``
    submitit: dict[str, Any] = field(default_factory=dict)
    #: profile overrides, written ``set.steps=100``; typed against the profile's fields (bench/run/plan.py)
    set: dict[str, str] = field(default_factory=dict)

    rules = {
        "seeds": between(0, MAX_SEED),
        "workers": between(1, 64),
        "variants": Rule(check=well_formed_variants),
        "device": Rule(check=usable_device),
        "results_dir": Rule(check=writable_folder),
        "reports_dir": Rule(check=writable_folder),
        "tracker": Rule(choices=("tensorboard", "mlflow", "wandb")),
    }


@dataclass
class GroupSelection:
    """Which group of records a command reads (harness/groups.py); unset keys match any, and the newest match wins."""

    profile: str | None = None
    device: str | None = None
    dtype: str | None = None
    suite_version: int | None = None
    #: a prefix of the data checksum
    data: str | None = None
    #: one profile setting, written ``set.steps=100``, for runs that differ only by overrides
    set: dict[str, Any] = field(default_factory=dict)

    def selection(self) -> dict[str, Any]:
        """The group keys given, ``set.FIELD`` included."""
        keys = {
            "profile": self.profile,
            "device": self.device,
            "dtype": self.dtype,
            "suite_version": self.suite_version,
            "data": self.data,
        }
        keys.update({f"set.{name}": value for name, value in self.set.items()})
        return {k: v for k, v in keys.items() if v is not None}


@dataclass
class ReportConfig(GroupSelection):
    """What ``bench report`` accepts."""

    suite: str | None = None
    results_dir: str = "results"
    reports_dir: str = "reports"
    #: false: write the suite reports only, not the support matrix and index (a second group's report in its own folder)
    index: bool = True

    rules = {"reports_dir": Rule(check=writable_folder), "results_dir": Rule(check=readable_folder)}


@dataclass
class ExportConfig(GroupSelection):
    """What ``bench export`` accepts: one trained model of a stored run, by suite, variant and seed."""

    suite: str = "position_extrapolation"
    variant: str | None = None
    seed: int = 0
    results_dir: str = "results"
    #: the checkpoint's folder (default exports/<suite>/<variant>-s<seed>)
    out: str | None = None

    rules = {
        "results_dir": Rule(check=readable_folder),
        "out": Rule(check=writable_folder),
        "seed": Rule(low=0, high=MAX_SEED),
    }


def parse(args: list[str], schema: type) -> Any:
    """Parse ``key=value`` arguments onto the dataclass ``schema`` and check every field against its rule.

    Every mistake is a UsageError of one sentence naming the key: an unknown key (with a suggestion), a
    control character, ``${...}`` interpolation, a value of the wrong type, an unclosed list, ``set=5``
    for a key that takes ``set.FIELD=VALUE``, and any value outside its rule. A key given twice keeps its
    last value, so that a script can append overrides.
    """
    fields = {f.name: f for f in dataclasses.fields(schema)}
    hints = typing.get_type_hints(schema)
    values: dict[str, Any] = {}
    for arg in args:
        key, raw = split_argument(arg, list(fields))
        top, dot, sub = key.partition(".")
        shape = shape_of(hints[top])
        if shape.is_dict:
            if not dot:
                raise UsageError(
                    f"{top}={show(raw)} is not a setting; {top} takes one FIELD=VALUE per argument, "
                    f"written {top}.FIELD=VALUE (e.g. {'set.steps=100' if top == 'set' else top + '.timeout_min=60'})."
                )
            if not sub or "." in sub:
                raise UsageError(
                    f"{key}={show(raw)} is not {top}.FIELD=VALUE with one field name; e.g. "
                    f"{'set.steps=100' if top == 'set' else top + '.timeout_min=60'}."
                )
            inner = typing.get_args(hints[top])
            kind = inner[1] if len(inner) == 2 else Any
            values.setdefault(top, {})[sub] = raw if kind is str else any_value(key, raw)
            continue
        if dot:
            raise UsageError(f"{top} has no sub-keys; write {top}=VALUE, not {key}={show(raw)}.")
        rule = rule_for(schema, top)
        if top in LIST_KEYS and "," in raw and not raw.lstrip().startswith("["):
            raise UsageError(f"Write lists in brackets: {top}=[{raw}] instead of {top}={raw}.")
        if top == "seeds" and re.fullmatch(r"\s*\d+\s*", raw):
            raise UsageError(_bare_seed_count(raw.strip()))
        values[top] = convert(top, raw, shape, rule, "Bad option")
    config = schema(**values)
    for name in fields:
        problem = _field_problem(config, name, hints)
        if problem:
            raise UsageError(problem)
    return config


def _bare_seed_count(text: str) -> str:
    """seeds=N without brackets: the one seed N, or N seeds? Both spellings, so the user picks."""
    n = int(text)
    if n == 0:
        return "seeds=0 is not a list of seeds; write seeds=[0] for the one seed 0."
    many = f"[{','.join(str(i) for i in range(n))}]" if n <= 5 else f"[0,1,...,{n - 1}]"
    count = "one seed" if n == 1 else f"{n} seeds"
    return (
        f"seeds={text} could mean the one seed {n} or {count}; write seeds=[{n}] for the one seed {n}, "
        f"or seeds={many} for {count}."
    )


def _field_problem(config: Any, name: str, hints: dict[str, Any]) -> str | None:
    return value_problem(name, getattr(config, name), shape_of(hints[name]), rule_for(type(config), name))
