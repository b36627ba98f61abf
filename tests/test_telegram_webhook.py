"""The webhook and the group/private handlers, in process: HTTP in (Starlette's test client), fakeredis, the
real pipeline (ingest, start_game) and the real engine. Replies are read from the webhook's response body."""

import html
import itertools
import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from pipeline_support import Clock, answer_all, make_ctx
from starlette.testclient import TestClient

from service.channels import ui
from service.channels.telegram.handling import Env
from service.channels.telegram.tables import Tables
from service.commands.writing import describe
from service.game import Game
from service.ops import metrics
from service.pipeline import news, telling
from service.pipeline.resolution import resolve_window
from service.web import SECRET_HEADER, create_app

SECRET = "hook_secret"
GROUP = {"id": -100777, "type": "supergroup", "title": "Friday"}
USERS = {
    n: {"id": 1000 + n, "is_bot": False, "first_name": name, "language_code": "en"}
    for n, name in enumerate(["Anna", "Petr", "Eva", "Jan"])
}


class Chat:
    """Telegram as the users see it: posts updates to the webhook, keeps the replies."""

    def __init__(self, client):
        self.client = client
        self.ids = itertools.count(1)

    def post(self, update: dict, secret: str = SECRET):
        return self.client.post(
            "/telegram/webhook",
            content=json.dumps(update),
            headers={SECRET_HEADER: secret, "Content-Type": "application/json"},
        )

    def say(self, user: int, text: str, chat: dict = GROUP) -> dict | None:
        n = next(self.ids)
        response = self.post(
            {"update_id": n, "message": {"message_id": n, "date": 1, "chat": chat, "from": USERS[user], "text": text}}
        )
        assert response.status_code == 200
        return response.json() if response.content else None

    def press(self, user: int, data: str, message_id: int = 55) -> dict:
        n = next(self.ids)
        response = self.post(
            {
                "update_id": n,
                "callback_query": {
                    "id": f"q{n}",
                    "from": USERS[user],
                    "chat_instance": "c",
                    "data": data,
                    "message": {"message_id": message_id, "date": 1, "chat": private(user)},
                },
            }
        )
        assert response.status_code == 200
        return response.json()


def private(user: int) -> dict:
    return {"id": USERS[user]["id"], "type": "private"}


@pytest.fixture
def env():
    ctx = make_ctx(clock=Clock())
    return Env(ctx, Tables(ctx.store.redis), "artemia_bot")


@pytest.fixture
def chat(env):
    with TestClient(create_app(env, SECRET)) as client:
        yield Chat(client)


def begin(chat, env, players=4, reopen=True) -> tuple[str, dict]:
    lobby = chat.say(0, "/newgame@artemia_bot") if reopen else chat.say(0, "/status")
    link = lobby["reply_markup"]["inline_keyboard"][0][0]["url"]
    payload = link.split("?start=")[1]
    for user in range(players):  # everyone presses Join, the creator too: the bot may write to them in private
        assert "You are in" in chat.say(user, f"/start {payload}", chat=private(user))["text"]
    chat.say(2, "/creature")
    started = chat.say(0, "/begin")
    assert "The game begins! Eva is the Creature." in started["text"]
    game_id = env.lobby.at(str(GROUP["id"])).game
    return game_id, env.ctx.store.meta(game_id)


def first_asked(env, game_id: str, meta: dict):
    """(snapshot, game, the first seat asked, its user, the first complete choice of that seat)."""
    snap = env.ctx.store.load(game_id)
    game = Game.from_json(snap.json)
    seat = game.waiting_for()[0]
    user = int(meta["players"][str(seat)]["user"]) - 1000
    first = ui.Choice(game_id, snap.window, seat)
    complete = next(
        first.choose(i) for i in range(len(game.legal_actions(seat))) if ui.follow(game, seat, first.choose(i)).complete
    )
    return snap, game, seat, user, complete


def test_secret_and_malformed_bodies(chat):
    assert chat.post({"update_id": 1}, secret="wrong").status_code == 403
    assert chat.client.post("/telegram/webhook", content=b"{").status_code == 403
    assert chat.client.post("/telegram/webhook", content=b"{nope", headers={SECRET_HEADER: SECRET}).status_code == 400
    ignored = chat.post({"update_id": 2, "edited_message": {"message_id": 1}})
    assert (ignored.status_code, ignored.content) == (200, b"")


def test_lobby_with_deep_link_and_a_repeated_update(chat, env):
    lobby = chat.say(0, "/newgame")
    assert lobby["method"] == "sendMessage" and lobby["chat_id"] == GROUP["id"]
    assert "Players (1/7): Anna" in lobby["text"]
    table = env.lobby.at(str(GROUP["id"]))
    assert lobby["reply_markup"]["inline_keyboard"] == [
        [{"text": "Join", "url": f"https://t.me/artemia_bot?start=j{table.code}"}]
    ]
    assert f"Join code: {table.code}" in lobby["text"]
    assert "SMS" not in lobby["text"]  # no SMS number configured: no SMS join line
    assert "Deadline: daily: one step a day, at your own pace (24 h per step)" in lobby["text"]
    env.sms_number = "+15005550006"
    assert f"By SMS: text JOIN {table.code} to +15005550006." in chat.say(0, "/status")["text"]
    update = {
        "update_id": 999,
        "message": {"message_id": 9, "date": 1, "chat": GROUP, "from": USERS[1], "text": "/join"},
    }
    assert "Anna, Petr" in chat.post(update).json()["text"]
    assert chat.post(update).content == b""  # the same update again: nothing done, nothing said
    assert "already a game here" in chat.say(1, "/newgame")["text"]
    assert [p.name for p in env.lobby.at(str(GROUP["id"])).players] == ["Anna", "Petr"]


def test_only_the_creator_begins_and_with_enough_players(chat, env):
    chat.say(0, "/newgame")
    assert "needs 2 to 7 players" in chat.say(0, "/begin")["text"]
    chat.say(1, "/join")
    assert "Only the player who opened" in chat.say(1, "/begin")["text"]
    assert "Only the player who opened" in chat.say(1, "/settings expert on")["text"]
    assert env.lobby.at(str(GROUP["id"])).game is None
    assert "Expert variant: yes" in chat.say(0, "/settings expert on")["text"]


def test_settings_language_switches_the_group_to_czech(chat):
    chat.say(0, "/newgame")
    assert "Hráči (1/7)" in chat.say(0, "/settings lang cs")["text"]
    assert "Jen hráč, který hru založil" in chat.say(1, "/begin")["text"]


def test_the_table_time_zone_is_used_for_every_deadline_shown(chat, env):
    chat.say(0, "/newgame")
    assert "Time zone: UTC" in chat.say(0, "/settings")["text"]  # English tables default to UTC
    assert chat.say(0, "/settings tz Mars/Olympus")["text"].startswith("Usage: /settings")
    assert "Time zone: America/New_York" in chat.say(0, "/settings tz america/new_york")["text"]
    game_id, meta = begin(chat, env, reopen=False)
    assert meta["tz"] == "America/New_York"
    snap = env.ctx.store.load(game_id)
    local = datetime.fromtimestamp(snap.deadline, ZoneInfo("America/New_York")).strftime("%H:%M")
    assert f", {local} E" in chat.say(0, "/status")["text"]  # EST or EDT
    questions = [
        m
        for m in telling.step_messages(
            env.ctx,
            news.Step(
                game_id,
                meta,
                Game.from_json(snap.json),
                [],
                [],
                sorted(env.ctx.store.expected(game_id)),
                snap.deadline,
                snap.version,
                news.load_news(snap.news),
            ),
        )[0]
        if m.get("buttons")
    ]
    assert questions and all(f", {local} E" in m["text"] for m in questions)
    assert chat.say(0, "/settings tz default")["text"] == "The game has already begun."


def test_a_game_begins_and_buttons_record_answers(chat, env):
    holds = {"edit_settle_seconds": 15.0, "tick_settle_seconds": 10.0}
    for name, seconds in holds.items():  # (make_ctx holds nothing back: its jobs run in-process)
        setattr(env.ctx.settings, name, seconds)
    game_id, meta = begin(chat, env)
    assert meta["players"]["0"]["name"] == "Eva" and meta["group"] == str(GROUP["id"])
    snap, game, seat, user, complete = first_asked(env, game_id, meta)

    stranger = next(u for u in USERS if u != user)
    assert chat.press(stranger, complete.data())["text"] in (
        "This is not your game.",
        "This button is from another player's choices, not yours.",
    )
    assert chat.press(user, "d:garbage")["text"] == "This button is not valid."
    assert chat.press(user, ui.Choice(game_id, snap.window + 5, seat).data())["text"].startswith(
        "This choice has expired"
    )
    assert env.ctx.store.answers(game_id) == {}

    queued = (len(env.ctx.send_queue.jobs), len(env.ctx.refresh_queue.jobs))
    answer = chat.press(user, complete.data())
    spoken = "; ".join(ui.spoken(a, "en") for a in ui.follow(game, seat, complete).actions)
    # the last answer of its window: the reply names it, with no time to change it (the window is closing)
    assert answer == {
        "method": "answerCallbackQuery",
        "callback_query_id": answer["callback_query_id"],
        "text": f"✅ Locked in: {spoken}",
    }
    assert env.ctx.store.answers(game_id)[seat] == ui.follow(game, seat, complete).actions
    # the press writes nothing for its message: the step that closes the window shows it (a new question, its
    # results, or the answer locked in for good, `test_pipeline_news`)
    assert (len(env.ctx.send_queue.jobs), len(env.ctx.refresh_queue.jobs)) == queued

    resolve_window(env.ctx, game_id, snap.window)  # what a worker does next
    snap, game, seat, user, complete = first_asked(env, game_id, meta)
    assert len(game.waiting_for()) > 1
    before = len(env.ctx.send_queue.jobs)
    said = chat.press(user, complete.data())["text"]
    assert said.startswith("✅ Locked in: ") and "You may change it until " in said  # its window stays open
    # an answer that leaves the window open: one job (on the refresh queue, not the delivery queue), the refresh
    # of the status and of the seat's turn message
    assert len(env.ctx.send_queue.jobs) == before
    assert [j.id for j in env.ctx.refresh_queue.jobs] == [f"refresh-{game_id}-{snap.window}"]
    answers, expected, _, meta = env.ctx.store.window_state(game_id)
    refreshed = telling.refresh_messages(
        env.ctx, game_id, snap, meta, news.load_news(snap.news), answers, expected, seat
    )
    [locked_in] = [m for m in refreshed if m["seat"] == seat]
    assert "✅ Locked in:" in locked_in["text"] and locked_in["buttons"]  # "Change my answer"
    assert locked_in["settle"] == 15.0
    assert [m["settle"] for m in refreshed if m["group"]] == [10.0]


def test_the_answers_the_webhook_stores_are_counted_with_its_requests(env):
    with TestClient(create_app(env, SECRET)) as client:
        chat = Chat(client)
        game_id, meta = begin(chat, env)
        snap, game, seat, user, complete = first_asked(env, game_id, meta)
        assert chat.press(user, complete.data())["text"].startswith("✅ Locked in: ")
        assert env.ctx.counts is client.app.state.counts  # buffered: no round trip of the answer's own
    # written with the request counts, every second and when the server stops
    assert env.ctx.store.redis.hget(metrics.COUNTERS_KEY, "answers|channel=any") == b"1"
    assert env.ctx.store.redis.hget(metrics.COUNTERS_KEY, "updates|channel=telegram,status=200") == b"8"


def test_cancel_by_the_creator_ends_a_running_game_for_everyone(chat, env):
    game_id, meta = begin(chat, env)
    snap, game, seat, user, complete = first_asked(env, game_id, meta)
    assert "Only the player who opened" in chat.say(1, "/cancel")["text"]
    assert env.ctx.store.load(game_id).status == "collecting"

    assert chat.say(0, "/cancel")["text"] == "The game is cancelled. /newgame opens a new one."
    assert env.ctx.store.load(game_id).status == "over" and env.ctx.store.expected(game_id) == set()
    due = env.ctx.store.redis.zscore("artemia:due", game_id)  # no deadline will fire; it is compacted later
    assert due == env.ctx.clock() + env.ctx.settings.finished_compact_after_seconds
    # the group heard it in the reply, no SMS player: only the living messages are edited to say it, the group's
    # status and the asked seat's question (its buttons gone)
    cancel = [env.ctx.store.message(game_id, "cancel", i) for i in range(env.ctx.store.batch_size(game_id, "cancel"))]
    assert {(m["chat"], m["slot"].split(":")[1], m["buttons"]) for m in cancel} == {
        (str(GROUP["id"]), "s0", None),
        (meta["players"][str(seat)]["chat"], "p0", None),
    }
    assert all(m["text"].startswith("🚫 Anna cancelled this game") for m in cancel)
    assert chat.press(user, complete.data())["text"].startswith("This choice has expired")
    assert env.ctx.store.answers(game_id) == {}
    assert chat.say(0, "/newgame@artemia_bot")["text"].startswith("A game of Not Alone is open here.")


def test_typed_answer_in_private(chat, env):
    game_id, meta = begin(chat, env)
    game = Game.from_json(env.ctx.store.load(game_id).json)
    seat = game.waiting_for()[0]
    user = int(meta["players"][str(seat)]["user"]) - 1000
    typed = describe(game.legal_actions(seat)[0])
    said = chat.say(user, typed, chat=private(user))["text"]
    assert said.startswith("Locked in:")
    assert seat in env.ctx.store.answers(game_id)
    # typed, so its reply is below the turn message: the step does not take the player as reading that message
    assert env.ctx.store.absence(game_id)[3] == {seat}
    assert "Turn" in chat.say(0, "/status")["text"]


def test_rules_and_unknown_commands(chat):
    assert chat.say(0, "/rules řeka")["text"].startswith("River")
    text = chat.say(0, "/rules river")["text"]
    assert text.startswith("River\n") and "2 place cards" in text
    assert chat.say(0, "/rules mirage")["text"].startswith("Mirage · phase 2")
    assert "no card of that name" in chat.say(0, "/rules xyzzy")["text"]
    assert "In the group I know" in chat.say(0, "/frobnicate")["text"]
    assert chat.say(0, "/join@other_bot") is None


def test_help_and_the_lobby_in_czech(chat, env):
    czech = {**USERS[0], "language_code": "cs"}
    response = chat.post(
        {"update_id": 5000, "message": {"message_id": 1, "date": 1, "chat": private(0), "from": czech, "text": "/help"}}
    )
    help_text = response.json()["text"]
    assert help_text.startswith("Nejsme tu sami po zprávách.") and "/join <kód>" in help_text
    assert "/addbot" in help_text and "hru tebe proti botům" in help_text  # solo play and bots, in Czech
    env.sms_number = "+15005550006"
    chat.say(0, "/newgame")
    lobby = chat.say(0, "/settings lang cs")["text"]
    assert "Kód hry: " in lobby and "Přes SMS: pošli PRIPOJ " in lobby
    assert "Lhůta: denně: jeden krok za den, každý svým tempem (24 h na každý krok)" in lobby
    assert (
        "Použití: /join <kód>"
        in chat.post(
            {
                "update_id": 5001,
                "message": {"message_id": 2, "date": 1, "chat": private(0), "from": czech, "text": "/join"},
            }
        ).json()["text"]
    )


def test_join_by_code_in_private_and_answers_prefixed_with_the_code(chat, env):
    chat.say(0, "/newgame")
    code = env.lobby.at(str(GROUP["id"])).code
    assert chat.say(1, f"/join {code.lower()}", chat=private(1))["text"].startswith(f"You are in game {code}!")
    assert "That game is no longer open." == chat.say(1, "/join ZZ99", chat=private(1))["text"]
    assert "I cannot write to Anna in private yet" in chat.say(0, "/begin")["text"]  # the creator never started me
    chat.say(0, "/start", chat=private(0))
    assert chat.say(0, "/begin")["text"].startswith("The game begins!")
    meta = env.ctx.store.meta(code)
    game = Game.from_json(env.ctx.store.load(code).json)
    seat = sorted(env.ctx.store.expected(code))[0]
    user = int(meta["players"][str(seat)]["user"]) - 1000
    other = "AB23" if code != "AB23" else "CD45"
    assert f"no question to answer in game {other}" in chat.say(user, f"{other} pass", chat=private(user))["text"]
    typed = describe(game.legal_actions(seat)[0])
    assert chat.say(user, f"{code} {typed}", chat=private(user))["text"].startswith("Locked in:")
    assert seat in env.ctx.store.answers(code)


def test_one_game_per_forum_topic(chat, env):
    forum = {"id": -100999, "type": "supergroup", "title": "Forum", "is_forum": True}

    def in_topic(user, text, topic):
        n = next(chat.ids)
        response = chat.post(
            {
                "update_id": n,
                "message": {
                    "message_id": n,
                    "date": 1,
                    "chat": forum,
                    "from": USERS[user],
                    "text": text,
                    "message_thread_id": topic,
                    "is_topic_message": True,
                },
            }
        )
        return response.json()

    first = in_topic(0, "/newgame", 11)
    assert first["message_thread_id"] == 11
    assert "Players (1/7)" in in_topic(1, "/newgame", 12)["text"]
    assert "already a game here" in in_topic(2, "/newgame", 11)["text"]
    assert env.lobby.at("-100999/11").creator == "tg:1000" and env.lobby.at("-100999/12").creator == "tg:1001"


def test_start_again_takes_a_bot_played_seat_back(chat, env):
    game_id, meta = begin(chat, env)
    seat = next(int(s) for s, p in meta["players"].items() if p.get("user"))
    user = int(meta["players"][str(seat)]["user"]) - 1000
    env.ctx.store.set_streak(game_id, seat, 3)  # as after three missed deadlines or a block
    said = chat.say(user, "/start", chat=private(user))["text"]
    assert said == f"Welcome back! The next question in {game_id} is yours."
    assert env.ctx.store.streaks(game_id)[seat] == 0
    assert chat.say(user, "/start", chat=private(user))["text"].startswith("Not Alone by message.")  # help, again
    env.ctx.store.set_streak(game_id, seat, 3)
    assert chat.say(user, "/back", chat=private(user))["text"] == said  # /back does the same
    assert env.ctx.store.streaks(game_id)[seat] == 0


def test_after_the_game_its_creator_may_show_the_hidden_choices_on_the_watch_page(chat, env):
    game_id, meta = begin(chat, env, players=3)
    page = f"/w/{meta['watch']}"
    assert "only after the game is over" in chat.say(0, "/reveal")["text"]
    for _ in range(400):
        if env.ctx.store.load(game_id).status == "over":
            break
        answer_all(env.ctx, game_id)
    assert env.ctx.store.load(game_id).status == "over"
    before = chat.client.get(page)
    assert '<section class="hidden">' not in before.text and "Hidden choices" not in before.text
    assert chat.say(1, "/reveal")["text"] == "Only the player who opened this game may do that."
    assert '<section class="hidden">' not in chat.client.get(page).text
    assert "hidden cards and picks too" in chat.say(0, "/reveal")["text"]
    after = chat.client.get(page, headers={"If-None-Match": before.headers["etag"]})
    assert after.status_code == 200
    assert "Hidden choices (shown by the table's creator after the game)" in html.unescape(after.text)
    assert "Hunt cards in hand: " in after.text and "Places in hand: " in after.text
    chosen = [chat.client.get(f"{page}/data.json?step={n}").json()["parts"]["head"] for n in range(1, 6)]
    assert any("Chosen face down: " in head for head in chosen)  # the picks before each reveal


def test_the_creator_may_still_reveal_a_finished_game_after_a_new_table_or_a_cancelled_one(chat, env):
    first, meta = begin(chat, env, players=3)
    while env.ctx.store.load(first).status != "over":
        answer_all(env.ctx, first)
    assert "Join" in str(chat.say(0, "/newgame@artemia_bot")["reply_markup"])  # a new table here, not begun
    assert chat.say(1, "/reveal")["text"] == "Only the player who opened this game may do that."
    assert "hidden cards and picks too" in chat.say(0, "/reveal")["text"]
    assert "Hidden choices (shown by the table's creator" in html.unescape(chat.client.get(f"/w/{meta['watch']}").text)

    second, meta = begin(chat, env, players=3, reopen=False)
    assert "only after the game is over" in chat.say(0, "/reveal")["text"]
    assert "cancelled" in chat.say(0, "/cancel")["text"]
    assert "hidden cards and picks too" in chat.say(0, f"/reveal {second.lower()}")["text"]
    assert "Hidden choices (shown by the table's creator" in html.unescape(chat.client.get(f"/w/{meta['watch']}").text)
    assert "You opened no finished game here" in chat.say(0, "/reveal NOSUCH")["text"]
