"""The argument types the commands share, each a thin face of :mod:`mancala.limits`.

An ``argparse`` type turns the text typed into a value or raises
``ArgumentTypeError`` with the library's one line (which states the allowed
range), so the parser reports it: ``python -m mancala COMMAND: error: argument
--seeds: seeds per pit is a whole number from 1 to 12, not '13'``.
"""
from __future__ import annotations

import argparse
import math
from typing import Callable, Optional, TextIO, TypeVar

from mancala import limits
from mancala.arena import check_player
from mancala.board import CAPTURE_RULES, CAPTURE_WORDS
from mancala.errors import InputError
from mancala.specs import PlayerSpec

T = TypeVar("T")


def _typed(check: Callable[[object, object], T], text: str, value: object) -> T:
    try:
        return check(value, text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def integer(text: str) -> object:
    """The int the text spells in ASCII digits (spaces around it aside), or the
    text itself, which every check refuses stating its range: ``--seeds \u0663``
    (Arabic-Indic 3) and ``--seeds \uff13`` (fullwidth 3), which ``int()`` takes,
    are refused. Every whole number the commands take is read here."""
    value = limits.parse_whole(text.strip())
    return text if value is None else value


def number(text: str) -> float:
    """The float the text spells in ASCII (:func:`mancala.limits.parse_number`,
    spaces around it aside), or NaN, which every check refuses: every fractional
    number the commands take is read here (``--hash-mb \u0661\u0666`` is refused)."""
    value = limits.parse_number(text.strip())
    return math.nan if value is None else value


def seeds(text: str) -> int:
    """--seeds: seeds per pit, 1..12."""
    return _typed(limits.check_seeds, text, integer(text))


def depth(text: str) -> int:
    """--depth: moves searched ahead, 1..254."""
    return _typed(limits.check_depth, text, integer(text))


def threads(text: str) -> int:
    """--threads: 1..64."""
    return _typed(limits.check_threads, text, integer(text))


def seed(text: str) -> int:
    """--seed: a random seed, 0..2**63-1."""
    return _typed(limits.check_seed, text, integer(text))


def endgame_seeds(text: str) -> int:
    """--endgame: the seeds an endgame database covers, 0..24."""
    return _typed(limits.check_endgame_seeds, text, integer(text))


def seconds(text: str) -> float:
    """--time: a positive number of seconds."""
    return _typed(limits.check_seconds, text, number(text))


def megabytes(text: str) -> float:
    """--hash-mb: a table size from 0 to what the machine can give."""
    return _typed(limits.check_hash_mb, text, number(text))


def whole(what: str, lowest: int, highest: Optional[int] = None) -> Callable[[str], int]:
    """A type for a count such as --games or --workers: a whole number in a range."""
    def parse(text: str) -> int:
        return _typed(lambda value, given: limits.check_whole(value, what, lowest, highest, given=given),
                      text, integer(text))
    parse.__name__ = what
    return parse


port = whole("port", 0, 65535)      # --port: a TCP port (0: any free one)


def player(text: str) -> str:
    """--south/--north: a player spelling, in its canonical form."""
    return _typed(lambda value, given: str(PlayerSpec.parse(value)), text, text)


def arena_player(text: str):
    """An arena player: the PlayerSpec of a spelling a machine can play (not human;
    ``ai:time`` alone takes --time)."""
    return _typed(lambda value, given: check_player(value), text, text)


def add_capture(p: argparse.ArgumentParser, default: Optional[str] = "standard") -> None:
    """--capture: one of the rule names, each said in its few words."""
    p.add_argument("--capture", choices=CAPTURE_RULES, default=default,
                   help=f"capture rule (default standard): {rules_help()}")


def rules_help() -> str:
    """The capture rules in --help's words: 'standard: captures the pit facing; ...'."""
    return "; ".join(f"{name}: {words}" for name, words in CAPTURE_WORDS.items())


def is_terminal(stream: TextIO) -> bool:
    """True if ``stream`` is a terminal; False for a pipe, a file or a closed or fake stream."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


__all__ = ["integer", "number", "seeds", "depth", "threads", "seed", "endgame_seeds", "seconds", "megabytes", "whole",
           "player", "arena_player", "add_capture", "is_terminal"]
