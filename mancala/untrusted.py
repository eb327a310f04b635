"""Untrusted input: one reader of JSON (save files, the opening book, the web
app's requests) and one way to show text read back from a file (:func:`printable`).

:func:`read_json` turns bytes or text that anybody may have written into the
JSON value, or refuses it with one line in the caller's error class. Its
guards are the same for every caller: UTF-8 text (a leading byte-order mark
is dropped: Notepad writes one), not empty, valid JSON, nesting only as deep
as the interpreter allows, no NaN or Infinity, no number longer than
:data:`MAX_DIGITS` digits (Python will not read an int of more than 4,300,
and nothing mancala keeps needs more than a 63-bit seed) or beyond a float's
range, no key given twice in an object. How many bytes may be read is the
caller's (it reads them: a file's limit, a request's).
"""
from __future__ import annotations

import json
import math
import unicodedata
from typing import Any, Dict, List, Tuple, Type, Union

from mancala.errors import InputError, quote

MAX_DIGITS = 19         # 2**63 - 1, the largest number mancala keeps (a seed), has 19


def read_json(raw: Union[bytes, str], error: Type[InputError], hint: str = "") -> Any:
    """The JSON value of ``raw``, or ``error`` with a one-line reason.

    ``hint`` is added to the reason when the text is not JSON at all
    ("truncated, or not a save file?").
    """
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise error("not UTF-8 text, so not JSON") from None
    text = raw[1:] if raw.startswith("\ufeff") else raw
    if not text.strip():
        raise error("empty, so not JSON")

    def no_constant(name: str) -> Any:
        raise error(f"{name} is not a number JSON may hold here")

    def small_int(digits: str) -> int:
        count = len(digits.lstrip("-"))
        if count > MAX_DIGITS:
            raise error(f"holds a number with {count} digits, too long to be one mancala keeps")
        return int(digits)

    def finite_float(digits: str) -> float:
        value = float(digits)
        if not math.isfinite(value):
            raise error(f"holds a number too large to be one mancala keeps: {quote(digits, 30)}")
        return value

    def no_duplicates(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
        result: Dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise error(f"field {quote(key)} appears twice")
            result[key] = value
        return result

    try:
        return json.loads(text, parse_constant=no_constant, parse_int=small_int,
                          parse_float=finite_float, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as exc:
        reason = f"not JSON ({exc.msg}: line {exc.lineno} column {exc.colno})"
        raise error(f"{reason}; {hint}" if hint else reason) from None
    except RecursionError:
        raise error("JSON nested too deeply") from None


#: characters that change how a terminal shows what follows: C0 and C1 controls (ESC starts
#: a colour, a title, a cursor move), line and paragraph separators, and the invisible
#: format characters (bidirectional overrides that reorder a line, zero widths)
_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_JOINER = "\u200d"         # a format character emoji are made of: shown as it is


def printable(text: object) -> str:
    """``text`` safe to print on a terminal: every control or invisible format
    character written as its escape (``\\x1b``, ``\\u202e``), everything else
    as it is. A player's name, a date, a path read back from a file go through
    here before a terminal shows them, so a planted ESC cannot recolour, move
    the cursor or retitle the window, and a line stays one line. Raises nothing."""
    text = text if isinstance(text, str) else str(text)
    if text.isprintable():
        return text
    shown = []
    for char in text:
        if char == " " or char == _JOINER or unicodedata.category(char) not in _HIDDEN:
            shown.append(char)
        else:
            code = ord(char)
            shown.append(f"\\x{code:02x}" if code < 0x100 else
                         f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(shown)


__all__ = ["read_json", "printable", "MAX_DIGITS"]
