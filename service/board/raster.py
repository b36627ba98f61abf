"""The board's SVG as PNG bytes, drawn by resvg (the ``resvg-py`` wheel: no system library, no system font) in
layers that Pillow composes.

    png(svg) -> bytes                            the picture
    resvg_png(svg, width, **options) -> bytes    the SVG drawn whole by resvg: what ``png`` must look like
    encode(image) -> bytes                       an RGB picture as PNG bytes

``png`` does not draw the whole board each time. The lines of the SVG that are not live (`svg.LIVE`) are the
*still* layer, the same for every board of a table: drawn once and kept. Each live line is a *sprite*: drawn
at the board's scale in a box moved from its place on the board by whole pixels, so that its pixels are those of
the whole drawing, and kept by its text (the same token, disc or count recurs from board to board). A board's new
sprites are drawn together in one resvg call (each call loads the fonts, and each text costs ~1 ms). Pillow then
lays the sprites over a copy of the still layer in the SVG's order, and zlib packs the PNG. What this costs and
saves: docs/board.md. The caches are the process's and unlocked: one drawing at a time (a worker's jobs).

The fonts are the two DejaVu Sans files shipped in ``fonts/`` (cut to Latin, Latin-1 and Latin Extended-A, which
hold every Czech letter; licence in ``fonts/LICENSE``); system fonts are never loaded, so a fresh machine draws
the same picture. Why resvg and not Pillow's own drawing, and why 800 px wide: docs/board.md.
"""

import io
import math
import re
import struct
import xml.etree.ElementTree as ET
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import resvg_py
from PIL import Image, ImageFont

from service.board import svg

FONTS = resources.files(__package__).joinpath("fonts")
FONT_FILES = [str(FONTS.joinpath(f)) for f in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")]
# The PNG's width: the SVG is laid out 1000 units wide and drawn scaled to this (the height follows). 800 px costs
# about 20 % less than 1000 (fewer pixels to fill and to encode) and reads the same on a phone, where Telegram shows
# a photo at the chat's width whatever its size; its smallest labels are then 13.6 px high (bench/bench_board.py).
WIDTH = 800
# What is kept, in the worker process (rq's SimpleWorker: a forked work horse would start cold every time): the
# still layers of 8 tables (800 x 840-1152 px RGB, up to 2.8 MB each) and 2048 sprites (~10 KB each; a game's
# boards have ~40 live elements, of which ~10 change from one board to the next).
STILL_CACHED = 8
SPRITES_CACHED = 2048
# The PNG's zlib level: on boards of 800 x 840-1152 px, 3 costs ~8 ms for ~80 KB, 6 ~14 ms for ~68 KB (the bytes
# matter less: a picture is uploaded once).
COMPRESS_LEVEL = 3
PACK_GAP = 2  # pixels between two sprites drawn together: nothing drawn in one box reaches the next
_MEASURED = {"g", "circle", "rect", "polygon", "text"}  # what svg.py's live elements are made of (a text: no tspan)
PNG = b"\x89PNG\r\n\x1a\n"
_HEIGHT = re.compile(r'height="([0-9.]+)"')


def resvg_png(text: str, width: int | None = WIDTH, **options) -> bytes:
    """The PNG of the SVG ``text`` drawn whole by resvg, ``width`` pixels wide (None: the SVG's own size);
    ``options`` go to resvg (the benchmark tries its rendering policies)."""
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=text,
            width=width,
            skip_system_fonts=True,
            font_files=FONT_FILES,
            font_family="DejaVu Sans",
            sans_serif_family="DejaVu Sans",
            **options,
        )
    )


def png(text: str) -> bytes:
    """The PNG of the board's SVG ``text`` (`svg.render`), WIDTH pixels wide: as ``resvg_png`` draws it."""
    lines = text.split("\n")
    image = _still("\n".join(line for line in lines if not line.startswith(svg.LIVE))).copy()
    # resvg rounds the height up to whole pixels and stretches the drawing to it: the sprites follow
    scale = (WIDTH / svg.WIDTH, image.height / _height(lines[0]))
    live = [(line, scale) for line in lines if line.startswith(svg.LIVE)]
    try:
        sprites = _sprites_of(live)
    except _NoBox:
        return resvg_png(text)
    for key in live:
        sprite = sprites[key]
        if sprite:
            image.paste(sprite.image, sprite.corner, sprite.image)
    return encode(image)


def forget() -> None:
    """Empties the caches (the benchmark measures a worker's first board of a table)."""
    _still.cache_clear()
    _sprites.clear()


def _height(header: str) -> float:
    """The height, in SVG units, of the SVG whose first line is ``header``."""
    found = _HEIGHT.search(header)
    if not found:
        raise ValueError(f"no height in {header!r}")
    return float(found.group(1))


# ---------------------------------------------------------------------------------------------- still layer


@lru_cache(maxsize=STILL_CACHED)
def _still(text: str) -> Image.Image:
    """The board without its live elements (an opaque RGB picture: the SVG starts with its background)."""
    return Image.open(io.BytesIO(resvg_png(text))).convert("RGB")


# ---------------------------------------------------------------------------------------------- sprites

Scale = tuple[float, float]  # pixels per SVG unit, across and down
Key = tuple[str, Scale]  # a live line of the SVG, drawn at a scale


@dataclass(frozen=True)
class Sprite:
    corner: tuple[int, int]  # where its top left pixel lies on the board
    image: Image.Image  # RGBA, cut to what it draws


class _Sprites(OrderedDict[Key, Sprite | None]):
    """Sprites by their line and scale, the least recently used going first (None: the line draws nothing)."""

    def __getitem__(self, key: Key) -> Sprite | None:
        self.move_to_end(key)
        return super().__getitem__(key)

    def __setitem__(self, key: Key, sprite: Sprite | None) -> None:
        super().__setitem__(key, sprite)
        if len(self) > SPRITES_CACHED:
            self.popitem(last=False)


_sprites = _Sprites()


class _NoBox(Exception):
    """A live element's box cannot be told (an element or a transform this module does not measure), or it was
    told too small (the sprite reached its border): the board is drawn whole."""


def _sprites_of(keys: list[Key]) -> dict[Key, Sprite | None]:
    """The sprites of ``keys``: those kept, and the others drawn and kept."""
    known = {key: _sprites[key] for key in keys if key in _sprites}
    drawn = _draw([key for key in dict.fromkeys(keys) if key not in known])
    _sprites.update(drawn)
    return known | drawn


def _draw(keys: list[Key]) -> dict[Key, Sprite | None]:
    """The sprites of ``keys``, drawn in one resvg call: their boxes packed in one picture, each moved by whole
    pixels from where it is on the board (so that it covers the same pixels), then cut apart."""
    if not keys:
        return {}
    boxes = [_box(line, scale) for line, scale in keys]
    corners, width, height = _pack([(right - left, bottom - top) for left, top, right, bottom in boxes])
    moved = "".join(
        f'<g transform="matrix({across!r} 0 0 {down!r} {x - left} {y - top})">{line}</g>'
        for (line, (across, down)), (left, top, _, _), (x, y) in zip(keys, boxes, corners)
    )
    atlas = Image.open(
        io.BytesIO(
            resvg_png(
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                f'viewBox="0 0 {width} {height}" font-family="{svg.FONT}">{moved}</svg>',
                None,
            )
        )
    ).convert("RGBA")
    return {
        key: _cut(atlas.crop((x, y, x + right - left, y + bottom - top)), left, top)
        for key, (left, top, right, bottom), (x, y) in zip(keys, boxes, corners)
    }


def _pack(sizes: list[tuple[int, int]]) -> tuple[list[tuple[int, int]], int, int]:
    """Where boxes of ``sizes`` (width, height) go in one picture, and its width and height: in rows, the tallest
    boxes first, a gap between boxes. resvg's time grows with the picture's area (~50 ms a megapixel: filling the
    pixmap and encoding the PNG), so the boxes are packed rather than stacked."""
    width = max(max(w for w, _ in sizes), math.isqrt(2 * sum(w * h for w, h in sizes)))
    corners: dict[int, tuple[int, int]] = {}
    x = y = row = 0
    for i in sorted(range(len(sizes)), key=lambda i: -sizes[i][1]):
        w, h = sizes[i]
        if x + w > width:
            x, y, row = 0, y + row + PACK_GAP, 0
        corners[i] = (x, y)
        x, row = x + w + PACK_GAP, max(row, h)
    return [corners[i] for i in range(len(sizes))], width, y + row


def _cut(cell: Image.Image, left: int, top: int) -> Sprite | None:
    """The sprite drawn in ``cell``, a box whose top left pixel is at ``left``, ``top`` on the board."""
    inked = cell.getchannel("A").getbbox()
    if not inked:
        return None
    if inked[0] == 0 or inked[1] == 0 or inked[2] == cell.width or inked[3] == cell.height:
        raise _NoBox
    return Sprite((left + inked[0], top + inked[1]), cell.crop(inked))


# ---------------------------------------------------------------------------------------------- PNG


def encode(image: Image.Image, level: int = COMPRESS_LEVEL) -> bytes:
    """``image`` (RGB) as PNG bytes, its rows unfiltered: Pillow's encoder tries five filters on every row, which
    costs more than zlib itself on a picture of flat colours (bench/bench_board.py compares them)."""
    stride = image.width * 3
    pixels = image.tobytes()
    rows = b"".join(b"\0" + pixels[at : at + stride] for at in range(0, len(pixels), stride))
    header = struct.pack(">IIBBBBB", image.width, image.height, 8, 2, 0, 0, 0)  # 8 bits, RGB, no interlace
    return PNG + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows, level)) + _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


# ---------------------------------------------------------------------------------------------- boxes


def _box(line: str, scale: Scale) -> tuple[int, int, int, int]:
    """Left, top, right, bottom, in pixels of the board, of a box that holds all ``line`` draws, with a margin."""
    edges = [e for e in map(_edges, ET.fromstring(line).iter()) if e]
    across, down = scale
    return (
        math.floor(min(e[0] for e in edges) * across) - 2,
        math.floor(min(e[1] for e in edges) * down) - 2,
        math.ceil(max(e[2] for e in edges) * across) + 2,
        math.ceil(max(e[3] for e in edges) * down) + 2,
    )


def _edges(element: ET.Element) -> tuple[float, float, float, float] | None:
    """The extent of one element in SVG units: its shape and half its stroke, or its text's measured advance and
    the font's height (accents over capitals included)."""
    get = element.get
    if get("transform") or element.tag not in _MEASURED:
        raise _NoBox(element.tag)
    pen = float(get("stroke-width", 0)) / 2
    if element.tag == "circle":
        x, y, r = float(get("cx", 0)), float(get("cy", 0)), float(get("r", 0)) + pen
        return x - r, y - r, x + r, y + r
    if element.tag == "rect":
        x, y = float(get("x", 0)), float(get("y", 0))
        return x - pen, y - pen, x + float(get("width", 0)) + pen, y + float(get("height", 0)) + pen
    if element.tag == "polygon":
        xs, ys = zip(*(map(float, point.split(",")) for point in get("points", "").split()))
        # a sharp corner's mitre juts out up to stroke-miterlimit (4) half-widths
        return min(xs) - 4 * pen, min(ys) - 4 * pen, max(xs) + 4 * pen, max(ys) + 4 * pen
    if element.tag == "text":
        x, y, size = float(get("x", 0)), float(get("y", 0)), int(get("font-size", 0))
        advance = _font(get("font-weight") == "bold", size).getlength(element.text or "") * 1.1 + size
        start = {"start": x - size, "middle": x - advance / 2, "end": x - advance}[get("text-anchor", "start")]
        return start, y - 1.3 * size, start + advance + size, y + 0.5 * size
    return None  # a group


@lru_cache(maxsize=64)
def _font(bold: bool, size: int) -> ImageFont.FreeTypeFont:
    """The font resvg draws a text with, to measure the text's advance."""
    return ImageFont.truetype(FONT_FILES[bold], size)
