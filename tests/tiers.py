"""The suite's two tiers.

``make test`` and ``make check`` run the default tier; ``make test-full`` (``SCATTER_TESTS=full``) runs
the full one, which is the same tests with every property test at its whole example count and the long
runs at their whole length.  The default tier keeps every test: a property gets a fifth of its examples
(at least 10, new random ones each run, so runs together cover what one full run does), and a long run
keeps the steps that show its bug (a per-step bound, say) at a length that still shows it.
"""
from __future__ import annotations

import os

FULL = os.environ.get("SCATTER_TESTS", "") == "full"


def examples(full: int) -> int:
    """Hypothesis examples for a property whose full count is ``full``."""
    return full if FULL else max(10, full // 5)


def length(full: int, default: int) -> int:
    """How long a long run is: ``full`` in the full tier, ``default`` otherwise."""
    return full if FULL else default
