"""Whole games in one language at a mixed table: two SMS players (the fake Twilio) and two Telegram players (the
fake Bot API, which receives everything the workers send to Telegram), at a table opened in a Telegram group.
Everything every player receives — the webhooks' replies (TwiML answers, the Bot API methods in the webhook's
HTTP reply, button answers), the SMS sent, the Telegram messages sent and edited, their buttons — is checked
line by line: a Czech game has no English line and an English game no Czech one.

The games include the replies a player gets besides "locked in": an incomplete answer, a command not
understood, the help, the status, a button of a window that is over, an answer after the game ended.

How a line is judged (strict, but never on words both languages share — the game's name, the card names that
are the same in both, the players' names, commands such as /join, the carrier keywords STOP, START):
English is a common English word (`ENGLISH_WORDS`), an English name of a card that has a Czech one, or a
phrase of an English message of the catalogues (or of the command language's table) that its Czech differs
from; Czech is a Czech letter with a diacritic, a common Czech word, a Czech card name, or a phrase of a Czech
translation.
"""

import io
import json
import random
import re

import pytest
from fake_twilio import FakeTwilio
from fake_twilio import serve as serve_twilio
from sms_support import world_of

from service import cardnames, cardtexts
from service.commands.writing import describe
from service.game import Game
from service.game.bots import choose
from service.i18n import compile as catalogues
from service.pipeline import upkeep
from tests.telegram_support import api, server  # noqa: F401 - fixtures

SMS_A, SMS_B = "+447700000021", "+447700000022"
TG_A, TG_B = 611, 612
NAMES = {TG_A: "Cyril", TG_B: "Dana"}
GROUP = {"id": -100911, "type": "supergroup", "title": "Ctvrtek"}

# ---------------------------------------------------------------------------------------------- judging a line

ENGLISH_WORDS = {
    "the",
    "you",
    "your",
    "are",
    "and",
    "for",
    "with",
    "has",
    "have",
    "been",
    "was",
    "were",
    "waiting",
    "wait",
    "locked",
    "answer",
    "answers",
    "answered",
    "turn",
    "game",
    "games",
    "player",
    "players",
    "choose",
    "place",
    "places",
    "card",
    "cards",
    "now",
    "won",
    "over",
    "not",
    "this",
    "that",
    "step",
    "expired",
    "allowed",
    "complete",
    "creature",
    "hunted",
    "reminder",
    "rescue",
    "assimilation",
    "tokens",
    "token",
    "caught",
    "hunting",
    "exploration",
    "reckoning",
    "begins",
    "play",
    "resist",
    "pass",
    "keep",
    "discard",
    "take",
    "hand",
    "will",
    "yes",
    "when",
    "what",
    "which",
    "here",
    "there",
    "nothing",
    "everyone",
    "already",
    "only",
    "join",
    "joined",
    "opened",
    "open",
    "starts",
    "start",
    "left",
    "too",
    "late",
    "possible",
    "understood",
    "record",
    "move",
    "moves",
    "may",
    "need",
    "needs",
    "still",
    "yet",
    "got",
    "one",
    "until",
    "after",
    "before",
    "reveal",
    "setup",
    "side",
    "board",
    "counter",
    "marker",
    "beach",
    "spaces",
    "survival",
    "power",
    "show",
    "back",
    "by",
    "of",
    "is",
    "help",
    "send",
    "daily",
    "fast",
    "live",
    "seconds",
    "minutes",
    "hours",
    "time",
    "ran",
    "out",
    "played",
    "deadline",
    "deadlines",
    "missed",
    "row",
    "again",
    "cancelled",
    "return",
    "draw",
    "pile",
    "instead",
    "adjacent",
    "hunt",
    "phase",
    "each",
    "every",
    "sets",
    "happened",
    "language",
    "expert",
    "variant",
    "zone",
}
CZECH_WORDS = {
    "jsi",
    "hra",
    "hry",
    "hru",
    "hraj",
    "kolo",
    "kola",
    "nic",
    "ted",
    "muzes",
    "ceka",
    "neni",
    "tah",
    "tahu",
    "zaznamenano",
    "bytost",
    "loveni",
    "zetony",
    "lokace",
    "vzdoruj",
    "odpovez",
    "hrac",
    "hraci",
    "nebo",
    "jen",
    "uz",
    "hraje",
    "hrajes",
    "skoncila",
    "konec",
    "pruzkum",
    "lov",
    "vule",
    "zachrana",
    "nerozumim",
    "otazka",
    "napis",
    "jeste",
    "nemas",
    "neplati",
    "volba",
    "zacina",
    "denne",
    "rychle",
    "sekund",
    "minut",
    "hodin",
    "kazdy",
    "karty",
    "karta",
    "odkladaciho",
    "balicku",
}
_LETTERS = re.compile(r"[^\W\d_]+")
# links, the settings' command syntax (keywords of both languages), /commands, mentions, button data
_NOT_WORDS = re.compile(r"https?://\S+|/settings .*|/\w+(?:@\w+)?|@\w+|d:\S+")
_DIACRITICS = re.compile(r"[áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ]")
_PLACEHOLDER = re.compile(r"\{[^}]*\}")
# The short forms of each language (SMS, typed commands): the turn after the game's code, a seat, the deadline.
EN_SHORT = re.compile(r"^[A-Z0-9]{4} T\d+\b|\bp\d\b|\bBy \w+ \d\d:\d\d")
CS_SHORT = re.compile(r"^[A-Z0-9]{4} K\d+\b|\bh\d\b|\bDo \w+ \d\d:\d\d")
SHARED = {"Artemia", "Not Alone", "SMS", "STOP", "START", "ASCII", "ON", "OK", "EN", "CS", "UTC", "CET", "CEST"}


def _fold(text: str) -> str:
    return cardnames.fold(text)


def _phrases(message: str) -> list[str]:
    """The fixed parts of a message worth looking for: at least two words, at least 10 characters."""
    out = []
    for part in _PLACEHOLDER.split(message):
        for piece in re.split(r"[\n;:()]", part):
            piece = piece.strip(" .,!?—-'\"„“")
            if len(piece) >= 10 and len(_LETTERS.findall(piece)) >= 2:
                out.append(piece)
    return out


def _messages() -> list[tuple[str, str]]:
    """(English, Czech) of every message of the catalogues (the command language's table included)."""
    with catalogues.po_path("cs").open("rb") as f:
        catalog = catalogues.read_po(f, locale="cs")
    pairs = []
    for m in catalog:
        if not m.id:
            continue
        ids, strings = (m.id, m.string) if isinstance(m.id, tuple) else ((m.id,), (m.string,))
        pairs += [(en, cs) for en in ids for cs in strings]
    return pairs


def _card_names() -> list[tuple[str, str]]:
    return [(cardnames.name(key, "en"), cardnames.name(key, "cs")) for key in cardnames._NAMES]


def _build() -> tuple[set[str], set[str], set[str], set[str]]:
    en_phrases, cs_phrases, en_names, cs_names = set(), set(), set(), set()
    for en, cs in _messages():
        if _fold(en) == _fold(cs):
            continue
        cs_fixed = " ".join(_phrases(cs))
        en_phrases |= {p for p in _phrases(en) if p not in cs_fixed}
        en_fixed = " ".join(_phrases(en))
        cs_phrases |= {p for p in _phrases(cs) if p not in en_fixed}
    for en, cs in _card_names():
        if _fold(en) != _fold(cs):
            en_names.add(en)
            cs_names.add(cs)
    return en_phrases, cs_phrases, en_names, cs_names


EN_PHRASES, CS_PHRASES, EN_NAMES, CS_NAMES = _build()


def _clean(text: str) -> str:
    text = _NOT_WORDS.sub(" ", text)
    for word in SHARED:
        text = re.sub(rf"\b{re.escape(word)}\b", " ", text)
    return text


def english_in(text: str) -> list[str]:
    """What makes ``text`` (a line a Czech player got) English, if anything."""
    short = EN_SHORT.findall(text)
    text = _clean(text)
    words = _LETTERS.findall(text)
    found = short + [w for w in words if w.lower() in ENGLISH_WORDS]
    found += [n for n in EN_NAMES if re.search(rf"\b{re.escape(n)}\b", text)]
    found += [p for p in EN_PHRASES if p in text]
    return found


def czech_in(text: str) -> list[str]:
    """What makes ``text`` (a line an English player got) Czech, if anything."""
    short = CS_SHORT.findall(text)
    text = _clean(text)
    found = short + _DIACRITICS.findall(text)
    found += [w for w in _LETTERS.findall(text) if _fold(w) in CZECH_WORDS]
    found += [n for n in CS_NAMES if re.search(rf"\b{re.escape(n)}\b", text)]
    found += [p for p in CS_PHRASES if p in text]
    return found


def test_the_judge_knows_both_languages():
    assert english_in("Locked in: play 3 (River) — waiting for 1 more answer.")
    assert english_in("ABCD: Not complete yet, you still need to answer: hraj 1-5")
    assert english_in("Zaznamenáno: hraj 3 (River).")  # an English card name
    assert english_in("ABCD K1 Průzkum: hraj 1-5. By út 18:05 CET.")
    assert not english_in("ABCD: Zaznamenáno: hraj 3 (Řeka) — čeká se ještě na 1 odpověď.")
    assert not english_in("Artemia, Nejsme tu sami po SMS. ASCII ON = bez diakritiky, STOP zastaví zprávy.")
    assert not english_in("Hra K7QX je založena. Přátelé napíšou PRIPOJ K7QX (v Telegramu /join K7QX).")
    assert english_in("ABCD T3 Průzkum: hraj 1-5.") and english_in("karta Fobie p1|h2")
    assert czech_in("ABCD K3 Exploration: play 1-5. By Tue 18:05 CET.") and czech_in("card Phobia h1|p2")
    assert czech_in("ABCD T3 Exploration: play 1-5. Do Tue 18:05 CET.")
    assert czech_in("Zaznamenano: hraj 3")  # an ASCII-only Czech line
    assert czech_in("Locked in: play 3 (Řeka)")
    assert english_in("🤖 Bot za tebe zahrál: 2 Džungle. I'm back") and english_in("Lhůta: daily")
    assert czech_in("⏰ Time ran out — I played 2 Jungle for you. Jsem zpět")
    assert not czech_in("ABCD: Locked in: play 3 (River) — waiting for 1 more answer.")
    assert not czech_in("Artemia, Not Alone by SMS. NEW [2-7] opens a game, LANG CS.")


# ---------------------------------------------------------------------------------------------- the world


@pytest.fixture(scope="module")
def twilio():
    fake = FakeTwilio(auth_token="language-token")
    with serve_twilio(fake.app) as base_url:
        yield fake, base_url


@pytest.fixture
def world(twilio, api):  # noqa: F811 - the fake Bot API fixture: the workers' Telegram messages go there
    fake, base_url = twilio
    fake.sent.clear()
    with world_of(fake, base_url, seed=3) as world:
        assert world.ctx.settings.telegram_bot_token  # Telegram chats are sent to the fake Bot API
        world.api = api
        for user, name in NAMES.items():
            world.telegram.names[user] = name
        yield world


class Table:
    """One game as its four players live it, and everything each of them received."""

    def __init__(self, world, lang: str):
        self.world, self.lang, self.rng = world, lang, random.Random(7)
        self.twiml: dict[str, list[str]] = {SMS_A: [], SMS_B: []}
        for user in (TG_A, TG_B):
            world.telegram.langs[user] = lang
        self.code = ""

    # --- acting

    def sms(self, number: str, body: str) -> str:
        reply = self.world.reply(number, body)
        self.twiml[number].append(reply)
        return reply

    def tg(self, user: int, text: str, chat: dict | None = None) -> str | None:
        return self.world.telegram.say(user, text, chat=chat)

    def store(self):
        return self.world.ctx.store

    def game(self) -> Game:
        return Game.from_json(self.store().load(self.code).json)

    def open(self) -> None:
        world, cs = self.world, self.lang == "cs"
        if cs:
            assert self.sms(SMS_A, "JAZYK CS") == "OK: česky. SMS bez diakritiky jsou levnější: ASCII ON."
            assert self.sms(SMS_B, "jazyk cs") == "OK: česky. SMS bez diakritiky jsou levnější: ASCII ON."
            assert self.sms(SMS_B, "ASCII ON") == "OK: zpravy bez diakritiky."  # Czech still, without accents
            assert self.sms(SMS_A, "POTVRZENÍ ZAP") == "OK: každý tah ti potvrdím zvláštní SMS."
        else:
            assert self.sms(SMS_A, "CONFIRM ON") == "OK: each answer gets a reply of its own."
        self.tg(TG_A, "/newgame", chat=GROUP)
        self.code = world.lobby.at(str(GROUP["id"])).code
        self.tg(TG_B, "/join", chat=GROUP)
        self.sms(SMS_A, ("PRIPOJ" if cs else "JOIN") + f" {self.code} Anna")
        self.sms(SMS_B, ("PRIPOJ" if cs else "JOIN") + f" {self.code} Beda")
        self.sms(SMS_A, "NAPOVEDA" if cs else "HELP")
        self.tg(TG_B, "/help", chat=GROUP)
        self.tg(TG_B, "/settings", chat=GROUP)  # the settings and the deadline presets, worded
        self.tg(TG_A, "/settings deadline fast", chat=GROUP)
        self.tg(TG_A, "/settings deadline daily", chat=GROUP)
        self.tg(TG_B, "/rules", chat=GROUP)
        self.tg(TG_B, "/rules river", chat=GROUP)  # a card's text in the table's language
        self.tg(TG_A, "/rules clone")
        refused = self.tg(TG_A, "/begin", chat=GROUP)  # Dana never pressed Join: the bot may not write to her
        assert NAMES[TG_B] in refused and world.ctx.store.load(self.code) is None
        self.tg(TG_B, f"/start j{self.code}")  # Dana presses Join
        self.tg(TG_A, "/begin", chat=GROUP)
        assert self.store().load(self.code) is not None
        world.pump()

    def seats(self) -> tuple[dict[int, str], dict[int, int]]:
        by_address = dict(self.store().meta(self.code)["players"].items())
        sms, tg = {}, {}
        for seat, player in by_address.items():
            address = player["address"]
            if address.startswith("sms:"):
                sms[int(seat)] = address[4:]
            else:
                tg[int(seat)] = int(address[3:])
        return sms, tg

    def full_answer(self, game: Game, seat: int) -> list[dict]:
        trial, window, actions = game.copy(), game.window["id"], []
        while trial.window is not None and trial.window["id"] == window and seat in trial.waiting_for():
            for action in choose(trial, seat, self.rng):
                trial.apply(seat, action)
                actions.append(action)
        return actions

    def decision(self, user: int, window: int) -> tuple[int, list[dict]] | None:
        """(message id, buttons) of the user's decision message of this window, as the fake Bot API holds it."""
        api = self.world.api
        with api._lock:
            mine = {mid: dict(m) for (chat, mid), m in api.messages.items() if chat == str(user)}
        for mid, message in sorted(mine.items(), reverse=True):
            buttons = [
                b
                for row in (_markup(message.get("reply_markup")) or {}).get("inline_keyboard", [])
                for b in row
                if b.get("callback_data", "").startswith(f"d:{self.code}:{window}:")
            ]
            if buttons:
                return mid, buttons
        return None

    def press_through(self, user: int, window: int) -> bool:
        """Answer by the buttons (any choice, never Back or Start over) until locked in."""
        for _ in range(12):
            found = self.decision(user, window)
            if found is None:
                return False
            mid, buttons = found
            options = [b for b in buttons if not b["text"].startswith(("«", "↺"))] or buttons
            said = self.world.telegram.press(user, self.rng.choice(options)["callback_data"], message_id=mid)
            if said:
                return True
            self.world.pump()  # the next screen is an edit by a job
        return False

    def time_out(self, window: int) -> None:
        """The window's reminder, then its deadline passes: the missing seats are played for."""
        world, ctx = self.world, self.world.ctx
        assert upkeep.remind(ctx, self.code, window, 0)
        world.pump()
        world.clock.advance(self.store().load(self.code).deadline - ctx.clock() + 1)
        ctx.store.heartbeat(ctx.clock())
        assert upkeep.fire_deadline(ctx, self.code, window) == "resolved"
        world.pump()

    def play(self) -> None:
        """Everyone answers every window to the end: SMS by text, Telegram by typing or by the buttons; the first
        windows also bring an incomplete answer, a command not understood, the help and the status. One Telegram
        player sleeps through three questions from the third window on (a reminder each, then the deadline plays
        for them, then a bot takes the seat over) and then takes it back."""
        sms, tg = self.seats()
        sleeper = next(seat for seat, user in tg.items() if user == TG_B)
        windows, oddities, missed = 0, set(), 0
        bot_after = self.world.ctx.settings.autoplay_bot_after
        while self.store().load(self.code).status != "over":
            store = self.store()
            window = store.load(self.code).window
            for seat in sorted(store.expected(self.code) - set(store.answers(self.code))):
                if seat == sleeper and windows >= 2 and missed < bot_after:
                    continue
                game = self.game()
                self.oddities(game, seat, sms, tg, oddities)
                actions = self.full_answer(game, seat)
                text = " ".join(describe(a, self.lang) for a in actions)
                if seat in sms:
                    self.sms(sms[seat], f"{self.code} {text}" if windows % 2 else text)
                elif windows % 3 == 1 and self.press_through(tg[seat], window):
                    pass
                else:
                    self.tg(tg[seat], text)
            self.world.pump()
            snap = self.store().load(self.code)
            if snap.status == "collecting" and snap.window == window and sleeper in self.store().expected(self.code):
                self.time_out(window)
                missed += 1
                if missed == bot_after:
                    self.back(TG_B)
            if windows == 1:  # a button of the first window, pressed after it closed
                for seat, user in tg.items():
                    self.world.telegram.press(user, f"d:{self.code}:1:{seat}::")
            windows += 1
            assert windows < 400
        assert {"incomplete_sms", "incomplete_tg"} <= oddities, oddities
        assert missed == bot_after
        for number in sms.values():
            self.sms(number, "hraj 1" if self.lang == "cs" else "play 1")
        for user in tg.values():
            self.tg(user, "hraj 1" if self.lang == "cs" else "play 1")
            self.tg(user, "/status")
        self.tg(TG_A, "/status", chat=GROUP)

    def oddities(self, game: Game, seat: int, sms: dict, tg: dict, done: set) -> None:
        """The other replies a player gets, each once: an incomplete answer (a Resist alone), a command not
        understood, the help, the status."""
        resist = next((a for a in game.legal_actions(seat) if a["type"] == "resist"), None)
        kind = "sms" if seat in sms else "tg"
        if resist and f"incomplete_{kind}" not in done:
            done.add(f"incomplete_{kind}")
            said = describe(resist, self.lang)
            reply = self.sms(sms[seat], said) if seat in sms else self.tg(tg[seat], said)
            assert reply, said
        if f"chatter_{kind}" not in done:
            done.add(f"chatter_{kind}")
            for text in ("blablabla", "?", "stav" if self.lang == "cs" else "status"):
                reply = self.sms(sms[seat], text) if seat in sms else self.tg(tg[seat], text)
                assert reply, text

    def back(self, user: int) -> None:
        """A player whose seat a bot plays sees it in /status, then takes it back with the "I'm back" button of
        their private message."""
        self.tg(TG_A, "/status", chat=GROUP)
        api = self.world.api
        with api._lock:
            mine = [m for (chat, _), m in api.messages.items() if chat == str(user)]
        [data] = {
            b["callback_data"]
            for m in mine
            for row in (_markup(m.get("reply_markup")) or {}).get("inline_keyboard", [])
            for b in row
            if b.get("callback_data", "").startswith("r:")
        }
        assert self.world.telegram.press(user, data)

    # --- what the players got

    def received(self) -> list[tuple[str, str]]:
        """(who, line) of every line any of the four players (or the group) got."""
        out = []
        for number in (SMS_A, SMS_B):
            for text in self.world.twilio.to(number) + self.twiml[number]:
                out += [(number, line) for line in text.splitlines()]
        for body in self.world.telegram.replies:
            out += [(f"reply {body.get('chat_id', '')}", t) for t in _texts(body)]
        for call in self.world.api.calls:
            if call["method"] in ("sendMessage", "editMessageText", "editMessageReplyMarkup", "answerCallbackQuery"):
                out += [(f"{call['method']} {call['params'].get('chat_id', '')}", t) for t in _texts(call["params"])]
        return [(who, line) for who, line in out if line.strip()]


def _markup(markup) -> dict | None:
    return json.loads(markup) if isinstance(markup, str) else markup


def _texts(body: dict) -> list[str]:
    """The text lines of a message and its buttons' labels."""
    lines = (body.get("text") or "").splitlines()
    keyboard = (_markup(body.get("reply_markup")) or {}).get("inline_keyboard", [])
    return lines + [button["text"] for row in keyboard for button in row]


def play_whole_game(world, lang: str) -> Table:
    table = Table(world, lang)
    table.open()
    table.play()
    return table


# ---------------------------------------------------------------------------------------------- the games


def test_a_whole_czech_game_by_sms_and_telegram_has_no_english_line(world):
    table = play_whole_game(world, "cs")
    got = table.received()
    assert len({who for who, _ in got}) >= 6 and len(got) > 200  # both SMS numbers, both private chats, the group
    english = [(who, line, english_in(line)) for who, line in got if english_in(line)]
    assert not english, "\n".join(f"{who}: {line}  <- {found}" for who, line, found in english[:40])
    assert any("Zaznamenáno" in line for who, line in got if who.startswith("+44"))
    assert any(line.startswith("🎯") for _, line in got)  # the Telegram decision messages
    said_all(got, "cs")


def said_all(got: list[tuple[str, str]], lang: str) -> None:
    """The lines the judge must have read: a card's text (/rules), a reminder and an answer played at the
    deadline (⏰), the bot takeover, the bot's plays and its end (🤖, I'm back), a deadline preset."""
    lines = [line for _, line in got]
    assert any(cardtexts.text("river", lang) in line for line in lines)
    assert sum("⏰" in line for line in lines) >= 4
    assert any("🤖" in line for line in lines) and any(line.startswith("🙋") for line in lines)
    assert any(("24 h na každý krok" if lang == "cs" else "24 h per step") in line for line in lines)


def test_a_whole_english_game_by_sms_and_telegram_has_no_czech_line(world):
    table = play_whole_game(world, "en")
    got = table.received()
    assert len({who for who, _ in got}) >= 6 and len(got) > 200
    czech = [(who, line, czech_in(line)) for who, line in got if czech_in(line)]
    assert not czech, "\n".join(f"{who}: {line}  <- {found}" for who, line, found in czech[:40])
    assert any("Locked in" in line for who, line in got if who.startswith("+44"))
    said_all(got, "en")


def test_the_sandbox_talks_in_the_language_of_its_game(monkeypatch, capsys):
    """The console channel and the sandbox's replies to typed answers (the ingest's result) in Czech."""
    from service import sandbox

    monkeypatch.setattr("sys.stdin", io.StringIO("nápověda\nblabla\nhraj 1\nhraj 2\n"))
    assert sandbox.main(["--seat", "1", "--players", "3", "--seed", "4", "--lang", "cs"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert "  -> Zaznamenáno: hraj 1 (Doupě) — odpověděli už všichni." in lines
    assert any(line.startswith("  -> Nerozumím") for line in lines)
    assert "[ty] 🎯 Kolo 1 · Průzkum" in lines
    english = [(line, english_in(line)) for line in lines if english_in(line)]
    assert not english, "\n".join(f"{line}  <- {found}" for line, found in english[:40])
