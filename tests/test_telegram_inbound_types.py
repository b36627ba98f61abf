"""The Telegram handlers' edges that their types spell out: a message without a sender is dropped, and a typed
answer to a game that vanished (or ended) since the player's questions were read gets a plain reply, not a crash."""

import dataclasses
import json

import pytest
from test_telegram_webhook import GROUP, begin, chat, env, private  # noqa: F401 - chat, env: fixtures

from service.channels.telegram.handling import Env
from service.channels.telegram.update import SentMessage, parse_update
from service.commands.writing import describe
from service.game import Game


def test_env_keeps_its_call_signature(env):
    assert env.lobby is not None and env.sms_number == env.ctx.settings.twilio_from
    given = Env(env.ctx, env.tables, "artemia_bot", lobby=env.lobby, sms_number="+15005550006")
    assert (given.lobby, given.sms_number, given.bot_username) == (env.lobby, "+15005550006", "artemia_bot")


@pytest.mark.parametrize("sender", [{}, {"from": None}])
def test_a_message_without_a_sender_is_dropped(chat, env, sender):
    body = {"update_id": 7, "message": {"message_id": 1, "date": 1, "chat": GROUP, "text": "/newgame", **sender}}
    update = parse_update(json.dumps(body))
    assert update is not None and update.message is not None and not isinstance(update.message, SentMessage)
    response = chat.post(body)
    assert (response.status_code, response.content) == (200, b"")
    assert env.lobby.at(str(GROUP["id"])) is None


def _asked(env, game_id: str, meta: dict) -> tuple[int, str]:
    """The user of the first seat asked, and a legal move of theirs as typed."""
    game = Game.from_json(env.ctx.store.load(game_id).json)
    seat = game.waiting_for()[0]
    return int(meta["players"][str(seat)]["user"]) - 1000, describe(game.legal_actions(seat)[0])


def _second_load_returns(env, monkeypatch, change):
    """store.load answers truly once (asked_games), then ``change(snapshot)``: the game moved between the reads."""
    load, calls = env.ctx.store.load, []

    def racing(game_id):
        calls.append(game_id)
        snap = load(game_id)
        return snap if len(calls) == 1 else change(snap)

    monkeypatch.setattr(env.ctx.store, "load", racing)
    return calls


@pytest.mark.parametrize(
    "change, said",
    [
        (lambda snap: None, "There is no such game."),
        (lambda snap: dataclasses.replace(snap, window=None, status="over"), "This game is over."),
    ],
)
def test_a_typed_answer_to_a_game_gone_since_it_was_asked(chat, env, monkeypatch, change, said):
    game_id, meta = begin(chat, env)
    user, typed = _asked(env, game_id, meta)
    calls = _second_load_returns(env, monkeypatch, change)
    assert chat.say(user, typed, chat=private(user))["text"] == said
    assert calls == [game_id, game_id]
    assert env.ctx.store.answers(game_id) == {}
