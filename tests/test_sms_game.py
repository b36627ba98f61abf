"""Whole games by text message on the real pipeline: two SMS players and two Telegram players at one table,
and a STOP in the middle of a game. SMS players answer by posting signed Twilio webhooks; Telegram players type
their answers in their private chat with the bot, through the Telegram webhook (``service.web``)."""

import itertools
import json
import random

import httpx
import pytest
from fake_twilio import FakeTwilio, serve
from sms_support import world_of

from service import commands
from service.channels.sms_text import cost
from service.channels.telegram import Env
from service.channels.telegram_tables import Tables
from service.game import Game
from service.game.bots import choose
from service.web import SECRET_HEADER, create_app

ANNA, BEDA = "+420601000001", "+420601000002"
TG_SECRET = "tg-secret"


class Telegram:
    """Telegram users typing in their private chat with the bot; -> the text the webhook answers with."""

    def __init__(self, client):
        self.client, self.ids = client, itertools.count(1)

    def say(self, user_id: int, text: str) -> str:
        n = next(self.ids)
        chat = {"id": user_id, "type": "private"}
        user = {"id": user_id, "is_bot": False, "first_name": f"Tg{user_id}", "language_code": "en"}
        update = {"update_id": n, "message": {"message_id": n, "date": 1, "chat": chat, "from": user, "text": text}}
        response = self.client.post("/telegram/webhook", content=json.dumps(update),
                                    headers={SECRET_HEADER: TG_SECRET, "Content-Type": "application/json"})
        assert response.status_code == 200
        return response.json()["text"]


@pytest.fixture(scope="module")
def served():
    fake = FakeTwilio(auth_token="game-token")
    with serve(fake.app) as base_url:
        yield fake, base_url


@pytest.fixture
def world(served, monkeypatch):
    fake, base_url = served
    fake.sent.clear()
    with world_of(fake, base_url, monkeypatch, seed=1) as world:
        yield world


def seat_of(world, number, code):
    return dict(world.endpoint.directory.games(number))[code]


def full_answer(game, seat, rng):
    """A bot's complete answer for the open window (a hunt card and then the tokens, say), as one message."""
    trial, window, actions = game.copy(), game.window["id"], []
    while trial.window is not None and trial.window["id"] == window and seat in trial.waiting_for():
        for action in choose(trial, seat, rng):
            trial.apply(seat, action)
            actions.append(action)
    return actions


def play_window(world, code, rng, sms_seats, telegram=None, tg_seats=(), prefix_code=False):
    """Everyone the open window waits for answers it (SMS seats by text, Telegram seats by typing to the bot,
    any other seat is a bot's and answered already); then the jobs run."""
    store = world.ctx.store
    for seat in sorted(store.expected(code) - set(store.answers(code))):
        game = Game.from_json(store.load(code).json)
        text = " ".join(commands.describe(a) for a in full_answer(game, seat, rng))
        if seat in sms_seats:
            reply = world.reply(sms_seats[seat], f"{code} {text}" if prefix_code else text)
            assert reply.startswith(f"{code}: Locked in"), (text, reply)
        else:
            reply = telegram.say(tg_seats[seat], text)
            assert reply.startswith("Locked in"), (text, reply)
    world.pump()


def test_a_whole_game_with_two_sms_players_and_two_telegram_players(world):
    code = world.reply(ANNA, "NEW 4 fast").split()[1]
    assert world.reply(BEDA, f"JOIN {code}").startswith(f"You joined {code} (2/4)")
    # Telegram users join the SMS-opened lobby as Telegram players (chat and user = their Telegram id); the
    # Telegram bot's "/join <code>" is the wiring asked of the lead, so the lobby is called directly here
    lobbies = world.endpoint.router.lobbies
    for uid in (501, 502):
        player = {"name": f"Tg{uid}", "chat": str(uid), "user": str(uid), "lang": "en"}
        joined = lobbies.join(code, player)
    assert joined.status == "started"
    sms_seats = {joined.seats[f"sms:{n}"]: n for n in (ANNA, BEDA)}
    tg_seats = {joined.seats[str(uid)]: uid for uid in (501, 502)}
    world.pump()
    env = Env(world.ctx, Tables(world.ctx.store.redis), "artemia_bot")
    rng, windows = random.Random(3), 0
    with serve(create_app(env, TG_SECRET)) as url, httpx.Client(base_url=url) as client:
        telegram = Telegram(client)
        while world.ctx.store.load(code).status != "over":
            play_window(world, code, rng, sms_seats, telegram, tg_seats, prefix_code=windows % 2 == 0)
            windows += 1
            assert windows < 400
    # every SMS stands on its own: the game code first; a question carries its deadline; two segments at most
    for number in (ANNA, BEDA):
        texts = world.twilio.to(number)
        assert texts and all(t.startswith(f"{code} ") for t in texts)
        assert any(" By " in t for t in texts)
        assert max(cost(t).segments for t in texts) <= 2
        assert "Game over" in texts[-1]
    # the Telegram players got the pipeline's own messages, and no SMS went to them
    assert {m["chat"] for m in world.recording.sent()} == {"501", "502"}
    assert {m["To"] for m in world.twilio.sent} == {ANNA, BEDA}


def test_stop_in_the_middle_of_a_game_hands_the_seat_to_a_bot_and_start_gives_it_back(world):
    code = world.reply(ANNA, "NEW 3").split()[1]
    world.reply(BEDA, f"JOIN {code}")
    world.reply(ANNA, "GO")
    world.pump()
    anna, beda = seat_of(world, ANNA, code), seat_of(world, BEDA, code)
    rng = random.Random(11)
    play_window(world, code, rng, {anna: ANNA, beda: BEDA})
    play_window(world, code, rng, {anna: ANNA, beda: BEDA})

    assert world.reply(BEDA, "stop").startswith("Artemia: no more messages")
    assert world.endpoint.directory.prefs(BEDA).stopped
    store = world.ctx.store
    assert beda not in store.expected(code) - set(store.answers(code))  # not waited for, even now
    sent_to_beda = len(world.twilio.to(BEDA))
    for _ in range(6):
        if store.load(code).status == "over":
            break
        play_window(world, code, rng, {anna: ANNA})  # Anna plays; Beda's seat is the bot's
    assert len(world.twilio.to(BEDA)) == sent_to_beda  # not one message after STOP
    assert store.streaks(code).get(beda, 0) >= world.ctx.settings.autoplay_bot_after

    assert world.reply(BEDA, "START") == "Artemia: welcome back, your seats are yours again."
    assert not world.endpoint.directory.prefs(BEDA).stopped
    assert store.streaks(code).get(beda, 0) == 0
    windows = 0
    while store.load(code).status != "over":
        play_window(world, code, rng, {anna: ANNA, beda: BEDA})
        windows += 1
        assert windows < 400
    assert len(world.twilio.to(BEDA)) > sent_to_beda  # asked again after START
