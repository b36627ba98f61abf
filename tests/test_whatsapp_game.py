"""Playing by WhatsApp, through the real app and a fake Twilio that keeps WhatsApp's rules (tests/fake_twilio.py):
a player opens or joins a table, taps answers in lists, sees the board as a picture after each reveal, and is
written to outside the 24-hour window only with approved templates — the fake refuses (63016) anything else, and
every test here ends with nothing refused.
"""

import random

import pytest
from fake_twilio import FakeTwilio, serve
from sms_support import PUBLIC, world_of

from service import admin
from service.channels.sms import contents
from service.channels.sms.whatsapp import title
from service.commands.writing import describe
from service.config import Settings
from service.game import Game
from service.game.bots import whole_answer
from service.pipeline import upkeep

WA_URL = PUBLIC + "/whatsapp/twilio"
SENDER = "whatsapp:+14155238886"
EVA = "whatsapp:+447700900123"
JANA = "whatsapp:+420777123456"
SMS_BEDA = "+420777000002"
TG_A = 901


@pytest.fixture(scope="module")
def served():
    fake = FakeTwilio(auth_token="wa-token")
    with serve(fake.app) as base_url:
        settings = Settings(
            twilio_account_sid=fake.account_sid, twilio_auth_token="wa-token", twilio_content_base_url=base_url
        )
        sids = contents.register(settings, contents.load())
        yield fake, base_url, sids


@pytest.fixture
def world(served):
    fake, base_url, sids = served
    fake.sent.clear()
    fake.refused.clear()
    fake.last_inbound.clear()
    channel = {
        "whatsapp_from": SENDER,
        "whatsapp_contents": sids,
        "twilio_content_base_url": base_url,
        "public_url": PUBLIC,
    }
    with world_of(fake, base_url, channel=channel) as world:
        fake.clock = world.clock
        yield world
    fake.clock = __import__("time").time


def say(world, number: str, body: str = "", **tap) -> list[dict]:
    """A WhatsApp message (or tap) from ``number``; the jobs run; what was sent to the number since."""
    before = len(world.twilio.whatsapp_sent(number))
    response = world.twilio.whatsapp(world.client, WA_URL, number, body, **tap)
    assert response.status_code == 200, response.text
    world.pump()
    return world.twilio.whatsapp_sent(number)[before:]


def shown(message: dict) -> str:
    rendered = message.get("rendered") or {}
    return rendered.get("body") or message.get("Body") or ""


def choices(message: dict) -> list[tuple[str, str]]:
    """(title, id) of the message's items to tap: a list's, or its quick replies."""
    rendered = message.get("rendered") or {}
    return [(i["item"], i["id"]) for i in rendered.get("items") or []] + [
        (a["title"], a["id"]) for a in rendered.get("actions") or []
    ]


def tap(world, number: str, message: dict, title: str) -> list[dict]:
    ident = dict(choices(message))[title]
    if (message.get("rendered") or {}).get("kind") == "list-picker":
        return say(world, number, list_id=ident, list_title=title)
    return say(world, number, button_payload=ident, button_text=title)


def last_question(world, number: str) -> dict | None:
    return next((m for m in reversed(world.twilio.whatsapp_sent(number)) if choices(m)), None)


def play_by_tapping(world, number: str, code: str, rng: random.Random, others=None) -> None:
    """Taps one of the choices of the number's latest question (never "My cards") until the game is over; the
    other seats (``others``: seat -> answer function) answer as they are asked."""
    for _ in range(600):
        if world.ctx.store.load(code).status == "over":
            return
        for seat, answer in (others or {}).items():
            if seat in world.ctx.store.expected(code) - set(world.ctx.store.answers(code)):
                answer(Game.from_json(world.ctx.store.load(code).json), seat)
                world.pump()
        question = last_question(world, number)
        if question is None or world.ctx.store.load(code).status == "over":
            continue
        options = [(t, i) for t, i in choices(question) if not i.endswith(":998")]
        title, _ = rng.choice(options)
        tap(world, number, question, title)
    raise AssertionError("the game did not end")


def test_a_whatsapp_player_opens_a_table_and_plays_a_whole_game_by_tapping(world):
    opened = say(world, EVA, "NEW 3")
    assert len(opened) == 1 and shown(opened[0]).startswith("Game ") and "JOIN" in shown(opened[0])
    code = shown(opened[0]).split()[1]
    begun = say(world, EVA, "GO")
    assert shown(begun[0]).startswith(f"{code} has begun. You are the Creature; your questions come here")
    first = begun[-1]
    assert first["rendered"]["kind"] == "quick-reply"  # two sides and "My cards": three quick replies
    assert shown(first).startswith(f"*{code}*\n\n") and "🎯 Turn 0 · Setup\nChoose the side of the board." in shown(
        first
    )
    assert [t for t, _ in choices(first)] == ["Side 1", "Side 2", "📖 My cards"]

    after_side = tap(world, EVA, first, "Side 1")  # the last answer of its window: the news says it, at once
    assert "You chose side 1 of the board." in shown(after_side[0])
    hunt = after_side[-1]
    assert hunt["rendered"]["kind"] == "list-picker" and len(choices(hunt)) == 10
    titles = [t for t, _ in choices(hunt)]
    assert "1 Lair" in titles and titles[-1] == "More…"  # "Creature token → 1 Lair" is too long: the words shared
    more = tap(world, EVA, hunt, "More…")
    assert [t for t, _ in choices(more[0])][:3] == ["8 Wreck", "9 Source", "10 Artefact"]

    play_by_tapping(world, EVA, code, random.Random(4))
    sent = world.twilio.whatsapp_sent(EVA)
    pictures = [m for m in sent if m.get("MediaUrl")]
    assert pictures, "a board picture after each reveal"
    url = pictures[0]["MediaUrl"]
    assert url.startswith(PUBLIC + "/m/") and url.endswith(".png")
    drawn = world.client.get(url.removeprefix(PUBLIC))
    assert drawn.status_code == 200 and drawn.content.startswith(b"\x89PNG")
    assert any("🏁 Game over." in shown(m) for m in sent[-3:])
    assert world.twilio.refused == []
    assert all(m["From"] == SENDER for m in sent)


def test_a_czech_whatsapp_player_joins_a_table_of_sms_and_telegram_players(world):
    opened = world.reply(SMS_BEDA, "NOVÁ 4")
    code = opened.split()[1]
    joined = say(world, JANA, f"PŘIPOJ {code}")
    assert shown(joined[0]).startswith(f"Jsi ve hře {code}")  # a +420 number is answered in Czech
    assert world.telegram.say(TG_A, f"/join {code}").startswith(f"You are in game {code}!")
    world.reply(SMS_BEDA, "ZACNI")
    world.pump()
    players = world.ctx.store.meta(code)["players"]
    jana = next(int(s) for s, p in players.items() if p["chat"] == "wa:+420777123456")
    rng = random.Random(7)

    def sms_answer(game, seat):
        world.reply(SMS_BEDA, " ".join(describe(a) for a in whole_answer(game, seat, rng)))

    def tg_answer(game, seat):
        world.telegram.say(TG_A, " ".join(describe(a) for a in whole_answer(game, seat, rng)))

    others = {}
    for seat, player in players.items():
        if (player.get("chat") or "").startswith("sms:"):
            others[int(seat)] = sms_answer
        elif player.get("chat") == str(TG_A):
            others[int(seat)] = tg_answer
    assert jana not in others
    play_by_tapping(world, JANA, code, rng, others)
    assert world.twilio.refused == []
    texts = [shown(m) for m in world.twilio.whatsapp_sent(JANA)]
    assert any(f"*{code}*\n\n" in t and "🎯 Kolo 1 · " in t for t in texts)
    assert not any(word in t for t in texts for word in ("Turn ", "Choose", "Answer by", "More…"))  # all Czech
    assert any("🏁" in t for t in texts[-3:])


def test_outside_the_24_hour_window_only_a_template_goes_and_the_question_follows_a_tap(world):
    code = shown(say(world, EVA, "NEW 3 daily")[0]).split()[1]
    first = say(world, EVA, "GO")[-1]
    tap(world, EVA, first, "Side 2")
    # Eva says nothing for 25 hours: the window closes; the deadline passes and a move is played for her
    world.clock.advance(25 * 3600)
    world.pump()
    assert admin.force_resolve(world.ctx, code) == "resolved"  # as its deadline does
    world.pump()
    late = [m for m in world.twilio.whatsapp_sent(EVA) if (m.get("rendered") or {}).get("approved")]
    assert late, "an approved template stands in for the question"
    template = late[-1]["rendered"]
    assert template["template"] == "artemia_turn_en"
    assert template["body"].startswith(f"Artemia {code}: a question is waiting for you. Answer by ")
    assert world.twilio.refused == []
    # her tap on the template's button opens the window: what waited comes, then the question
    came = say(world, EVA, button_payload="SHOW", button_text="Show the question")
    assert came and not came[0].get("rendered", {}).get("approved")
    assert choices(came[-1]), "the open question, to tap"
    parked = shown(came[0])
    assert "🔦 Reveal of turn 1!" in parked  # the news parked while her window was closed
    play_by_tapping(world, EVA, code, random.Random(9))  # and the game goes on to its end
    assert world.twilio.refused == []


def test_a_forged_or_stale_tap_is_refused_and_changes_nothing(world):
    code = shown(say(world, EVA, "NEW 3")[0]).split()[1]
    first = say(world, EVA, "GO")[-1]
    before = world.ctx.store.load(code)
    forged = say(world, EVA, list_id=f"d:{code}:1:1:0:", list_title="Side 1")  # another seat's button
    assert [shown(m) for m in forged] == ["This button is not valid."]
    garbled = say(world, EVA, list_id="d:nonsense", list_title="x")
    assert [shown(m) for m in garbled] == ["This button is not valid."]
    assert world.ctx.store.load(code).version == before.version
    tap(world, EVA, first, "Side 1")
    stale = tap(world, EVA, first, "Side 2")  # its window was resolved
    assert [shown(m) for m in stale] == ["This choice has expired: that step is over."]
    assert world.twilio.refused == []


def test_stop_ends_the_messages_and_start_brings_them_back(world):
    code = shown(say(world, EVA, "NEW 3")[0]).split()[1]
    say(world, EVA, "GO")
    stopped = say(world, EVA, "STOP")
    assert shown(stopped[0]).startswith("Artemia: no more messages.")
    quiet = say(world, EVA, "play 3")
    assert quiet == []  # opted out: not a word more
    assert say(world, EVA, "?") == [] and say(world, EVA, button_payload="SHOW", button_text="Show") == []
    version = world.ctx.store.load(code).version
    assert say(world, EVA, list_id=f"d:{code}:1:0:0:", list_title="Side 1") == []  # an old list's tap: not read
    assert world.ctx.store.load(code).version == version
    resumed = say(world, EVA, "START")
    assert shown(resumed[0]) == "Artemia: welcome back, your seats are yours again."


def test_an_unsigned_whatsapp_message_is_refused_and_changes_nothing(world):
    response = world.client.post("/whatsapp/twilio", data={"From": EVA, "Body": "NEW", "MessageSid": "SM1"})
    assert response.status_code == 403
    assert world.lobby.games_of("wa:+447700900123") == []


def test_a_telegram_group_lobby_shows_the_whatsapp_link_and_it_joins(world):
    group = {"id": -100777, "type": "supergroup", "title": "Friday"}
    lobby = world.telegram.say(TG_A, "/newgame", chat=group)
    code = lobby.split("Join code: ")[1].split(".")[0]
    assert f"On WhatsApp: https://wa.me/14155238886?text=JOIN%20{code}" in lobby
    # the link opens a chat with "JOIN <code>" typed: sent, it seats the player
    joined = say(world, EVA, f"JOIN {code}")
    assert shown(joined[0]).startswith(f"You joined {code} (2/")
    assert world.twilio.refused == []


def test_a_reminder_outside_the_window_is_the_approved_reminder_and_inside_it_the_question_again(world):
    code = shown(say(world, EVA, "NEW 3 daily")[0]).split()[1]
    first = say(world, EVA, "GO")[-1]
    window = world.ctx.store.load(code).window
    assert upkeep.remind(world.ctx, code, window, 1)
    world.pump()
    inside = world.twilio.whatsapp_sent(EVA)[-1]
    assert shown(inside).startswith(f"*{code}*\n\n⏰ Reminder: step {window} needs your answer by ")
    assert [t for t, _ in choices(inside)] == [t for t, _ in choices(first)]
    world.clock.advance(25 * 3600)
    assert upkeep.remind(world.ctx, code, window, 2)
    world.pump()
    outside = world.twilio.whatsapp_sent(EVA)[-1]["rendered"]
    assert outside["template"] == "artemia_reminder_en" and outside["approved"]
    assert outside["body"].startswith(f"Artemia {code}: we are still waiting for your answer, until ")
    assert world.twilio.refused == []


def test_random_and_forged_taps_never_fail_and_change_no_game(world):
    """Seeded random taps from a player and from a stranger: ids shaped like a button's data with every part
    mutated, "More" ids, junk, empty messages. The webhook always answers 200, and no tap that names nothing legal
    changes the game or stores an answer."""
    code = shown(say(world, EVA, "NEW 3")[0]).split()[1]
    say(world, EVA, "GO")
    rng = random.Random(20261206)
    stranger = "whatsapp:+15005550199"
    junk = ["", " ", "d:", "p|", "p99999|d:x", "d:" + "9" * 70, "\u0000", "SHOW SHOW", "d:K7QX:1:0:0:", "p3|p3|d:"]
    for _ in range(200):
        window = world.ctx.store.load(code).window
        parts = [code, str(window + rng.choice([-1, 0, 1, 7])), str(rng.choice([0, 1, 2, 5, -1])), ""]
        parts[3] = ".".join(str(rng.choice([0, 3, 29, 99, 999, -1])) for _ in range(rng.randint(0, 3)))
        tap_id = rng.choice(
            [
                "d:" + ":".join(parts) + ":" + rng.choice(["", "998", "0", "1-2", "x"]),
                f"p{rng.randint(0, 40)}|d:" + ":".join(parts) + ":",
                rng.choice(junk),
                "".join(rng.choice("d:p|0123456789KQX7.-") for _ in range(rng.randint(1, 40))),
            ]
        )
        number = rng.choice([EVA, stranger])
        before = world.ctx.store.load(code)
        answers = dict(world.ctx.store.answers(code))
        response = world.twilio.whatsapp(world.client, WA_URL, number, "", list_id=tap_id, list_title="x")
        assert response.status_code == 200, (tap_id, response.text)
        world.pump()
        after = world.ctx.store.load(code)
        if after.version == before.version and dict(world.ctx.store.answers(code)) != answers:
            # a tap that stored an answer named a legal choice of the player's own open window
            assert number == EVA and tap_id.startswith(f"d:{code}:{window}:0:"), tap_id
        if number == stranger:
            assert after.version == before.version and dict(world.ctx.store.answers(code)) == answers, tap_id
    assert world.twilio.refused == []


def test_a_list_title_drops_its_brackets_then_is_cut_to_24_characters():
    assert title("Give up (all cards and Will back, Assimilation +1)") == "Give up"
    assert title("Resist (−1 Will): take back 5 Rover") == "Resist: take back 5 Rov…"
    assert title("Play 7 Shelter (Smokescreen first)") == "Play 7 Shelter"
    assert title("📖 My cards") == "📖 My cards"
    assert all(len(title(text)) <= 24 for text in ("x" * 40, "Vzdorovat (−1 vůle): vzít zpět 5 Průzkumné vozidlo"))


def test_a_flood_of_taps_gets_one_slow_down_and_then_nothing_is_read(world):
    code = shown(say(world, EVA, "NEW 3")[0]).split()[1]
    say(world, EVA, "GO")
    before = world.ctx.store.load(code).version
    world.ctx.settings = world.ctx.settings.model_copy(update={"inbound_whatsapp_burst": 3})
    garbled = [say(world, EVA, list_id="d:nonsense", list_title="x") for _ in range(5)]
    assert [[shown(m) for m in got] for got in garbled] == [
        ["This button is not valid."],
        ["This button is not valid."],
        ["This button is not valid."],
        ["Artemia: too many messages at once. Wait a minute; until then they are not read."],
        [],
    ]
    assert world.ctx.store.load(code).version == before  # the game stands where it was
    assert world.twilio.refused == []
