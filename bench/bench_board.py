"""The board picture (`service.board`): building the SVG and rasterising it, per board, on one core, and the PNG's
size; beside it, in the same run, Pillow drawing the same number of shapes and texts at the same size straight
into a PNG (the alternative that was measured against resvg: docs/board.md).

The boards are public views of bot-played games, 2 to 7 players, both board sides, every window kind, in English
and Czech. Times are CPU time of this process (``time.process_time``) pinned to one core, so other processes on
the machine do not count; the goal is a p95 of at most 50 ms per board.

Then, on the same boards in the same run, the other options of the rasteriser (`options`): the PNG at the SVG's
own 1000 px (before), resvg's speed policies, and Pillow quantising the PNG to a 64-colour palette afterwards.

Environment: BENCH_BOARDS (boards measured, default 60).
"""

import io
import os
import random
import re
import statistics
import time

from service import board
from service.board import raster, svg
from service.game import new_game
from service.game.bots import choose

GOAL_MS = 50.0
NAMES = {0: "Eva", 1: "Anna", 2: "Petr", 3: "Zdeněk", 4: "Šárka", 5: "Jiří", 6: "Bob"}


def views(count: int) -> list[tuple[dict, str]]:
    """``count`` (public view, language) pairs from bot games: a view every few actions, players and sides mixed."""
    out: list[tuple[dict, str]] = []
    game_no = 0
    while len(out) < count:
        players, side = 2 + game_no % 6, 1 + game_no % 2
        game, rng = new_game({"players": players, "seed": game_no, "side": side}), random.Random(game_no)
        step = 0
        while not game.is_over and len(out) < count:
            seat = game.waiting_for()[0]
            for action in choose(game, seat, rng):
                game.apply(seat, action)
                if game.is_over:
                    break
            step += 1
            if step % 7 == 0:
                out.append((game.public_view(), "cs" if len(out) % 2 else "en"))
        game_no += 1
    return out


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


OPTIONS = {  # name -> how the SVG becomes a PNG
    f"{raster.WIDTH} px (chosen)": lambda text: raster.png(text),
    "1000 px (before)": lambda text: raster.png(text, width=1000),
    f"{raster.WIDTH} px, text_rendering optimize_speed": lambda text: raster.png(text, text_rendering="optimize_speed"),
    f"{raster.WIDTH} px, shape_rendering optimize_speed": lambda text: raster.png(
        text, shape_rendering="optimize_speed"
    ),
    f"{raster.WIDTH} px, then Pillow 64-colour palette": lambda text: quantised(raster.png(text)),
}


def options(texts: list[str]) -> dict[str, tuple[float, float]]:
    """name -> (p95 ms, median PNG KB) of each way to rasterise, the options interleaved board by board so that
    the machine's load falls on all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in OPTIONS}
    sizes: dict[str, list[int]] = {name: [] for name in OPTIONS}
    for text in texts:
        for name, draw in OPTIONS.items():
            started = time.process_time()
            sizes[name].append(len(draw(text)))
            times[name].append((time.process_time() - started) * 1000)
    return {name: (p95(times[name]), statistics.median(sizes[name]) / 1024) for name in OPTIONS}


def main() -> dict:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    boards = views(int(os.environ.get("BENCH_BOARDS", "60")))
    build, draw, total, sizes, pillow, pillow_sizes = [], [], [], [], [], []
    for view, lang in boards:
        started = time.process_time()
        picture = board.Picture(svg.render(view, NAMES, lang))
        built = time.process_time()
        png = picture.png()
        done = time.process_time()
        build.append((built - started) * 1000)
        draw.append((done - built) * 1000)
        total.append((done - started) * 1000)
        sizes.append(len(png))
        started = time.process_time()
        pillow_sizes.append(len(pillow_same_work(picture.svg)))
        pillow.append((time.process_time() - started) * 1000)
    figures = {
        "boards": len(boards),
        "svg_ms_p95": p95(build),
        "rasterise_ms_p95": p95(draw),
        "board_ms_p50": statistics.median(total),
        "board_ms_p95": p95(total),
        "png_kb_median": statistics.median(sizes) / 1024,
        "png_kb_max": max(sizes) / 1024,
        "pillow_ms_p95": p95(pillow),
        "pillow_png_kb_median": statistics.median(pillow_sizes) / 1024,
    }
    print(
        f"board: {figures['boards']} boards (2-7 players, both sides, en/cs), one core, CPU time: "
        f"SVG p95 {figures['svg_ms_p95']:.1f} ms + resvg PNG p95 {figures['rasterise_ms_p95']:.1f} ms = "
        f"p50 {figures['board_ms_p50']:.0f} ms, p95 {figures['board_ms_p95']:.0f} ms per board "
        f"(goal <= {GOAL_MS:.0f} ms); PNG median {figures['png_kb_median']:.0f} KB, max {figures['png_kb_max']:.0f} KB"
    )
    print(
        f"  Pillow drawing the same number of shapes and texts: p95 {figures['pillow_ms_p95']:.0f} ms, "
        f"PNG median {figures['pillow_png_kb_median']:.0f} KB (no anti-aliased shapes, a second drawing to keep)"
    )
    measured = options([svg.render(view, NAMES, lang) for view, lang in boards])
    for name, (ms, kb) in measured.items():
        print(f"  rasterise {name}: p95 {ms:.0f} ms, PNG median {kb:.0f} KB")
    figures["options"] = measured
    return figures


if __name__ == "__main__":
    main()
