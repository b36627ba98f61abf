"""The board picture (`service.board`): building the SVG and rasterising it, per board, on one core, and the PNG's
size, two ways interleaved board by board (so that the machine's load falls on both alike):

* whole: resvg draws the whole SVG (`raster.resvg_png`), as before, and the reference the other must match;
* layered: `raster.png`, the way a picture is drawn now (a cached still layer, cached sprites of the live
  elements, docs/board.md), its caches as a worker's would be: emptied at each game's first board (*cold*: a
  worker's first board of a table) and kept for the game's later boards (*warm*). The goal, a p95 of at most
  50 ms per board, is for warm boards: a game in progress.

The boards are public views of bot-played games, a view every 7 actions and at most BOARDS_PER_GAME a game, 2 to 7
players in turn, both board sides, one language a game (as a table has one) taking English and Czech in turn.
Times are CPU time of this process (``time.process_time``) pinned to one core, so other processes on the machine
do not count.

Then, on the same boards, the alternatives measured before (docs/board.md): Pillow drawing the same number of
shapes and texts at the same size straight into a PNG, and the other options of resvg drawing the whole board
(`options`): at the SVG's own 1000 px, resvg's speed policies, and Pillow quantising the PNG to 64 colours; and
the ways to encode the picture as PNG (`encoders`).

Environment: BENCH_BOARDS (boards measured, default 60).
"""

import io
import os
import random
import re
import statistics
import time

from service.board import raster, svg
from service.game import new_game
from service.game.bots import choose

GOAL_MS = 50.0
BOARDS_PER_GAME = 10
NAMES = {0: "Eva", 1: "Anna", 2: "Petr", 3: "Zdeněk", 4: "Šárka", 5: "Jiří", 6: "Bob"}


def views(count: int) -> list[tuple[dict, str, bool]]:
    """``count`` (public view, language, first board of its game) from bot games: a view every 7 actions, at most
    BOARDS_PER_GAME a game; players, sides and languages mixed."""
    out: list[tuple[dict, str, bool]] = []
    game_no = 0
    while len(out) < count:
        players, side, lang = 2 + game_no % 6, 1 + game_no % 2, ("en", "cs")[game_no // 2 % 2]
        game, rng = new_game({"players": players, "seed": game_no, "side": side}), random.Random(game_no)
        step, drawn = 0, 0
        while not game.is_over and drawn < min(BOARDS_PER_GAME, count - len(out)):
            seat = game.waiting_for()[0]
            for action in choose(game, seat, rng):
                game.apply(seat, action)
                if game.is_over:
                    break
            step += 1
            if step % 7 == 0:
                out.append((game.public_view(), lang, drawn == 0))
                drawn += 1
        game_no += 1
    return out


def ms(started: float) -> float:
    """CPU milliseconds since ``started`` (a ``time.process_time()``)."""
    return (time.process_time() - started) * 1000


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def pillow_same_work(text: str) -> bytes:
    """Pillow drawing as many rectangles, circles, polygons and texts as ``text`` (an SVG) holds, at its size."""
    from PIL import Image, ImageDraw, ImageFont

    width, height = (int(v) for v in re.search(r'width="(\d+)" height="(\d+)"', text).groups())
    image = Image.new("RGB", (width, height), "#f6f3ea")
    draw = ImageDraw.Draw(image)
    regular = ImageFont.truetype(raster.FONT_FILES[0], 20)
    bold = ImageFont.truetype(raster.FONT_FILES[1], 24)
    for i in range(text.count("<rect")):
        x, y = (i * 53) % (width - 60), (i * 37) % (height - 60)
        draw.rounded_rectangle([x, y, x + 48, y + 48], 6, fill="white", outline="#9a958a", width=2)
    for i in range(text.count("<circle") + text.count("<polygon")):
        x, y = (i * 41) % (width - 40), (i * 29) % (height - 40)
        draw.ellipse([x, y, x + 30, y + 30], fill="#0072b2", outline="#1b1b1b", width=2)
    for i, words in enumerate(re.findall(r">([^<]+)</text>", text)):
        draw.text(((i * 97) % (width - 200), (i * 23) % (height - 30)), words, font=bold if i % 3 else regular)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def quantised(png: bytes) -> bytes:
    """The PNG quantised by Pillow to a 64-colour palette (fewer bytes to upload, more time)."""
    from PIL import Image

    out = io.BytesIO()
    Image.open(io.BytesIO(png)).convert("RGB").quantize(64, method=Image.Quantize.FASTOCTREE).save(out, "PNG")
    return out.getvalue()


OPTIONS = {  # name -> how resvg draws the whole SVG as a PNG
    f"{raster.WIDTH} px": lambda text: raster.resvg_png(text),
    "1000 px": lambda text: raster.resvg_png(text, width=1000),
    f"{raster.WIDTH} px, text_rendering optimize_speed": lambda text: raster.resvg_png(
        text, text_rendering="optimize_speed"
    ),
    f"{raster.WIDTH} px, shape_rendering optimize_speed": lambda text: raster.resvg_png(
        text, shape_rendering="optimize_speed"
    ),
    f"{raster.WIDTH} px, then Pillow 64-colour palette": lambda text: quantised(raster.resvg_png(text)),
}


def pillow_png(image, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", **options)
    return out.getvalue()


ENCODERS = {  # name -> how the board's RGB picture becomes PNG bytes
    f"zlib level {raster.COMPRESS_LEVEL}, rows unfiltered (chosen)": raster.encode,
    "zlib level 6, rows unfiltered": lambda image: raster.encode(image, 6),
    "Pillow compress_level 1": lambda image: pillow_png(image, compress_level=1),
    "Pillow compress_level 6 (its default)": lambda image: pillow_png(image, compress_level=6),
    "Pillow optimize": lambda image: pillow_png(image, optimize=True),
}


def encoders(texts: list[str]) -> dict[str, tuple[float, float]]:
    """name -> (p95 ms, median PNG KB) of each way to encode the board's picture (as resvg draws it whole), the
    encoders interleaved board by board."""
    from PIL import Image

    times: dict[str, list[float]] = {name: [] for name in ENCODERS}
    sizes: dict[str, list[int]] = {name: [] for name in ENCODERS}
    for text in texts:
        image = Image.open(io.BytesIO(raster.resvg_png(text))).convert("RGB")
        for name, encode in ENCODERS.items():
            started = time.process_time()
            sizes[name].append(len(encode(image)))
            times[name].append(ms(started))
    return {name: (p95(times[name]), statistics.median(sizes[name]) / 1024) for name in ENCODERS}


def options(texts: list[str]) -> dict[str, tuple[float, float]]:
    """name -> (p95 ms, median PNG KB) of each way to rasterise, the options interleaved board by board so that
    the machine's load falls on all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in OPTIONS}
    sizes: dict[str, list[int]] = {name: [] for name in OPTIONS}
    for text in texts:
        for name, draw in OPTIONS.items():
            started = time.process_time()
            sizes[name].append(len(draw(text)))
            times[name].append(ms(started))
    return {name: (p95(times[name]), statistics.median(sizes[name]) / 1024) for name in OPTIONS}


def drawn_both_ways(boards: list[tuple[dict, str, bool]]) -> dict[str, list[float]]:
    """Per board: the SVG's time, then each way's time (the SVG's included) and PNG bytes; the layered way's
    caches emptied at each game's first board."""
    out: dict[str, list[float]] = {k: [] for k in ("svg", "whole", "cold", "warm", "whole_bytes", "layered_bytes")}
    for view, lang, first in boards:
        if first:
            raster.forget()
        started = time.process_time()
        text = svg.render(view, NAMES, lang)
        built = ms(started)
        started = time.process_time()
        whole = raster.resvg_png(text)
        out["whole"].append(built + ms(started))
        started = time.process_time()
        layered = raster.png(text)
        out["cold" if first else "warm"].append(built + ms(started))
        out["svg"].append(built)
        out["whole_bytes"].append(len(whole))
        out["layered_bytes"].append(len(layered))
    return out


def main() -> dict:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    boards = views(int(os.environ.get("BENCH_BOARDS", "60")))
    times = drawn_both_ways(boards)
    figures = {
        "boards": len(boards),
        "games": len(times["cold"]),
        "svg_ms_p95": p95(times["svg"]),
        "whole_ms_p50": statistics.median(times["whole"]),
        "whole_ms_p95": p95(times["whole"]),
        "warm_ms_p50": statistics.median(times["warm"]),
        "warm_ms_p95": p95(times["warm"]),
        "cold_ms_p50": statistics.median(times["cold"]),
        "cold_ms_max": max(times["cold"]),
        "whole_kb_median": statistics.median(times["whole_bytes"]) / 1024,
        "layered_kb_median": statistics.median(times["layered_bytes"]) / 1024,
        "layered_kb_max": max(times["layered_bytes"]) / 1024,
    }
    print(
        f"board: {figures['boards']} boards of {figures['games']} games (2-7 players, both sides, en/cs), one core, "
        f"CPU time per board with its SVG (SVG alone p95 {figures['svg_ms_p95']:.1f} ms):\n"
        f"  layered (raster.png), warm: p50 {figures['warm_ms_p50']:.0f} ms, p95 {figures['warm_ms_p95']:.0f} ms "
        f"(goal <= {GOAL_MS:.0f} ms); cold (a game's first board, {figures['games']} boards): "
        f"p50 {figures['cold_ms_p50']:.0f} ms, max {figures['cold_ms_max']:.0f} ms; "
        f"PNG median {figures['layered_kb_median']:.0f} KB, max {figures['layered_kb_max']:.0f} KB\n"
        f"  whole by resvg (before), same boards interleaved: p50 {figures['whole_ms_p50']:.0f} ms, "
        f"p95 {figures['whole_ms_p95']:.0f} ms; PNG median {figures['whole_kb_median']:.0f} KB"
    )
    pillow, pillow_sizes = [], []
    texts = [svg.render(view, NAMES, lang) for view, lang, _ in boards]
    for text in texts:
        started = time.process_time()
        pillow_sizes.append(len(pillow_same_work(text)))
        pillow.append(ms(started))
    figures["pillow_ms_p95"] = p95(pillow)
    figures["pillow_png_kb_median"] = statistics.median(pillow_sizes) / 1024
    print(
        f"  Pillow drawing the same number of shapes and texts: p95 {figures['pillow_ms_p95']:.0f} ms, "
        f"PNG median {figures['pillow_png_kb_median']:.0f} KB (no anti-aliased shapes, a second drawing to keep)"
    )
    measured = options(texts)
    for name, (p95_ms, kb) in measured.items():
        print(f"  resvg drawing the whole board, {name}: p95 {p95_ms:.0f} ms, PNG median {kb:.0f} KB")
    figures["options"] = measured
    packed = encoders(texts)
    for name, (p95_ms, kb) in packed.items():
        print(f"  PNG encoding of the picture, {name}: p95 {p95_ms:.1f} ms, median {kb:.0f} KB")
    figures["encoders"] = packed
    return figures


if __name__ == "__main__":
    main()
