# Scatter Playground: every target sets up .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test bench screenshot lint-imports clean-venv

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@echo ">>> Installing Scatter Playground into $(VENV)."
	@echo ">>> llama-cpp-python is built from source: this takes several minutes on 2 cores"
	@echo ">>> (set CMAKE_ARGS, e.g. CMAKE_ARGS=-DGGML_CUDA=on, for a GPU build)."
	$(PY) -m pip install --progress-bar off -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(PY) -m app

test: $(STAMP)
	$(VENV)/bin/lint-imports
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

screenshot: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m bench.screenshot docs/screenshot.png

bench: $(STAMP)
	$(PY) -m bench

clean-venv:
	rm -rf $(VENV)
