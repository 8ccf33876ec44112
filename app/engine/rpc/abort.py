"""A server that dies *during* a decode: turning llama.cpp's abort into an error report.

ggml-rpc's dispatcher thread meets the closed connection first and calls
``GGML_ABORT`` (``ggml_abort`` -> the abort callback, if one is set -> ``abort()``).
Nothing can make ``abort()`` return, and the thread that waits for the
dispatcher (the engine thread, inside ``llama_decode`` or
``llama_get_logits_ith``) would wait forever once the dispatcher stops.

What is done here, only while someone has registered a rescue handler (the
engine does, the ``generate`` command does during a run):

1. ``ggml_set_abort_callback`` routes the abort into Python.  An abort from
   ggml-rpc's code calls every handler with one line naming the lost server,
   then *parks its own thread for good* instead of returning into ``abort()``.
2. Every connection of the models that were using RPC is shut down, so the
   other servers free what they held and accept a new client; a dispatcher that
   then fails parks too.  Those models are abandoned, never freed (freeing
   would wait on a parked dispatcher), and so is the thread stuck in them: the
   engine carries on with a fresh thread, the ``generate`` command exits.
3. llama.cpp keeps one dispatcher per endpoint *string* for as long as any
   buffer refers to it, so a parked one would answer every later use of that
   string.  A later connection to the same server therefore spells the port
   with one more leading zero (``127.0.0.1:050052``), which llama.cpp's
   ``std::stoi`` reads as the same port: a new dispatcher, a new connection.

Without a handler, or for any other abort, the callback writes the message as
one line and ``abort()`` ends the process, as it would anyway.  The engine's
process (app.engine.serve) registers no handler: it sets :data:`last_words`, which
sends the message to the window, and lets ``abort()`` end it; the window starts a
new engine.  Only ``generate --rpc``, in-process, still parks (app.cli.rpc_client).
"""
from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable
from contextlib import contextmanager

from app.engine.face.endpoints import split_endpoint

Handler = Callable[[str], bool]
_ABORT_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p)

_lock = threading.Lock()
_handlers: list[Handler] = []
_links: list = []  # live RpcLinks (app.engine.rpc.link): their watches name the lost server
_spent: dict[str, int] = {}  # endpoint -> spellings given to parked dispatchers
_installed = None
#: Called with every abort's message first, on the aborting thread (the engine process sends it on).
last_words: Callable[[str], None] | None = None


def spelling(endpoint: str) -> str:
    """How to name ``endpoint`` to llama.cpp now (a fresh spelling after a parked dispatcher)."""
    host, port = split_endpoint(endpoint)
    return f"{host}:{'0' * _spent.get(endpoint, 0)}{port}"


def held_connection(endpoint: str) -> str:
    """How this process already reaches ``endpoint``: "" (not at all), "alive" (a loaded model holds a
    working connection, which llama.cpp will share: a new one would wait, as a server serves one
    client at a time) or "dead" (the server is gone: the next use gets a fresh spelling)."""
    with _lock:
        states = [link.watch.connection_state(endpoint) for link in _links]
    if "dead" in states:
        with _lock:
            _spent[endpoint] = _spent.get(endpoint, 0) + 1
        return "dead"
    return "alive" if "alive" in states else ""


def install() -> None:
    """Route ggml's aborts through :func:`_on_abort` (once; kept for the life of the process)."""
    global _installed
    with _lock:
        if _installed is None:
            from app.engine.rpc.ggml import ggml

            ggml().set_abort_callback(ctypes.cast(_on_abort, ctypes.c_void_p))
            _installed = _on_abort


def track(link) -> None:
    with _lock:
        _links.append(link)


def untrack(link) -> None:
    with _lock:
        if link in _links:
            _links.remove(link)


@contextmanager
def rescue(handler: Handler):
    """Call ``handler(message)`` (on llama.cpp's thread) if an RPC server is lost mid-decode meanwhile;
    it returns True when it took care of it (it may also end the process)."""
    install()
    with _lock:
        _handlers.append(handler)
    try:
        yield
    finally:
        with _lock:
            if handler in _handlers:
                _handlers.remove(handler)


def add_handler(handler: Handler) -> None:
    """``handler(message) -> bool`` (True: it took care of the failure); installs nothing yet."""
    with _lock:
        _handlers.append(handler)


def remove_handler(handler: Handler) -> None:
    with _lock:
        if handler in _handlers:
            _handlers.remove(handler)


def _abandon_links() -> None:
    """Shut every tracked connection.  Under _lock."""
    for link in _links:
        for endpoint in link.endpoints:
            _spent[endpoint] = _spent.get(endpoint, 0) + 1
        link.abandon()
    _links.clear()


def _suspect() -> str | None:
    """The server a failure inside llama.cpp is about: one that closed its connection, else the only
    one in use (a frozen server closes nothing; its connection's deadline ran out).  Under _lock."""
    for link in _links:
        lost = link.frozen or link.watch.first_lost()
        if lost:
            return lost
    endpoints = {e for link in _links for e in link.endpoints}
    return endpoints.pop() if len(endpoints) == 1 else None


def _during() -> str:
    """What llama.cpp was doing with the servers: "the load" (a link's load guard is on) or "a decode".  Under _lock."""
    return "the load" if any(link.guard is not None for link in _links) else "a decode"


def _describe(text: str, lost: str | None, own_thread: bool, during: str) -> str:
    """One line for an RPC failure inside llama.cpp, naming the server when it is known."""
    reason = text.rpartition(": ")[2] or text
    where = f"RPC server {lost}" if lost else "an RPC server"
    what = f"went away or stopped answering during {during}"
    if own_thread:  # llama.cpp's connect or handshake, on the caller's thread
        what = "could not be used" + (" during the load" if during == "the load" else "")
    return (f"{where} {what} (llama.cpp: {reason}); the text so far is kept: "
            "load the model again, with the servers once they are back or without them")


@_ABORT_CALLBACK
def _on_abort(message: bytes) -> None:  # pragma: no cover - runs on a llama.cpp thread just before abort()
    text = (message or b"").decode("utf-8", "replace").strip()
    # A dispatcher thread (not one Python made) fails on a dead connection; a Python thread fails
    # in llama.cpp's connect or handshake.  Dispatchers that fail once their links were abandoned
    # (shut down above) just park: their incident was reported already.
    own_thread = not isinstance(threading.current_thread(), threading._DummyThread)
    rpc_failure = "ggml-rpc" in text
    with _lock:
        handlers = list(_handlers)
        if not handlers:  # the engine's process, or no run: say it, then abort() ends the process
            if rpc_failure:
                text = _describe(text, _suspect(), own_thread, _during())
            if last_words is not None:
                last_words(text)
            os.write(2, f"llama.cpp aborted: {text}\n".encode("utf-8", "replace"))
            return
        if not rpc_failure:
            os.write(2, f"llama.cpp aborted: {text}\n".encode("utf-8", "replace"))
            return  # abort() follows
        report = bool(_links) or own_thread
        lost, during = (_suspect(), _during()) if report else (None, "a decode")
        if report:
            _abandon_links()
    if report:
        line = _describe(text, lost, own_thread, during)
        claimed = False
        for handler in handlers:
            try:
                claimed = bool(handler(line)) or claimed
            except Exception:
                pass
        if not claimed:  # nobody waits on this thread's work: end as llama.cpp would
            os.write(2, f"llama.cpp aborted: {line}\n".encode("utf-8", "replace"))
            return
    threading.Event().wait()  # never return: ggml_abort() would call abort() next
