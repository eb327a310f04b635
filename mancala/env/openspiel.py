"""Kalah as an OpenSpiel game (``python_kalah``), and an OpenSpiel bot backed by the engine.

Needs the ``openspiel`` extra (``pip install 'kalah[openspiel]'``). Importing
this module registers the game with pyspiel::

    import pyspiel
    import mancala.env.openspiel
    game = pyspiel.load_game("python_kalah(seeds=5,capture=empty)")

- Parameters: ``seeds`` (per pit, 1..12, default 4) and ``capture``
  (a name of ``mancala.CAPTURE_RULES``), the rules of mancala.Board.
- Actions 0..5: a pit of the player to move, from its left (as everywhere in
  mancala). An extra turn leaves ``current_player()`` unchanged.
- Returns at the end: +1/0/-1 (zero-sum).
- Observation tensor (15 floats): the 14 slots as the observing player sees
  them (its pits 0..5, its store, the opponent's pits, their store), then 1
  if that player is to move, else 0. ``make_observation(game)`` and
  ``state.observation_tensor(player)`` both work.

OpenSpiel's own ``mancala`` is Kalah(6,4) with standard capture; its actions
are board indices, and the rules agree move for move (tests/test_env_openspiel.py):

==================  ==================================  ============================
                    OpenSpiel ``mancala``               mancala (and ``python_kalah``)
==================  ==================================  ============================
South (player 0)    actions 1..6, store at index 7      pits 0..5 (action = pit + 1)
North (player 1)    actions 8..13, store at index 0     pits 0..5 (action = pit + 8)
board index         (slot + 1) % 14                     slot 0..13 of the rules
==================  ==================================  ============================

:class:`EngineBot` plays either game with any computer player of mancala.players.
"""
from __future__ import annotations

from typing import List, Optional

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from mancala.board import Board
from mancala.env import _common
from mancala.errors import InputError, quote
from mancala.geometry import PITS, SIDE_NAMES, SLOTS, pit_slot, seen_by
from mancala.limits import DEFAULT_SEEDS

SHORT_NAME = "python_kalah"
OBSERVATION_SIZE = SLOTS + 1
OPENSPIEL_MANCALA = "mancala"


def max_game_length(seeds: int) -> int:
    """A proven bound on the moves of a game with ``seeds`` per pit (S = 12 * seeds in all).

    A move that reaches no store and captures nothing stays in the mover's
    row and brings its seeds closer to the store: the sum over row seeds of
    their distance to their store (at most 6 * S) falls by 1 or more. Every
    other move adds 1 or more to the stores, at most S times. So at most
    S + (S + 1) * 6 * S moves.
    """
    total = 2 * PITS * seeds
    return total + (total + 1) * 6 * total


_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Kalah (mancala: any seeds, three capture rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"seeds": DEFAULT_SEEDS, "capture": "standard"})


class KalahGame(pyspiel.Game):
    """Kalah with mancala's rules; parameters ``seeds`` and ``capture`` (see the module docstring)."""

    def __init__(self, params=None) -> None:
        params = dict(params or {})
        seeds = params.get("seeds", DEFAULT_SEEDS)
        capture = params.get("capture", "standard")
        self._start = _common.new_board(seeds, capture)     # InvalidRuleError: one line
        info = pyspiel.GameInfo(
            num_distinct_actions=PITS, max_chance_outcomes=0, num_players=2,
            min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=max_game_length(seeds))
        super().__init__(_GAME_TYPE, info, {"seeds": seeds, "capture": capture})

    def new_initial_state(self) -> "KalahState":
        return KalahState(self, self._start.copy(stack=False))

    def make_py_observer(self, iig_obs_type=None, params=None):
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return KalahObserver(params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class KalahState(pyspiel.State):
    """A position of :class:`KalahGame`: a mancala.Board (``state.board``) behind OpenSpiel's API."""

    def __init__(self, game: KalahGame, board: Board) -> None:
        super().__init__(game)
        self.board = board

    def current_player(self) -> int:
        return pyspiel.PlayerId.TERMINAL if self.board.is_game_over() else self.board.to_move

    def _legal_actions(self, player: int) -> List[int]:
        return self.board.legal_moves

    def _apply_action(self, action: int) -> None:
        self.board.push(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return f"{SIDE_NAMES[player]} pit {action + 1}"

    def is_terminal(self) -> bool:
        return self.board.is_game_over()

    def returns(self) -> List[float]:
        if not self.board.is_game_over():
            return [0.0, 0.0]
        south = _common.final_reward(self.board, 0, "win")
        return [south, 0.0 - south]

    def __str__(self) -> str:
        return str(self.board)


class KalahObserver:
    """The observation of a :class:`KalahState` (PyObserver interface of open_spiel.python.observation)."""

    def __init__(self, params) -> None:
        if params:
            raise InputError(f"python_kalah observations take no parameters, not {quote(params)}")
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict = {"board": self.tensor[:SLOTS], "to_move": self.tensor[SLOTS:]}

    def set_from(self, state: KalahState, player: int) -> None:
        self.dict["board"][:] = seen_by(state.board.pits, player)
        self.dict["to_move"][0] = float(state.current_player() == player)

    def string_from(self, state: KalahState, player: int) -> str:
        slots = seen_by(state.board.pits, player)
        mover = "you" if state.current_player() == player else \
            "game over" if state.is_terminal() else "the opponent"
        return f"own {slots[:7]} opponent {slots[7:]} to move: {mover}"


# -- OpenSpiel's own mancala and our boards

def openspiel_action(pit: int, player: int) -> int:
    """OpenSpiel ``mancala``'s action for ``player``'s pit 0..5: the pit's index on
    its board, which is ours shifted by one (its index 0 is North's store)."""
    return pit_slot(player, pit) + 1


def pit_of(action: int, player: int) -> int:
    """The pit 0..5 of an OpenSpiel ``mancala`` action of ``player``."""
    return action - 1 - pit_slot(player, 0)


def board_of(state) -> Board:
    """The mancala.Board of a ``python_kalah`` state, or of OpenSpiel's ``mancala``
    (its history replayed through the action mapping). InputError for another game."""
    if isinstance(state, KalahState):
        return state.board.copy(stack=False)
    name = state.get_game().get_type().short_name
    if name != OPENSPIEL_MANCALA:
        raise InputError(f"a state of {SHORT_NAME} or {OPENSPIEL_MANCALA}, not of {quote(name)}")
    board = Board()
    for action in state.history():
        board.push(pit_of(action, board.to_move))
    return board


class EngineBot(pyspiel.Bot):
    """An OpenSpiel bot that plays with a mancala computer player.

    ``EngineBot(game, player_id, level="ai:easy", seed=None)``: ``level`` is any
    computer player's :class:`mancala.specs.PlayerSpec` or its spelling
    (``ai:easy``, ``ai:medium``, ``ai:hard``, ``ai:depth=N``, ``ai:time=S``,
    ``random``...), seeded by ``seed``. ``game`` is ``python_kalah`` (any
    rules) or OpenSpiel's ``mancala``.
    """

    def __init__(self, game, player_id: int, level: str = "ai:easy",
                 seed: Optional[int] = None) -> None:
        super().__init__()
        name = game.get_type().short_name
        if name not in (SHORT_NAME, OPENSPIEL_MANCALA):
            raise InputError(f"EngineBot plays {SHORT_NAME} or {OPENSPIEL_MANCALA}, not {quote(name)}")
        if player_id not in (0, 1):
            raise InputError(f"player_id is 0 (South) or 1 (North), not {quote(player_id)}")
        self._openspiel_mancala = name == OPENSPIEL_MANCALA
        self._player_id = player_id
        self.player = _common.computer_player(level, seed=seed)

    def player_id(self) -> int:
        return self._player_id

    def provides_policy(self) -> bool:
        return False

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass

    def step(self, state) -> int:
        board = board_of(state)
        pit = self.player.choose(board)
        return openspiel_action(pit, board.to_move) if self._openspiel_mancala else pit

    def __del__(self) -> None:
        player = getattr(self, "player", None)
        if player is not None:
            player.close()


pyspiel.register_game(_GAME_TYPE, KalahGame)

__all__ = ["KalahGame", "KalahState", "KalahObserver", "EngineBot", "SHORT_NAME",
           "board_of", "openspiel_action", "pit_of", "max_game_length"]
