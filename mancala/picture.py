"""A board's picture as shapes: where every pit, seed, count, letter and arrow is drawn, in what colour.

One drawing for every picture of a board: :func:`scene` lays a position out as
a list of shapes (:class:`Rect`, :class:`Circle`, :class:`Text`,
:class:`Polygon`, :class:`Curve`) on a :data:`WIDTH` x :data:`HEIGHT` canvas, as
the web app draws its board (mancala/web/static/board.js, style.css); then
:mod:`mancala.svg` writes them as SVG and :mod:`mancala.env.frames` paints them
with Pillow for the environments' ``rgb_array`` frames.

North's row on top (its pits running right to left, as the sowing goes round),
South's below, North's store on the left and South's on the right; each pit's
seeds as dots (at most 12 drawn, 40 in a store: the count beside says how
many), its number and letter (``1 A`` .. ``6 F`` South's, ``1 G`` .. ``6 L``
North's), the side to move named in a band and its row framed. Arrows draw
moves: a pit of the side to move, a line of moves played in turn from the
position (numbered), or an :class:`Arrow` between any two slots; a move's
arrow runs from the pit played to the slot its last seed drops into.
Colours: :data:`COLORS`, any of them changed by name; ``fill`` colours some
slots' hollows (the pits a move sowed into, say). Bad input raises
:class:`mancala.errors.PictureError` (a ``ValueError``), one line.
"""
from __future__ import annotations

import math
import numbers
import re
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from mancala.errors import IllegalMoveError, PictureError, quote
from mancala.geometry import (NORTH, PITS, SIDE_NAMES, SLOTS, SOUTH, is_store, pit_letter, pit_of,
                              pit_slot, side_of, side_seeds, slot_name, sowing_path, store_slot)

WIDTH, HEIGHT = 640, 240        #: the picture's own units (its viewBox); ``size`` scales them
MARGIN, STORE_W, PIT_R, PIT_GAP = 10, 76, 32, 10
ROW_X = MARGIN + STORE_W + (WIDTH - 2 * MARGIN - 2 * STORE_W - PITS * 2 * PIT_R - (PITS - 1) * PIT_GAP) / 2
ROW_Y = {NORTH: 84, SOUTH: 160}             #: the centre line of each side's row of pits
STORE_TOP, STORE_H = 52, 140
PIT_DRAWN, STORE_DRAWN = 12, 40             #: seeds drawn in a pit, in a store (board.js's)

#: the colours, by name (style.css's: the Okabe-Ito blue and vermillion for the sides,
#: every text at least 4.5:1 on what it sits on); ``seed 1`` .. ``seed 6`` the seeds' palette
COLORS: Dict[str, str] = {
    "wood": "#e9d8b4", "pit": "#fbf5e6", "pit edge": "#8a7046",
    "south": "#0072b2", "north": "#d55e00", "south ink": "#005a8c", "north ink": "#8f3f00",
    "ink": "#1d1d1d", "muted": "#4d4d4d", "badge": "#ffffff", "badge edge": "#6b5532",
    "seed edge": "#1d1d1d", "shine": "#ffffff8c", "arrow": "#1d1d1dbb", "arrow text": "#ffffff",
    "seed 1": "#2f6fa8", "seed 2": "#3b8a5a", "seed 3": "#b0413b",
    "seed 4": "#c08a1f", "seed 5": "#7656a6", "seed 6": "#2e8c8c",
}
SEED_KEYS = tuple(f"seed {n}" for n in range(1, 7))
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")

Point = Tuple[float, float]


class Arrow(NamedTuple):
    """An arrow from one slot to another (0..13, the rules' numbering), in ``color`` or ``COLORS["arrow"]``."""

    tail: int
    head: int
    color: Optional[str] = None


# -- the shapes a picture is made of (the SVG writer and the Pillow painter both read them)

class Rect(NamedTuple):
    x: float
    y: float
    w: float
    h: float
    radius: float
    fill: Optional[str]
    stroke: Optional[str] = None
    width: float = 0.0
    role: str = ""
    data: Tuple[Tuple[str, object], ...] = ()


class Circle(NamedTuple):
    cx: float
    cy: float
    r: float
    fill: str
    stroke: Optional[str] = None
    width: float = 0.0
    role: str = ""
    data: Tuple[Tuple[str, object], ...] = ()


class Text(NamedTuple):
    x: float
    y: float            #: the baseline
    text: str
    size: float
    fill: str
    bold: bool = False
    anchor: str = "middle"      #: start, middle or end
    role: str = ""
    data: Tuple[Tuple[str, object], ...] = ()


class Polygon(NamedTuple):
    points: Tuple[Point, ...]
    fill: str
    role: str = ""
    data: Tuple[Tuple[str, object], ...] = ()


class Curve(NamedTuple):
    """A cubic Bezier stroke: start, two control points, end."""

    points: Tuple[Point, Point, Point, Point]
    stroke: str
    width: float
    role: str = ""
    data: Tuple[Tuple[str, object], ...] = ()


Shape = Union[Rect, Circle, Text, Polygon, Curve]


class Scene(NamedTuple):
    """A picture: its shapes in drawing order on a WIDTH x HEIGHT canvas, and its words."""

    shapes: List[Shape]
    description: str


# -- where things are

def slot_centre(slot: int) -> Point:
    """The centre of a slot (0..13) on the canvas: a pit's circle, a store's box."""
    side = side_of(slot)
    if is_store(slot):
        x = WIDTH - MARGIN - STORE_W / 2 if side == SOUTH else MARGIN + STORE_W / 2
        return x, STORE_TOP + STORE_H / 2
    pit = pit_of(slot)
    column = pit if side == SOUTH else PITS - 1 - pit
    return ROW_X + PIT_R + column * (2 * PIT_R + PIT_GAP), ROW_Y[side]


def store_box(side: int) -> Tuple[float, float, float, float]:
    """``side``'s store as x, y, width, height."""
    x, _ = slot_centre(store_slot(side))
    return x - STORE_W / 2, STORE_TOP, STORE_W, STORE_H


def seed_spots(slot: int, count: int) -> List[Tuple[float, float, float]]:
    """Where the seeds drawn in a slot lie (x, y, radius): Vogel's spiral, as board.js
    lays them, so the first seeds keep their places as more come."""
    store = is_store(slot)
    drawn = min(count, STORE_DRAWN if store else PIT_DRAWN)
    most, spread, squash, radius = (STORE_DRAWN, 25, 2.0, 4.8) if store else (PIT_DRAWN, 19, 1.0, 5.0)
    x0, y0 = slot_centre(slot)
    if store:
        y0 += 12
    spots = []
    for i in range(drawn):
        distance = spread * math.sqrt((i + 0.5) / most)
        angle = i * 2.39996 + 0.7
        spots.append((x0 + distance * math.cos(angle), y0 + distance * math.sin(angle) * squash, radius))
    return spots


def seed_key(slot: int, i: int) -> str:
    """The colour name of seed ``i`` of a slot (board.js's mix, so seeds look scattered)."""
    return SEED_KEYS[(slot * 7 + i * 5 + (i >> 2)) % len(SEED_KEYS)]


def landing(slots: Sequence[int], side: int, pit: int) -> int:
    """The slot the last seed of ``side``'s ``pit`` drops into (the pit must hold seeds)."""
    return sowing_path(slots, side, pit)[-1]


# -- checking what was asked

def check_colors(colors: Optional[Dict[str, str]]) -> Dict[str, str]:
    """COLORS with ``colors`` over them; PictureError for an unknown name or a colour not in hex."""
    merged = dict(COLORS)
    if colors is None:
        return merged
    if not isinstance(colors, dict):
        raise PictureError(f"colors is a dict of colour names to '#rrggbb', not {quote(colors)}")
    for key, value in colors.items():
        if key not in COLORS:
            raise PictureError(f"unknown colour {quote(key)}; known: {', '.join(COLORS)}")
        merged[key] = check_color(f"colour {key!r}", value)
    return merged


def check_color(what: str, value: object) -> str:
    """``value`` if it is a colour in hex; PictureError naming ``what`` otherwise."""
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise PictureError(f"{what} is '#rgb', '#rrggbb' or '#rrggbbaa', not {quote(value)}")
    return value


def check_size(size: object) -> Optional[float]:
    """``size`` (a width in pixels above 0, or None); PictureError otherwise."""
    if size is None:
        return None
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not math.isfinite(size) or size <= 0:
        raise PictureError(f"size is a width in pixels above 0, not {quote(size)}")
    return size


def check_fill(fill: Optional[Dict[int, str]]) -> Dict[int, str]:
    """``fill`` checked: slots 0..13 to colours; PictureError otherwise."""
    if fill is None:
        return {}
    if not isinstance(fill, dict):
        raise PictureError(f"fill is a dict of slots 0..13 to colours, not {quote(fill)}")
    for slot, color in fill.items():
        if type(slot) is not int or not 0 <= slot < SLOTS:
            raise PictureError(f"fill colours slots 0..13, not {quote(slot)}")
        check_color(f"the fill of slot {slot}", color)
    return fill


def check_board(board: object) -> Tuple[List[int], int]:
    """The slots and side to move of a :class:`mancala.Board`; PictureError for anything else."""
    pits = getattr(board, "pits", None)
    if not (isinstance(pits, list) and len(pits) == SLOTS) or getattr(board, "to_move", None) not in (0, 1):
        raise PictureError(f"draws a mancala.Board, not {quote(board)}")
    return pits, board.to_move


ArrowsArg = Union[int, Arrow, Iterable[Union[int, Arrow]]]


class Drawn(NamedTuple):
    """An arrow to draw, the number of its move in a line (None: not numbered) and its words."""

    arrow: Arrow
    number: Optional[int]
    words: str


def move_arrows(board, arrows: ArrowsArg) -> List[Drawn]:
    """``arrows`` as arrows to draw: an int is the next move of a line played from ``board``
    (on a copy; numbered when the line has more than one), an Arrow is drawn as it is.
    PictureError for a pit outside 0..5, a move that is not legal, a slot outside 0..13."""
    if arrows is None:
        return []
    try:
        items = [arrows] if isinstance(arrows, (numbers.Integral, Arrow)) else list(arrows)
    except TypeError:
        raise PictureError(f"arrows are pits 0..5 (a line of moves) or Arrows, not {quote(arrows)}") from None
    moves = sum(not isinstance(item, Arrow) for item in items)
    position = board.copy(stack=False) if moves else None
    drawn, played = [], 0
    for item in items:
        if isinstance(item, Arrow):
            if not all(type(end) is int and 0 <= end < SLOTS for end in item[:2]):
                raise PictureError(f"an arrow joins slots 0..13, not {quote(tuple(item[:2]))}")
            drawn.append(Drawn(item, None, f"an arrow from {pit_words(item.tail)} to {pit_words(item.head)}"))
            continue
        if isinstance(item, bool) or not isinstance(item, numbers.Integral) or not 0 <= item < PITS:
            raise PictureError(f"a move's arrow is a pit 0..5 of the side to move, not {quote(item)}")
        item = int(item)        # a NumPy integer too (an environment's action)
        side, slots = position.to_move, position.pits
        try:
            position.push(item)
        except IllegalMoveError as error:
            raise PictureError(f"move {played + 1} of the arrows, pit {item}: {error}") from None
        played += 1
        number = played if moves > 1 else None
        words = f"{SIDE_NAMES[side]} plays pit {item + 1} ({pit_letter(side, item)})"
        drawn.append(Drawn(Arrow(pit_slot(side, item), landing(slots, side, item)), number,
                           words if number is None else f"{number}. {words}"))
    return drawn


def pit_words(slot: int) -> str:
    """``South's pit 3 (C)``, ``North's store``."""
    pit = pit_of(slot)
    return slot_name(slot) if pit is None else f"{slot_name(slot)} ({pit_letter(side_of(slot), pit)})"


# -- the drawing

def badge(x: float, y: float, count: int, size: float, many: bool, colors: Dict[str, str],
          slot: int) -> List[Shape]:
    """A count in a rounded box centred on x, y, wide enough for its digits."""
    width, height = size * (0.62 * len(str(count)) + 0.7), size * 1.3
    fill, ink = (colors["ink"], colors["badge"]) if many else (colors["badge"], colors["ink"])
    if count == 0:
        ink = colors["muted"]
    return [Rect(x - width / 2, y - height / 2, width, height, height / 2, fill, colors["badge edge"], 1),
            Text(x, y + size * 0.36, str(count), size, ink, bold=True, role="count", data=(("slot", slot),))]


def slot_shapes(slot: int, count: int, colors: Dict[str, str], hollow: str) -> List[Shape]:
    """A pit or store: its hollow (in colour ``hollow``), its seeds, its count."""
    x, y = slot_centre(slot)
    store = is_store(slot)
    side = side_of(slot)
    data = (("slot", slot),)
    if store:
        bx, by, bw, bh = store_box(side)
        shapes: List[Shape] = [Rect(bx, by, bw, bh, 30, hollow, colors[SIDE_NAMES[side].lower()], 3,
                                    role="store", data=data)]
    else:
        shapes = [Circle(x, y, PIT_R, hollow, colors["pit edge"], 2, role="pit", data=data)]
    for i, (sx, sy, r) in enumerate(seed_spots(slot, count)):
        shapes.append(Circle(sx, sy, r, colors[seed_key(slot, i)], colors["seed edge"], r / 5, role="seed", data=data))
        shapes.append(Circle(sx - r / 3, sy - r / 3, r / 3.2, colors["shine"], role="shine"))
    many = count > (STORE_DRAWN if store else PIT_DRAWN)
    if store:
        shapes += badge(x, STORE_TOP + 17, count, 19, many, colors, slot)
    else:
        shapes += badge(x + 25, y - 24, count, 14, many, colors, slot)
    return shapes


def band_shapes(side: int, words: str, lit: bool, colors: Dict[str, str]) -> List[Shape]:
    """A side's name band above (North) or below (South) its row; lit: filled, with a pointer."""
    y = 6 if side == NORTH else HEIGHT - 30
    ink = colors[f"{SIDE_NAMES[side].lower()} ink"]
    if not lit:
        return [Text(WIDTH / 2, y + 18, words, 16, ink, bold=True, role="side")]
    width = 240
    x = (WIDTH - width) / 2
    pointer = ((x + 14, y + 6), (x + 26, y + 12), (x + 14, y + 18))
    return [Rect(x, y, width, 24, 8, ink, role="mover"), Polygon(pointer, colors["badge"]),
            Text(WIDTH / 2 + 8, y + 18, words, 16, colors["badge"], bold=True, role="side")]


def arrow_shapes(arrow: Arrow, color: str, number: Optional[int], colors: Dict[str, str]) -> List[Shape]:
    """A curved arrow from the tail slot's centre to the head slot's, bowed away from the
    board's middle (so it leaves the pits between uncovered), and the move's number at its tail."""
    (x0, y0), (x1, y1) = slot_centre(arrow.tail), slot_centre(arrow.head)
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    length = math.hypot(x1 - x0, y1 - y0)
    if length == 0:             # a lap of 13 seeds and more ends where it began: a loop
        out = -1 if y0 < HEIGHT / 2 else 1
        c1, c2 = (x0 - 44, y0 + out * 78), (x0 + 44, y0 + out * 78)
    else:
        nx, ny = -(y1 - y0) / length, (x1 - x0) / length
        if (mx - WIDTH / 2) * nx + (my - HEIGHT / 2) * ny < 0:
            nx, ny = -nx, -ny
        bow = min(0.3 * length, PIT_R + 6)
        qx, qy = mx + 2 * bow * nx, my + 2 * bow * ny
        c1 = (x0 + 2 / 3 * (qx - x0), y0 + 2 / 3 * (qy - y0))
        c2 = (x1 + 2 / 3 * (qx - x1), y1 + 2 / 3 * (qy - y1))
    dx, dy = x1 - c2[0], y1 - c2[1]
    norm = math.hypot(dx, dy)
    dx, dy = dx / norm, dy / norm
    head, half = 18, 10
    bx, by = x1 - dx * head, y1 - dy * head
    data = (("tail", arrow.tail), ("head", arrow.head))
    shapes: List[Shape] = [
        Curve(((x0, y0), c1, (c2[0] - dx * head, c2[1] - dy * head), (bx, by)), color, 6, role="arrow", data=data),
        Polygon(((x1, y1), (bx - dy * half, by + dx * half), (bx + dy * half, by - dx * half)), color,
                role="arrow-head", data=data)]
    if number is not None:
        shapes += [Circle(x0, y0, 10, color, role="arrow-number"),
                   Text(x0, y0 + 5, str(number), 14, colors["arrow text"], bold=True, role="arrow-number")]
    return shapes


def describe(slots: Sequence[int], to_move: int, over: bool, drawn: List[Drawn]) -> str:
    """The position in words, for the picture's title and a screen reader."""
    if over:
        state = f"game over, South {side_seeds(slots, SOUTH)}, North {side_seeds(slots, NORTH)}"
    else:
        state = f"{SIDE_NAMES[to_move]} to move"
    north = ", ".join(str(slots[pit_slot(NORTH, pit)]) for pit in reversed(range(PITS)))
    south = ", ".join(str(slots[pit_slot(SOUTH, pit)]) for pit in range(PITS))
    words = (f"Kalah board, {state}. North's pits 6 to 1 (L to G): {north}; North's store "
             f"{slots[store_slot(NORTH)]}. South's pits 1 to 6 (A to F): {south}; South's store "
             f"{slots[store_slot(SOUTH)]}.")
    return words + (" Arrows: " + "; ".join(d.words for d in drawn) + "." if drawn else "")


def scene(board, *, arrows: ArrowsArg = (), colors: Optional[Dict[str, str]] = None,
          fill: Optional[Dict[int, str]] = None) -> Scene:
    """Every shape of a board's picture, in drawing order, and its description (see the module);
    ``fill`` colours the hollow of some slots (0..13), as python-chess's ``fill`` colours squares."""
    slots, to_move = check_board(board)
    colors = check_colors(colors)
    hollows = [colors["pit"]] * SLOTS
    for slot, color in check_fill(fill).items():
        hollows[slot] = color
    drawn = move_arrows(board, arrows)
    over = board.is_game_over()
    shapes: List[Shape] = [Rect(0, 0, WIDTH, HEIGHT, 18, colors["wood"], role="board")]
    if not over:
        top = ROW_Y[to_move] - PIT_R - 5
        shapes.append(Rect(ROW_X - 6, top, WIDTH - 2 * ROW_X + 12, 2 * PIT_R + 10, 14, None,
                           colors[SIDE_NAMES[to_move].lower()], 3, role="mover-row"))
    for slot in range(SLOTS):
        shapes += slot_shapes(slot, slots[slot], colors, hollows[slot])
    for side in (NORTH, SOUTH):
        y = ROW_Y[side] - PIT_R - 8 if side == NORTH else ROW_Y[side] + PIT_R + 18
        for pit in range(PITS):
            x, _ = slot_centre(pit_slot(side, pit))
            shapes.append(Text(x, y, f"{pit + 1} {pit_letter(side, pit)}", 13, colors["ink"], role="letter",
                               data=(("slot", pit_slot(side, pit)),)))
        name = SIDE_NAMES[side]
        if over:
            seeds, other = side_seeds(slots, side), side_seeds(slots, 1 - side)
            wins = seeds > other
            words = f"{name} wins, {seeds} seeds" if wins else f"{name}, {seeds} seeds" + \
                (" (a draw)" if seeds == other else "")
            shapes += band_shapes(side, words, wins, colors)
        else:
            shapes += band_shapes(side, f"{name} to move" if side == to_move else name, side == to_move, colors)
    for arrow, number, _ in drawn:
        color = colors["arrow"] if arrow.color is None else check_color("an arrow's colour", arrow.color)
        shapes += arrow_shapes(arrow, color, number, colors)
    return Scene(shapes, describe(slots, to_move, over, drawn))


__all__ = ["scene", "Scene", "Arrow", "COLORS", "WIDTH", "HEIGHT", "slot_centre", "store_box", "seed_spots",
           "check_size", "check_colors", "Rect", "Circle", "Text", "Polygon", "Curve", "Shape"]
