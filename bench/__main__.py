"""``python -m bench``: the ``bench`` command."""

from bench.cli import main

raise SystemExit(main())
