"""Record groups: what may be reported together, newest first, how a group is chosen, and its code line."""

import pandas as pd
import pytest

from harness.errors import UsageError
from harness.groups import code_line, describe, group_key, select, selection, split_groups

QUICK = {"steps": 10, "lr": 0.003, "train_len": 8}
STANDARD = {"steps": 1000, "lr": 0.003, "train_len": 64}


def record(
    variant="rope",
    seed=0,
    profile="quick",
    settings=None,
    device="cpu",
    dtype="float32",
    version=1,
    data="1a2b3c4d5e6f",
    stamp="2026-11-30T22:40:00+00:00",
    commit="0123abcd4567",
    dirty=False,
    **kw,
):
    return {
        "suite": "s",
        "suite_version": version,
        "variant": variant,
        "seed": seed,
        "profile": profile,
        "profile_settings": dict(QUICK if settings is None else settings),
        "device": device,
        "dtype": dtype,
        "data_checksum": data,
        "timestamp": stamp,
        "git_commit": commit,
        "git_dirty": dirty,
        "metric": "loss",
        "value": 1.0,
        "status": "ok",
        **kw,
    }


def test_two_profiles_are_two_groups_newest_first():
    groups = split_groups(
        [
            record(profile="standard", settings=STANDARD, stamp="2026-11-30T10:00:00+00:00"),
            record(profile="quick", stamp="2026-11-30T22:40:00+00:00"),
            record(profile="standard", settings=STANDARD, seed=1, stamp="2026-11-30T11:00:00+00:00"),
        ]
    )
    assert [g.key.profile for g in groups] == ["quick", "standard"]
    assert [len(g.frame) for g in groups] == [1, 2]
    assert set(groups[1].frame.profile) == {"standard"}


def test_a_dataframe_splits_like_a_list_and_newest_is_by_the_newest_record():
    frame = pd.DataFrame(
        [
            record(profile="quick", stamp="2026-11-01T00:00:00+00:00"),
            record(profile="standard", settings=STANDARD, stamp="2026-11-02T00:00:00+00:00"),
            record(profile="quick", stamp="2026-11-03T00:00:00+00:00"),
        ]
    )
    assert [g.key.profile for g in split_groups(frame)] == ["quick", "standard"]


def test_cpu_and_cuda_split_but_two_cuda_cards_do_not():
    groups = split_groups(
        [record(device="cpu"), record(device="cuda:0"), record(device="cuda:1"), record(device="cuda")]
    )
    assert sorted(g.key.device for g in groups) == ["cpu", "cuda"]
    assert {g.key.device: len(g.frame) for g in groups}["cuda"] == 3


@pytest.mark.parametrize(
    "change", [{"dtype": "bfloat16"}, {"version": 2}, {"data": "ffff0000"}, {"settings": {**QUICK, "steps": 11}}]
)
def test_every_key_of_a_group_splits(change):
    assert len(split_groups([record(), record(**change)])) == 2


def test_seeds_and_variants_of_one_run_are_one_group():
    records = [record(variant=v, seed=s) for v in ("rope", "alibi", "none") for s in (0, 1, 2)]
    groups = split_groups(records)
    assert len(groups) == 1 and len(groups[0].frame) == 9
    assert "3 variants x 3 seeds, 9 records" in describe(groups[0])


def test_settings_in_another_key_order_are_the_same_group():
    reordered = dict(reversed(list(QUICK.items())))
    assert list(reordered) != list(QUICK)
    assert group_key(record(settings=QUICK)) == group_key(record(settings=reordered))
    assert len(split_groups([record(settings=QUICK), record(settings=reordered)])) == 1


def test_describe_names_profile_device_dtype_version_data_and_time():
    line = describe(split_groups([record()])[0])
    assert line == "profile=quick cpu float32 v1 data 1a2b3c4d (1 variant x 1 seed, 1 record, 2026-11-30 22:40)"


def test_describe_shows_the_settings_that_tell_same_named_profiles_apart():
    groups = split_groups([record(settings={**QUICK, "steps": 100}, stamp="2026-12-01T00:00:00+00:00"), record()])
    assert "profile=quick steps=100 cpu" in describe(groups[0], groups)
    assert "profile=quick steps=10 cpu" in describe(groups[1], groups)


def test_select_picks_the_newest_match_and_names_bad_values():
    groups = split_groups(
        [
            record(profile="standard", settings=STANDARD, stamp="2026-11-30T10:00:00+00:00"),
            record(profile="quick", stamp="2026-11-30T22:40:00+00:00"),
        ]
    )
    assert select(groups, "s", {}).key.profile == "quick"
    assert select(groups, "s", {"profile": "standard"}).key.profile == "standard"
    assert select(groups, "s", {"data": "1a2b", "device": "cpu"}).key.profile == "quick"
    assert select(groups, "s", {"set.steps": 1000}).key.profile == "standard"
    with pytest.raises(UsageError, match=r"No s results have profile=huge; present: quick, standard\."):
        select(groups, "s", {"profile": "huge"})
    with pytest.raises(UsageError, match="device=cuda; present: cpu"):
        select(groups, "s", {"device": "cuda"})
    with pytest.raises(UsageError, match="no setting 'stepz'"):
        select(groups, "s", {"set.stepz": 3})


def test_selection_is_a_few_keys_that_reach_each_group():
    groups = split_groups(
        [
            record(profile="quick", stamp="2026-12-03T00:00:00+00:00"),
            record(profile="standard", settings=STANDARD, stamp="2026-12-02T00:00:00+00:00"),
            record(profile="quick", device="cuda", stamp="2026-12-01T00:00:00+00:00"),
            record(profile="quick", settings={**QUICK, "steps": 100}, stamp="2026-11-30T00:00:00+00:00"),
        ]
    )
    keys = [selection(g, groups) for g in groups]
    assert keys == [{}, {"profile": "standard"}, {"device": "cuda"}, {"set.steps": "100"}]
    for group, wanted in zip(groups, keys):
        assert select(groups, "s", wanted) is group


def test_code_line_of_one_commit():
    assert code_line(pd.DataFrame([record(), record(seed=1)])) == "code 0123abcd45"
    assert code_line(pd.DataFrame([record(), record(seed=1, dirty=True)])) == "code 0123abcd45 (dirty tree)"


def test_code_line_of_two_commits_newest_first():
    frame = pd.DataFrame(
        [
            record(commit="89abcdef0123", stamp="2026-11-01T00:00:00+00:00", dirty=True),
            record(commit="0123abcd4567", stamp="2026-11-02T00:00:00+00:00"),
        ]
    )
    assert code_line(frame) == "code from 2 commits (0123abcd45, 89abcdef01; dirty tree in some)"
    assert code_line(frame.assign(git_dirty=False)) == "code from 2 commits (0123abcd45, 89abcdef01)"


def test_code_line_ignores_records_without_a_commit():
    assert code_line(pd.DataFrame([record(), record(commit=None)])) == "code 0123abcd45"
    assert code_line(pd.DataFrame([record(commit=None)])) == "code unknown"


def test_a_version_column_made_float_by_pandas_still_reads_v1():
    frame = pd.DataFrame([record(), {k: v for k, v in record(profile="other").items() if k != "suite_version"}])
    assert frame.suite_version.dtype == float
    groups = split_groups(frame)
    assert {g.key.suite_version for g in groups} == {1, None}
    assert "v1 " in describe([g for g in groups if g.key.profile == "quick"][0])


def test_a_list_setting_from_the_command_line_selects_its_group():
    from harness.groups import _same

    assert _same([512, 4096, 16384], ["512", "4096", "16384"])  # set.contexts=[512,4096,16384] parses to text
    assert _same((0.5, 1), ["0.5", "1.0"])
    assert not _same([512, 4096], ["512", "4096", "16384"]) and not _same([512, 4096], ["512", "8192"])
