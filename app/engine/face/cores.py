"""How many cores decode: llama.cpp's default thread count, without importing llama_cpp (the window asks
too, to size its frame budget: ``app.ui.controllers.frame_budget``)."""
from __future__ import annotations

import os

#: The decode threads when a run does not say (``-t``): a whole number >= 1, else every physical core.  For
#: a machine shared with other work, and for the test suite, whose parallel workers would otherwise each start
#: every core's worth of llama.cpp threads that spin-wait on each other.
THREADS_ENV = "SCATTER_PLAYGROUND_THREADS"


def decode_threads() -> int:
    """The default decode thread count: ``$SCATTER_PLAYGROUND_THREADS`` when set to a whole number >= 1, else
    :func:`physical_cores` (llama-cli's default).  Any other value is ignored (the run says nothing: a
    default, not a setting the writer typed)."""
    value = os.environ.get(THREADS_ENV, "").strip()
    if value.isdigit() and int(value) >= 1:
        return min(int(value), 1024)
    return physical_cores()


def physical_cores() -> int:
    """Physical core count from /proc/cpuinfo where available (llama-cli's default)."""
    try:
        pairs = set()
        phys = core = None
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("physical id"):
                    phys = line.split(":")[1].strip()
                elif line.startswith("core id"):
                    core = line.split(":")[1].strip()
                elif not line.strip() and core is not None:
                    pairs.add((phys, core))
                    phys = core = None
        if pairs:
            return len(pairs)
    except OSError:
        pass
    return max(1, (os.cpu_count() or 2) // 2 or 1)
