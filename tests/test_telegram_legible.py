"""Legible play on Telegram, end to end: the real web app (webhook) and pipeline, the workers' messages through the
fake Bot API (`tests/fake_bot_api.py`, which, like real Telegram, refuses to let the bot write first to a user who
never started it). What a player reads: the lobby that waits for everyone to press Join, the results of each step
in the private message, the mark on an answer played for them, the bot takeover and the way back, the cancelled
status."""

import json
import random

import pytest
from sms_support import world_fixtures

from service.commands.writing import describe
from service.game import Game
from service.game.bots import whole_answer
from service.pipeline import absence, upkeep
from tests.telegram_support import api, server  # noqa: F401 - fixtures

TG_A, TG_B, TG_C = 621, 622, 623
NAMES = {TG_A: "Cyril", TG_B: "Dana", TG_C: "Ema"}
GROUP = {"id": -100921, "type": "supergroup", "title": "Patek"}

served, sms_world = world_fixtures("legible-token", seed=5)


@pytest.fixture
def world(api, sms_world):  # noqa: F811 - the fake Bot API fixture: the workers' Telegram messages go there
    assert sms_world.ctx.settings.telegram_bot_token  # Telegram chats are sent to the fake Bot API
    sms_world.api = api
    for user, name in NAMES.items():
        sms_world.telegram.names[user] = name
    return sms_world


# ---------------------------------------------------------------------------------------------- helpers


def say(world, user: int, text: str, group: bool = False) -> str | None:
    return world.telegram.say(user, text, chat=GROUP if group else None)


def open_table(world, users=(TG_A, TG_B, TG_C), press_join=(TG_A, TG_B, TG_C)) -> str:
    say(world, users[0], "/newgame", group=True)
    code = world.lobby.at(str(GROUP["id"])).code
    for user in users[1:]:
        say(world, user, "/join", group=True)
    for user in press_join:
        say(world, user, f"/start j{code}")
    return code


def seats_of(world, code: str) -> dict[int, int]:
    """seat -> Telegram user id."""
    return {int(s): int(p["user"]) for s, p in world.ctx.store.meta(code)["players"].items() if p.get("user")}


def chat_texts(world, user: int) -> dict[int, dict]:
    """message id -> {"text", "reply_markup"} of every message the bot has in the user's chat (edits applied); a
    photo's caption (the group's status picture) stands as its text."""
    with world.api._lock:
        return {
            mid: {**m, "text": m.get("text") or m.get("caption") or ""}
            for (chat, mid), m in world.api.messages.items()
            if chat == str(user)
        }


def buttons(message: dict) -> list[dict]:
    markup = message.get("reply_markup")
    markup = json.loads(markup) if isinstance(markup, str) else markup
    return [b for row in (markup or {}).get("inline_keyboard", []) for b in row]


def answer_typed(world, code: str, seat: int, user: int, rng: random.Random) -> None:
    """The seat's whole answer for the open window, typed in its private chat."""
    actions = whole_answer(Game.from_json(world.ctx.store.load(code).json), seat, rng)
    lang = world.telegram.langs.get(user, "en")
    said = say(world, user, " ".join(describe(a, lang) for a in actions))
    assert said and said.startswith(("Locked in", "Zaznamenáno")), said


def time_out(world, code: str) -> None:
    """The open window's deadline passes: the seats still missing are played for."""
    ctx, snap = world.ctx, world.ctx.store.load(code)
    world.clock.advance(snap.deadline - ctx.clock() + 1)
    ctx.store.heartbeat(ctx.clock())
    assert upkeep.fire_deadline(ctx, code, snap.window) == "resolved"
    world.pump()


def step(world, code: str, answering: dict[int, int], rng: random.Random) -> None:
    """One window: the seats of ``answering`` (seat -> user) that are asked answer; a deadline covers the rest."""
    store = world.ctx.store
    window = store.load(code).window
    for seat in sorted(store.expected(code) - set(store.answers(code))):
        if seat in answering:
            answer_typed(world, code, seat, answering[seat], rng)
    world.pump()
    snap = store.load(code)
    if snap.status == "collecting" and snap.window == window:
        time_out(world, code)


# ---------------------------------------------------------------------------------------------- the lobby


def test_begin_waits_for_the_players_the_bot_cannot_write_to_and_begin_anyway_posts_their_link(world):
    newgame = say(world, TG_A, "/newgame", group=True)
    assert "Cyril, press Join too" in newgame  # the creator is told to press Join like everybody else
    code = world.lobby.at(str(GROUP["id"])).code
    assert "Dana, press Join too" in say(world, TG_B, "/join", group=True)
    say(world, TG_B, "/creature", group=True)  # the Creature is asked first: the side of the board
    say(world, TG_C, "/join", group=True)
    assert say(world, TG_A, f"/start j{code}").startswith(f"You are in game {code}!")  # Cyril presses Join
    say(world, TG_C, f"/start j{code}")
    world.api.strangers.add(str(TG_B))  # Dana never started the bot: real Telegram would refuse our messages
    status = say(world, TG_C, "/status", group=True)
    assert "I cannot write to Dana in private yet: press Join." in status

    refused = say(world, TG_A, "/begin", group=True)
    assert "I cannot write to Dana in private yet" in refused and "/begin anyway" in refused
    assert world.ctx.store.load(code) is None  # nothing started, nobody replaced

    say(world, TG_A, "/begin anyway", group=True)
    body = world.telegram.replies[-1]
    assert body["text"].startswith("The game begins!")
    assert "Dana: I cannot write to you yet, so a bot plays your seat for now." in body["text"]
    link = body["reply_markup"]["inline_keyboard"][0][0]
    assert link["url"].endswith(f"?start=j{code}") and link["text"] == "Take my seat"

    rng, seats = random.Random(2), seats_of(world, code)
    dana = next(s for s, u in seats.items() if u == TG_B)
    humans = {s: u for s, u in seats.items() if u != TG_B}
    world.pump()
    assert dana == 0 and Game.from_json(world.ctx.store.load(code).json).turn == 1  # no day lost on the side
    for _ in range(4):
        step(world, code, humans, rng)
    assert not [c for c in world.api.calls if str(c["params"].get("chat_id")) == str(TG_B)]  # never written to
    assert world.ctx.store.load(code).status != "over"

    # Dana presses the link: her seat is hers again from the next question on
    world.api.strangers.clear()
    assert say(world, TG_B, f"/start j{code}").startswith(f"Your seat in game {code} is yours")
    for _ in range(12):
        if dana in world.ctx.store.expected(code) and dana not in world.ctx.store.answers(code):
            break
        step(world, code, humans, rng)
    assert dana in world.ctx.store.expected(code) and dana not in world.ctx.store.answers(code)
    asked = [m for m in chat_texts(world, TG_B).values() if buttons(m)]
    assert asked and "🎯" in asked[-1]["text"]  # her question, with its buttons, in her private chat


# ---------------------------------------------------------------------------------------------- the group


def test_after_cancel_the_status_and_the_questions_say_the_game_was_cancelled(world):
    code = open_table(world)
    say(world, TG_A, "/begin", group=True)
    world.pump()
    asked = [seats_of(world, code)[s] for s in world.ctx.store.expected(code)]
    assert asked and all(any(buttons(m) for m in chat_texts(world, user).values()) for user in asked)
    assert say(world, TG_A, "/cancel", group=True).startswith("The game is cancelled.")
    world.pump()
    status = [m["text"] for m in chat_texts(world, GROUP["id"]).values() if "🌍" in m["text"] or "🚫" in m["text"]]
    assert status and status[0].startswith("🚫 Cyril cancelled this game of Not Alone")  # edited in place
    for user in asked:  # the questions are gone, their buttons too
        mine = list(chat_texts(world, user).values())
        assert not any(buttons(m) for m in mine) and mine[-1]["text"].startswith("🚫 Cyril cancelled")


# ---------------------------------------------------------------------------------------------- private results


def test_results_in_private_the_auto_play_mark_the_bot_takeover_and_im_back(world):
    code = open_table(world)
    say(world, TG_A, "/begin", group=True)
    world.pump()
    rng, seats = random.Random(4), seats_of(world, code)
    sleeper = min(s for s in seats if s != 0)  # a Hunted who sleeps through the deadlines
    user = seats[sleeper]
    awake = {s: u for s, u in seats.items() if s != sleeper}
    bot_after = world.ctx.settings.autoplay_bot_after
    for _ in range(40):
        if world.ctx.store.streaks(code).get(sleeper, 0) >= bot_after:
            break
        step(world, code, awake, rng)
    assert world.ctx.store.streaks(code)[sleeper] == bot_after
    mine = lambda: [m["text"] for m in chat_texts(world, user).values()]  # noqa: E731
    assert any("⏰ Time ran out — I played " in t and " for you." in t for t in mine())  # marked, not theirs
    told = [m for m in chat_texts(world, user).values() if "🤖 You missed several deadlines in a row" in m["text"]]
    assert told and buttons(told[-1]) == [{"text": "🙋 I'm back", "callback_data": f"r:{code}"}]
    assert f"A bot plays for {NAMES[user]} until they answer again." in say(world, TG_C, "/status", group=True)

    for _ in range(3):
        step(world, code, awake, rng)
    assert any("🤖 The bot played " in t for t in mine())
    assert world.telegram.press(user, f"r:{code}") == "Welcome back! I will ask you from the next question on."
    assert world.telegram.press(999, f"r:{code}") == "This is not your game."  # a stranger's press changes nothing
    for _ in range(12):
        if sleeper in world.ctx.store.expected(code) and sleeper not in world.ctx.store.answers(code):
            break
        step(world, code, awake, rng)
    assert sleeper in world.ctx.store.expected(code) and sleeper not in world.ctx.store.answers(code)
    assert "🎯" in [m for m in chat_texts(world, user).values() if buttons(m)][-1]["text"]  # asked again

    # what happened to each Hunted is in their own chat, with the counters
    for seat, who in seats.items():
        if seat == 0:
            continue
        texts = [m["text"] for m in chat_texts(world, who).values()]
        assert any("You were caught at " in t or "You were not caught this turn." in t for t in texts), who
        assert any("Rescue counter: " in t and "Assimilation counter: " in t for t in texts), who


# ---------------------------------------------------------------------------------------------- cards at hand


def test_my_cards_button_shows_the_cards_texts_in_the_players_language_and_back(world):
    for user in NAMES:
        world.telegram.langs[user] = "cs"
    code = open_table(world)
    say(world, TG_A, "/begin", group=True)
    world.pump()
    rng, seats = random.Random(6), seats_of(world, code)
    for _ in range(6):  # into the turn, where the Hunted hold cards worth reading
        if world.ctx.store.load(code).window and world.ctx.store.expected(code) - {0}:
            break  # a Hunted is asked (under strict secrecy the Creature often is too)
        step(world, code, seats, rng)
    seat = next(s for s in sorted(world.ctx.store.expected(code)) if s != 0)
    user = seats[seat]
    mid, question = next((mid, m) for mid, m in sorted(chat_texts(world, user).items()) if buttons(m))
    [mine] = [b for b in buttons(question) if b["text"] == "📖 Moje karty"]
    assert world.telegram.press(user, mine["callback_data"], message_id=mid) is None
    world.pump()  # the page is an edit of the same message, through the outbox
    page = chat_texts(world, user)[mid]
    hand = Game.from_json(world.ctx.store.load(code).json).view(seat)["you"]["hand"]
    assert page["text"].startswith("📖 ") and len(page["text"].splitlines()) > len(hand)
    assert page["text"].startswith("📖 Tvé karty:") and "Vezmi si zpět do ruky" in page["text"]  # the Lair, in Czech
    [back] = buttons(page)
    assert world.telegram.press(user, back["callback_data"], message_id=mid) is None
    world.pump()
    assert "🎯" in chat_texts(world, user)[mid]["text"]  # the question again


def test_an_away_player_sees_what_the_bot_played_with_a_way_back_and_the_table_hears_when_they_answer(world):
    code = open_table(world)
    say(world, TG_A, "/begin", group=True)
    world.pump()
    rng, seats = random.Random(5), seats_of(world, code)
    away = min(s for s in seats if s != 0)
    user = seats[away]
    awake = {s: u for s, u in seats.items() if s != away}
    assert say(world, user, "/away 2d").startswith("Away until")
    for _ in range(4):
        step(world, code, awake, rng)
    told = [m for m in chat_texts(world, user).values() if "🤖 The bot played " in m["text"]]
    assert told and buttons(told[-1]) == [{"text": "🙋 I'm back", "callback_data": f"r:{code}"}]
    assert away in world.ctx.store.answers(code)  # the bot has answered the question open now

    answer_typed(world, code, away, user, rng)  # the player answers it all the same: they are back
    world.pump()
    assert absence.away_seats(world.ctx, code) == {}
    # the group is told; the player, whose news it is, is not
    back = f"👋 {NAMES[user]} is back."
    assert [m["text"] for m in chat_texts(world, GROUP["id"]).values() if m["text"] == back] == [back]
    assert not [m for m in chat_texts(world, user).values() if "is back" in m["text"]]
