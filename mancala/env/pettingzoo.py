"""Kalah for PettingZoo: a two-agent AEC environment in the shape of its classic games.

Needs the ``rl`` extra (``pip install 'kalah[rl]'``)::

    from mancala.env.pettingzoo import env
    kalah = env(seeds=4, capture="standard", reward="win", render_mode="ansi")
    kalah.reset(seed=0)
    for agent in kalah.agent_iter():
        obs, reward, terminated, truncated, info = kalah.last()
        action = None if terminated else kalah.action_space(agent).sample(obs["action_mask"])
        kalah.step(action)

- Agents ``player_0`` (South, moves first) and ``player_1`` (North).
- Observation: ``{"observation": Box(0, 12 * seeds, (14,), int16), "action_mask":
  Box(0, 1, (6,), int8)}``; the 14 slots as the observing agent sees them (its
  pits 0..5 from its left, its store, the opponent's pits, their store); the
  mask is all zeros except for the agent to move.
- Action: ``Discrete(6)``, a pit 0..5 from the mover's left.
- An extra turn (the last seed in the mover's store) keeps ``agent_selection``.
- Rewards at the end only: +1/0/-1 (``reward="win"``) or the final seeds margin
  (``reward="margin"``), zero-sum. Truncation never happens.
- ``render_mode``: ``"ansi"`` (the board as text), ``"human"`` (printed at each
  step) or ``"rgb_array"`` (the board's picture as a 240 x 640 x 3 uint8 array,
  :mod:`mancala.svg`'s drawing; needs Pillow, in the ``rl`` extra).
- Illegal moves, as the classic games do: ``env()`` wraps the game so an
  illegal action ends it with -1 for the mover and 0 for the other;
  ``raw_env`` raises :class:`mancala.errors.IllegalMoveError`.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from mancala.env import _common, frames
from mancala.geometry import PITS, SLOTS, seen_by

AGENTS = ("player_0", "player_1")
RENDER_MODES = ("human", "ansi", "rgb_array")
ILLEGAL_REWARD = -1


def env(**kwargs) -> AECEnv:
    """The game wrapped as PettingZoo's classic games are: an illegal move loses (-1)."""
    game = raw_env(**kwargs)
    game = wrappers.TerminateIllegalWrapper(game, illegal_reward=ILLEGAL_REWARD)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)


class raw_env(AECEnv):
    """The Kalah AEC environment without wrappers (see the module docstring).

    ``raw_env(seeds=4, capture="standard", reward="win", render_mode=None)``;
    InvalidRuleError (one line) for bad seeds, capture rule, reward or render mode.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "kalah_v0",
                "is_parallelizable": False, "render_fps": 2}

    def __init__(self, seeds: int = 4, capture: str = "standard", reward: str = "win",
                 render_mode: Optional[str] = None) -> None:
        super().__init__()
        self._start = _common.new_board(seeds, capture)
        self.seeds, self.capture = seeds, capture
        self.reward_kind = _common.check_choice(reward, "reward", _common.REWARDS)
        if render_mode is not None:
            _common.check_choice(render_mode, "render_mode", RENDER_MODES)
        if render_mode == "rgb_array":
            frames.check_pillow()
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.action_spaces = {agent: spaces.Discrete(PITS) for agent in AGENTS}
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(0, 12 * seeds, shape=(SLOTS,), dtype=np.int16),
            "action_mask": spaces.Box(0, 1, shape=(PITS,), dtype=np.int8),
        }) for agent in AGENTS}
        self.board = self._start.copy(stack=False)
        self.agent_selection = AGENTS[0]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        player = AGENTS.index(agent)
        board = np.array(seen_by(self.board.pits, player), dtype=np.int16)
        mask = _common.mask(self.board) if agent == self.agent_selection \
            and not self.board.is_game_over() else [0] * PITS
        return {"observation": board, "action_mask": np.array(mask, dtype=np.int8)}

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        # Kalah has no chance: the seed changes nothing, and is accepted as the API asks
        self.board = self._start.copy(stack=False)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = AGENTS[self.board.to_move]

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        record = self.board.push(_as_pit(action))    # IllegalMoveError: one line
        if record.game_over:
            for player, name in enumerate(AGENTS):
                self.rewards[name] = _common.final_reward(self.board, player, self.reward_kind)
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = AGENTS[1 - record.player]
        else:
            self.agent_selection = AGENTS[self.board.to_move]   # an extra turn keeps the mover
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Union[str, np.ndarray, None]:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make the env with render_mode='ansi'")
            return None
        if self.render_mode == "rgb_array":
            return frames.frame(self.board)
        text = str(self.board)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return self.metadata["name"]


def _as_pit(action) -> int:
    """An action as a plain int for Board.push (which refuses anything but a legal pit)."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, np.integer):
        return int(action)
    return action


__all__ = ["env", "raw_env", "AGENTS"]
