"""Every refusal of ``bench run``, in the order a run meets them, each one sentence and exit status 2 before any
compute (the run's records are untouched).

1. Each ``key=value`` alone (bench/config.py ``parse``): a known key, a value of its type within its rule
   (harness/rules.py), a folder that can be written, a known device.
2. The request as a whole against its suite (``check_request``, here): the profile, the dtype, the suite's data and
   protocol options, the executor with its submitit parameters and ``workers``, the device, and each
   ``set.FIELD=value`` (harness/overrides.py: a setting of the profile, of the field's type).
3. The profile as a whole (``check_profile``, here, when the plan is made): the relations between settings every
   profile obeys (harness/relations.py), the suite's own check of its settings and data (``Suite.check``), CUDA
   graphs only on a CUDA device, and the memory a job would need (harness/footprint.py).
4. Each variant (``check_variant``, here): its presets resolve on the suite's base spec (an unknown or conflicting
   preset is refused by ``Suite.spec_for``), and its sliding window fits the longest sequence a job feeds it.

What a machine or a suite's measurement cannot do with a valid variant is no refusal but a skip with its reason
(bench/run/plan.py); a request none of whose jobs can run is refused there (``refuse_if_nothing_runs``).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from harness.contract import Profile, Suite
from harness.errors import UsageError

EXECUTORS = ("local", "submitit")

DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16, "float16": torch.float16}


def resolve_dtype(requested: str, suite: Suite, device: str) -> str:
    """``dtype=auto``: bfloat16 (autocast) for a suite that trains and computes in it on CUDA, else float32.

    On CPU auto is always float32, so CPU jobs keep their identity and numbers; an explicit dtype is kept.
    """
    if requested != "auto":
        return requested
    on_cuda = device.split(":")[0] == "cuda"
    return "bfloat16" if on_cuda and suite.trains and "bfloat16" in suite.dtypes else "float32"


@dataclass(frozen=True)
class Request:
    """A ``bench run`` request that passed ``check_request``: its suite, profile, options, device, dtype, seeds and
    variants resolved (``asked``: the variants were named, not the suite's default list)."""

    suite: Suite
    profile_name: str
    profile: Profile
    options: dict[str, Any]
    device: str
    dtype: str
    seeds: list[int]
    variants: list[str]
    asked: bool


def check_request(cfg) -> Request:
    """The request of a parsed RunConfig checked against its suite (step 2 above); a UsageError names the key, the
    bad value and the valid choices."""
    from harness.contract import suites
    from harness.env import resolve_device
    from harness.overrides import apply_overrides

    suite = suites.get(cfg.suite)  # an unknown suite: one sentence with close matches
    profile_name = cfg.profile or suite.default_profile
    if profile_name not in suite.profiles:
        raise UsageError(
            f"Unknown profile '{profile_name}' for suite {suite.name}; choose one of {', '.join(suite.profiles)}."
        )
    if cfg.dtype != "auto" and cfg.dtype not in suite.dtypes:
        what = (
            f"Suite {suite.name} does not compute in {cfg.dtype}"
            if cfg.dtype in DTYPES
            else f"Unknown dtype '{cfg.dtype}'"
        )
        raise UsageError(f"{what}; choose dtype={' or dtype='.join(suite.dtypes)}.")
    options = {"data": cfg.data, "protocol": cfg.protocol, "model": cfg.model}
    for key, value in options.items():
        allowed = suite.options.get(key, ()) if key in suite.options else ()
        if value is not None and key not in suite.options:
            raise UsageError(
                f"Suite {suite.name} takes no '{key}' option; its options: {', '.join(suite.options) or 'none'}."
            )
        if value is not None and allowed and value not in allowed:
            raise UsageError(f"Unknown {key} '{value}' for suite {suite.name}; choose one of {', '.join(allowed)}.")
    from bench.run.trackers import check as check_tracker

    check_tracker(cfg.tracker)  # its library present, before any compute
    if cfg.executor not in EXECUTORS:
        raise UsageError(f"Unknown executor '{cfg.executor}'; choose one of {', '.join(EXECUTORS)}.")
    if cfg.submitit and cfg.executor != "submitit":
        first = next(iter(cfg.submitit))
        raise UsageError(
            f"submitit.{first} is a submitit parameter, but executor={cfg.executor}; "
            f"add executor=submitit or leave the submitit.* options out."
        )
    if cfg.workers > 1 and cfg.executor != "local":
        raise UsageError(
            f"workers={cfg.workers} runs local processes, but executor={cfg.executor}; "
            f"give workers=1 or executor=local."
        )
    try:
        device = resolve_device(cfg.device)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    profile = suite.resolved_profile(apply_overrides(suite.profiles[profile_name], cfg.set), options)
    seeds = list(cfg.seeds) if cfg.seeds is not None else list(profile.seeds)
    variants = list(cfg.variants) if cfg.variants is not None else list(suite.variants_for(profile_name, options))
    variants = suite.expand_variants(variants, profile)
    if cfg.executor == "submitit":
        check_submitit(cfg.submitit, Path(cfg.results_dir))
    dtype = resolve_dtype(cfg.dtype, suite, device)
    return Request(suite, profile_name, profile, options, device, dtype, seeds, variants, cfg.variants is not None)


def check_profile(suite: Suite, profile: Profile, options: dict[str, Any], device: str) -> None:
    """The profile as a whole (step 3 above), before anything is built."""
    from harness.footprint import footprint_problem
    from harness.relations import relation_problems

    for problem in relation_problems(profile):  # the shape rules every suite shares (harness/relations.py)
        raise UsageError(problem)
    with reading_data(profile, options):
        suite.check(profile, options)  # every setting in range and the data large enough, before anything is built
    if getattr(profile, "cuda_graphs", False) and not device.startswith("cuda"):
        raise UsageError(
            f"set.cuda_graphs=true captures CUDA graphs, which need a CUDA device, and this run's device "
            f"is {device}; give device=cuda, or leave set.cuda_graphs=false."
        )
    try:
        base = suite.base_spec(profile, options)
    except NotImplementedError:  # a suite that resolves each variant its own way
        base = None
    too_big = footprint_problem(profile, base)
    if too_big:  # every job would fail allocating it, after the compute before it
        raise UsageError(too_big)


def check_variant(suite: Suite, profile: Profile, variant: str, spec) -> None:
    """One variant's spec (step 4 above): its sliding window within the longest sequence a job feeds it."""
    from harness.footprint import window_problem

    if window := window_problem(variant, spec, suite.longest_sequence(profile)):
        raise UsageError(window)


def submitit_folder(options: dict[str, Any], results_dir: Path) -> Path:
    """Where submitit keeps its pickles and logs: ``submitit.folder``, else ``<results_dir>/.submitit``."""
    return Path(str(options["folder"])).expanduser() if "folder" in options else Path(results_dir) / ".submitit"


def check_submitit(options: dict[str, Any], results_dir: Path) -> None:
    """Before any compute: the submitit package, its cluster and its folder, each one sentence when unusable.

    The folder holds the pickled jobs a cluster node unpickles and runs, so it is created private to the user
    (mode 0700), and one that others can write into is refused: whoever could replace a pickle there would run
    code as the user.
    """
    from bench.config import writable_folder

    try:
        import submitit  # noqa: F401
        from submitit.core.plugins import get_executors
    except ImportError:
        raise UsageError(
            "executor=submitit needs the submitit package; install it with `pip install submitit`."
        ) from None
    cluster = options.get("cluster")
    known = sorted(get_executors())
    if cluster is not None and str(cluster) not in known:
        raise UsageError(
            f"Unknown submitit.cluster={cluster}; choose one of {', '.join(known)} (or leave it out: "
            f"slurm where it is available, else local)."
        )
    folder = submitit_folder(options, results_dir)
    problem = writable_folder("submitit.folder", str(folder))
    if problem:
        raise UsageError(problem)
    if folder.exists():
        info = folder.stat()
        if info.st_uid != os.getuid():
            raise UsageError(
                f"submitit.folder={folder} belongs to another user (uid {info.st_uid}), and it holds the "
                f"pickled jobs that run as you; give a folder of your own."
            )
        if info.st_mode & 0o022:
            raise UsageError(
                f"submitit.folder={folder} can be written by other users (mode {oct(info.st_mode & 0o777)}), "
                f"and it holds the pickled jobs that run as you; make it private (chmod 700 {folder}) or "
                f"give another submitit.folder."
            )


@contextlib.contextmanager
def reading_data(profile: Profile, options: dict[str, Any]):
    """Turn a corpus that cannot be read (a damaged file or SWORD module, a path the file system refuses) into
    one sentence naming ``data`` (and ``SWORD_PATH`` when the path is under it), before any compute."""
    import zlib

    try:
        yield
    except (OSError, zlib.error, EOFError, UnicodeDecodeError) as exc:
        name = options.get("data") or getattr(profile, "data", None) or "the suite's default corpus"
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        sword = os.environ.get("SWORD_PATH")
        filename = str(getattr(exc, "filename", None) or "")
        if sword and (isinstance(exc, zlib.error) or filename.startswith(sword)):
            raise UsageError(
                f"data={name} reads the SWORD library SWORD_PATH={sword}, which cannot be read "
                f"({type(exc).__name__}: {detail}); reinstall the module or point SWORD_PATH at a "
                f"whole library."
            ) from None
        raise UsageError(
            f"data={name} cannot be read ({type(exc).__name__}: {detail}); check the file or module, "
            f"or give another data=."
        ) from None
