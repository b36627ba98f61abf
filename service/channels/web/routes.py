"""The watch pages' web face: ``GET /w/<token>`` (the page), ``GET /w/<token>/data.json`` (its parts, for the
page's script), ``GET /w/watch.js`` (that script) and ``GET /w/icon.svg`` (the page's icon).

A token the store does not know is a 404 (the same for any malformed one). ``?step=N`` shows the game as it was
when its N-th window opened (0: the start; past the last step, the last); without it, the game now, with whom its
open window still waits for. ``?lang=cs|en`` overrides the table's language. A ``step`` that is not a number of
at most `STEP_DIGITS` digits, or a ``lang`` we do not speak, is a 400 saying so. A finished game whose creator
chose so (``/reveal``: `service.pipeline.watch.show_hidden`) shows each seat's hidden cards and picks at every
step too; no other page ever does.

Caching: every answer carries an ETag (the game's version, who its open window still waits for, the step, the
language, the page's own code) and a request whose ``If-None-Match`` matches gets 304 without the game being
replayed. The running game's page is ``no-cache`` (revalidated each time); a step that cannot change any more (a
finished game, an earlier step) may be kept five minutes; the script and the icon are immutable. Bodies are
gzipped for clients that accept it. The token is in the URL, so pages say ``Referrer-Policy: no-referrer`` and
``noindex``, and a strict Content-Security-Policy allows only the page's own script.
"""

import gzip
import hashlib
import re
from importlib import resources

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.channels.web import page
from service.i18n import LANGS
from service.pipeline import watch
from service.pipeline.context import Context

TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
SCRIPT = resources.files(__package__).joinpath("watch.js").read_bytes()
SCRIPT_DIGEST = hashlib.sha256(SCRIPT).hexdigest()[:12]
PAGE_CODE = hashlib.sha256(SCRIPT + page.STYLE.encode()).hexdigest()[:8]  # a new page's code: new ETags
SCRIPT_URL = f"/w/watch.js?v={SCRIPT_DIGEST}"
ICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#1d3b53"/>'
    b'<circle cx="8" cy="8" r="3" fill="#f5c542"/></svg>'
)
ICON_URL = "/w/icon.svg"
STEP_DIGITS = 6  # a game has a few hundred steps; a longer number is no step (and int() refuses 4,300 digits)
LIVE_CACHE = "no-cache"
SETTLED_CACHE = "private, max-age=300"  # short: the creator may still choose to show the hidden choices
HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
}


def _reply(request: Request, body: bytes, media_type: str, headers: dict[str, str], status: int = 200) -> Response:
    """``body`` gzipped when the client accepts it, with the common headers."""
    headers = {**HEADERS, **headers, "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", "") and len(body) > 512:
        body, headers["Content-Encoding"] = gzip.compress(body, 6), "gzip"
    return Response(body, status_code=status, media_type=media_type, headers=headers)


def _not_found(request: Request) -> Response:
    return _reply(request, b"no such game\n", "text/plain", {"Cache-Control": "no-store"}, 404)


def _bad_request(request: Request, why: str) -> Response:
    return _reply(request, why.encode() + b"\n", "text/plain", {"Cache-Control": "no-store"}, 400)


def _answer(ctx: Context, request: Request, as_json: bool) -> Response:
    asked_step, asked_lang = request.query_params.get("step"), request.query_params.get("lang")
    if asked_step is not None and not (
        asked_step.isascii() and asked_step.isdigit() and len(asked_step) <= STEP_DIGITS
    ):
        return _bad_request(request, f"step must be a step number (0 to {'9' * STEP_DIGITS})")
    if asked_lang is not None and asked_lang not in LANGS:
        return _bad_request(request, f"lang must be one of: {', '.join(LANGS)}")
    token = request.path_params["token"]
    seen = watch.watched(ctx.store, token) if TOKEN.match(token) else None
    if seen is None:
        return _not_found(request)
    game_id, snap, meta, waiting, cancelled = seen.game_id, seen.snap, seen.meta, seen.waiting, seen.cancelled
    lang = next(choice for choice in (asked_lang, meta.get("lang"), LANGS[0]) if choice in LANGS)
    step = int(asked_step) if asked_step is not None else None
    over = snap.status == "over"
    hidden = watch.hidden_shown(meta, over)
    settled = over or step is not None
    kind = ("j" if as_json else "h") + ("s" if hidden else "") + ("c" if cancelled else "")
    now = "" if waiting is None else ".".join(map(str, waiting))
    etag = f'W/"{PAGE_CODE}-{snap.version}-{now}-{"" if step is None else step}-{lang}-{kind}"'
    headers = {"ETag": etag, "Cache-Control": SETTLED_CACHE if settled else LIVE_CACHE}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers={**HEADERS, **headers})
    frames = watch.history(ctx.store, game_id, with_hidden=hidden)
    if not frames:
        return _not_found(request)
    last = len(frames) - 1
    shown = page.Shown(frames, last if step is None else min(step, last), meta, lang, over, waiting, cancelled)
    if as_json:
        return _reply(request, orjson.dumps(page.data(shown, snap.version)), "application/json", headers)
    base = f"/w/{token}"
    html = page.document(shown, base, f"{base}/data.json", SCRIPT_URL, ICON_URL, snap.version)
    return _reply(request, html.encode(), "text/html; charset=utf-8", headers)


async def watch_page(request: Request) -> Response:
    return await run_in_threadpool(_answer, request.app.state.env.ctx, request, False)


async def watch_data(request: Request) -> Response:
    return await run_in_threadpool(_answer, request.app.state.env.ctx, request, True)


async def script(request: Request) -> Response:
    headers = {"Cache-Control": "public, max-age=31536000, immutable", "ETag": f'"{SCRIPT_DIGEST}"'}
    if f'"{SCRIPT_DIGEST}"' in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return _reply(request, SCRIPT, "text/javascript; charset=utf-8", headers)


async def icon(request: Request) -> Response:
    headers = {**HEADERS, "Cache-Control": "public, max-age=31536000, immutable"}
    return Response(ICON, media_type="image/svg+xml", headers=headers)


ROUTES = [
    Route("/w/watch.js", script),
    Route(ICON_URL, icon),
    Route("/w/{token}", watch_page),
    Route("/w/{token}/data.json", watch_data),
]
