"""Boards as SVG pictures, as python-chess's ``chess.svg`` draws chess boards.

    >>> import mancala, mancala.svg
    >>> picture = mancala.svg.board(mancala.Board(), size=320, arrows=2)
    >>> picture.startswith("<svg") and picture.count('class="seed"')
    48

``board(board, size=None, arrows=(), colors=None, fill=None)``: the position as the web
app draws it (seeds as dots with their count, pit numbers and letters, the
stores, the side to move), ``arrows`` a pit of the side to move, a line of
moves or :class:`Arrow` s (see :mod:`mancala.picture`, which lays the
picture out), ``size`` its width in pixels, ``colors`` any of
:data:`COLORS` changed (``{"south": "#1f77b4"}``) and ``fill`` the hollow of some
slots coloured (``{3: "#f0e442"}``). A standalone document:
``<title>`` and ``aria-label`` say the position in words. ``Board`` shows
itself in Jupyter with it (``Board._repr_svg_``).
"""
from __future__ import annotations

from typing import Dict, Optional
from xml.sax.saxutils import escape, quoteattr

from mancala.picture import (COLORS, HEIGHT, WIDTH, Arrow, ArrowsArg, Circle, Polygon, Rect, Shape, Text,
                             check_size, scene)


# -- SVG

def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _paint(name: str, color: Optional[str]) -> str:
    """A colour as SVG attributes: ``#rrggbbaa`` as the colour and an opacity (every SVG
    reader knows these; not all know eight-digit colours)."""
    if color is None:
        return f' {name}="none"'
    digits = color[1:]
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    if len(digits) == 8:
        return f' {name}="#{digits[:6]}" {name}-opacity="{round(int(digits[6:], 16) / 255, 3)}"'
    return f' {name}="#{digits}"'


def _tag(shape: Shape) -> str:
    kind = type(shape)
    attrs = f' class="{shape.role}"' if shape.role else ""
    attrs += "".join(f' data-{name}="{value}"' for name, value in shape.data)
    if kind is Rect:
        return (f'<rect{attrs} x="{_number(shape.x)}" y="{_number(shape.y)}" width="{_number(shape.w)}" '
                f'height="{_number(shape.h)}" rx="{_number(shape.radius)}"{_paint("fill", shape.fill)}'
                + (f'{_paint("stroke", shape.stroke)} stroke-width="{_number(shape.width)}"' if shape.stroke else "")
                + "/>")
    if kind is Circle:
        return (f'<circle{attrs} cx="{_number(shape.cx)}" cy="{_number(shape.cy)}" r="{_number(shape.r)}"'
                f'{_paint("fill", shape.fill)}'
                + (f'{_paint("stroke", shape.stroke)} stroke-width="{_number(shape.width)}"' if shape.stroke else "")
                + "/>")
    if kind is Text:
        weight = ' font-weight="bold"' if shape.bold else ""
        return (f'<text{attrs} x="{_number(shape.x)}" y="{_number(shape.y)}" font-size="{_number(shape.size)}"'
                f' text-anchor="{shape.anchor}"{weight}{_paint("fill", shape.fill)}>{escape(shape.text)}</text>')
    if kind is Polygon:
        points = " ".join(f"{_number(x)},{_number(y)}" for x, y in shape.points)
        return f'<polygon{attrs} points="{points}"{_paint("fill", shape.fill)}/>'
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = shape.points
    path = " ".join(_number(v) for v in (x1, y1, x2, y2, x3, y3))
    return (f'<path{attrs} d="M {_number(x0)} {_number(y0)} C {path}" fill="none"'
            f'{_paint("stroke", shape.stroke)} stroke-width="{_number(shape.width)}" stroke-linecap="round"/>')


def board(board, *, size: Optional[float] = None, arrows: ArrowsArg = (),
          colors: Optional[Dict[str, str]] = None, fill: Optional[Dict[int, str]] = None) -> str:
    """A board as a standalone SVG document (see the module): ``size`` its width in pixels
    (None: :data:`WIDTH`), ``arrows`` a pit of the side to move, a line of moves or
    :class:`Arrow` s, ``colors`` any of :data:`COLORS` changed, ``fill`` some slots'
    hollows coloured (``{3: "#f0e442"}``: slot 3, South's pit 4 (D)). Its ``<title>`` and
    ``aria-label`` say the position in words. PictureError for what cannot be drawn."""
    size = check_size(size)
    drawn = scene(board, arrows=arrows, colors=colors, fill=fill)
    width = WIDTH if size is None else size
    height = width * HEIGHT / WIDTH
    lines = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'width="{_number(width)}" height="{_number(height)}" role="img" '
             f'aria-label={quoteattr(drawn.description)} font-family="system-ui, sans-serif">',
             f"<title>{escape(drawn.description)}</title>"]
    lines += [_tag(shape) for shape in drawn.shapes]
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


__all__ = ["board", "Arrow", "COLORS"]
