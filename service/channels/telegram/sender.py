"""Sending to Telegram from a worker process: python-telegram-bot's ``Bot`` and a small result type.

One event loop per process (docs/platform-notes.md), run by a thread of its own, and a ``Bot`` bound to it, created
lazily on the first call in the process that uses them — never before a fork (a forked child that finds its
parent's pair starts its own). Calls come from any thread and wait for their answer there, so several threads have
calls in flight at once (a step's chats, `service.pipeline.delivery.deliver_now`): each call is a round trip to
Telegram. ``TELEGRAM_API_BASE_URL`` points the bot at a local Bot API server or a test fake
(``http://127.0.0.1:8099/bot``; the token is appended). `close()` releases both at worker shutdown.

`send`, `edit` and `answer_callback` never raise for Telegram's answers: they return a `Result` whose status
is one of

    ok                   sent / edited (``message_id``)
    retry_after          429: wait ``retry_after`` seconds (int or timedelta in PTB; always float here)
    blocked              403: the user blocked the bot or never started it; do not retry
    not_modified         the edit changed nothing: treat as done
    edit_target_missing  the message to edit is gone: send a new one
    migrated             the group became a supergroup: ``new_chat_id``; send there
    network              timeout, 5xx, connection error: retry with backoff (a timed-out send may have arrived)
    failed               any other refusal (bad request, bad token): do not retry

`TelegramSender` adapts this to the pipeline's ``Sender`` (``service.pipeline.outbox``): it follows migrated chats,
edits a "living" message in place when the outgoing message names a slot, shows a message that carries a board
``picture`` as that photo with its text as the caption (`TelegramSender._photo`), and raises the outbox's exceptions:
``blocked`` -> `PermanentSendError` (the player cannot be reached), ``failed`` -> `RejectedSendError` (this one
message is refused), ``network`` -> `TransientSendError`, 429 -> `RetryAfter`.
Chats are strings: ``"<chat id>"`` or ``"<chat id>/<forum topic id>"``.
"""

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Unpack

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, InputMediaPhoto
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TelegramError

from service import board
from service.config import get_settings
from service.pipeline import outbox
from service.pipeline.outbox import Shown
from service.store import keys

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.telegram.org/bot"
# Refusals that mean the player cannot be reached at all (deactivated, kicked the bot, never started it), as
# opposed to a refusal of one message (a 400 about its text or markup).
UNREACHABLE_WORDS = ("blocked", "deactivated", "kicked", "initiate")
# Refusals of an edit that mean the message is of the other kind (text vs photo): a new message is sent instead.
WRONG_KIND_WORDS = ("there is no text in the message", "there is no media in the message", "there is no caption")
CAPTION_LIMIT = 1024  # a photo's caption, in UTF-16 code units
FILE_TTL = 30 * 86400  # the file_ids of a game's pictures: as long as its living messages' ids
DRAWN_KEPT = 8  # pictures `TelegramSender.prepare` keeps drawn for their sends (a few groups' lanes at a time)


@dataclass(frozen=True)
class Result:
    status: str
    message_id: int | None = None
    retry_after: float = 0.0
    new_chat_id: int | None = None
    detail: str = ""
    file_id: str | None = None  # of a photo sent: Telegram's name for it, to send it again without uploading

    @property
    def ok(self) -> bool:
        return self.status == "ok"


_loop: dict = {}  # {"loop", "thread", "bot"} of this process (emptied in a forked child: `_forked`)
_loop_lock = threading.Lock()  # the first calls of several threads start one loop


def new_bot() -> Bot:
    """A ``Bot`` for the configured token and ``TELEGRAM_API_BASE_URL`` (not yet bound to an event loop)."""
    settings = get_settings()
    if not settings.telegram_bot_token:
        raise RuntimeError("TELEGRAM_BOT_TOKEN is not set")
    return Bot(settings.telegram_bot_token, base_url=settings.telegram_api_base_url or DEFAULT_BASE_URL)


def _bot() -> tuple[asyncio.AbstractEventLoop, Bot]:
    with _loop_lock:
        if not _loop:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="telegram-sender", daemon=True)
            thread.start()
            _loop.update(loop=loop, thread=thread, bot=new_bot())
        return _loop["loop"], _loop["bot"]


def warm() -> None:
    """Start this process's event loop and bot (its HTTP client) now, when a token is set, rather than in the first
    send: the first sends of a burst otherwise reached Telegram later after their send tokens than the ones that
    followed, and bunched with them (bench/due.py)."""
    if get_settings().telegram_bot_token:
        _bot()


def _forked() -> None:
    """In a forked child: the parent's loop thread is not there, and its lock may have been held at the fork."""
    global _loop_lock
    _loop_lock = threading.Lock()
    _loop.clear()


os.register_at_fork(after_in_child=_forked)


def close() -> None:
    """Shut the bot's HTTP client and the event loop of this process (at worker shutdown)."""
    with _loop_lock:
        if _loop:
            loop = _loop["loop"]
            asyncio.run_coroutine_threadsafe(_loop["bot"].shutdown(), loop).result()
            loop.call_soon_threadsafe(loop.stop)
            _loop["thread"].join()
            loop.close()
        _loop.clear()


def markup(keyboard: list[list[dict]] | None) -> InlineKeyboardMarkup | None:
    """Our JSON keyboard (rows of ``{"text", "data"|"url"}``) as PTB markup."""
    if not keyboard:
        return None
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(b["text"], callback_data=b.get("data"), url=b.get("url")) for b in row]
            for row in keyboard
        ]
    )


def _seconds(value: int | float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def _call(make_coroutine) -> Result:
    loop, bot = _bot()
    try:
        answer = asyncio.run_coroutine_threadsafe(make_coroutine(bot), loop).result()
    except RetryAfter as exc:
        return Result("retry_after", retry_after=_seconds(exc.retry_after), detail=exc.message)
    except Forbidden as exc:
        return Result("blocked", detail=exc.message)
    except ChatMigrated as exc:
        return Result("migrated", new_chat_id=exc.new_chat_id, detail=exc.message)
    except BadRequest as exc:  # before NetworkError: BadRequest is one of its subclasses
        text = exc.message.lower()
        if "message is not modified" in text:
            return Result("not_modified", detail=exc.message)
        if "message to edit not found" in text or "message can't be edited" in text:
            return Result("edit_target_missing", detail=exc.message)
        if any(words in text for words in WRONG_KIND_WORDS):
            return Result("edit_target_missing", detail=exc.message)
        if any(word in text for word in UNREACHABLE_WORDS):
            return Result("blocked", detail=exc.message)
        return Result("failed", detail=exc.message)
    except NetworkError as exc:
        return Result("network", detail=exc.message)
    except TelegramError as exc:
        return Result("failed", detail=exc.message)
    message_id = getattr(answer, "message_id", None)
    photo = getattr(answer, "photo", None)  # the sizes Telegram made of a photo sent, the largest last
    return Result("ok", message_id=message_id, file_id=photo[-1].file_id if photo else None)


def send(
    chat_id: int | str, text: str, buttons: list[list[dict]] | None = None, thread_id: int | None = None
) -> Result:
    return _call(lambda bot: bot.send_message(chat_id, text, reply_markup=markup(buttons), message_thread_id=thread_id))


def call(method: str, params: dict) -> Result:
    """Any Bot API method with its JSON parameters (a webhook's reply sent later: `telegram.budget`)."""
    return _call(lambda bot: bot.do_api_request(method, api_kwargs=params))


def _photo_file(photo: str | bytes) -> str | InputFile:
    return photo if isinstance(photo, str) else InputFile(photo, filename="board.png")


def send_photo(
    chat_id: int | str,
    photo: str | bytes,
    caption: str,
    thread_id: int | None = None,
    buttons: list[list[dict]] | None = None,
) -> Result:
    """``photo``: a ``file_id`` Telegram gave for a photo sent before, or the PNG's bytes (a multipart upload)."""
    return _call(
        lambda bot: bot.send_photo(
            chat_id, _photo_file(photo), caption=caption, message_thread_id=thread_id, reply_markup=markup(buttons)
        )
    )


def edit_media(
    chat_id: int | str, message_id: int, photo: str | bytes, caption: str, buttons: list[list[dict]] | None = None
) -> Result:
    """A photo message shows another photo (by ``file_id`` or uploaded) and caption."""
    # bytes, not an InputFile: PTB then attaches the upload as "attach://…", as Telegram wants it in InputMedia
    media = InputMediaPhoto(photo, caption=caption, filename=None if isinstance(photo, str) else "board.png")
    return _call(
        lambda bot: bot.edit_message_media(media, chat_id=chat_id, message_id=message_id, reply_markup=markup(buttons))
    )


def edit_caption(chat_id: int | str, message_id: int, caption: str, buttons: list[list[dict]] | None = None) -> Result:
    return _call(
        lambda bot: bot.edit_message_caption(
            chat_id=chat_id, message_id=message_id, caption=caption, reply_markup=markup(buttons)
        )
    )


def caption_of(text: str) -> str:
    """``text`` as a photo's caption: its first lines (the oldest news) give way until it fits in 1024 UTF-16
    units, "…" standing for them; a caption that still does not fit is cut at its end."""

    def units(s: str) -> int:
        return len(s.encode("utf-16-le")) // 2

    lines = text.split("\n")
    cut = False
    while len(lines) > 1 and units("\n".join(lines)) > CAPTION_LIMIT - 2:
        lines, cut = lines[1:], True
    caption = ("…\n" if cut else "") + "\n".join(lines).lstrip("\n")
    if units(caption) > CAPTION_LIMIT:
        cut_to = caption[: CAPTION_LIMIT - 1]  # characters: at least as many UTF-16 units
        while units(cut_to) > CAPTION_LIMIT - 1:
            cut_to = cut_to[:-1]
        caption = cut_to + "…"
    return caption


def known_file(connection, game_id: str, digest: str) -> str | None:
    """The ``file_id`` of a picture of the game Telegram has already (`service.board.Picture.digest`)."""
    known = connection.hget(keys.telegram_boards(game_id), digest)
    return known.decode() if isinstance(known, bytes) else known


def remember_file(connection, game_id: str, digest: str, file: str) -> None:
    """Keep the ``file_id`` of the game's latest picture only: a board is drawn from the game as it is now, so an
    older picture is never sent again (at worst, one still queued is uploaded once more)."""
    pipe = connection.pipeline(transaction=True)
    pipe.delete(keys.telegram_boards(game_id))
    pipe.hset(keys.telegram_boards(game_id), digest, file)
    pipe.expire(keys.telegram_boards(game_id), FILE_TTL)
    pipe.execute()


def edit(chat_id: int | str, message_id: int, text: str, buttons: list[list[dict]] | None = None) -> Result:
    return _call(
        lambda bot: bot.edit_message_text(text, chat_id=chat_id, message_id=message_id, reply_markup=markup(buttons))
    )


def answer_callback(callback_query_id: str, text: str | None = None, alert: bool = False) -> Result:
    return _call(lambda bot: bot.answer_callback_query(callback_query_id, text=text, show_alert=alert))


def split_chat(chat: str) -> tuple[int, int | None]:
    """``"-100123/7"`` -> (-100123, 7): a chat id and its forum topic."""
    chat_id, _, thread = str(chat).partition("/")
    return int(chat_id), int(thread) if thread else None


def slots_key(slot: str) -> str:
    """The hash of a game's living messages: a slot is ``<game>:<name>`` (`service.pipeline.news`), and one hash per
    game (field ``<chat>|<slot>``) costs a fraction of a key per message."""
    return keys.telegram_slots(slot.partition(":")[0])


class TelegramSender:
    """The pipeline's ``Sender`` for Telegram. Keeps small maps in Redis: chats that migrated
    (``tg:moved:<chat>``), the message id of each living message and, for a photo, the digest of the picture it
    shows (`slots_key`: ``<chat>|<slot>`` and ``<chat>|<slot>|picture``), and the ``file_id`` of each picture
    Telegram has (`known_file`). ``games(game_id)``: the connection of a game's shard, which holds the game's maps
    (default: ``connection``, which holds the global ones)."""

    def __init__(self, connection, ttl: int = 30 * 86400, games: Callable[[str], Any] | None = None):
        self.redis = connection
        self.ttl = ttl
        self.games = games or (lambda game_id: connection)
        self._drawn: dict[str, bytes] = {}  # pictures drawn by `prepare` for the sends that follow, by digest

    def _slots(self, slot: str):
        """The connection that holds a slot's game's living messages (`slots_key`)."""
        return self.games(slot.partition(":")[0])

    def chat(self, chat: str) -> str:
        """Where ``chat`` lives now (a migrated group's supergroup, topic kept)."""
        moved = self.redis.get(keys.telegram_moved(chat))
        return moved.decode() if moved else chat

    def prepare(self, chat: str, picture: dict, slot: str | None) -> None:
        """Draw the picture a send is about to upload — Telegram has no file of it, and the message does not show it
        already — before the send's token is taken: drawn after it (tens of ms), the call reached Telegram late and
        bunched with the next ones past its 30 a second (a 429 in bench/due.py)."""
        if picture.get("if_new"):
            return  # (a closed status: its caption on the picture shown, drawn only if that message is gone)
        drawing = board.picture(picture)
        game_id, digest = picture["game"], drawing.digest
        if digest in self._drawn or known_file(self.games(game_id), game_id, digest):
            return
        if slot and _text(self._slots(slot).hget(slots_key(slot), f"{self.chat(chat)}|{slot}|picture")) == digest:
            return
        self._drawn[digest] = drawing.png()
        while len(self._drawn) > DRAWN_KEPT:
            self._drawn.pop(next(iter(self._drawn)))

    def send(self, chat: str, text: str, buttons: list | None = None, **extra: Unpack[Shown]) -> None:
        slot, picture = extra.get("slot"), extra.get("picture")
        chat = self.chat(chat)
        chat_id, thread_id = split_chat(chat)
        field = f"{chat}|{slot}"
        living, shown, refused = (
            self._slots(slot).hmget(slots_key(slot), [field, field + "|picture", f"{chat}|no pictures"])
            if slot
            else (None, None, None)
        )
        if refused:
            picture = None  # the chat refused a picture: the game's statuses there are text (`_refused`)
        elif picture is not None and picture.get("if_new"):
            # a closed status (`render`): its caption on the picture the message shows, or, when the chat never
            # saw it (every version before was replaced on a busy lane), a photo message of its own
            picture = None if living else {k: v for k, v in picture.items() if k != "if_new"}
        if picture is not None or shown is not None:
            result, showing = self._photo(chat_id, thread_id, living, shown, text, buttons, picture, slot)
        else:
            result = edit(chat_id, int(living), text, buttons) if living else Result("edit_target_missing")
            if result.status == "edit_target_missing":
                result = send(chat_id, text, buttons, thread_id)
            showing = None
        if result.status == "migrated":
            moved = f"{result.new_chat_id}/{thread_id}" if thread_id else str(result.new_chat_id)
            self.redis.set(keys.telegram_moved(chat), moved, ex=self.ttl)
            again: Shown = {"slot": slot} if slot else {}
            if picture is not None:
                again["picture"] = picture
            return self.send(moved, text, buttons, **again)
        if result.status == "retry_after":
            raise outbox.RetryAfter(result.retry_after)
        if result.status == "network":
            raise outbox.TransientSendError(result.detail)
        if result.status == "blocked":
            raise outbox.PermanentSendError(result.detail)
        if result.status == "failed":
            raise outbox.RejectedSendError(result.detail)
        if slot and (result.message_id or showing != _text(shown)):
            pipe = self._slots(slot).pipeline(transaction=False)
            if result.message_id:
                pipe.hset(slots_key(slot), field, result.message_id)
            if showing:
                pipe.hset(slots_key(slot), field + "|picture", showing)
            else:
                pipe.hdel(slots_key(slot), field + "|picture")
            pipe.expire(slots_key(slot), self.ttl)
            pipe.execute()

    def _photo(
        self,
        chat_id: int,
        thread_id: int | None,
        living: bytes | None,
        shown: bytes | None,
        text: str,
        buttons: list | None,
        picture: dict | None,
        slot: str | None,
    ) -> tuple[Result, str | None]:
        """A living message that is (or becomes) a board picture: the caption alone is edited while the picture
        is the one it shows (``shown``, its digest); another picture replaces it in place (``editMessageMedia``,
        which also turns a text message into a photo), by ``file_id`` when Telegram has it, else drawn here and
        uploaded. ``picture`` None: a last version of a photo message (the status closed at a reveal) — its
        caption (a photo cannot become a text message). -> the result, and the digest of the picture now shown
        (None: a text message)."""
        caption = caption_of(text)
        shown_digest = _text(shown)
        if picture is None:
            result = edit_caption(chat_id, int(living), caption, buttons) if living else Result("edit_target_missing")
            if result.status != "edit_target_missing":
                return result, shown_digest
            return send(chat_id, text, buttons, thread_id), None
        drawing = board.picture(picture)
        game_id, digest = picture["game"], drawing.digest
        known = known_file(self.games(game_id), game_id, digest)
        drawn: list[bytes] = []

        def photo() -> str | bytes:  # drawn at most once, and only when Telegram does not have it
            if known:
                return known
            drawn[:] = drawn or [self._drawn.pop(digest, b"") or drawing.png()]
            return drawn[0]

        if living and shown_digest == digest:
            result = edit_caption(chat_id, int(living), caption, buttons)
        elif living:
            result = edit_media(chat_id, int(living), photo(), caption, buttons)
            if result.status == "failed":  # the picture refused: the new words on what the message shows
                self._refused(chat_id, thread_id, slot, result)
                if shown_digest:
                    return edit_caption(chat_id, int(living), caption, buttons), shown_digest
                return edit(chat_id, int(living), text, buttons), None
        else:
            result = Result("edit_target_missing")
        if result.status == "edit_target_missing":
            result = send_photo(chat_id, photo(), caption, thread_id, buttons)
            if result.status == "failed":  # a group that allows no photos (or a refused upload): the status as text
                self._refused(chat_id, thread_id, slot, result)
                return send(chat_id, text, buttons, thread_id), None
        if result.ok and result.file_id and not known:
            remember_file(self.games(game_id), game_id, digest, result.file_id)
        return result, digest

    def _refused(self, chat_id: int, thread_id: int | None, slot: str | None, result: Result) -> None:
        """Telegram refused a status picture (a group whose members may send no photos, say): the game's statuses
        in that chat are text from now on (``<chat>|no pictures`` beside its living messages' ids)."""
        log.warning("status picture refused; the status goes as text", extra={"slot": slot, "detail": result.detail})
        if slot:
            chat = f"{chat_id}/{thread_id}" if thread_id else str(chat_id)
            self._slots(slot).hset(slots_key(slot), f"{chat}|no pictures", 1)


def _text(raw: bytes | str | None) -> str | None:
    return raw.decode() if isinstance(raw, bytes) else raw


def make(connection) -> TelegramSender:
    """Sender factory (ARTEMIA_SENDER=service.channels.telegram.sender:make)."""
    return TelegramSender(connection)
