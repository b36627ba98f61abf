"""Fuzzing ``POST /telegram/webhook`` (issue 7), in process: httpx's ASGI transport against the real app on
fakeredis, the real pipeline (ingest, start_game, resolution) and the real engine.

A world is a group with a running 4-player game begun through the webhook itself; its updates are recorded and
then mutated (JSON structure, bytes), replayed, forged (callback data, strangers, wrong secret) or written
from scratch. Between inputs the game is kept moving: a window that closed is resolved in process and now and
then an asked player gives a real answer, so the fuzz meets every kind of window. A world is rebuilt every few
hundred inputs (fresh game seed, small Redis).

For every input: the answer is never a 5xx (the test client re-raises any exception, which fails the test).
For inputs that are invalid by construction — a wrong or missing secret, a body answered 400, a replayed
``update_id`` (a replayed press is answered again, and changes nothing either), a forged or stale button, a stranger's button, text that does not parse for the asked player,
group chatter and read-only commands — the whole Redis database is the same after as before, except the
``tg:upd:<id>`` marker that records an update as handled.
"""

import asyncio
import itertools
import json
import re

import httpx
import pytest
from pipeline_support import Clock, make_ctx
from test_fuzz_support import (
    FUZZ_EXAMPLES,
    diff,
    mutate_bytes,
    mutate_json,
    mutate_text,
    random_text,
    record,
    redis_state,
    rng_for,
    settle,
)

from service import commands
from service.channels import ui
from service.channels.telegram import inbound as telegram
from service.channels.telegram.handling import Env
from service.channels.telegram.tables import Tables
from service.commands.writing import describe
from service.game import Game
from service.web import SECRET_HEADER, create_app

SECRET = "fuzz_secret"
GROUP = {"id": -100555, "type": "supergroup", "title": "Fuzz"}
USERS = {n: {"id": 7000 + n, "is_bot": False, "first_name": f"U{n}", "language_code": "en"} for n in range(4)}
STRANGER = {"id": 9999, "is_bot": False, "first_name": "Stranger", "language_code": "cs"}
WORLD_INPUTS = 300
READ_ONLY_GROUP = {"status", "help", "rules", "start"}
# handled-update markers, who wrote to the bot, ops counters, flood buckets
IGNORE = (b"tg:upd:", b"tg:started:", b"artemia:metrics:", b"artemia:rl:in")


def private(user: dict) -> dict:
    return {"id": user["id"], "type": "private", "first_name": user["first_name"]}


def user_id(player: dict) -> int:
    """The Telegram user id of a seat, whatever the shape of its address ("7001", "tg:7001")."""
    return int(re.search(r"(\d+)$", str(player.get("user") or player.get("chat"))).group(1))


class World:
    def __init__(self, rng):
        self.rng = rng
        self.ctx = make_ctx(clock=Clock())
        self.env = Env(self.ctx, Tables(self.ctx.store.redis), "artemia_bot")
        self.loop = asyncio.new_event_loop()
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(create_app(self.env, SECRET)), base_url="http://fuzz.test"
        )
        self.ids = itertools.count(rng.randrange(1, 10**6))
        self.recorded: list[dict] = []
        self.posted_ids: list[int] = []
        self.begin()

    def close(self):
        self.loop.run_until_complete(self.client.aclose())
        self.loop.close()

    # --- talking to the webhook -----------------------------------------------------------------------------

    def post(self, body: bytes, secret: str | None = SECRET):
        headers = {"Content-Type": "application/json"}
        if secret is not None:
            headers[SECRET_HEADER] = secret
        response = self.loop.run_until_complete(self.client.post("/telegram/webhook", content=body, headers=headers))
        assert response.status_code < 500, (response.status_code, body[:300])
        return response

    def update(self, update: dict, record: bool = True):
        if record:
            self.recorded.append(update)
        self.posted_ids.append(update.get("update_id"))
        return self.post(json.dumps(update).encode())

    def message(self, user: dict, text: str, chat: dict) -> dict:
        n = next(self.ids)
        return {"update_id": n, "message": {"message_id": n, "date": 1, "chat": chat, "from": user, "text": text}}

    def press(self, user: dict, data: str) -> dict:
        n = next(self.ids)
        return {
            "update_id": n,
            "callback_query": {
                "id": f"q{n}",
                "from": user,
                "chat_instance": "c",
                "data": data,
                "message": {"message_id": 55, "date": 1, "chat": private(user)},
            },
        }

    # --- the game ---------------------------------------------------------------------------------------------

    def begin(self):
        lobby = self.update(self.message(USERS[0], "/newgame", GROUP)).json()
        payload = lobby["reply_markup"]["inline_keyboard"][0][0]["url"].split("?start=")[1]
        for n in (0, 1, 2, 3):  # everyone presses Join, the creator too
            self.update(self.message(USERS[n], f"/start {payload}", private(USERS[n])))
        self.update(self.message(USERS[self.rng.randrange(4)], "/creature", GROUP))
        self.update(self.message(USERS[0], "/begin", GROUP))
        games = self.ctx.store.redis.keys("{g:*}:snap")
        assert len(games) == 1, games
        self.game_id = games[0].decode()[3 : -len("}:snap")]
        self.meta = self.ctx.store.meta(self.game_id)
        self.user_of = {int(s): USERS[user_id(p) - 7000] for s, p in self.meta["players"].items()}
        self.settle()

    def snapshot(self):
        snap = self.ctx.store.load(self.game_id)
        return snap, Game.from_json(snap.json)

    def settle(self):
        """Resolve in process whatever window closed (as a worker would); a failure fails the test."""
        settle(self.ctx, self.game_id)

    def asked(self):
        snap, game = self.snapshot()
        if snap.status != "collecting":
            return snap, game, []
        answered = set(self.ctx.store.answers(self.game_id))
        return snap, game, [s for s in sorted(self.ctx.store.expected(self.game_id)) if s not in answered]

    def progress(self):
        """An asked player gives a real, complete answer by buttons; a window it closes is resolved, as between any
        two inputs (a press redelivered while its window is still resolving queues the resolution again, by design:
        `ingest.requeue_if_resolving`, so the next input's "changes nothing" is measured from a settled game)."""
        snap, game, missing = self.asked()
        if not missing:
            return
        seat = self.rng.choice(missing)
        choice = ui.Choice(self.game_id, snap.window, seat)
        for _ in range(10):
            legal = ui.follow(game, seat, choice).game.legal_actions(seat)
            choice = choice.choose(self.rng.randrange(len(legal)))
            if ui.follow(game, seat, choice).complete:
                break
        self.update(self.press(self.user_of[seat], choice.data()))
        self.settle()

    # --- one fuzz input ---------------------------------------------------------------------------------------

    def fuzz_one(self) -> str:
        rng = self.rng
        kinds = [
            "secret",
            "bytes",
            "json",
            "replay",
            "button",
            "stranger_button",
            "typed",
            "stranger_text",
            "group",
            "fresh",
        ]
        kind = rng.choice(kinds)
        snap, game, missing = self.asked()
        before = redis_state(self.ctx.store.redis, IGNORE)
        invalid = False
        if kind == "secret":
            base = json.dumps(rng.choice(self.recorded)).encode()
            response = self.post(base, secret=rng.choice([None, "", SECRET[:-1], SECRET + " ", "x" * 300]))
            assert response.status_code == 403
            invalid = True
        elif kind == "bytes":
            response = self.post(mutate_bytes(rng, json.dumps(rng.choice(self.recorded)).encode()))
            invalid = response.status_code == 400
        elif kind == "json":
            update = mutate_json(rng, rng.choice(self.recorded))
            if isinstance(update, dict) and "update_id" in update and rng.random() < 0.8:
                update["update_id"] = next(self.ids)  # fresh, or it would only test the dedup
            response = self.post(json.dumps(update).encode())
            invalid = response.status_code == 400
        elif kind == "replay":
            update = rng.choice(self.recorded)
            response = self.post(json.dumps(update).encode())
            if "callback_query" in update:  # a press is handled again (idempotent): its reply may have been lost
                assert response.status_code == 200 and response.json()["method"] == "answerCallbackQuery"
            else:
                assert response.status_code == 200 and response.content == b""
            invalid = True
        elif kind in ("button", "stranger_button"):
            user = (
                STRANGER if kind == "stranger_button" or not missing else self.user_of[rng.choice(list(self.user_of))]
            )
            data, invalid = self.forged_data(snap, game, user)
            response = self.update(self.press(user, data), record=False)
            assert response.json()["method"] == "answerCallbackQuery"
        elif kind == "typed":
            seat = rng.choice(missing) if missing else rng.choice(list(self.user_of))
            text = self.some_text(game, seat)
            invalid = bool(missing) and seat in missing and self.refused(text, game, seat)
            response = self.update(self.message(self.user_of[seat], text, private(self.user_of[seat])), record=False)
        elif kind == "stranger_text":
            text = self.some_text(game, 1)
            invalid = not text.split()[:1] or telegram._command(text, "artemia_bot")[0] not in ("start", "language")
            response = self.update(self.message(STRANGER, text, private(STRANGER)), record=False)
        elif kind == "group":
            text = rng.choice(
                ["/" + rng.choice(list(telegram.GROUP_COMMANDS) + ["frob", ""]) + " ", ""]
            ) + self.some_text(game, 1)
            command = telegram._command(text, "artemia_bot")[0]
            invalid = command is None or command not in telegram.GROUP_COMMANDS or command in READ_ONLY_GROUP
            user = rng.choice([STRANGER, *USERS.values()])
            response = self.update(self.message(user, text, GROUP), record=False)
        else:  # a fresh random update shape
            update = {
                "update_id": next(self.ids),
                rng.choice(["message", "callback_query", "my_chat_member", "edited_message", "poll"]): mutate_json(
                    rng, rng.choice(self.recorded).get("message") or {"x": 1}
                ),
            }
            response = self.post(json.dumps(update).encode())
            invalid = response.status_code == 400
        if invalid:
            after = redis_state(self.ctx.store.redis, IGNORE)
            assert after == before, f"{kind}: invalid input changed {diff(before, after)}"
        self.settle()
        return kind

    def some_text(self, game, seat) -> str:
        rng = self.rng
        legal = game.legal_actions(seat) if not game.is_over and seat in game.waiting_for() else []
        if legal and rng.random() < 0.5:
            return mutate_text(rng, describe(rng.choice(legal), rng.choice(["en", "cs"])))
        return random_text(rng)

    def refused(self, text, game, seat) -> bool:
        if text.strip().startswith("/"):
            return False  # a command, not a move: /language and /start may legitimately change things
        try:
            commands.parse(text, game, seat)
        except commands.CommandError:
            return True
        return False

    def forged_data(self, snap, game, user) -> tuple[str, bool]:
        """Callback data, and whether it is invalid by construction (it may be invalid anyway)."""
        rng = self.rng
        seat = next((s for s, u in self.user_of.items() if u is user), None)
        roll = rng.random()
        if roll < 0.25:
            return mutate_text(rng, ui.Choice(self.game_id, snap.window or 0, seat or 0).data()), user is STRANGER
        if roll < 0.4:
            return random_text(rng)[:64], True
        if roll < 0.55:  # a window that is not the open one
            return f"d:{self.game_id}:{max(0, (snap.window or 0) + rng.choice([-2, -1, 1, 7]))}:{seat or 0}::", True
        if roll < 0.65:
            return ui.Choice("nosuchgame", 1, 0).data(), True
        legal = game.legal_actions(seat) if seat is not None and not game.is_over else []
        # past the legal actions (999 is not: it is the "no cards this turn" button)
        first = (
            rng.choice([len(legal), len(legal) + 3, 990]) if rng.random() < 0.5 else rng.randrange(max(1, len(legal)))
        )
        chosen = (first,) + tuple(rng.randrange(200) for _ in range(rng.randint(0, 3)))
        menu = tuple(rng.randrange(50) for _ in range(rng.randint(0, 2)))
        copied = seat is not None and rng.random() < 0.2  # a button from another seat's keyboard
        on_keyboard_of = (seat + rng.randrange(1, 7)) % 7 if copied and seat is not None else (seat or 0)
        data = ui.Choice(self.game_id, snap.window or 0, on_keyboard_of, chosen, menu)
        try:
            text = data.data()
        except ValueError:
            return "d:" + "9" * 70, True
        invalid = (
            user is STRANGER
            or copied
            or snap.status != "collecting"
            or not game.answering(seat)  # (asked: waited for, or a question nothing waits for)
            or first >= len(legal)
        )
        return text, invalid


@pytest.mark.filterwarnings("ignore")
def test_webhook_survives_fuzz_and_invalid_input_changes_nothing():
    rng = rng_for("telegram")
    done, kinds, world = 0, {}, None
    while done < FUZZ_EXAMPLES:
        if world is None or done % WORLD_INPUTS == 0:
            if world:
                world.close()
            world = World(rng)
        if rng.random() < 0.2:
            world.progress()
        kind = world.fuzz_one()
        kinds[kind] = kinds.get(kind, 0) + 1
        done += 1
    world.close()
    record("telegram webhook", done)
    assert len(kinds) >= 8, kinds
