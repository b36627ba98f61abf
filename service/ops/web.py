"""The operator's web face: ``GET /healthz`` (ok or not for anyone, the detail for the operator's token) and
``GET /metrics`` (the operator's token only), and the middleware that counts and logs every webhook request.
`service.web.create_app` composes them into the app (routes, middleware, lifespan)."""

import asyncio
import contextlib
import hmac
import logging
import math
import time
from collections.abc import AsyncIterator

import redis
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from service.ops.health import health_of, render_metrics


def _ops_target(app):
    """(the index Redis, the game shards, settings) of the app: its pipeline context's (see
    service.web.create_app)."""
    ctx = app.state.env.ctx
    return ctx.store.redis, ctx.store.shards, ctx.settings


def operator(request: Request) -> bool:
    """Whether the request carries the operator's token (``ARTEMIA_OPS_TOKEN``: "Authorization: Bearer <token>")."""
    token = request.app.state.env.ctx.settings.ops_token
    given = request.headers.get("authorization", "")
    return bool(token) and hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


async def cached_health(app) -> dict:
    """The service's health, computed at most once per ``health_cache_seconds`` in this process (concurrent
    requests wait for the one computation under way): however many poll it, it costs Redis the same."""
    connection, shards, settings = _ops_target(app)
    cache = getattr(app.state, "health", None)
    if cache is None:
        cache = app.state.health = {"at": -math.inf, "result": None, "lock": asyncio.Lock()}
    async with cache["lock"]:
        if time.monotonic() - cache["at"] >= settings.health_cache_seconds or cache["result"] is None:
            cache["result"] = await run_in_threadpool(health_of, connection, shards, settings)
            cache["at"] = time.monotonic()
        return cache["result"]


async def healthz(request: Request) -> Response:
    """200 or 503, and only ``{"ok": …}`` unless the operator's token comes with the request: the reasons, worker
    names and counts are the operator's."""
    result = await cached_health(request.app)
    status = 200 if result["ok"] else 503
    return JSONResponse(finite(result) if operator(request) else {"ok": result["ok"]}, status_code=status)


async def metrics(request: Request) -> Response:
    settings = _ops_target(request.app)[2]
    if not settings.ops_token:
        return Response("metrics are off: set ARTEMIA_OPS_TOKEN\n", status_code=404, media_type="text/plain")
    if not operator(request):
        return Response("", status_code=401, headers={"WWW-Authenticate": "Bearer"})
    connection, shards, settings = _ops_target(request.app)
    counts = getattr(request.app.state, "counts", None)
    if counts is not None:
        await run_in_threadpool(counts.flush, connection)
    try:
        body = await run_in_threadpool(render_metrics, connection, settings, shards)
    except redis.RedisError as exc:
        return Response(f"redis unreachable: {exc}\n", status_code=503, media_type="text/plain")
    return Response(body, media_type=CONTENT_TYPE_LATEST)


def finite(value):
    """JSON has no infinity: an absent heartbeat is reported as null."""
    if isinstance(value, float) and math.isinf(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


ROUTES = [Route("/healthz", healthz), Route("/metrics", metrics)]
CHANNELS = {"/telegram/": "telegram", "/sms/": "sms", "/whatsapp/": "whatsapp"}
web_log = logging.getLogger("service.web")


class MetricsMiddleware:
    """Counts inbound webhook requests (per channel and status) and logs one JSON line per request. The counts
    go to the app's `BufferedCounts` (``app.state.counts``), written by `write_counts`, the app's lifespan."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "") if scope["type"] == "http" else ""
        channel = next((name for prefix, name in CHANNELS.items() if path.startswith(prefix)), None)
        if channel is None:
            return await self.app(scope, receive, send)
        started, status = time.perf_counter(), {"code": 500}

        async def sending(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            millis = round((time.perf_counter() - started) * 1000, 1)
            code = status["code"]
            level = logging.DEBUG if code < 400 else logging.INFO if code < 500 else logging.WARNING
            web_log.log(
                level,
                "webhook %s %s",
                path,
                code,
                extra={"path": path, "status": code, "channel": channel, "duration_ms": millis},
            )
            counts = getattr(scope["app"].state, "counts", None)
            if counts is not None:
                counts.add("updates", channel=channel, status=code)


@contextlib.asynccontextmanager
async def write_counts(app: Starlette) -> AsyncIterator[None]:
    """The app's lifespan: write its pending request counts every interval while the server runs, and once more
    as it stops."""
    counts = app.state.counts

    async def write_every_interval() -> None:
        while True:
            await asyncio.sleep(counts.interval)
            await run_in_threadpool(counts.flush, _ops_target(app)[0])

    writer = asyncio.create_task(write_every_interval())
    try:
        yield
    finally:
        writer.cancel()
        await run_in_threadpool(counts.flush, _ops_target(app)[0])
