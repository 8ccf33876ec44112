"""Checking a request's own fields (not the sampler's: those go through the formats' readers): each
bad value is one :class:`ApiError` naming the field, ``n_predict: expected an integer >= -1, got "x"``.
"""
from __future__ import annotations

import json
import math

from app.core.formats.report import FormatError

MISSING = object()


class ApiError(Exception):
    """A request the server refuses: the HTTP status, one line, and the field it names (if one)."""

    def __init__(self, status: int, message: str, field: str = ""):
        super().__init__(message)
        self.status, self.message, self.field = status, message, field


def shown(value) -> str:
    """A value as JSON, cut short (for an error line)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def bad(key: str, expected: str, value) -> ApiError:
    return ApiError(400, f"{key}: expected {expected}, got {shown(value)}", key)


def from_format(exc: FormatError) -> ApiError:
    """A format reader's error as a request's: the field it names, without the format's name."""
    message = str(exc)
    for prefix in ("llama-server request: ", "KoboldCpp generate fields: "):
        message = message.removeprefix(prefix)
    return ApiError(400, message, message.partition(":")[0])


def body_object(raw: bytes) -> dict:
    """The request's JSON object (an empty body is an empty object)."""
    if not raw.strip():
        return {}
    try:
        doc = json.loads(raw)
    except RecursionError:
        raise ApiError(400, "the JSON body is nested too deeply") from None
    except ValueError as exc:
        raise ApiError(400, f"the body is not JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(doc).__name__}")
    return doc


def integer(doc: dict, key: str, default, low: int, high: int = 2**31 - 1):
    value = doc.get(key, MISSING)
    if value is MISSING or value is None:
        return default
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) and value == int(value)
    if not ok or not low <= int(value) <= high:
        limit = f">= {low}" if high == 2**31 - 1 else f"from {low} to {high}"
        raise bad(key, f"an integer {limit}", value)
    return int(value)


def boolean(doc: dict, key: str, default: bool) -> bool:
    value = doc.get(key, MISSING)
    if value is MISSING or value is None:
        return default
    if not isinstance(value, bool):
        raise bad(key, "true or false", value)
    return value


def text(doc: dict, key: str, default: str = "", *, required: bool = False) -> str:
    value = doc.get(key, MISSING)
    if value is MISSING or value is None:
        if required:
            raise ApiError(400, f"{key}: required", key)
        return default
    if not isinstance(value, str):
        raise bad(key, "a string", value)
    return value


def stop_strings(doc: dict, key: str = "stop") -> tuple[str, ...]:
    """``stop``: a string or a list of strings (empty ones left out)."""
    value = doc.get(key, MISSING)
    if value is MISSING or value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise bad(key, "a string or a list of strings", value)
    if len(value) > 64 or any(len(s) > 4096 for s in value):
        raise ApiError(400, f"{key}: at most 64 strings of at most 4096 characters", key)
    return tuple(s for s in value if s)
