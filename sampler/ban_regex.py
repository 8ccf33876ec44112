"""Regular-expression bans: which patterns are accepted (every one is checked before use).

A pattern is Python's ``re`` syntax.  The engine matches it with a backtracking
matcher, so a pattern is refused (one line naming it) unless its matching time
is bounded by the length of the text it looks at:

* **no nested repeat**: a repeat that can match more than once (``*``, ``+``,
  ``{m,n}`` with n > 1) may not contain another repeat, as in ``(a+)+``,
  ``(\\w+\\s?)*`` or ``(x*y?){2,9}``: these are the patterns whose backtracking
  grows exponentially with the text (a catastrophic pattern).  Write the
  inner part once (``(\\w|\\s)+``) or give the outer one a single pass;
* **no alternatives that begin alike inside a repeat**: in a repeat that can
  match more than once, the alternatives of a ``|`` may not be able to start
  with the same character, nor match nothing, as in ``(a|aa)+`` or
  ``(the|then)*``: each way of splitting the text between them is tried, so
  these backtrack exponentially too.  Alternatives of one character each
  (``(\\w|\\s)+``) are a set, not alternatives, and are accepted;
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
    from re import _compiler as _cp  # type: ignore[attr-defined]
    from re import _constants as _sc  # type: ignore[attr-defined]
    from re import _parser as _sp  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_compile as _cp
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


#: Characters a first character is probed with: Latin-1 and a few beyond (letters of other scripts, a
#: no-break space, a line separator, an emoji).
_PROBES = tuple(map(chr, range(256))) + tuple("ßıΩж中\u2028\u3000😀")
#: Nodes that match no character (anchors, word edges, look-arounds): the first character comes after them.
_ZERO_WIDTH = {_sc.AT, _sc.ASSERT, _sc.ASSERT_NOT}


def _first(state, items) -> tuple[frozenset, bool]:
    """The probe characters a match of ``items`` can start with, and whether it can match nothing."""
    chars: set = set()
    for op, av in items:
        if op in _ZERO_WIDTH:
            continue
        if op == _sc.SUBPATTERN:
            first, empty = _first(state, av[-1])
        elif op == _sc.BRANCH:
            parts = [_first(state, alt) for alt in av[1]]
            first, empty = frozenset().union(*(f for f, _ in parts)), any(e for _, e in parts)
        elif op in _REPEATS:
            first, empty = _first(state, av[2])
            empty = empty or av[0] == 0
        else:  # one character: a literal, a set, a category, any
            one = _sp.SubPattern(state, [(op, av)])
            try:
                compiled = _cp.compile(one, state.flags)
            except Exception:  # noqa: BLE001 - not one character after all: assume it can start with any
                return frozenset(_PROBES), False
            first, empty = frozenset(c for c in _PROBES if compiled.match(c)), False
        chars |= first
        if not empty:
            return frozenset(chars), False
    return frozenset(chars), True


def _ambiguous_branch(state, sub) -> bool:
    """Whether a ``|`` in ``sub`` (at any depth) has alternatives that can start alike or match nothing."""
    for op, av in sub:
        if op == _sc.BRANCH:
            seen: set = set()
            for alt in av[1]:
                first, empty = _first(state, alt)
                if empty or seen & first:
                    return True
                seen |= first
        if any(_ambiguous_branch(state, child) for child in _children(av)):
            return True
    return False


def _problem(sub, inside_repeat: bool) -> str | None:
    """Why the parsed pattern ``sub`` could take unbounded time (None: it cannot)."""
    for op, av in sub:
        if op in _REFS:
            return "a back-reference has no bounded matching time"
        if op in _REPEATS and av[1] > 1 and _ambiguous_branch(sub.state, av[2]):
            return ("alternatives that can begin alike or match nothing inside a repeat (as in (a|aa)+) can take "
                    "exponential time")
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
