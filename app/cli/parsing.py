"""Command-line reading the programs share: one-line usage errors, checked numbers, UTF-8 words."""
from __future__ import annotations

import argparse

INT32_MAX = 2**31 - 1


class UsageError(Exception):
    """A bad command line; the message is one line."""


class ArgParser(argparse.ArgumentParser):
    """An argparse parser whose errors are :class:`UsageError` (one line), not a usage text and an exit."""

    def error(self, message):  # argparse would print the usage and exit
        raise UsageError(message)


def int_in(name: str, lo: int, hi: int = INT32_MAX):
    """An argparse type: a decimal integer in ``[lo, hi]``, the error naming ``name``."""
    def convert(text: str) -> int:
        shown = repr(text if len(text) <= 40 else text[:37] + "...")
        if len(text.strip().lstrip("+-").lstrip("0")) > 20:  # int() refuses past 4300 digits, naming no flag
            if text.strip().lstrip("+-").isdigit():
                raise argparse.ArgumentTypeError(f"{name}: expected {lo} to {hi}, got {shown} ({len(text)} digits)")
            raise argparse.ArgumentTypeError(f"{name}: expected an integer, got {shown}")
        core = text.strip()
        body = core[1:] if core[:1] in "+-" else core
        try:  # without leading zeros: 5,000 zeros then a 5 is 5 (int() would refuse the string's length)
            value = int(core[:1] + (body.lstrip("0") or "0") if core[:1] in "+-" else (body.lstrip("0") or "0"), 10)
            if not body or not body[0].isdigit():
                raise ValueError
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: expected an integer, got {shown}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{name}: expected {lo} to {hi}, got {value}")
        return value

    return convert


def flag_arities(parser: argparse.ArgumentParser) -> dict[str, int]:
    """Each flag of ``parser`` with how many words follow it (0 for a switch, else 1)."""
    return {name: action.nargs if isinstance(action.nargs, int) else 1
            for action in parser._actions for name in action.option_strings}


def checked(parse):
    """An argparse type from a parser whose ValueError message names the flag already."""
    def convert(text: str):
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


def is_utf8(text: str) -> bool:
    """False for a word of the command line that was not UTF-8 (Python keeps its bytes as surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


#: Flags whose value is a file name Python can open whatever its bytes.
_PATH_FLAGS = ("-f", "--file", "--trace")


def check_utf8(argv: list[str]) -> None:
    """Every word but a file name must be UTF-8 text; the error names the flag it belongs to."""
    owner = None  # the flag the next word is the value of
    for word in argv:
        is_flag = word.startswith("-") and len(word) > 1 and " " not in word
        name, eq, value = word.partition("=") if word.startswith("--") else (word, "", "")
        flag, shown = (name, value if eq else None) if is_flag else (owner, word)
        if not is_utf8(word) and flag not in _PATH_FLAGS:
            if flag in ("-p", "--prompt"):
                raise UsageError("-p: the prompt is not valid UTF-8 text")
            if shown is None:
                raise UsageError(f"{word!r}: not valid UTF-8 text")
            raise UsageError(f"{flag + ' ' if flag else ''}{shown!r}: not valid UTF-8 text")
        if is_flag:
            owner = None if eq else name
        elif owner != "--lanes":  # a flag takes one value; --lanes every word up to the next flag
            owner = None


def split_own_flags(argv: list[str], own_flags: dict[str, int]) -> tuple[list[str], list[str]]:
    """(the flags of ``own_flags`` (name -> how many values follow it) with their values, every other word),
    each in order; ``--name=value`` is one word."""
    own, other, i = [], [], 0
    while i < len(argv):
        word = argv[i]
        name = word.partition("=")[0] if word.startswith("--") else word
        if name in own_flags:
            n = 0 if word.startswith("--") and "=" in word else own_flags[name]
            own += argv[i:i + 1 + n]
            i += 1 + n
        else:
            other.append(word)
            i += 1
    return own, other
