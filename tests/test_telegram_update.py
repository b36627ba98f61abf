"""The lean Update model: the fields we use, the kinds we ignore, malformed bodies refused."""

import json

import pytest

from service.channels.telegram.update import MalformedUpdate, parse_update

USER = {"id": 111, "is_bot": False, "first_name": "Anna", "language_code": "cs"}
GROUP = {"id": -100123, "type": "supergroup", "title": "Friday", "is_forum": True}


def body(**update):
    return json.dumps({"update_id": 9001, **update}).encode()


def test_a_command_in_a_forum_topic():
    update = parse_update(
        body(
            message={
                "message_id": 5,
                "date": 1,
                "chat": GROUP,
                "from": USER,
                "text": "/newgame@artemia_bot",
                "message_thread_id": 77,
                "is_topic_message": True,
                "entities": [{"type": "bot_command"}],
            }
        )
    )
    message = update.message
    assert (update.update_id, message.message_id, message.chat.id, message.chat.is_forum) == (9001, 5, -100123, True)
    assert (message.sender.id, message.sender.language_code, message.text, message.topic) == (
        111,
        "cs",
        "/newgame@artemia_bot",
        77,
    )


def test_a_reply_thread_outside_topics_is_not_a_topic():
    update = parse_update(
        body(
            message={
                "message_id": 5,
                "date": 1,
                "chat": {"id": -5, "type": "group"},
                "from": USER,
                "text": "hi",
                "message_thread_id": 3,
            }
        )
    )
    assert update.message.topic is None


def test_a_callback_query():
    update = parse_update(
        body(
            callback_query={
                "id": "4382",
                "from": USER,
                "chat_instance": "x",
                "data": "d:G1:4:0:",
                "message": {"message_id": 12, "date": 0, "chat": {"id": 111, "type": "private"}},
            }
        )
    )
    query = update.callback_query
    assert (query.id, query.sender.id, query.data, query.message.chat.id, query.message.message_id) == (
        "4382",
        111,
        "d:G1:4:0:",
        111,
        12,
    )


@pytest.mark.parametrize("status, blocked", [("kicked", True), ("member", False)])
def test_blocked_and_unblocked(status, blocked):
    update = parse_update(
        body(
            my_chat_member={
                "chat": {"id": 111, "type": "private"},
                "from": USER,
                "date": 1,
                "old_chat_member": {"status": "member", "user": USER},
                "new_chat_member": {"status": status, "user": {"id": 4242, "is_bot": True, "first_name": "Artemia"}},
            }
        )
    )
    assert update.my_chat_member.blocked is blocked


def test_a_group_migrating_to_a_supergroup():
    update = parse_update(
        body(
            message={
                "message_id": 9,
                "date": 1,
                "chat": {"id": -5, "type": "group"},
                "from": USER,
                "migrate_to_chat_id": -1005,
            }
        )
    )
    assert update.message.migrate_to_chat_id == -1005


@pytest.mark.parametrize("kind", ["edited_message", "channel_post", "poll", "message_reaction"])
def test_kinds_we_ignore(kind):
    assert parse_update(body(**{kind: {"whatever": 1}})) is None


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b"[]",
        b"{}",
        b'{"update_id": "x"}',
        b'{"update_id": 1, "message": {"message_id": 1}}',
        b'{"update_id": 1, "callback_query": {"id": 1}}',
        b"\xff\xfe",
    ],
)
def test_malformed_bodies(raw):
    with pytest.raises(MalformedUpdate):
        parse_update(raw)
