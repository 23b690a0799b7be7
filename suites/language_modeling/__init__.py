"""The language_modeling suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``claims``: its claims, one module per key of its suite.yaml (harness/claims.py);
- ``report``: its report (the suite's report_module);
- ``figure``: the perplexity-against-parameters figure of the report.
"""

from suites.language_modeling.suite import LanguageModeling  # registers the suite

__all__ = ["LanguageModeling"]
