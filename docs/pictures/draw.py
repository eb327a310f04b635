"""The board pictures of docs/how-to-play.md, drawn from the library's own moves.

``python docs/pictures/draw.py`` writes one SVG per picture next to this file.
Each picture is a position before a move and after it, as the library plays it
(:meth:`mancala.Board.push`), with the seeds drawn as dots (and counted), the
pit played ringed, the pits the move sowed into shaded and the path of the
sowing drawn as an arrow. tests/test_how_to_play.py draws them again and
compares, so the pictures and the rules cannot drift apart.
"""
from __future__ import annotations

import math
import pathlib
from typing import Dict, List, Optional, Sequence, Tuple

from mancala import Board
from mancala.geometry import NORTH, PITS, SOUTH, pit_slot, store_slot

HERE = pathlib.Path(__file__).resolve().parent

PIT, GAP, STORE_W, MARGIN, LABEL = 64, 8, 70, 16, 22
WIDTH = 2 * MARGIN + 2 * STORE_W + PITS * PIT + (PITS + 1) * GAP
BOARD_H = 2 * PIT + 3 * GAP
PANEL_H = BOARD_H + 2 * LABEL + 28          # a board, its labels and its caption
WOOD, WOOD_EDGE, HOLE = "#d9b27c", "#8a5a2b", "#f4e6cf"
SEED, SEED_EDGE, SOWN, PLAYED, PATH, TEXT = "#2f5d8a", "#1c3a57", "#fde68a", "#b42318", "#b42318", "#1f2328"


def slot_centre(slot: int, top: float) -> Tuple[float, float]:
    """Where a slot's centre is drawn: North's row on top (right to left), South's below."""
    if slot == store_slot(NORTH):
        return MARGIN + STORE_W / 2, top + BOARD_H / 2
    if slot == store_slot(SOUTH):
        return WIDTH - MARGIN - STORE_W / 2, top + BOARD_H / 2
    side, pit = divmod(slot, PITS + 1)
    column = pit if side == SOUTH else PITS - 1 - pit
    x = MARGIN + STORE_W + GAP + column * (PIT + GAP) + PIT / 2
    y = top + GAP + PIT / 2 if side == NORTH else top + 2 * GAP + PIT + PIT / 2
    return x, y


def seed_dots(count: int, cx: float, cy: float, radius: float) -> List[str]:
    """Up to 12 seeds as dots in rings; more are a heap of 12 (the number says how many)."""
    dots = []
    shown = min(count, 12)
    rings = [(0, 1), (radius * 0.45, 5), (radius * 0.85, 6)] if shown > 6 else \
        [(0, 1), (radius * 0.6, 5)] if shown > 1 else [(0, 1)]
    placed = 0
    for ring, size in rings:
        for k in range(size):
            if placed == shown:
                break
            angle = 2 * math.pi * k / size - math.pi / 2
            x, y = cx + ring * math.cos(angle), cy + ring * math.sin(angle)
            dots.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="{SEED}" '
                        f'stroke="{SEED_EDGE}" stroke-width="1"/>')
            placed += 1
    return dots


def board_svg(pits: Sequence[int], top: float, caption: str, played: Optional[int] = None,
              sown: Sequence[int] = (), taken: Sequence[int] = ()) -> List[str]:
    """One board: its 14 slots, seeds, labels, the move's marks and a caption under it."""
    parts = [f'<rect x="{MARGIN / 2}" y="{top - GAP / 2}" width="{WIDTH - MARGIN}" '
             f'height="{BOARD_H + GAP}" rx="18" fill="{WOOD}" stroke="{WOOD_EDGE}" stroke-width="2"/>']
    for slot in range(14):
        cx, cy = slot_centre(slot, top)
        fill = SOWN if slot in sown else HOLE
        if slot in (store_slot(SOUTH), store_slot(NORTH)):
            parts.append(f'<rect x="{cx - STORE_W / 2 + 4}" y="{top + GAP}" width="{STORE_W - 8}" '
                         f'height="{BOARD_H - 2 * GAP}" rx="30" fill="{fill}" stroke="{WOOD_EDGE}"/>')
            parts.extend(seed_dots(pits[slot], cx, cy - 12, 24))
            parts.append(f'<text x="{cx}" y="{top + BOARD_H - GAP - 8}" text-anchor="middle" '
                         f'font-size="16" font-weight="bold" fill="{TEXT}">{pits[slot]}</text>')
            continue
        ring = f' stroke="{PLAYED}" stroke-width="4"' if slot == played else \
            f' stroke="{PLAYED}" stroke-width="3" stroke-dasharray="5 3"' if slot in taken else \
            f' stroke="{WOOD_EDGE}" stroke-width="1"'
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="{PIT / 2 - 2}" fill="{fill}"{ring}/>')
        parts.extend(seed_dots(pits[slot], cx, cy - 4, PIT / 2 - 12))
        parts.append(f'<text x="{cx}" y="{cy + PIT / 2 - 6}" text-anchor="middle" font-size="13" '
                     f'font-weight="bold" fill="{TEXT}">{pits[slot]}</text>')
    for side, y in ((NORTH, top - 8), (SOUTH, top + BOARD_H + 18)):
        for pit in range(PITS):
            cx, _ = slot_centre(pit_slot(side, pit), top)
            letter = "ABCDEFGHIJKL"[side * PITS + pit]
            parts.append(f'<text x="{cx}" y="{y}" text-anchor="middle" font-size="13" '
                         f'fill="{TEXT}">{pit + 1} {letter}</text>')
    parts.append(f'<text x="{MARGIN + STORE_W / 2}" y="{top - 8}" text-anchor="middle" '
                 f'font-size="12" fill="{TEXT}">North\'s store</text>')
    parts.append(f'<text x="{WIDTH - MARGIN - STORE_W / 2}" y="{top + BOARD_H + 18}" '
                 f'text-anchor="middle" font-size="12" fill="{TEXT}">South\'s store</text>')
    parts.append(f'<text x="{WIDTH / 2}" y="{top + BOARD_H + LABEL + 24}" text-anchor="middle" '
                 f'font-size="15" fill="{TEXT}">{caption}</text>')
    return parts


def path_svg(slots: Sequence[int], top: float) -> List[str]:
    """The sowing's path: an arrow through the slots sown, in order."""
    if not slots:
        return []
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in (slot_centre(s, top) for s in slots))
    return [f'<polyline points="{points}" fill="none" stroke="{PATH}" stroke-width="3" '
            f'stroke-opacity="0.8" marker-end="url(#head)"/>']


def sowing(board: Board, pit: int) -> List[int]:
    """The slots a move drops its seeds into, in order: the pits and the mover's own
    store, passing over the opponent's store (the rules' sowing)."""
    mover = board.to_move
    slot, left, path = pit_slot(mover, pit), board.pits[pit_slot(mover, pit)], []
    while left:
        slot = (slot + 1) % 14
        if slot == store_slot(1 - mover):
            continue
        path.append(slot)
        left -= 1
    return path


def picture(name: str, slots: Sequence[int], to_move: int, pit: int, before: str, after: str,
            capture: str = "standard") -> str:
    """A position before a move and after it, with the move drawn on both."""
    board = Board(list(slots), to_move, capture=capture)
    path = sowing(board, pit)
    start = pit_slot(to_move, pit)
    record = board.push(pit)
    taken: List[int] = []
    if record.captured:
        last = path[-1]
        taken = [last, 12 - last]
    top = LABEL + 8
    below = top + PANEL_H + 20
    height = below + BOARD_H + LABEL + 36
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
             f'width="{WIDTH}" height="{height}" role="img" aria-label="{name}: {before} {after}" '
             f'font-family="sans-serif">',
             f'<title>{before} {after}</title>',
             '<defs><marker id="head" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" '
             f'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
             f'fill="{PATH}"/></marker></defs>',
             f'<rect width="{WIDTH}" height="{height}" fill="white"/>']
    parts += board_svg(slots, top, before, played=start)
    parts += path_svg([start] + path, top)
    swept = []
    if record.game_over:                # the seeds left in a row go to their owner's store
        counts = list(slots)
        counts[start] = 0
        for slot in path:
            counts[slot] += 1
        swept = [slot for slot in range(14) if counts[slot] and slot not in (6, 13)
                 and slot not in taken]
    parts += board_svg(board.pits, below, after, sown=path, taken=taken + swept)
    for slot in taken + swept:          # captured and swept seeds go to a store
        owner = to_move if slot in taken else slot // (PITS + 1)
        x, y = slot_centre(slot, below)
        sx, sy = slot_centre(store_slot(owner), below)
        sx += -STORE_W / 2 + 6 if sx > x else STORE_W / 2 - 6
        parts.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{sx:.1f}" y2="{sy:.1f}" '
                     f'stroke="{PATH}" stroke-width="3" stroke-dasharray="6 4" '
                     f'marker-end="url(#head)"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def start_picture() -> str:
    """The board at the start, with nothing played: where everything is."""
    height = LABEL + 8 + BOARD_H + LABEL + 36
    caption = "The start: four seeds in each pit, South's row below, North's above."
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
             f'width="{WIDTH}" height="{height}" role="img" aria-label="the board at the start" '
             f'font-family="sans-serif">', f'<title>{caption}</title>',
             f'<rect width="{WIDTH}" height="{height}" fill="white"/>']
    parts += board_svg(START, LABEL + 8, caption)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


START = [4] * 6 + [0] + [4] * 6 + [0]
#: the pictures: name -> (slots, side to move, pit index, caption before, caption after)
PICTURES: Dict[str, tuple] = {
    "sowing": (START, SOUTH, 0,
               "South picks pit 1 (A) and lifts its 4 seeds...",
               "...and drops them one by one, counter-clockwise: B, C, D, E. North moves next."),
    "extra-turn": (START, SOUTH, 2,
                   "South picks pit 3 (C): 4 seeds, and 4 slots to its store...",
                   "...the last seed lands in South's store: South moves again."),
    "capture": ([1, 0, 3, 0, 2, 0, 10, 0, 5, 0, 2, 4, 3, 18], SOUTH, 0,
                "South picks pit 1 (A): 1 seed, into the empty pit 2 (B)...",
                "...which faces North's 5 (K) with 4 seeds: South takes 1 + 4 = 5."),
    "end": ([0, 0, 0, 0, 0, 1, 20, 2, 0, 3, 0, 1, 0, 21], SOUTH, 5,
            "South's last seed goes into its store, and South's row is empty...",
            "...so the game is over: North keeps the 6 left in its row. 21 to 27: North wins."),
}


def draw_all() -> Dict[str, str]:
    """Every picture's SVG text, by file name."""
    drawn = {"board.svg": start_picture()}
    drawn.update({f"{name}.svg": picture(name, *spec) for name, spec in PICTURES.items()})
    return drawn


if __name__ == "__main__":
    for name, text in draw_all().items():
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote {HERE / name}")
