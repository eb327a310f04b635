"""The engine protocol this engine speaks (the commands and answers are ``docs/protocol.md``).

The protocol's face: its names handed on from its two modules, so
``from mancala.protocol import Session`` reads as it always has.

- :mod:`mancala.protocol.session`: the conversation on stdin/stdout
  (``python -m mancala engine``): :class:`Session`, :func:`serve`.
- :mod:`mancala.protocol.lines`: what the lines say (a ``position``'s board, a
  ``go``'s limits, the clock's share of a move), each word checked once.

The other side, another program that speaks the protocol driven as a
subprocess (the ``engine:"CMD"`` player), is :mod:`mancala.external`: the
players' and the specs' (it imports nothing of the session's).
"""
from mancala.protocol.lines import GoLimits, parse_position, read_lines
from mancala.protocol.session import Session, serve

__all__ = ["Session", "serve", "GoLimits", "parse_position", "read_lines"]
