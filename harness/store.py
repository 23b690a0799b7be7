"""The results store: one JSON-lines file per job under results/<suite>/, written atomically.

A job's file is named by its content hash, so a sweep that is interrupted and restarted finds the jobs
it already finished and runs only the rest. Files are written to a temporary name and renamed, so a
crash never leaves half a file; a file that cannot be parsed is reported by name, never deleted.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional


class CorruptResultsError(ValueError):
    """A results file that is not valid JSON lines."""


class ResultsStore:
    """Reads and writes job records under a root folder (default ``results/``)."""

    def __init__(self, root: Path | str = "results") -> None:
        self.root = Path(root)

    def path_for(self, suite: str, job_hash: str, label: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in label)
        return self.root / suite / f"{safe}-{job_hash}.jsonl"

    def find(self, suite: str, job_hash: str) -> Optional[Path]:
        """The stored file of a job, or None."""
        matches = sorted((self.root / suite).glob(f"*-{job_hash}.jsonl"))
        return matches[0] if matches else None

    def write(self, suite: str, job_hash: str, label: str, records: Iterable[Dict[str, Any]]) -> Path:
        """Atomically write a job's records (replacing an earlier attempt of the same job)."""
        path = self.path_for(suite, job_hash, label)
        path.parent.mkdir(parents=True, exist_ok=True)
        old = self.find(suite, job_hash)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".jsonl")
        try:
            with os.fdopen(fd, "w") as fh:
                for record in records:
                    fh.write(json.dumps(record, sort_keys=True, default=str) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        if old is not None and old != path:
            old.unlink(missing_ok=True)
        return path

    def read_file(self, path: Path) -> List[Dict[str, Any]]:
        """The records of one file; a malformed line raises CorruptResultsError naming file and line."""
        records = []
        with open(path) as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise CorruptResultsError(
                        f"Results file {path} is corrupt at line {lineno} ({exc.msg}); move it aside or delete it "
                        f"to rerun that job (other results are untouched)."
                    ) from None
                if not isinstance(record, dict) or "metric" not in record or "status" not in record:
                    raise CorruptResultsError(f"Results file {path} line {lineno} is not a bench record; move it aside.")
                records.append(record)
        return records

    def files(self, suite: Optional[str] = None) -> List[Path]:
        base = self.root / suite if suite else self.root
        pattern = "*.jsonl" if suite else "*/*.jsonl"
        return sorted(p for p in base.glob(pattern) if not p.name.startswith(".tmp-"))

    def load(self, suite: Optional[str] = None) -> List[Dict[str, Any]]:
        """Every record of one suite (or of all suites)."""
        records: List[Dict[str, Any]] = []
        for path in self.files(suite):
            records.extend(self.read_file(path))
        return records

    def suites(self) -> List[str]:
        """Names of the suites that have stored results."""
        if not self.root.exists():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and any(p.glob("*.jsonl")))
