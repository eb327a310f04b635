"""Errors raised by mancala: bad input is a ValueError (MancalaError) whose message quotes it briefly."""

QUOTE_LIMIT = 60


class MancalaError(ValueError):
    """Base class of every input error mancala raises."""


class InvalidBoardError(MancalaError):
    """A position that is not a Kalah board (length, seeds, side to move)."""


class InvalidRuleError(MancalaError):
    """An unknown capture rule, evaluation or seed count."""


class IllegalMoveError(MancalaError):
    """A pit that is not a legal move in the position."""


class InvalidLimitError(MancalaError):
    """A number out of its range: a depth, time, node count, table size or value to keep."""


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` for an error message, cut to about ``limit`` characters.

    Error messages quote what the user gave; a 500 KB name must not come back
    whole, and a repr that fails (an int too long to print) must not hide the error.
    """
    try:
        text = repr(value)
    except Exception:   # e.g. an int over 4,300 digits: repr itself refuses
        bits = value.bit_length() if isinstance(value, int) else None
        return f"<{type(value).__name__}{f' of {bits:,} bits' if bits else ''}>"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


class SearchStoppedError(RuntimeError):
    """A call that Engine.stop() ended before it had an answer (not bad input: a RuntimeError)."""
