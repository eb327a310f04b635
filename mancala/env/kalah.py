"""KalahEnv: Kalah for Gymnasium, one agent against a computer opponent.

Needs the ``rl`` extra (``pip install 'kalah[rl]'``). See :class:`KalahEnv`.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from mancala.env import _common, frames
from mancala.errors import GameError, IllegalMoveError, quote
from mancala.geometry import PITS, SIDE_NAMES, SLOTS, seen_by
from mancala.limits import MAX_SEED

SIDES = ("south", "north", "random")
ILLEGAL = ("raise", "penalty")
ILLEGAL_REWARD = -1.0


class KalahEnv(gymnasium.Env):
    """Kalah against a computer opponent, for one learning agent.

    ``KalahEnv(opponent="ai:easy", seeds=4, capture="standard", reward="win",
    side="south", illegal="raise", render_mode=None)``; registered as
    ``mancala/Kalah-v0`` (``gymnasium.make("mancala/Kalah-v0", opponent="random")``).

    - Observation: ``Box(0, 12 * seeds, (14,), int16)``, the 14 slots seen by
      the agent: its pits 0..5 (from its left), its store, the opponent's
      pits 0..5 (from the opponent's left), the opponent's store. It is
      always the agent's turn when it observes, so no turn is included.
    - Action: ``Discrete(6)``, a pit 0..5 from the agent's left;
      ``info["action_mask"]`` (6 int8) marks the legal ones.
    - Extra turns: when the agent's last seed lands in its store, ``step``
      returns at once and the agent moves again. The opponent's moves
      (extra-turn chains included) are played before ``step`` returns, and
      listed in ``info["opponent_moves"]``.
    - Reward: 0 until the end; then +1/0/-1 (``reward="win"``) or the final
      seeds margin (``reward="margin"``); ``info["margin"]`` holds the margin.
      ``truncated`` is always False.
    - ``side``: the agent plays South (moves first), North, or a side drawn
      at each reset. ``opponent``: any computer player's
      :class:`mancala.specs.PlayerSpec` or its spelling (``random``, ``ai:easy``,
      ``ai:depth=3``, ``ai:time=0.01``, ``engine:"CMD"``...).
    - Seeding: ``reset(seed=...)`` seeds the side draw and the opponent's own
      random choices, so the same seed and actions replay the same episode
      (timed opponents, ``ai:hard`` and ``ai:time=S``, depend on the clock).
    - Illegal action (an empty pit): ``illegal="raise"`` raises
      :class:`mancala.errors.IllegalMoveError`; ``illegal="penalty"`` ends the
      episode with reward -1 and ``info["illegal"] = True``. An action outside
      0..5 always raises.
    - ``render_mode``: ``"ansi"`` (the board as text, returned), ``"human"`` (printed
      at each step) or ``"rgb_array"`` (the board's picture, :mod:`mancala.svg`'s
      drawing, as a 240 x 640 x 3 uint8 array: every frame the same shape, as
      ``gymnasium.wrappers.RecordVideo`` wants; needs Pillow, in the ``rl`` extra).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}

    def __init__(self, opponent: str = "ai:easy", seeds: int = 4, capture: str = "standard",
                 reward: str = "win", side: str = "south", illegal: str = "raise",
                 render_mode: Optional[str] = None) -> None:
        super().__init__()
        self._start = _common.new_board(seeds, capture)
        self.seeds, self.capture = seeds, capture
        self.reward_kind = _common.check_choice(reward, "reward", _common.REWARDS)
        self.side_choice = _common.check_choice(side, "side", SIDES)
        self.illegal = _common.check_choice(illegal, "illegal", ILLEGAL)
        if render_mode is not None:
            _common.check_choice(render_mode, "render_mode", self.metadata["render_modes"])
        if render_mode == "rgb_array":
            frames.check_pillow()
        self.render_mode = render_mode
        self.opponent_spec = opponent
        self._opponent = _common.computer_player(opponent)     # a bad spelling shows now
        self.observation_space = spaces.Box(0, 12 * seeds, shape=(SLOTS,), dtype=np.int16)
        self.action_space = spaces.Discrete(PITS)
        self.board = None
        self.agent = 0          #: the agent's side: 0 South, 1 North
        self._done = True

    # -- Gymnasium API

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:        # a fresh opponent, seeded from the episode's generator
            self._opponent.close()
            self._opponent = _common.computer_player(
                self.opponent_spec, seed=int(self.np_random.integers(0, MAX_SEED)))
        if self.side_choice == "random":
            self.agent = int(self.np_random.integers(0, 2))
        else:
            self.agent = SIDES.index(self.side_choice)
        self.board = self._start.copy(stack=False)
        self._done = False
        # South's opening chain never ends the game (checked for every start by brute force)
        replies = self._opponent_moves()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(replies)

    def step(self, action) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        if self._done:
            raise GameError("the episode is over (or never started); call reset()")
        pit = self._pit(action)
        if pit not in self.board.legal_moves:
            if self.illegal == "raise":
                raise IllegalMoveError(f"pit {pit} is empty; legal: {self.board.legal_moves}")
            self._done = True
            info = self._info([])
            info["illegal"] = True
            return self._observation(), ILLEGAL_REWARD, True, False, info
        self.board.push(pit)
        replies = self._opponent_moves()
        reward = 0.0
        if self.board.is_game_over():
            self._done = True
            reward = _common.final_reward(self.board, self.agent, self.reward_kind)
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self._done, False, self._info(replies)

    def render(self) -> Union[str, np.ndarray, None]:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make the env with render_mode='ansi'")
            return None
        if self.render_mode == "rgb_array":     # before reset(), the start
            return frames.frame(self._start if self.board is None else self.board)
        text = "(no game: call reset())" if self.board is None else \
            f"{self.board}\n  agent: {SIDE_NAMES[self.agent]}, opponent: {self._opponent.spec}"
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        self._opponent.close()

    # -- helpers

    def action_masks(self) -> np.ndarray:
        """The legal pits as 6 int8 (the name sb3-contrib's MaskablePPO looks for)."""
        if self.board is None:
            raise GameError("no game yet: call reset()")
        return np.array(_common.mask(self.board), dtype=np.int8)

    @staticmethod
    def _pit(action) -> int:
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= action < PITS:
            raise IllegalMoveError(f"an action is a pit 0..5, not {quote(action)}")
        return int(action)

    def _opponent_moves(self) -> List[int]:
        """Let the opponent move until it is the agent's turn or the game is over."""
        moves = []
        while not self.board.is_game_over() and self.board.to_move != self.agent:
            pit = self._opponent.choose(self.board.copy(stack=False))
            self.board.push(pit)
            moves.append(pit)
        return moves

    def _observation(self) -> np.ndarray:
        return np.array(seen_by(self.board.pits, self.agent), dtype=np.int16)

    def _info(self, replies: List[int]) -> Dict[str, Any]:
        info = {"action_mask": self.action_masks(), "opponent_moves": replies,
                "side": SIDE_NAMES[self.agent].lower()}
        if self.board.is_game_over():
            info["margin"] = _common.final_margin(self.board, self.agent)
        return info
