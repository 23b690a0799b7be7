"""The ``bench`` command: run suites, list what is registered, and rebuild reports from results.

    bench run suite=position_extrapolation variants=[rope,alibi] profile=quick seeds=[0,1,2]
    bench list [suites|variants|positions|scorings|norms|ffns|kernels|support|plugins]
    bench report [suite=position_extrapolation] [profile=P device=D dtype=T suite_version=N data=SHA set.FIELD=V] [index=false]
    bench compare rope alibi [suite=S metric=M at=X results_dir=DIR profile=P ...]   (paired over seeds, 95% interval)
    bench export variant=rope+gqa2+rmsnorm+swiglu [suite=S seed=0 results_dir=DIR out=DIR]   (a Hugging Face checkpoint)

Every mistake a user can make on the command line is one sentence on stderr and exit status 2,
before any compute starts; so is a request none of whose jobs can run here. ``bench run`` exits 1 when a
job failed, and 3 when some jobs asked for cannot run here (``allow_skips=true``: 0); bench/run/runner.py
says which skips count. ``bench COMMAND --help`` prints that command's usage (exit status 0), and
output into a pipe closed early (``bench list | head``) ends quietly.

Each command is a module of its own, imported only when it runs: bench/run/command.py, bench/listing.py,
bench/report/command.py, bench/compare/command.py and bench/export/command.py. This one prints the usage, hands
the arguments to the command, and turns what stops it into one sentence and an exit status.
"""

from __future__ import annotations

import os
import sys

from harness.errors import UserError
from harness.store import StoreUnwritable

USAGE = __doc__.split("\n\n")[1]

RUN_HELP = """bench run key=value ...

  suite=NAME          suite to run (bench list suites)            [position_extrapolation]
  variants=[A,B+C]    preset expressions (bench list variants)    [the suite's defaults]
  profile=NAME        compute budget: quick, standard or large    [quick]
  seeds=[0,1,2]       seeds                                       [the profile's]
  device=auto|cpu|cuda                                            [auto]
  dtype=auto|float32|bfloat16  (bfloat16: autocast, float32 weights)
                      [auto: bfloat16 for a training suite that takes it on CUDA, else float32]
  data=pydoc|bible|PATH  corpus: pydoc (stdlib), the World English Bible (sword-text-web) or a UTF-8 file
  model=hf:PATH       a local Hugging Face config.json whose shapes kv_cache measures (suite=kv_cache)
  tracker=tensorboard|mlflow|wandb  also log each job that ran (settings, values, loss curve); records stay the truth
  data=numbers_en_fr|bible_en_es|SRC.txt,TGT.txt   translation corpus (suite=translation)
  protocol=nonoverlapping|sliding   evaluation windows
  dry_run=true        print the plan and stop
  report=true         then rebuild the report of the group this run wrote (never a newer or other group)
  allow_skips=true    exit 0, not 3, when some variants asked for cannot run here (their skips are recorded)
  set.FIELD=VALUE     override one profile setting (set.steps=100)
  set.compile=true    train through torch.compile (every training of each job; a different job identity)
  workers=N           run the sweep in N local processes of cores/N threads each    [1]
  executor=local|submitit           run jobs here, or as SLURM jobs through submitit
  submitit.KEY=VALUE  submitit parameters (submitit.slurm_partition=gpu submitit.cluster=local)
  results_dir=DIR, reports_dir=DIR                                 [results, reports]

Exit status: 0 done; 1 a job failed, a worker died or the results folder stopped being writable; 2 bad input,
or nothing asked for can run here; 3 some variants asked for cannot run here (their skips are recorded).
"""


LIST_HELP = """bench list [WHAT]

  WHAT: suites, variants, positions, scorings, norms, ffns, kernels, support or plugins   [all of them]
"""

REPORT_HELP = """bench report key=value ...

  suite=NAME          rebuild this suite's report only                     [every suite with results]
  profile=P device=D dtype=T suite_version=N data=SHA set.FIELD=V
                      which group of records (the newest match wins)       [the newest group]
  index=false         write the suite reports only, not the support matrix and index
  results_dir=DIR, reports_dir=DIR                                         [results, reports]
"""

COMPARE_HELP = """bench compare A B key=value ...

  A B                 two variant expressions that ran in one group of records (bench compare rope alibi)
  suite=NAME          compare in this suite only                           [every suite where both ran]
  metric=NAME         compare this metric only, and give its verdict       [the suite's first metric]
  at=X|first|last     the x of the verdict line (at=1024)                  [first and last]
  profile=P device=D dtype=T suite_version=N data=SHA set.FIELD=V          which group of records
  results_dir=DIR                                                          [results]

Metrics whose suite declares a direction are called better or worse; the others (attention entropy,
mean distance) differ, with the difference and its 95% interval.
"""

EXPORT_HELP = """bench export key=value ...

  variant=NAME        the variant whose trained model to write (bench list variants)
  suite=NAME          the suite that trained it                            [position_extrapolation]
  seed=N              its seed                                             [0]
  profile=P device=D dtype=T suite_version=N data=SHA set.FIELD=V          which group of records  [the newest]
  results_dir=DIR     where its records and checkpoints are                [results]
  out=DIR             the checkpoint's folder                              [exports/SUITE/VARIANT-sSEED]

Writes config.json, model.safetensors and a character tokenizer (tokenizer.json) that transformers loads:
Llama for RoPE + RMSNorm + SwiGLU (MHA, GQA or MQA), GPT-2 for learned positions + LayerNorm + GELU. Any other
spec is refused with one sentence naming its field.
"""

HELP = {"run": RUN_HELP, "list": LIST_HELP, "report": REPORT_HELP, "compare": COMPARE_HELP, "export": EXPORT_HELP}


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:  # the reader left (`bench list | head`): stop quietly, as other tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the interpreter's last flush does not fail again
        return 141  # 128 + SIGPIPE, what the shell reports for a tool the pipe stopped


class Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler's or `kill`'s stop), raised where the process is so that it unwinds as an interrupt does:
    locks released, finished jobs kept, one sentence."""


def _terminate_as_interrupt() -> None:
    import signal
    import threading

    def stop(signum, frame):
        raise Terminated()

    if threading.current_thread() is threading.main_thread():  # signal handlers belong to the main thread
        signal.signal(signal.SIGTERM, stop)


def _main(argv: list[str]) -> int:
    from harness.atomic import OutputUnwritable

    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    command, rest = argv[0], argv[1:]
    commands = {"run": cmd_run, "list": cmd_list, "report": cmd_report, "compare": cmd_compare, "export": cmd_export}
    if command not in commands:
        print(f"bench: unknown command '{command}'; choose one of {', '.join(commands)}.", file=sys.stderr)
        return 2
    if rest and rest[0] in ("-h", "--help"):
        print(HELP[command])
        return 0
    _terminate_as_interrupt()
    try:
        return commands[command](rest)
    except Terminated:
        print("bench: stopped by SIGTERM; finished jobs are stored and a rerun resumes from them.", file=sys.stderr)
        return 143  # 128 + SIGTERM, what the shell reports for a terminated tool
    except KeyboardInterrupt:
        print("bench: interrupted; finished jobs are stored and a rerun resumes from them.", file=sys.stderr)
        return 130
    except OutputUnwritable as exc:  # a full disk or read-only folder while writing a report (harness/atomic.py)
        print(f"bench: {exc}", file=sys.stderr)
        return 1
    except StoreUnwritable as exc:  # a fault during the run, not bad input: the records are kept (harness/store.py)
        print(f"bench: {exc}", file=sys.stderr)
        return 1
    except UserError as exc:  # every mistake a user can fix (harness/errors.py); anything else is a bug
        print(f"bench: {exc}", file=sys.stderr)
        return 2


def cmd_run(args: list[str]) -> int:
    """Suites run and their records stored (bench/run/command.py)."""
    from bench.run.command import run

    return run(args)


def cmd_list(args: list[str]) -> int:
    """What is registered: suites, variants, components, kernels, support, plugins (bench/listing.py)."""
    from bench.listing import run

    return run(args)


def cmd_report(args: list[str]) -> int:
    """Reports rebuilt from stored records (bench/report/command.py)."""
    from bench.report.command import run

    return run(args)


def cmd_compare(args: list[str]) -> int:
    """Two variants compared seed by seed in every suite where both ran (bench/compare/command.py)."""
    from bench.compare.command import run

    return run(args)


def cmd_export(args: list[str]) -> int:
    """A trained model of a stored run written as a Hugging Face checkpoint (bench/export/command.py)."""
    from bench.export.command import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
