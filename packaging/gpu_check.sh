#!/bin/sh
# GPU offload checked on a machine with a graphics card: build llama-cpp-python for it in a venv of its own
# (.venv-gpu; .venv keeps its backend), then run the same checks as make test-vulkan
# (tests/engine/test_gpu_offload.py: the device listed, every layer on it, greedy tokens equal to the CPU
# backend's wherever its top logits are not a float tie, generate's one line, the device gone) and a
# window screenshot whose status line shows where the layers went.
#
#   packaging/gpu_check.sh            # GPU=cuda (needs the CUDA toolkit: nvcc)
#   GPU=metal packaging/gpu_check.sh  # on a Mac
#   GPU=vulkan packaging/gpu_check.sh # any Vulkan driver (make test-vulkan does this with Mesa's lavapipe)
#
# Run from the repository's root.  Every step that fails stops the script with its own message.
set -eu
GPU="${GPU:-cuda}"
PYTHON="${PYTHON:-python3}"
VENV="${GPU_VENV:-.venv-gpu}"
cd "$(dirname "$0")/.."
case "$GPU" in
  cuda) command -v nvcc >/dev/null || { echo "error: GPU=cuda needs the CUDA toolkit (nvcc not found)" >&2; exit 1; } ;;
  vulkan) $PYTHON packaging/vulkan_deps.py ensure; CMAKE_ARGS="$($PYTHON packaging/vulkan_deps.py cmake-args) ${CMAKE_ARGS:-}"; export CMAKE_ARGS ;;
  metal) ;;
  *) echo "error: GPU=$GPU: expected cuda, metal or vulkan" >&2; exit 1 ;;
esac
test -x "$VENV/bin/python" || $PYTHON -m venv "$VENV"
start=$(date +%s)
$PYTHON packaging/llama_wheel.py ensure --venv "$VENV" --gpu "$GPU"
echo ">>> llama-cpp-python for $GPU ready in $(( $(date +%s) - start )) s"
"$VENV/bin/python" -m pip install --quiet --progress-bar off -e '.[test]'
start=$(date +%s)
QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -m pytest -q -p no:randomly -s tests/engine/test_gpu_offload.py
echo ">>> GPU checks passed in $(( $(date +%s) - start )) s"
out="${TMPDIR:-/tmp}/gpu-check-window.png"
QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -m bench.screenshot "$out" --lanes 1 --tokens 24 --size 1280x800
echo ">>> the window's status line (bottom left) should say N/N layers on the GPU: $out"
