"""The session file: a zip archive (deflate) of ``session.json`` and one ``.npy`` array per record column.

Members::

    session.json                 the structure (see app.core.session.document), UTF-8 JSON
    records/<column>.npy         a record column (see app.core.session.records_codec), NumPy's .npy format

Reading never trusts the archive: its size, the members' unpacked sizes,
their names, the JSON and every array are checked, and any problem is a
ValueError with the reason (arrays are read without pickles).
"""
from __future__ import annotations

import io
import json
import zipfile

import numpy as np

JSON_MEMBER = "session.json"
ARRAY_PREFIX = "records/"
ARRAY_SUFFIX = ".npy"
#: Larger files are refused (a 2,000-step session takes well under 1 MiB).
MAX_FILE_BYTES = 512 * 1024 * 1024
#: All members unpacked together may not exceed this (a zip bomb stops here).
MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024
#: Nor this many times the file's own size (above a floor): the app's sessions unpack to well under
#: 20 times their size, deflate's limit is about 1032, and a 1.9 MB zip holding a 1.9 GB member must be
#: refused before a byte of it is unpacked.
MAX_RATIO, RATIO_FLOOR_BYTES = 64, 16 * 1024 * 1024


def unpacked_limit(file_bytes: int) -> int:
    """How many bytes a file of ``file_bytes`` may unpack to."""
    return min(MAX_UNPACKED_BYTES, max(RATIO_FLOOR_BYTES, MAX_RATIO * file_bytes))
_DATE = (1980, 1, 1, 0, 0, 0)  # the same session gives the same bytes
#: Deflate's level: 9 saves under 1 % on a session's columns and takes three times as long.
LEVEL = 6


def _member(zf: zipfile.ZipFile, name: str, data: bytes, level: int) -> None:
    info = zipfile.ZipInfo(name, _DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    zf.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=level)


def pack(doc: dict, arrays: dict[str, np.ndarray], level: int = LEVEL) -> bytes:
    """The file's bytes; ``level``: deflate's (1 fastest, 9 smallest)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        text = json.dumps(doc, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
        _member(zf, JSON_MEMBER, text.encode("ascii"), level)
        for name, array in arrays.items():
            out = io.BytesIO()
            np.lib.format.write_array(out, np.ascontiguousarray(array), allow_pickle=False)
            _member(zf, f"{ARRAY_PREFIX}{name}{ARRAY_SUFFIX}", out.getvalue(), level)
    return buf.getvalue()


def _read(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    with zf.open(info) as f:
        data = f.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise ValueError(f"damaged archive (member {info.filename!r} is not the size it says)")
    return data


def _json(raw: bytes):
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"damaged {JSON_MEMBER} (not UTF-8: {exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"damaged {JSON_MEMBER} (not JSON: {exc.msg} at line {exc.lineno}, "
                         f"column {exc.colno})") from None
    except (RecursionError, ValueError):
        raise ValueError(f"damaged {JSON_MEMBER} (nested too deeply or a number too long)") from None


def _array(name: str, raw: bytes) -> np.ndarray:
    try:
        return np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)
    except (ValueError, OSError, EOFError, TypeError) as exc:
        raise ValueError(f"damaged member {name!r} ({exc})") from None


def unpack(raw: bytes, check_header=None) -> tuple[object, dict[str, np.ndarray]]:
    """``(session.json's value, arrays by column name)`` from a file's bytes.

    ``check_header(doc)`` runs on the JSON before any array is read (a newer
    version is then refused without reading on).
    """
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile:
        raise ValueError("not a session file (not a zip archive, or a truncated one)") from None
    except Exception as exc:  # NotImplementedError for a bad version field, struct.error ...
        raise ValueError(f"damaged archive ({type(exc).__name__}: {exc})") from None
    with zf:
        infos = {info.filename: info for info in zf.infolist()}
        if JSON_MEMBER not in infos:
            raise ValueError(f"not a session file (no {JSON_MEMBER} in the archive)")
        claimed, limit = sum(info.file_size for info in infos.values()), unpacked_limit(len(raw))
        if claimed > limit:
            raise ValueError(f"unpacks to {claimed / 2**20:.0f} MiB, more than a {len(raw) / 2**10:.0f} KiB "
                             f"session may ({limit / 2**20:.0f} MiB): not a file this program wrote")
        try:
            doc = _json(_read(zf, infos[JSON_MEMBER]))
            if check_header is not None:
                check_header(doc)
            arrays = {}
            for name, info in infos.items():
                if name.startswith(ARRAY_PREFIX) and name.endswith(ARRAY_SUFFIX):
                    arrays[name[len(ARRAY_PREFIX):-len(ARRAY_SUFFIX)]] = _array(name, _read(zf, info))
        except ValueError:
            raise
        except Exception as exc:  # BadZipFile, zlib.error, EOFError ...: the archive is damaged
            raise ValueError(f"damaged archive ({type(exc).__name__}: {exc})") from None
    return doc, arrays
