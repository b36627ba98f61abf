"""The board's SVG as PNG bytes, drawn by resvg (the ``resvg-py`` wheel: no system library, no system font).

The fonts are the two DejaVu Sans files shipped in ``fonts/`` (cut to Latin, Latin-1 and Latin Extended-A, which
hold every Czech letter; licence in ``fonts/LICENSE``); system fonts are never loaded, so a fresh machine draws
the same picture. Why resvg and not Pillow, and why 800 px wide: docs/board.md.
"""

from importlib import resources

import resvg_py

FONTS = resources.files(__package__).joinpath("fonts")
FONT_FILES = [str(FONTS.joinpath(f)) for f in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")]
# The PNG's width: the SVG is laid out 1000 units wide and drawn scaled to this (the height follows). 800 px costs
# about 20 % less than 1000 (fewer pixels to fill and to encode) and reads the same on a phone, where Telegram shows
# a photo at the chat's width whatever its size; its smallest labels are then 13.6 px high (bench/bench_board.py).
WIDTH = 800


def png(svg: str, width: int | None = WIDTH, **options) -> bytes:
    """The PNG of ``svg``, ``width`` pixels wide (None: the SVG's own size); ``options`` go to resvg (the
    benchmark tries its rendering policies)."""
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg,
            width=width,
            skip_system_fonts=True,
            font_files=FONT_FILES,
            font_family="DejaVu Sans",
            sans_serif_family="DejaVu Sans",
            **options,
        )
    )
