"""Player specs: a player's spelling, parsed once into a value.

``PlayerSpec.parse("ai:time=0.5")`` is ``PlayerSpec("ai", time=0.5)``;
``str(spec)`` is its canonical spelling (what save files and the arena's
output hold). The spellings:

==================  ==========================================================
``human``           a person at the keyboard
``random``          a uniformly random legal move (seedable)
``minimax:N``       the textbook full-width search of ``mancala._reference``, N moves deep (1..30)
``alphabeta:N``     the textbook alpha-beta of ``mancala._reference``, N moves deep (1..30)
``ai:LEVEL``        the engine at a level: easy, medium, hard or perfect (``ai`` is ``ai:medium``)
``ai:elo=N``        the engine at a strength of N Elo (the levels' scale: ``random`` is 0;
                    the range is :func:`mancala.levels.elo_range`'s)
``ai:depth=N``      the engine N moves deep (1..254)
``ai:depth=N,temp=T``  every move scored N moves deep, one picked by a softmax at
                    temperature T seeds (0..100; 0: the best, ties at random)
``ai:time=S``       the engine for S seconds per move (0 < S <= 3600)
``engine:"CMD"``    any program speaking the engine protocol, 0.1 s per move;
                    ``engine:"CMD"@S`` for S seconds per move
==================  ==========================================================

What each player does is :mod:`mancala.players`; the ranges are
:mod:`mancala.limits`' (:func:`~mancala.limits.check_move_seconds` for a
time per move). A spelling that is not one raises
:class:`~mancala.errors.PlayerSpecError` (a ValueError) listing the forms.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional, Union

from mancala.errors import PlayerSpecError, quote
from mancala.external import split_command     # shlex; nothing is started
from mancala.limits import (MAX_DEPTH, MAX_REFERENCE_DEPTH, check_level_elo, check_move_seconds,
                            check_temperature, check_whole, parse_number, parse_whole)

KINDS = ("human", "random", "minimax", "alphabeta", "ai", "engine")
LEVELS = ("easy", "medium", "hard", "perfect")      #: the engine's levels, weakest first
DEFAULT_LEVEL = "medium"                            #: what ``ai`` alone plays
EXTERNAL_TIME = 0.1     #: seconds per move of an engine:"..." player without @S
VALID_SPECS = ("human, random, minimax:N, alphabeta:N, ai, ai:easy, ai:medium, ai:hard, "
               "ai:perfect, ai:elo=N, ai:depth=N, ai:depth=N,temp=T, ai:time=S, "
               "engine:\"COMMAND\", engine:\"COMMAND\"@S")
MACHINE_SPECS = ", ".join(form for form in VALID_SPECS.split(", ") if form != "human")

_SECONDS = re.compile(r"[0-9.eE+-]+|nan|inf")       # what may follow engine:CMD@


@dataclass(frozen=True)
class PlayerSpec:
    """A player's spelling as a value: its kind and what that kind takes.

    ``kind`` is one of :data:`KINDS`; ``minimax``/``alphabeta`` take a
    ``depth`` (1..30); ``ai`` takes one of ``level``, ``elo`` (the levels'
    scale), ``depth`` (1..254, with a softmax ``temperature`` in seeds if
    given) or ``time`` (seconds per move), or none of them for an
    ``ai:time`` whose seconds come later (:meth:`timed`: the arena's
    ``--time``); ``engine`` takes a ``command`` and, optionally, a ``time``.
    Raises PlayerSpecError for any other combination or a value out of its range.
    """

    kind: str
    level: Optional[str] = None
    depth: Optional[int] = None
    time: Optional[float] = None
    command: Optional[str] = None
    elo: Optional[int] = None
    temperature: Optional[float] = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise PlayerSpecError(f"a player's kind is one of {', '.join(KINDS)}, not {quote(self.kind)}")
        takes = {"minimax": {"depth"}, "alphabeta": {"depth"},
                 "ai": {"level", "depth", "time", "elo", "temperature"},
                 "engine": {"command", "time"}}.get(self.kind, set())
        given = {name for name in ("level", "depth", "time", "command", "elo", "temperature")
                 if getattr(self, name) is not None}
        if given - takes:
            raise PlayerSpecError(f"{self.kind} takes {', '.join(sorted(takes)) or 'nothing'}, "
                                  f"not {', '.join(sorted(given - takes))}")
        if self.kind == "ai" and len(given - {"temperature"}) > 1:
            raise PlayerSpecError("give one of level, elo, depth or time")
        if self.temperature is not None:
            if self.depth is None:
                raise PlayerSpecError("a temperature goes with a depth: ai:depth=N,temp=T")
            object.__setattr__(self, "temperature",
                               check_temperature(self.temperature, error=PlayerSpecError))
        if self.elo is not None:
            check_level_elo(self.elo, error=PlayerSpecError)
        if self.level is not None and self.level not in LEVELS:
            raise PlayerSpecError(f"unknown level {quote(self.level)}; use {', '.join(LEVELS)}")
        if self.depth is not None or self.kind in ("minimax", "alphabeta"):
            highest = MAX_DEPTH if self.kind == "ai" else MAX_REFERENCE_DEPTH
            check_whole(self.depth, "depth", 1, highest, error=PlayerSpecError)
        if self.time is not None:
            object.__setattr__(self, "time", check_move_seconds(self.time, error=PlayerSpecError))
        if self.kind == "engine":
            self._check_command()

    def _check_command(self) -> None:
        if not isinstance(self.command, str):
            raise PlayerSpecError(f"an engine command is a string, not {quote(self.command)}")
        split_command(self.command)                     # a spelling error shows now
        if '"' in self.command:
            raise PlayerSpecError(f"an engine command cannot hold a double quote: {quote(self.command)}")
        object.__setattr__(self, "command", self.command.strip())

    # -- reading

    @classmethod
    def parse(cls, text: Union[str, "PlayerSpec"], *, open_time: bool = False) -> "PlayerSpec":
        """The spec a spelling names (see the module docstring); a PlayerSpec comes back as is.

        ``open_time``: also take ``ai:time`` without its seconds (they come
        later, :meth:`timed`). Raises PlayerSpecError listing the valid forms.
        """
        if isinstance(text, PlayerSpec):
            return text
        if not isinstance(text, str):
            raise _bad(text)
        if text.strip()[:7].lower() == "engine:":         # the command keeps its case
            return cls._parse_engine(text, text.strip()[7:].strip())
        spelling = text.strip().lower()
        kind, sep, arg = spelling.partition(":")
        if spelling in ("human", "random"):
            return cls(spelling)
        if spelling == "ai":
            return cls("ai", level=DEFAULT_LEVEL)
        if kind in ("minimax", "alphabeta") and sep:
            return cls(kind, depth=_depth(text, arg, MAX_REFERENCE_DEPTH))
        if kind == "ai" and sep:
            if arg in LEVELS:
                return cls("ai", level=arg)
            if arg == "time" and open_time:
                return cls("ai")
            key, eq, value = arg.partition("=")
            if eq and key == "depth" and "," in value:
                depth, _, setting = value.partition(",")
                name, eq, temperature = setting.partition("=")
                if eq and name.strip() == "temp":
                    return cls("ai", depth=_depth(text, depth.strip(), MAX_DEPTH),
                               temperature=_temperature(text, temperature))
            elif eq and key == "depth":
                return cls("ai", depth=_depth(text, value, MAX_DEPTH))
            if eq and key == "elo":
                return cls("ai", elo=_elo(text, value))
            if eq and key == "time":
                return cls("ai", time=_seconds(text, value))
        raise _bad(text)

    @classmethod
    def _parse_engine(cls, text: str, rest: str) -> "PlayerSpec":
        """``engine:"COMMAND"`` or ``engine:"COMMAND"@S`` (quotes optional without spaces)."""
        if rest.startswith('"'):
            command, quote_mark, suffix = rest[1:].partition('"')
            if not quote_mark:
                raise _bad(text, "the command's closing quote is missing")
        else:
            command, at, seconds = rest.rpartition("@")
            if at and _SECONDS.fullmatch(seconds.strip().lower()):
                suffix = "@" + seconds
            else:
                command, suffix = rest, ""
        suffix = suffix.strip()
        if suffix and not suffix.startswith("@"):
            raise _bad(text, "after the command comes nothing or @SECONDS")
        seconds = _seconds(text, suffix[1:]) if suffix else None
        if not command.strip():
            raise _bad(text, "the engine command is empty")
        try:
            return cls("engine", command=command, time=seconds)
        except PlayerSpecError as exc:
            raise _bad(text, str(exc)) from None

    # -- what it says

    def __str__(self) -> str:
        """The canonical spelling (``engine:"CMD"`` leaves out the default time)."""
        if self.kind in ("minimax", "alphabeta"):
            return f"{self.kind}:{self.depth}"
        if self.kind == "ai":
            if self.level is not None:
                return f"ai:{self.level}"
            if self.elo is not None:
                return f"ai:elo={self.elo}"
            if self.depth is not None and self.temperature is not None:
                return f"ai:depth={self.depth},temp={self.temperature:g}"
            if self.depth is not None:
                return f"ai:depth={self.depth}"
            return "ai:time" if self.time is None else f"ai:time={self.time:g}"
        if self.kind == "engine":
            time = "" if self.time is None or self.time == EXTERNAL_TIME else f"@{self.time:g}"
            return f'engine:"{self.command}"{time}'
        return self.kind

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    @property
    def needs_time(self) -> bool:
        """An ``ai:time`` still waiting for its seconds (:meth:`timed`)."""
        return self.kind == "ai" and (self.level, self.depth, self.time, self.elo) == (None,) * 4

    @property
    def seconds(self) -> Optional[float]:
        """Its time per move (an engine's default included), None if it plays without a clock."""
        if self.kind == "engine":
            return EXTERNAL_TIME if self.time is None else self.time
        return self.time

    def timed(self, seconds: Optional[float]) -> "PlayerSpec":
        """This spec with a per-move time ``seconds`` if it takes one and has none of its
        own: ``ai:time`` gets it, and so does ``engine:...`` written without ``@S``; any
        other spec (and every spec when ``seconds`` is None) comes back unchanged."""
        if seconds is None or not (self.needs_time or (self.kind == "engine" and self.time is None)):
            return self
        return replace(self, time=seconds)


def machine_spec(text: Union[str, PlayerSpec], *, needed_by: str = "this",
                 open_time: bool = False) -> PlayerSpec:
    """The spec of a player a machine can play (not ``human``); else PlayerSpecError
    listing only those spellings. ``needed_by`` names who asks ("the arena")."""
    try:
        spec = PlayerSpec.parse(text, open_time=open_time)
    except PlayerSpecError as exc:
        raise PlayerSpecError(str(exc).replace(VALID_SPECS, MACHINE_SPECS)) from None
    if spec.is_human:
        raise PlayerSpecError(f"{needed_by} plays computer players, not {quote(text)}; "
                              f"use one of: {MACHINE_SPECS}")
    return spec


def _bad(text: object, why: str = "") -> PlayerSpecError:
    reason = f" ({why})" if why else ""
    return PlayerSpecError(f"unknown player {quote(text)}{reason}; use one of: {VALID_SPECS}")


def _depth(text: str, digits: str, highest: int) -> int:
    try:
        if not re.fullmatch(r"[0-9]{1,3}", digits):
            raise PlayerSpecError(digits)
        return check_whole(int(digits), "depth", 1, highest, error=PlayerSpecError)
    except PlayerSpecError:
        raise _bad(text, f"depth is 1..{highest}") from None


def _temperature(text: str, word: str) -> float:
    value = parse_number(word.strip())
    if value is None:
        raise _bad(text, "temp is seeds, a number")
    try:
        return check_temperature(value, given=word.strip(), error=PlayerSpecError)
    except PlayerSpecError as exc:
        raise _bad(text, str(exc)) from None


def _elo(text: str, digits: str) -> int:
    try:
        return check_level_elo(parse_whole(digits.strip()), given=digits.strip(), error=PlayerSpecError)
    except PlayerSpecError as exc:
        raise _bad(text, str(exc)) from None


def _seconds(text: str, word: str) -> float:
    seconds = parse_number(word.strip())
    if seconds is None:
        raise _bad(text, "time is seconds")
    try:
        return check_move_seconds(seconds, given=word.strip(), error=PlayerSpecError)
    except PlayerSpecError as exc:
        raise _bad(text, str(exc)) from None


def canonical_spec(spec: str) -> str:
    """A player spelling in its canonical form (``" AI:Hard "`` -> ``"ai:hard"``).

    Raises PlayerSpecError (a ValueError) as :meth:`PlayerSpec.parse` does; this
    is the check save files are loaded with (``storage.load(path, players=canonical_spec)``).
    """
    return str(PlayerSpec.parse(spec))


def program_in(saved, given=("", "")) -> Optional[str]:
    """Why a save file someone may have sent cannot be played as it is: its first
    player that would run a program (``engine:"..."``) and is not ``given`` on the
    command line (south, north), in words; None when there is none. A file never
    starts a program: the person names it (``--south``/``--north``). The autosaves,
    which this package writes, are resumed as they are."""
    for side, spec, typed in (("south", saved.south, given[0]), ("north", saved.north, given[1])):
        if not typed and PlayerSpec.parse(spec).kind == "engine":
            return f"its {side} player {spec} would run a program, which a save file never starts"
    return None


__all__ = ["PlayerSpec", "machine_spec", "KINDS", "LEVELS", "DEFAULT_LEVEL", "EXTERNAL_TIME",
           "VALID_SPECS", "MACHINE_SPECS"]
