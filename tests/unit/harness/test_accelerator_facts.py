"""What a record says ran beneath torch (harness/env.py): on a CPU every accelerator fact is None and nvidia-smi is
never asked; nvidia-smi's answer is read into whole MHz and a driver version, '[N/A]' as None; without nvidia-smi
nothing is read and nothing fails."""

import pytest

from harness import env
from harness.records import schema_problem


def test_on_a_cpu_every_accelerator_fact_is_none_and_nvidia_smi_is_not_asked(monkeypatch):
    monkeypatch.setattr(env.shutil, "which", lambda name: pytest.fail(f"asked for {name} on a CPU"))
    facts = env.accelerator_facts("cpu")
    assert set(facts) == {*env.SMI_FIELDS.values(), "float32_matmul_precision"}
    assert all(value is None for value in facts.values())
    assert env.sm_clock_mhz("cpu") is None


def test_a_cpu_records_provenance_that_the_record_schema_takes():
    record = {"metric": "loss", "status": "ok", "variant": "rope", **env.provenance("cpu")}
    assert schema_problem(record) is None
    assert record["accelerator"]["driver_version"] is None


def test_nvidia_smi_answers_are_read_as_whole_mhz_and_a_driver_version():
    assert env.parse_smi("550.54.15, 1980, 1980, 2619.0, 2619\n") == {
        "driver_version": "550.54.15",
        "sm_clock_mhz": 1980,
        "sm_clock_max_mhz": 1980,
        "memory_clock_mhz": 2619,
        "memory_clock_max_mhz": 2619,
    }
    partly = env.parse_smi("550.54.15, [N/A], 1980, [Not Supported], 2619")
    assert partly["sm_clock_mhz"] is None and partly["memory_clock_mhz"] is None and partly["sm_clock_max_mhz"] == 1980


@pytest.mark.parametrize("answer", ["", "550.54.15, 1980", "No devices were found"])
def test_an_answer_that_is_not_one_line_of_every_field_reads_as_nothing(answer):
    assert env.parse_smi(answer) == {}


def test_without_nvidia_smi_nothing_is_read(monkeypatch):
    monkeypatch.setattr(env.shutil, "which", lambda name: None)
    assert env.nvidia_smi("0") == {}
