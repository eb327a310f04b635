"""VectorEnv: n Kalah boards stepped at once in C, on NumPy arrays. ::

    from mancala.vector import VectorEnv
    env = VectorEnv(4096, opponent="random", seed=1)
    obs, info = env.reset()
    obs, rewards, terminations, truncations, info = env.step(env.sample_actions())

The shape follows Gymnasium's vector environments (same-step auto-reset).
Each call steps the whole batch in one call into C without the GIL
(``mancala._vector``, over the rules of ``csrc/kalah.h`` that the core plays by).

What the arrays mean (row ``i`` is board ``i``):

``obs`` (n, 14) int32
    the board seen from the side to move: its pits 0..5 (from its left), its
    store 6, the other side's pits 7..12 (from that side's left) and store 13
``info["action_mask"]`` (n, 6) bool
    the legal pits of the side to move
``info["to_move"]`` (n,) int8
    that side: 0 South, 1 North (with an opponent, always 0)
``rewards`` (n,) float64
    0 while a game goes on; when it ends, for the side that made the move:
    +1 win, 0 draw, -1 loss (``reward="margin"``: the final store difference)
``terminations`` (n,) bool
    the game ended in this step (and the board restarted)
``truncations`` (n,) bool
    always False: every game ends by the rules
``info["final_observation"]`` (n, 14) int32
    the finished board (after the end sweep) seen from the side that made the
    move; zeros where no game ended
``info["final_score"]`` (n,) int32
    its final store difference, from that side too

Without an opponent both sides are the agent (self-play): ``actions[i]`` is
played by the side to move of board ``i`` and an extra turn keeps it. With
``opponent="random"`` or ``"ai:depth=K"`` the agent is South: after its move
the opponent's replies (extra-turn chains included) are played in C until
South is to move again or the game is over, and every reward is South's. A
finished board restarts at once (South to move); its last position and score
are in ``info``. One env may be shared between threads: its calls take turns.

The arrays returned are the env's own, read-only, and rewritten in place by
the next ``step``/``reset`` (no allocation per step: a fresh 230 KB array a
step costs more than the stepping); copy what you keep, or pass ``copy=True``.

An illegal pit raises :class:`~mancala.errors.IllegalMoveError` naming the
board and the pit, before any board is changed.

NumPy is the ``vector`` extra (``pip install 'kalah[vector]'``); it is
imported when a VectorEnv is made, so ``import mancala`` never needs it.
"""
from __future__ import annotations

import operator
import secrets
import threading
from typing import Any, Dict, Optional, Tuple, Union

from mancala import _vector
from mancala.board import capture_code
from mancala.errors import IllegalMoveError, InvalidRuleError, PlayerSpecError, quote
from mancala.geometry import PITS, SLOTS
from mancala.limits import DEFAULT_SEEDS, check_depth, check_seed, check_seeds, check_whole
from mancala.specs import PlayerSpec

MAX_BOARDS = _vector.MAX_BOARDS                 # 1,048,576
MAX_OPPONENT_DEPTH = _vector.MAX_OPPONENT_DEPTH # ai:depth=K, K 1..8
REWARDS = _vector.REWARDS                       # "win", "margin"
OPPONENTS = f"None, 'random' or 'ai:depth=K' (K 1..{MAX_OPPONENT_DEPTH})"


def _numpy():
    try:
        import numpy
    except ImportError:
        raise ImportError("mancala.vector needs NumPy: pip install 'kalah[vector]'") from None
    return numpy


def parse_opponent(spec: Union[None, str, PlayerSpec]) -> Tuple[int, int]:
    """(kind, depth) of an opponent: None, "random" or "ai:depth=K" (a spelling or its
    :class:`mancala.specs.PlayerSpec`).

    Raises PlayerSpecError (a ValueError) for any other player and
    InvalidLimitError for a depth out of 1..MAX_OPPONENT_DEPTH.
    """
    if spec is None:
        return _vector.OPPONENTS.index("none"), 0
    try:
        player = PlayerSpec.parse(spec)
    except PlayerSpecError:
        player = None
    if player is not None and player.kind == "random":
        return _vector.OPPONENTS.index("random"), 0
    if player is not None and player.kind == "ai" and player.depth is not None:
        return _vector.OPPONENTS.index("ai"), check_depth(player.depth, highest=MAX_OPPONENT_DEPTH)
    raise PlayerSpecError(f"opponent is {OPPONENTS}, not {quote(spec)}")


class VectorEnv:
    """n Kalah games stepped at once in C (see the module docstring for the arrays).

    ``n`` boards (1..1,048,576), ``seeds`` per pit (1..12), ``capture``
    (a name of :data:`mancala.CAPTURE_RULES`), ``opponent`` (None: self-play; "random";
    "ai:depth=K", alpha-beta K moves deep, K 1..8), ``reward`` ("win" or
    "margin"), ``seed`` (0..2**63-1; None: a random one) for the opponent's
    and :meth:`sample_actions`' random streams, one pair per board;
    ``copy``: return new arrays from every call instead of the env's own.
    """

    def __init__(self, n: int, seeds: int = DEFAULT_SEEDS, capture: str = "standard",
                 opponent: Union[None, str, PlayerSpec] = None, seed: Optional[int] = None, *,
                 reward: str = "win", copy: bool = False) -> None:
        self._np = _numpy()
        if not isinstance(n, (bool, int)) and hasattr(n, "__index__"):
            n = operator.index(n)       # a NumPy integer
        self.num_envs = check_whole(n, "n (boards)", 1, MAX_BOARDS)
        self.seeds = check_seeds(seeds)
        code = capture_code(capture)
        self.capture = capture
        kind, depth = parse_opponent(opponent)
        self.opponent = opponent
        if reward not in REWARDS:
            raise InvalidRuleError(f"reward is one of {', '.join(REWARDS)}, not {quote(reward)}")
        self.reward = reward
        if seed is not None:
            check_seed(seed)
        self.copy = bool(copy)
        self._core = _vector.VectorCore(n, seeds, code, kind, depth, REWARDS.index(reward))
        self._core.seed(secrets.randbits(63) if seed is None else seed)
        np = self._np
        # the env's own output arrays, written in place by C; callers get read-only views
        buffers = {
            "obs": np.zeros((n, SLOTS), np.int32), "action_mask": np.zeros((n, PITS), np.uint8),
            "to_move": np.zeros(n, np.int8), "rewards": np.zeros(n, np.float64),
            "terminations": np.zeros(n, np.uint8), "final_observation": np.zeros((n, SLOTS), np.int32),
            "final_score": np.zeros(n, np.int32),
        }
        self._core.bind(buffers["obs"], buffers["action_mask"], buffers["to_move"].view(np.uint8),
                        buffers["rewards"], buffers["terminations"], buffers["final_observation"],
                        buffers["final_score"])
        buffers["action_mask"] = buffers["action_mask"].view(bool)
        buffers["terminations"] = buffers["terminations"].view(bool)
        buffers["truncations"] = np.zeros(n, bool)
        self._out = {}
        for name, array in buffers.items():
            view = array.view()
            view.flags.writeable = False
            self._out[name] = view
        self._actions = np.empty(n, np.int64)
        # the C loops run without the GIL: calls from several threads take turns
        self._lock = threading.Lock()
        self._core.observe()

    def reset(self, seed: Optional[int] = None) -> Tuple[Any, Dict[str, Any]]:
        """Every board back to the start (South to move): ``(obs, info)``.

        ``seed`` restarts the random streams too (0..2**63-1); without it they go on.
        """
        if seed is not None:
            check_seed(seed)
        with self._lock:
            if seed is not None:
                self._core.seed(seed)
            self._core.restart()
            self._core.observe()
            out = self._outputs()
        return out["obs"], {"action_mask": out["action_mask"], "to_move": out["to_move"]}

    def step(self, actions: Any) -> Tuple[Any, Any, Any, Any, Dict[str, Any]]:
        """Play ``actions[i]`` (a pit 0..5 from the mover's left) on every board ``i``.

        Returns ``(obs, rewards, terminations, truncations, info)``; raises
        IllegalMoveError (nothing played) if any pit is not legal.
        """
        np, n = self._np, self.num_envs
        given = np.asarray(actions)
        if given.shape != (n,):
            raise IllegalMoveError(f"actions holds one pit per board: shape ({n},), "
                                   f"not {quote(given.shape)}")
        if given.dtype.kind not in "iu":
            raise IllegalMoveError(f"actions are whole pit numbers 0..5, not {given.dtype} values")
        with self._lock:
            if given.dtype == np.int64 and given.flags.c_contiguous:
                pits = given
            else:
                pits = self._actions
                np.copyto(pits, given, casting="unsafe")    # out-of-range values stay out of range or wrap
            bad = self._core.step(pits)
            if bad >= 0:
                pit = given[bad].item()
                legal = ", ".join(map(str, self._core.legal_pits(bad)))
                what = "is empty" if 0 <= pit < PITS else "is not a pit 0..5"
                raise IllegalMoveError(f"board {bad}: pit {quote(pit)} {what}; legal pits: {legal}")
            out = self._outputs()
        info = {"action_mask": out["action_mask"], "to_move": out["to_move"],
                "final_observation": out["final_observation"], "final_score": out["final_score"]}
        return out["obs"], out["rewards"], out["terminations"], out["truncations"], info

    def _outputs(self) -> Dict[str, Any]:
        """The output arrays: the env's own read-only views, or copies with ``copy=True``."""
        if self.copy:
            return {name: array.copy() for name, array in self._out.items()}
        return self._out

    def sample_actions(self) -> Any:
        """A uniformly random legal pit for every board (a new int64 array), from its seeded stream, in C."""
        out = self._np.empty(self.num_envs, self._np.int64)
        with self._lock:
            self._core.sample_actions(out)
        return out

    def close(self) -> None:
        """Nothing to release (the C arrays go with the object); for Gymnasium's habits."""

    def __repr__(self) -> str:
        return (f"VectorEnv({self.num_envs}, seeds={self.seeds}, capture={self.capture!r}, "
                f"opponent={self.opponent!r}, reward={self.reward!r})")


__all__ = ["VectorEnv", "parse_opponent", "MAX_BOARDS", "MAX_OPPONENT_DEPTH", "REWARDS"]
