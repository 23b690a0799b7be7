"""A report section of one table, as a typed Section (harness/report_sections.py): what harness/report_kit.py's
``table_section`` writes as lines ('## heading', a note, the rows as a Markdown table, or a sentence when none)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from harness.report_kit import markdown_table
from harness.report_sections import BODY, Section, section


def table_section(
    heading: str, note: str, rows: list[dict], empty: str, kind: str = BODY, after: Sequence[str] = ()
) -> Section:
    """The section ``heading`` of ``kind``: ``note`` (left out when empty), the rows as a Markdown table (``empty``
    when none), then the lines ``after`` it."""
    return section(
        heading,
        ([note, ""] if note else []) + [markdown_table(pd.DataFrame(rows)) if rows else empty, ""] + list(after),
        kind,
    )
