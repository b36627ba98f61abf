"""The board picture (`service.board`): what the SVG holds follows the public view (structural tests), the PNG
matches a committed reference within a tolerance (golden images) and resvg's drawing of the whole SVG (the PNG is
drawn in cached layers), and the replayer draws one.

The reference views are plain data (``tests/data/board/*.json``: public views of bot-played games), so a change
of the engine's play never moves a golden image; only a change of the drawing does. After an intended change of
the drawing: ``ARTEMIA_UPDATE_GOLDEN=1 pytest tests/test_board.py`` rewrites the reference PNGs — look at them
before committing.
"""

import io
import json
import os
import pathlib
import random
import xml.etree.ElementTree as ET

import pytest
from PIL import Image, ImageChops

from service import board
from service.board import raster, svg
from service.game import new_game
from service.game.bots import choose
from service.replay import main as replay_main

DATA = pathlib.Path(__file__).parent / "data" / "board"
FIXTURES = pathlib.Path(__file__).parent / "fixtures"
NS = {"s": "http://www.w3.org/2000/svg"}
NAMES = {0: "Eva", 1: "Anna", 2: "Petr", 3: "Zdeněk", 4: "Šárka", 5: "Jiří", 6: "Bob"}
# A pixel differs when a channel moves by more than this; a picture matches when at most this share of its pixels
# differ (anti-aliasing may shift with the resvg version; a moved counter or token changes far more).
PIXEL_DELTA = 48
TOLERANCE = 0.004


def view_of(stem: str) -> dict:
    return json.loads((DATA / f"{stem}.json").read_text(encoding="utf-8"))


def tree(view: dict, lang: str = "en") -> ET.Element:
    return ET.fromstring(svg.render(view, NAMES, lang))


def group(root: ET.Element, **attrs) -> list[ET.Element]:
    return [g for g in root.iter("{http://www.w3.org/2000/svg}g") if all(g.get(k) == v for k, v in attrs.items())]


def words(element: ET.Element) -> list[str]:
    return [t.text or "" for t in element.iter("{http://www.w3.org/2000/svg}text")]


# ---------------------------------------------------------------------------------------------- structure


@pytest.mark.parametrize("rescue, assimilation", [(18, 12), (13, 7), (1, 1), (6, 11)])
def test_the_counters_stand_on_the_spaces_of_the_view(rescue, assimilation):
    view = {**view_of("five-side2-reveal"), "rescue": rescue, "assimilation": assimilation}
    root = tree(view)
    (ring,) = group(root, id="rescue-counter")
    (square,) = group(root, id="assimilation-counter")
    assert ring.get("data-distance") == str(rescue) and square.get("data-distance") == str(assimilation)
    centre = float(ring.find("s:circle", NS).get("cx"))
    assert centre == svg._space_x(rescue) + svg.CELL / 2
    rect = square.find("s:rect", NS)
    assert float(rect.get("x")) + float(rect.get("width")) / 2 == svg._space_x(assimilation) + svg.CELL / 2
    assert words(ring) == [str(rescue)] and words(square) == [str(assimilation)]


def test_a_counter_on_the_star_is_said_not_drawn_on_a_space():
    root = tree({**view_of("two-side1-over"), "rescue": 0})
    assert not group(root, id="rescue-counter")
    assert "Rescue: on the star" in " ".join(words(root))


def test_tokens_revealed_places_and_the_marker_are_on_their_places():
    view = view_of("five-side2-reveal")
    root = tree(view)
    for kind, places in view["tokens"].items():
        assert places, kind  # the reference shows all three tokens
        for place in range(1, 11):
            (card,) = group(root, id=f"place-{place}")
            assert bool(group(card, **{"data-token": kind})) == (place in places), (kind, place)
    for hunted in view["hunted"]:
        for place in hunted["played"]:
            (card,) = group(root, id=f"place-{place}")
            assert group(card, **{"class": "revealed", "data-seat": str(hunted["seat"])})
    (beach,) = group(root, id="place-4")
    assert view["marker_on_beach"] and [g.get("data-on-beach") for g in group(root, id="marker")] == ["1"]
    assert group(beach, id="marker") and "Marker" in words(beach)
    moved = tree({**view, "marker_on_beach": False})
    (beach,) = group(moved, id="place-4")
    assert [g.get("data-on-beach") for g in group(moved, id="marker")] == ["0"] and group(beach, id="marker")
    assert "Marker: not here" in words(beach)


def test_before_the_reveal_only_the_number_of_cards_played_shows():
    view = view_of("seven-side1-hunt")
    assert all(isinstance(h["played"], int) for h in view["hunted"])
    root = tree(view)
    assert not group(root, **{"class": "revealed"})
    rows = group(root, **{"class": "hunted"})
    assert [r.get("data-seat") for r in rows] == [str(h["seat"]) for h in view["hunted"]]
    assert [f"Played: {h['played']} face down" in words(r) for r, h in zip(rows, view["hunted"])] == [True] * 6


def test_side_and_artemia_spaces_follow_the_view():
    for stem, side, spaces in [
        ("two-side1-over", 1, [1, 2, 3, 4, 5, 6]),
        ("five-side2-reveal", 2, [1, 3, 5, 7, 9, 11]),
    ]:
        view = view_of(stem)
        assert (view["side"], view["artemia_spaces"]) == (side, spaces)
        text = svg.render(view, NAMES, "en")
        assert f"Board side {side}" in text and text.count('fill="#f3dcea"') == len(spaces)


def test_czech_words_and_names_are_drawn_with_their_diacritics():
    text = " ".join(words(tree(view_of("five-side2-reveal"), "cs")))
    for word in ("Průzkumné", "Útočiště", "Záchrana", "Zdeněk", "Šárka", "Vůle"):
        assert word in text, word
    assert "Rescue" not in text and "Survival" not in text


def test_the_picture_is_drawn_from_the_public_view_only():
    game = new_game({"players": 3, "seed": 9, "side": 1})
    for seat in game.waiting_for():
        game.apply(seat, game.autoplay(seat))
    public = svg.render(game.public_view(), NAMES, "en")
    assert public == svg.render(game.view(1) | {"you": None}, NAMES, "en")  # a seat's secrets change nothing drawn
    digest = board.picture(board.payload("G", game.public_view(), NAMES, "en")).digest
    waiting = {**game.public_view(), "window": {**game.public_view()["window"], "waiting": []}}
    assert board.picture(board.payload("G", waiting, NAMES, "en")).digest == digest  # who answered: not drawn


# ---------------------------------------------------------------------------------------------- golden images


def differing_share(png: bytes, reference: pathlib.Path) -> float:
    new, old = Image.open(io.BytesIO(png)).convert("RGB"), Image.open(reference).convert("RGB")
    if new.size != old.size:
        return 1.0
    diff = ImageChops.difference(new, old).convert("L").point(lambda v: 255 if v > PIXEL_DELTA else 0)
    return sum(diff.histogram()[1:]) / (new.size[0] * new.size[1])


@pytest.mark.parametrize(
    "stem, lang", [("five-side2-reveal", "cs"), ("two-side1-over", "en"), ("seven-side1-hunt", "en")]
)
def test_golden_image(stem, lang):
    png = board.Picture(svg.render(view_of(stem), NAMES, lang)).png()
    reference = DATA / f"{stem}-{lang}.png"
    if os.environ.get("ARTEMIA_UPDATE_GOLDEN"):
        reference.write_bytes(png)
    assert differing_share(png, reference) <= TOLERANCE


def test_the_golden_comparison_sees_a_moved_counter():
    view = view_of("two-side1-over")
    moved = board.Picture(svg.render({**view, "assimilation": view["assimilation"] + 3}, NAMES, "en")).png()
    assert differing_share(moved, DATA / "two-side1-over-en.png") > TOLERANCE


# ---------------------------------------------------------------------------------------------- drawn in layers


def games(count: int = 6, boards: int = 4) -> list[list[str]]:
    """The SVGs of ``boards`` boards (a board every 9 actions) of each of ``count`` bot-played games: 2 to 7
    players, both sides, English and Czech."""
    out = []
    for game_no in range(count):
        game = new_game({"players": 2 + game_no % 6, "seed": 100 + game_no, "side": 1 + game_no % 2})
        rng, lang, texts, step = random.Random(game_no), ("en", "cs")[game_no // 2 % 2], [], 0
        while not game.is_over and len(texts) < boards:
            seat = game.waiting_for()[0]
            for action in choose(game, seat, rng):
                game.apply(seat, action)
                if game.is_over:
                    break
            step += 1
            if step % 9 == 0 or game.is_over:
                texts.append(svg.render(game.public_view(), NAMES, lang))
        out.append(texts)
    return out


def largest_difference(png: bytes, other: bytes) -> int:
    """The most any channel of any pixel moves from ``other`` to ``png``."""
    new, old = Image.open(io.BytesIO(png)).convert("RGB"), Image.open(io.BytesIO(other)).convert("RGB")
    assert new.size == old.size
    return max(high for _, high in ImageChops.difference(new, old).getextrema())


def still(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not line.startswith(svg.LIVE))


def test_the_layered_picture_is_resvgs_drawing_of_the_whole_board():
    raster.forget()
    texts = [text for game in games() for text in game]
    assert len(texts) == 24 and len({ET.fromstring(t).get("height") for t in texts}) == 6  # 2 to 7 players
    for text in texts:  # no pixel differs (the golden images' PIXEL_DELTA), however the caches stand
        assert largest_difference(raster.png(text), raster.resvg_png(text)) <= PIXEL_DELTA
    raster.forget()
    assert largest_difference(raster.png(texts[-1]), raster.resvg_png(texts[-1])) <= PIXEL_DELTA  # cold


def test_a_board_drawn_from_the_caches_is_the_board_drawn_cold():
    texts = [text for game in games(3) for text in game]
    raster.forget()
    warm = [raster.png(text) for text in texts]
    for text, picture in zip(texts, warm):
        raster.forget()
        assert raster.png(text) == picture


def test_what_a_game_changes_on_the_board_is_live():
    """The still layer, drawn once a table, is the same for every board of a game; each live line is one element."""
    for game in games():
        assert len({still(text) for text in game}) == 1
        for text in game:
            for line in text.split("\n"):
                if line.startswith(svg.LIVE):
                    ET.fromstring(line)


def test_a_name_with_a_newline_stays_in_its_line():
    text = svg.render(view_of("five-side2-reveal"), {**NAMES, 2: "Petr\nNovák"}, "en")
    assert "Petr&#10;Novák" in text and "Petr\nNovák" not in text
    assert largest_difference(raster.png(text), raster.resvg_png(text)) <= PIXEL_DELTA


def test_a_live_element_that_cannot_be_measured_has_the_board_drawn_whole():
    text = svg.render(view_of("five-side2-reveal"), NAMES, "en")
    odd = text.replace(
        "\n</svg>", f'\n{svg.LIVE}<ellipse cx="500" cy="500" rx="90" ry="40" fill="#d55e00"/></g>\n</svg>'
    )
    raster.forget()
    assert raster.png(odd) == raster.resvg_png(odd) != raster.resvg_png(text)


def test_a_sprite_whose_box_was_told_too_small_has_the_board_drawn_whole(monkeypatch):
    class Narrow:
        def getlength(self, text: str) -> float:
            return 0.0  # every text measured empty: its box is its font size

    monkeypatch.setattr(raster, "_font", lambda bold, size: Narrow())
    text = svg.render(view_of("seven-side1-hunt"), NAMES, "en")
    raster.forget()
    assert raster.png(text) == raster.resvg_png(text)


# ---------------------------------------------------------------------------------------------- replay


def test_replay_draws_the_board_of_a_turn(tmp_path, capsys):
    log = FIXTURES / "caught_on_the_lair.log"
    out = tmp_path / "board.png"
    assert replay_main([str(log), "--board", str(out), "--turn", "1", "--lang", "cs"]) == 0
    image = Image.open(out)
    assert image.format == "PNG" and image.size[0] == raster.WIDTH
    assert '"result"' in capsys.readouterr().out
    assert replay_main([str(log), "--board", str(tmp_path / "no.png"), "--turn", "99"]) == 1
    assert "never reaches turn 99" in capsys.readouterr().out and not (tmp_path / "no.png").exists()
