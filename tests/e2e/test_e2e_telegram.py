"""End to end: Telegram updates into the web app under uvicorn, real `python -m workers` processes on the test
redis-server, and the fake Bot API recording everything the bot sends. The players only press the buttons they
were sent (read back from the fake API) or stay silent."""

import collections
import json
import random

import pytest
import redis
from e2e_support import Stack, Users, choose, play_by_buttons, shown_text, user, wait_for

from service.channels.telegram.sender import caption_of
from service.game import Game
from service.pipeline import export
from service.pipeline.outbox import with_prefix
from service.store import Store, keys
from service.store.codec import unpack_message

pytestmark = pytest.mark.integration


def store_of(redis_url: str) -> Store:
    return Store(redis.Redis.from_url(redis_url))


def game_over(users: Users, store: Store, game_id: str):
    def over():
        snap = store.load(game_id)
        return snap is not None and snap.status == "over" and any("🏁" in t for t in users.group_sends())

    return over


def outbox(store: Store, game_id: str) -> list[tuple[str, int, dict]]:
    """(batch, index, message) of every stored outgoing message of the game."""
    out = []
    for key in store.redis.scan_iter(match=f"{{g:{game_id}}}:out:*"):
        batch = key.decode().rsplit(":", 1)[1]
        for index, raw in store.redis.hgetall(key).items():
            if index.isdigit():  # (not a delivered message's mark, "d<index>")
                out.append((batch, int(index), unpack_message(raw)))
    return out


def test_a_whole_four_player_game_played_by_pressing_the_buttons(redis_url, bot_api, stacks):
    api, base_url = bot_api
    stack = stacks(Stack(redis_url, api, base_url))
    users = Users(stack.webhook, api)
    anna, petr, eva, jan = user(1, "Anna"), user(2, "Petr", "cs"), user(3, "Eva"), user(4, "Jan")
    users.open_table(anna, [petr, eva, jan], creature=eva)
    store = store_of(redis_url)
    game_id = store.game_of_chat(str(users.group["id"]))
    assert game_id

    counts = play_by_buttons(
        users, [anna, petr, eva, jan], game_over(users, store, game_id), random.Random(4), timeout=150
    )
    assert counts["invalid"] == 0 and counts["locked"] > 10, counts

    final = store.load(game_id)
    # the stored action log replays to exactly the stored game
    assert export.rebuild(store, game_id).to_json() == final.json

    group = users.group["id"]
    sends = users.group_sends()
    turns = Game.from_json(final.json).turn
    # ONE living status message per turn: each reveal is a new message (people are notified) that lives on
    # through the next turn's first windows; besides, only the first status and the end
    reveals = [t for t in sends if "🔦" in t]
    assert turns >= 2 and turns - 1 <= len(reveals) <= turns, (turns, len(reveals))
    others = [t for t in sends if "🔦" not in t and "🏁" not in t]
    assert len(others) == 1 and "begins" in others[0] and "🌍 Turn 0" in others[0], others
    assert sum("🏁" in t for t in sends) == 1
    # the status is edited as the turn goes: at least its closing edit each turn. (A turn stops twice since issue 37;
    # on a loaded machine the outbox sends only the newest of the versions queued, once 7 edits in 7 turns.)
    assert len(users.group_edits()) >= turns
    # the status is the board's picture (the default): sent as photos, edited in place, each picture uploaded once;
    # the end is a text of its own, or the caption of the reveal's status when the reveal's step ends the game
    texts = api.sent("sendMessage", group)
    assert len(texts) <= 1 and all("🏁" in c["params"]["text"] for c in texts), texts
    assert len(api.sent("sendPhoto", group)) == len(sends) - len(texts) and api.sent("editMessageText", group) == []
    pictures = [m["photo"] for m in users.messages(group).values() if "photo" in m]
    assert api.sent("editMessageMedia", group) and len(pictures) == len(api.sent("sendPhoto", group))
    assert len(api.uploads) == len(set(api.uploads.values())) > len(pictures)
    # (these players press at once, so the ticks and "locked in" edits are mostly replaced before they leave:
    # test_while_a_window_waits_the_table_sees_who_answered_and_the_answerer_sees_it_locked_in shows them)
    # Petr's Telegram client is Czech: every question he is sent or shown reads in Czech
    to_petr = [
        c["params"].get("text") or "" for m in ("sendMessage", "editMessageText") for c in api.sent(m, petr["id"])
    ]
    questions = [t for t in to_petr if "Odpověz do" in t or "Answer by" in t]
    assert questions and all("Odpověz do" in t for t in questions), questions[:3]
    # these players answer moments before each turn ends, so each one's turn message goes on into the next turn
    # (news.carry_turn_ends): a handful of new private messages in the game, where a new one a turn would be
    # about 4 x turns
    private_sends = sum(len(api.sent("sendMessage", p["id"])) for p in (anna, petr, eva, jan))
    assert private_sends <= 4 + turns, (private_sends, turns)
    failed = [c for c in api.calls if not c["ok"] and "not modified" not in json.dumps(c)]
    assert not [c for c in failed if c["method"] == "sendMessage"], failed[:3]

    # every window is closed now: no private message is left with a button of one (a question, or "Change my
    # answer": a press would only say that the choice has expired), once the versions held back have gone out
    def answerable() -> list[dict]:
        with api._lock:
            shown = list(api.messages.items())
        return [m for (chat, _), m in shown if not chat.startswith("-") and '"d:' in json.dumps(m.get("reply_markup"))]

    wait_for(lambda: not answerable(), 25, "the buttons of closed windows taken away")


def answer_fully(users: Users, who: dict, rng: random.Random, done: set) -> str:
    """``who`` presses the buttons of their open question until the answer is complete ("✅ Locked in: …");
    -> the last press's reply."""
    pressed: str | None = None  # the keyboard last pressed: a sub-menu's screen is edited in by a worker

    def next_screen():
        found = users.open_decision(who, done)
        return found if found and json.dumps(found[2]) != pressed else None

    while True:
        mid, window, buttons = wait_for(next_screen, 30, f"a question for {who['first_name']}")
        pressed = json.dumps(buttons)
        said = users.press(who, mid, choose(rng, buttons)["callback_data"]).get("text")
        if said:
            done.add((who["id"], window))
            return said


def test_while_a_window_waits_the_table_sees_who_answered_and_the_answerer_sees_it_locked_in(
    redis_url, bot_api, stacks
):
    """The tick and "locked in" are edits that ask nothing: the outbox holds them (``tick_settle_seconds``,
    ``edit_settle_seconds``; 3 s here) in case a newer version replaces them; a window still waiting after
    that shows them. The press's reply says at once what is locked in."""
    api, base_url = bot_api
    holds = {"ARTEMIA_TICK_SETTLE_SECONDS": "3", "ARTEMIA_EDIT_SETTLE_SECONDS": "3"}
    stack = stacks(Stack(redis_url, api, base_url, **holds))
    users = Users(stack.webhook, api, group_id=-100559)
    anna, petr, eva = user(31, "Anna"), user(32, "Petr"), user(33, "Eva")
    users.open_table(anna, [petr, eva], creature=eva)
    done: set = set()
    answer_fully(users, eva, random.Random(1), done)  # the Creature chooses the board's side
    wait_for(lambda: users.open_decision(petr, done), 30, "Petr's first question")  # he will keep them waiting
    said = answer_fully(users, anna, random.Random(1), done)
    assert said.startswith("✅ Locked in: ") and "You may change it until" in said

    def tick_shown():
        return any("✅ Anna" in text for text in users.group_edits())

    def locked_in_shown():
        return any("✅ Locked in" in (m.get("text") or "") for m in users.messages(anna["id"]).values())

    wait_for(tick_shown, 30, "the group's status to show that Anna has answered")
    wait_for(locked_in_shown, 30, "Anna's question to show her answer locked in")
    assert users.open_decision(petr, done), "Petr has not answered: the window still waits"


def test_a_deadline_plays_for_the_silent_players_and_bots_take_over(redis_url, bot_api, stacks):
    api, base_url = bot_api
    stack = stacks(Stack(redis_url, api, base_url))
    users = Users(stack.webhook, api, group_id=-100556)
    anna, petr, eva = user(11, "Anna"), user(12, "Petr"), user(13, "Eva")
    users.open_table(anna, [petr, eva], settings=["deadline 1"])
    store = store_of(redis_url)
    game_id = store.game_of_chat(str(users.group["id"]))
    wait_for(game_over(users, store, game_id), 90, "the deadlines to play the whole game")

    resolved = [int(e.split(":")[1]) for e in store.resolution_log(game_id)[1:]]
    assert len(resolved) == len(set(resolved)) >= 3  # each window resolved once
    texts = users.group_sends() + users.group_edits()
    assert any("missed 3 deadlines in a row" in t for t in texts)  # the table is told
    for who in (anna, petr, eva):  # everyone was asked (a question with buttons) before the bot took over
        assert any(
            "d:" in json.dumps(c["params"].get("reply_markup"))
            for c in api.calls
            if c["ok"] and str(c["params"].get("chat_id")) == str(who["id"])
        )
    assert export.rebuild(store, game_id).to_json() == store.load(game_id).json


def test_a_player_who_blocked_the_bot_is_covered_and_the_group_told_how_to_fix_it(redis_url, bot_api, stacks):
    api, base_url = bot_api
    stack = stacks(Stack(redis_url, api, base_url))
    users = Users(stack.webhook, api, group_id=-100557)
    anna, petr, eva = user(21, "Anna"), user(22, "Petr"), user(23, "Eva")
    api.fail("blocked", times=None, chat=eva["id"])  # Eva blocked the bot after joining
    users.open_table(anna, [petr, eva], creature=eva)
    store = store_of(redis_url)
    game_id = store.game_of_chat(str(users.group["id"]))

    notice = wait_for(lambda: [t for t in users.group_sends() if t.startswith("⚠️")], 20, "the group notice")
    assert "Eva" in notice[0] and "Start" in notice[0] and "@artemia_test_bot" in notice[0]
    # her question (the board side) was answered by the bot at once: the daily deadline did not hold the table
    wait_for(lambda: store.load(game_id).version >= 2, 20, "the first step to resolve")
    rng = random.Random(7)
    play_by_buttons(users, [anna, petr], lambda: store.load(game_id).version >= 8, rng, timeout=60)
    assert store.streaks(game_id).get(0, 0) >= 3  # the Creature's seat is bot-played
    assert store.redis.exists(f"tg:blocked:{eva['id']}")  # /start clears it
    tries = [c for c in api.calls if str(c["params"].get("chat_id")) == str(eva["id"])]
    assert len(tries) == 1 and tries[0]["code"] == 403  # one try, then nothing more is sent to her
    assert len([t for t in users.group_sends() if t.startswith("⚠️")]) == 1


def test_a_storm_of_429s_loses_no_message_and_sends_none_twice(redis_url, bot_api, stacks):
    api, base_url = bot_api
    for method in ("sendMessage", "editMessageText"):  # the seats' messages, and the texts of the group
        api.fail("retry_after", 1, times=12, method=method)
    for method in ("sendPhoto", "editMessageCaption", "editMessageMedia"):  # the group's status picture
        api.fail("retry_after", 1, times=2, method=method)
    # audit mode: delivered batches are kept, so every stored message can be checked against what arrived
    stack = stacks(Stack(redis_url, api, base_url, ARTEMIA_OUTBOX_KEEP_SENT="1"))
    users = Users(stack.webhook, api, group_id=-100558)
    players = [user(31, "Anna"), user(32, "Petr"), user(33, "Eva"), user(34, "Jan")]
    users.open_table(players[0], players[1:], settings=["deadline 1"])
    store = store_of(redis_url)
    game_id = store.game_of_chat(str(users.group["id"]))
    wait_for(game_over(users, store, game_id), 120, "the game to end through the storm")

    def all_sent():
        stored = outbox(store, game_id)
        return stored and all(store.send_state(game_id, b, i) == "sent" for b, i, _ in stored) and stored

    stored = wait_for(all_sent, 60, "every stored message to be delivered")
    fired = collections.Counter(c["method"] for c in api.calls if c["code"] == 429)
    assert fired["sendMessage"] == fired["editMessageText"] == 12 and fired["sendPhoto"] == 2, fired
    assert fired["editMessageCaption"] + fired["editMessageMedia"] >= 2, fired

    chats = {m["chat"] for _, _, m in stored}
    for chat in chats:
        mine = [(b, i, m) for b, i, m in stored if m["chat"] == chat]
        plain = collections.Counter(m["text"] for _, _, m in mine if not m.get("slot"))
        slots = {m["slot"] for _, _, m in mine if m.get("slot")}
        new = users.sends(chat)
        # a closed status message that had to wait for the group's budget was folded into the next one
        # (`outbox.fold`): its slot may never have been sent at all
        sent_slots = {slot for slot in slots if store.shown(game_id, chat, slot)}
        # nothing sent twice: one new message per plain message and per living message sent, no more
        assert len(new) == sum(plain.values()) + len(sent_slots), chat
        # nothing lost: every plain message arrived, with its exact text
        assert collections.Counter(t for t in new if t in plain) == plain, chat
        # every living message shows its newest version (with the lines folded into it on top), or that version
        # was folded on, and each of its news lines is shown in the chat
        shown = {shown_text(m) for m in users.messages(int(chat)).values()}
        lines_shown = {line for text in shown for line in text.split("\n")}
        for slot in slots:
            newest = max((m for _, _, m in mine if m.get("slot") == slot), key=lambda m: m["seq"])
            newest = with_prefix(store, game_id, chat, newest)
            if newest.get("picture"):
                newest = {**newest, "text": caption_of(newest["text"])}  # a photo's caption: at most 1024 units
            if newest["text"] not in shown:
                assert newest.get("fold"), (chat, slot)
                assert set(newest["text"].split("\n")[: newest["news"]]) <= lines_shown, (chat, slot)
    # no lane stays locked: a deliverer still finishing a drain releases its lock (or its lease runs out)
    wait_for(lambda: not store.redis.keys(keys.lane_lock(game_id, "*")), 25, "every lane lock released")


def test_board_is_drawn_by_a_worker_once_and_then_sent_by_its_file_id(redis_url, bot_api, stacks):
    """/board through the web app, the status as text: the first is drawn and uploaded by a worker (the draw
    queue), the second of the same state is the webhook's own reply by file_id, in the group and in private;
    nothing is uploaded twice."""
    api, base_url = bot_api
    stack = stacks(Stack(redis_url, api, base_url, ARTEMIA_STATUS_PICTURE="0"))
    users = Users(stack.webhook, api, group_id=-100557)
    anna, petr = user(21, "Anna"), user(22, "Petr")
    users.open_table(anna, [petr], settings=["deadline 1h"])
    store = store_of(redis_url)
    game_id = store.game_of_chat(str(users.group["id"]))

    assert users.say(petr, "/board") is None  # the webhook never draws
    remembered = keys.telegram_boards(game_id)
    wait_for(lambda: store.redis.hlen(remembered), 30, "a worker to draw and send the board, and keep its file_id")
    assert len(api.sent("sendPhoto", users.group["id"])) == len(api.uploads) == 1
    file_id = next(iter(api.uploads))
    assert api.uploads[file_id].startswith(b"\x89PNG")
    assert store.redis.hvals(remembered) == [file_id.encode()]

    again = users.say(anna, "/board")
    assert again["method"] == "sendPhoto" and again["photo"] == file_id and again["chat_id"] == users.group["id"]
    mine = users.say(petr, "/board", private=True)
    assert mine["method"] == "sendPhoto" and mine["photo"] == file_id and mine["chat_id"] == petr["id"]
    assert len(api.uploads) == 1 and len(api.sent("sendPhoto")) == 1  # the replies went in the webhook's answers


def test_board_sends_the_status_picture_telegram_has_already(redis_url, bot_api, stacks):
    """With the status as the board's picture (the default), /board of the state the status shows is the webhook's
    own reply by the file_id the status's upload got: nothing drawn or uploaded again."""
    api, base_url = bot_api
    stack = stacks(Stack(redis_url, api, base_url))
    users = Users(stack.webhook, api, group_id=-100560)
    anna, petr = user(41, "Anna"), user(42, "Petr")
    users.open_table(anna, [petr], settings=["deadline 1h"])
    store = store_of(redis_url)
    game_id = store.game_of_chat(str(users.group["id"]))
    [status] = wait_for(lambda: api.sent("sendPhoto", users.group["id"]), 30, "the status picture")
    file_id = next(iter(api.uploads))
    assert status["params"]["caption"].startswith("🌍") or "Turn" in status["params"]["caption"]
    # the worker keeps the file_id once Telegram's answer is back: just after the fake Bot API recorded the call
    remembered = wait_for(lambda: store.redis.hvals(keys.telegram_boards(game_id)), 10, "the status's file_id kept")
    assert remembered == [file_id.encode()]

    mine = users.say(petr, "/board", private=True)  # the game waits for the Creature: the state is the status's
    assert mine["method"] == "sendPhoto" and mine["photo"] == file_id and mine["chat_id"] == petr["id"]
    assert len(api.uploads) == 1 and len(api.sent("sendPhoto")) == 1  # the reply went in the webhook's answer
