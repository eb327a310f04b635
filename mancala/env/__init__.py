"""Kalah for reinforcement learning: Gymnasium, PettingZoo and OpenSpiel faces.

=================================  ===================================  =========================
face                               what                                 extra
=================================  ===================================  =========================
``mancala.env.KalahEnv``           Gymnasium, one agent against an      ``rl``
                                   opponent; id ``mancala/Kalah-v0``
``mancala.env.pettingzoo.env()``   PettingZoo AEC, two agents           ``rl``
``mancala.env.openspiel``          OpenSpiel game ``python_kalah`` and  ``openspiel``
                                   an engine-backed ``EngineBot``
=================================  ===================================  =========================

``import mancala`` imports none of them; importing this package registers
the Gymnasium id when Gymnasium is installed, and ``KalahEnv`` is loaded on
first use.
"""
from __future__ import annotations

ENV_ID = "mancala/Kalah-v0"
EXTRA_HINT = "pip install 'kalah[rl]'"

try:
    import gymnasium as _gymnasium
except ImportError:     # the rl extra is not installed: KalahEnv says so when asked for
    _gymnasium = None
else:
    if ENV_ID not in _gymnasium.registry:
        _gymnasium.register(id=ENV_ID, entry_point="mancala.env.kalah:KalahEnv")


def __getattr__(name: str):
    if name == "KalahEnv":
        if _gymnasium is None:
            raise ImportError(f"mancala.env.KalahEnv needs Gymnasium: {EXTRA_HINT}")
        from mancala.env.kalah import KalahEnv      # the optional extra rl's (Gymnasium)
        return KalahEnv
    raise AttributeError(f"module 'mancala.env' has no attribute {name!r}")


__all__ = ["KalahEnv", "ENV_ID"]
