"""The pictures of docs/how-to-play.md: the files are what docs/pictures/draw.py draws,
each board's seed counts are the twin's (mancala._reference.play, not the library that
drew them), and what the captions and the page say happened did."""
import importlib.util
import pathlib
import re

import pytest

from mancala import _reference

ROOT = pathlib.Path(__file__).resolve().parents[1]
PICTURES = ROOT / "docs" / "pictures"
PAGE = ROOT / "docs" / "how-to-play.md"
STANDARD = 0


def drawing():
    spec = importlib.util.spec_from_file_location("draw", PICTURES / "draw.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DRAW = drawing()


def counts(svg):
    """The seed counts the picture prints, board by board, in slot order (14 a board)."""
    numbers = [int(n) for n in re.findall(r'font-weight="bold" fill="[^"]+">(\d+)</text>', svg)]
    assert len(numbers) % 14 == 0
    return [numbers[i:i + 14] for i in range(0, len(numbers), 14)]


def test_the_committed_pictures_are_what_the_script_draws():
    drawn = DRAW.draw_all()
    assert sorted(drawn) == sorted(path.name for path in PICTURES.glob("*.svg"))
    for name, text in drawn.items():
        assert (PICTURES / name).read_text(encoding="utf-8") == text, \
            f"{name} is stale: python docs/pictures/draw.py"


def test_the_page_shows_every_picture_before_its_words():
    page = PAGE.read_text(encoding="utf-8")
    shown = re.findall(r"!\[[^\]]+\]\(pictures/([\w-]+\.svg)\)", page)
    assert sorted(shown) == sorted(DRAW.draw_all())
    for section in page.split("\n## ")[1:5]:     # the board, a move, an extra turn, a capture
        assert section.split("\n", 1)[1].lstrip().startswith("!["), section[:40]


@pytest.mark.parametrize("name", sorted(DRAW.PICTURES))
def test_each_picture_is_the_twins_move(name):
    slots, to_move, pit, _, _ = DRAW.PICTURES[name]
    before, after = counts((PICTURES / f"{name}.svg").read_text(encoding="utf-8"))
    assert before == list(slots)
    played, next_to_move, captured = _reference.play(list(slots), to_move, pit, STANDARD)
    assert after == played
    said = {"sowing": (1, 0, False), "extra-turn": (0, 0, False), "capture": (1, 5, False),
            "end": (None, 0, True)}[name]
    if said[0] is not None:
        assert next_to_move == said[0]
    assert captured == said[1]
    assert _reference.is_game_over(played) == said[2]


def test_what_the_end_picture_says_is_the_twins_result():
    slots, to_move, pit, _, caption = DRAW.PICTURES["end"]
    played, _, _ = _reference.play(list(slots), to_move, pit, STANDARD)
    assert (played[6], played[13]) == (21, 27)
    assert "North keeps the 6 left in its row. 21 to 27: North wins." in caption


def test_the_start_picture_is_the_start():
    (board,) = counts((PICTURES / "board.svg").read_text(encoding="utf-8"))
    assert board == [4] * 6 + [0] + [4] * 6 + [0]
