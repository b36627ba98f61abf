"""The SMS test world: the pipeline on fakeredis with a hand-driven clock, the real app (``service.web``: the
Telegram and the SMS webhooks on one shared lobby) called in process, or served by uvicorn on 127.0.0.1
(`world_of`), behind the public URL ``https://game.example`` (``SMS_PUBLIC_URL``: Twilio signs that URL), the
fake Twilio on 127.0.0.1 for sending,
and Telegram users posting updates to the same app.

Outbound is the pipeline's own: ``service.pipeline.news`` words each chat for its channel (SMS seats through
`service.channels.sms.render`) and the routing sender (``service.pipeline.wiring.RoutingSender``) sends ``sms:`` chats
through Twilio — here the fake — and, with no Telegram token set, every other chat to the recording sender.
"""

import contextlib
import html
import itertools
import json
import random
from dataclasses import dataclass

import httpx
import pytest
from fake_twilio import FakeTwilio, serve
from pipeline_support import NO_HOLDS, UNLIMITED_INBOUND, UNLIMITED_SENDS, Clock, make_ctx, run_jobs
from redis_state import redis_state as snapshot_keys
from starlette.testclient import TestClient

from service import wiring
from service.channels.recording import RecordingSender
from service.channels.sms import inbound as sms
from service.channels.telegram.handling import Env
from service.channels.telegram.tables import Tables
from service.config import Settings
from service.pipeline.lobby import Lobby
from service.web import SECRET_HEADER, create_app

PUBLIC = "https://game.example"
URL = PUBLIC + "/sms/twilio"
TG_SECRET = "tg-secret"


class Telegram:
    """Telegram users writing to the bot (in private, or in a group) through ``POST /telegram/webhook``.
    ``langs`` and ``names``: a user's Telegram language code (default "en") and first name (default "Tg<id>");
    ``replies``: every answer of the webhook (the Bot API method in its HTTP reply), in order."""

    def __init__(self, client):
        self.client, self.ids = client, itertools.count(1)
        self.langs: dict[int, str] = {}
        self.names: dict[int, str] = {}
        self.replies: list[dict] = []

    def user(self, user_id: int, lang: str | None = None) -> dict:
        return {
            "id": user_id,
            "is_bot": False,
            "first_name": self.names.get(user_id, f"Tg{user_id}"),
            "language_code": lang or self.langs.get(user_id, "en"),
        }

    def post(self, update: dict, update_id: int | None = None):
        update = {"update_id": update_id or next(self.ids), **update}
        response = self.client.post(
            "/telegram/webhook",
            content=json.dumps(update),
            headers={SECRET_HEADER: TG_SECRET, "Content-Type": "application/json"},
        )
        if response.status_code == 200 and response.content:
            self.replies.append(response.json())
        return response

    def say(self, user_id: int, text: str, chat: dict | None = None, update_id: int | None = None) -> str | None:
        """The text of the bot's reply (None when it says nothing); ``chat`` defaults to the private chat."""
        n = next(self.ids)
        chat = chat or {"id": user_id, "type": "private"}
        response = self.post(
            {"message": {"message_id": n, "date": 1, "chat": chat, "from": self.user(user_id), "text": text}},
            update_id or n,
        )
        assert response.status_code == 200, response.text
        return response.json()["text"] if response.content else None

    def press(self, user_id: int, data: str, message_id: int = 55) -> str | None:
        n = next(self.ids)
        response = self.post(
            {
                "callback_query": {
                    "id": f"q{n}",
                    "from": self.user(user_id),
                    "chat_instance": "c",
                    "data": data,
                    "message": {"message_id": message_id, "date": 1, "chat": {"id": user_id, "type": "private"}},
                }
            },
            n,
        )
        assert response.status_code == 200, response.text
        return response.json().get("text")


@dataclass
class World:
    ctx: object
    clock: Clock
    twilio: FakeTwilio
    client: httpx.Client  # talks to our app on 127.0.0.1; requests carry Twilio's signature for URL
    endpoint: sms.SmsEndpoint
    recording: RecordingSender
    lobby: Lobby
    telegram: Telegram

    def text(self, number, body, **kwargs):
        return self.twilio.text(self.client, URL, number, body, **kwargs)

    def post(self, form, signature=None):
        """A raw post to the webhook, signed (or not) by the caller."""
        return self.client.post(
            "/sms/twilio", data=form, headers={"X-Twilio-Signature": signature} if signature else {}
        )

    def reply(self, number, body, **kwargs) -> str:
        """The text of our TwiML answer ('' for an empty <Response/>)."""
        response = self.text(number, body, **kwargs)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/xml")
        body = response.text
        if "<Message>" not in body:
            return ""
        return html.unescape(body.split("<Message>", 1)[1].split("</Message>", 1)[0])

    def pump(self):
        run_jobs(self.ctx)


@contextlib.contextmanager
def world_of(
    twilio: FakeTwilio,
    base_url: str,
    seed: int = 1,
    over_http: bool = False,
    connection=None,
    channel: dict | None = None,
    **settings,
):
    """A fresh game world: the real app, its pipeline on fakeredis (or ``connection``), its SMS sent to ``twilio``.
    The app is called in this process (Starlette's TestClient: the requests and answers of HTTP, without a socket),
    or with ``over_http`` served by uvicorn on a loopback port, for the tests of the HTTP layer itself (bodies,
    sizes). ``settings``: more for the pipeline's context (the store's replication, say); ``channel``: more for
    the channels' settings (WhatsApp's, say)."""
    clock = Clock()
    ctx = make_ctx(connection, clock=clock, rate_private_per_second=1.0, **settings)
    ctx.sleep = clock.advance  # a short send-budget wait passes on the test clock
    settings = Settings(
        twilio_account_sid=twilio.account_sid,
        twilio_auth_token=twilio.auth_token,
        twilio_from="+15005550006",
        twilio_api_base_url=base_url,
        sms_public_url=PUBLIC,
        **NO_HOLDS,  # as in make_ctx: jobs run in-process
        **UNLIMITED_INBOUND,
        **{**UNLIMITED_SENDS, "rate_private_per_second": 1.0},
        **(channel or {}),
    )
    lobby = Lobby(ctx, rng=random.Random(seed))  # codes, seats and game seeds repeat from run to run
    endpoint = sms.build(ctx, settings, lobby)
    env = Env(ctx, Tables(ctx.store.redis), "artemia_bot", lobby=lobby, sms_number="+15005550006")
    recording = RecordingSender(ctx.store.redis)
    ctx.settings = ctx.settings.model_copy(update={name: getattr(settings, name) for name in Settings.model_fields})
    ctx.sender = wiring.RoutingSender(ctx.store.redis, ctx.settings, fallback=recording, clock=clock)
    app = create_app(env, TG_SECRET, endpoint)
    with _client(app, over_http) as client:
        yield World(ctx, clock, twilio, client, endpoint, recording, lobby, Telegram(client))


@contextlib.contextmanager
def _client(app, over_http: bool):
    if not over_http:  # the lifespan stays off, as under serve()
        yield TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False, client=("127.0.0.1", 50000))
        return
    with serve(app) as our_url, httpx.Client(base_url=our_url) as client:
        yield client


# the records of what was handled, who wrote to the bot, the senders' inbound flood buckets and the ops counters:
# written for every input, good or bad
DEDUP_KEYS = (b"artemia:sms:sid:", b"tg:upd:", b"tg:started:", b"artemia:metrics", b"artemia:rl:in")


def redis_state(connection, ignore=DEDUP_KEYS) -> dict:
    """Every key and its value (any type), but the inbound dedup records: to assert that nothing changed."""
    return snapshot_keys(connection, ignore)


def world_fixtures(auth_token: str, seed: int = 1, over_http: bool = False):
    """The two fixtures of an SMS test module: ``served`` (a fake Twilio on loopback, once per module) and
    ``world`` (a fresh game world talking to it). Use: ``served, world = world_fixtures("token")``."""

    @pytest.fixture(scope="module")
    def served():
        fake = FakeTwilio(auth_token=auth_token)
        with serve(fake.app) as base_url:
            yield fake, base_url

    @pytest.fixture
    def world(served):
        fake, base_url = served
        fake.sent.clear()
        with world_of(fake, base_url, seed=seed, over_http=over_http) as world:
            yield world

    return served, world
