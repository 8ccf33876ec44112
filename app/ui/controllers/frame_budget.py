"""How often the window may draw a live frame during a run: a share of the run's time, set by idle cores.

Qt-free.  When the machine has no core beyond llama.cpp's decode threads (this
project's 2-core build machine: 2 threads), every millisecond the GUI thread
computes is taken from decoding, so live frames keep the GUI thread's CPU time
(frames, their painting, the engine's events and the text) under SHARED_SHARE
of the run's wall time.  With a core to spare the GUI thread may use half of it,
and frames follow the tokens up to the screen's refresh rate (MAX_FPS).  Either
way at least MIN_FPS frames a second are drawn while a run lasts (the live view
is the product), and never more than MAX_FPS.

The decode threads are the run's own (``-t``, the run settings' ``n_threads``),
set at each run's start (``for_run``): a writer who leaves a core to the window
gets frames that follow the tokens.  Without one, llama.cpp's default.
"""
from __future__ import annotations

from app.engine.face.cores import decode_threads as default_decode_threads
from app.engine.face.cores import live_interval_s, logical_cores, spare_core

#: The GUI thread's share of a run's wall time when decoding uses every core.
SHARED_SHARE = 0.04
#: Its share when a core is idle: half of that core.
IDLE_SHARE = 0.5
MIN_FPS, MAX_FPS = 10.0, 60.0
#: How quickly the estimate of a frame cycle's cost follows new measurements.
SMOOTHING = 0.3


class FrameBudget:
    """``observe(cycle_cpu_s)`` after each live frame; ``wait_s()`` until the next one may start."""

    def __init__(self, cores: int | None = None, decode_threads: int | None = None):
        self.cores = cores or logical_cores()
        self.decode_threads = decode_threads or default_decode_threads()
        self.cycle_s = 0.005  # a running estimate of one frame cycle's GUI-thread CPU

    def for_run(self, decode_threads: int | None) -> None:
        """The budget of a run that decodes on ``decode_threads`` (None: llama.cpp's default count)."""
        self.decode_threads = decode_threads or default_decode_threads()

    @property
    def share(self) -> float:
        """The GUI thread's share of the run's wall time."""
        return IDLE_SHARE if spare_core(self.decode_threads, self.cores) else SHARED_SHARE

    @property
    def text_interval_s(self) -> float:
        """The least time between two text appends (the engine sends its steps as far apart)."""
        return live_interval_s(self.decode_threads, self.cores)

    def observe(self, cycle_cpu_s: float) -> None:
        self.cycle_s += SMOOTHING * (max(cycle_cpu_s, 0.0) - self.cycle_s)

    def wait_s(self) -> float:
        return min(1.0 / MIN_FPS, max(1.0 / MAX_FPS, self.cycle_s / self.share))
