"""RPC server lists and tensor splits as the user writes them: parsing and checks, plain data only.

The window's Model page, the command line's ``--rpc`` / ``-ts`` and the engine's load read them
here; the handshake with a server and everything that talks to llama.cpp is in
:mod:`app.engine.rpc` (on the engine's side of the face).
"""
from __future__ import annotations

import math
import re

MAX_SERVERS = 16  # GGML_RPC_MAX_SERVERS


def parse_endpoints(text: str) -> tuple[str, ...]:
    """``host:port[,host:port...]`` (llama-cli's ``--rpc``) as a tuple; ValueError names a bad entry."""
    if not text.strip():
        raise ValueError("--rpc: expected host:port[,host:port...], got nothing")
    out: list[str] = []
    for raw in text.split(","):
        entry = raw.strip()
        host, sep, port = entry.rpartition(":")
        if not sep or not host or any(c.isspace() for c in entry) or ":" in host:
            raise ValueError(f"--rpc: {entry!r} is not host:port")
        if not port.isdigit() or not 1 <= int(port) <= 65535:
            raise ValueError(f"--rpc {entry}: the port must be 1 to 65535, got {port!r}")
        endpoint = f"{host}:{int(port)}"
        if endpoint in out:
            raise ValueError(f"--rpc: {endpoint} is listed twice")
        out.append(endpoint)
    if len(out) > MAX_SERVERS:
        raise ValueError(f"--rpc: llama.cpp takes at most {MAX_SERVERS} servers, got {len(out)}")
    return tuple(out)


def parse_tensor_split(text: str) -> tuple[float, ...]:
    """``--tensor-split`` as llama-cli reads it: proportions separated by ``,`` or ``/`` ("3,1")."""
    words = [w.strip() for w in re.split(r"[,/]+", text.strip()) if w.strip()]
    if not words:
        raise ValueError("--tensor-split: expected proportions such as 3,1, got nothing")
    values = []
    for word in words:
        try:
            value = float(word)
        except ValueError:
            raise ValueError(f"--tensor-split: {word!r} is not a number") from None
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"--tensor-split: each proportion must be a number >= 0, got {word}")
        values.append(value)
    if not any(values):
        raise ValueError("--tensor-split: at least one proportion must be above 0")
    return tuple(values)


def tensor_split_problem(split, rpc, local_gpus: int | None) -> str | None:
    """Why ``-ts`` means nothing here, in one line; None when it does (or ``local_gpus`` is unknown).

    Without RPC servers it shares the offloaded layers among this machine's GPUs, and with fewer than
    two of them llama.cpp would ignore it without a word.  The one check: the CLI asks it before
    anything loads (a usage error), the window's Model page before it stops anything, and the engine's
    load for every other way in.
    """
    if not split or rpc or local_gpus is None or local_gpus >= 2:
        return None
    shown = ",".join(f"{x:g}" for x in split)
    return (f"-ts {shown} (tensor split): without --rpc (RPC servers) it splits among this machine's GPUs, "
            f"and it has {local_gpus}; add RPC servers, or leave the split out")


def split_endpoint(endpoint: str) -> tuple[str, int]:
    host, _, port = endpoint.rpartition(":")
    return host, int(port)
