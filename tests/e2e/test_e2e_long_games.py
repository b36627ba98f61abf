"""End to end, long games (issue 17): away and back, a pause, the record and the history, through the web app,
real `python -m workers` processes and the fake Bot API. The players type commands and press the buttons they
were sent; what they see is read back from the fake API."""

import random
import time

import pytest
import redis
from e2e_support import Stack, Users, play_by_buttons, user, wait_for

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
    version = store.load(game_id).version
    play_by_buttons(users, [petr, eva], lambda: store.load(game_id).version >= version + 3, rng, timeout=60)
    assert store.streaks(game_id).get(store_seat(store, game_id, anna), 0) == 0  # covered, not timed out

    # then they go away too, and the bot finishes the game
    for who in (petr, eva):
        assert users.say(who, "/away 10d", private=True)["text"].startswith("Away until")
    wait_for(lambda: store.load(game_id).status == "over", 120, "the bots to finish the game")

    def petr_stats():
        return users.say(petr, "/stats", private=True)["text"]

    stats = wait_for(lambda: "finished game" in petr_stats() and petr_stats(), 20, "the record")
    assert "1 finished game." in stats and "Deadlines missed: 0 of " in stats and "Median answer time" in stats
    history = users.say(anna, "/history")["text"]
    assert game_id in history and "won" in history and "Eva" in history

    # /stats off deletes the record; /forgetme takes a name out of the history
    assert "deleted" in users.say(petr, "/stats off", private=True)["text"]
    assert "You keep no record" in petr_stats()
    assert "1 finished games" in users.say(eva, "/forgetme", private=True)["text"]
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
