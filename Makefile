# Two commands on a fresh machine: `make run` (train and report) and `make test`.
# Each creates .venv when missing and installs the pinned dependencies first.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TORCH  ?= torch==2.13.0

.PHONY: run test report list bench paired-bench gpu-check clean-results reference

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/bench run suite=position_extrapolation
	$(BIN)/bench report suite=position_extrapolation

test: $(STAMP)
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

# On a CUDA machine, under 8 minutes: the GPU-marked tests, then both cost suites at a small size;
# records stay in results/, reports in reports/.
gpu-check: $(STAMP)
	$(BIN)/python -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'gpu-check needs a CUDA device; torch sees none.')"
	$(BIN)/python -m pytest -q -m gpu tests
	$(BIN)/bench run suite=attention_cost profile=gpu device=cuda dtype=bfloat16 progress=false \
	  'set.lengths=[1024,4096,16384]' 'set.causal=[true]' set.batch=1 set.min_repeats=5 'set.matmul_sizes=[8192]'
	$(BIN)/bench run suite=kv_cache profile=gpu device=cuda progress=false \
	  'variants=[rope,rope+gqa2,rope+mqa,alibi+mqa]' 'set.contexts=[512,4096,8192]' 'set.path_contexts=[4096,65536]'
	$(BIN)/bench report suite=attention_cost
	$(BIN)/bench report suite=kv_cache

# Reference results on this machine, one suite after another. First the cost suites at REFERENCE_COST_PROFILE
# (timings: one process, nothing else running), then the standard profile of each training suite (3 seeds),
# each sweep in two worker processes of one thread (harness/workers.py); attention_heads comes after
# position_extrapolation and reads its stored weights. Records go to reference/results/, reports to
# reference/reports/, and the README's Results section is regenerated from them. A rerun resumes where it
# stopped (jobs are stored by content hash), so it can run in pieces: `make reference REFERENCE_SUITES=language_modeling
# REFERENCE_COST_SUITES=`.
REFERENCE_COST_SUITES   ?= kv_cache attention_cost sequence_cost
REFERENCE_COST_PROFILE  ?= quick
REFERENCE_SUITES        ?= position_extrapolation attention_heads language_modeling attention_scaling training_stability gradient_flow translation
REFERENCE_DIR           ?= reference
reference: $(STAMP)
	set -e; for suite in $(REFERENCE_COST_SUITES); do \
	  $(BIN)/bench run suite=$$suite profile=$(REFERENCE_COST_PROFILE) progress=false results_dir=$(REFERENCE_DIR)/results; \
	  $(BIN)/bench report suite=$$suite profile=$(REFERENCE_COST_PROFILE) results_dir=$(REFERENCE_DIR)/results reports_dir=$(REFERENCE_DIR)/reports; \
	done
	set -e; for suite in $(REFERENCE_SUITES); do \
	  extra=; [ $$suite = translation ] && extra=data=bible_en_es; \
	  $(BIN)/bench run suite=$$suite profile=standard $$extra workers=2 results_dir=$(REFERENCE_DIR)/results; \
	  $(BIN)/bench report suite=$$suite profile=standard results_dir=$(REFERENCE_DIR)/results reports_dir=$(REFERENCE_DIR)/reports; \
	done
	$(BIN)/python -m harness.results_section $(REFERENCE_DIR)/results $(REFERENCE_DIR)/reports README.md
