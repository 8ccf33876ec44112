"""What the server says about itself and its model (the GET endpoints of each API).

References: llama.cpp ``tools/server/README.md`` ("GET /health", "GET /props", "GET /v1/models");
KoboldCpp's ``koboldcpp.py`` (``do_GET``: ``/api/v1/model``, ``/api/extra/version``,
``/api/extra/true_max_context_length``, ``/api/v1/config/max_context_length``).
"""
from __future__ import annotations

from app.core.llamacpp.server import FIELDS as SERVER_FIELDS

from .served import Served

#: The KoboldCpp version whose API this server speaks (the fields of /api/v1/generate and /api/extra/*).
KOBOLD_VERSION = "1.98"
#: What /v1/models and OpenAI responses call this server's build (llama-server: "b<build number>").
FINGERPRINT = "b-scatter-playground"


def health() -> dict:
    return {"status": "ok"}


def _settings_json(served: Served) -> dict:
    s = served.base
    out: dict = {"n_ctx": served.n_ctx, "n_predict": -1, "seed": s.seed}
    for field, name in SERVER_FIELDS.items():
        value = s.get(field)
        out[name] = list(value) if isinstance(value, tuple) else value
    return out


def props(served: Served) -> dict:
    """llama-server's ``GET /props`` (the fields a frontend reads)."""
    template = served.chat_template
    return {
        "default_generation_settings": {"n_ctx": served.n_ctx, "params": _settings_json(served), "id": 0,
                                        "is_processing": served.runner.current is not None},
        "total_slots": 1,
        "model_path": served.info.path,
        "model_alias": served.model_name,
        "chat_template": template.text if template is not None else "",
        "modalities": {"vision": False, "audio": False},
        "build_info": FINGERPRINT,
        "n_ctx": served.n_ctx,
        "scatter": True,
    }


def models(served: Served) -> dict:
    """``GET /v1/models``: OpenAI's list (``data``), with llama-server's ``models`` beside it."""
    info = served.info
    meta = {"n_vocab": info.n_vocab, "n_ctx_train": info.n_ctx_train, "n_params": info.n_params,
            "size": info.size_bytes, "n_ctx": served.n_ctx}
    entry = {"id": served.model_name, "object": "model", "created": int(served.started_at), "owned_by": "llamacpp",
             "meta": meta}
    return {"object": "list", "data": [entry],
            "models": [{"name": served.model_name, "model": served.model_name, "type": "model",
                        "capabilities": ["completion"], "description": info.description}]}


def kobold_model(served: Served) -> dict:
    return {"result": f"koboldcpp/{served.model_name}"}


def kobold_version(served: Served) -> dict:
    return {"result": "KoboldCpp", "version": KOBOLD_VERSION, "protected": served.api_key is not None,
            "txt2img": False, "vision": False, "audio": False, "transcribe": False, "multiplayer": False,
            "websearch": False, "tts": False, "embeddings": False, "jinja": False, "scatter_playground": True}


def kobold_context(served: Served) -> dict:
    return {"value": served.n_ctx}
