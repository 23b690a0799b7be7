"""Emptied: each suite's verdict tests now live beside its claims, one file per claim
(tests/unit/suites/<suite>/claims/test_<key>.py); position_extrapolation's were the last here."""
