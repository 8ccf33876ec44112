"""How many cores decode, and whether one is left over, without importing llama_cpp.

llama.cpp's default thread count, and the rule both sides of the engine's pipe
pace live work by: where a run decodes on every core, each wake-up of the window
displaces one of llama.cpp's threads (the others wait for it at their next
barrier), so the engine's messages and the window's text appends are two
refreshes of a 60 Hz screen apart; with a core to spare, one refresh apart.  The
window sizes its frame budget by the same rule (``app.ui.controllers.frame_budget``).
"""
from __future__ import annotations

import os

from .core_count import math_cores

#: The decode threads when a run does not say (``-t``): a whole number >= 1, else llama.cpp's count.  For
#: a machine shared with other work, and for the test suite, whose parallel workers would otherwise each start
#: every core's worth of llama.cpp threads that spin-wait on each other.
THREADS_ENV = "SCATTER_PLAYGROUND_THREADS"


#: The least time between a run's messages to the window, and between the window's text appends, where
#: every core decodes: two refreshes of a 60 Hz screen (``app.engine.serve``, ``app.ui.controllers.redraw``).
SHARED_INTERVAL_S = 1 / 30
#: The same with a core to spare: one refresh.
SPARE_INTERVAL_S = 1 / 60


def logical_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def spare_core(threads: int | None, cores: int | None = None) -> bool:
    """Whether a run decoding on ``threads`` (None: the default count) leaves a core of ``cores`` (None: this
    machine's) idle."""
    return (cores or logical_cores()) > (threads or decode_threads())


def live_interval_s(threads: int | None, cores: int | None = None) -> float:
    """The least time between live messages and text appends of a run decoding on ``threads``."""
    return SPARE_INTERVAL_S if spare_core(threads, cores) else SHARED_INTERVAL_S


def decode_threads() -> int:
    """The default decode thread count: ``$SCATTER_PLAYGROUND_THREADS`` when set to a whole number >= 1, else
    llama-cli's default, the cores :func:`~app.engine.face.core_count.math_cores` counts.  Any other value is
    ignored (the run says nothing: a default, not a setting the writer typed)."""
    value = os.environ.get(THREADS_ENV, "").strip()
    if value.isdigit() and int(value) >= 1:
        return min(int(value), 1024)
    return math_cores()
