"""The SMS test world: the pipeline on fakeredis with a hand-driven clock, the webhook app served by uvicorn on
127.0.0.1 behind the public URL ``https://game.example`` (``SMS_PUBLIC_URL``: Twilio signs that URL), the fake
Twilio on 127.0.0.1 for sending, and the wiring the lead is asked to make (see the report):

* the outbox's sender dispatches ``sms:`` chats to `TwilioSender` and others to the recording sender;
* `workers.messages.step_messages` words the SMS seats' messages with `service.channels.sms_messages`.
"""

import contextlib
import html
import random
from dataclasses import dataclass

import httpx
from fake_twilio import FakeTwilio, serve
from pipeline_support import Clock, make_ctx, run_jobs
from starlette.applications import Starlette

from service.channels import sms, sms_messages
from service.channels.recording import RecordingSender
from service.channels.sms_directory import number_of
from service.channels.sms_sender import TwilioSender
from service.channels.sms_settings import SmsSettings
from workers import messages

PUBLIC = "https://game.example"
URL = PUBLIC + "/sms/twilio"


class ByChannel:
    """A pipeline sender that sends ``sms:`` chats by SMS and everything else to ``other``."""

    def __init__(self, sms_sender, other):
        self.sms_sender, self.other = sms_sender, other

    def send(self, chat, text, buttons=None):
        (self.sms_sender if number_of(chat) else self.other).send(chat, text, buttons)


@dataclass
class World:
    ctx: object
    clock: Clock
    twilio: FakeTwilio
    client: httpx.Client  # talks to our app on 127.0.0.1; requests carry Twilio's signature for URL
    endpoint: sms.SmsEndpoint
    recording: RecordingSender

    def text(self, number, body, **kwargs):
        return self.twilio.text(self.client, URL, number, body, **kwargs)

    def post(self, form, signature=None):
        """A raw post to the webhook, signed (or not) by the caller."""
        return self.client.post("/sms/twilio", data=form,
                                headers={"X-Twilio-Signature": signature} if signature else {})

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
def world_of(twilio: FakeTwilio, base_url: str, monkeypatch, seed: int = 1):
    clock = Clock()
    ctx = make_ctx(clock=clock, rate_private_per_second=1.0)
    ctx.sleep = clock.advance  # a short send-budget wait passes on the test clock
    settings = SmsSettings(twilio_account_sid=twilio.account_sid, twilio_auth_token=twilio.auth_token,
                           twilio_from="+15005550006", twilio_api_base_url=base_url, sms_public_url=PUBLIC)
    endpoint = sms.build(ctx, settings)
    endpoint.router.lobbies.rng = random.Random(seed)  # seats and game seeds repeat from run to run
    recording = RecordingSender(ctx.store.redis)
    ctx.given_sender = ByChannel(TwilioSender(settings, endpoint.directory), recording)
    original = messages.step_messages

    def wired(meta, game, events, notices, asked, deadline):
        chats = [m for m in original(meta, game, events, notices, asked, deadline)
                 if not number_of(m["chat"])]
        return chats + sms_messages.step_messages(meta, game, events, asked, deadline, endpoint.directory)

    monkeypatch.setattr(messages, "step_messages", wired)
    app = Starlette(routes=sms.ROUTES)
    app.state.sms = endpoint
    with serve(app) as our_url, httpx.Client(base_url=our_url) as client:
        yield World(ctx, clock, twilio, client, endpoint, recording)
