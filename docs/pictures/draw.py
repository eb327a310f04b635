"""The board pictures of docs/how-to-play.md, drawn from the library's own moves.

``python docs/pictures/draw.py`` writes one SVG per picture next to this file.
Each picture is a position before a move and after it, as the library plays it
(:meth:`mancala.Board.push`), each board drawn by :func:`mancala.svg.board` (the
library's one drawing of a board: seeds as dots and counted, the side to move
named): before, an arrow from the pit played to where its last seed lands;
after, the slots the seeds were sown into shaded, and an arrow from each pit a
capture or the end of the game emptied to the store its seeds went to.
tests/test_how_to_play.py draws them again and compares, so the pictures and
the rules cannot drift apart.
"""
from __future__ import annotations

import pathlib
from typing import Dict, List, Sequence
from xml.sax.saxutils import escape, quoteattr

import mancala.svg
from mancala import Board
from mancala.geometry import SOUTH, facing_slot, is_store, pit_slot, side_of, sowing_path, store_slot
from mancala.picture import HEIGHT, WIDTH
from mancala.svg import Arrow

HERE = pathlib.Path(__file__).resolve().parent

CAPTION = 34                    #: the height of a caption's line under a board
SOWN, TAKEN, TEXT = "#f0e442", "#a00000dd", "#1d1d1d"   # the web's mark yellow; its "bad" red


def panel(board: Board, top: float, caption: str, **drawing) -> List[str]:
    """One board as mancala.svg draws it, at ``top``, and its caption under it."""
    nested = mancala.svg.board(board, **drawing).replace("<svg ", f'<svg x="0" y="{top}" ', 1)
    return [nested.rstrip("\n"),
            f'<text x="{WIDTH / 2}" y="{top + HEIGHT + 23}" text-anchor="middle" font-size="16" '
            f'fill="{TEXT}">{escape(caption)}</text>']


def document(height: float, words: str, parts: List[str]) -> str:
    """The picture: a white page of ``height`` holding ``parts``, its words as its title."""
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
                      f'width="{WIDTH}" height="{height}" role="img" aria-label={quoteattr(words)} '
                      f'font-family="system-ui, sans-serif">', f"<title>{escape(words)}</title>",
                      f'<rect width="{WIDTH}" height="{height}" fill="white"/>'] + parts + ["</svg>"]) + "\n"


def emptied(before: Sequence[int], board: Board, mover: int, path: Sequence[int]) -> List[Arrow]:
    """Where the pits a capture or the end of the game emptied went: an arrow from each
    to its store (a capture's to the mover's, the sweep's to each row's owner)."""
    record = board.peek()
    taken = [path[-1], facing_slot(path[-1])] if record.captured else []
    arrows = [Arrow(slot, store_slot(mover), TAKEN) for slot in taken]
    if record.game_over:                # the seeds left in a row go to their owner's store
        left = list(before)
        left[pit_slot(mover, record.pit)] = 0
        for slot in path:
            left[slot] += 1
        arrows += [Arrow(slot, store_slot(side_of(slot)), TAKEN) for slot in range(14)
                   if left[slot] and not is_store(slot) and slot not in taken]
    return arrows


def picture(name: str, slots: Sequence[int], to_move: int, pit: int, before: str, after: str,
            capture: str = "standard") -> str:
    """A position before a move and after it, with the move drawn on both."""
    board = Board(list(slots), to_move, capture=capture)
    path = sowing_path(slots, to_move, pit)
    parts = panel(board, 0, before, arrows=pit)
    board.push(pit)
    parts += panel(board, HEIGHT + CAPTION, after, fill={slot: SOWN for slot in path},
                   arrows=emptied(slots, board, to_move, path))
    return document(2 * (HEIGHT + CAPTION), f"{before} {after}", parts)


def start_picture() -> str:
    """The board at the start, with nothing played: where everything is."""
    caption = "The start: four seeds in each pit, South's row below, North's above."
    return document(HEIGHT + CAPTION, caption, panel(Board(START), 0, caption))


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
