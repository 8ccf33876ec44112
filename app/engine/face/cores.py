"""How many cores decode: llama.cpp's default thread count, without importing llama_cpp (the window asks
too, to size its frame budget: ``app.ui.controllers.frame_budget``)."""
from __future__ import annotations

import os


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
