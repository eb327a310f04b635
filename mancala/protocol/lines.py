"""What the engine protocol's lines say: a ``position`` command's board, a ``go``
command's limits, the clock's share of a move, and the lines of a byte stream.

:mod:`mancala.protocol.session` is the conversation (:class:`mancala.protocol.Session`);
this module reads its words, each one checked with :mod:`mancala.limits` and
refused with one line (an :class:`mancala.errors.InputError`). Moves are pits
1..6 from the mover's left, as the terminal game numbers them; every command
is in ``docs/protocol.md``.
"""
from __future__ import annotations

from typing import BinaryIO, Iterable, Iterator, List, Optional, Sequence

from mancala.board import CAPTURE_RULES, MAX_SEEDS, Board
from mancala.errors import IllegalMoveError, InputError, InvalidBoardError, quote
from mancala.geometry import PITS, SIDE_KEYS, SLOTS, slot_name
from mancala.limits import (MAX_DEPTH, MAX_MOVE_SECONDS, MAX_NODES, check_depth, check_nodes,
                            check_seeds, check_whole, parse_whole)

MAX_MS = int(MAX_MOVE_SECONDS * 1000)      # movetime: at most an hour, as ai:time=S
MAX_CLOCK_MS = 2 ** 31 - 1                 # wtime/btime/winc/binc: about 24 days
MIN_MOVE_MS = 10                           # the least a clock ever gives one move
GO_WORDS = ("depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "infinite")
CLOCK_SYNONYMS = {"p1time": "wtime", "p2time": "btime", "p1inc": "winc", "p2inc": "binc"}
MAX_LINE_BYTES = 1 << 16                   # a game's position line is a few kilobytes at most


def whole(word: Optional[str], what: str, lowest: int, highest: int) -> int:
    """A token as a whole number in lowest..highest, else an error stating the range."""
    if word is None:
        raise InputError(f"{what} needs a whole number from {lowest} to {highest}")
    return check_whole(parse_whole(word), what, lowest, highest, given=word)


def allocate_ms(remaining_ms: int, increment_ms: int = 0) -> int:
    """Milliseconds to spend on one move with ``remaining_ms`` on the clock.

    A twentieth of what is left plus most of the increment, at least
    :data:`MIN_MOVE_MS`, never more than half of what is left (unless that is
    under the minimum: a move must be searched).
    """
    share = remaining_ms / 20 + increment_ms * 0.8
    share = min(share, remaining_ms / 2)
    return max(MIN_MOVE_MS, int(share))


def parse_moves(board: Board, words: Sequence[str]) -> None:
    """Play ``words`` (pits 1..6 from the mover's left) on board; raise at the first bad one."""
    for number, word in enumerate(words, 1):
        if board.is_game_over():
            raise IllegalMoveError(f"move {number} ({quote(word)}) comes after the game is over")
        pit = whole(word, f"move {number} (a pit)", 1, PITS) - 1
        if pit not in board.legal_moves:
            legal = " ".join(str(p + 1) for p in board.legal_moves)
            raise IllegalMoveError(f"move {number}: pit {pit + 1} is empty; legal pits are {legal}")
        board.push(pit)


def parse_position(words: Sequence[str]) -> Board:
    """The board a ``position`` command's words (after ``position``) describe.

    ``startpos [seeds N] [capture RULE] [moves ...]`` or
    ``board <14 counts> <south|north> [capture RULE] [moves ...]``.
    """
    words = list(words)
    if not words:
        raise InputError("position needs 'startpos' or 'board <14 counts> <south|north>'")
    kind, rest = words[0].lower(), words[1:]
    seeds: Optional[int] = None
    slots: Optional[List[int]] = None
    to_move = 0
    if kind == "board":
        counts = rest[:SLOTS]
        if len(counts) < SLOTS:
            shown = " ".join(counts)
            raise InvalidBoardError(f"position board needs {SLOTS} whole counts of seeds "
                                    f"(South pits, South store, North pits, North store), "
                                    f"not {quote(shown)}")
        slots = [check_whole(parse_whole(word), f"position board: {slot_name(slot)}", 0,
                             MAX_SEEDS, error=InvalidBoardError, given=word)
                 for slot, word in enumerate(counts)]
        rest = rest[SLOTS:]
        if not rest or rest[0].lower() not in SIDE_KEYS:
            raise InputError(f"position board needs the side to move after the counts: "
                                     f"south or north, not {quote(rest[0] if rest else '')}")
        to_move = SIDE_KEYS.index(rest[0].lower())
        rest = rest[1:]
    elif kind != "startpos":
        raise InputError(f"position is 'startpos' or 'board', not {quote(words[0])}")
    capture = "standard"
    moves: Optional[List[str]] = None
    index = 0
    seen = set()
    while index < len(rest):
        word = rest[index].lower()
        if word == "moves":
            moves = rest[index + 1:]
            break
        if word in seen:
            raise InputError(f"position: {word} is given twice")
        seen.add(word)
        value = rest[index + 1] if index + 1 < len(rest) else None
        if word == "seeds" and kind == "startpos":
            seeds = check_seeds(whole(value, "seeds per pit", 1, 12))
        elif word == "capture":
            if value is None or value.lower() not in CAPTURE_RULES:
                raise InputError(f"capture is one of {', '.join(CAPTURE_RULES)}, "
                                         f"not {quote(value or '')}")
            capture = value.lower()
        else:
            allowed = "seeds, capture or moves" if kind == "startpos" else "capture or moves"
            raise InputError(f"position: expected {allowed}, not {quote(rest[index])}")
        index += 2
    if slots is not None:
        board = Board(slots, to_move, capture=capture)
    else:
        board = Board(seeds=seeds, capture=capture)
    parse_moves(board, moves or [])
    return board


class GoLimits:
    """What a ``go`` command asked for: a depth, nodes, milliseconds, or forever."""

    def __init__(self, words: Sequence[str], to_move: int) -> None:
        self.depth: Optional[int] = None
        self.nodes: Optional[int] = None
        self.movetime: Optional[int] = None
        self.infinite = False
        clock = {}
        index = 0
        while index < len(words):
            word = words[index].lower()
            word = CLOCK_SYNONYMS.get(word, word)
            value = words[index + 1] if index + 1 < len(words) else None
            if word == "infinite":
                self.infinite = True
                index += 1
                continue
            if word == "depth":
                self.depth = check_depth(whole(value, "depth", 1, MAX_DEPTH))
            elif word == "nodes":
                self.nodes = check_nodes(whole(value, "nodes", 1, MAX_NODES))
            elif word == "movetime":
                self.movetime = whole(value, "movetime (milliseconds)", 1, MAX_MS)
            elif word in ("wtime", "btime", "winc", "binc"):
                clock[word] = whole(value, f"{word} (milliseconds)", 0, MAX_CLOCK_MS)
            else:
                raise InputError(f"go takes {', '.join(GO_WORDS)}; not {quote(words[index])}")
            index += 2
        own = ("wtime", "winc") if to_move == 0 else ("btime", "binc")
        if own[0] in clock and self.movetime is None:
            self.movetime = allocate_ms(clock[own[0]], clock.get(own[1], 0))

    @property
    def solve(self) -> bool:
        """A bare go: no limit and not infinite, so the exact solve rather than a
        deepening search (either on the Threads option's threads)."""
        return not self.infinite and self.depth is None and self.nodes is None \
            and self.movetime is None

    def search_limits(self) -> dict:
        """The keywords for Engine.search: nothing means 'until stopped'."""
        limits = {}
        if self.depth is not None:
            limits["depth"] = self.depth
        if self.nodes is not None:
            limits["nodes"] = self.nodes
        if self.movetime is not None and not self.infinite:
            limits["time"] = self.movetime / 1000
        if not limits:
            limits["depth"] = MAX_DEPTH     # infinite: until stop (or solved)
        return limits


def read_lines(stream: BinaryIO) -> Iterator[bytes]:
    """A binary stream's lines as they come (not read ahead in blocks), until its end.

    Bytes, not text: what is not UTF-8 is the session's to refuse with one
    line, whatever the locale says stdin holds. A line over
    :data:`MAX_LINE_BYTES` comes as its first MAX_LINE_BYTES + 1 bytes (which
    the session refuses); the rest of it is read and dropped, so memory stays
    bounded whatever is sent.
    """
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        rest = line
        while len(rest) > MAX_LINE_BYTES and not rest.endswith(b"\n"):
            rest = stream.readline(MAX_LINE_BYTES + 1)
        yield line


def pits_text(moves: Iterable[int]) -> str:
    """Pits 0..5 as the protocol writes them (1..6)."""
    return " ".join(str(pit + 1) for pit in moves)


__all__ = ["read_lines", "MAX_LINE_BYTES", "allocate_ms", "parse_position", "parse_moves", "GoLimits",
           "pits_text", "whole"]
