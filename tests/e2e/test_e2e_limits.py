"""End to end at Telegram's limits: a 429 for one chat holds that chat alone (real web and worker processes, the
fake Bot API)."""

import itertools
import time

import pytest
import redis
from e2e_support import Stack, Users, user, wait_for

from service.store import Store

pytestmark = pytest.mark.integration


def decision(users: Users, who: dict) -> tuple[int, list[dict]] | None:
    """(message id, buttons) of the player's newest message with question buttons, or None."""
    for mid, message in sorted(users.messages(who["id"]).items(), reverse=True):
        rows = (message.get("reply_markup") or {}).get("inline_keyboard", [])
        buttons = [b for row in rows for b in row if b.get("callback_data", "").startswith("d:")]
        if buttons:
            return mid, buttons
    return None


def question_to(users: Users, who: dict, after: float) -> float | None:
    """When the bot last sent or edited a message with question buttons to ``who`` after ``after``."""
    times = [
        c["at"]
        for c in users.api.calls
        if c["ok"]
        and c["at"] > after
        and str(c["params"].get("chat_id")) == str(who["id"])
        and "callback_data" in str(c["params"].get("reply_markup") or "")
    ]
    return max(times) if times else None


@pytest.mark.parametrize("global_chats", [3, 1])
def test_a_429_for_one_players_chat_holds_that_chat_alone(redis_url, bot_api, stacks, global_chats):
    """``global_chats`` 1: the control — a single 429 read as the bot's overall limit pauses every chat, and the
    other table's question waits out the 20 s (so the test can tell the two apart)."""
    api, base_url = bot_api
    stack = stacks(Stack(redis_url, api, base_url, ARTEMIA_THROTTLE_GLOBAL_CHATS=str(global_chats)))
    store = Store(redis.Redis.from_url(redis_url))
    slow, other = Users(stack.webhook, api, group_id=-100601), Users(stack.webhook, api, group_id=-100602)
    slow.ids = itertools.count(1000)  # update ids of its own: the webhook skips an update id it has handled
    ada, bea = user(61, "Ada"), user(62, "Bea")  # table one; Ada's chat answers every call 429, retry after 20 s
    cyril, dana = user(71, "Cyril"), user(72, "Dana")  # table two
    other.open_table(cyril, [dana], creature=cyril)
    side = wait_for(lambda: decision(other, cyril), 20, "the Creature's first question at table two")

    api.fail("retry_after", 20, times=None, chat=ada["id"])
    slow.open_table(ada, [bea], creature=ada)
    wait_for(lambda: any(c["code"] == 429 for c in api.calls), 20, "Telegram to answer Ada's chat 429")

    pressed = time.monotonic()  # (the fake Bot API stamps its calls so)
    other.press(cyril, side[0], side[1][0]["callback_data"])  # side 1: the Hunted's question comes next
    time.sleep(5)
    arrived = question_to(other, dana, pressed)
    if global_chats == 1:
        assert arrived is None  # every send waits out the 429's 20 s
        return
    # a question follows a press in a fraction of a second (0.10-0.23 s in three runs); a pause of every chat: 20 s
    assert arrived is not None and arrived - pressed < 5, arrived
    assert not [c for c in api.calls if c["ok"] and str(c["params"].get("chat_id")) == str(ada["id"])]
    game = store.game_of_chat(str(slow.group["id"]))
    assert game and store.load(game).status == "collecting"  # table one waits for Ada, untouched
