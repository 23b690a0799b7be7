"""What a suite measures (Metric) and the compute budget a run gives it (Profile): the ground floor of the suite
contract (harness/contract.py), which the suite file (harness/suite_file.py) and ``set.FIELD=value`` overrides
(harness/overrides.py) build on.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from harness.errors import UsageError
from harness.rules import between, check_fields, limit_problems


@dataclass(frozen=True)
class Metric:
    """A measured quantity: its unit and whether higher is better."""

    name: str
    unit: str
    #: None: no better direction (an attention entropy, a share, a gradient norm): compared, never ranked
    higher_is_better: bool | None
    description: str = ""


@dataclass(frozen=True)
class Profile:
    """A compute budget. Suites subclass it with their own typed fields (steps, sizes, ...)."""

    name: str = "quick"
    description: str = ""
    seeds: tuple[int, ...] = (0,)
    #: train through torch.compile (``set.compile=true``; harness/train.py): every training of the job runs the
    #: compiled model. Its numbers differ from eager ones, so it is part of the job's identity when true
    compile: bool = False
    #: compile with CUDA-graph capture (``set.cuda_graphs=true``, torch.compile mode "reduce-overhead"): each
    #: training step's forward and backward replay as one graph launch each, for fixed shapes on a CUDA device
    cuda_graphs: bool = False

    #: what each field accepts beyond its type's default rule (harness/rules.py: int >= 1, float > 0,
    #: non-empty text, non-empty lists of distinct items); subclasses declare only their exceptions
    rules = {"seeds": between(0, 2**31 - 1)}
    #: settings added after records were stored, each with the value every earlier record ran with: left out
    #: of ``settings()`` while at that value, so those records keep their identity (job hash, report group);
    #: subclasses extend it
    added_later = {"compile": False, "cuda_graphs": False}
    #: settings bounded by another setting, each with the reason: {"map_len": ("train_len", "why")}, checked by
    #: ``problems`` (harness/rules.py: limit_problems); subclasses declare their own, merged as ``rules`` are
    limits: ClassVar[dict[str, tuple[str, str]]] = {}

    def check(self) -> None:
        """Raise a UsageError naming the first setting outside its rule, or the first broken relation between settings."""
        check_fields(self)
        for problem in self.problems():
            raise UsageError(problem)

    def problems(self) -> list[str]:
        """Relations between settings that this profile breaks, one sentence each naming the settings: here the
        ``limits``; subclasses add their own and extend ``super().problems()``."""
        return limit_problems(self)

    def settings(self) -> dict[str, Any]:
        """The fields that change a job's results (not its name, description or the list of seeds)."""
        values = dataclasses.asdict(self)
        for key in ("name", "description", "seeds"):
            values.pop(key)
        for key, before in self.added_later.items():
            if key in values and values[key] == before:
                values.pop(key)
        return values
