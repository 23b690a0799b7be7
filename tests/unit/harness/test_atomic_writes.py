"""Reports, figures and the README are written whole: a reader never sees part of one, even with two writers."""

import threading

import matplotlib

matplotlib.use("Agg")

from harness import atomic  # noqa: E402


def test_two_writers_and_a_reader_never_meet_a_partial_file(tmp_path):
    path = tmp_path / "report.md"
    texts = {"a" * 400_000, "b" * 400_000}
    atomic.write_text(path, "a" * 400_000)
    seen, stop = [], threading.Event()

    def write(text):
        for _ in range(40):
            atomic.write_text(path, text)

    def read():
        while not stop.is_set():
            seen.append(path.read_text())

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=write, args=(t,)) for t in sorted(texts)]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    stop.set()
    reader.join()
    assert seen and all(text in texts for text in seen)
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]  # no temporary file left behind


def test_a_figure_is_saved_in_its_suffix_format_and_a_failed_save_keeps_the_old_one(tmp_path):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    path = tmp_path / "figure.png"
    atomic.save_figure(fig, path, dpi=50)
    assert path.read_bytes()[:4] == b"\x89PNG"
    before = path.read_bytes()
    try:
        atomic.save_figure(fig, path, dpi="not a number")
    except Exception:
        pass
    plt.close(fig)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["figure.png"]


def test_a_full_disk_while_writing_a_report_is_one_sentence_exit_1_and_the_old_report_stays(
    tmp_path, capsys, monkeypatch
):
    import errno

    import harness.atomic
    from bench.cli import main
    from harness.store import ResultsStore
    from tests.unit.bench.test_api import pe_records

    store = ResultsStore(tmp_path / "results")
    for seed in (0, 1):
        store.write("position_extrapolation", f"a{seed}", f"alibi-s{seed}", pe_records("alibi", seed, 4.5))
    args = [
        "report",
        "suite=position_extrapolation",
        f"results_dir={tmp_path / 'results'}",
        f"reports_dir={tmp_path / 'r'}",
    ]
    assert main(args) == 0
    before = (tmp_path / "r" / "position_extrapolation.md").read_text()
    capsys.readouterr()

    def full(path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(harness.atomic, "_temporary", full)
    code = main(args)
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "No space left on device" in err and "position_extrapolation" in err and "no record was touched" in err
    assert (tmp_path / "r" / "position_extrapolation.md").read_text() == before
    assert len(store.load("position_extrapolation")) == len(pe_records("alibi", 0, 4.5)) * 2
