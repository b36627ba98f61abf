"""Forged button presses (issue 14, point 7), through the real app and the fake Bot API: a ``callback_query`` that
names a message in another user's chat, and a button copied from another seat's keyboard, are both refused with
a clear ``answerCallbackQuery`` text; nothing is stored and no message of anyone is edited."""

import json

import pytest
from fake_twilio import FakeTwilio
from fake_twilio import serve as serve_twilio
from sms_support import DEDUP_KEYS, world_of
from sms_support import redis_state as stored

from tests.telegram_support import api, server  # noqa: F401 - fixtures

TG_A, TG_B, TG_C = 711, 712, 713
GROUP = {"id": -100713, "type": "supergroup", "title": "Forgery"}


@pytest.fixture(scope="module")
def twilio():
    fake = FakeTwilio(auth_token="forged-token")
    with serve_twilio(fake.app) as base_url:
        yield fake, base_url


@pytest.fixture
def world(twilio, api):  # noqa: F811 - the fake Bot API fixture: the Telegram messages go there
    fake, base_url = twilio
    with world_of(fake, base_url, seed=5) as world:
        assert world.ctx.settings.telegram_bot_token
        world.api = api
        yield world


def redis_state(connection) -> dict:
    """Every key but the inbound dedup records, the ops counters and the worker's registration (`world.pump`)."""
    return stored(connection, ignore=DEDUP_KEYS + (b"rq:worker",))


def decisions(world, code: str) -> dict[int, tuple[int, list[str]]]:
    """user -> (message id, callback data of its buttons) of each user's decision message for the open window,
    as the fake Bot API holds it."""
    window = world.ctx.store.load(code).window
    found = {}
    with world.api._lock:
        messages = dict(world.api.messages)
    for (chat, message_id), message in sorted(messages.items()):
        markup = message.get("reply_markup") or {}
        markup = json.loads(markup) if isinstance(markup, str) else markup
        data = [b["callback_data"] for row in markup.get("inline_keyboard", []) for b in row if "callback_data" in b]
        if any(d.startswith(f"d:{code}:{window}:") for d in data):
            found[int(chat)] = (message_id, data)
    return found


def forged_press(world, user: int, data: str, chat_id: int, message_id: int) -> str:
    """A press by ``user`` whose ``message`` is (message_id) in the chat ``chat_id``: the answer's text."""
    response = world.telegram.post(
        {
            "callback_query": {
                "id": f"forged{message_id}{chat_id}",
                "from": world.telegram.user(user),
                "chat_instance": "c",
                "data": data,
                "message": {"message_id": message_id, "date": 1, "chat": {"id": chat_id, "type": "private"}},
            }
        }
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["method"] == "answerCallbackQuery"
    return answer["text"]


def two_asked(world) -> tuple[str, dict[int, tuple[int, list[str]]]]:
    """A game of three Telegram players, played by the buttons until a window asks two of them at once (the
    Hunted's cards). -> (code, decision messages of the open window by user)."""
    for user in (TG_A, TG_B, TG_C):  # each has a private chat with the bot (/begin waits for that)
        world.telegram.say(user, "/start")
    world.telegram.say(TG_A, "/newgame", chat=GROUP)
    code = world.lobby.at(str(GROUP["id"])).code
    world.telegram.say(TG_B, "/join", chat=GROUP)
    world.telegram.say(TG_C, "/join", chat=GROUP)
    world.telegram.say(TG_A, "/begin", chat=GROUP)
    world.pump()
    for _ in range(20):
        found = decisions(world, code)
        if len(found) >= 2:
            return code, found
        for user, (message_id, data) in found.items():  # the one asked answers with its first button
            world.telegram.press(user, data[0], message_id=message_id)
        world.pump()
    raise AssertionError("no window asked two players at once")


def test_a_press_naming_another_users_message_edits_nothing(world):
    code, found = two_asked(world)
    (a, a_message, a_data), (b, b_message, _) = [(user, *found[user]) for user in sorted(found)[:2]]
    before = redis_state(world.ctx.store.redis)
    calls = len(world.api.calls)
    b_before = dict(world.api.messages[(str(b), b_message)])
    said = forged_press(world, a, a_data[0], b, b_message)  # A's own button, on B's message in B's chat
    assert said == "This message is not yours: use the buttons in your private chat with me."
    world.pump()
    assert redis_state(world.ctx.store.redis) == before
    assert world.api.messages[(str(b), b_message)] == b_before
    assert [c for c in world.api.calls[calls:] if c["method"].startswith("edit")] == []
    # the same button on A's own message is taken: the refusal was about the chat, not the button
    said = world.telegram.press(a, a_data[0], message_id=a_message)
    assert said is None or said.startswith("✅ Locked in: ")
    assert redis_state(world.ctx.store.redis) != before


def test_a_button_copied_from_another_seats_keyboard_is_not_the_pressers_answer(world):
    code, found = two_asked(world)
    (a, a_message, _), (b, _, b_data) = [(user, *found[user]) for user in sorted(found)[:2]]
    before = redis_state(world.ctx.store.redis)
    calls = len(world.api.calls)
    for data in b_data:  # every button of B's keyboard, pressed by A on A's own message
        said = world.telegram.press(a, data, message_id=a_message)
        assert said == "This button is from another player's choices, not yours.", (data, said)
    world.pump()
    assert redis_state(world.ctx.store.redis) == before
    assert [c for c in world.api.calls[calls:] if c["method"].startswith("edit")] == []
