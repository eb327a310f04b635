"""The pictures of docs/pictures.md, drawn by the library itself.

``python docs/pictures/library/draw.py`` writes them next to this file: two SVG
boards (:func:`mancala.svg.board`) and a PNG of the Gymnasium environment's
``render()`` in ``rgb_array`` mode (needs the ``rl`` extra). tests/test_svg.py and
tests/test_env_gymnasium.py draw them again and compare, so a picture cannot fall
behind the code that draws it.
"""
from __future__ import annotations

import pathlib
from typing import Dict

import mancala
import mancala.svg
from mancala.svg import Arrow

HERE = pathlib.Path(__file__).resolve().parent

#: North to move; North's pit 4 (J) sows into K, L, its store and South's A, then South's 5 (E) into F:
#:        0  0  4  0  0  1
#:   [17]                  [20]
#:        0  3  0  0  1  2
LATE = [0, 3, 0, 0, 1, 2, 20, 1, 0, 0, 4, 0, 0, 17]


def svg_pictures() -> Dict[str, str]:
    """The SVG pictures' text, by file name (docs/pictures.md shows the code of each)."""
    board = mancala.Board(LATE, to_move=1)
    start = mancala.Board()
    return {
        "line.svg": mancala.svg.board(board, arrows=[3, 4]),
        "colours.svg": mancala.svg.board(start, size=480, arrows=[Arrow(2, 6), Arrow(9, 2, "#009e73cc")],
                                         colors={"wood": "#d9c7a0", "south": "#0072b2", "north": "#cc79a7",
                                                 "north ink": "#8a3c6b"}),
    }


def rgb_array_frame():
    """The Gymnasium environment's picture after a few moves (numpy array, rl extra)."""
    import gymnasium
    import mancala.env  # noqa: F401 (registers mancala/Kalah-v0)

    env = gymnasium.make("mancala/Kalah-v0", opponent="ai:easy", render_mode="rgb_array")
    env.reset(seed=0)
    env.step(2)         # South's pit 3 (C): the last seed in South's store, South moves again
    env.step(5)         # South's pit 6 (F), then ai:easy answers
    frame = env.render()
    env.close()
    return frame


if __name__ == "__main__":
    from PIL import Image

    for name, text in svg_pictures().items():
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote {HERE / name}")
    Image.fromarray(rgb_array_frame()).save(HERE / "rgb-array.png", optimize=True)
    print(f"wrote {HERE / 'rgb-array.png'}")
