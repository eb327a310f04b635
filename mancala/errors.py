"""Every error mancala raises on purpose, in one place.

::

    MancalaError                    the root: ``except MancalaError`` catches them all
      InputError (ValueError)       bad input; the message quotes it briefly (quote())
        InvalidBoardError           a position that is not a Kalah board
        InvalidRuleError            an unknown capture rule or evaluation; seeds per pit out of range
        IllegalMoveError            a pit that is not a legal move
        InvalidLimitError           a number out of its range (depth, time, nodes, table, threads...)
        PlayerSpecError             a player spelling mancala.specs does not know
        EntryError                  a line typed at the game's prompt that is not a pit or a command
        GameError                   something the game cannot do now (undo with nothing to undo)
        SaveFileError               a save file that cannot be read or is not a real game
          InUseError                an autosaved game another running game owns
          RecordError               a game record (mancala.records) that cannot be read: its line and why
        BookError                   an opening book that cannot be used
        EndgameFileError            an endgame database file that cannot be used
          EndgameMissingError       no database file where one was looked for
          EndgameUntrustedError     a level this installation did not seal (mancala.endgame.sealing)
        PositionFileError           a bench position file that cannot be read
        RequestError                a web request that is not what the API takes (mancala.web)
        PictureError                a board picture's option that cannot be drawn (mancala.svg)
      JournalError (ValueError)     a cluster solve's journal that cannot be used for this solve
      SearchStoppedError (RuntimeError)   Engine.stop() ended a call before it had an answer
      PlayerFailedError             an external engine crashed, hung or sent an illegal move (``reason``)
      AutosaveError (OSError)       the autosave folder cannot be written
      EndgameSpaceError (OSError)   too little disk or memory to build an endgame level
      ClusterError                  a Ray cluster that cannot be used (absent extra, unreachable, a bad journal)
      CommandError                  a fatal problem a command reports as one line
      HistoryError                  the game history's database cannot be read or written (mancala.history)
      Refused                       a web request answered with an HTTP error status and one line (mancala.web)

Each class keeps its old home too (``mancala.storage.SaveFileError`` is this
one), so code that imported it from there still works.
"""
from typing import Dict, Optional

from mancala._system import error_line

QUOTE_LIMIT = 60


class MancalaError(Exception):
    """Base class of every error mancala raises on purpose."""


class InputError(MancalaError, ValueError):
    """Bad input (a ValueError): the message says what is allowed and quotes what was given."""


class InvalidBoardError(InputError):
    """A position that is not a Kalah board (length, seeds, side to move)."""


class InvalidRuleError(InputError):
    """An unknown capture rule, evaluation or endgame choice; seeds per pit out of range."""


class IllegalMoveError(InputError):
    """A pit that is not a legal move in the position."""


class InvalidLimitError(InputError):
    """A number out of its range: a depth, time, node count, table size, thread count or value to keep."""


class PlayerSpecError(InputError):
    """A player spelling (or spec) mancala.specs does not know."""


class EntryError(InputError):
    """A line typed at the game's prompt that is not a legal pit or a command."""


class GameError(InputError):
    """Something the game cannot do now (undo with nothing to take back, move after the end)."""


class SaveFileError(InputError):
    """A save file that cannot be read or does not describe a real game."""


class InUseError(SaveFileError):
    """A saved game another running game owns."""


class RecordError(SaveFileError):
    """A game record (mancala.records) that is not a real game: one line naming its line and why."""


class BookError(InputError):
    """An opening book that cannot be used: missing, not JSON, or an entry that breaks its rules."""


class EndgameFileError(InputError):
    """An endgame database file that is missing, foreign, truncated or corrupt."""


class EndgameMissingError(EndgameFileError):
    """No database file where one was looked for (nothing wrong with the cache)."""


class EndgameUntrustedError(EndgameFileError):
    """A sound-looking level this installation neither built nor checked in full (left where it is)."""


class PositionFileError(InputError):
    """A bench position file (or one line of it) that cannot be read."""


class RequestError(InputError):
    """A web request that is not what the API takes: not JSON, a missing or unknown field, too large."""


class PictureError(InputError):
    """A board picture's option that cannot be drawn: an unknown colour, a pit out of range, a size <= 0."""


class JournalError(MancalaError, ValueError):
    """A journal that cannot be used for this solve (one line; mancala.cluster.journal)."""


class SearchStoppedError(MancalaError, RuntimeError):
    """A call that Engine.stop() ended before it had an answer (not bad input: a RuntimeError)."""


class PlayerFailedError(MancalaError):
    """A player that cannot go on: an external engine crashed, hung past its time or sent an illegal move.

    ``reason`` is one of "crash", "timeout", "illegal-move", "protocol"; the message says what happened.
    """

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason

    def __reduce__(self):
        # Exception pickles its args alone: keep the reason across processes too
        return type(self), (str(self), self.reason)


class AutosaveError(MancalaError, OSError):
    """The autosave folder cannot be written; the message is one line for the player."""


class EndgameSpaceError(MancalaError, OSError):
    """Too little disk or memory to build endgame levels; the message names what is needed and what there is."""


class ClusterError(MancalaError):
    """A Ray cluster that cannot be used: the extra absent, an address unreachable, a journal of another solve."""


class CommandError(MancalaError):
    """A fatal problem a command reports as one line (no traceback)."""


class SealError(MancalaError):
    """This installation's key (mancala.seal) cannot be read or made: one line naming the file."""


class HistoryError(MancalaError):
    """The game history's database cannot be read or written (a read-only folder, a lock held too long)."""


class Refused(MancalaError):
    """A web request answered with an HTTP error status (``status``: 403, 409, 503...) and one
    line, with the headers it needs (``headers``: Retry-After for a busy server)."""

    def __init__(self, status: int, message: str, headers: Optional[Dict[str, str]] = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = dict(headers or {})


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` for an error message, cut to about ``limit`` characters.

    Error messages quote what the user gave; a 500 KB name must not come back
    whole, and a repr that fails (an int too long to print) must not hide the error.
    Raises nothing.
    """
    try:
        text = repr(value)
    except Exception:   # e.g. an int over 4,300 digits: repr itself refuses
        bits = value.bit_length() if isinstance(value, int) else None
        return f"<{type(value).__name__}{f' of {bits:,} bits' if bits else ''}>"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def one_line(exc: BaseException) -> str:
    """An error's message on one line (its name if it has none), for a person to read;
    an OSError of the system's own as "PATH: reason" (:func:`mancala._system.error_line`),
    never "[Errno N] ...". Raises nothing."""
    if isinstance(exc, OSError) and not isinstance(exc, MancalaError):
        return error_line(exc)
    return " ".join(str(exc).split()) or type(exc).__name__


__all__ = [
    "MancalaError", "InputError", "InvalidBoardError", "InvalidRuleError", "IllegalMoveError",
    "InvalidLimitError", "PlayerSpecError", "EntryError", "GameError", "SaveFileError",
    "InUseError", "RecordError", "BookError", "EndgameFileError", "EndgameMissingError", "EndgameUntrustedError", "EndgameSpaceError", "ClusterError", "PositionFileError",
    "RequestError", "PictureError", "JournalError",
    "SearchStoppedError", "PlayerFailedError", "AutosaveError", "CommandError", "quote", "one_line",
    "HistoryError", "SealError", "Refused",
]
