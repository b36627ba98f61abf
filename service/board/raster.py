"""The board's SVG as PNG bytes, drawn by resvg (the ``resvg-py`` wheel: no system library, no system font).

The fonts are the two DejaVu Sans files shipped in ``fonts/`` (cut to Latin, Latin-1 and Latin Extended-A, which
hold every Czech letter; licence in ``fonts/LICENSE``); system fonts are never loaded, so a fresh machine draws
the same picture. Why resvg and not Pillow: docs/board.md.
"""

from importlib import resources

import resvg_py

FONTS = resources.files(__package__).joinpath("fonts")
FONT_FILES = [str(FONTS.joinpath(f)) for f in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")]


def png(svg: str) -> bytes:
    """The PNG of ``svg`` at its own size."""
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg,
            skip_system_fonts=True,
            font_files=FONT_FILES,
            font_family="DejaVu Sans",
            sans_serif_family="DejaVu Sans",
        )
    )
