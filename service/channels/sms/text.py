"""What an SMS says, and what it costs: GSM-7 / UCS-2 segments, the ASCII-only setting, and the game texts.

Costs. A message whose characters are all in the GSM 03.38 alphabet is sent as GSM-7: 160 septets in one
segment, 153 a segment when concatenated, the extension table (``^{}\\[~]|€`` and form feed) counting two and
never split across segments. Any other character (Czech ř, š, ů… or typographic quotes and dashes) makes the
whole message UCS-2: 70 UTF-16 units in one segment, 67 when concatenated. So every text is first made
GSM-friendly in its punctuation (`gsm_punctuation`, always) and, for a player who chose the ASCII-only
setting, stripped of diacritics (`ascii_only`): Czech then costs what English costs. By default (`outgoing`) a
text keeps its diacritics unless dropping them saves a segment.

Texts. Every SMS stands on its own: it starts with the game code, says what is asked and the legal choices
(the compact summary of `service.commands.writing`), and ends with the deadline as an absolute local time with its
time zone. What happened since the last message (places revealed, who was caught, the counters) is added
when it still fits in `TARGET_SEGMENTS`; the question itself is never cut.
"""

import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from babel.dates import format_datetime

from service.commands.words import MESSAGES
from service.commands.writing import describe, summary
from service.i18n import N_, translator
from service.i18n.clock import clock_time, zone_name

GSM_BASIC = set(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿"
    "abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM_EXTENDED = set("^{}\\[~]|€\f")
SINGLE = {"GSM-7": 160, "UCS-2": 70}
PART = {"GSM-7": 153, "UCS-2": 67}
TARGET_SEGMENTS = 2

# Typographic characters our texts use, as the GSM characters that look the same.
PUNCTUATION = str.maketrans(
    {
        "„": '"',
        "“": '"',
        "”": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "–": "-",
        "—": "-",
        "…": "...",
        "·": "-",
        "\u00a0": " ",
        "→": "->",
        "×": "x",
        "|": "/",
    }
)


@dataclass(frozen=True)
class Cost:
    encoding: str  # "GSM-7" | "UCS-2"
    units: int  # septets (GSM-7) or UTF-16 code units (UCS-2)
    segments: int


def _units(ch: str, encoding: str) -> int:
    if encoding == "GSM-7":
        return 2 if ch in GSM_EXTENDED else 1
    return 2 if ord(ch) > 0xFFFF else 1


def cost(text: str) -> Cost:
    """The encoding and number of segments ``text`` is sent as (characters are never split over segments)."""
    encoding = "GSM-7" if all(ch in GSM_BASIC or ch in GSM_EXTENDED for ch in text) else "UCS-2"
    sizes = [_units(ch, encoding) for ch in text]
    total = sum(sizes)
    if total <= SINGLE[encoding]:
        return Cost(encoding, total, 1 if text else 0)
    segments, room = 1, PART[encoding]
    for size in sizes:
        if size > room:
            segments, room = segments + 1, PART[encoding]
        room -= size
    return Cost(encoding, total, segments)


def room(text: str) -> int:
    """How many more units (septets or UTF-16 units, as ``text`` is sent) fit in the segments it takes already."""
    sent = cost(text)
    capacity = SINGLE[sent.encoding] if sent.segments <= 1 else PART[sent.encoding] * sent.segments
    return max(0, capacity - sent.units)


def gsm_punctuation(text: str) -> str:
    """Typographic quotes, dashes, dots and bars as plain GSM characters (letters are left alone)."""
    return text.translate(PUNCTUATION)


def ascii_only(text: str) -> str:
    """Diacritics stripped ("Řeka" -> "Reka"); any other character outside ASCII becomes "?"."""
    plain = unicodedata.normalize("NFKD", gsm_punctuation(text))
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    return "".join(ch if ch.isascii() else "?" for ch in plain)


def prepare(text: str, ascii: bool) -> str:
    """The text as it goes out for a player with (or without) the ASCII-only setting."""
    return ascii_only(text) if ascii else gsm_punctuation(text)


def outgoing(text: str, ascii: bool, accents: bool) -> str:
    """The body an SMS is sent with. ``ascii`` (ASCII ON): without diacritics. ``accents`` (ASCII OFF): with them.
    Neither said (the default): with them, unless the text without them takes fewer segments — a Czech letter
    with a diacritic makes the whole SMS UCS-2, 70 characters a segment instead of 160, and Czech is commonly
    texted without them. Only diacritics are dropped: a text with any other character outside GSM keeps its
    accents (it costs UCS-2 anyway)."""
    if ascii:
        return ascii_only(text)
    kept = gsm_punctuation(text)
    if accents:
        return kept
    plain = unicodedata.normalize("NFKD", kept)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    if not plain.isascii() or cost(plain).segments >= cost(kept).segments:
        return kept
    return plain


# ---------------------------------------------------------------------------------------------- the game texts

WORDS = {  # key -> message (English, translated in the catalogues): short, an SMS has little room
    "turn": N_("T{n}"),
    "by": N_("By {when}."),
    "waiting": N_("Nothing to answer now."),
    "noted": N_("{actions} noted"),
    "seat": N_("p{n}"),
    "creature": N_("Creature"),
    "hunted": N_("Hunted"),
    "revealed": N_("Places: {items}."),
    "tokens": N_("Tokens: {items}."),
    "caught": N_("Caught: {items}."),
    "will": N_("Will: {items}."),
    "rescue": N_("Rescue {n}"),
    "assimilation": N_("Assim. {n}"),
    "over": N_("Game over: {winner} won."),
    "token_creature": N_("C{places}"),
    "token_target": N_("T{places}"),
    "token_artemia": N_("A{places}"),
}
PHASES = {"setup", "explore", "hunt", "prereveal", "reckoning", "end"}  # named as the command language names them


def _w(key: str, lang: str, **params) -> str:
    return translator(lang).gettext(WORDS[key]).format(**params)


def _seat(seat: int, lang: str) -> str:
    return _w("creature", lang) if seat == 0 else _w("seat", lang, n=seat)


def deadline_text(ts: float, tz: str, lang: str, precise: bool = False) -> str:
    """An absolute local time with its zone: "Tue 18:05 CET" / "út 18:05 SEČ" ("18:05:30" when ``precise``: a
    step shorter than 10 minutes)."""
    local = datetime.fromtimestamp(ts, UTC).astimezone(ZoneInfo(tz))
    return f"{format_datetime(local, 'EEE', locale=lang)} {clock_time(local, precise)} {zone_name(local, lang)}"


def news(events: list[dict], seat: int, lang: str) -> str:
    """What the seat may see of the key results of a step, in one compact line ("" when nothing notable)."""
    revealed, tokens, caught, will, counters, over = [], [], [], {}, {}, None
    for event in events:
        if event.get("visible_to") is not None and seat not in event["visible_to"]:
            continue
        kind = event["type"]
        if kind == "reveal":
            revealed = [f"{_seat(int(s), lang)} {'+'.join(map(str, p))}" for s, p in sorted(event["played"].items())]
        elif kind == "tokens":
            tokens = [_w("token_" + t, lang, places="+".join(map(str, ps))) for t, ps in event["tokens"].items() if ps]
        elif kind == "caught":
            caught.append(f"{_seat(event['seat'], lang)}@{event['place']}")
        elif kind == "will":
            will[event["seat"]] = event["will"]
        elif kind == "counter":
            counters[event["counter"]] = event["distance"]
        elif kind == "game_over":
            over = event["winner"]
    parts = []
    if revealed:
        parts.append(_w("revealed", lang, items=", ".join(revealed)))
    if tokens:
        parts.append(_w("tokens", lang, items=" ".join(tokens)))
    if caught:
        parts.append(_w("caught", lang, items=", ".join(caught)))
    if will:
        parts.append(_w("will", lang, items=", ".join(f"{_seat(s, lang)} {n}" for s, n in sorted(will.items()))))
    if counters:
        parts.append(" ".join(_w(c, lang, n=n) for c, n in sorted(counters.items(), reverse=True)) + ".")
    if over:
        parts.append(_w("over", lang, winner=_w(over, lang)))
    return " ".join(parts)


def head(code: str, game, lang: str) -> str:
    """What every SMS of a game starts with: its code and the turn ("K7QX T3")."""
    return f"{code} {_w('turn', lang, n=game.turn)}"


def question(
    code: str, game, seat: int, deadline: float, lang: str, tz: str, precise: bool = False, noted: str = ""
) -> str:
    """The standalone question: "ABCD T3 Exploration: play 1-5; resist 2 of 1, 4, 5 (1 Will). By Tue 18:05 CET."
    (``noted``: what the seat answered already in this window, named after the phase: "…Exploration, resist 4
    noted: play 1-5. …")."""
    if game.is_over:
        return head(code, game, lang)
    choices = "; ".join(summary(game, seat, lang))
    kind = game.window["kind"]
    phase = translator(lang).gettext(MESSAGES[kind]) if kind in PHASES else ""
    if noted:
        phase += ", " + _w("noted", lang, actions=noted)
    if not choices:
        return f"{head(code, game, lang)} {phase}: {_w('waiting', lang)}"
    by = _w("by", lang, when=deadline_text(deadline, tz, lang, precise))
    return f"{head(code, game, lang)} {phase}: {choices}. {by}"


def rest(
    code: str, game, seat: int, actions: list[dict], deadline: float, lang: str, tz: str, precise: bool = False
) -> str:
    """The reply to the first part of an answer (held until the rest comes): what was noted, and the rest of the
    question, where ``game`` is the game as those actions leave it."""
    noted = ", ".join(describe(action, lang) for action in actions)
    return question(code, game, seat, deadline, lang, tz, precise, noted)


def compose(required: str, optional: list[str], ascii: bool, limit: int = TARGET_SEGMENTS) -> str:
    """``required`` followed by as many of the ``optional`` parts (in order) as keep it within ``limit``
    segments, prepared for the player's setting. The required part is never cut."""
    text = prepare(required, ascii)
    for part in optional:
        if not part:
            continue
        longer = f"{text} {prepare(part, ascii)}"
        if cost(longer).segments <= max(limit, cost(text).segments):
            text = longer
    return text


def step_text(
    code: str,
    game,
    seat: int,
    events: list[dict],
    deadline: float,
    lang: str,
    tz: str,
    ascii: bool,
    precise: bool = False,
) -> str:
    """The one SMS a seat gets after a step: the question, then the news if it fits."""
    said = news(events, seat, lang)
    if game.is_over:
        return compose(f"{head(code, game, lang)} {said}".strip(), [], ascii)
    return compose(question(code, game, seat, deadline, lang, tz, precise), [said], ascii)
