"""What the engine says about a model, and how a load is asked for (no llama.cpp here)."""
from __future__ import annotations

from dataclasses import dataclass


class ModelLoadError(Exception):
    """A model could not be loaded; the message names the file and the reason."""


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


@dataclass(frozen=True)
class LoadRequest:
    """A model to load: ``path`` None means the bundled model."""

    path: str | None = None
    gpu_layers: int | None = None  # None: all layers when the build can offload
