"""Fuzzing ``POST /sms/twilio`` (issue 7), in process: httpx's ASGI transport against the web app
(``service.web.create_app``) on fakeredis with the real pipeline, lobby and engine. Requests are signed the way
Twilio signs them (``tests/fake_twilio.twilio_signature``) for the public URL, or deliberately not.

A world is a 3-seat game begun by SMS (``NEW 3`` / ``JOIN <code>`` / ``GO``) plus numbers that are in no game.
Inputs: bad or missing signatures, signed forms with mutated fields (From, MessageSid, Body, extra and missing
fields), byte-damaged bodies, JSON bodies, replays of a handled MessageSid, random and mutated texts from
players and strangers. Between inputs a closed window is resolved in process and now and then a player sends a
real move, so the game moves on.

For every input the answer is never a 5xx. For inputs invalid by construction — a bad signature, a body
answered 400, no usable sender or MessageSid, a replayed MessageSid, a stranger's text that is no keyword, a
player's text that does not parse — the Redis database is unchanged except the ``artemia:sms:sid:<sid>``
marker of a handled message (and the ops counters).
"""

import asyncio
import itertools
import json
import re
from collections import Counter
from urllib.parse import urlencode

import httpx
from fake_twilio import twilio_signature
from pipeline_support import Clock, make_ctx
from test_fuzz_support import (
    FUZZ_EXAMPLES,
    diff,
    junk_value,
    mutate_bytes,
    mutate_text,
    random_text,
    record,
    redis_state,
    rng_for,
    settle,
)

from service import commands
from service.channels.sms import inbound as sms
from service.channels.telegram.handling import Env
from service.channels.telegram.tables import Tables
from service.commands.words import typed
from service.commands.writing import describe
from service.config import Settings
from service.game import Game
from service.pipeline.lobby import sms_address
from service.web import create_app

PUBLIC = "https://game.example"
URL = PUBLIC + "/sms/twilio"
TOKEN = "fuzz-token"
PLAYERS = ["+447700100001", "+447700100002", "+447700100003"]
STRANGERS = ["+447777000001", "+15005550123"]
KEYWORDS = {
    "STOP",
    "STOPALL",
    "UNSUBSCRIBE",
    "CANCEL",
    "END",
    "QUIT",
    "START",
    "YES",
    "UNSTOP",
    "HELP",
    "INFO",
    "NEW",
    "JOIN",
    "GO",
    "ASCII",
    "LANG",
}
IGNORE = (b"artemia:sms:sid:", b"artemia:metrics:", b"tg:upd:", b"artemia:rl:in")
WORLD_INPUTS = 300


def code_like(word: str) -> bool:
    return (
        len(word) == 4
        and word.isascii()
        and word.isalnum()
        and any(c.isdigit() for c in word)
        and any(c.isalpha() for c in word)
    )


class World:
    def __init__(self, rng):
        self.rng = rng
        self.ctx = make_ctx(clock=Clock())
        self.app = create_app(Env(self.ctx, Tables(self.ctx.store.redis), "artemia_bot"), "tg-secret")
        settings = Settings(
            twilio_account_sid="AC" + "0" * 32,
            twilio_auth_token=TOKEN,
            twilio_from="+15005550006",
            sms_public_url=PUBLIC,
        )
        if not any(getattr(route, "path", None) == "/sms/twilio" for route in self.app.routes):
            self.app.router.routes.extend(sms.ROUTES)  # the web app does not mount the SMS route (yet)
        if getattr(self.app.state, "sms", None) is None:
            self.app.state.sms = sms.build(self.ctx, settings)
        self.app.state.sms.settings = settings
        self.loop = asyncio.new_event_loop()
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(self.app), base_url="http://fuzz.test")
        self.sids = itertools.count(rng.randrange(10**9))
        self.handled: list[dict] = []
        self.begin()

    def close(self):
        self.loop.run_until_complete(self.client.aclose())
        self.loop.close()

    # --- talking to the webhook -------------------------------------------------------------------------------

    def form(self, number: str, body: str) -> dict:
        sid = f"SM{next(self.sids):032d}"
        return {
            "MessageSid": sid,
            "SmsSid": sid,
            "AccountSid": "AC" + "0" * 32,
            "From": number,
            "To": "+15005550006",
            "Body": body,
            "NumMedia": "0",
        }

    def post(self, content: bytes, headers: dict):
        response = self.loop.run_until_complete(self.client.post("/sms/twilio", content=content, headers=headers))
        assert response.status_code < 500, (response.status_code, content[:300])
        return response

    def signed(self, form: dict, url: str = URL, token: str = TOKEN):
        response = self.post(
            urlencode(form).encode(),
            {
                "Content-Type": "application/x-www-form-urlencoded",
                "X-Twilio-Signature": twilio_signature(token, url, form),
            },
        )
        if response.status_code == 200:  # refused (403, 400), a form was never handled: sending it again is new
            self.handled.append(form)
        return response

    def text(self, number: str, body: str) -> str:
        response = self.signed(self.form(number, body))
        assert response.status_code == 200, response.text
        return response.text

    # --- the game ---------------------------------------------------------------------------------------------

    def begin(self):
        opened = self.text(PLAYERS[0], "NEW 3 fast")
        self.code = next(w for w in re.findall(r"\b[A-Z0-9]{4}\b", opened) if code_like(w))
        self.text(PLAYERS[1], f"JOIN {self.code}")
        self.text(PLAYERS[2], f"JOIN {self.code}")  # fills the table: it starts by itself
        if self.ctx.store.load(self.code) is None:
            self.text(PLAYERS[0], "GO")
        meta = self.ctx.store.meta(self.code)
        assert meta, f"the game {self.code} did not start: {opened}"
        self.seat_of = {
            p["chat"].split(":", 1)[1]: int(s)
            for s, p in meta["players"].items()
            if str(p.get("chat", "")).startswith("sms:")
        }
        self.settle()

    def state(self):
        snap = self.ctx.store.load(self.code)
        return snap, Game.from_json(snap.json)

    def settle(self):
        """Resolve in process whatever window closed (as a worker would); a failure fails the test."""
        settle(self.ctx, self.code)

    def progress(self):
        snap, game = self.state()
        if snap.status != "collecting":
            return
        missing = sorted(self.ctx.store.expected(self.code) - set(self.ctx.store.answers(self.code)))
        numbers = [n for n, s in self.seat_of.items() if s in missing]
        if numbers:
            number = self.rng.choice(numbers)
            action = game.autoplay(self.seat_of[number])
            self.text(number, describe(action, self.rng.choice(["en", "cs"])))
            self.settle()  # a window the answer closed is resolved before the next input (test_fuzz_telegram)

    # --- one fuzz input ---------------------------------------------------------------------------------------

    def fuzz_one(self) -> str:
        rng = self.rng
        kind = rng.choice(
            ["bad_signature", "fields", "bytes", "json", "replay", "player_text", "stranger_text", "keyword"]
        )
        snap, game = self.state()
        before = redis_state(self.ctx.store.redis, IGNORE)
        invalid = False
        if kind == "bad_signature":
            form = self.form(rng.choice(PLAYERS + STRANGERS), random_text(rng))
            roll = rng.random()
            if roll < 0.25:
                response = self.post(urlencode(form).encode(), {"Content-Type": "application/x-www-form-urlencoded"})
            elif roll < 0.5:
                response = self.signed(form, token=TOKEN + "x")
            elif roll < 0.75:
                response = self.signed(form, url="http://fuzz.test/sms/twilio")
            else:  # signed, then tampered with
                signature, original = twilio_signature(TOKEN, URL, form), form["Body"]
                form["Body"] = mutate_text(rng, original or "x")
                if form["Body"] == original:
                    form["Body"] += "x"
                response = self.post(
                    urlencode(form).encode(),
                    {"Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": signature},
                )
            assert response.status_code == 403, (roll, form)
            invalid = True
        elif kind == "fields":
            form = self.form(rng.choice(PLAYERS + STRANGERS), random_text(rng))
            for _ in range(rng.randint(1, 3)):
                key = rng.choice(list(form) + ["Extra", "MessageSid", "From"])
                if rng.random() < 0.3:
                    form.pop(key, None)
                else:
                    form[key] = mutate_text(rng, str(form.get(key, ""))) if rng.random() < 0.6 else str(junk_value(rng))
            number = re.sub(r"[\s().-]", "", form.get("From", ""))
            usable = re.match(r"^\+[1-9]\d{6,14}$", number) and (form.get("MessageSid") or form.get("SmsSid"))
            response = self.signed(form)
            invalid = not usable
        elif kind == "bytes":
            form = self.form(rng.choice(PLAYERS + STRANGERS), random_text(rng))
            body = mutate_bytes(rng, urlencode(form).encode())
            response = self.post(
                body,
                {
                    "Content-Type": rng.choice(["application/x-www-form-urlencoded", "text/plain", "application/json"]),
                    "X-Twilio-Signature": twilio_signature(TOKEN, URL, form),
                },
            )
            invalid = response.status_code in (400, 403)
        elif kind == "json":
            value = rng.choice([self.form(rng.choice(PLAYERS), random_text(rng)), junk_value(rng), [1, 2], "x"])
            response = self.post(
                json.dumps(value).encode(),
                {"Content-Type": "application/json", "X-Twilio-Signature": rng.choice(["", "abc", "=="])},
            )
            invalid = response.status_code in (400, 403)
        elif kind == "replay":
            form = rng.choice(self.handled)
            response = self.signed(dict(form))
            assert response.status_code == 200
            invalid = True
        elif kind == "player_text":
            number = rng.choice(PLAYERS)
            seat = self.seat_of[number]
            legal = typed(game.legal_actions(seat)) if not game.is_over else []
            body = mutate_text(rng, describe(rng.choice(legal))) if legal and rng.random() < 0.5 else random_text(rng)
            invalid = self.refused(body, game, seat)
            response = self.signed(self.form(number, body))
        elif kind == "stranger_text":
            body, number = random_text(rng), rng.choice(STRANGERS)
            words = body.split()
            # a stranger who opened a table with a keyword ("NEW 7 …", then "GO") plays in that game now
            plays = bool(self.ctx.store.games_of_user(sms_address(number)))
            invalid = not plays and (not words or words[0].upper().strip(".!") not in KEYWORDS)
            response = self.signed(self.form(number, body))
        else:  # keywords with junk arguments, from anyone: only "no 5xx" is checked
            body = f"{rng.choice(sorted(KEYWORDS))} {random_text(rng)}"
            response = self.signed(self.form(rng.choice(STRANGERS + PLAYERS[1:]), body))
        if invalid:
            after = redis_state(self.ctx.store.redis, IGNORE)
            assert after == before, f"{kind}: invalid input changed {diff(before, after)}"
        self.settle()
        return kind

    def refused(self, body: str, game, seat: int) -> bool:
        words = body.split()
        if not words or words[0].upper().strip(".!") in KEYWORDS or code_like(words[0]):
            return False
        try:
            commands.parse(body.strip(), game, seat)
        except commands.CommandError:
            return True
        return False


def test_sms_webhook_survives_fuzz_and_invalid_input_changes_nothing():
    rng = rng_for("sms")
    done, kinds, world = 0, Counter(), None
    while done < FUZZ_EXAMPLES:
        if world is None or done % WORLD_INPUTS == 0:
            if world:
                world.close()
            world = World(rng)
        if rng.random() < 0.15:
            world.progress()
        kinds[world.fuzz_one()] += 1
        done += 1
    world.close()
    record("sms webhook", done)
    assert len(kinds) >= 7, kinds
