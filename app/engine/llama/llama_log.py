"""Route llama.cpp's log output through Python logging (quiet by default)."""
from __future__ import annotations

import ctypes
import logging

import llama_cpp as ll

log = logging.getLogger("llama_cpp")
#: ggml_log_level: 1 debug, 2 info, 3 warn, 4 error, 5 continuation of the last line.
_LEVELS = {1: logging.DEBUG, 2: logging.INFO, 3: logging.WARNING, 4: logging.ERROR}
_last_level = logging.DEBUG
_installed = None


@ll.llama_log_callback
def _callback(level, text, user_data):  # pragma: no cover - called from C
    try:
        message = text.decode("utf-8", "replace").rstrip()
    except Exception:
        return
    global _last_level
    if level != 5:
        _last_level = _LEVELS.get(level, logging.DEBUG)
    if message:
        log.log(_last_level, message)


def install() -> None:
    """Send llama.cpp's messages to the ``llama_cpp`` logger (idempotent)."""
    global _installed
    if _installed is None:
        ll.llama_log_set(_callback, ctypes.c_void_p(0))
        _installed = _callback


class _ErrorCapture:
    def __init__(self):
        self.lines: list[str] = []

    def reason(self) -> str:
        """The most telling line: the first one, without its C function name."""
        if not self.lines:
            return ""
        line = self.lines[0]
        head, sep, tail = line.partition(": ")
        if sep and " " not in head:
            line = tail
        if "failed to read" in line or "truncated" in line:
            return f"the file is truncated or corrupt ({line})"
        return line


class _CaptureHandler(logging.Handler):
    def __init__(self, sink: _ErrorCapture):
        super().__init__(logging.ERROR)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        for prefix in ("llama_model_load: error loading model: ", "error loading model: "):
            if msg.startswith(prefix):
                msg = msg[len(prefix):]
        self.sink.lines.append(msg)


class capture_errors:
    """Collect llama.cpp's error lines while a call runs (for clear messages)."""

    def __enter__(self) -> _ErrorCapture:
        install()
        self.sink = _ErrorCapture()
        self.handler = _CaptureHandler(self.sink)
        log.addHandler(self.handler)
        return self.sink

    def __exit__(self, *exc) -> None:
        log.removeHandler(self.handler)
