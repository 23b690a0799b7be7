"""The typed configuration of ``bench run`` and its parsing from ``key=value`` arguments (OmegaConf)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from harness.errors import UsageError
from variants._registry import close_matches

LIST_KEYS = ("variants", "seeds")


@dataclass
class RunConfig:
    """Everything ``bench run`` accepts; unset values fall back to the suite's and profile's defaults."""

    suite: str = "position_extrapolation"
    variants: Optional[List[str]] = None
    profile: Optional[str] = None
    seeds: Optional[List[int]] = None
    device: str = "auto"
    dtype: str = "float32"
    dry_run: bool = False
    data: Optional[str] = None
    protocol: Optional[str] = None
    results_dir: str = "results"
    reports_dir: str = "reports"
    progress: bool = True
    #: where jobs run: local (this process) or submitit (SLURM, or local subprocesses)
    executor: str = "local"
    #: submitit parameters, written ``submitit.timeout_min=120 submitit.slurm_partition=gpu``
    submitit: Dict[str, Any] = field(default_factory=dict)
    #: profile overrides, written ``set.steps=100``
    set: Dict[str, Any] = field(default_factory=dict)


@dataclass
class ReportConfig:
    """What ``bench report`` accepts."""

    suite: Optional[str] = None
    results_dir: str = "results"
    reports_dir: str = "reports"
    #: which group of records to report (harness/groups.py); unset keys match any, and the newest match wins
    profile: Optional[str] = None
    device: Optional[str] = None
    dtype: Optional[str] = None
    suite_version: Optional[int] = None
    #: a prefix of the data checksum
    data: Optional[str] = None
    #: one profile setting, written ``set.steps=100``, for runs that differ only by overrides
    set: Dict[str, Any] = field(default_factory=dict)

    def selection(self) -> Dict[str, Any]:
        """The group keys given, ``set.FIELD`` included."""
        keys = {"profile": self.profile, "device": self.device, "dtype": self.dtype,
                "suite_version": self.suite_version, "data": self.data}
        keys.update({f"set.{name}": value for name, value in self.set.items()})
        return {k: v for k, v in keys.items() if v is not None}


def parse(args: List[str], schema: type) -> Any:
    """Parse ``key=value`` arguments onto ``schema``; every mistake is a UsageError with a suggestion."""
    keys = [f.name for f in dataclasses.fields(schema)]
    for arg in args:
        if "=" not in arg:
            raise UsageError(f"Argument '{arg}' is not key=value; valid keys: {', '.join(keys)}.")
        key, value = arg.split("=", 1)
        top = key.split(".", 1)[0]
        if top not in keys:
            matches = close_matches(top, keys)
            hint = f" Did you mean '{matches[0]}'?" if matches else ""
            raise UsageError(f"Unknown option '{key}'.{hint} Valid keys: {', '.join(keys)}.")
        if top in LIST_KEYS and "," in value and not value.lstrip().startswith("["):
            raise UsageError(f"Write lists in brackets: {top}=[{value}] instead of {top}={value}.")
    try:
        given = OmegaConf.from_dotlist([_listify(a) for a in args])
        merged = OmegaConf.merge(OmegaConf.structured(schema), given)
    except OmegaConfBaseException as exc:
        raise UsageError(f"Bad option: {_first_line(exc)}") from None
    return OmegaConf.to_object(merged)


def _listify(arg: str) -> str:
    """``variants=rope`` means ``variants=[rope]``: a single list item may omit the brackets."""
    key, value = arg.split("=", 1)
    if key in LIST_KEYS and not value.lstrip().startswith("["):
        return f"{key}=[{value}]"
    return arg


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
