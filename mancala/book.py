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
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

from mancala._system import FileTooLarge, read_regular_file, write_atomically
from mancala.board import CAPTURE_RULES, Board, start_slots
from mancala.errors import BookError, InvalidRuleError
from mancala.geometry import PITS
from mancala.limits import MAX_SEEDS_PER_PIT, MIN_SEEDS, check_seeds
from mancala.untrusted import read_json

BOOK_PATH = Path(__file__).parent / "data" / "openings.json"
FORMAT, VERSION = "mancala-openings", 1
MAX_BYTES = 1 << 20             # the shipped book is under 1 KB; more is not a book


@dataclass(frozen=True)
class BookEntry:
    seeds: int
    capture: str
    value: int                  #: the first player's perfect-play final margin
    moves: Tuple[int, ...]      #: every optimal first move (pits 0..5)
    nodes: int                  #: what the solve that found it searched
    seconds: float


def load(path: Optional[Path] = None) -> Dict[Tuple[int, str], BookEntry]:
    """The book's entries by (seeds, capture), every one checked.

    Raises BookError (one line naming the file and the first problem) when
    the file is missing, unreadable, not JSON of this format and version, or
    holds an entry that cannot be true: seeds outside 1..12, an unknown
    capture rule, a start given twice, a value that no game of that start can
    end with (the 12 * seeds seeds all end in a store, so a final margin is
    even and at most 12 * seeds), moves that are not distinct pits 0..5 (at
    least one), or negative nodes or seconds.
    """
    path = Path(path or BOOK_PATH)
    try:
        raw = read_regular_file(path, MAX_BYTES)
    except FileTooLarge:
        raise BookError(f"opening book {path}: more than {MAX_BYTES:,} bytes, not a book") from None
    except OSError as exc:
        raise BookError(f"opening book {path}: {exc.strerror or exc}") from None
    try:
        return _entries(read_json(raw, BookError))
    except BookError as exc:
        raise BookError(f"opening book {path}: {exc}") from None


def _entries(data: object) -> Dict[Tuple[int, str], BookEntry]:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BookError(f"not a {FORMAT} file")
    if data.get("version") != VERSION:
        raise BookError(f"version {_quote(data.get('version'))}; this mancala reads {VERSION}")
    rows = data.get("openings")
    if not isinstance(rows, list):
        raise BookError(f"'openings' is not a list: {_quote(rows)}")
    entries: Dict[Tuple[int, str], BookEntry] = {}
    for number, row in enumerate(rows, 1):
        try:
            entry = _entry(row)
        except BookError as exc:
            raise BookError(f"entry {number}: {exc}") from None
        key = (entry.seeds, entry.capture)
        if key in entries:
            raise BookError(f"entry {number}: Kalah(6,{entry.seeds}) {entry.capture} appears twice")
        entries[key] = entry
    return entries


def _entry(row: object) -> BookEntry:
    if not isinstance(row, dict):
        raise BookError(f"not an object: {_quote(row)}")
    missing = [k for k in ("seeds", "capture", "value", "moves", "nodes", "seconds") if k not in row]
    if missing:
        raise BookError(f"no {', '.join(missing)}")
    seeds, capture, value, moves = row["seeds"], row["capture"], row["value"], row["moves"]
    try:
        check_seeds(seeds)
    except InvalidRuleError as exc:
        raise BookError(str(exc)) from None
    if capture not in CAPTURE_RULES:
        raise BookError(f"capture is one of {', '.join(CAPTURE_RULES)}, not {_quote(capture)}")
    total = 2 * PITS * seeds
    if not _is_int(value) or abs(value) > total or value % 2:
        raise BookError(f"value {_quote(value)} is no final margin of Kalah(6,{seeds}) "
                        f"(an even number from -{total} to {total})")
    if not isinstance(moves, list) or not moves or \
            not all(_is_int(m) and 0 <= m < PITS for m in moves) or len(set(moves)) != len(moves):
        raise BookError(f"moves are distinct pits 0..5, at least one, not {_quote(moves)}")
    nodes, seconds = row["nodes"], row["seconds"]
    if not _is_int(nodes) or nodes < 0:
        raise BookError(f"nodes is a count, not {_quote(nodes)}")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
            or not math.isfinite(seconds) or seconds < 0:
        raise BookError(f"seconds is a time, not {_quote(seconds)}")
    return BookEntry(seeds, capture, value, tuple(moves), nodes, float(seconds))


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _quote(x: object, most: int = 40) -> str:
    try:
        text = repr(x)
    except (RecursionError, ValueError):
        text = f"a {type(x).__name__}"
    return text if len(text) <= most else text[:most - 3] + "..."


def describe(entries: Dict[Tuple[int, str], BookEntry]) -> str:
    """What a book holds, for people: 'Kalah(6,3) standard/empty, (6,4) standard/empty, ...'."""
    if not entries:
        return "nothing"
    parts = []
    for seeds in sorted({s for s, _ in entries}):
        rules = "/".join(r for r in CAPTURE_RULES if (seeds, r) in entries)
        parts.append(f"{'Kalah' if not parts else ''}(6,{seeds}) {rules}")
    return ", ".join(parts)


def lookup(board: Board, path: Optional[Path] = None) -> Optional[BookEntry]:
    """The entry for board if it is a standard start the book knows, else None
    (BookError if the book cannot be used)."""
    pits = board.pits
    if board.to_move != 0 or not MIN_SEEDS <= pits[0] <= MAX_SEEDS_PER_PIT or pits != start_slots(pits[0]):
        return None
    return load(path).get((pits[0], board.capture))


def save(entries, path: Optional[Path] = None) -> None:
    """Write the book (sorted, one entry per start); OSError if it cannot be written."""
    path = path or BOOK_PATH
    rows = [{"seeds": e.seeds, "capture": e.capture, "value": e.value, "moves": list(e.moves),
             "nodes": e.nodes, "seconds": round(e.seconds, 1)}
            for e in sorted(entries, key=lambda e: (e.seeds, e.capture))]
    text = json.dumps({
        "format": "mancala-openings", "version": 1,
        "regenerate": "python -m mancala solve --update-book",
        "openings": rows}, indent=2) + "\n"
    write_atomically(Path(path), lambda handle: handle.write(text))     # never over a FIFO or device
