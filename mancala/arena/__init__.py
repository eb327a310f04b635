"""Matches between two players: the tournament and its results.

The arena's face: every name is one of its two modules', handed on here so
``from mancala.arena import ArenaConfig, run_arena`` reads as it always has.

- :mod:`mancala.arena.tournament`: :func:`run_arena` plays the games of an
  :class:`ArenaConfig` (sides alternating, seeded, over an opening suite,
  forfeits, the SPRT stop) and answers with an :class:`ArenaReport`.
- :mod:`mancala.arena.results`: each game's :class:`GameResult` from player
  A's point of view and their :class:`Summary` (the Elo and the SPRT from
  :mod:`mancala.stats`).
"""
from mancala.arena.results import GAME_POINTS, OUTPUT_NAMES, GameResult, Summary, pair_counts, summarise
from mancala.arena.tournament import (ArenaConfig, ArenaReport, Runner, check_player, close_players,
                                      game_seed, play_game, run_arena)
from mancala.errors import PlayerSpecError  # noqa: F401  an error class's old home (not listed)

__all__ = ["ArenaConfig", "ArenaReport", "Runner", "run_arena", "play_game", "close_players", "game_seed",
           "check_player", "GameResult", "OUTPUT_NAMES", "Summary", "summarise", "pair_counts",
           "GAME_POINTS"]
