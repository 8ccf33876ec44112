"""Token texts cached on disk, so a model's 262,144 texts are computed once, not at every start.

Computing them takes one ``llama_detokenize`` call per token (about 0.5-1 s for
Gemma 3); reading them back takes a few tens of milliseconds.  A cache file
belongs to one model file, identified by its path, size and mtime (and the
llama-cpp-python version and the token count); anything else is a miss.

File layout (little-endian): ``MAGIC``, u32 header length, the header (JSON:
the key, ``n``, the blob's crc32), ``n + 1`` u32 offsets, then the blob of all
texts.  Files are written atomically; a damaged one is ignored and rewritten.
Nothing here is needed for correctness: any failure means "compute them".
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
import zlib
from array import array
from collections.abc import Sequence
from pathlib import Path

MAGIC = b"SPVOCAB1"
ENV_VAR = "SCATTER_PLAYGROUND_CACHE"
KEEP = 8  # cache files kept (the most recently used)


def cache_root() -> Path:
    """Scatter Playground's cache folder (``$SCATTER_PLAYGROUND_CACHE`` or the platform's)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("scatter-playground", appauthor=False))


def model_key(model_path: str | os.PathLike, n_tokens: int) -> dict | None:
    """What identifies a model file's texts; None if the file cannot be stat'ed."""
    try:
        p = Path(model_path).resolve()
        st = p.stat()
    except OSError:
        return None
    try:
        from llama_cpp import __version__ as llama_version
    except ImportError:  # pragma: no cover
        llama_version = "?"
    return {"model": str(p), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "n_tokens": int(n_tokens), "llama_cpp": llama_version, "format": 1}


def _file_for(key: dict, root: Path | None) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]
    return (root or cache_root()) / "vocab" / f"{digest}.bin"


def load(key: dict, root: Path | None = None) -> list[bytes] | None:
    path = _file_for(key, root)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        if not data.startswith(MAGIC):
            return None
        pos = len(MAGIC)
        (hlen,) = struct.unpack_from("<I", data, pos)
        pos += 4
        header = json.loads(data[pos:pos + hlen])
        pos += hlen
        n = header["n"]
        if header.get("key") != key or n != key["n_tokens"]:
            return None
        offsets = array("I")
        offsets.frombytes(data[pos:pos + 4 * (n + 1)])
        if len(offsets) != n + 1:
            return None
        if sys.byteorder != "little":  # pragma: no cover
            offsets.byteswap()
        blob = data[pos + 4 * (n + 1):]
        if offsets[0] != 0 or offsets[-1] != len(blob) or zlib.crc32(blob) != header["crc32"]:
            return None
        o = offsets.tolist()
        texts = [blob[a:b] for a, b in zip(o, o[1:])]
    except (ValueError, KeyError, TypeError, struct.error):
        return None
    try:
        os.utime(path)  # most recently used: kept by the pruning
    except OSError:
        pass
    return texts


def save(key: dict, texts: Sequence[bytes], root: Path | None = None) -> bool:
    """Write the cache file (atomically); False if it could not be written."""
    path = _file_for(key, root)
    blob = b"".join(texts)
    offsets = array("I", [0])
    total = 0
    for t in texts:
        total += len(t)
        offsets.append(total)
    if sys.byteorder != "little":  # pragma: no cover
        offsets.byteswap()
    header = json.dumps({"key": key, "n": len(texts), "crc32": zlib.crc32(blob)}).encode()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("wb") as f:
            f.write(MAGIC + struct.pack("<I", len(header)) + header)
            f.write(offsets.tobytes())
            f.write(blob)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        return False
    _prune(path.parent)
    return True


def _prune(folder: Path) -> None:
    try:
        files = sorted(folder.glob("*.bin"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[KEEP:]:
            old.unlink()
    except OSError:
        pass
