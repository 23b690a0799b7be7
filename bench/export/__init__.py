"""Trained models written in other libraries' formats (``bench export``)."""
