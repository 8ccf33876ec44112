"""Will a context fit in memory?  Checked before llama.cpp tries (and takes seconds to fail).

The KV cache holds, per token and layer, a key and a value of
``head_count_kv x key_length`` (and ``value_length``) 16-bit numbers; the
model's metadata gives those sizes.  The estimate ignores sliding-window
layers (which hold less), so it errs on the large side: a context it refuses
would not have fitted anyway, unless the model uses sliding windows heavily,
in which case the margin below lets it through.
"""
from __future__ import annotations

import os

import llama_cpp as ll

from app.engine.llama.metadata import meta_value

#: A context is refused only when its estimate exceeds free memory by this factor.
MARGIN = 1.5
BYTES_PER_VALUE = 2  # f16, llama.cpp's default cache type


class ContextTooLarge(ValueError):
    pass


def kv_bytes_per_token(model) -> int:
    """Bytes of KV cache one token takes in every layer (an upper estimate)."""
    handle = model.handle
    arch = model.info.architecture
    n_layer = int(ll.llama_model_n_layer(handle))
    n_head = max(1, int(ll.llama_model_n_head(handle)))
    n_head_kv = int(ll.llama_model_n_head_kv(handle)) or n_head
    head = int(ll.llama_model_n_embd(handle)) // n_head
    key = _int_meta(handle, f"{arch}.attention.key_length") or head
    value = _int_meta(handle, f"{arch}.attention.value_length") or head
    return n_layer * n_head_kv * (key + value) * BYTES_PER_VALUE


def _int_meta(handle, key: str) -> int:
    try:
        return int(meta_value(handle, key))
    except ValueError:
        return 0


def free_memory_bytes() -> int | None:
    """Memory the system can still give (MemAvailable on Linux); None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_context_fits(model, n_ctx: int, n_seq: int = 1) -> None:
    """Raise ContextTooLarge, naming the size, when the KV cache would not fit in free memory."""
    if getattr(model, "handle", None) is None:
        return  # not a llama.cpp model (the fake backend)
    need = kv_bytes_per_token(model) * int(n_ctx) * int(n_seq)
    free = free_memory_bytes()
    if free is not None and need > free * MARGIN:
        lanes = f" for {n_seq} lanes" if n_seq > 1 else ""
        raise ContextTooLarge(
            f"-c {n_ctx}: a context of {n_ctx} tokens{lanes} needs about {need / 2**30:.1f} GiB for its KV cache, "
            f"but only {free / 2**30:.1f} GiB of memory is free; lower the context size"
        )
