"""GPU offload on a real device: the bundled model with every layer on the build's GPU (``make test-vulkan``,
``packaging/gpu_check.sh``).

Skipped where the llama.cpp build has no GPU device.  On this project's machine the device is Mesa's
lavapipe, a Vulkan driver that runs on the CPU (llama.cpp lists it only when ``GGML_VK_VISIBLE_DEVICES=0``
names it, which ``make test-vulkan`` sets); on a machine with a graphics card, ``GPU=cuda`` or a Vulkan
build finds the card itself.  The GPU's kernels sum in another order than the CPU's, so a greedy run
is held to the CPU backend of the same build only where the CPU's two top logits are further apart
than the two devices' logits ever differ: there the tokens must be equal.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.engine.face.options import RunOptions
from app.engine.llama import backend
from app.engine.llama.context import DecodeContext
from app.engine.llama.model import LoadedModel
from app.engine.run.starts import tokenize_prompt

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "The lighthouse keeper opened the letter and read"
N_TOKENS = 24
OPTIONS = RunOptions(n_ctx=256, n_threads=1)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not backend.has_gpu(), reason=(
    "this llama.cpp build has no GPU device (make test-vulkan builds one for Mesa's lavapipe; "
    "packaging/gpu_check.sh for CUDA)"))]


def greedy_logits(model: LoadedModel, forced: list[int] | None = None) -> tuple[list[int], list[np.ndarray]]:
    """A greedy run of N_TOKENS (or the ``forced`` tokens fed in), and the logits before each token."""
    prompt = tokenize_prompt(model, PROMPT)
    tokens, logits = [], []
    with DecodeContext(model, 1, OPTIONS) as ctx:
        ctx.decode_tokens(0, prompt, 0)
        for i in range(N_TOKENS):
            row = ctx.logits(-1).copy()
            logits.append(row)
            token = forced[i] if forced is not None else int(np.argmax(row))
            tokens.append(token)
            ctx.decode_tokens(0, [token], len(prompt) + i)
    return tokens, logits


@pytest.fixture(scope="module")
def runs(model_path):
    with LoadedModel(model_path) as gpu:
        offload = gpu.offload
        gpu_tokens, gpu_logits = greedy_logits(gpu)
    with LoadedModel(model_path, gpu_layers=0) as cpu:  # the same tokens through the CPU backend
        _, cpu_logits = greedy_logits(cpu, forced=gpu_tokens)
    return offload, gpu_tokens, gpu_logits, cpu_logits


def test_the_build_lists_its_gpu_and_the_model_puts_every_layer_there(runs):
    offload = runs[0]
    gpus = backend.backend_info().gpus
    assert gpus and offload.devices and set(offload.devices) <= {d.name for d in gpus}
    assert offload.offloaded == offload.total > 0
    assert offload.summary() == f"{offload.total}/{offload.total} layers on {', '.join(offload.devices)}"


def test_greedy_tokens_equal_the_cpu_backends_wherever_its_top_two_are_not_a_float_tie(runs):
    _, tokens, gpu_logits, cpu_logits = runs
    noise = max(float(np.max(np.abs(g - c))) for g, c in zip(gpu_logits, cpu_logits))
    print(f"max logit difference, GPU against CPU over {N_TOKENS} steps: {noise:.4g}")
    assert noise < 2.0  # the same model: close, if not equal (lavapipe: 1.1 on logits of about +-30)
    decided = equal = 0
    for token, gpu, cpu in zip(tokens, gpu_logits, cpu_logits):
        top = np.argsort(cpu)[-16:]  # the candidates that could take first place
        step_noise = float(np.max(np.abs(gpu[top] - cpu[top])))  # this step's float noise between the devices
        top2 = np.sort(cpu)[-2:]
        equal += token == int(np.argmax(cpu))
        if top2[1] - top2[0] > 2 * step_noise:  # no rounding of either device could swap them
            assert token == int(np.argmax(cpu))
            decided += 1
    print(f"greedy tokens equal to the CPU's arg-max at {equal} of {N_TOKENS} steps")
    print(f"{decided} of {N_TOKENS} greedy steps decided beyond the noise; every one equal")
    assert decided >= N_TOKENS // 4  # a good share of the steps were held to it


def test_generate_reports_the_gpu_and_every_layer_on_it(model_path):
    proc = subprocess.run([sys.executable, "-m", "app", "generate", "-m", str(model_path), "-p", PROMPT, "-n", "8",
                           "-s", "3", "-t", "1", "--verbose"], cwd=ROOT, capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip()
    layers = [line for line in proc.stderr.splitlines() if line.startswith("backend: ")]
    gpu = backend.backend_info().gpus[0]
    assert len(layers) == 1 and gpu.backend in layers[0] and "layers on " + gpu.name in layers[0], proc.stderr


def test_a_gpu_build_whose_device_is_gone_runs_on_the_cpu_and_says_so_in_one_line(model_path):
    """No Vulkan driver to be found (a driver removed, a card gone): the build's other backend takes the run."""
    if backend.backend_info().gpus[0].backend != "Vulkan":
        pytest.skip("hiding the device is done through the Vulkan loader here")
    proc = subprocess.run([sys.executable, "-m", "app", "generate", "-m", str(model_path), "-p", PROMPT, "-n", "4",
                           "-t", "1", "--verbose"], cwd=ROOT, capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), VK_ICD_FILENAMES="/nonexistent/icd.json"))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    layers = [line for line in proc.stderr.splitlines() if line.startswith("backend: ")]
    assert layers == ["backend: CPU only (+ RPC); layers: CPU only"], proc.stderr[-2000:]
    assert proc.stdout.strip()
