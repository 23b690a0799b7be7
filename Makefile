# Two commands on a fresh machine: `make run` (train and report) and `make test`.
# Each creates .venv when missing and installs the pinned dependencies first.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TORCH  ?= torch==2.13.0

.PHONY: run test report list bench paired-bench gpu-check gpu-carry clean-results reference reference-reports \
	suite-docs

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/bench run suite=position_extrapolation report=true

# The SWORD Bible modules some tests read (data=bible, data=bible_en_es): installed quietly first where root and
# apt-get are available and SWORD_PATH names no other library; a test whose module is still missing skips with the
# command that installs it (tests/conftest.py).
SWORD_PACKAGES ?= sword-text-kjv sword-text-sparv sword-text-web
SWORD_MODULES  ?= engKJV2006eb spaRV1909eb engWEB2015eb
# ruff's lint and format check first (pyproject.toml; `ruff format .` applies the format), then the tests.
test: $(STAMP)
	@if [ -z "$(SWORD_PATH)" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  for m in $(SWORD_MODULES); do test -f /usr/share/sword/modules/texts/ztext/$$m/nt.bzz || missing=1; done; \
	  if [ -n "$$missing" ]; then \
	    { timeout 600 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq \
	      $(SWORD_PACKAGES); } >/dev/null 2>&1 \
	    || echo "make test: could not install $(SWORD_PACKAGES); the tests that read them skip." >&2; \
	  fi; \
	fi
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q

report: $(STAMP)
	$(BIN)/bench report

list: $(STAMP)
	$(BIN)/bench list

# microbenchmarks, outside `make test`; BENCH_ARGS="--benchmark-save=NAME" or "--benchmark-compare"
bench: $(STAMP)
	$(BIN)/python -m pytest -q tests/benchmarks --benchmark-only $(BENCH_ARGS)

# the harness's training step against a plain-PyTorch GPT of nanoGPT's baby size, alternating rounds in one
# process; prints the median tokens/s ratio (harness / plain). PAIRED_ARGS="--compile" compiles both.
paired-bench: $(STAMP)
	$(BIN)/python -m tests.benchmarks.paired_gpt --rounds 6 $(PAIRED_ARGS)

# On a CUDA machine, in at most 9 minutes: the GPU-marked tests, kv_cache (MHA, GQA, MQA, MLA, a window),
# sequence_cost large, attention_cost with every available kernel, position_extrapolation standard (one seed, five
# variants) and the paired benchmark, each under its own time limit (tools/gpu_check.sh). It uses the machine's own Python and CUDA
# torch (PYTHON=python3), no venv: a lent GPU machine reaches no registry. `make gpu-carry` (here, with a
# registry and Debian's sword-text-web) puts what such a machine lacks into two ignored folders that travel with
# the run (carry [".whl", ".sword"]): .whl/, wheels of the packages it may lack (PyYAML built for Python 3.10 to
# 3.13), and .sword/, the SWORD module position_extrapolation's corpus is read from. Logs, records and reports
# go to $(GPU_OUT).
GPU_OUT ?= gpu-check
GPU_WHEELS ?= omegaconf==2.4.0 num2words==0.5.14 docopt==0.6.2 submitit==1.5.4 cloudpickle==3.1.3
GPU_BINARY_WHEELS ?= PyYAML==6.0.4
GPU_SWORD_MODULES ?= engWEB2015eb
SWORD_SOURCE ?= $(or $(SWORD_PATH),/usr/share/sword)
gpu-check:
	OUT=$(GPU_OUT) PYTHON=$(PYTHON) bash tools/gpu_check.sh

gpu-carry:
	$(PYTHON) -m pip wheel -q --no-deps -w .whl $(GPU_WHEELS)
	for v in 3.10 3.11 3.12 3.13; do $(PYTHON) -m pip download -q --no-deps --only-binary=:all: \
	  --platform manylinux2014_x86_64 --python-version $$v -d .whl $(GPU_BINARY_WHEELS) || exit 1; done
	for m in $(GPU_SWORD_MODULES); do \
	  test -f $(SWORD_SOURCE)/modules/texts/ztext/$$m/nt.bzz || { echo "gpu-carry: the SWORD module $$m is not \
	under $(SWORD_SOURCE); apt-get install sword-text-web (or set SWORD_PATH)." >&2; exit 2; }; \
	  mkdir -p .sword/modules/texts/ztext && cp -r $(SWORD_SOURCE)/modules/texts/ztext/$$m .sword/modules/texts/ztext/; \
	done

# Reference results on this machine, one suite after another. First the cost suites at REFERENCE_COST_PROFILE
# (timings: one process, nothing else running), then the standard profile of each training suite (3 seeds),
# each sweep in two worker processes of one thread (bench/run/workers.py); attention_heads comes after
# position_extrapolation and reads its stored weights. translation runs twice: its Bible profile (standard,
# data=bible_en_es: the BLEU table at a real corpus's size, reported in reports/bible_en_es/) and profile
# bottleneck (numbers_en_fr, 5 seeds: the corpus on which Bahdanau et al.'s and Sutskever et al.'s findings can be
# tested at this budget), which the index covers. recall, streaming, attention_explanation and retrieval_length run
# their standard profiles too (3 seeds each), and scaling its reference ladder (3 variants x 4 rungs x 3 seeds). Records go to reference/results/, reports to reference/reports/,
# and the README's findings table and figure
# are regenerated from them. A rerun resumes where it stopped (jobs are stored by content hash),
# so it can run in pieces: `make reference REFERENCE_SUITES=language_modeling REFERENCE_COST_SUITES=`.
# The suites are the registry's (bench/reference.py), asked when the recipe runs: the cost suites (TimesOnly: their
# jobs only time), then every other suite, each list in the order the reference has always run in.
REFERENCE_COST_SUITES   ?= $$($(BIN)/python -m bench.reference cost)
REFERENCE_COST_PROFILE  ?= quick
REFERENCE_SUITES        ?= $$($(BIN)/python -m bench.reference training)
REFERENCE_DIR           ?= reference
# reference/unfinished/<suite>/ holds the records of a sweep stopped before its group was complete (kept out of
# reference/results/ so the committed reports stay on the last complete group); `make reference` moves them back
# first and resumes from them.
reference: $(STAMP)
	set -e; for d in $(REFERENCE_DIR)/unfinished/*/; do [ -d "$$d" ] || continue; s=$$(basename $$d); \
	  mkdir -p $(REFERENCE_DIR)/results/$$s; mv $$d*.jsonl $(REFERENCE_DIR)/results/$$s/ 2>/dev/null || true; done
	set -e; suites="$(REFERENCE_COST_SUITES)"; for suite in $$suites; do \
	  $(BIN)/bench run suite=$$suite profile=$(REFERENCE_COST_PROFILE) progress=false results_dir=$(REFERENCE_DIR)/results; \
	  $(BIN)/bench report suite=$$suite profile=$(REFERENCE_COST_PROFILE) results_dir=$(REFERENCE_DIR)/results reports_dir=$(REFERENCE_DIR)/reports; \
	done
	set -e; suites="$(REFERENCE_SUITES)"; for suite in $$suites; do \
	  profile=standard; \
	  if [ $$suite = translation ]; then profile=bottleneck; \
	    $(BIN)/bench run suite=translation profile=standard data=bible_en_es workers=2 results_dir=$(REFERENCE_DIR)/results; \
	    $(BIN)/bench report suite=translation profile=standard results_dir=$(REFERENCE_DIR)/results \
	      reports_dir=$(REFERENCE_DIR)/reports/bible_en_es index=false; \
	  fi; \
	  $(BIN)/bench run suite=$$suite profile=$$profile workers=2 results_dir=$(REFERENCE_DIR)/results; \
	  $(BIN)/bench report suite=$$suite profile=$$profile results_dir=$(REFERENCE_DIR)/results reports_dir=$(REFERENCE_DIR)/reports; \
	done
	$(BIN)/python -m bench.report.readme $(REFERENCE_DIR)/results $(REFERENCE_DIR)/reports README.md

# The table of suites in README.md and docs/suites.md, and each suite's profiles in docs/suites.md, rewritten between
# their markers from the suites themselves: each Suite class's description and its suite.yaml's profiles
# (bench/report/suite_docs.py). tests/unit/bench/test_suite_docs.py fails while they differ.
suite-docs: $(STAMP)
	$(BIN)/python -m bench.report.suite_docs README.md docs/suites.md

# Every reference report, figure, the index, the support matrix and the README block rebuilt from reference/results/
# alone, in place (about 13 minutes on 2 cores): with no new records, `git status` afterwards shows what a code change
# did to the pages (nothing, for a refactoring).
reference-reports: $(STAMP)
	BIN=$(BIN) REFERENCE_DIR=$(REFERENCE_DIR) bash tools/regen_reference.sh
