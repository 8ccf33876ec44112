r"""Command lines as text: joining continued lines, splitting words, quoting, escapes.

llama.cpp turns escape sequences (``\n``, ``\t``, ``\\``, ``\x41`` ...) in the
prompt and in DRY sequence breakers into characters unless ``--no-escape`` is
given: :func:`process_escapes` does what it does, :func:`escape` the reverse.
"""
from __future__ import annotations

import re
import shlex

from sampler.flags import FlagError
from sampler.numbers import is_number_word

_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_CONTINUATION_CHARS = "\\^`"  # sh, cmd.exe, PowerShell


def _join_lines(text: str) -> str:
    r"""Drop line continuations and ``#`` comments outside quotes, as a POSIX shell would.

    A continuation is ``\\``, ``^`` or a backtick at the end of a line
    (trailing blanks allowed); inside double quotes only ``\\`` counts, inside
    single quotes nothing does.  A comment starts at a ``#`` that begins a word.
    """
    out: list[str] = []
    i, n = 0, len(text)
    quote_char = ""
    at_word_start = True

    def continuation_end(j: int) -> int:
        """Index after the newline if text[j] starts a line continuation, else -1."""
        k = j + 1
        while k < n and text[k] in " \t":
            k += 1
        if k < n and text[k] == "\r":
            k += 1
        return k + 1 if k < n and text[k] == "\n" else -1

    while i < n:
        c = text[i]
        if quote_char == "'":
            out.append(c)
            quote_char = "" if c == "'" else quote_char
            i += 1
            continue
        if quote_char == '"':
            if c == "\\":
                end = continuation_end(i) if i + 1 < n and text[i + 1] in "\r\n" else -1
                if end >= 0:
                    i = end
                    continue
                out.append(text[i:i + 2])
                i += 2
                continue
            out.append(c)
            quote_char = "" if c == '"' else quote_char
            i += 1
            continue
        if c in _CONTINUATION_CHARS:
            end = continuation_end(i)
            if end >= 0:
                out.append(" ")
                i = end
                at_word_start = True
                continue
        if c == "\\":
            out.append(text[i:i + 2])
            i += 2
            at_word_start = False
            continue
        if c == "#" and at_word_start:
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c in "'\"":
            quote_char = c
        out.append(c)
        at_word_start = c in " \t\r\n;"
        i += 1
    return "".join(out)


#: The longest command line split (characters): Linux's MAX_ARG_STRLEN, the longest one word of a command a
#: program can be given.  ``shlex`` builds each word a character at a time, in time quadratic in the word's
#: length (a 1 MB word took 47 s), so a longer text is refused before it is split; a prompt that long
#: belongs in a file (``-f``).
MAX_COMMAND_CHARS = 128 * 1024


def split_command(text: str) -> list[str]:
    """The words of a pasted command line (continuations and comments removed); FlagError (one line) for
    a text longer than :data:`MAX_COMMAND_CHARS` or one that does not split."""
    if len(text) > MAX_COMMAND_CHARS:
        raise FlagError([f"the command line is {len(text):,} characters long; the longest read is "
                         f"{MAX_COMMAND_CHARS:,} (put a long prompt in a file and name it with -f)"])
    try:
        return shlex.split(_join_lines(text))
    except ValueError as exc:
        raise FlagError([f"cannot split the command line: {exc}"]) from None


def strip_program(words: list[str]) -> tuple[list[str], bool]:
    """Drop a leading ``$``, ``NAME=value`` environment words and the program name."""
    i = 0
    if words and words[0] == "$":
        i = 1
    while i < len(words) and _ENV_ASSIGNMENT.match(words[i]):
        i += 1
    has_program = i < len(words) and not words[i].startswith("-") and not is_number_word(words[i])
    if has_program:
        i += 1
    return words[i:], has_program or i > 0


_HEX2 = re.compile(r"[0-9a-fA-F]{2}|[ \t\n\v\f\r][0-9a-fA-F]|[+-][0-9a-fA-F]")


def process_escapes(text: str) -> str:
    r"""llama.cpp's ``string_process_escapes`` (on the UTF-8 bytes).

    ``\n \r \t \' \" \\`` and ``\xHH`` become characters; any other backslash
    stays.  Raises ValueError if a ``\xHH`` escape leaves invalid UTF-8.
    """
    if "\\" not in text:
        return text
    data = text.encode("utf-8", "surrogatepass")
    simple = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("'"): b"'", ord('"'): b'"', ord("\\"): b"\\"}
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b == 0x5C and i + 1 < n:
            i += 1
            c = data[i]
            if c in simple:
                out += simple[c]
            elif c == ord("x") and i + 2 < n and _HEX2.fullmatch(data[i + 1:i + 3].decode("latin-1")):
                out.append(int(data[i + 1:i + 3].decode("latin-1").strip(), 16) & 0xFF)
                i += 2
            else:
                out += bytes((0x5C, c))
        else:
            out.append(b)
        i += 1
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"escape sequences in {text!r} do not give valid UTF-8") from None




_SHORT_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Characters written as ``\xHH`` escapes: the other control characters and
#: every other line boundary Python's ``str.splitlines`` knows.
_HEX_ESCAPED = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")


def escape(text: str) -> str:
    r"""``text`` written so that llama.cpp's escape processing gives it back exactly.

    Backslashes are doubled, line breaks and tabs written as ``\n``, ``\r``,
    ``\t``, other control characters and line separators as ``\xHH`` (their
    UTF-8 bytes), so the result is always one line of printable text.
    """
    text = "".join(_SHORT_ESCAPES.get(c, c) for c in text) if any(c in text for c in _SHORT_ESCAPES) else text
    return _HEX_ESCAPED.sub(lambda m: "".join(f"\\x{b:02x}" for b in m.group().encode("utf-8")), text)


#: Characters a prompt file holds as ``\\xHH``: the control characters but line feed and tab.
_FILE_HEX_ESCAPED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def escape_for_file(text: str) -> str:
    r"""``text`` as a ``-f`` prompt file holds it, so that llama.cpp reads back exactly ``text``.

    llama.cpp processes escapes in the prompt whatever its source (unless
    ``--no-escape``), so backslashes are doubled.  Line feeds and tabs stay
    as they are, and the file reads like the prompt; a carriage return is
    written ``\r`` (a Windows reader in text mode would turn ``\r\n`` into
    ``\n``) and the other control characters as ``\xHH`` (``\x1a`` ends a
    text-mode read on Windows).  The caller adds the final newline that
    ``-f`` drops.
    """
    text = text.replace("\\", "\\\\").replace("\r", "\\r") if ("\\" in text or "\r" in text) else text
    return _FILE_HEX_ESCAPED.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


