"""The board as an SVG picture, built from the public view (``game.public_view()``) and nothing else.

    render(view, names, lang) -> str     the SVG text: 1000 px wide, its height grows with the number of Hunted

What is drawn, top to bottom: the turn and phase; the track (the Rescue row of 18 spaces and the Assimilation row
of 12, both ending on the shared star, the board side's Artemia spaces marked with a diamond, each counter as a big
shape on its space); the planet (the ten places in two rows of five, with the reserve left of places 6-10, the
Creature, Target and Artemia tokens once placed, each Hunted's revealed place(s) as numbered discs, and the Beach
marker on the Beach or, hollow, beside it); one row per Hunted (Will as full and empty pips, hand, Survival cards,
discard); the Creature's row (Hunt cards in hand, Hunt cards played this turn); a legend.

The colours are the Okabe–Ito palette (safe for the common colour blindnesses) and never carry meaning alone:
every token and counter also has its own shape and a written label. Words come from gettext and
`service.cardnames`; the font is the DejaVu Sans shipped beside this module (`service.board.raster`). The
picture is a pure function of its arguments, so equal pictures have equal text (the cache keys on it).

One element a line, and what changes during a game (counters, tokens, discs, pips, counts, cards played, the
turn) is *live*: wrapped in ``<g class="live">`` on its own line. The rest depends only on the board side, the
language, the number of players and their names, and no part of it is drawn over a live element, so
`service.board.raster` may draw it once and compose the live elements over it.
"""

import math
from xml.sax.saxutils import escape

from service.cardnames import name, word
from service.i18n import translator
from service.i18n.events import seat_name, to_the_star
from service.i18n.names import cards_text

WIDTH = 1000
MARGIN = 24
FONT = "DejaVu Sans"

# Okabe–Ito colours; each is paired with a shape and a label wherever it appears.
INK = "#1b1b1b"
PAPER = "#f6f3ea"
CARD = "#ffffff"
MUTED = "#6b6b6b"
LINE = "#9a958a"
HUNTED = "#0072b2"  # blue: the Hunted, the Rescue counter (a disc)
CREATURE = "#d55e00"  # vermillion: the Creature, the Assimilation counter (a square), the Creature token
ARTEMIA = "#cc79a7"  # reddish purple: Artemia spaces and the Artemia token (a diamond)
TARGET = "#f0e442"  # yellow: the Target token (a ringed target), the star
MARKER = "#e69f00"  # orange: the Marker counter (a triangle)

RESCUE_SPACES = 18
ASSIMILATION_SPACES = 12
CELL = 48
TRACK_TOP = 76
PLANET_TOP = 300
PLACE_W, PLACE_H, PLACE_GAP = 180, 200, 10
ROW_H = 78
PLAYED_END = WIDTH - MARGIN - 14  # a Hunted's row: the right end of the cards played, the discard left of them

LIVE = '<g class="live">'
NEWLINE = {"\n": "&#10;"}  # a newline in a name stays in its line (drawn the same: SVG drops it either way)

PHASE_WORDS = {"explore": "phase1", "hunt": "phase2", "prereveal": "phase2", "reckoning": "phase3", "end": "phase4"}


def _text(
    x: float, y: float, text: str, size: int = 22, weight: str = "normal", fill: str = INK, anchor: str = "start"
) -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" font-weight="{weight}" fill="{fill}" '
        f'text-anchor="{anchor}">{escape(text, NEWLINE)}</text>'
    )


def _live(part: str) -> str:
    """``part`` (one element, on one line) marked as changing during a game: drawn over the still layer."""
    return f"{LIVE}{part}</g>"


def _width(text: str, size: int, bold: bool = False) -> float:
    """An estimate of the drawn width of ``text`` in DejaVu Sans (good enough to wrap and to fit labels)."""
    return len(text) * size * (0.64 if bold else 0.56)


def _fit(text: str, size: int, room: float, bold: bool = False) -> str:
    """``text`` cut with an ellipsis so that it fits ``room`` pixels."""
    if _width(text, size, bold) <= room:
        return text
    keep = max(1, int(room / (size * (0.64 if bold else 0.56))) - 1)
    return text[:keep].rstrip() + "…"


def _wrap(text: str, size: int, room: float, bold: bool = False) -> list[str]:
    """At most two lines of ``text`` (the second cut to fit)."""
    if _width(text, size, bold) <= room or " " not in text:
        return [_fit(text, size, room, bold)]
    words = text.split(" ")
    first = words[0]
    for i in range(1, len(words)):
        if _width(" ".join(words[: i + 1]), size, bold) > room:
            first = " ".join(words[:i])
            return [first, _fit(" ".join(words[i:]), size, room, bold)]
    return [text]


# ---------------------------------------------------------------------------------------------- shapes


def disc(x: float, y: float, r: float, fill: str, label: str = "", size: int = 18) -> str:
    out = f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{r:.0f}" fill="{fill}" stroke="{INK}" stroke-width="2"/>'
    if label:
        out += _text(x, y + size * 0.36, label, size, "bold", "#ffffff", "middle")
    return out


def square(x: float, y: float, half: float, fill: str, label: str = "", size: int = 18) -> str:
    out = (
        f'<rect x="{x - half:.0f}" y="{y - half:.0f}" width="{2 * half:.0f}" height="{2 * half:.0f}" rx="4" '
        f'fill="{fill}" stroke="{INK}" stroke-width="2"/>'
    )
    if label:
        out += _text(x, y + size * 0.36, label, size, "bold", "#ffffff", "middle")
    return out


def diamond(x: float, y: float, r: float, fill: str, stroke: str = INK) -> str:
    points = f"{x:.0f},{y - r:.0f} {x + r:.0f},{y:.0f} {x:.0f},{y + r:.0f} {x - r:.0f},{y:.0f}"
    return f'<polygon points="{points}" fill="{fill}" stroke="{stroke}" stroke-width="2"/>'


def triangle(x: float, y: float, r: float, fill: str) -> str:
    points = f"{x:.0f},{y - r:.0f} {x + r:.0f},{y + r * 0.8:.0f} {x - r:.0f},{y + r * 0.8:.0f}"
    return f'<polygon points="{points}" fill="{fill}" stroke="{INK}" stroke-width="2"/>'


def ring(x: float, y: float, r: float, colour: str, label: str = "", size: int = 18) -> str:
    """The Rescue counter: a thick ring with its number inside (the Hunted's discs are solid)."""
    out = (
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{r:.0f}" fill="#ffffff" stroke="{colour}" stroke-width="6"/>'
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{r + 3:.0f}" fill="none" stroke="{INK}" stroke-width="1.5"/>'
    )
    if label:
        out += _text(x, y + size * 0.36, label, size, "bold", colour, "middle")
    return out


def target(x: float, y: float, r: float) -> str:
    return (
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{r:.0f}" fill="{TARGET}" stroke="{INK}" stroke-width="2"/>'
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{r * 0.6:.0f}" fill="none" stroke="{INK}" stroke-width="2"/>'
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{r * 0.22:.0f}" fill="{INK}"/>'
    )


def star(x: float, y: float, r: float) -> str:
    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.45
        angle = math.pi / 2 + i * math.pi / 5
        points.append(f"{x + radius * math.cos(angle):.0f},{y - radius * math.sin(angle):.0f}")
    return f'<polygon points="{" ".join(points)}" fill="{TARGET}" stroke="{INK}" stroke-width="3"/>'


def token(kind: str, x: float, y: float, r: float = 15) -> str:
    """A Hunt token's shape: Creature a vermillion disc, Target a ringed yellow target, Artemia a purple diamond."""
    if kind == "creature":
        return disc(x, y, r, CREATURE)
    if kind == "target":
        return target(x, y, r)
    return diamond(x, y, r + 3, ARTEMIA)


# ---------------------------------------------------------------------------------------------- parts


def _header(view: dict, lang: str) -> list[str]:
    _ = translator(lang).gettext
    window = view.get("window")
    title = _("Turn {n}").format(n=view["turn"])
    if window and window["kind"] in PHASE_WORDS:
        title += " · " + word(PHASE_WORDS[window["kind"]], lang)
    out = [_live(_text(MARGIN, 46, title, 34, "bold"))]
    if view.get("side"):
        out.append(
            _text(WIDTH - MARGIN, 46, _("Board side {side}").format(side=view["side"]), 24, "normal", MUTED, "end")
        )
    if view.get("winner"):
        won = _("The Hunted win!") if view["winner"] == "hunted" else _("The Creature wins!")
        colour = HUNTED if view["winner"] == "hunted" else CREATURE
        out.append(_live(_text(WIDTH / 2, 46, won, 30, "bold", colour, "middle")))
    return out


def _space_x(distance: int) -> float:
    """The left edge of the track space ``distance`` spaces before the star (both rows share the columns)."""
    return MARGIN + (RESCUE_SPACES - distance) * CELL


def _track(view: dict, lang: str) -> list[str]:
    _ = translator(lang).gettext
    rescue, assimilation = view["rescue"], view["assimilation"]
    artemia = set(view.get("artemia_spaces") or [])
    top = TRACK_TOP
    rescue_y, assim_y = top + 40, top + 40 + CELL + 16
    out = [
        _live(
            _text(
                MARGIN,
                top + 28,
                _("Rescue:") + " " + to_the_star(rescue, lang),
                24,
                "bold",
                HUNTED,
            )
        )
    ]
    for d in range(1, RESCUE_SPACES + 1):
        x = _space_x(d)
        fill = "#f3dcea" if d in artemia else CARD
        out.append(
            f'<rect x="{x + 2}" y="{rescue_y}" width="{CELL - 4}" height="{CELL}" rx="6" fill="{fill}" '
            f'stroke="{LINE}" stroke-width="2"/>'
        )
        if d in artemia:
            out.append(diamond(x + CELL / 2, rescue_y + 14, 9, ARTEMIA))
        out.append(_text(x + CELL / 2, rescue_y + CELL - 7, str(d), 17, "normal", MUTED, "middle"))
    for d in range(1, ASSIMILATION_SPACES + 1):
        x = _space_x(d)
        out.append(
            f'<rect x="{x + 2}" y="{assim_y}" width="{CELL - 4}" height="{CELL}" rx="6" fill="{CARD}" '
            f'stroke="{LINE}" stroke-width="2"/>'
        )
        out.append(_text(x + CELL / 2, assim_y + CELL / 2 + 6, str(d), 17, "normal", MUTED, "middle"))
    star_x = _space_x(0) + 50
    out.append(star(star_x, (rescue_y + assim_y + CELL) / 2, 46))
    if 0 < rescue <= RESCUE_SPACES:
        out.append(
            _live(
                f'<g id="rescue-counter" data-distance="{rescue}">'
                + ring(_space_x(rescue) + CELL / 2, rescue_y + CELL / 2, 24, HUNTED, str(rescue), 20)
                + "</g>"
            )
        )
    if 0 < assimilation <= ASSIMILATION_SPACES:
        out.append(
            _live(
                f'<g id="assimilation-counter" data-distance="{assimilation}">'
                + square(_space_x(assimilation) + CELL / 2, assim_y + CELL / 2, 24, CREATURE, str(assimilation), 20)
                + "</g>"
            )
        )
    label = to_the_star(assimilation, lang)
    out.append(_text(MARGIN, assim_y + 20, _("Assimilation:"), 20, "bold", CREATURE))
    out.append(
        _live(
            _text(
                MARGIN,
                assim_y + 44,
                _fit(label, 20, _space_x(ASSIMILATION_SPACES) - MARGIN - 8, True),
                20,
                "bold",
                CREATURE,
            )
        )
    )
    if artemia:
        y = assim_y + CELL + 34
        out.append(diamond(MARGIN + 10, y - 7, 10, ARTEMIA))
        out.append(
            _text(
                MARGIN + 30,
                y,
                _("Artemia space: while Rescue stands on one, the Creature may use its Artemia token."),
                18,
                "normal",
                INK,
            )
        )
    return out


def _place_origin(place: int) -> tuple[float, float]:
    row, col = divmod(place - 1, 5)
    return MARGIN + col * (PLACE_W + PLACE_GAP) + 1, PLANET_TOP + row * (PLACE_H + PLACE_GAP)


def _places(view: dict, names: dict[int, str], lang: str) -> list[str]:
    _ = translator(lang).gettext
    out = []
    tokens: dict[str, list[int]] = view.get("tokens") or {}
    revealed: dict[int, list[int]] = {}
    for h in view["hunted"]:
        if isinstance(h["played"], list):
            for place in h["played"]:
                revealed.setdefault(place, []).append(h["seat"])
    reserve = view.get("reserve") or {}
    for place in range(1, 11):
        x, y = _place_origin(place)
        out.append(
            f'<g id="place-{place}"><rect x="{x:.0f}" y="{y:.0f}" width="{PLACE_W}" height="{PLACE_H}" rx="12" '
            f'fill="{CARD}" stroke="{INK}" stroke-width="2"/>'
        )
        out.append(_text(x + 12, y + 42, str(place), 36, "bold"))
        left = x + 12 + _width(str(place), 36, True) + 10
        lines = _wrap(name(place, lang), 20, x + PLACE_W - 8 - left, True)
        for i, line in enumerate(lines):
            out.append(_text(left, y + 30 + i * 24, line, 20, "bold"))
        if str(place) in reserve:
            left = reserve[str(place)]
            out.append(
                _live(
                    _text(
                        x + 12,
                        y + PLACE_H - 12,
                        _("Reserve: {n}").format(n=left) if left else _("Reserve: none"),
                        17,
                        "normal",
                        MUTED,
                    )
                )
            )
        row_y = y + 88
        for kind in ("creature", "target", "artemia"):
            if place in tokens.get(kind, []):
                out.append(_live(f'<g class="token" data-token="{kind}">' + token(kind, x + 26, row_y) + "</g>"))
                label = _fit(_token_word(kind, lang), 19, PLACE_W - 56, True)
                out.append(_live(_text(x + 48, row_y + 7, label, 19, "bold")))
                row_y += 34
        if place == 4 and view.get("marker_on_beach"):
            out.append(_live('<g id="marker" data-on-beach="1">' + triangle(x + 26, row_y, 14, MARKER) + "</g>"))
            out.append(_live(_text(x + 48, row_y + 7, _fit(_("Marker"), 19, PLACE_W - 56, True), 19, "bold")))
            row_y += 34
        seats = revealed.get(place, [])
        for i, seat in enumerate(seats):
            col, rank = i % 5, i // 5
            cx, cy = x + 22 + col * 34, max(row_y, y + 120) + rank * 34 + 8
            out.append(
                _live(f'<g class="revealed" data-seat="{seat}">' + disc(cx, cy, 15, HUNTED, str(seat), 18) + "</g>")
            )
        if place == 4 and not view.get("marker_on_beach"):  # beside the Beach: a hollow marker, said in words
            out.append(
                _live('<g id="marker" data-on-beach="0">' + triangle(x + 22, y + PLACE_H - 18, 10, CARD) + "</g>")
            )
            out.append(
                _live(
                    _text(x + 36, y + PLACE_H - 12, _fit(_("Marker: not here"), 15, PLACE_W - 40), 15, "normal", MUTED)
                )
            )
        out.append("</g>")
    return out


def _token_word(kind: str, lang: str) -> str:
    """A token's short name, as written beside it on a place."""
    _ = translator(lang).gettext
    return {"creature": word("creature", lang), "target": _("Target"), "artemia": _("Artemia")}[kind]


def _hunted_rows(view: dict, names: dict[int, str], lang: str, top: float) -> list[str]:
    _ = translator(lang).gettext
    out = [_text(MARGIN, top + 26, word("hunted", lang), 26, "bold", HUNTED)]
    y = top + 40
    for h in view["hunted"]:
        seat = h["seat"]
        out.append(f'<g class="hunted" data-seat="{seat}">')
        out.append(
            f'<rect x="{MARGIN}" y="{y:.0f}" width="{WIDTH - 2 * MARGIN}" height="{ROW_H - 8}" rx="10" fill="{CARD}" '
            f'stroke="{LINE}" stroke-width="2"/>'
        )
        out.append(disc(MARGIN + 32, y + 35, 20, HUNTED, str(seat), 22))
        out.append(_text(MARGIN + 64, y + 31, _fit(seat_name(names, seat, lang), 24, 250, True), 24, "bold"))
        will_x = MARGIN + 64
        out.append(_text(will_x, y + 60, _("Will"), 18, "normal", MUTED))
        for i in range(3):
            cx = will_x + _width(_("Will"), 18) + 18 + i * 26
            full = i < h["will"]
            out.append(
                _live(
                    f'<circle cx="{cx:.0f}" cy="{y + 54:.0f}" r="10" fill="{HUNTED if full else CARD}" '
                    f'stroke="{HUNTED}" stroke-width="3"/>'
                )
            )
        info_x = MARGIN + 330
        hand = _("Places in hand: {n}").format(n=h["hand"]) + " · " + _("Survival cards: {n}").format(n=h["survival"])
        out.append(_live(_text(info_x, y + 31, hand, 20)))
        played = h["played"]
        if isinstance(played, list) and played:  # (none yet, or none since the turn ended: no label)
            shown = _("Played: {cards}").format(cards=cards_text(played, lang))
            if len(played) > 1 and _width(shown, 20, True) > 300:  # their numbers (the discs on the planet)
                shown = _("Played: {cards}").format(cards=", ".join(map(str, played)))
        elif isinstance(played, int) and played:
            shown = _("Played: {n} face down").format(n=played)
        else:
            shown = ""
        shown = _fit(shown, 20, 340, True)
        room = PLAYED_END - info_x - (_width(shown, 20, True) + 24 if shown else 0)
        out.append(
            _live(_text(info_x, y + 60, _fit(_discard_line(h["discard"], lang, room), 20, room), 20, "normal", MUTED))
        )
        if shown:
            out.append(_live(_text(PLAYED_END, y + 60, shown, 20, "bold", HUNTED, "end")))
        out.append("</g>")
        y += ROW_H
    return out


def _discard_line(discard: list[int] | None, lang: str, room: float) -> str:
    """A Hunted's discard pile in ``room`` pixels: the cards by name ("Discard: 4 Beach, 7 Shelter"), else their
    count and numbers ("Discard: 3 cards (10, 4, 5)"), else their count. Never bare numbers: beside "Places in
    hand: 4" they read as counts."""
    t = translator(lang)
    if discard is None:
        return t.gettext("Discard: hidden")
    if not discard:
        return t.gettext("Discard: empty")
    named = t.gettext("Discard: {cards}").format(cards=cards_text(discard, lang))
    if _width(named, 20) <= room:
        return named
    count = t.ngettext("Discard: {n} card", "Discard: {n} cards", len(discard)).format(n=len(discard))
    numbered = f"{count} ({', '.join(map(str, discard))})"
    return numbered if _width(numbered, 20) <= room else count


def _creature_row(view: dict, names: dict[int, str], lang: str, top: float) -> list[str]:
    _ = translator(lang).gettext
    out = [
        f'<rect x="{MARGIN}" y="{top:.0f}" width="{WIDTH - 2 * MARGIN}" height="96" rx="10" fill="{CARD}" '
        f'stroke="{CREATURE}" stroke-width="3"/>',
        disc(MARGIN + 32, top + 34, 20, CREATURE),
        _text(MARGIN + 64, top + 40, _fit(seat_name(names, 0, lang), 24, 250, True), 24, "bold", CREATURE),
        _live(_text(MARGIN + 330, top + 40, _("Hunt cards in hand: {n}").format(n=view["creature"]["hunt_cards"]), 20)),
    ]
    played = [name(entry.get("card", ""), lang) for entry in view.get("hunt_cards_played") or []]
    line = _("Hunt cards this turn: {cards}").format(cards=", ".join(played)) if played else _("No Hunt card this turn")
    out.append(_live(_text(MARGIN + 64, top + 76, _fit(line, 20, WIDTH - 2 * MARGIN - 80), 20, "normal", INK)))
    return out


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _legend(lang: str, top: float) -> list[str]:
    _ = translator(lang).gettext
    items = [
        (ring(0, 0, 12, HUNTED), _capital(word("rescue", lang))),
        (square(0, 0, 12, CREATURE), _capital(word("assimilation", lang))),
        (disc(0, 0, 13, HUNTED, "1", 15), _("Hunted 1, on the place revealed")),
        (token("creature", 0, 0, 12), _capital(word("creature_token", lang))),
        (target(0, 0, 12), _capital(word("target_token", lang))),
        (diamond(0, 0, 13, ARTEMIA), _capital(word("artemia_token", lang))),
        (triangle(0, 0, 12, MARKER), _capital(word("marker", lang))),
    ]
    out, x, y = [], float(MARGIN + 14), top + 22
    for shape, label in items:
        room = 30 + _width(label, 17)
        if x + room > WIDTH - MARGIN:
            x, y = MARGIN + 14, y + 34
        out.append(f'<g transform="translate({x:.0f},{y:.0f})">{shape}</g>')
        out.append(_text(x + 20, y + 6, label, 17, "normal", INK))
        x += room + 24
    return out


def height(view: dict) -> int:
    """The picture's height: it grows with the number of Hunted rows."""
    return int(PLANET_TOP + 2 * PLACE_H + PLACE_GAP + 24 + 40 + ROW_H * len(view["hunted"]) + 16 + 96 + 86)


def render(view: dict, names: dict[int, str] | None = None, lang: str = "en") -> str:
    """The board of ``view`` (a public view) as SVG text, its words in ``lang`` and the players' ``names``."""
    names = names or {}
    tall = height(view)
    hunted_top = PLANET_TOP + 2 * PLACE_H + PLACE_GAP + 24
    creature_top = hunted_top + 40 + ROW_H * len(view["hunted"]) + 16
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{tall}" viewBox="0 0 {WIDTH} {tall}" '
        f'font-family="{FONT}">',
        f'<rect width="{WIDTH}" height="{tall}" fill="{PAPER}"/>',
        *_header(view, lang),
        *_track(view, lang),
        *_places(view, names, lang),
        *_hunted_rows(view, names, lang, hunted_top),
        *_creature_row(view, names, lang, creature_top),
        *_legend(lang, creature_top + 96 + 8),
        "</svg>",
    ]
    return "\n".join(parts)
