"""The board's geometry, and whose point of view a score is from.

The 14 slots, in sowing order (the numbering of the rules and of every
board, file and message)::

            12  11  10   9   8   7          <- North's pits (side 1)
      [13]                          [6]
             0   1   2   3   4   5          <- South's pits (side 0)

Each side owns six pits and the store on its right; a pit is numbered 0..5
from its owner's left (people see 1..6), so South's pit ``p`` is slot ``p``
and North's is slot ``7 + p``. A pit faces the pit across the board (slot
``s`` faces ``12 - s``): a capture takes both.

Every face asks this module for slots instead of writing the arithmetic out.
The compiled core has the same layout in ``csrc/kalah.h``; the pure-Python
twin (``mancala._reference``) keeps its own copy on purpose, so the tests can
hold this module, the twin and the core against each other.

A score is a number of seeds *for one side*: :class:`PovScore` keeps the
number and the side whose view it is (python-chess's ``PovScore``), and
turns it to any side's view.
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Sequence

PITS = 6                        #: pits per side
SLOTS = 2 * (PITS + 1)          #: 14: both sides' pits and stores
SOUTH, NORTH = 0, 1             #: the sides; South moves first
SIDE_NAMES = ("South", "North")     #: as people read them
SIDE_KEYS = ("south", "north")      #: as JSON, save files and the protocol write them


def first_slot(side: int) -> int:
    """The slot of ``side``'s pit 0 (0 for South, 7 for North)."""
    return side * (PITS + 1)


def pit_slot(side: int, pit: int) -> int:
    """The slot of ``side``'s pit ``pit`` (0..5 from its owner's left)."""
    return first_slot(side) + pit


def store_slot(side: int) -> int:
    """The slot of ``side``'s store: 6 for South, 13 for North."""
    return first_slot(side) + PITS


def pit_slots(side: int) -> range:
    """``side``'s six pit slots, from its owner's left (0..5 or 7..12)."""
    return range(first_slot(side), first_slot(side) + PITS)


STORES = (store_slot(SOUTH), store_slot(NORTH))     #: (6, 13)


def is_store(slot: int) -> bool:
    """Whether ``slot`` is a store (6 or 13)."""
    return slot in STORES


def side_of(slot: int) -> int:
    """The side that owns ``slot`` (its pits and its store): 0..6 South, 7..13 North."""
    return slot // (PITS + 1)


def pit_of(slot: int) -> Optional[int]:
    """The pit number (0..5 from its owner's left) of a pit's slot; None for a store."""
    pit = slot % (PITS + 1)
    return None if pit == PITS else pit


def facing_slot(slot: int) -> int:
    """The pit across the board from the pit in ``slot``: pit ``s`` faces ``12 - s``."""
    return SLOTS - 2 - slot


def row(slots: Sequence[int], side: int) -> List[int]:
    """The seeds in ``side``'s six pits, from its owner's left."""
    return [slots[slot] for slot in pit_slots(side)]


def side_seeds(slots: Sequence[int], side: int) -> int:
    """The seeds of ``side``: its pits and its store (its final count once the game is over)."""
    return sum(row(slots, side)) + slots[store_slot(side)]


def seeds_in_pits(slots: Sequence[int]) -> int:
    """The seeds in the twelve pits, the stores left out: what is still in play
    (an endgame database's levels count these)."""
    return sum(row(slots, SOUTH)) + sum(row(slots, NORTH))


def seen_by(slots: Sequence[int], side: int) -> List[int]:
    """The 14 slots as ``side`` sees them: its pits, its store, the other side's pits and store."""
    first = first_slot(side)
    return list(slots[first:]) + list(slots[:first])


def pit_letter(side: int, pit: int) -> str:
    """The letter people name a pit by: A-F for South's pits 0..5, G-L for North's."""
    return "ABCDEFGHIJKL"[side * PITS + pit]


def sowing_path(slots: Sequence[int], side: int, pit: int) -> List[int]:
    """The slots the seeds of ``side``'s ``pit`` drop into, one per seed, in order: up
    the slot numbers, 13 wrapping to 0, the other side's store passed over (the rules'
    sowing; what the move then captures or sweeps is :meth:`mancala.Board.push`'s)."""
    start, skip, path = pit_slot(side, pit), store_slot(1 - side), []
    slot = start
    while len(path) < slots[start]:
        slot = (slot + 1) % SLOTS
        if slot != skip:
            path.append(slot)
    return path


def slot_name(slot: int) -> str:
    """``"South's pit 1"`` .. ``"North's store"``: a slot as people read it (pits 1..6)."""
    owner = SIDE_NAMES[side_of(slot)]
    pit = pit_of(slot)
    return f"{owner}'s store" if pit is None else f"{owner}'s pit {pit + 1}"


class PovScore(NamedTuple):
    """A score in seeds and the side whose view it is.

    ``PovScore(3, NORTH).pov(SOUTH)`` is -3: three seeds good for North are
    three bad for South. ``relative`` is the score from ``side``'s view.
    """

    relative: int       #: seeds, from ``side``'s view (more is better for it)
    side: int           #: 0 (South) or 1 (North)

    def pov(self, side: int) -> int:
        """The score from ``side``'s view."""
        return self.relative if side == self.side else -self.relative

    def south(self) -> int:
        """The score from South's view."""
        return self.pov(SOUTH)

    def north(self) -> int:
        """The score from North's view."""
        return self.pov(NORTH)


def layout() -> dict:
    """The geometry as JSON (the web page draws its board from it)."""
    return {"pits": PITS, "slots": SLOTS, "stores": list(STORES),
            "pit_slots": [list(pit_slots(side)) for side in (SOUTH, NORTH)],
            "side_names": list(SIDE_NAMES), "side_keys": list(SIDE_KEYS)}


__all__ = ["PITS", "SLOTS", "SOUTH", "NORTH", "SIDE_NAMES", "SIDE_KEYS", "STORES",
           "first_slot", "pit_slot", "store_slot", "pit_slots", "is_store", "side_of", "pit_of",
           "facing_slot", "row", "side_seeds", "seeds_in_pits", "seen_by", "pit_letter", "sowing_path",
           "slot_name", "PovScore", "layout"]
