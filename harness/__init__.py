"""The suite toolkit: what a suite is written with.

The contract a suite implements and its registry (``contract``), profiles and their settings (``suite_file``,
``rules``, ``overrides``, ``relations``, ``footprint``, ``arguments``), training and measuring (``train``,
``measure``, ``timing``, ``flops``, ``env``, ``cores``), records on disk and their groups (``records``, ``store``,
``locks``, ``atomic``, ``groups``), verdicts and statistics (``findings``, ``estimate``, ``paired``, ``intervals``,
``power``) and report helpers (``report``, ``report_kit``, ``figure_styles``, ``probes``).

Imports point one way: ``variants`` <- ``harness`` <- ``suites`` <- ``bench``. The harness imports neither
``suites`` nor ``bench`` (it finds suites through the registry in ``harness.contract``, which imports each package
of ``suites`` on first lookup); suites import no ``bench``; the program in ``bench`` reaches suites only through the
registry; no module imports a ``_private`` module of ``variants``; and no two modules of ``harness`` and ``bench``
import each other, directly or round a circle (tests/unit/test_import_direction.py checks each rule and shows that
each fails when broken).
"""
