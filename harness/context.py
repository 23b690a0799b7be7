"""What a running job may know about where it runs: device, dtype, progress and scratch values."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional

import torch


@dataclass
class JobContext:
    """Handed to ``Suite.run_job``: where to run and a place to report job-level facts.

    ``facts`` collects values every record of the job should carry (parameter count, training
    settings actually used); the runner copies them into each record.
    """

    device: str = "cpu"
    dtype: torch.dtype = torch.float32
    progress: bool = True
    label: str = ""
    options: Dict[str, Any] = field(default_factory=dict)
    facts: Dict[str, Any] = field(default_factory=dict)
    seed: Optional[int] = None
    #: a folder next to the stored results where a job may keep trained weights for other jobs of the same
    #: training to reuse (suites/_checkpoints.py); None keeps nothing
    checkpoint_dir: Optional[Path] = None
