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

bench: $(BIN)/.installed
	$(BIN)/python -m benchmarks
