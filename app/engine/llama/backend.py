"""Which ggml backends this llama.cpp build has, and what a loaded model really put on a GPU.

llama-cpp-python 0.3.36 has no bindings for ggml's device registry, so the
functions are looked up with ctypes in the libraries it loaded (``libllama``,
whose dependencies ``libggml``/``libggml-base`` hold them on Linux and macOS; on
Windows those DLLs are opened from ``llama_cpp/lib`` by name).

Careful: ``llama_supports_gpu_offload()`` is also true for a CPU-only build with
the RPC backend (``-DGGML_RPC=ON``, which the Makefile always sets), because RPC
servers *could* take layers.  What counts here is whether there is a GPU device:
:func:`has_gpu`, and per model :func:`offload_of`.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import llama_cpp as ll

#: enum ggml_backend_dev_type
DEVICE_KINDS = {0: "cpu", 1: "gpu", 2: "igpu", 3: "accel", 4: "meta"}
GPU_BUILD_HINT = "For a GPU build: make run GPU=cuda (or metal, vulkan)"


@dataclass(frozen=True)
class Device:
    name: str  # "CPU", "CUDA0", "Vulkan0", "MTL0" ...
    description: str  # "NVIDIA H200", the CPU's model name ...
    kind: str  # "cpu", "gpu", "igpu", "accel"
    backend: str  # the registry it belongs to: "CPU", "CUDA", "Metal", "Vulkan", "RPC", "BLAS" ...
    memory_free: int = 0
    memory_total: int = 0

    @property
    def is_gpu(self) -> bool:
        return self.kind in ("gpu", "igpu")


@dataclass(frozen=True)
class BackendInfo:
    backends: tuple[str, ...]  # every backend compiled in, e.g. ("CPU", "RPC") or ("CUDA", "CPU", "RPC")
    devices: tuple[Device, ...]
    supports_gpu_offload: bool  # llama_supports_gpu_offload(): true with RPC alone
    supports_rpc: bool

    @property
    def gpus(self) -> tuple[Device, ...]:
        return tuple(d for d in self.devices if d.is_gpu)

    @property
    def has_gpu(self) -> bool:
        return bool(self.gpus)

    def summary(self) -> str:
        """One line, e.g. ``CUDA: NVIDIA H200 (140 GiB) · CPU · RPC`` or ``CPU only (+ RPC)``."""
        if not self.has_gpu:
            extra = [b for b in self.backends if b != "CPU"]
            return "CPU only" + (f" (+ {', '.join(extra)})" if extra else "")
        parts = []
        for d in self.gpus:
            mem = f" ({d.memory_total / 2**30:.0f} GiB)" if d.memory_total else ""
            parts.append(f"{d.backend}: {d.description or d.name}{mem}")
        parts += [b for b in self.backends if b not in {d.backend for d in self.gpus}]
        return " \u00b7 ".join(parts)


@dataclass(frozen=True)
class Offload:
    """How many of a model's layers llama.cpp put on GPUs (the output layer counts as one)."""

    requested: int
    offloaded: int
    total: int  # n_layer + 1
    devices: tuple[str, ...]  # the model's GPU devices, e.g. ("CUDA0",)

    def summary(self) -> str:
        if not self.offloaded:
            return "CPU only"
        return f"{self.offloaded}/{self.total} layers on {', '.join(self.devices)}"


# -- ctypes access to ggml's registry ----------------------------------------------

def _libraries() -> list[ctypes.CDLL]:
    libs = []
    lib = getattr(getattr(ll, "llama_cpp", None), "_lib", None)
    if lib is not None:
        libs.append(lib)
    try:
        from llama_cpp._ctypes_extensions import load_shared_library

        folder = Path(ll.__file__).resolve().parent / "lib"
        for name in ("ggml", "ggml-base"):
            try:
                libs.append(load_shared_library(name, folder))
            except (FileNotFoundError, RuntimeError, OSError):
                pass
    except ImportError:  # pragma: no cover
        pass
    return libs


@cache
def _fn(name: str, restype, *argtypes):
    for lib in _libraries():
        try:
            f = getattr(lib, name)
        except AttributeError:
            continue
        f.restype, f.argtypes = restype, list(argtypes)
        return f
    raise RuntimeError(f"llama.cpp's library has no {name}()")


def _str(ptr: bytes | None) -> str:
    return ptr.decode("utf-8", "replace") if ptr else ""


def _device(dev) -> Device:
    reg = _fn("ggml_backend_dev_backend_reg", ctypes.c_void_p, ctypes.c_void_p)(dev)
    free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
    try:
        _fn("ggml_backend_dev_memory", None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t),
            ctypes.POINTER(ctypes.c_size_t))(dev, ctypes.byref(free), ctypes.byref(total))
    except RuntimeError:
        pass
    kind = int(_fn("ggml_backend_dev_type", ctypes.c_int, ctypes.c_void_p)(dev))
    return Device(
        name=_str(_fn("ggml_backend_dev_name", ctypes.c_char_p, ctypes.c_void_p)(dev)),
        description=_str(_fn("ggml_backend_dev_description", ctypes.c_char_p, ctypes.c_void_p)(dev)).strip(),
        kind=DEVICE_KINDS.get(kind, f"type {kind}"),
        backend=_str(_fn("ggml_backend_reg_name", ctypes.c_char_p, ctypes.c_void_p)(reg)) if reg else "",
        memory_free=free.value,
        memory_total=total.value,
    )


def probe() -> BackendInfo:
    """Ask the loaded llama.cpp build (not cached: RPC servers may be added later)."""
    n_reg = int(_fn("ggml_backend_reg_count", ctypes.c_size_t)())
    if n_reg == 0:  # backends built as loadable modules (GGML_BACKEND_DL): load them first
        _fn("ggml_backend_load_all", None)()
        n_reg = int(_fn("ggml_backend_reg_count", ctypes.c_size_t)())
    reg_get = _fn("ggml_backend_reg_get", ctypes.c_void_p, ctypes.c_size_t)
    reg_name = _fn("ggml_backend_reg_name", ctypes.c_char_p, ctypes.c_void_p)
    backends = tuple(_str(reg_name(reg_get(i))) for i in range(n_reg))
    dev_get = _fn("ggml_backend_dev_get", ctypes.c_void_p, ctypes.c_size_t)
    n_dev = int(_fn("ggml_backend_dev_count", ctypes.c_size_t)())
    devices = tuple(_device(dev_get(i)) for i in range(n_dev))
    return BackendInfo(
        backends=backends,
        devices=devices,
        supports_gpu_offload=bool(ll.llama_supports_gpu_offload()),
        supports_rpc=bool(ll.llama_supports_rpc()),
    )


@lru_cache(maxsize=1)
def backend_info() -> BackendInfo:
    """:func:`probe`, once per process."""
    return probe()


def has_gpu() -> bool:
    """Whether the build has a GPU device to offload to (RPC alone does not count)."""
    return backend_info().has_gpu


# -- a loaded model ------------------------------------------------------------------

def model_devices(info: BackendInfo) -> tuple[Device, ...]:
    """The devices llama.cpp picks for a model by default (``llama_model_params.devices``
    unset, layer split, main GPU 0): RPC servers and discrete GPUs, else integrated GPUs
    (llama.cpp's ``llama_model_load_from_file_impl``)."""
    rpc = [d for d in info.devices if d.kind == "gpu" and d.backend == "RPC"]
    gpus, seen = [], set()
    for d in info.devices:
        if d.kind == "gpu" and d.backend != "RPC" and d.name not in seen:
            gpus.append(d)
            seen.add(d.name)
    igpus = [d for d in info.devices if d.kind == "igpu"]
    return tuple(rpc + gpus + ([] if gpus else igpus[:1]))


def offload(requested: int, n_layer: int, info: BackendInfo | None = None) -> Offload:
    """llama.cpp's rule: ``min(n_gpu_layers, n_layer + 1)`` layers go to the model's devices,
    none if it has none (negative ``requested``: all)."""
    info = info or backend_info()
    devices = model_devices(info)
    total = int(n_layer) + 1
    wanted = total if requested < 0 else int(requested)
    done = min(wanted, total) if devices else 0
    return Offload(requested=int(requested), offloaded=done, total=total, devices=tuple(d.name for d in devices))


def offload_of(model_handle, requested: int, rpc_devices: tuple[str, ...] | None = None) -> Offload:
    """What a model loaded with ``n_gpu_layers=requested`` really offloaded (``rpc_devices``: the
    model was pointed at these RPC servers' devices, then this machine's GPUs; see rpc_link)."""
    n_layer = int(ll.llama_model_n_layer(model_handle))
    if rpc_devices is None:
        return offload(requested, n_layer)
    local = tuple(d.name for d in model_devices(backend_info()) if d.backend != "RPC")
    done = min(int(requested) if requested >= 0 else n_layer + 1, n_layer + 1)
    return Offload(requested=int(requested), offloaded=done, total=n_layer + 1, devices=tuple(rpc_devices) + local)


def gpu_request_message(requested: int | None, info: BackendInfo | None = None) -> str | None:
    """One line when GPU layers are asked for but the build has no GPU; None otherwise."""
    if not requested:
        return None
    info = info or backend_info()
    if info.has_gpu:
        return None
    what = "all GPU layers" if requested < 0 or requested >= 999 else f"{requested} GPU layers"
    return f"{what} requested, but this llama.cpp build has no GPU ({info.summary()}): running on the CPU. {GPU_BUILD_HINT}"
