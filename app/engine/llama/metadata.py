"""A loaded model's GGUF metadata, read through llama.cpp (the model's name, its architecture, the
sizes the KV cache estimate needs)."""
from __future__ import annotations

import ctypes

import llama_cpp as ll


def meta_value(model, key: str) -> str:
    """A metadata value of a loaded model (``model``: its llama.cpp handle) as text ("" when absent)."""
    buf = ctypes.create_string_buffer(256)
    n = ll.llama_model_meta_val_str(model, key.encode(), buf, len(buf))
    return buf.value.decode("utf-8", "replace") if n >= 0 else ""
