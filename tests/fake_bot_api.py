"""A fake Telegram Bot API for tests: a small Starlette app serving ``POST /bot<token>/<method>``.

It keeps the messages it "delivered" (so editing a missing message or editing without a change fails the way
Telegram does), records every call (``calls``), and can be told to fail the next N calls, optionally only for
one method or chat: 429 with ``retry_after``, 403 (blocked), 5xx, "message is not modified", "message to edit
not found", or ``migrate_to_chat_id``. Bodies may be form-urlencoded (what python-telegram-bot sends), multipart
(a file uploaded: ``sendPhoto`` with the PNG's bytes) or JSON.

``sendPhoto`` and ``editMessageMedia`` take an upload or a ``file_id`` it gave before (an unknown one is refused,
as Telegram does) and answer with the photo's sizes, each with that ``file_id``; ``uploads`` keeps each uploaded
file by its id. A caption over 1024 UTF-16 code units is refused, as Telegram refuses it; so are
``editMessageText`` on a photo and ``editMessageCaption`` on a text message.

``latency`` (seconds, 0 by default) holds every answer back that long, as the round trip to Telegram's servers
does; calls wait concurrently.

``limits`` (None by default: no limit) makes it answer the way Telegram answers a bot over its sending limits: a
`Limits` counts every ``send*`` and ``edit*`` call that got through in sliding windows (all chats, each private
chat, each group) and answers a call that would pass one 429 "Too Many Requests: retry after N", with
``parameters.retry_after`` N = the whole seconds until the window has room again; ``limited`` counts those.

``serve(api)`` runs it under uvicorn on 127.0.0.1 in a background thread and yields the base URL to give the
bot (``http://127.0.0.1:<port>/bot``).
"""

import asyncio
import email.policy
import hashlib
import itertools
import json
import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from email.parser import BytesParser
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

try:
    import serving
except ModuleNotFoundError:  # imported as tests.<module>, with only the repository root on the path
    from tests import serving
free_port = serving.free_port  # tests import it from here

CAPTION_LIMIT = 1024  # a photo's caption, in UTF-16 code units
BOT_USER = {"id": 4242, "is_bot": True, "first_name": "Artemia", "username": "artemia_test_bot"}
FAULTS = {
    "retry_after": lambda arg: (429, f"Too Many Requests: retry after {arg}", {"retry_after": arg}),
    "blocked": lambda arg: (403, "Forbidden: bot was blocked by the user", None),
    "server_error": lambda arg: (arg or 500, "Internal Server Error", None),
    "not_modified": lambda arg: (
        400,
        "Bad Request: message is not modified: specified new message content and reply markup are exactly the same",
        None,
    ),
    "edit_missing": lambda arg: (400, "Bad Request: message to edit not found", None),
    "no_photo_rights": lambda arg: (400, "Bad Request: not enough rights to send photos to the chat", None),
    "migrated": lambda arg: (
        400,
        "Bad Request: group chat was upgraded to a supergroup chat",
        {"migrate_to_chat_id": arg},
    ),
}


@dataclass
class Fault:
    kind: str
    arg: object
    times: int | None  # None: every matching call
    method: str | None
    chat: str | None

    def matches(self, method: str, params: dict) -> bool:
        return (self.method is None or self.method == method) and (
            self.chat is None or str(params.get("chat_id")) == self.chat
        )


@dataclass
class Limits:
    """Telegram's sending limits as sliding windows, each (calls, seconds): a call is refused while the calls that
    got through in the last ``seconds`` number ``calls`` (docs/platform-notes.md §3.1). The defaults: about 30 a
    second in all; about 1 a second per private chat, a burst of two tolerated; 20 a minute per group (a negative
    chat id), its topics included. Sends and edits count; other methods (answerCallbackQuery...) do not."""

    overall: tuple[int, float] = (30, 1.0)
    private: tuple[int, float] = (2, 1.0)
    group: tuple[int, float] = (20, 60.0)
    _passed: dict = field(default_factory=dict)  # scope -> deque of the monotonic times of calls let through

    @staticmethod
    def counts(method: str) -> bool:
        return method.startswith(("send", "edit"))

    def admit(self, chat: str, now: float) -> float:
        """Let a call to ``chat`` through (-> 0) or not (-> seconds until it would be let through)."""
        scopes = [("*", self.overall), (chat.partition("/")[0], self.group if chat.startswith("-") else self.private)]
        wait = 0.0
        for scope, (calls, seconds) in scopes:
            passed = self._passed.setdefault(scope, deque())
            while passed and passed[0] <= now - seconds:
                passed.popleft()
            if len(passed) >= calls:
                wait = max(wait, passed[-calls] + seconds - now)
        if wait <= 0:
            for scope, _ in scopes:
                self._passed[scope].append(now)
        return wait


class FakeBotAPI:
    def __init__(self, token: str = "123:TEST"):
        self.token = token
        self.calls: list[dict] = []
        self.messages: dict[tuple[str, int], dict] = {}  # (chat, message id) -> {"text", "reply_markup"}
        self.faults: list[Fault] = []
        # private chats of users who never started the bot: real Telegram refuses to let a bot write first (403)
        self.strangers: set[str] = set()
        self.uploads: dict[str, bytes] = {}  # file_id -> the bytes uploaded (sendPhoto)
        self.latency = 0.0  # seconds every answer is held back (a real round trip to Telegram: tens of ms)
        self.limits: Limits | None = None  # Telegram's sending limits, enforced with 429s (`Limits`); None: none
        self.limited = 0  # calls answered 429 by `limits`
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.app = Starlette(routes=[Route("/bot{token}/{method}", self.endpoint, methods=["POST"])])

    def reset(self) -> None:
        """Forget calls, messages and faults (message ids start again at 1)."""
        with self._lock:
            self.calls.clear()
            self.messages.clear()
            self.faults.clear()
            self.strangers.clear()
            self.uploads.clear()
            self._ids = itertools.count(1)
            self.limited = 0
            if self.limits is not None:
                self.limits = Limits(self.limits.overall, self.limits.private, self.limits.group)

    # --- scripting ---------------------------------------------------------------------------------------

    def fail(
        self, kind: str, arg=None, times: int | None = 1, method: str | None = None, chat: int | str | None = None
    ) -> None:
        """Answer the next ``times`` matching calls (all of them when None) with the fault ``kind``."""
        assert kind in FAULTS, kind
        with self._lock:
            self.faults.append(Fault(kind, arg, times, method, None if chat is None else str(chat)))

    def sent(self, method: str = "sendMessage", chat: int | str | None = None) -> list[dict]:
        """Successful calls of ``method`` (to ``chat``), in order."""
        return [
            c
            for c in self.calls
            if c["method"] == method and c["ok"] and (chat is None or str(c["params"].get("chat_id")) == str(chat))
        ]

    # --- serving -----------------------------------------------------------------------------------------

    async def endpoint(self, request: Request) -> JSONResponse:
        method = request.path_params["method"]
        params = await _params(request)
        wait = self._admit(method, params)  # as the call arrives, before its share of the round trip
        if self.latency:
            await asyncio.sleep(self.latency)
        if request.path_params["token"] != self.token:
            return self._record(method, params, 401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
        with self._lock:
            fault = next((f for f in self.faults if f.matches(method, params)), None)
            if fault and fault.times is not None:
                fault.times -= 1
                if fault.times <= 0:
                    self.faults.remove(fault)
        if fault:
            code, description, parameters = FAULTS[fault.kind](fault.arg)
            body = {"ok": False, "error_code": code, "description": description}
            if parameters:
                body["parameters"] = parameters
            return self._record(method, params, code, body)
        if wait > 0:
            seconds = max(1, math.ceil(wait))  # Telegram names whole seconds
            body = {
                "ok": False,
                "error_code": 429,
                "description": f"Too Many Requests: retry after {seconds}",
                "parameters": {"retry_after": seconds},
            }
            return self._record(method, params, 429, body)
        handler = getattr(self, "_" + method, None)
        if handler is None:
            return self._record(method, params, 404, {"ok": False, "error_code": 404, "description": "Not Found"})
        code, result = handler(params)
        body = (
            {"ok": True, "result": result} if code == 200 else {"ok": False, "error_code": code, "description": result}
        )
        return self._record(method, params, code, body)

    def _admit(self, method: str, params: dict) -> float:
        """0 when the call may go (it is counted), else the seconds until `limits` would let it through."""
        if self.limits is None or not Limits.counts(method):
            return 0.0
        with self._lock:
            wait = self.limits.admit(str(params.get("chat_id")), time.monotonic())
            self.limited += wait > 0
        return wait

    def _record(self, method: str, params: dict, code: int, body: dict) -> JSONResponse:
        with self._lock:
            self.calls.append(
                {"method": method, "params": params, "ok": code == 200, "code": code, "at": time.monotonic()}
            )
        return JSONResponse(body, status_code=code)

    def _message(self, chat_id, message_id: int, params: dict) -> dict:
        chat = int(chat_id)
        return {
            "message_id": message_id,
            "date": int(time.time()),
            "text": params.get("text", ""),
            "chat": {"id": chat, "type": "private" if chat > 0 else "supergroup"},
            "from": BOT_USER,
        }

    def _getMe(self, params):  # noqa: N802 - Bot API method names
        return 200, BOT_USER

    def _sendMessage(self, params):  # noqa: N802
        if str(params["chat_id"]) in self.strangers:
            return 403, "Forbidden: bot can't initiate conversation with a user"
        message_id = next(self._ids)
        with self._lock:
            self.messages[str(params["chat_id"]), message_id] = {
                "text": params.get("text"),
                "reply_markup": params.get("reply_markup"),
            }
        return 200, self._message(params["chat_id"], message_id, params)

    def _sendPhoto(self, params):  # noqa: N802
        if str(params["chat_id"]) in self.strangers:
            return 403, "Forbidden: bot can't initiate conversation with a user"
        caption = params.get("caption") or ""
        if len(caption.encode("utf-16-le")) // 2 > CAPTION_LIMIT:
            return 400, "Bad Request: message caption is too long"
        file_id = self._file(params.get("photo"))
        if file_id is None:
            return 400, "Bad Request: wrong file identifier/HTTP URL specified"
        message_id = next(self._ids)
        with self._lock:
            self.messages[str(params["chat_id"]), message_id] = {
                "caption": caption,
                "photo": file_id,
                "reply_markup": params.get("reply_markup"),
            }
        sizes = [{"file_id": file_id, "file_unique_id": file_id[-12:], "width": w, "height": w} for w in (90, 800)]
        sent = {k: v for k, v in self._message(params["chat_id"], message_id, {}).items() if k != "text"}
        return 200, {**sent, "photo": sizes, "caption": caption}

    def _file(self, photo) -> str | None:
        """The ``file_id`` of a photo given as an upload (stored: a new id) or as an id given before; None: unknown."""
        if isinstance(photo, Upload):
            file_id = f"photo-{len(self.uploads) + 1}-{hashlib.sha256(photo.data).hexdigest()[:12]}"
            with self._lock:
                self.uploads[file_id] = photo.data
            return file_id
        return photo if photo in self.uploads else None

    def _edit(self, params, fields, needs: str | None = None):
        """Edit ``fields`` of a delivered message; ``needs``: the field the message must have (a photo's caption
        cannot be edited as text, nor a text as a caption: Telegram refuses both)."""
        key = (str(params.get("chat_id")), int(params.get("message_id", 0)))
        with self._lock:
            old = self.messages.get(key)
            if old is None:
                return 400, "Bad Request: message to edit not found"
            if needs == "text" and "photo" in old:
                return 400, "Bad Request: there is no text in the message to edit"
            if needs == "caption" and "photo" not in old:
                return 400, "Bad Request: there is no caption in the message to edit"
            if len((params.get("caption") or "").encode("utf-16-le")) // 2 > CAPTION_LIMIT:
                return 400, "Bad Request: message caption is too long"
            new = {**old, **{f: params.get(f) for f in fields}}
            if new == old:
                return 400, "Bad Request: message is not modified"
            self.messages[key] = new
        return 200, self._message(key[0], key[1], new)

    def _editMessageText(self, params):  # noqa: N802
        return self._edit(params, ("text", "reply_markup"), needs="text")

    def _editMessageCaption(self, params):  # noqa: N802
        return self._edit(params, ("caption", "reply_markup"), needs="caption")

    def _editMessageMedia(self, params):  # noqa: N802
        """A new photo (by ``file_id`` or attached: ``attach://<part>``) and caption; a text message becomes a photo,
        as Telegram allows."""
        media = params.get("media")
        media = json.loads(media) if isinstance(media, str) else media
        if not isinstance(media, dict) or media.get("type") != "photo":
            return 400, "Bad Request: can't parse InputMedia"
        photo = media.get("media", "")
        if isinstance(photo, str) and photo.startswith("attach://"):
            photo = params.get(photo.removeprefix("attach://"))
        file_id = self._file(photo)
        if file_id is None:
            return 400, "Bad Request: wrong file identifier/HTTP URL specified"
        edited = {"photo": file_id, "caption": media.get("caption") or "", "reply_markup": params.get("reply_markup")}
        code, result = self._edit({**params, **edited}, ("photo", "caption", "reply_markup"))
        if code != 200:
            return code, result
        sizes = [{"file_id": file_id, "file_unique_id": file_id[-12:], "width": w, "height": w} for w in (90, 800)]
        message = {k: v for k, v in result.items() if k != "text"}
        return 200, {**message, "photo": sizes, "caption": edited["caption"]}

    def _editMessageReplyMarkup(self, params):  # noqa: N802
        return self._edit(params, ("reply_markup",))

    def _deleteMessage(self, params):  # noqa: N802
        with self._lock:
            found = self.messages.pop((str(params.get("chat_id")), int(params.get("message_id", 0))), None)
        return (200, True) if found else (400, "Bad Request: message to delete not found")

    def _answerCallbackQuery(self, params):  # noqa: N802
        return 200, True

    def _setWebhook(self, params):  # noqa: N802
        return 200, True

    def _setMyCommands(self, params):  # noqa: N802
        return 200, True


@dataclass(frozen=True)
class Upload:
    """A file sent as a part of a multipart body."""

    filename: str
    data: bytes


def _multipart(content_type: str, body: bytes) -> dict:
    """The fields of a multipart/form-data body: text, or an `Upload` for a part with a file name."""
    message = BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
    )
    params: dict = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        params[name] = Upload(filename, data) if filename else data.decode()
    return params


async def _params(request: Request) -> dict:
    """The call's parameters from a JSON, form-urlencoded or multipart body; JSON-valued fields (reply_markup...)
    decoded."""
    body = await request.body()
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("application/json"):
        return json.loads(body or b"{}")
    params = _multipart(content_type, body) if content_type.startswith("multipart/") else dict(parse_qsl(body.decode()))
    for key in ("reply_markup", "allowed_updates", "commands", "scope"):
        if key in params:
            params[key] = json.loads(params[key])
    return params


def serve(api: "FakeBotAPI"):
    """Run ``api`` under uvicorn on 127.0.0.1 in a thread; yields the bot base URL."""
    return serving.serve(api.app, path="/bot")
