# Two commands on a fresh machine: `make run` (train and report) and `make test`.
# Each creates .venv when missing and installs the pinned dependencies first.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TORCH  ?= torch==2.13.0

.PHONY: run test report list bench clean-results

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

# microbenchmarks, outside `make test`
bench: $(STAMP)
	$(BIN)/python -m pytest -q tests/benchmarks --benchmark-only
