"""The retrieval_length suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: profiles, metrics and how one job trains and scores;
- ``passkey``: the passkey sequences; ``scoring``: exact-match accuracy; ``effective``: RULER's effective length;
- ``claims``: its claims, one module per key of its suite.yaml (harness/claims.py);
- ``report``: the report (``tables``, ``figures``; ``index_view``: its section of the index).
"""

from suites.retrieval_length.suite import RetrievalLength  # registers the suite

__all__ = ["RetrievalLength"]
