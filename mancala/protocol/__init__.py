"""The engine protocol, both ways (the commands and answers are ``docs/protocol.md``).

The protocol's face: every name is one of its three modules', handed on here so
``from mancala.protocol import Session`` reads as it always has.

- :mod:`mancala.protocol.session`: this engine answering the protocol on
  stdin/stdout (``python -m mancala engine``): :class:`Session`, :func:`serve`.
- :mod:`mancala.protocol.lines`: what the lines say (a ``position``'s board, a
  ``go``'s limits, the clock's share of a move), each word checked once.
- :mod:`mancala.protocol.external`: another program that speaks the protocol,
  driven as a subprocess (:class:`EngineProcess`; the ``engine:"CMD"`` player).
"""
from mancala.protocol.external import EngineProcess, split_command
from mancala.protocol.session import Session, serve

__all__ = ["Session", "serve", "EngineProcess", "split_command"]
