"""mancala.svg: a board as a standalone SVG picture, read back with an XML parser: one seed
dot per seed (boards worked by hand), every dot inside its own pit, counts, letters, the side
to move, arrows that start and end in the pits the rules say, size, colours, bad input."""
import math
import re
import xml.etree.ElementTree as ET

import pytest

import mancala
import mancala.svg
from mancala.errors import PictureError
from mancala.svg import Arrow

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(text):
    root = ET.fromstring(text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def of_class(root, tag, name):
    return [e for e in root.iter(f"{{{NS['svg']}}}{tag}") if e.get("class") == name]


def seeds_per_slot(root):
    counts = [0] * 14
    for seed in of_class(root, "circle", "seed"):
        counts[int(seed.get("data-slot"))] += 1
    return counts


def hollow(root, slot):
    """The pit's circle (cx, cy, r) or the store's box (x, y, w, h) of a slot, as drawn."""
    for e in of_class(root, "circle", "pit") + of_class(root, "rect", "store"):
        if e.get("data-slot") == str(slot):
            keys = ("cx", "cy", "r") if e.get("class") == "pit" else ("x", "y", "width", "height")
            return e.get("class"), [float(e.get(k)) for k in keys]
    raise AssertionError(f"no slot {slot} drawn")


def inside(root, slot, x, y, margin=0.0):
    kind, shape = hollow(root, slot)
    if kind == "pit":
        cx, cy, r = shape
        return math.hypot(x - cx, y - cy) <= r - margin
    bx, by, bw, bh = shape
    return bx + margin <= x <= bx + bw - margin and by + margin <= y <= by + bh - margin


def arrows_drawn(root):
    """Each arrow as (tail slot, head slot, its first point, its tip)."""
    shafts = of_class(root, "path", "arrow")
    heads = of_class(root, "polygon", "arrow-head")
    assert len(shafts) == len(heads)
    found = []
    for shaft, head in zip(shafts, heads):
        start = [float(v) for v in re.match(r"M ([-\d.]+) ([-\d.]+)", shaft.get("d")).groups()]
        tip = [float(v) for v in head.get("points").split()[0].split(",")]
        found.append((int(shaft.get("data-tail")), int(shaft.get("data-head")), start, tip))
    return found


# The positions, each drawn from its 14 slots (North on top, right to left):
#
#   the start           North to move             many seeds, South to move
#    4 4 4 4 4 4        0 0 4 0 0 1               7 0 4 0 0 1
#  0             0   17             20         46              45
#    4 4 4 4 4 4        0 3 0 0 1 2              13 0 25 0 1 2
START = [4] * 6 + [0] + [4] * 6 + [0]
LATE = [0, 3, 0, 0, 1, 2, 20, 1, 0, 0, 4, 0, 0, 17]
MANY = [13, 0, 25, 0, 1, 2, 45, 1, 0, 0, 4, 0, 7, 46]


@pytest.mark.parametrize("slots, to_move, dots", [
    (START, 0, START),
    (LATE, 1, LATE),
    # at most 12 dots in a pit and 40 in a store: the count says the rest
    (MANY, 0, [12, 0, 12, 0, 1, 2, 40, 1, 0, 0, 4, 0, 7, 40]),
])
def test_one_dot_per_seed_in_its_own_pit_and_the_count_beside_it(slots, to_move, dots):
    root = parse(mancala.svg.board(mancala.Board(slots, to_move)))
    assert seeds_per_slot(root) == dots
    for seed in of_class(root, "circle", "seed"):
        x, y, r = (float(seed.get(k)) for k in ("cx", "cy", "r"))
        assert inside(root, int(seed.get("data-slot")), x, y, margin=r)
    counts = {int(t.get("data-slot")): int(t.text) for t in of_class(root, "text", "count")}
    assert counts == dict(enumerate(slots))


def test_the_pits_are_lettered_as_the_game_names_them():
    root = parse(mancala.svg.board(mancala.Board()))
    letters = sorted(of_class(root, "text", "letter"), key=lambda t: (float(t.get("y")), float(t.get("x"))))
    assert [t.text for t in letters] == ["6 L", "5 K", "4 J", "3 I", "2 H", "1 G",
                                         "1 A", "2 B", "3 C", "4 D", "5 E", "6 F"]
    # North's row is drawn above South's, North's store left of every pit, South's right
    assert hollow(root, 7)[1][1] < hollow(root, 0)[1][1]
    assert hollow(root, 13)[1][0] < hollow(root, 12)[1][0] - 32 < hollow(root, 5)[1][0] < hollow(root, 6)[1][0]


def test_the_picture_is_a_standalone_accessible_document():
    text = mancala.svg.board(mancala.Board(LATE, 1))
    root = parse(text)
    assert root.get("role") == "img"
    title = root.find("svg:title", NS)
    assert list(root)[0] is title
    assert title.text == root.get("aria-label")
    assert title.text.startswith("Kalah board, North to move.")
    assert "North's pits 6 to 1 (L to G): 0, 0, 4, 0, 0, 1; North's store 17" in title.text
    assert "South's pits 1 to 6 (A to F): 0, 3, 0, 0, 1, 2; South's store 20" in title.text
    assert [t.text for t in of_class(root, "text", "side")] == ["North to move", "South"]


def test_a_finished_game_says_who_won():
    board = mancala.Board([0, 0, 0, 0, 0, 1, 20, 2, 0, 3, 0, 1, 0, 21], 0)
    board.push(5)        # South's last seed: North keeps its 6, 27 to 21
    root = parse(mancala.svg.board(board))
    assert [t.text for t in of_class(root, "text", "side")] == ["North wins, 27 seeds", "South, 21 seeds"]
    assert "game over, South 21, North 27" in root.find("svg:title", NS).text
    assert not of_class(root, "rect", "mover-row")


@pytest.mark.parametrize("slots, to_move, arrows, ends", [
    # South's pit 2 (C) holds 4: D, E, F, then the store
    (START, 0, 2, [(2, 6)]),
    # North's pit 3 (J, slot 10) holds 4: K, L, North's store, then South's A (slot 0);
    # South then plays pit 4 (E, one seed) into F (slot 5)
    (LATE, 1, [3, 4], [(10, 0), (4, 5)]),
    # 13 seeds go round once, past North's store, and the last lands where they started
    (MANY, 0, 0, [(0, 0)]),
    (START, 0, [Arrow(9, 2)], [(9, 2)]),
])
def test_an_arrow_runs_from_the_pit_played_to_where_its_last_seed_lands(slots, to_move, arrows, ends):
    root = parse(mancala.svg.board(mancala.Board(slots, to_move), arrows=arrows))
    drawn = arrows_drawn(root)
    assert [(tail, head) for tail, head, _, _ in drawn] == ends
    for tail, head, start, tip in drawn:
        assert inside(root, tail, *start) and inside(root, head, *tip)
    numbers = [t.text for t in of_class(root, "text", "arrow-number")]
    assert numbers == (["1", "2"] if len(ends) == 2 else [])


def test_a_numpy_integer_is_a_move():
    np = pytest.importorskip("numpy", reason="needs NumPy: the rl or vector extra")
    board = mancala.Board()
    assert mancala.svg.board(board, arrows=np.int64(2)) == mancala.svg.board(board, arrows=2)
    assert mancala.svg.board(board, arrows=np.array([2, 0])) == mancala.svg.board(board, arrows=[2, 0])


def test_a_line_is_said_in_words():
    root = parse(mancala.svg.board(mancala.Board(LATE, 1), arrows=[3, 4]))
    assert root.get("aria-label").endswith(
        "Arrows: 1. North plays pit 4 (J); 2. South plays pit 5 (E).")


@pytest.mark.parametrize("size, width, height", [(None, "640", "240"), (320, "320", "120"),
                                                 (100.5, "100.5", "37.7")])
def test_the_size_is_the_width_in_pixels(size, width, height):
    root = parse(mancala.svg.board(mancala.Board(), size=size))
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == (width, height, "0 0 640 240")


def test_colours_are_changed_by_name():
    root = parse(mancala.svg.board(mancala.Board(), colors={"south": "#123456", "pit": "#abc",
                                                            "arrow": "#ff000080"}, arrows=2))
    assert hollow(root, 6)[0] == "store"
    store = [e for e in of_class(root, "rect", "store") if e.get("data-slot") == "6"][0]
    assert store.get("stroke") == "#123456"
    assert {e.get("fill") for e in of_class(root, "circle", "pit")} == {"#aabbcc"}
    shaft = of_class(root, "path", "arrow")[0]
    assert (shaft.get("stroke"), shaft.get("stroke-opacity")) == ("#ff0000", "0.502")


def test_fill_colours_the_hollow_of_the_slots_named():
    root = parse(mancala.svg.board(mancala.Board(), fill={3: "#f0e442", 13: "#00ff0080"}))
    fills = {int(e.get("data-slot")): (e.get("fill"), e.get("fill-opacity"))
             for e in of_class(root, "circle", "pit") + of_class(root, "rect", "store")}
    assert fills[3] == ("#f0e442", None) and fills[13] == ("#00ff00", "0.502")
    assert {fills[slot] for slot in range(14) if slot not in (3, 13)} == {("#fbf5e6", None)}


def test_a_board_shows_itself_in_jupyter():
    board = mancala.Board(LATE, 1)
    assert board._repr_svg_() == mancala.svg.board(board, size=480)
    parse(board._repr_svg_())


@pytest.mark.parametrize("kwargs, words", [
    ({"colors": {"sky": "#000"}}, "unknown colour 'sky'; known: wood, pit"),
    ({"colors": {"south": "blue"}}, "colour 'south' is '#rgb', '#rrggbb' or '#rrggbbaa', not 'blue'"),
    ({"colors": {"south": '#000" onload="x'}}, "not '#000\" onload=\"x'"),
    ({"colors": ["#000"]}, "colors is a dict"),
    ({"arrows": 6}, "a move's arrow is a pit 0..5 of the side to move, not 6"),
    ({"arrows": -1}, "not -1"),
    ({"arrows": [2, True]}, "not True"),
    ({"arrows": "2"}, "not '2'"),
    ({"arrows": 2.0}, "arrows are pits 0..5 (a line of moves) or Arrows, not 2.0"),
    ({"arrows": [2, 2]}, "move 2 of the arrows, pit 2: "),      # pit C is empty after the first
    ({"arrows": [Arrow(0, 14)]}, "an arrow joins slots 0..13, not (0, 14)"),
    ({"arrows": [Arrow(0, 6, "red")]}, "an arrow's colour is '#rgb', '#rrggbb' or '#rrggbbaa', not 'red'"),
    ({"fill": {14: "#fff"}}, "fill colours slots 0..13, not 14"),
    ({"fill": {"A": "#fff"}}, "not 'A'"),
    ({"fill": {3: "yellow"}}, "the fill of slot 3 is '#rgb', '#rrggbb' or '#rrggbbaa', not 'yellow'"),
    ({"fill": [3]}, "fill is a dict of slots 0..13 to colours, not [3]"),
    ({"size": 0}, "size is a width in pixels above 0, not 0"),
    ({"size": -5}, "not -5"),
    ({"size": "big"}, "not 'big'"),
    ({"size": True}, "not True"),
    ({"size": float("nan")}, "not nan"),
])
def test_what_cannot_be_drawn_is_refused_in_one_line(kwargs, words):
    with pytest.raises(PictureError) as caught:
        mancala.svg.board(mancala.Board(), **kwargs)
    assert isinstance(caught.value, ValueError)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_only_a_board_is_drawn():
    with pytest.raises(PictureError, match=r"draws a mancala.Board, not \[4, 4"):
        mancala.svg.board([4] * 14)


def test_the_docs_pictures_are_what_the_library_draws():
    import importlib.util
    import pathlib
    folder = pathlib.Path(__file__).resolve().parents[1] / "docs" / "pictures" / "library"
    spec = importlib.util.spec_from_file_location("draw_library", folder / "draw.py")
    draw = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(draw)
    page = (folder.parents[1] / "pictures.md").read_text(encoding="utf-8")
    for name, text in draw.svg_pictures().items():
        assert (folder / name).read_text(encoding="utf-8") == text, \
            f"{name} is stale: python docs/pictures/library/draw.py"
        assert f"(pictures/library/{name})" in page
        parse(text)
