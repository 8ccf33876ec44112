"""What the engine says about a model, and how a load is asked for (no llama.cpp here)."""
from __future__ import annotations

from dataclasses import dataclass


class ModelLoadError(Exception):
    """A model could not be loaded; the message names the file and the reason."""


@dataclass(frozen=True)
class ServerUsage:
    """An RPC server a model runs on: its llama.cpp devices, the bytes put there, the total it reports."""

    endpoint: str  # host:port
    devices: tuple[str, ...]  # llama.cpp's names (RPC0 ...)
    used_bytes: int  # the model's buffers there (weights; KV cache and compute buffers once a context exists)
    total_bytes: int  # the device memory the server reports (its RAM for a CPU server; 0: unknown)

    def label(self) -> str:
        """``host:port: 235 MiB used (RPC0, of 23.5 GiB)``, for the status bar."""
        of = f", of {self.total_bytes / 2**30:.1f} GiB" if self.total_bytes else ""
        return f"{self.endpoint}: {self.used_bytes / 2**20:.0f} MiB used ({', '.join(self.devices)}{of})"


@dataclass(frozen=True)
class ModelInfo:
    """What the model's metadata says about it."""

    path: str
    name: str
    architecture: str
    size_bytes: int
    n_params: int
    n_vocab: int
    n_ctx_train: int
    description: str
    gpu_layers: int  # layers llama.cpp really put on GPUs
    backend: str = ""  # the llama.cpp build's backends, one line ("CPU only (+ RPC)")
    offload: str = ""  # where the layers went, one line ("CPU only", "25/25 layers on CUDA0")
    note: str = ""  # a word about the load (GPU layers asked for on a build without a GPU)
    servers: tuple[ServerUsage, ...] = ()  # RPC servers, in --rpc order (none: all local)
    local_gpus: int | None = None  # this machine's GPUs as llama.cpp sees them (None: not known)


@dataclass(frozen=True)
class LoadRequest:
    """A model to load: ``path`` None means the bundled model."""

    path: str | None = None
    gpu_layers: int | None = None  # None: all layers when the build can offload
    rpc: tuple[str, ...] = ()  # RPC servers (host:port), llama-cli's --rpc; none: this machine only
    tensor_split: tuple[float, ...] = ()  # share of the offloaded layers per device (--tensor-split)
    #: False: ModelLoaded comes without the token texts and kinds (a client that shows no labels, such as
    #: ``generate``: their decoding costs about 0.3 s for Gemma's 262,144 tokens)
    labels: bool = True
