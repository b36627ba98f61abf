"""The board pictures WhatsApp fetches: unguessable URLs that expire.

WhatsApp (through Twilio) shows a picture only by a public URL that Twilio fetches itself (``MediaUrl``: a HEAD,
then a GET, checking the Content-Type; a PNG of at most 5 MB). The sender `publish`es a message's board payload
(`service.board.payload`) and sends the URL it gets; ``GET|HEAD /m/<token>.png`` (``ROUTES``) draws it.

This module owns one kind of key, global, on the index Redis (``ctx.store.redis``; never a game's state):

    artemia:wa:media:<token>     the payload's JSON, zlib-compressed (`service.store.codec`), with an expiry

The token (``secrets.token_urlsafe(24)``) is the only secret: whoever has the URL sees the board, nobody can
guess one, and it dies with its key. A token that is malformed, unknown or expired is the same bare 404. The
picture's answer says ``Content-Type: image/png``; ``Cache-Control: public, max-age=<the key's seconds left>,
immutable`` (a token always shows the same picture); ``ETag: "<picture digest>"`` (a matching ``If-None-Match``
is a 304, known from the SVG without drawing the PNG); ``X-Content-Type-Options: nosniff``; and, as the URL is
the secret, ``Referrer-Policy: no-referrer`` and ``X-Robots-Tag: noindex``. HEAD answers the same headers,
``Content-Length`` included, without the body. Drawn PNGs are kept by digest (`CACHED` of them, in the process)
so that Twilio's HEAD then GET draws once; drawings take turns (the raster's caches are unlocked).

``service.web.create_app`` mounts ``ROUTES`` with ``app.state.media = build(ctx)``.
"""

import json
import logging
import re
import secrets
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass

import redis
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service import board
from service.pipeline.context import Context
from service.store import codec, keys

log = logging.getLogger(__name__)

TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
CACHED = 32  # drawn PNGs kept by digest (~70 KB each)
HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"}
NOT_FOUND = b"not found\n"


def media_key(token: str) -> str:
    return keys.whatsapp_media(token)


@dataclass(frozen=True)
class MediaEndpoint:
    """What the route needs, built once per app (``app.state.media``)."""

    connection: redis.Redis


def build(ctx: Context) -> MediaEndpoint:
    return MediaEndpoint(ctx.store.redis)


def publish(connection: redis.Redis, payload: dict, ttl_seconds: int, base_url: str) -> str:
    """The URL of a new token showing the board ``payload`` for ``ttl_seconds``."""
    if ttl_seconds < 1:
        raise ValueError(f"ttl_seconds must be at least 1, not {ttl_seconds}")
    token = secrets.token_urlsafe(24)
    connection.set(media_key(token), codec.pack_state(json.dumps(payload)), ex=ttl_seconds)
    return f"{base_url.rstrip('/')}/m/{token}.png"


_drawn: OrderedDict[str, bytes] = OrderedDict()
_drawing = threading.Lock()  # guards _drawn, and draws one picture at a time


def _png(picture: board.Picture) -> bytes:
    with _drawing:
        png = _drawn.get(picture.digest)
        if png is None:
            png = _drawn[picture.digest] = picture.png()
            while len(_drawn) > CACHED:
                _drawn.popitem(last=False)
        else:
            _drawn.move_to_end(picture.digest)
        return png


def _not_found() -> Response:
    return Response(
        NOT_FOUND, status_code=404, media_type="text/plain", headers={**HEADERS, "Cache-Control": "no-store"}
    )


def _read(connection: redis.Redis, token: str) -> tuple[dict, int] | None:
    """(payload, seconds left) of a live token, None when there is none."""
    key = media_key(token)
    with connection.pipeline() as pipe:  # MULTI: the value and its expiry together
        pipe.get(key)
        pipe.pttl(key)
        raw, left_ms = pipe.execute()
    if raw is None:
        return None
    try:
        payload = json.loads(codec.unpack_state(raw))
    except (ValueError, zlib.error):
        log.warning("unreadable board picture payload under %s", key)
        return None
    return payload, max(0, left_ms // 1000)


def _answer(endpoint: MediaEndpoint, token: str, if_none_match: str, head: bool) -> Response:
    found = _read(endpoint.connection, token) if TOKEN.match(token) else None
    if found is None:
        return _not_found()
    payload, left = found
    picture = board.picture(payload)
    etag = f'"{picture.digest}"'
    headers = {**HEADERS, "Cache-Control": f"public, max-age={left}, immutable", "ETag": etag}
    if if_none_match.strip() == "*" or etag in if_none_match:
        return Response(status_code=304, headers=headers)
    png = _png(picture)
    if head:
        return Response(b"", media_type="image/png", headers={**headers, "Content-Length": str(len(png))})
    return Response(png, media_type="image/png", headers=headers)


async def picture(request: Request) -> Response:
    endpoint: MediaEndpoint = request.app.state.media
    return await run_in_threadpool(
        _answer,
        endpoint,
        request.path_params["token"],
        request.headers.get("if-none-match", ""),
        request.method == "HEAD",
    )


# ``{token:path}``: a token with a slash in it (``..%2Fx``) is this route's 404 too, like any malformed one
ROUTES = [Route("/m/{token:path}.png", picture, methods=["GET", "HEAD"])]
