"""llama.cpp's RPC backend through ctypes: servers as devices, their memory, and serving one.

Everything goes through ggml's backend registry, as llama-cli and rpc-server
do: ``ggml_backend_reg_by_name("RPC")`` and the functions its
``ggml_backend_reg_get_proc_address`` hands out (``ggml_backend_rpc_add_server``,
``ggml_backend_rpc_start_server``), so the same code works whether the build
links the RPC backend in or loads it as a module.

One difference from llama-cli's ``--rpc``: the servers' devices are *not*
registered globally (``ggml_backend_register``).  A registered device takes
part in every later load, a local one included, and llama.cpp would contact
a server that has gone away, which ends the process.  Instead the devices go
to one load through ``llama_model_params.devices`` (see :func:`load_devices`).
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import llama_cpp as ll
from llama_cpp import llama_cpp as _ll_module
from llama_cpp._ctypes_extensions import load_shared_library

from app.engine.rpc.endpoints import RpcError

_vp = ctypes.c_void_p
_size = ctypes.c_size_t
#: enum ggml_backend_dev_type
DEV_CPU, DEV_GPU, DEV_IGPU, DEV_ACCEL = 0, 1, 2, 3

_ADD_SERVER = ctypes.CFUNCTYPE(_vp, ctypes.c_char_p)
_START_SERVER = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_char_p, _size, _size, ctypes.POINTER(_vp))


def _bind(lib, name: str, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, list(argtypes)
    return fn


def _ggml_libraries():
    """(libggml, libggml-base) as llama.cpp itself uses them.

    The wheel ships *copies* (libggml-base.so, .so.0, .so.0.25.3), and loading one by another
    name would make a second ggml with its own registry and abort callback.  A symbol looked up
    through libllama's handle comes from libllama's own dependencies (dlsym searches them); only
    where that fails (Windows looks in the one module) are the libraries loaded by name.
    """
    lib = _ll_module._lib
    if hasattr(lib, "ggml_backend_reg_by_name") and hasattr(lib, "ggml_set_abort_callback"):
        return lib, lib
    base = _ll_module._base_path
    return load_shared_library("ggml", base), load_shared_library("ggml-base", base)


class _Ggml:
    """The registry functions of libggml and libggml-base (bound once, on first use)."""

    def __init__(self):
        ggml, core = _ggml_libraries()
        self.reg_by_name = _bind(ggml, "ggml_backend_reg_by_name", _vp, ctypes.c_char_p)
        self.dev_count = _bind(ggml, "ggml_backend_dev_count", _size)
        self.dev_get = _bind(ggml, "ggml_backend_dev_get", _vp, _size)
        self.dev_by_type = _bind(ggml, "ggml_backend_dev_by_type", _vp, ctypes.c_int)
        self.proc_address = _bind(core, "ggml_backend_reg_get_proc_address", _vp, _vp, ctypes.c_char_p)
        self.reg_dev_count = _bind(core, "ggml_backend_reg_dev_count", _size, _vp)
        self.reg_dev_get = _bind(core, "ggml_backend_reg_dev_get", _vp, _vp, _size)
        self.dev_name = _bind(core, "ggml_backend_dev_name", ctypes.c_char_p, _vp)
        self.dev_description = _bind(core, "ggml_backend_dev_description", ctypes.c_char_p, _vp)
        self.dev_type = _bind(core, "ggml_backend_dev_type", ctypes.c_int, _vp)
        self.dev_memory = _bind(core, "ggml_backend_dev_memory", None, _vp,
                                ctypes.POINTER(_size), ctypes.POINTER(_size))
        self.set_abort_callback = _bind(core, "ggml_set_abort_callback", _vp, _vp)


_ggml: _Ggml | None = None


def ggml() -> _Ggml:
    global _ggml
    if _ggml is None:
        _ggml = _Ggml()
    return _ggml


def _rpc_function(name: str, prototype):
    g = ggml()
    reg = g.reg_by_name(b"RPC")
    if not reg:
        raise RpcError("this llama.cpp build has no RPC backend "
                       "(reinstall llama-cpp-python with CMAKE_ARGS=-DGGML_RPC=on)")
    address = g.proc_address(reg, name.encode())
    if not address:
        raise RpcError(f"llama.cpp's RPC backend does not offer {name}")
    return prototype(address)


@dataclass(frozen=True)
class RpcDevice:
    """One device of an RPC server (a server offers one per backend it was started with)."""

    endpoint: str
    index: int  # on its server
    name: str  # llama.cpp's name, e.g. RPC0
    handle: int  # ggml_backend_dev_t

    def memory(self) -> tuple[int, int]:
        """(free, total) bytes as the server reports them (a CPU server reports its RAM).

        This talks to the server: call it only while the server is known to be alive."""
        free, total = _size(), _size()
        ggml().dev_memory(self.handle, ctypes.byref(free), ctypes.byref(total))
        return free.value, total.value


def server_devices(endpoint: str) -> list[RpcDevice]:
    """The devices of the server at ``endpoint`` (llama.cpp connects to ask; probe it first)."""
    add_server = _rpc_function("ggml_backend_rpc_add_server", _ADD_SERVER)
    reg = add_server(endpoint.encode())
    if not reg:
        raise RpcError(f"RPC server {endpoint}: it offers no devices")
    g = ggml()
    devices = []
    for i in range(g.reg_dev_count(reg)):
        dev = g.reg_dev_get(reg, i)
        devices.append(RpcDevice(endpoint, i, g.dev_name(dev).decode(), int(dev)))
    return devices


def local_offload_devices() -> list[int]:
    """This machine's GPUs as llama.cpp's default selection takes them (iGPUs only without a GPU)."""
    g = ggml()
    gpus: list[int] = []
    igpus: list[int] = []
    for i in range(g.dev_count()):
        dev = g.dev_get(i)
        kind = g.dev_type(dev)
        (gpus if kind == DEV_GPU else igpus if kind == DEV_IGPU else []).append(int(dev))
    return gpus or igpus


def tensor_split_array(split) -> ctypes.Array | None:
    """``--tensor-split`` proportions as llama.cpp's array of llama_max_devices() floats (None: even)."""
    if not split:
        return None
    n = int(ll.llama_max_devices())
    if len(split) > n:
        raise ValueError(f"--tensor-split: at most {n} values, got {len(split)}")
    return (ctypes.c_float * n)(*[float(x) for x in split])


def cpu_device() -> tuple[int, str]:
    """This machine's CPU device and its description."""
    g = ggml()
    dev = g.dev_by_type(DEV_CPU)
    if not dev:
        raise RpcError("llama.cpp has no CPU device")
    return int(dev), g.dev_description(dev).decode("utf-8", "replace")


def start_server(endpoint: str, threads: int, cache_dir: str | None = None) -> None:
    """Serve this machine's CPU at ``endpoint`` (``host:port``) until the process ends.

    ``ggml_backend_rpc_start_server(endpoint, cache_dir, n_threads, n_devices, devices)``
    only returns when it cannot start (the address cannot be bound) or accept.
    """
    start = _rpc_function("ggml_backend_rpc_start_server", _START_SERVER)
    dev, _ = cpu_device()
    devices = (_vp * 1)(dev)
    start(endpoint.encode(), cache_dir.encode() if cache_dir else None, int(threads), 1, devices)
