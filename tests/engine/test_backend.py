"""app/engine/backend.py: the build's backends and devices, and what a model really offloaded."""
from __future__ import annotations

import pytest

from app.engine.llama import backend
from app.engine.llama.backend import BackendInfo, Device

CPU = Device("CPU", "Some CPU", "cpu", "CPU", 8 << 30, 16 << 30)
CUDA0 = Device("CUDA0", "NVIDIA H200", "gpu", "CUDA", 100 << 30, 140 << 30)
CUDA1 = Device("CUDA1", "NVIDIA H200", "gpu", "CUDA", 100 << 30, 140 << 30)
IGPU = Device("Vulkan0", "Intel(R) Graphics", "igpu", "Vulkan")
METAL = Device("MTL0", "Apple M3", "gpu", "Metal", 20 << 30, 24 << 30)
RPC_SERVER = Device("RPC[10.0.0.2:50052]", "10.0.0.2:50052", "gpu", "RPC")


def info(*devices, backends=("CPU", "RPC")) -> BackendInfo:
    return BackendInfo(backends=backends, devices=(CPU, *devices), supports_gpu_offload=True, supports_rpc="RPC" in backends)


def test_probe_this_build():
    found = backend.probe()
    assert "CPU" in found.backends
    assert any(d.kind == "cpu" and d.backend == "CPU" for d in found.devices)
    assert all(d.name for d in found.devices)
    assert found.has_gpu == any(d.kind in ("gpu", "igpu") for d in found.devices)
    assert backend.has_gpu() == found.has_gpu
    assert found.supports_rpc == ("RPC" in found.backends)
    assert found.summary()


def test_cpu_only_build_with_rpc_offloads_nothing():
    cpu_rpc = info()
    assert not cpu_rpc.has_gpu and cpu_rpc.supports_gpu_offload  # the trap llama_supports_gpu_offload() sets
    assert cpu_rpc.summary() == "CPU only (+ RPC)"
    off = backend.offload(999, 18, cpu_rpc)
    assert (off.offloaded, off.total, off.devices) == (0, 19, ())
    assert off.summary() == "CPU only"
    msg = backend.gpu_request_message(999, cpu_rpc)
    assert msg.startswith("all GPU layers requested, but this llama.cpp build has no GPU (CPU only (+ RPC))")
    assert "make run GPU=cuda" in msg and "\n" not in msg
    assert backend.gpu_request_message(7, cpu_rpc).startswith("7 GPU layers requested")
    assert backend.gpu_request_message(0, cpu_rpc) is None
    assert backend.gpu_request_message(None, cpu_rpc) is None


@pytest.mark.parametrize("requested, expected", [(999, 19), (-1, 19), (5, 5), (0, 0), (19, 19)])
def test_gpu_build_offloads_min_of_requested_and_layers(requested, expected):
    cuda = info(CUDA0, backends=("CUDA", "CPU", "RPC"))
    off = backend.offload(requested, 18, cuda)
    assert off.offloaded == expected and off.total == 19 and off.devices == ("CUDA0",)
    assert backend.gpu_request_message(requested, cuda) is None


def test_device_choice_follows_llama_cpp():
    assert backend.model_devices(info(CUDA0, CUDA1, IGPU)) == (CUDA0, CUDA1)  # iGPUs only without a GPU
    assert backend.model_devices(info(IGPU)) == (IGPU,)
    assert backend.model_devices(info(RPC_SERVER, CUDA0)) == (RPC_SERVER, CUDA0)  # RPC servers first
    assert backend.model_devices(info(RPC_SERVER, IGPU)) == (RPC_SERVER, IGPU)
    assert backend.offload(99, 18, info(IGPU)).summary() == "19/19 layers on Vulkan0"


def test_summaries():
    summary = info(METAL, backends=("Metal", "BLAS", "CPU", "RPC")).summary()
    assert summary == "Metal: Apple M3 (24 GiB) \u00b7 BLAS \u00b7 CPU \u00b7 RPC"
    assert info(CUDA0, CUDA1, backends=("CUDA", "CPU")).summary() == (
        "CUDA: NVIDIA H200 (140 GiB) \u00b7 CUDA: NVIDIA H200 (140 GiB) \u00b7 CPU")
    assert info(backends=("CPU",)).summary() == "CPU only"


def test_loaded_model_reports_real_offload(default_model):
    off = default_model.offload
    assert off.total == 19  # Gemma 3 270M: 18 layers + output
    assert default_model.info.gpu_layers == off.offloaded
    assert default_model.backend_message is None  # loaded with gpu_layers=0
    if not backend.has_gpu():
        assert off.offloaded == 0


def test_gpu_layers_on_a_cpu_build_give_a_message(default_model):
    from app.engine.llama.model import LoadedModel

    with LoadedModel(default_model.info.path, gpu_layers=8) as model:
        if backend.has_gpu():
            assert model.backend_message is None and model.info.gpu_layers == 8
        else:
            assert model.info.gpu_layers == 0
            assert model.backend_message.startswith("8 GPU layers requested, but this llama.cpp build has no GPU")
