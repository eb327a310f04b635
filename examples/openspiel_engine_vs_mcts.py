"""OpenSpiel: the engine (EngineBot) against OpenSpiel's MCTS on python_kalah
(needs: pip install 'kalah[openspiel]').

    python examples/openspiel_engine_vs_mcts.py [SIMULATIONS]
"""
import sys

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts

from mancala.env.openspiel import EngineBot  # registers python_kalah

simulations = int(sys.argv[1]) if len(sys.argv) > 1 else 200
game = pyspiel.load_game("python_kalah(seeds=3,capture=empty)")
rng = np.random.RandomState(0)
# OpenSpiel's Python MCTS: its C++ pyspiel.MCTSBot crashes on Python games (2.0.2)
mcts_bot = lambda player: mcts.MCTSBot(game, 2, simulations, mcts.RandomRolloutEvaluator(1, rng),  # noqa: E731
                                       random_state=rng)
for engine_seat in (0, 1):
    bots = [None, None]
    bots[engine_seat] = EngineBot(game, engine_seat, "ai:medium")
    bots[1 - engine_seat] = mcts_bot(1 - engine_seat)
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    print(f"engine as player {engine_seat} vs MCTS ({simulations} simulations): "
          f"engine's return {returns[engine_seat]:+.0f}")
