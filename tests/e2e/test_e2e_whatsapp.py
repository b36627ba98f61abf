"""End to end, three channels at one table: the web process under uvicorn and real `python -m workers` processes on
the test redis-server, a Telegram player reaching the bot through the fake Bot API, and an SMS player and a WhatsApp
player reaching it through the fake Twilio (tests/fake_twilio.py: it refuses, code 63016, any free-form WhatsApp
message outside the number's 24-hour window). The Telegram player presses the buttons it was sent, the SMS player
texts whole answers, the WhatsApp player taps the items of the lists and quick replies it was sent; the game is
played to its end."""

import collections
import html
import json
import random
import time

import httpx
import pytest
import redis
from e2e_support import BOT_USERNAME, Stack, Users, choose, user, wait_for

from service.channels.sms import contents
from service.commands.writing import describe
from service.config import Settings
from service.game import Game
from service.game.bots import whole_answer
from service.i18n import translator
from service.store import Store
from tests.fake_twilio import FakeTwilio, serve

pytestmark = pytest.mark.integration

SMS_FROM = "+15005550006"
WA_FROM = "whatsapp:+14155238886"
SAM = "+447700900311"  # SMS, English
JANA = "whatsapp:+420777123789"  # WhatsApp, a Czech number: Czech
MY_CARDS = ":998"


def shown(message: dict) -> str:
    """What a WhatsApp message shows: the rendered content's body, or the free-form Body."""
    return (message.get("rendered") or {}).get("body") or message.get("Body") or ""


def choices(message: dict) -> list[tuple[str, str]]:
    """(title, id) of the items of a list, or of the quick replies, of a WhatsApp message."""
    rendered = message.get("rendered") or {}
    return [(i["item"], i["id"]) for i in rendered.get("items") or []] + [
        (a["title"], a["id"]) for a in rendered.get("actions") or []
    ]


def window_of(message: dict) -> int | None:
    """The window a question's items answer: ``d:<game>:<window>:…``, or ``p<offset>|d:…`` ("More…")."""
    for _, ident in choices(message):
        data = ident.split("|", 1)[-1]
        if data.startswith("d:"):
            return int(data.split(":")[2])
    return None


def twiml_text(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    body = response.text
    if "<Message>" not in body:
        return ""
    return html.unescape(body.split("<Message>", 1)[1].split("</Message>", 1)[0])


class Table:
    """The three players of one table and the moves each makes when the open window waits for them."""

    def __init__(self, users: Users, fake: FakeTwilio, web: httpx.Client, base: str, store: Store, code: str):
        self.users, self.fake, self.web, self.base, self.store, self.code = users, fake, web, base, store, code
        self.rng = random.Random(11)
        self.done: set = set()  # (telegram user, window) answered
        self.pressed: tuple[str, float] | None = None  # the Telegram keyboard last pressed, when
        self.texted: set[int] = set()  # the windows the SMS player answered
        self.tapped: tuple[int, float] = (-1, 0.0)  # the index of the WhatsApp message last tapped, when
        self.sms_replies: list[str] = []
        self.counts: collections.Counter = collections.Counter()

    def sms(self, number: str, body: str) -> str:
        return twiml_text(self.fake.text(self.web, self.base + "/sms/twilio", number, body, to=SMS_FROM))

    def whatsapp(self, number: str, body: str = "", **tap) -> None:
        response = self.fake.whatsapp(self.web, self.base + "/whatsapp/twilio", number, body, to=WA_FROM, **tap)
        assert response.status_code == 200, response.text

    def telegram_move(self, who: dict, open_window: int) -> bool:
        """Press a button of the newest decision not answered yet, when it is of the open window (a question
        ahead left unanswered stays on an older message: its buttons have expired, and a player would not press
        them); a sub-menu's next screen is an edit by a worker: the same keyboard is pressed again only after 8 s."""
        found = self.users.open_decision(who, self.done)
        if found is None or found[1] != open_window:
            return False
        mid, window, buttons = found
        keyboard = json.dumps(buttons)
        if self.pressed and self.pressed[0] == keyboard and time.monotonic() - self.pressed[1] < 8:
            return False
        said = self.users.press(who, mid, choose(self.rng, buttons)["callback_data"]).get("text")
        self.counts["telegram presses"] += 1
        self.pressed = (keyboard, time.monotonic())
        if said:  # complete ("✅ Locked in: …"), or the window is over
            self.done.add((who["id"], window))
            kind = "expired" if "expired" in said else "invalid" if "not valid" in said else "answers"
            self.counts[f"telegram {kind}"] += 1
        return True

    def sms_move(self, game: Game, window: int, seat: int) -> bool:
        if window in self.texted:
            return False
        text = " ".join(describe(a) for a in whole_answer(game, seat, self.rng))
        reply = self.sms(SAM, text)
        self.texted.add(window)
        self.counts["sms answers"] += 1
        if reply:  # no paid reply to an answer (CONFIRM OFF, the default): a reply says something went wrong
            self.sms_replies.append(f"{text!r} -> {reply!r}")
        return True

    def whatsapp_move(self, window: int) -> bool:
        """Tap an item of the newest question of this window (never "My cards"): a question newer than the last
        tapped, or the same one again after 8 s without a new one."""
        sent = self.fake.whatsapp_sent(JANA)
        asked = [(i, m) for i, m in enumerate(sent) if window_of(m) == window]
        if not asked:
            return False
        index, question = asked[-1]
        if index <= self.tapped[0] and time.monotonic() - self.tapped[1] < 8:
            return False
        options = [(t, i) for t, i in choices(question) if not i.endswith(MY_CARDS)]
        title, ident = self.rng.choice(options)
        if (question.get("rendered") or {}).get("kind") == "list-picker":
            self.whatsapp(JANA, list_id=ident, list_title=title)
        else:
            self.whatsapp(JANA, button_payload=ident, button_text=title)
        self.counts["whatsapp taps"] += 1
        self.tapped = (index, time.monotonic())
        return True

    def play(self, telegram: dict, sms_seat: int, wa_seat: int, timeout: float) -> None:
        started = time.monotonic()
        while True:
            snap = self.store.load(self.code)
            if snap.status == "over":
                return
            assert time.monotonic() - started < timeout, f"the game did not end within {timeout}s: {self.counts}"
            moved = snap.status == "collecting" and self.telegram_move(telegram, snap.window)
            if snap.status == "collecting":
                waiting = self.store.expected(self.code) - set(self.store.answers(self.code))
                again = self.store.load(self.code)
                if again.version == snap.version and again.status == "collecting":  # read in one window
                    if sms_seat in waiting:
                        moved |= self.sms_move(Game.from_json(snap.json), snap.window, sms_seat)
                    if wa_seat in waiting:
                        moved |= self.whatsapp_move(snap.window)
            if not moved:
                time.sleep(0.05)


@pytest.fixture
def twilio():
    fake = FakeTwilio(auth_token="e2e-wa-token")
    with serve(fake.app) as base_url:
        settings = Settings(
            twilio_account_sid=fake.account_sid, twilio_auth_token=fake.auth_token, twilio_content_base_url=base_url
        )
        yield fake, base_url, contents.register(settings, contents.load())


def test_a_mixed_table_of_telegram_sms_and_whatsapp_plays_a_whole_game(redis_url, bot_api, twilio, stacks):
    started = time.monotonic()
    api, bot_base_url = bot_api
    fake, twilio_base, sids = twilio
    stack = Stack(
        redis_url,
        api,
        bot_base_url,
        TWILIO_ACCOUNT_SID=fake.account_sid,
        TWILIO_AUTH_TOKEN=fake.auth_token,
        TWILIO_FROM=SMS_FROM,
        TWILIO_API_BASE_URL=twilio_base,
        TWILIO_CONTENT_BASE_URL=twilio_base,
        ARTEMIA_WHATSAPP_FROM=WA_FROM,
        ARTEMIA_WHATSAPP_CONTENTS=json.dumps(sids),
    )
    base = f"http://127.0.0.1:{stack.port}"
    # Twilio signs the URL it calls (the web process itself here); board pictures are fetched from the web process
    stack.env.update(SMS_PUBLIC_URL=base, ARTEMIA_PUBLIC_URL=base)
    stacks(stack)
    users = Users(stack.webhook, api, group_id=-100661)
    web = httpx.Client(base_url=base, timeout=30)
    store = Store(redis.Redis.from_url(redis_url))

    # Anna opens a table in her Telegram group and presses Join; Sam joins by SMS, Jana on WhatsApp, in Czech
    anna = user(61, "Anna")
    lobby = users.say(anna, f"/newgame@{BOT_USERNAME}")
    payload = lobby["reply_markup"]["inline_keyboard"][0][0]["url"].split("?start=")[1]
    code = payload.removeprefix("j")
    users.say(anna, f"/start {payload}", private=True)
    table = Table(users, fake, web, base, store, code)
    assert table.sms(SAM, f"JOIN {code} Sam").startswith(f"You joined {code}")
    table.whatsapp(JANA, f"PŘIPOJ {code}")
    joined = wait_for(lambda: fake.whatsapp_sent(JANA), 20, "Jana's answer to PŘIPOJ")
    assert shown(joined[0]).startswith(f"Jsi ve hře {code}"), shown(joined[0])
    began = users.say(anna, "/begin")
    assert began and "begins" in began["text"], began
    wait_for(lambda: store.load(code), 20, "the game to be stored")

    players = store.meta(code)["players"]
    seat_of = {p["chat"]: int(seat) for seat, p in players.items()}
    sms_seat, wa_seat = seat_of[f"sms:{SAM}"], seat_of[f"wa:{JANA.removeprefix('whatsapp:')}"]
    assert set(seat_of.values()) == {0, 1, 2} and str(anna["id"]) in seat_of

    table.play(anna, sms_seat, wa_seat, timeout=90)
    played = time.monotonic() - started
    final = Game.from_json(store.load(code).json)

    # the end reaches everyone: the group, the SMS player and the WhatsApp player
    wait_for(lambda: any("🏁" in t for t in users.group_sends()), 20, "the end in the Telegram group")
    wait_for(lambda: any("🏁" in shown(m) for m in fake.whatsapp_sent(JANA)[-3:]), 20, "the end on WhatsApp")
    wait_for(lambda: any("Game over" in t for t in fake.to(SAM)[-2:]), 20, "the end by SMS")
    print(f"\nwhatsapp e2e: {final.turn} turns in {played:.1f} s, {dict(table.counts)}")

    assert fake.refused == [], fake.refused[:3]
    assert table.sms_replies == [], table.sms_replies[:3]
    assert table.counts["whatsapp taps"] and table.counts["sms answers"] and table.counts["telegram answers"]
    assert not table.counts["telegram invalid"] and not table.counts["telegram expired"], table.counts
    assert store.streaks(code) == {}, "no seat was ever played by a bot"
    to_jana = fake.whatsapp_sent(JANA)
    assert all(m["From"] == WA_FROM for m in fake.sent if m["To"].startswith("whatsapp:"))
    assert all(m["From"] == SMS_FROM for m in fake.sent if m["To"] == SAM)
    # Jana's questions are in Czech
    questions = [shown(m) for m in to_jana if choices(m) and "·" in shown(m)]
    assert questions and all("Kolo" in q for q in questions), questions[:3]
    assert not any("Turn " in shown(m) for m in to_jana)
    # every tap was taken: none was refused as not valid, or as too late
    czech = translator("cs").gettext
    refusals = {czech("This button is not valid."), czech("This choice has expired: that step is over.")}
    assert not [shown(m) for m in to_jana if shown(m) in refusals]
    # the board as a picture after a reveal, served by the real web process
    pictures = [m["MediaUrl"] for m in to_jana if m.get("MediaUrl")]
    assert pictures, "a board picture on WhatsApp"
    assert pictures[0].startswith(base + "/m/") and pictures[0].endswith(".png")
    drawn = httpx.get(pictures[0], timeout=10)
    assert drawn.status_code == 200 and drawn.content.startswith(b"\x89PNG")
