"""A stage's constructor arguments, read from settings through the stage and flag tables."""
from __future__ import annotations

import functools
from collections.abc import Mapping

from .flagtable import SCATTER_ROWS
from .stagetable import SCATTER_PARAMS, STAGE_BY_NAME, StageRow


@functools.cache
def arg_paths(stage: StageRow) -> tuple[str, ...]:
    """The stage's arguments in order: field paths and markers, the scatter marker expanded."""
    paths: list[str] = []
    for arg in stage.args:
        paths += [row.field for row in SCATTER_ROWS] if arg == SCATTER_PARAMS else [arg]
    return tuple(paths)


def stage_args(name: str, settings, markers: Mapping[str, object] | None = None) -> list[tuple[str, object]]:
    """``(path, value)`` for each argument of stage ``name``'s constructor, in order.

    Field paths take their value from ``settings``.  Markers (``N_VOCAB``,
    ``VOCAB``) take theirs from ``markers``; without ``markers`` they are left
    out, which gives the NumPy stage classes' arguments.
    """
    out = []
    for path in arg_paths(STAGE_BY_NAME[name]):
        if path.startswith("<"):
            if markers is not None:
                out.append((path, markers[path]))
        else:
            out.append((path, settings.get(path)))
    return out


def scatter_ext_args(settings) -> list[tuple[str, object]]:
    """``llama_sampler_init_scatter_ext``'s arguments in the spec's order, as ``(field path, value)``.

    ``(k, strength, radius, steps, adaptive, strength_min, strength_max,
    entropy_target, absorption, absorption_last_n, collision, seed)``; look a
    path up in ``flagtable.ROW_BY_FIELD`` for its C type.
    """
    return stage_args("scatter", settings)
