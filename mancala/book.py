"""Opening knowledge: solved values of the standard starts, computed by this engine.

``mancala/data/openings.json`` holds, for each start this engine has solved
(seeds per pit and capture rule), the perfect-play margin for the first
player and every optimal first move. Regenerate it with
``python -m mancala solve --update-book`` (the (6,3) and (6,4) starts, minutes)
and ``--update-book --seeds 5 --endgame 22 --hash-mb 16384`` (Kalah(6,5)
standard, about 25 minutes and 17 GB): it really solves.
Nothing that measures the solver reads this file; ``solve --book`` and the
``perfect`` players do.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

from mancala.board import Board, start_slots

BOOK_PATH = Path(__file__).parent / "data" / "openings.json"


@dataclass(frozen=True)
class BookEntry:
    seeds: int
    capture: str
    value: int                  #: the first player's perfect-play final margin
    moves: Tuple[int, ...]      #: every optimal first move (pits 0..5)
    nodes: int                  #: what the solve that found it searched
    seconds: float


def load(path: Optional[Path] = None) -> Dict[Tuple[int, str], BookEntry]:
    """The book's entries by (seeds, capture); empty if the file is absent or unreadable."""
    try:
        data = json.loads(Path(path or BOOK_PATH).read_text(encoding="utf-8"))
        return {(e["seeds"], e["capture"]): BookEntry(
                    int(e["seeds"]), str(e["capture"]), int(e["value"]),
                    tuple(int(m) for m in e["moves"]), int(e["nodes"]), float(e["seconds"]))
                for e in data["openings"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def lookup(board: Board, path: Optional[Path] = None) -> Optional[BookEntry]:
    """The entry for board if it is a standard start the book knows, else None."""
    pits = board.pits
    if board.to_move != 0 or pits[0] < 1 or pits[0] > 12 or pits != start_slots(pits[0]):
        return None
    return load(path).get((pits[0], board.capture))


def save(entries, path: Optional[Path] = None) -> None:
    """Write the book (sorted, one entry per start)."""
    path = path or BOOK_PATH
    rows = [{"seeds": e.seeds, "capture": e.capture, "value": e.value, "moves": list(e.moves),
             "nodes": e.nodes, "seconds": round(e.seconds, 1)}
            for e in sorted(entries, key=lambda e: (e.seeds, e.capture))]
    Path(path).write_text(json.dumps({
        "format": "mancala-openings", "version": 1,
        "regenerate": "python -m mancala solve --update-book",
        "openings": rows}, indent=2) + "\n", encoding="utf-8")
