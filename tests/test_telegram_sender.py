"""The Telegram sender against the fake Bot API over real HTTP on 127.0.0.1 (no mocks of our functions)."""

import os

import fakeredis
import pytest
from pipeline_support import make_ctx

from service.channels.telegram import sender as tg
from service.config import get_settings
from service.pipeline import delivery, outbox, screens
from service.store import keys
from tests.telegram_support import api, server  # noqa: F401 - fixtures

KEYBOARD = [[{"text": "play 3 (River)", "data": "d:G1:4:0:"}, {"text": "Rules", "url": "https://t.me/x"}]]


@pytest.fixture
def sender(api):
    return tg.TelegramSender(fakeredis.FakeRedis())


def test_send_posts_text_keyboard_and_topic(api):
    result = tg.send(-100500, "Turn 1", KEYBOARD, thread_id=7)
    assert result.ok and result.message_id == 1
    call = api.sent()[0]["params"]
    assert call["chat_id"] == "-100500" and call["text"] == "Turn 1" and call["message_thread_id"] == "7"
    assert call["reply_markup"] == {
        "inline_keyboard": [
            [{"text": "play 3 (River)", "callback_data": "d:G1:4:0:"}, {"text": "Rules", "url": "https://t.me/x"}]
        ]
    }
    assert tg.send(42, "second").message_id == 2  # one bot and one loop reused across calls


@pytest.mark.parametrize("timedelta_mode", ["false", "true"])
def test_flood_answer_gives_retry_after_seconds(api, monkeypatch, timedelta_mode):
    monkeypatch.setenv("PTB_TIMEDELTA", timedelta_mode)
    api.fail("retry_after", 7)
    result = tg.send(42, "hi")
    assert (result.status, result.retry_after) == ("retry_after", 7.0)
    assert tg.send(42, "hi").ok


@pytest.mark.parametrize(
    "kind, arg, status",
    [
        ("blocked", None, "blocked"),
        ("server_error", 500, "network"),
        ("server_error", 502, "network"),
        ("migrated", -1009, "migrated"),
    ],
)
def test_error_answers_map_to_results(api, kind, arg, status):
    api.fail(kind, arg)
    result = tg.send(-55, "hi")
    assert result.status == status
    if status == "migrated":
        assert result.new_chat_id == -1009


def test_edits(api):
    first = tg.send(42, "a", KEYBOARD)
    assert tg.edit(42, first.message_id, "b", KEYBOARD).ok
    assert tg.edit(42, first.message_id, "b", KEYBOARD).status == "not_modified"
    assert tg.edit(42, 999, "b").status == "edit_target_missing"
    assert api.messages["42", first.message_id]["text"] == "b"


def test_answer_callback_and_bad_token(api, monkeypatch):
    assert tg.answer_callback("cb1", "Locked in").ok
    assert api.sent("answerCallbackQuery")[0]["params"] == {
        "callback_query_id": "cb1",
        "text": "Locked in",
        "show_alert": "false",
    }
    tg.close()
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "999:WRONG")
    get_settings.cache_clear()
    assert tg.send(42, "hi").status == "failed"
    tg.close()
    monkeypatch.undo()
    get_settings.cache_clear()


def test_a_forked_child_gets_its_own_loop_and_bot(api):
    assert tg.send(42, "parent").ok
    pid = os.fork()
    if pid == 0:  # the child must not reuse the parent's client and loop
        os._exit(0 if tg.send(42, "child").ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert tg.send(42, "parent again").ok
    assert [c["params"]["text"] for c in api.sent()] == ["parent", "child", "parent again"]


def test_sender_edits_the_living_message_and_sends_anew_when_it_is_gone(api, sender):
    sender.send("-100500/3", "status 1", slot="status-t1")
    sender.send("-100500/3", "status 2", slot="status-t1")
    sender.send("-100500/3", "status 2", slot="status-t1")  # unchanged: Telegram says not modified; fine
    assert [c["method"] for c in api.calls] == ["sendMessage", "editMessageText", "editMessageText"]
    api.messages.clear()  # someone deleted it
    sender.send("-100500/3", "status 3", slot="status-t1")
    assert [c["params"]["text"] for c in api.sent()] == ["status 1", "status 3"]
    assert api.sent()[1]["params"]["message_thread_id"] == "3"


def test_sender_follows_a_migrated_group(api, sender):
    api.fail("migrated", -100777, times=None, chat=-5)
    sender.send("-5", "hello")
    sender.send("-5", "again")
    assert [(c["params"]["chat_id"], c["ok"]) for c in api.calls] == [
        ("-5", False),
        ("-100777", True),
        ("-100777", True),
    ]


@pytest.mark.parametrize(
    "kind, arg, error",
    [
        ("retry_after", 3, outbox.RetryAfter),
        ("server_error", 503, outbox.TransientSendError),
        ("blocked", None, outbox.PermanentSendError),
    ],
)
def test_sender_raises_the_outbox_errors(api, sender, kind, arg, error):
    api.fail(kind, arg)
    with pytest.raises(error) as caught:
        sender.send("42", "hi")
    if kind == "retry_after":
        assert caught.value.seconds == 3.0
    sender.send("42", "hi")
    assert len(api.sent()) == 1


def test_a_late_screen_never_hides_the_next_question(api):
    """A button press's next screen goes through the outbox. One made at version 4 arrives after the outbox put
    the next step's question (version 5) on that message: it is skipped; a screen still current edits the
    message in place, in its turn on the chat's lane, without raising the slot's seq."""
    ctx = make_ctx()
    ctx.sender = tg.TelegramSender(ctx.store.redis)
    ctx.sender.send("42", "question of window 9", KEYBOARD, slot="G1:p3")  # the turn message, as the outbox sent it
    question = int(ctx.store.redis.hget(keys.telegram_slots("G1"), "42|G1:p3"))
    ctx.store.redis.hset(keys.slot_seqs("G1"), "42|G1:p3", 500)  # the outbox delivered version 5 to the slot
    screens.show(ctx, "G1", "press-1", "42", 1, "G1:p3", 4, "✅ Locked in (window 8)", None)
    assert delivery.deliver_batch(ctx, "G1", "kpress1") == ["superseded"]  # moot: never shown
    screens.show(ctx, "G1", "press-2", "42", 1, "G1:p3", 5, "✅ Locked in (window 9)", None)
    assert delivery.deliver_batch(ctx, "G1", "kpress2") == ["sent"]
    assert api.messages["42", question]["text"] == "✅ Locked in (window 9)"
    assert len(api.sent("sendMessage")) == 1  # an edit of the turn message, not a new message
    assert ctx.store.slot_seq("G1", "42", "G1:p3") == 500
    assert not ctx.store.redis.exists(keys.lane_lock("G1", "42"), keys.lane("G1", "42"))
