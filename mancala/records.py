"""Game records: a Kalah game as text people read, paste and keep.

Kalah has no record standard; this one has the shape of Oware's OGN, itself
PGN's: tags, then the moves numbered, then the result. A turn is one numbered
move, its sowings joined (an extra turn's chain stays together), each sowing
its pit's letter (A-F South's pits, G-L North's, as the game names them) and
``+N`` after a sowing that captures N seeds::

    [Variant "Kalah"]
    [Event "?"]
    [Site "?"]
    [Date "2026.05.01"]
    [South "human"]
    [North "random"]
    [Seeds "1"]
    [Capture "standard"]
    [Result "9-3"]

    1. FE+2 2. K 3. D+2 4. J+2 5. C+2 6. L 9-3

The result is each side's seeds at the end, South's first (``*`` for a game
going on; a resigned game has ``[Resigned "North"]`` and the stores as they
stood); ``[FEN "..."]`` gives a start that is not the rules' own (the 14 slots
in the rules' order, then ``S`` or ``N``, the side to move). docs/records.md
says it all, worked by hand. This module reads records (line by line: the tags,
then each turn played on the board as it is read, then the result held against
the game); the format and its writing are :mod:`mancala.record_format`'s, handed
on from here.

:func:`loads` reads one game and checks it by replaying it under its rules;
:func:`loads_all` reads every game of a text (``history --export`` writes
them); :func:`dumps` writes one. A record that does not add up raises
:class:`RecordError` whose message is one line naming the line: ``line 12:
turn 6 (CF): C ends South's turn (no extra turn), so F cannot follow it``.

    >>> from mancala.records import Record, dumps, loads
    >>> game = loads(dumps(Record(1, "standard", "human", "random", [5, 4, 4, 3, 3, 2, 5])))
    >>> game.moves, game.result, game.turns()
    ([5, 4, 4, 3, 3, 2, 5], '9-3', ['FE+2', 'K', 'D+2', 'J+2', 'C+2', 'L'])
"""
from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Tuple, Union

from mancala.board import CAPTURE_RULES, Board, MoveRecord
from mancala.errors import InputError, RecordError, quote
from mancala.geometry import PITS, SIDE_NAMES, pit_letter
from mancala.limits import MAX_SEEDS_PER_PIT, MIN_SEEDS
from mancala.record_format import (DEFAULTS, EXTENSION, GOING_ON, REQUIRED, RESIGNED, SETUP,
                                   UNKNOWN, VARIANT, Record, Setup, dumps, dumps_all, looks_like,
                                   setup_of, today)

MAX_TAG_CHARS = 200             #: a tag's value (a player's spelling fits: mancala.kept)

_TAG = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*')
_NUMBER = re.compile(r"(\d+)\.+")
_RESULT = re.compile(r"(\d+)-(\d+)")
_TURN = re.compile(r"(?:[A-La-l](?:\+\d+)?)+")
_SOWING = re.compile(r"([A-La-l])(?:\+(\d+))?")
_WORD = re.compile(r"\s*(?:(\{)|(;)|([^\s{;]+))")


class Reader:
    """The lines of a text, read one game at a time (its tags, then its moves to the result)."""

    def __init__(self, text: Union[str, bytes]) -> None:
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RecordError(f"not UTF-8 text (byte {exc.start + 1})") from None
        self.lines = (text[1:] if text.startswith("\ufeff") else text).splitlines()
        self.at = 0         # index of the next line to read
        self.start = 0      # the line the game read last starts on

    def next_game(self) -> bool:
        """Skip blank and '%' lines; whether a game's tags start here (else RecordError)."""
        while self.at < len(self.lines) and (not self.lines[self.at].strip()
                                             or self.lines[self.at].startswith("%")):
            self.at += 1
        if self.at == len(self.lines):
            return False
        line = self.lines[self.at].strip()
        if not line.startswith("["):
            raise RecordError(f"line {self.at + 1}: a game starts with its tags "
                              f"([Variant \"Kalah\"] ...), not {quote(line, 40)}")
        self.start = self.at + 1
        return True

    def game(self) -> Record:
        tags, lines = self.tags()
        record, start = _rules(tags, lines)
        played = _Replay(record, start)
        words = self.words()
        for number, word in words:
            if played.word(number, word):
                break
        else:
            raise RecordError(f"line {self.at}: the moves end without a result "
                              "(the stores, as 26-22, or * for a game going on)")
        for number, word in words:
            raise RecordError(f"line {number}: {quote(word, 30)} comes after the game's result "
                              f"({played.result[0]}); a game starts with its tags")
        _check_result(record, played, tags, lines)
        return record

    def tags(self) -> Tuple[Dict[str, str], Dict[str, int]]:
        """The tags, and the line of each."""
        tags: Dict[str, str] = {}
        lines: Dict[str, int] = {}
        while self.at < len(self.lines) and self.lines[self.at].strip().startswith("["):
            text, number = self.lines[self.at].strip(), self.at + 1
            match = _TAG.fullmatch(text)
            if match is None:
                raise RecordError(f"line {number}: {quote(text, 40)} is not a tag "
                                  '(a tag is [Name "value"])')
            name, value = match[1], re.sub(r"\\(.)", r"\1", match[2])
            if name in tags:
                raise RecordError(f"line {number}: a second {name} tag (the first is on line "
                                  f"{lines[name]})")
            if len(value) > MAX_TAG_CHARS or not value.isprintable():
                raise RecordError(f"line {number}: the {name} tag is not one line of at most "
                                  f"{MAX_TAG_CHARS} printable characters")
            tags[name], lines[name] = value, number
            self.at += 1
        return tags, lines

    def words(self) -> Iterator[Tuple[int, str]]:
        """(line, word) of the moves, comments ({...} and ; to the line's end) left out,
        up to a line that starts the next game's tags."""
        opened = None
        while self.at < len(self.lines):
            line, number = self.lines[self.at], self.at + 1
            if opened is None and line.strip().startswith("["):
                return
            self.at += 1
            position = 0
            if opened is not None:
                close = line.find("}")
                if close < 0:
                    continue
                opened, position = None, close + 1
            while (match := _WORD.match(line, position)) and match.end() > position:
                position = match.end()
                if match[1]:
                    close = line.find("}", position)
                    if close < 0:
                        opened = number
                        break
                    position = close + 1
                elif match[2]:
                    break
                else:
                    yield from ((number, word) for word in _split(match[3]))
        if opened is not None:
            raise RecordError(f"line {opened}: a comment opened with {{ is never closed with }}")


def _split(word: str) -> List[str]:
    """'12.CF' is a number and a turn, as PGN readers take '12.e4'."""
    match = re.match(r"(\d+\.+)(?!\d)(.+)", word)
    return [match[1], match[2]] if match else [word]


def _where(lines: Dict[str, int]) -> str:
    first, last = min(lines.values()), max(lines.values())
    return f"line {first}" if first == last else f"lines {first}-{last}"


def _rules(tags: Dict[str, str], lines: Dict[str, int]) -> Tuple[Record, Board]:
    """The record its tags describe (no moves yet), and its start."""
    for name in REQUIRED:
        if name not in tags:
            raise RecordError(f"{_where(lines)}: the tags have no {name} tag "
                              f"(a record has {', '.join(REQUIRED)})")
    if tags["Variant"].strip().lower() != VARIANT.lower():
        raise RecordError(f"line {lines['Variant']}: Variant {quote(tags['Variant'])} is not "
                          f"{VARIANT} (this reads {VARIANT} records)")
    seeds = tags["Seeds"].strip()
    if not seeds.isdigit() or not MIN_SEEDS <= int(seeds) <= MAX_SEEDS_PER_PIT:
        raise RecordError(f"line {lines['Seeds']}: Seeds is the seeds per pit at the start, "
                          f"{MIN_SEEDS}..{MAX_SEEDS_PER_PIT}, not {quote(tags['Seeds'])}")
    capture = tags["Capture"].strip()
    if capture not in CAPTURE_RULES:
        raise RecordError(f"line {lines['Capture']}: unknown capture rule {quote(capture)}; "
                          f"choose one of {', '.join(CAPTURE_RULES)}")
    for side in SIDE_NAMES:
        if not tags[side].strip():
            raise RecordError(f"line {lines[side]}: the {side} tag names nobody "
                              f"(a player, or {UNKNOWN})")
    extra = {name: value for name, value in tags.items() if name not in REQUIRED
             and name not in (SETUP, RESIGNED) and value != DEFAULTS.get(name)}
    record = Record(int(seeds), capture, tags["South"], tags["North"], tags=extra)
    if SETUP in tags:
        record.setup = _setup(tags[SETUP], record.seeds, lines[SETUP])
    if RESIGNED in tags:
        side = tags[RESIGNED].strip().capitalize()
        if side not in SIDE_NAMES:
            raise RecordError(f"line {lines[RESIGNED]}: Resigned is South or North, "
                              f"not {quote(tags[RESIGNED])}")
        record.resigned = SIDE_NAMES.index(side)
    try:
        start = record.start()
    except InputError as exc:
        raise RecordError(f"line {lines[SETUP]}: {exc}") from None
    return record, start


def _setup(text: str, seeds: int, line: int) -> Setup:
    try:
        setup = Setup.parse(text)
    except InputError as exc:
        raise RecordError(f"line {line}: {exc}") from None
    if sum(setup.slots) != 12 * seeds:
        raise RecordError(f"line {line}: the FEN holds {sum(setup.slots)} seeds, not "
                          f"{12 * seeds} (Seeds {seeds} in each of 12 pits, stores counted)")
    return setup


class _Replay:
    """The moves read so far, played on the board as they come."""

    def __init__(self, record: Record, board: Board) -> None:
        self.record, self.board = record, board
        self.turn = 0               # turns read
        self.over_at: Optional[int] = 0 if board.is_game_over() else None
        self.result: Optional[Tuple[str, int]] = None   # the result word and its line
        self.going_on: Optional[str] = None     # why the last turn is not over (it earned another)

    def word(self, line: int, word: str) -> bool:
        """Take one word of the moves; whether it was the result (the game's last word)."""
        if word == GOING_ON or _RESULT.fullmatch(word):
            self.result = (word, line)      # a game stopped mid-turn ends so: its Result is *
            return True
        if self.going_on is not None:
            raise RecordError(self.going_on)
        number = _NUMBER.fullmatch(word)
        if number:
            if int(number[1]) != self.turn + 1:
                raise RecordError(f"line {line}: turn number {word} where {self.turn + 1}. "
                                  "was expected")
            return False
        if not _TURN.fullmatch(word):
            raise RecordError(f"line {line}: {quote(word, 30)} is not a turn (pits A-L), "
                              "a turn's number (5.) or a result (26-22, or *)")
        self.play(line, word)
        return False

    def play(self, line: int, word: str) -> None:
        self.turn += 1
        where = f"line {line}: turn {self.turn} ({word})"
        if self.over_at is not None:
            ended = f"after turn {self.over_at}" if self.over_at else "at its start"
            raise RecordError(f"{where} comes after the game is over (it ended {ended})")
        board, mover = self.board, self.board.to_move
        sowings = _SOWING.findall(word)
        record: Optional[MoveRecord] = None
        for letter, claimed in sowings:
            owner, pit = divmod(ord(letter.upper()) - ord("A"), PITS)
            name = letter.upper()
            if owner != mover:
                raise RecordError(f"{where}: {name} is {SIDE_NAMES[owner]}'s pit, and it is "
                                  f"{SIDE_NAMES[mover]}'s turn")
            if board.is_game_over():
                raise RecordError(f"{where}: {name} comes after the game is over")
            if record is not None and not record.extra_turn:
                raise RecordError(f"{where}: {pit_letter(mover, record.pit)} ends "
                                  f"{SIDE_NAMES[mover]}'s turn (no extra turn), so {name} "
                                  "cannot follow it")
            if pit not in board.legal_moves:
                raise RecordError(f"{where}: {name} ({SIDE_NAMES[owner]}'s pit {pit + 1}) is empty")
            record = board.push(pit)
            self.record.moves.append(pit)
            if claimed and int(claimed) != record.captured:
                took = f"{record.captured} seeds" if record.captured else "nothing"
                raise RecordError(f"{where}: {name} captures {took}, not {int(claimed)}")
        if record.extra_turn:
            self.going_on = (f"{where}: {name} earns {SIDE_NAMES[mover]} an extra turn, so the "
                             "turn goes on: its next sowing is written with it, in this turn")
        if board.is_game_over():
            self.over_at = self.turn


def _check_result(record: Record, played: _Replay, tags: Dict[str, str],
                  lines: Dict[str, int]) -> None:
    """The Result tag and the moves' last word against the replayed game."""
    claimed, line = tags["Result"].strip(), lines["Result"]
    word, word_line = played.result
    if word != claimed:
        raise RecordError(f"line {word_line}: the moves end with {word} but the Result tag "
                          f"(line {line}) says {claimed}")
    board = played.board
    if record.resigned is not None and board.is_game_over():
        raise RecordError(f"line {lines[RESIGNED]}: {SIDE_NAMES[record.resigned]} cannot "
                          "have resigned: the game is over")
    actual = record.result
    if claimed == actual:
        return
    if claimed != GOING_ON and not _RESULT.fullmatch(claimed):
        raise RecordError(f"line {line}: Result {quote(claimed)} is not the seeds of each side, "
                          "South's first (26-22), or * for a game going on")
    if actual == GOING_ON:
        raise RecordError(f"line {line}: Result {claimed}, but the game is not over after its "
                          f"{played.turn} turns (a game going on has Result *)")
    south, north = actual.split("-")
    what = "the stores stand" if record.resigned is not None else "the moves end"
    raise RecordError(f"line {line}: Result {claimed} is wrong: {what} South {south} - "
                      f"{north} North")


# -- reading ---------------------------------------------------------------------------

def loads(text: Union[str, bytes]) -> Record:
    """The one game of a record's text, checked by replaying it; RecordError (one line
    naming the line) if it is not a real game or holds more than one."""
    reader = Reader(text)
    if not reader.next_game():
        raise RecordError("no game in it: a record starts with its tags ([Variant \"Kalah\"] ...)")
    game = reader.game()
    if reader.next_game():
        raise RecordError(f"line {reader.start}: a second game starts here; one record holds "
                          "one game (mancala.records.loads_all reads several)")
    return game


def loads_all(text: Union[str, bytes]) -> List[Record]:
    """Every game of a text (as ``history --export`` writes them), each checked;
    RecordError (one line naming the line) at the first that is not a real game."""
    reader = Reader(text)
    games = []
    while reader.next_game():
        games.append(reader.game())
    return games


__all__ = ["Record", "Setup", "RecordError", "loads", "loads_all", "dumps", "dumps_all",
           "setup_of", "looks_like", "today", "EXTENSION", "VARIANT", "REQUIRED", "SETUP", "RESIGNED",
           "GOING_ON", "UNKNOWN", "MAX_TAG_CHARS"]
