"""The cap on request bodies, for every route of the app: a body longer than the cap is refused with 413 before
it is read — at once when ``Content-Length`` says so, and while streaming when it does not (a chunked body is
counted as it arrives and dropped as soon as it passes the cap), so a huge POST costs neither memory nor time.

Setting: ``ARTEMIA_MAX_BODY_BYTES`` (default 64 KB: a Telegram update or a Twilio form is a few KB).
`service.web.create_app` puts `BodyLimit` in front of every route.
"""

from starlette.responses import PlainTextResponse


class BodyTooLarge(Exception):
    """Raised from ``receive`` when a streamed body passes the cap; `BodyLimit` answers 413."""


def declared_length(scope) -> int | None:
    """The request's ``Content-Length``, None when it has none (the server refuses a malformed one itself; the
    streamed count still applies)."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return None


class BodyLimit:
    """ASGI middleware: 413 for a body over ``max_bytes``, declared or streamed."""

    def __init__(self, app, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = declared_length(scope)
        if length is not None and length > self.max_bytes:
            return await self.too_large(scope, receive, send)
        received = 0
        started = False

        async def limited_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge
            return message

        async def watched_send(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, watched_send)
        except BodyTooLarge:
            if started:  # an answer is on its way already: nothing else can be said
                raise
            await self.too_large(scope, receive, send)

    async def too_large(self, scope, receive, send):
        response = PlainTextResponse(
            f"request body over {self.max_bytes} bytes", status_code=413, headers={"Connection": "close"}
        )
        await response(scope, receive, send)
