"""An arena on a Ray cluster: ``arena ... --cluster ADDRESS``.

A unit of work is a game pair (games 2i and 2i+1, sides swapped) when sides
alternate, else one game, run as a Ray task by :func:`mancala.arena.play_game`:
game i's seed fixes it, so the games are the serial run's wherever they are
played. At most as many units as the cluster has CPUs are in flight, so an SPRT
that decides (or Ctrl-C) stops the run after the units already running, which
are cancelled: their players are closed (external engines too) by the game's
own clean-up.
"""
from __future__ import annotations

from typing import Callable, Dict, List

from mancala.arena import ArenaConfig, GameResult, play_game
from mancala.cluster import ray_error_line, ray_module
from mancala.errors import ClusterError

CANCEL_SECONDS = 10.0       # how long cancelled units get to close their players


def play_unit(config: ArenaConfig, games: List[int]) -> List[GameResult]:
    return [play_game(config, index) for index in games]


def units_of(config: ArenaConfig) -> List[List[int]]:
    """The run's games in units: pairs when sides alternate (the last may be one game)."""
    size = 2 if config.swap else 1
    return [list(range(first, min(first + size, config.games)))
            for first in range(0, config.games, size)]


def run_on_cluster(config: ArenaConfig, workers: int,
                   record: Callable[[GameResult], None]) -> None:
    """Play every unit on the cluster :func:`mancala.cluster.connect` joined,
    ``workers`` at a time, passing each game to ``record`` as its unit ends
    (a unit's games in game order). Whatever stops the run (record raising,
    Ctrl-C) cancels the units in flight. ClusterError when a task fails."""
    ray = ray_module()
    task = ray.remote(num_cpus=1, max_retries=3)(play_unit)
    shared = ray.put(config)
    queue = units_of(config)
    queue.reverse()
    pending: Dict[object, List[int]] = {}
    try:
        while queue or pending:
            while queue and len(pending) < workers:
                games = queue.pop()
                pending[task.remote(shared, games)] = games
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in ready:
                del pending[ref]
                try:
                    results = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    raise ClusterError(f"a game failed on the cluster: {ray_error_line(exc)}") from None
                for result in results:
                    record(result)
    finally:
        if pending:
            for ref in pending:     # a KeyboardInterrupt in the task: its game closes its players
                ray.cancel(ref, force=False)
            ray.wait(list(pending), num_returns=len(pending), timeout=CANCEL_SECONDS)


__all__ = ["run_on_cluster", "units_of", "play_unit"]
