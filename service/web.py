"""The ASGI app (Starlette on uvicorn), composed in one place: the webhooks (``POST /telegram/webhook``,
``POST /sms/twilio``, ``POST /whatsapp/twilio``), the board pictures WhatsApp fetches (``GET /m/<token>.png``,
`service.channels.sms.media`), the games' watch pages (``GET /w/<token>``, `service.channels.web.routes`), the
operator's ``GET /healthz`` and ``GET /metrics``, the middleware that counts and logs webhook requests, and the
lifespan that writes those counts.

Every route refuses a body over ``ARTEMIA_MAX_BODY_BYTES`` with 413 before reading it (`service.ops.bodies`).
The Telegram webhook checks ``X-Telegram-Bot-Api-Secret-Token`` in constant time (403), parses the body with the
lean model (400 when malformed), skips an ``update_id`` it has already handled (a button press is handled again:
it is idempotent, and its reply may have been what was lost), and answers 200 only after what
the update changes is stored — with the reply (``sendMessage``, ``answerCallbackQuery``) as a method call in the
response body, so no extra request to Telegram is made here. An update is marked as handled only once it was
handled (an error gives 500 and Telegram's retry runs it again; the handlers are idempotent).

``uvicorn --factory service.web:serve`` (`create_app` with the log level of ``ARTEMIA_LOG_LEVEL``).
"""

import hmac

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from service import wiring
from service.channels.sms import inbound as sms
from service.channels.sms import media, wa_inbound
from service.channels.telegram import inbound as telegram
from service.channels.telegram.handling import Env
from service.channels.telegram.tables import Tables
from service.channels.telegram.update import MalformedUpdate, parse_update
from service.channels.web import routes as watch_pages
from service.config import get_settings
from service.ops import logs
from service.ops import web as ops_web
from service.ops.bodies import BodyLimit
from service.ops.metrics import BufferedCounts
from service.store import connect

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def default_env() -> Env:
    settings = get_settings()
    if not connect.configured(settings):
        raise SystemExit("REDIS_URL is not set (nor ARTEMIA_REDIS_SENTINELS)")
    ctx = wiring.from_settings(settings)  # with game shards, it routes each game to its own (`Context.at`)
    return Env(ctx, Tables(ctx.store.redis, settings.dedup_ttl_seconds), settings.bot_username)


def handle_update(env: Env, update) -> dict | None:
    """The update's reply, run in the thread pool (the Redis client blocks), once a replica has what it changed
    (`Store.replicated`: else 5xx, and Telegram sends it again). An update handled already is skipped, one handled
    marked so (`telegram.handle`)."""
    answer = telegram.handle(update, env)
    env.ctx.store.replicated()
    return answer


async def telegram_webhook(request: Request) -> Response:
    secret = request.app.state.secret
    given = request.headers.get(SECRET_HEADER, "")
    if not secret or not hmac.compare_digest(given.encode(), secret.encode()):
        return PlainTextResponse("forbidden", status_code=403)
    try:
        update = parse_update(await request.body())
    except MalformedUpdate:
        return PlainTextResponse("malformed update", status_code=400)
    if update is None:
        return Response(status_code=200)
    answer = await run_in_threadpool(handle_update, request.app.state.env, update)
    return JSONResponse(answer) if answer else Response(status_code=200)


def create_app(
    env: Env | None = None,
    secret: str | None = None,
    sms_endpoint: sms.SmsEndpoint | None = None,
    whatsapp_endpoint: wa_inbound.WhatsAppEndpoint | None = None,
) -> Starlette:
    env = env or default_env()
    app = Starlette(
        routes=[
            Route("/telegram/webhook", telegram_webhook, methods=["POST"]),
            *sms.ROUTES,  # POST /sms/twilio
            *wa_inbound.ROUTES,  # POST /whatsapp/twilio
            *media.ROUTES,  # GET /m/<token>.png: the board pictures WhatsApp fetches
            *watch_pages.ROUTES,  # GET /w/<token>, its data.json, the page's script
            *ops_web.ROUTES,
        ],  # GET /healthz, GET /metrics
        # counted and logged first, so that a refused body shows as its 413
        middleware=[
            Middleware(ops_web.MetricsMiddleware),
            Middleware(BodyLimit, max_bytes=env.ctx.settings.max_body_bytes),
        ],
        lifespan=ops_web.write_counts,
    )
    app.state.env = env
    app.state.secret = secret if secret is not None else get_settings().webhook_secret
    # the SMS webhook shares the pipeline and the lobby with Telegram: one table, both channels
    app.state.sms = sms_endpoint or sms.build(app.state.env.ctx, lobby=app.state.env.lobby)
    app.state.whatsapp = whatsapp_endpoint or wa_inbound.build(app.state.env.ctx, lobby=app.state.env.lobby)
    app.state.media = media.build(app.state.env.ctx)
    app.state.counts = BufferedCounts()
    env.ctx.counts = app.state.counts  # the answers this process stores are counted with its requests
    return app


def serve() -> Starlette:
    """The production factory (Procfile, image, systemd): ``ARTEMIA_LOG_LEVEL`` applied over the levels that
    ``deploy/logging.json`` (uvicorn's ``--log-config``) fixes, then the app."""
    logs.set_level(get_settings().log_level)
    return create_app()
