"""The scaling suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job (a variant at one rung) runs;
- ``ladder``: the rungs and each rung's model and budget;
- ``fit``: the law per variant on the runs' final losses, behind its gate, with profile-likelihood intervals;
- ``multipliers``: each variant's compute multiplier per rung from the paired per-rung difference;
- ``claims``: one module per claim, each judged at every rung; ``report``: the report; ``figures``: its figures.
"""

from suites.scaling.suite import Scaling  # registers the suite

__all__ = ["Scaling"]
