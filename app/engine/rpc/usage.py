"""How much memory llama.cpp put on each RPC server, read from its own log lines.

llama.cpp has no C function for a device's share of a model (its memory
breakdown is C++ only), but it logs each buffer it makes, named after the
buffer type, which for RPC carries the server::

    load_tensors: RPC0[127.0.0.1:50052] model buffer size =    35.82 MiB
    llama_kv_cache: RPC0[127.0.0.1:50052] KV buffer size =     0.25 MiB
    sched_reserve: RPC0[127.0.0.1:50052] compute buffer size =    11.79 MiB

Those lines are info-level, so the ``llama_cpp`` logger is opened to info
while a model or a context is made, and only these lines are kept.  They reach
that logger through the callback the model installed before it loaded
(``app.engine.llama.model.ensure_backend``): this module sits below the model
and never reaches up to install it.
"""
from __future__ import annotations

import logging
import re
from contextlib import contextmanager

_LINE = re.compile(r"\bRPC\d+\[([^\]]+):0*(\d+)\]\s+(.+?) buffer size =\s*([0-9.]+) MiB")
#: Buffers of a context (replaced when a new context is made); the rest belong to the model.
CONTEXT_KINDS = ("KV", "compute", "RS")


class BufferSizes(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.sizes: dict[tuple[str, str], float] = {}  # (host:port, kind) -> bytes

    def emit(self, record: logging.LogRecord) -> None:
        for host, port, kind, mib in _LINE.findall(record.getMessage()):
            key = (f"{host}:{int(port)}", kind)
            self.sizes[key] = self.sizes.get(key, 0.0) + float(mib) * 2**20

    @contextmanager
    def capture(self, new_context: bool = False):
        """Collect the buffer lines logged meanwhile (a new context replaces the last one's)."""
        if new_context:
            self.sizes = {k: v for k, v in self.sizes.items() if k[1] not in CONTEXT_KINDS}
        log = logging.getLogger("llama_cpp")
        old_level = log.level
        if log.getEffectiveLevel() > logging.INFO:
            log.setLevel(logging.INFO)
        log.addHandler(self)
        try:
            yield self
        finally:
            log.removeHandler(self)
            log.setLevel(old_level)

    def used(self, endpoint: str) -> int:
        return int(sum(v for (e, _), v in self.sizes.items() if e == endpoint))
