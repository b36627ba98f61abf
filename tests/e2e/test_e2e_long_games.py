"""End to end, long games (issue 17): away and back, a pause, the record and the history, through the web app,
real `python -m workers` processes and the fake Bot API. The players type commands and press the buttons they
were sent; what they see is read back from the fake API."""

import random
import time

import pytest
import redis
from e2e_support import Stack, Users, choose, play_by_buttons, user, wait_for

from service.pipeline import records
from service.store import Store

pytestmark = pytest.mark.integration

HOUR = 3600


def store_of(redis_url: str) -> Store:
    return Store(redis.Redis.from_url(redis_url))


def group_says(users: Users, part: str) -> list[str]:
    return [t for t in users.group_sends() if part in t]


def test_away_players_are_covered_and_the_finished_game_is_recorded(redis_url, bot_api, stacks):
    api, base_url = bot_api
    stack = stacks(Stack(redis_url, api, base_url))
    users = Users(stack.webhook, api, group_id=-100571)
    anna, petr, eva = user(71, "Anna"), user(72, "Petr"), user(73, "Eva")
    users.open_table(anna, [petr, eva], settings=[f"deadline {HOUR}"])
    store = store_of(redis_url)
    game_id = store.game_of_chat(str(users.group["id"]))

    def away():
        return away_seats(store, game_id)

    # bad input: a clear answer, nothing stored
    said = users.say(anna, "/away 2020-01-01 10:00", private=True)["text"]
    assert "passed" in said and not away()
    said = users.say(anna, "/away 400d", private=True)["text"]
    assert "at most 30 days" in said and not away()
    said = users.say(anna, "/away tomorrowish", private=True)["text"]
    assert "Say until when" in said and not away()

    said = users.say(anna, "/away 2d", private=True)["text"]
    assert said.startswith("Away until") and game_id in said
    assert len(away()) == 1
    notice = wait_for(lambda: group_says(users, "💤 Anna is away until"), 20, "the table to be told")
    assert len(notice) == 1
    assert "Anna is away until" in users.say(petr, "/status")["text"]

    # Petr and Eva play a few steps by pressing buttons; Anna's seat never holds them up
    rng = random.Random(17)
    version, petr_seat = store.load(game_id).version, store_seat(store, game_id, petr)

    def played_a_while():  # a few steps, and one at least where Petr answered in person (the seats are dealt at random)
        return store.load(game_id).version >= version + 3 and f"times:{petr_seat}" in store.tally(game_id)

    play_by_buttons(users, [petr, eva], played_a_while, rng, timeout=90)
    assert store.streaks(game_id).get(store_seat(store, game_id, anna), 0) == 0  # covered, not timed out

    # then they go away too, and the bot finishes the game
    for who in (petr, eva):
        assert users.say(who, "/away 10d", private=True)["text"].startswith("Away until")
    wait_for(lambda: store.load(game_id).status == "over", 120, "the bots to finish the game")

    def petr_stats():
        return users.say(petr, "/stats", private=True)["text"]

    stats = wait_for(lambda: "1 finished game" in (said := petr_stats()) and said, 20, "the record")
    assert "1 finished game." in stats and "Deadlines missed: 0 of " in stats and "Median answer time" in stats
    history = users.say(anna, "/history")["text"]
    assert game_id in history and "won" in history and "Eva" in history

    # /stats off deletes the record; /forgetme takes a name out of the history
    assert "deleted" in users.say(petr, "/stats off", private=True)["text"]
    assert "You keep no record" in petr_stats()
    assert "gone from 1 finished game," in users.say(eva, "/forgetme", private=True)["text"]
    history = users.say(anna, "/history")["text"]
    assert game_id in history and "Eva" not in history and records.FORGOTTEN in history


def test_a_pause_moves_the_deadline_and_only_players_may_ask_for_it(redis_url, bot_api, stacks):
    api, base_url = bot_api
    stack = stacks(Stack(redis_url, api, base_url))
    users = Users(stack.webhook, api, group_id=-100572)
    anna, petr, eva, zoe = user(81, "Anna"), user(82, "Petr"), user(83, "Eva"), user(84, "Zoe")
    users.open_table(anna, [petr, eva], settings=[f"deadline {HOUR}"])
    store = store_of(redis_url)
    game_id = store.game_of_chat(str(users.group["id"]))
    before = store.load(game_id).deadline

    # bad input: a clear answer, nothing changes
    assert users.say(zoe, "/pause 2")["text"] == "Only the table's players may pause it."
    assert "1 to 7 days" in users.say(anna, "/pause 30")["text"]
    assert "Only the player who opened" in users.say(petr, "/resume")["text"]
    assert users.say(anna, "/resume")["text"] == "The table is not paused."
    assert store.load(game_id).deadline == before and store.paused_until(game_id) is None

    # a player's pause is a vote; the creator's is a pause
    assert "1 of the 2 votes" in users.say(petr, "/pause 2")["text"]
    assert store.paused_until(game_id) is None
    said = users.say(anna, "/pause 1")["text"]
    assert said.startswith("Paused until")
    paused = store.load(game_id)
    assert paused.deadline == pytest.approx(before + 86400, abs=5)
    assert "paused already" in users.say(anna, "/pause 1")["text"]
    assert store.load(game_id).deadline == paused.deadline
    wait_for(lambda: group_says(users, "⏸ The table is paused until"), 20, "the table to be told of the pause")
    assert "Paused until" in users.say(eva, "/status")["text"]

    assert users.say(anna, "/resume")["text"] == "The pause is over."
    assert store.load(game_id).deadline == pytest.approx(before, abs=5)
    assert store.paused_until(game_id) is None
    wait_for(lambda: group_says(users, "▶️ The pause is over"), 20, "the table to be told of the end")


def away_seats(store: Store, game_id: str) -> dict[int, float]:
    return {seat: until for seat, until in store.absence(game_id)[1].items() if until > time.time()}


def store_seat(store: Store, game_id: str, who: dict) -> int:
    return next(int(s) for s, p in store.meta(game_id)["players"].items() if p.get("user") == str(who["id"]))


def offered_token(answer: dict) -> str:
    """The token of a seat offer, from the url of its "Take the seat" button."""
    url = answer["reply_markup"]["inline_keyboard"][0][0]["url"]
    assert "?start=s" in url, url
    return url.split("?start=s")[1]


def press_reply(users: Users, who: dict, answer: dict, rng: random.Random) -> None:
    """Answer the question a webhook reply carries (a newcomer's first one), one press."""
    buttons = [
        b
        for row in (answer.get("reply_markup") or {}).get("inline_keyboard", [])
        for b in row
        if b.get("callback_data", "").startswith("d:")
    ]
    if buttons:
        users.press(who, 1, choose(rng, buttons)["callback_data"])


def test_stand_ins_take_a_handed_seat_and_a_left_one_and_the_game_goes_on(redis_url, bot_api, stacks):
    api, base_url = bot_api
    stack = stacks(Stack(redis_url, api, base_url))
    users = Users(stack.webhook, api, group_id=-100573)
    anna, petr, eva = user(91, "Anna"), user(92, "Petr"), user(93, "Eva")
    zoe, max_ = user(94, "Zoe"), user(95, "Max")
    users.open_table(anna, [petr, eva], settings=[f"deadline {HOUR}"])
    store = store_of(redis_url)
    game_id = store.game_of_chat(str(users.group["id"]))
    petr_seat, eva_seat = store_seat(store, game_id, petr), store_seat(store, game_id, eva)
    rng = random.Random(5)

    token = offered_token(users.say(petr, "/handover", private=True))
    # a stand-in who already sits at the table: refused, nothing changes
    said = users.say(eva, f"/start s{token}", private=True)["text"]
    assert "already sit at this table" in said and store_seat(store, game_id, petr) == petr_seat
    taken = users.say(zoe, f"/start s{token}", private=True)
    role = "the Creature" if petr_seat == 0 else f"Hunted {petr_seat}"
    assert taken["text"].startswith(f"🔁 You now play Petr's seat in game {game_id}: {role}.")
    assert "Turn " in taken["text"] and store_seat(store, game_id, zoe) == petr_seat
    assert "already taken" in users.say(max_, f"/standin {token}", private=True)["text"]  # one use
    wait_for(lambda: group_says(users, "🔁 Zoe takes Petr's seat."), 20, "the table to be told")
    wait_for(
        lambda: any("is now Zoe's" in c["params"]["text"] for c in api.sent("sendMessage", petr["id"])),
        20,
        "Petr to be told",
    )
    press_reply(users, zoe, taken, rng)

    # Eva leaves mid-game: the bot plays her seat; the creator offers it, and Max takes it
    assert users.say(eva, "/leave")["text"].startswith(f"You left game {game_id}")
    wait_for(lambda: group_says(users, "🚪 Eva left the game"), 20, "the table to be told")
    assert "Only the player who opened" in users.say(zoe, "/replace Eva")["text"]
    assert "no such seat" in users.say(anna, "/replace Nobody")["text"]
    token = offered_token(users.say(anna, "/replace eva"))
    taken = users.say(max_, f"/standin {token}", private=True)
    assert taken["text"].startswith("🔁 You now play Eva's seat") and store_seat(store, game_id, max_) == eva_seat
    press_reply(users, max_, taken, rng)

    version = store.load(game_id).version
    play_by_buttons(users, [anna, zoe, max_], lambda: store.load(game_id).version >= version + 3, rng, timeout=60)
    assert store.games_of_user(str(petr["id"])) == [] and store.games_of_user(str(eva["id"])) == []
    assert users.say(petr, "/status", private=True)["text"] == "You are in no game."


FORUM = -100574


def say_in(users: Users, who: dict, text: str, topic: int | None) -> dict:
    """``who`` writes in a topic of the forum (None: its General topic, where messages carry no thread)."""
    n = next(users.ids)
    message = {"message_id": n, "date": int(time.time()), "chat": users.group, "from": who, "text": text}
    if topic:
        message |= {"message_thread_id": topic, "is_topic_message": True}
    return users.post({"update_id": n, "message": message}) or {}


def open_in_topic(users: Users, topic: int, creator: dict, others: list[dict]) -> str:
    lobby = say_in(users, creator, "/newgame", topic)
    assert lobby["message_thread_id"] == topic, lobby
    payload = lobby["reply_markup"]["inline_keyboard"][0][0]["url"].split("?start=")[1]
    for who in [creator, *others]:
        users.say(who, f"/start {payload}", private=True)
    return payload[1:]


def test_a_forum_hosts_one_table_per_topic_and_commands_act_on_their_topic(redis_url, bot_api, stacks):
    api, base_url = bot_api
    stack = stacks(Stack(redis_url, api, base_url))
    users = Users(stack.webhook, api, group_id=FORUM)
    users.group = {"id": FORUM, "type": "supergroup", "title": "Forum", "is_forum": True}
    anna, eva, petr, jan = user(101, "Anna"), user(102, "Eva"), user(103, "Petr"), user(104, "Jan")
    store = store_of(redis_url)

    first = open_in_topic(users, 7, anna, [eva])
    second = open_in_topic(users, 9, petr, [jan])
    assert first != second
    assert "already a game here" in say_in(users, jan, "/newgame", 7)["text"]  # one table per topic
    assert say_in(users, jan, "/status", None)["text"].startswith("There is no game here")  # General has none
    for topic, creator in ((7, anna), (9, petr)):
        began = say_in(users, creator, "/begin", topic)
        assert "begins" in began["text"] and began["message_thread_id"] == topic
    assert store.game_of_chat(f"{FORUM}/7") == first and store.game_of_chat(f"{FORUM}/9") == second

    def threads():  # every message the bot sent to the forum, by topic
        sends = api.sent("sendMessage", FORUM) + api.sent("sendPhoto", FORUM)
        return [int(c["params"].get("message_thread_id") or 0) for c in sends]

    wait_for(lambda: {7, 9} <= set(threads()), 20, "each table's status in its own topic")
    assert set(threads()) == {7, 9}  # nothing to the forum outside the tables' topics

    # commands act on the topic's table: a pause in topic 7 pauses the first game only
    assert say_in(users, petr, "/pause 1", 7)["text"] == "Only the table's players may pause it."
    assert say_in(users, anna, "/pause 1", 7)["text"].startswith("Paused until")
    assert store.paused_until(first) is not None and store.paused_until(second) is None
    assert "Paused until" in say_in(users, eva, "/status", 7)["text"]
    assert "Paused until" not in say_in(users, jan, "/status", 9)["text"]
    notice = wait_for(
        lambda: [c for c in api.sent("sendMessage", FORUM) if "⏸" in c["params"]["text"]], 20, "the pause notice"
    )
    assert [int(c["params"]["message_thread_id"]) for c in notice] == [7]
