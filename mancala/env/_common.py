"""What the environment faces share: the rules' options, the agent's view, rewards.

Nothing here imports Gymnasium, PettingZoo, OpenSpiel or NumPy; each face
turns these plain lists into its own types. The rules stay in mancala.Board.
"""
from __future__ import annotations

from typing import List, Optional, Union

from mancala.board import Board
from mancala.errors import InvalidRuleError, quote
from mancala.geometry import PITS
from mancala.limits import check_seeds
from mancala.players import Player, make_player
from mancala.specs import PlayerSpec, machine_spec

REWARDS = ("win", "margin")


def check_choice(value: object, what: str, allowed) -> str:
    """``value`` if it is one of ``allowed``, else InvalidRuleError naming them."""
    if not isinstance(value, str) or value not in allowed:
        raise InvalidRuleError(f"unknown {what} {quote(value)}; choose one of {', '.join(allowed)}")
    return value


def new_board(seeds: object, capture: object) -> Board:
    """A start with ``seeds`` per pit (1..12) and a capture rule, through Board's own checks."""
    check_seeds(seeds)
    return Board(seeds=seeds, capture=capture)


def mask(board: Board) -> List[int]:
    """1 for each of the mover's pits 0..5 that is a legal move, else 0."""
    legal = set(board.legal_moves)
    return [1 if pit in legal else 0 for pit in range(PITS)]


def final_margin(board: Board, player: int) -> int:
    """``player``'s final seeds minus the opponent's (the game must be over)."""
    return board.outcome().score.pov(player)


def final_reward(board: Board, player: int, reward: str) -> float:
    """The end-of-game reward of ``player``: the sign of its margin ("win") or the margin itself."""
    margin = final_margin(board, player)
    if reward == "margin":
        return float(margin)
    return float((margin > 0) - (margin < 0))


def computer_player(spec: Union[str, PlayerSpec], seed: Optional[int] = None) -> Player:
    """A computer player from its spec or spelling (:func:`mancala.specs.machine_spec`:
    PlayerSpecError for ``human`` or a spelling that is not one)."""
    return make_player(machine_spec(spec, needed_by="the environment"), seed)
