"""Made-up records, as a suite's jobs store them, for the tests of what bench builds from records (the notebook API,
the index, the README's findings): the fields every record carries written once, each test naming what it varies."""

#: when every made-up record was written
STAMP = "2026-12-01T00:00:00+00:00"
#: what the records of a character LM say of its corpus (the bigram entropy: the bar a model that learned goes below)
CORPUS = dict(bigram_entropy=2.5, unigram_entropy=3.0, corpus="Test corpus")


def spec_of(variant, suite="position_extrapolation", **size) -> dict:
    """The spec ``suite`` gives ``variant`` at its quick profile, as a record stores it, with ``size`` changed."""
    from harness.contract import suites

    s = suites.get(suite)
    return {**s.spec_for(variant, s.profiles["quick"], {}).to_dict(), **size}


def record(suite, variant, seed, **fields) -> dict:
    """A record of the job ``variant``-s``seed`` of ``suite``: ok, no reason, no extra, version 2 at the quick profile, on
    device cpu named 'Test CPU' in float32, data checksum 'abc', written at STAMP, with spec_of's spec; ``fields`` add to
    these or replace them."""
    common = dict(
        suite=suite,
        suite_version=2,
        variant=variant,
        seed=seed,
        status="ok",
        reason=None,
        profile="quick",
        device="cpu",
        device_name="Test CPU",
        dtype="float32",
        data_checksum="abc",
        timestamp=STAMP,
        extra={},
    )
    if "spec" not in fields:
        common["spec"] = spec_of(variant, suite)
    return {**common, **fields}
