"""Regular-expression bans: which patterns are accepted (every one is checked before use).

A pattern is Python's ``re`` syntax.  The engine matches it with a backtracking
matcher, so a pattern is refused (one line naming it) unless its matching time
is bounded by the length of the text it looks at:

* **no nested repeat**: a repeat that can match more than once (``*``, ``+``,
  ``{m,n}`` with n > 1) may not contain another repeat, as in ``(a+)+``,
  ``(\\w+\\s?)*`` or ``(x*y?){2,9}``: these are the patterns whose backtracking
  grows exponentially with the text (a catastrophic pattern).  Write the
  inner part once (``(\\w|\\s)+``) or give the outer one a single pass;
* **no back-reference** (``\\1``, ``(?P=name)``, ``(?(1)...)``): matching them
  is not bounded by any such rule.

What is left is at worst a polynomial in the text's length (adjacent repeats
such as ``\\s*\\w+\\s*``), and the text a pattern is run over is bounded: only
the part of the lane's text that is not yet settled, at most the walk-back
depth's tokens (``app.engine.run.bans``).  The engine also gives every search a
time limit (``app.engine.run.ban_match``) as a second line of defence.
"""
from __future__ import annotations

import functools
import re

try:  # Python 3.11 and later
    from re import _constants as _sc  # type: ignore[attr-defined]
    from re import _parser as _sp  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_constants as _sc
    import sre_parse as _sp

_REPEATS = {_sc.MAX_REPEAT, _sc.MIN_REPEAT} | ({_sc.POSSESSIVE_REPEAT} if hasattr(_sc, "POSSESSIVE_REPEAT") else set())
_REFS = {_sc.GROUPREF, _sc.GROUPREF_EXISTS} | ({_sc.GROUPREF_IGNORE} if hasattr(_sc, "GROUPREF_IGNORE") else set())


def _children(av):
    """The sub-patterns inside one node's argument (any depth of tuples and lists)."""
    if isinstance(av, _sp.SubPattern):
        yield av
    elif isinstance(av, (tuple, list)):
        for item in av:
            yield from _children(item)


def _problem(sub, inside_repeat: bool) -> str | None:
    """Why the parsed pattern ``sub`` could take unbounded time (None: it cannot)."""
    for op, av in sub:
        if op in _REFS:
            return "a back-reference has no bounded matching time"
        if op in _REPEATS:
            if inside_repeat:
                return "a repeat inside a repeat (as in (a+)+) can take exponential time"
            why = _problem(av[2], av[1] > 1)
        else:
            why = next((w for child in _children(av) if (w := _problem(child, inside_repeat))), None)
        if why:
            return why
    return None


@functools.lru_cache(maxsize=4096)
def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is refused, or None (see the module docstring)."""
    try:
        re.compile(pattern)
        parsed = _sp.parse(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"not a regular expression ({exc})"
    if re.compile(pattern).match(""):
        return "it matches the empty text, so it would match everywhere"
    return _problem(parsed, False)


def check_pattern(name: str, pattern: str) -> None:
    """ValueError (one line naming ``name`` and the pattern) if ``pattern`` is refused."""
    why = pattern_problem(pattern)
    if why:
        raise ValueError(f"{name}: the regular expression {pattern!r:.80} is refused: {why}")
