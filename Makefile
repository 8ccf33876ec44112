# Scatter Playground: every target sets up .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test bench screenshot lint-imports clean-venv xvfb

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

test: $(STAMP) xvfb
	$(VENV)/bin/lint-imports
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

# The real-window tests (tests/ui/test_real_window.py) need Xvfb: installed here when we may (root
# with apt-get), else make stops and says how.
xvfb:
	@command -v Xvfb >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo ">>> Installing Xvfb for the real-window tests (apt-get install xvfb)."; \
	    apt-get update -qq && apt-get install -y -qq xvfb libxcb-cursor0 libxkbcommon-x11-0; \
	  else \
	    echo "make test needs Xvfb for the real-window tests (tests/ui/test_real_window.py):"; \
	    echo "  Debian/Ubuntu: sudo apt-get install -y xvfb libxcb-cursor0 libxkbcommon-x11-0"; \
	    echo "  Fedora:        sudo dnf install -y xorg-x11-server-Xvfb xcb-util-cursor"; \
	    echo "  or run the rest: .venv/bin/python -m pytest -m 'not xvfb'"; \
	    exit 1; \
	  fi; }

screenshot: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m bench.screenshot docs/screenshot.png

bench: $(STAMP)
	$(PY) -m bench

clean-venv:
	rm -rf $(VENV)
