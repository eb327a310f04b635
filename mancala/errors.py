"""Errors raised by mancala: each is a ValueError whose message quotes the bad input."""


class MancalaError(ValueError):
    """Base class of every input error mancala raises."""


class InvalidBoardError(MancalaError):
    """A position that is not a Kalah board (length, seeds, side to move)."""


class InvalidRuleError(MancalaError):
    """An unknown capture rule, evaluation or seed count."""


class IllegalMoveError(MancalaError):
    """A pit that is not a legal move in the position."""


class InvalidLimitError(MancalaError):
    """A search limit that is not a positive depth, time or node count."""


class SearchStoppedError(MancalaError):
    """A call that Engine.stop() ended before it had an answer."""
