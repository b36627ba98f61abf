"""The SMS channel's web face: Twilio's inbound webhook ``POST /sms/twilio``, normalised to `InboundText`, and
its TwiML answer.

The handler checks ``X-Twilio-Signature`` against the public URL (403 when it does not match), drops a
``MessageSid`` it has already handled (Twilio retries a webhook that failed or timed out: the retry gets an
empty ``<Response/>``), hands the text to `sms_routing.Router` — which records a game answer through the
pipeline's ingest before we reply — and answers at once with the reply as TwiML. When handling fails the
``MessageSid`` is released again so that Twilio's retry is handled, and the error is a 500.

Settings: the SMS fields of `service.config.Settings`. ``service.web.create_app`` mounts ``ROUTES`` with
``app.state.sms = build(ctx)``.
"""

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import parse_qs
from xml.sax.saxutils import escape

from pydantic import BaseModel, ConfigDict
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from service.channels.sms import signature as sms_signature
from service.channels.sms.directory import Directory
from service.channels.sms.routing import Router
from service.config import Settings
from service.pipeline.context import Context
from service.pipeline.lobby import Lobby
from service.pipeline.seats import PipelineGames

E164 = re.compile(r"^\+[1-9]\d{6,14}$")


class InboundText(BaseModel):
    """One inbound text message, whatever the provider."""

    model_config = ConfigDict(frozen=True)

    channel: str = "sms"
    sender: str  # E.164
    text: str
    provider_msg_id: str
    received_at: datetime


def inbound_from_twilio(fields: dict[str, list[str]], now: float) -> InboundText | None:
    """The message in Twilio's form fields; None when it is not a text from a phone number we can answer."""

    def field(name):
        return (fields.get(name) or [""])[0]

    sender = re.sub(r"[\s().-]", "", field("From"))
    sid = field("MessageSid") or field("SmsSid")
    if not E164.match(sender) or not sid:
        return None
    return InboundText(
        sender=sender, text=field("Body").strip(), provider_msg_id=sid, received_at=datetime.fromtimestamp(now, UTC)
    )


def twiml(text: str | None) -> Response:
    """The TwiML answer: one escaped ``<Message>``, or an empty ``<Response/>`` for no reply."""
    inner = f"<Message>{escape(text)}</Message>" if text else ""
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?><Response>{inner}</Response>'
        if inner
        else '<?xml version="1.0" encoding="UTF-8"?><Response/>'
    )
    return Response(body, media_type="text/xml")


@dataclass
class SmsEndpoint:
    """What the webhook needs, built once per app (``app.state.sms``)."""

    settings: Settings
    directory: Directory
    router: Router
    clock: Callable[[], float] = time.time
    replicated: Callable[[], None] = lambda: None  # `Store.replicated`: the barrier before a message is confirmed


def build(ctx: Context, settings: Settings | None = None, lobby: Lobby | None = None) -> SmsEndpoint:
    """The endpoint on the pipeline ``ctx``; ``lobby`` is the shared one (the Telegram side's, in the app)."""
    settings = settings or ctx.settings
    directory = Directory(ctx.store.redis, default_tz=settings.sms_default_tz)
    router = Router(directory, PipelineGames(ctx), lobby or Lobby(ctx))
    return SmsEndpoint(settings, directory, router, ctx.clock, ctx.store.replicated)


def _fields(request: Request, body: bytes) -> tuple[dict[str, list[str]], bytes | None]:
    """(form fields, raw JSON body or None). A JSON body's fields are its top-level strings."""
    if request.headers.get("content-type", "").startswith("application/json"):
        data = json.loads(body or b"{}")
        return {k: [v] for k, v in data.items() if isinstance(v, str)}, body
    return parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True), None


async def signed_fields(request: Request, settings: Settings) -> dict[str, list[str]] | Response:
    """The form fields of a webhook Twilio signed (SMS and WhatsApp alike), or the answer refusing it: 400 for a
    body that is not a form or JSON, 403 for a signature that does not match the public URL."""
    body = await request.body()
    try:
        fields, json_body = _fields(request, body)
    except (ValueError, AttributeError):
        return PlainTextResponse("malformed body", status_code=400)
    peer = request.client.host if request.client else None
    trust_proxy = settings.sms_trust_proxy and sms_signature.trusted_peer(peer, settings.forwarded_allow_ips)
    url = sms_signature.public_url(str(request.url), request.headers, settings.sms_public_url, trust_proxy)
    if not sms_signature.is_valid(
        url,
        request.headers.get("x-twilio-signature"),
        auth_token=settings.twilio_auth_token,
        params=None if json_body else fields,
        json_body=json_body,
        settings_header=request.headers.get("x-twilio-webhooks-signature-settings"),
        shared_keys=settings.twilio_shared_keys,
    ):
        return PlainTextResponse("bad signature", status_code=403)
    return fields


async def twilio_webhook(request: Request) -> Response:
    sms: SmsEndpoint = request.app.state.sms
    fields = await signed_fields(request, sms.settings)
    if isinstance(fields, Response):
        return fields
    message = inbound_from_twilio(fields, sms.clock())
    if message is None or not sms.directory.first_time(message.provider_msg_id):
        return twiml(None)
    try:
        text = await run_in_threadpool(sms.router.handle, message.sender, message.text, message.provider_msg_id)
        await run_in_threadpool(sms.replicated)  # not confirmed before a replica has what it changed
    except Exception:
        sms.directory.forget(message.provider_msg_id)
        raise
    return twiml(text)


ROUTES = [Route("/sms/twilio", twilio_webhook, methods=["POST"])]
