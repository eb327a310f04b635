"""mancala: a fast Kalah engine, a terminal game and a Python API.

    >>> import mancala
    >>> board = mancala.Board()
    >>> engine = mancala.Engine(hash_mb=16)
    >>> engine.search(board, depth=12).move in board.legal_moves
    True
"""
from mancala import _command_start

_command_start.hold()       # python -m mancala: a stop while the package loads waits (see there)

from mancala._core import CAPTURE_RULES, EVALUATIONS, MAX_DEPTH, MAX_SEEDS
from mancala._version import __version__
from mancala.analysis import AnalysisProgress
from mancala.board import Board, MoveRecord, Outcome
from mancala.engine import Engine, SearchLimit, SearchProgress, SearchResult
from mancala.errors import (
    IllegalMoveError,
    InvalidBoardError,
    InvalidLimitError,
    InvalidRuleError,
    MancalaError,
)

__all__ = [
    "Board", "MoveRecord", "Outcome", "Engine", "SearchLimit", "SearchProgress", "SearchResult",
    "AnalysisProgress",
    "CAPTURE_RULES", "EVALUATIONS", "MAX_DEPTH", "MAX_SEEDS",
    "MancalaError", "InvalidBoardError", "InvalidRuleError", "IllegalMoveError",
    "InvalidLimitError",
]
