# Both targets set themselves up: a .venv built from requirements.txt.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONFIG ?= configs/demo.yaml
PORT ?= 8501

.PHONY: run test test-long bench check

$(BIN)/.installed: requirements.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

run: $(BIN)/.installed
	$(BIN)/python -m app serve $(CONFIG) --port $(PORT)

test: $(BIN)/.installed
	$(BIN)/python -m pytest -q

test-long: $(BIN)/.installed
	$(BIN)/python -m pytest -q -m long --run-long

check: $(BIN)/.installed
	$(BIN)/python -m app check $(CONFIG)

# Benchmarks (on demand, never part of `make test`): all of them, or BENCH=derive,saves;
# BENCH_ARGS=--quick for a smoke run with small sizes. Each also runs alone, with options for
# its sizes: `$(BIN)/python -m benchmarks.browser --sizes 50,2000` (see docs/performance.md).
BENCH ?=
BENCH_ARGS ?=
bench: $(BIN)/.installed
	$(BIN)/python -m benchmarks $(if $(BENCH),--only $(BENCH),) $(BENCH_ARGS)
