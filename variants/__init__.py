"""What is compared: architecture specs, presets and the components they name.

This package imports nothing else of the project (harness and suites import it, never the reverse).
Modules whose names start with an underscore are its inside; what other packages use is re-exported
here and in each component package (``from variants.kernel import kernels``), so a suite or the harness
never imports a ``_private`` module (tests/unit/test_import_direction.py checks both rules).
"""

from ._registry import (
    PLUGIN_GROUP,
    DuplicateNameError,
    Registry,
    UnknownNameError,
    close_matches,
    import_submodules,
    import_subpackages,
    plugin_statuses,
)
from .errors import UserError

__all__ = [
    "PLUGIN_GROUP",
    "DuplicateNameError",
    "Registry",
    "UnknownNameError",
    "UserError",
    "close_matches",
    "import_subpackages",
    "import_submodules",
    "plugin_statuses",
]
