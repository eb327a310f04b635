"""The environments' ``render_mode="rgb_array"``: a board's picture as an H x W x 3 uint8 array.

The picture is :func:`mancala.picture.scene`'s, the one :mod:`mancala.svg` writes,
painted with Pillow (the ``rl`` extra's): every frame of a size has the same
shape, as ``gymnasium.wrappers.RecordVideo`` needs. Shapes are painted at twice
the size and halved, so edges are smooth; a translucent shape (the seeds' shine,
an arrow) is blended over what lies under it.
"""
from __future__ import annotations

import functools
from typing import Tuple

import numpy as np

from mancala.env import EXTRA_HINT
from mancala.errors import PictureError, quote
from mancala.picture import HEIGHT, WIDTH, ArrowsArg, Circle, Curve, Polygon, Rect, Shape, Text, scene

FRAME_WIDTH = 640           #: pixels: frames are FRAME_WIDTH x FRAME_WIDTH * 3 / 8 (640 x 240)
SUPERSAMPLE = 2             #: painted this many times larger, then reduced: smooth edges
ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}     # Pillow's: left/middle/right, baseline


def check_pillow() -> None:
    """ImportError, one line, when Pillow is missing (an ``rl`` extra from before it held Pillow)."""
    try:
        import PIL.ImageDraw  # noqa: F401 (the rl extra's: imported to see that it is there)
    except ImportError:
        raise ImportError(f"render_mode='rgb_array' needs Pillow: {EXTRA_HINT}") from None


def frame(board, *, width: int = FRAME_WIDTH, arrows: ArrowsArg = ()) -> np.ndarray:
    """``board`` as an RGB array, ``width`` pixels wide and ``width * 3 / 8`` high
    (PictureError for a width that is not a whole number above 0; ``arrows`` as
    :func:`mancala.svg.board` takes them)."""
    from PIL import Image, ImageDraw     # the rl extra's

    if isinstance(width, bool) or not isinstance(width, int) or width <= 0:
        raise PictureError(f"width is a whole number of pixels above 0, not {quote(width)}")
    drawn = scene(board, arrows=arrows)
    height = round(width * HEIGHT / WIDTH)
    scale = width * SUPERSAMPLE / WIDTH
    canvas = Image.new("RGB", (width * SUPERSAMPLE, height * SUPERSAMPLE), "#ffffff")
    draw = ImageDraw.Draw(canvas, "RGBA")
    for shape in drawn.shapes:
        if isinstance(shape, Curve):
            _paint_curve(canvas, shape, scale)
        else:
            _paint(draw, shape, scale)
    return np.asarray(canvas.reduce(SUPERSAMPLE), dtype=np.uint8)


def _rgba(color: str) -> Tuple[int, ...]:
    from PIL import ImageColor
    return ImageColor.getrgb(color)


@functools.lru_cache(maxsize=32)
def _font(pixels: int):
    from PIL import ImageFont
    return ImageFont.load_default(size=pixels)


def _paint(draw, shape: Shape, scale: float) -> None:
    if isinstance(shape, Rect):
        box = [shape.x * scale, shape.y * scale, (shape.x + shape.w) * scale, (shape.y + shape.h) * scale]
        draw.rounded_rectangle(box, radius=shape.radius * scale,
                               fill=None if shape.fill is None else _rgba(shape.fill),
                               outline=None if shape.stroke is None else _rgba(shape.stroke),
                               width=max(1, round(shape.width * scale)) if shape.stroke else 0)
    elif isinstance(shape, Circle):
        r = shape.r * scale
        box = [shape.cx * scale - r, shape.cy * scale - r, shape.cx * scale + r, shape.cy * scale + r]
        draw.ellipse(box, fill=_rgba(shape.fill), outline=None if shape.stroke is None else _rgba(shape.stroke),
                     width=max(1, round(shape.width * scale)) if shape.stroke else 0)
    elif isinstance(shape, Text):
        size = round(shape.size * scale)
        stroke = max(1, round(size / 28)) if shape.bold else 0
        draw.text((shape.x * scale, shape.y * scale), shape.text, fill=_rgba(shape.fill), font=_font(size),
                  anchor=ANCHORS[shape.anchor], stroke_width=stroke, stroke_fill=_rgba(shape.fill))
    elif isinstance(shape, Polygon):
        draw.polygon([(x * scale, y * scale) for x, y in shape.points], fill=_rgba(shape.fill))


def _paint_curve(canvas, shape: Curve, scale: float) -> None:
    """A translucent stroke blended once: painted whole into a mask, then laid over."""
    from PIL import Image, ImageDraw

    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = shape.points
    points = []
    for step in range(33):
        t = step / 32
        a, b, c, d = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t ** 2, t ** 3
        points.append(((a * x0 + b * x1 + c * x2 + d * x3) * scale, (a * y0 + b * y1 + c * y2 + d * y3) * scale))
    color = _rgba(shape.stroke)
    alpha = color[3] if len(color) == 4 else 255
    width = max(1, round(shape.width * scale))
    mask = Image.new("L", canvas.size, 0)
    pen = ImageDraw.Draw(mask)
    pen.line(points, fill=alpha, width=width, joint="curve")
    for x, y in (points[0], points[-1]):          # round ends, as the SVG's stroke-linecap
        pen.ellipse([x - width / 2, y - width / 2, x + width / 2, y + width / 2], fill=alpha)
    canvas.paste(color[:3], mask=mask)


def frame_height(width: int = FRAME_WIDTH) -> int:
    """The height of a frame ``width`` pixels wide."""
    return round(width * HEIGHT / WIDTH)


__all__ = ["frame", "frame_height", "check_pillow", "FRAME_WIDTH"]
