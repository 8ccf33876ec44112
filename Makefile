# Scatter Playground: every target sets up .venv on first use.
#
#   make run                  the window (creates .venv and installs everything first)
#   make test                 the same set-up, then the linters, the import contracts and the test suite
#   make check                the quick tier between edits (about a minute): linters, sampler, core, fake-backend UI
#   make test-full            make test at full strength (every property example, every long run): nightly
#   make run GPU=cuda         ... with llama.cpp built for CUDA (or GPU=metal, GPU=vulkan, GPU=cpu)
#   make test-vulkan          GPU offload on a Vulkan device (Mesa's lavapipe without a card; a venv of its own)
#   make package              a one-folder app in dist/scatter-playground (PyInstaller), smoke-tested
#   make agreement            the 54-configuration agreement with llama.cpp's own programs (40 min)
#
# llama-cpp-python is built from source by packaging/llama_wheel.py, once per backend
# and flags, into ~/.cache/scatter-playground/wheels/<backend>-<hash>/; every later venv
# on this machine installs that wheel in seconds.  Without GPU= a venv keeps the backend
# it has.  NATIVE=1 builds for this CPU only (-march=native; x86-64 builds are portable
# AVX2 builds by default).  Extra CMake flags: CMAKE_ARGS="..." make run.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
GPU ?=
NATIVE ?=
LLAMA_WHEEL := $(PYTHON) packaging/llama_wheel.py

.PHONY: run test test-full test-vulkan netns check lint typecheck bench screenshot package venv lint-imports desktop-entry clean-venv xvfb llamacpp-programs agreement

# The venv, llama-cpp-python for the requested backend (a no-op when the venv has it),
# then the project itself.  Any step that fails stops make.
venv:
	@test -x $(PY) || { echo ">>> Creating $(VENV)"; $(PYTHON) -m venv $(VENV) && $(PY) -m pip install --quiet --upgrade pip; }
	@$(LLAMA_WHEEL) ensure --venv $(VENV) --gpu '$(GPU)' --native '$(NATIVE)'
	@$(MAKE) --no-print-directory $(STAMP)

$(STAMP): pyproject.toml setup.py
	@echo ">>> Installing Scatter Playground into $(VENV)."
	$(PY) -m pip install --progress-bar off -e '.[test]'
	@touch $(STAMP)

run: venv
	$(PY) -m app

# The suite runs on every core (pytest-xdist; TEST_WORKERS=1 runs it in one process).  Many tests wait on
# a child process, a window or a model rather than compute, so two workers a core pay.
CORES := $(shell nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)
TEST_WORKERS ?= $(shell echo $$(($(CORES) * 2)))
# The quick tier computes more than it waits (no Gemma, no child processes): one worker more than the
# cores (CHECK_WORKERS=1: one process).  On this 2-core machine, interleaved runs of its tests took 64 to
# 84 s with 3 workers, 84 to 86 s with 2 and 85 to 95 s with 4 (2026-12-03; four contend for two cores).
CHECK_WORKERS ?= $(shell echo $$(($(CORES) + 1)))
# Compiled modules, the tests' own with pytest's assertion rewriting, are kept per machine outside the
# repository: without them (PYTHONDONTWRITEBYTECODE is often set, and nothing may be written into the
# repository) every worker compiled the project and rewrote every test module again, 5.6 s of CPU a worker
# before its first test (1.6 s with them).  Python and pytest check each against its source's time and size.
PYCACHE ?= $(HOME)/.cache/scatter-playground/pycache
PYTEST_ENV := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(PYCACHE) QT_QPA_PLATFORM=offscreen
PYTEST := $(PYTEST_ENV) $(PY) -m pytest -n $(TEST_WORKERS)

# Linters first: they take seconds and name the line.
lint: venv
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check --quiet .

test: venv xvfb netns llamacpp-programs lint typecheck
	$(PYTEST)

# The same suite at full strength: every property at its whole example count, every long run at its whole
# length (tests/tiers.py); a nightly run.
test-full: venv xvfb netns llamacpp-programs lint typecheck
	SCATTER_TESTS=full $(PYTEST)

# GPU offload on a real Vulkan device, in a venv of its own (.venv keeps its backend): the system's Vulkan
# packages (packaging/vulkan_deps.py; Mesa's lavapipe is a device on any CPU), llama-cpp-python built for
# Vulkan once into the wheel cache (641 s on this 2-core machine under other load, 2026-12-05), then
# tests/engine/test_gpu_offload.py (about 65 s here).  GGML_VK_VISIBLE_DEVICES=0 makes llama.cpp list a
# CPU-type device such as lavapipe; a machine with a card lists it anyway.  Not part of make test or CI.
VULKAN_VENV ?= .venv-vulkan
test-vulkan:
	@$(PYTHON) packaging/vulkan_deps.py ensure
	@test -x $(VULKAN_VENV)/bin/python || $(PYTHON) -m venv $(VULKAN_VENV)
	@CMAKE_ARGS="$$($(PYTHON) packaging/vulkan_deps.py cmake-args) $(CMAKE_ARGS)" $(LLAMA_WHEEL) ensure --venv $(VULKAN_VENV) --gpu vulkan
	$(VULKAN_VENV)/bin/python -m pip install --quiet --progress-bar off -e '.[test]'
	GGML_VK_VISIBLE_DEVICES=$${GGML_VK_VISIBLE_DEVICES-0} $(PYTEST_ENV) $(VULKAN_VENV)/bin/python -m pytest -q -p no:randomly tests/engine/test_gpu_offload.py

# The quick tier between edits: the linters, then the sampler, the Qt-free core and the window on the
# fake backend (no Gemma, no llama.cpp native samplers or programs, no real window, nothing marked slow).
QUICK_TESTS := tests/sampler tests/app tests/ui tests/test_layers.py
check: venv lint
	$(PYTEST_ENV) $(PY) -m pytest -n $(CHECK_WORKERS) -q -m "not gemma and not native and not slow and not xvfb and not llamacpp_programs" $(QUICK_TESTS)

# mypy over the packages [tool.mypy] names in pyproject.toml (sampler/, the Qt-free core, the engine's face and run, the
# actions); errors stop make test.
# Its cache is kept per machine outside the repository, like the compiled modules: a fresh clone's mypy
# took 8 to 9 s without it and 0.3 s with it (it checks each module's source hash, so an edit is checked).
MYPY_CACHE ?= $(HOME)/.cache/scatter-playground/mypy
typecheck: venv
	MYPY_CACHE_DIR=$(MYPY_CACHE) $(VENV)/bin/mypy

# llama.cpp's own llama-completion, llama-cli and llama-server, built once per machine from the sources our
# llama-cpp-python vendors with the wheel's GGML flags (about 10-15 min on 2 cores, -j2; cached beside the
# wheel); the tests marked llamacpp_programs hold every export to them.  A failed build stops make test.
llamacpp-programs: venv
	@$(PY) packaging/llamacpp_programs.py ensure --venv $(VENV) --gpu '$(GPU)'

# The whole-run agreement (docs/llamacpp-agreement.md): 54 drawn configurations x 64 tokens through the
# engine, llama-completion, llama-server and the Python kwargs; make test runs a 7-configuration set.
agreement: venv llamacpp-programs
	SCATTER_AGREEMENT=1 QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q tests/llamacpp/test_agreement.py -k full --timeout 5400

# The real-window tests (tests/ui/test_real_window.py) need Xvfb and every library Qt's xcb plugin links to
# (packaging/real_window_deps.py asks ldd): installed here when we may (root with apt-get), else make stops
# and names the packages.
xvfb: venv
	@$(PY) packaging/real_window_deps.py ensure

# The RPC-across-hosts tests make two network namespaces (root and iproute2's ip): iproute2 installed here
# when we may (root with apt-get); without root they skip, saying why.
netns:
	@$(PYTHON) packaging/netns_deps.py ensure

# docs/screenshot.png from a run on the bundled model (the tests never write into the repository).
screenshot: venv
	QT_QPA_PLATFORM=offscreen $(PY) -m bench.screenshot docs/screenshot.png

bench: venv
	$(PY) -m bench

# A one-folder app (not part of make test): PyInstaller into .venv, build, then run the
# built app headless (generate) and its window offscreen (--smoke-test).
package: venv
	$(PY) -m pip install --progress-bar off 'pyinstaller>=6.10'
	$(PY) -m PyInstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller packaging/scatter-playground.spec
	$(PY) packaging/smoke_test.py dist/scatter-playground

# Add the app to the desktop's menu (Linux, per user).
desktop-entry: venv
	packaging/linux/install-desktop-entry.sh $(abspath $(VENV))/bin/scatter-playground

clean-venv:
	rm -rf $(VENV)
