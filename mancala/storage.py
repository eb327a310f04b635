"""Save files: JSON a person can read, checked on the way in, written atomically.

A save file (format ``mancala-save``, version 1)::

    {
      "format": "mancala-save",
      "version": 1,
      "rules": {"seeds": 4, "capture": "standard"},
      "players": {"south": "human", "north": "ai:medium"},
      "moves": [2, 5, 0],
      "position": {"slots": [5, 5, 0, 5, 5, 0, 2, ...], "to_move": 1},
      "seed": null,
      "saved_at": "2026-11-22T05:30:00Z"
    }

A rated game (:mod:`mancala.game`) has ``"rated": true`` as well, so it
resumes rated; a file without it is a casual game. A game that starts from a
position that is not the rules' start (a game record's set-up,
:mod:`mancala.records`) has ``"setup": {"slots": [...], "to_move": 0}``, and its
moves are played from there.

A **game record** (:mod:`mancala.records`: text people read and paste) is a save
too: :func:`load` reads one where the name ends in ``.kalah`` or, for any name but
``.json``, where the text starts with a tag (``[Variant "Kalah"]``), and :func:`save`
writes one where the name ends in ``.kalah``; a record is never rated.

``moves`` are pits 0..5 counted from the mover's left, in the order played
(the mover of each follows from the rules); ``position`` is the board they
lead to, slots in the index order of the rules. A save file is untrusted
input: :func:`load` reads at most :data:`MAX_BYTES` (as JSON only
:func:`mancala.untrusted.read_json` reads it), replays the moves under
the rules with :class:`mancala.Board` (once: the :class:`SavedGame` it returns
keeps the board, so resuming and autosaving it replay nothing) and refuses
anything that does not fit with a :class:`SaveFileError` whose message is one
line. It only ever reads the file. This module knows the file format, not the
players: the layer that does passes ``players`` (for example
:func:`mancala.players.canonical_spec`) to check the two players' spellings. :func:`save` writes a temporary file in the same directory and
renames it over the target, so a crash leaves the old file or the new one.

:func:`save` writes only into a folder that exists: a typo in a folder name
is refused, not created. A ``save`` without a name goes to the data folder
(:func:`save_path`), never into the current folder (in a clone, the
repository). Autosaves (one file per game, in the data directory of
:func:`data_dir`) are :mod:`mancala.autosaves`.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

from mancala._system import (FileTooLarge, NotARegularFile, read_regular_file, refuse_special,
                             write_atomically)
from mancala import records
from mancala.board import CAPTURE_RULES, Board
from mancala.errors import InputError, InvalidLimitError, InvalidRuleError, RecordError, SaveFileError
from mancala.errors import quote as _quote
from mancala.limits import DEFAULT_SEEDS, MAX_SEED, check_seed, check_seeds
from mancala.untrusted import read_json

FORMAT = "mancala-save"
VERSION = 1
MAX_BYTES = 1 << 20          # no honest save comes near this: a game has a few hundred moves
DEFAULT_SAVE_NAME = "mancala-save.json"
SAVES_FOLDER = "saves"       #: where a save without a name goes, in the data folder

PathLike = Union[str, "os.PathLike[str]"]
PlayerCheck = Callable[[str], str]     # a spelling -> its canonical form, or ValueError
MAX_SPEC_CHARS = 40          # without a player check: the longest spelling a save may hold

_FIELDS = {"format", "version", "rules", "players", "moves", "position", "seed", "saved_at",
           "rated", "setup"}
_REQUIRED = {"format", "version", "rules", "players", "moves", "position"}


@dataclass
class SavedGame:
    """Everything a save file holds: rules, players, moves and the position they reach."""

    seeds: int = DEFAULT_SEEDS
    capture: str = "standard"
    south: str = "human"
    north: str = "ai:medium"
    moves: List[int] = field(default_factory=list)
    seed: Optional[int] = None
    rated: bool = False         #: played unaided, counted for the person's rating (mancala.game)
    setup: Optional[records.Setup] = None   #: the start, when not the rules' own (a record's FEN)
    _board: Optional[Board] = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def from_board(cls, board: Board, seeds: int, south: str, north: str,
                   seed: Optional[int] = None) -> "SavedGame":
        """The save of a game whose board (from a start of ``seeds`` per pit) is
        at hand: its moves are the board's history, and nothing is replayed. Raises nothing."""
        game = cls(seeds, board.capture, south, north,
                   [record.pit for record in board.move_stack], seed,
                   setup=records.setup_of(board, seeds))
        game._board = board.copy()
        return game

    def board(self) -> Board:
        """The position the moves lead to, a copy to play on (IllegalMoveError
        if a move is not legal). Replayed at most once: a game read by
        :func:`load` or made by :meth:`from_board` already knows it."""
        return self._replayed().copy()

    def _replayed(self) -> Board:
        board = self._board
        if board is None or board.capture != self.capture or board.seeds != 12 * self.seeds \
                or [record.pit for record in board.move_stack] != list(self.moves):
            board = self.record().board()
            self._board = board
        return board

    def record(self, **tags: str) -> records.Record:
        """The game as a record holds it (:mod:`mancala.records`), with ``tags`` (Event, Date...)."""
        return records.Record(self.seeds, self.capture, self.south, self.north, list(self.moves),
                              self.setup, tags=tags)

    def to_json(self) -> Dict[str, Any]:
        """The fields of the save file (raises what :meth:`board` raises)."""
        board = self._replayed()
        fields = {
            "format": FORMAT,
            "version": VERSION,
            "rules": {"seeds": self.seeds, "capture": self.capture},
            "players": {"south": self.south, "north": self.north},
            "moves": list(self.moves),
            "position": {"slots": list(board.pits), "to_move": board.to_move},
            "seed": self.seed,
            "saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        if self.rated:
            fields["rated"] = True
        if self.setup is not None:
            fields["setup"] = {"slots": list(self.setup.slots), "to_move": self.setup.to_move}
        return fields


# -- where files go -----------------------------------------------------------------

def data_dir() -> Path:
    """``$MANCALA_HOME``, else ``$XDG_DATA_HOME/mancala``, else ``~/.local/share/mancala``.

    Raises RuntimeError (from :meth:`pathlib.Path.home`) only when none is set
    and the home directory cannot be found.
    """
    home = os.environ.get("MANCALA_HOME")
    if home:
        return Path(home)
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "mancala"
    return Path.home() / ".local" / "share" / "mancala"


def shown_path(path: "os.PathLike[str] | str") -> str:
    """A path as people are shown it: under the home folder as ``~/...`` (as a
    shell writes it, and it can be typed back), else as it is."""
    text = str(path)
    home = os.environ.get("HOME")
    if home and home != os.sep and os.path.isabs(home):
        home = home.rstrip(os.sep)
        if text == home or text.startswith(home + os.sep):
            return "~" + text[len(home):]
    return text


def save_path(name: str = "") -> Path:
    """Where a ``save [FILE]`` writes: FILE as given (``~`` expanded; a relative name
    is the current folder's), else :data:`DEFAULT_SAVE_NAME` in the data folder's
    :data:`SAVES_FOLDER`, made if missing: a save nobody named is the player's
    own thing, not the current folder's (in a clone, the repository, where git
    would see it). OSError if that folder cannot be made."""
    if name:
        return Path(os.path.expanduser(name))
    folder = data_dir() / SAVES_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    return folder / DEFAULT_SAVE_NAME


# -- writing ------------------------------------------------------------------------

def dumps(game: SavedGame, record: bool = False) -> str:
    """The save file text of a game: one field per line, short enough to read; with
    ``record``, its game record (:mod:`mancala.records`, dated today).

    Raises IllegalMoveError if the game's moves are not a legal history.
    """
    if record:
        return records.dumps(game.record(Date=records.today()))
    fields = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in game.to_json().items()]
    return "{\n" + ",\n".join(fields) + "\n}\n"


def save(game: SavedGame, path: PathLike, *, replace_any: bool = False) -> Path:
    """Write a game atomically.

    Refuses to overwrite a file that is not a mancala save, unless
    ``replace_any`` (for the autosave, whose path belongs to mancala), and
    to write into a folder that does not exist: both SaveFileError. Raises
    OSError if the write itself fails (the old file is then left whole),
    IllegalMoveError if the game's moves are not a legal history.
    """
    path = Path(path)
    if path.is_dir():
        raise SaveFileError(f"{str(path)!r} is a directory")
    try:
        refuse_special(path)
    except NotARegularFile:
        raise SaveFileError(f"will not write to {str(path)!r}: not a regular file") from None
    if not replace_any and path.exists() and not _looks_like_save(path):
        raise SaveFileError(f"will not overwrite {str(path)!r}: it is not a mancala save file")
    text = dumps(game, record=is_record_name(path))
    directory = path.parent
    if not directory.is_dir():
        # a typo in a folder name should not create folders nobody asked for
        missing = Path(os.path.abspath(directory))
        while not missing.parent.is_dir() and missing.parent != missing:
            missing = missing.parent
        what = "is not a folder" if missing.exists() else "does not exist"
        raise SaveFileError(f"no folder {str(missing)!r} ({what}): create it first")
    # the writer's pid in the name lets a later run tell a killed write from a live one
    write_atomically(path, lambda handle: handle.write(text))
    return path


def _looks_like_save(path: Path) -> bool:
    try:
        raw = _read(path)
        if records.looks_like(path, raw):
            records.loads(raw)
            return True
        data = _parse(path, raw)
    except SaveFileError:
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def is_record_name(path: PathLike) -> bool:
    """Whether a file's name says a game record (it ends in :data:`mancala.records.EXTENSION`)."""
    return os.fspath(path).lower().endswith(records.EXTENSION)


# -- reading ------------------------------------------------------------------------

def load(path: PathLike, *, players: Optional[PlayerCheck] = None) -> SavedGame:
    """Read and check a save file; SaveFileError with a one-line reason if it does not fit.

    ``players`` turns each side's spelling into its canonical form or raises
    ValueError (:func:`mancala.players.canonical_spec`); without it a
    spelling need only be short text.
    """
    path = Path(path)
    raw = _read(path)
    try:
        if records.looks_like(path, raw):
            return from_record(records.loads(raw), players)
        return _check(_parse(path, raw), players)
    except RecordError as exc:
        raise RecordError(f"{str(path)!r}: {exc}") from None
    except SaveFileError as exc:
        raise SaveFileError(f"{str(path)!r}: {exc}") from None


def loads(text: Union[str, bytes], *, players: Optional[PlayerCheck] = None,
          setup: bool = False) -> SavedGame:
    """Check a save file's or a game record's text or bytes (see :func:`load`); SaveFileError
    if it does not fit, or if its game starts from a set-up position unless ``setup`` (a
    caller that replays only ``seeds``, ``capture`` and ``moves`` must not get one)."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise SaveFileError(f"larger than {MAX_BYTES // 1024} KB, so not a mancala save")
    if records.looks_like(None, text):
        game = from_record(records.loads(text), players)
    else:
        game = _check(_decode(text), players)
    if game.setup is not None and not setup:
        raise SaveFileError("the game starts from a set-up position (a record's FEN), not the "
                            "rules' start: only games from the start load here")
    return game


def from_record(record: records.Record, players: Optional[PlayerCheck] = None) -> SavedGame:
    """The save of a game record (read and replayed: :func:`mancala.records.loads`), casual,
    its players checked as a save file's are (SaveFileError naming the one unknown)."""
    game = SavedGame(record.seeds, record.capture, *_players(record.south, record.north, players),
                     list(record.moves), setup=record.setup)
    game._board = record.board()
    return game


def _players(south: Any, north: Any, players: Optional[PlayerCheck]) -> List[str]:
    specs = []
    for side, spec in (("south", south), ("north", north)):
        try:
            if not isinstance(spec, str) or (players is None and len(spec) > MAX_SPEC_CHARS):
                raise ValueError(spec)
            specs.append(spec if players is None else players(spec))
        except ValueError:
            raise SaveFileError(f"unknown {side} player {_quote(spec)}") from None
    return specs


def _read(path: Path) -> bytes:
    name = repr(str(path))
    try:
        return read_regular_file(path, MAX_BYTES)
    except FileNotFoundError:
        raise SaveFileError(f"{name}: no such file") from None
    except FileTooLarge as exc:
        size = f"{exc.size} bytes is " if exc.size is not None else ""
        raise SaveFileError(f"{name}: {size}larger than {MAX_BYTES // 1024} KB, "
                            "so not a mancala save") from None
    except OSError as exc:
        raise SaveFileError(f"{name}: {exc.strerror or exc}") from None


def _parse(path: Path, raw: bytes) -> Any:
    try:
        return _decode(raw)
    except SaveFileError as exc:
        raise SaveFileError(f"{str(path)!r}: {exc}") from None


def _decode(raw: Union[bytes, str]) -> Any:
    return read_json(raw, SaveFileError, hint="truncated, or not a save file?")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _object(value: Any, what: str, keys: set, required: set) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise SaveFileError(f"{what} is not a JSON object")
    unknown = sorted(set(value) - keys)
    if unknown:
        raise SaveFileError(f"unknown field {_quote(unknown[0])} in {what}")
    missing = sorted(required - set(value))
    if missing:
        raise SaveFileError(f"{what} has no {_quote(missing[0])} field")
    return value


def _check(data: Any, players: Optional[PlayerCheck]) -> SavedGame:
    """The whole check: shape, rules, players, moves replayed (once), position compared."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveFileError(f"not a mancala save file (no \"format\": \"{FORMAT}\")")
    version = data.get("version")
    if not _is_int(version):
        raise SaveFileError(f"version is not a whole number: {_quote(version)}")
    if version != VERSION:
        newer = " (saved by a newer mancala)" if version > VERSION else ""
        raise SaveFileError(f"save format version {version} is not supported{newer}; "
                            f"this mancala reads version {VERSION}")
    _object(data, "the save file", _FIELDS, _REQUIRED)

    rules = _object(data["rules"], "rules", {"seeds", "capture"}, {"seeds", "capture"})
    seeds, capture = rules["seeds"], rules["capture"]
    try:
        check_seeds(seeds)
    except InvalidRuleError as exc:
        raise SaveFileError(str(exc)) from None
    if not isinstance(capture, str) or capture not in CAPTURE_RULES:
        raise SaveFileError(f"unknown capture rule {_quote(capture)}; "
                            f"choose one of {', '.join(CAPTURE_RULES)}")

    sides = _object(data["players"], "players", {"south", "north"}, {"south", "north"})
    specs = _players(sides["south"], sides["north"], players)

    seed = data.get("seed")
    if seed is not None:
        try:
            check_seed(seed)
        except InvalidLimitError:
            raise SaveFileError(f"seed is a whole number from 0 to {MAX_SEED:,} or null, "
                                f"not {_quote(seed)}") from None

    position = _object(data["position"], "position", {"slots", "to_move"}, {"slots", "to_move"})
    slots, to_move = position["slots"], position["to_move"]
    if not isinstance(slots, list) or len(slots) != 14:
        count = len(slots) if isinstance(slots, list) else "no"
        raise SaveFileError(f"position has {count} slots, not 14")
    bad = [value for value in slots if not _is_int(value) or value < 0]
    if bad:
        raise SaveFileError(f"position holds {_quote(bad[0])}, not a count of seeds")
    if sum(slots) != 12 * seeds:
        raise SaveFileError(f"position holds {sum(slots)} seeds, not {12 * seeds} "
                            f"({seeds} in each of 12 pits)")
    if to_move not in (0, 1) or isinstance(to_move, bool):
        raise SaveFileError(f"to_move is 0 (South) or 1 (North), not {_quote(to_move)}")

    moves = data["moves"]
    if not isinstance(moves, list):
        raise SaveFileError("moves is not a list")
    setup = _setup(data.get("setup"), seeds)
    board = records.Record(seeds, capture, setup=setup).start()
    for number, pit in enumerate(moves, 1):
        if not _is_int(pit) or not 0 <= pit <= 5:
            raise SaveFileError(f"move {number} is {_quote(pit)}, not a pit 0..5")
        if board.is_game_over():
            raise SaveFileError(f"move {number} comes after the game is over")
        if pit not in board.legal_moves:
            raise SaveFileError(f"move {number} (pit {pit}) is not legal: that pit is empty")
        board.push(pit)
    if list(board.pits) != slots or board.to_move != to_move:
        raise SaveFileError("the position does not match the move history "
                            "(edited by hand or damaged?)")
    rated = data.get("rated", False)
    if not isinstance(rated, bool):
        raise SaveFileError(f"rated is true or false, not {_quote(rated)}")
    game = SavedGame(seeds, capture, specs[0], specs[1], list(moves), seed, rated, setup)
    game._board = board
    return game


def _setup(value: Any, seeds: int) -> Optional[records.Setup]:
    """A save's start when it is not the rules' own (its "setup" field), checked."""
    if value is None:
        return None
    setup = _object(value, "setup", {"slots", "to_move"}, {"slots", "to_move"})
    slots, to_move = setup["slots"], setup["to_move"]
    if not isinstance(slots, list) or len(slots) != 14 or not all(_is_int(v) for v in slots) \
            or to_move not in (0, 1) or isinstance(to_move, bool):
        raise SaveFileError("setup is 14 counts of seeds and the side to move (0 or 1)")
    if sum(slots) != 12 * seeds:
        raise SaveFileError(f"setup holds {sum(slots)} seeds, not {12 * seeds}")
    try:
        Board(slots, to_move)
    except InputError as exc:
        raise SaveFileError(f"setup: {exc}") from None
    return records.Setup(tuple(slots), to_move)


__all__ = ["SavedGame", "SaveFileError", "RecordError", "from_record", "is_record_name", "FORMAT", "VERSION", "MAX_BYTES", "load", "loads",
           "save", "save_path", "dumps", "data_dir", "shown_path", "DEFAULT_SAVE_NAME", "SAVES_FOLDER"]
