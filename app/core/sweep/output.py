"""The sweep's CSV: one JSON header line, the column names, then one row per sample.

The first line is ``# `` followed by a JSON object (the *header*): ``format``,
``format_version``, ``app_version``, the ``plan`` (swept flags and values,
baseline temperatures, base preset and flags, prompt ids with a hash of each
text, seeds, tokens per sample, context size, matching on or off), the
``model`` (file name, name, architecture, vocabulary size, size in bytes) and
the ``columns``.  Then comes an ordinary CSV: a line of column names and one
line per sample, written a whole group (the seeds of one point and prompt) at a
time and flushed, so an interrupted sweep leaves complete rows only.

Values: numbers as Python writes them (``repr``: exact, ``nan`` when
undefined), ``matched_reached`` as 0/1 (empty when not matched), and ``text``
(the sample's generated text) as a JSON string literal, so every row is one
line.  Readers that skip ``#`` comment lines (``pandas.read_csv(path,
comment="#")``) read the rest as is.

Resuming (:func:`resume`) keeps the rows already written and skips their
samples; the file's header must equal the new run's (``app_version`` aside), or
a ValueError names the first difference.  A last line cut short by a crash is
dropped.
"""
from __future__ import annotations

import csv
import io
import json
import os
from importlib import metadata
from pathlib import Path

from app.fileio import atomic_write, read_limited

from .metrics import METRICS
from .plan import Axis, Sample, SweepPlan

FORMAT = "scatter-playground sweep"
#: Raised whenever a column or a metric's definition changes (a file of another version cannot be resumed).
FORMAT_VERSION = 1
MATCH_COLUMNS = ("matched_temp", "matched_reached")
TEXT_COLUMNS = ("series", "prompt", "flags", "stop")
#: A larger file is no sweep this program wrote (1000 x 1000 points x seeds of short texts fit well below).
MAX_SWEEP_BYTES = 4 * 2**30


def app_version() -> str:
    try:
        return metadata.version("scatter-playground")
    except metadata.PackageNotFoundError:
        return "unknown"


def columns(axes: tuple[Axis, ...]) -> list[str]:
    names = [a.column for a in axes]
    temp = [] if "temp" in names else ["temp"]
    return ["series", *names, *temp, "prompt", "seed", "flags", "stop", *METRICS, *MATCH_COLUMNS, "text"]


def model_description(info) -> dict:
    """What the header says of the model (a resumed run must use the same)."""
    return {"file": os.path.basename(info.path), "name": info.name, "architecture": info.architecture,
            "n_vocab": info.n_vocab, "size_bytes": info.size_bytes}


def make_header(plan: SweepPlan, model: dict) -> dict:
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "app_version": app_version(),
            "plan": plan.describe(), "model": model, "columns": columns(plan.axes)}


def sample_row(sample: Sample, axes: tuple[Axis, ...], metrics: dict, match, stop: str, text: str) -> dict:
    """A sample's row (``match``: an ``EntropyMatch`` or None)."""
    s = sample.settings
    row: dict[str, object] = {"series": sample.point.series}
    for a in axes:
        row[a.column] = s.get(a.flag.field)
    row.setdefault("temp", s.temp)
    row.update(prompt=sample.prompt.id, seed=sample.seed, flags=sample.point.flags, stop=stop)
    row.update({m: metrics[m] for m in METRICS})
    row["matched_temp"] = float("nan") if match is None else float(match.temperature)
    row["matched_reached"] = None if match is None else bool(match.reached)
    row["text"] = text
    return row


def row_key(row: dict) -> tuple[str, str, str, int]:
    return (row["series"], row["flags"], row["prompt"], int(row["seed"]))


def _cell(name: str, value) -> str:
    if name == "text":
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _parse(name: str, cell: str):
    if name == "text":
        return json.loads(cell)
    if name in TEXT_COLUMNS:
        return cell
    if name == "matched_reached":
        return None if cell == "" else cell == "1"
    if name == "seed":
        return int(cell)
    return float(cell)


class SweepCsv:
    """Appends rows to a sweep file (:func:`create` or :func:`resume` it)."""

    def __init__(self, path: Path, header: dict):
        self.path = Path(path)
        self.columns = header["columns"]
        self.rows_written = 0

    def write_rows(self, rows: list[dict]) -> None:
        """Append whole rows in one write, flushed (OSError if the disk refuses)."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        for row in rows:
            writer.writerow([_cell(c, row[c]) for c in self.columns])
        data = memoryview(buf.getvalue().encode("utf-8"))
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
        try:
            start = os.lseek(fd, 0, os.SEEK_END)
            try:
                while data:
                    data = data[os.write(fd, data):]
            except OSError:  # a full disk or a size limit: no half group is left behind
                _truncate_quietly(fd, start)
                raise
        finally:
            os.close(fd)
        self.rows_written += len(rows)


def _truncate_quietly(fd: int, size: int) -> None:
    try:
        os.ftruncate(fd, size)
    except OSError:
        pass


def create(path, header: dict, *, force: bool = False) -> SweepCsv:
    """A new file with the header and column line (FileExistsError if it exists, unless ``force``)."""
    path = Path(path)
    if path.exists() and not force:
        raise FileExistsError(f"{path}: exists (resume it, or overwrite it)")
    buf = io.StringIO()
    buf.write("# " + json.dumps(header, allow_nan=False) + "\n")
    csv.writer(buf, lineterminator="\n").writerow(header["columns"])
    # Whole or absent: a full disk leaves no 0-byte file that --resume would then refuse.
    atomic_write(path, buf.getvalue().encode("utf-8"), mode=0o666 & ~_umask())
    return SweepCsv(path, header)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _first_difference(old, new, where: str = "") -> str | None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            found = _first_difference(old.get(key), new.get(key), f"{where}.{key}" if where else key)
            if found:
                return found
        return None
    if old != new:
        return f"{where}: {json.dumps(old)} in the file, {json.dumps(new)} now"
    return None


def read_sweep(path) -> tuple[dict, list[dict]]:
    """The header and the rows of a sweep file (ValueError: not a sweep file, or a broken row).

    A last line without its newline (cut short) is left out.
    """
    path = Path(path)
    try:
        raw = read_limited(path, MAX_SWEEP_BYTES)  # a named pipe is refused (OSError), never waited on
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}, too large for a sweep file") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    lines = text.split("\n")
    complete = lines[:-1]  # the part after the last newline is cut short (or empty)
    if not complete or not complete[0].startswith("# "):
        raise ValueError(f"{path}: not a sweep file (its first line is not '# {{...}}')")
    try:
        header = json.loads(complete[0][2:])
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: the header line is not JSON ({exc.msg})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT or "columns" not in header:
        raise ValueError(f"{path}: not a sweep file (the header says no format {FORMAT!r})")
    names = header["columns"]
    body = list(csv.reader(complete[1:]))
    if not body or body[0] != names:
        raise ValueError(f"{path}: line 2 is not the header's column names")
    rows = []
    for number, cells in enumerate(body[1:], 3):
        if len(cells) != len(names):
            raise ValueError(f"{path}: line {number} has {len(cells)} values, expected {len(names)}")
        try:
            rows.append({n: _parse(n, c) for n, c in zip(names, cells)})
        except ValueError as exc:
            raise ValueError(f"{path}: line {number}: {exc}") from None
    return header, rows


def resume(path, header: dict) -> tuple[SweepCsv, list[dict]]:
    """Open a sweep file to go on with it: its rows so far (a cut-short last line is removed from the file).

    ValueError when its header differs from ``header`` (``app_version`` aside), naming the difference.
    """
    path = Path(path)
    old, rows = read_sweep(path)
    for key in ("format_version", "model", "plan", "columns"):
        diff = _first_difference(old.get(key), header.get(key), key)
        if diff:
            raise ValueError(f"{path}: made by a different sweep, so it cannot be resumed ({diff})")
    with open(path, "rb+") as f:  # drop a last line cut short by a crash
        data = f.read()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            f.truncate(end)
    out = SweepCsv(path, header)
    out.rows_written = len(rows)
    return out, rows

