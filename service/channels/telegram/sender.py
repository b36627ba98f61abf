"""Sending to Telegram from a worker process: python-telegram-bot's ``Bot`` and a small result type.

One event loop per process (docs/platform-notes.md): a module-level ``asyncio.Runner`` and a ``Bot`` created lazily on
the first call, in the process that uses them — never before a fork (a forked child that finds its parent's
pair starts its own). ``TELEGRAM_API_BASE_URL`` points the bot at a local Bot API server or a test fake
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
edits a "living" message in place when the outgoing message names a slot, and raises the outbox's exceptions:
``blocked`` -> `PermanentSendError` (the player cannot be reached), ``failed`` -> `RejectedSendError` (this one
message is refused), ``network`` -> `TransientSendError`, 429 -> `RetryAfter`.
Chats are strings: ``"<chat id>"`` or ``"<chat id>/<forum topic id>"``.
"""

import asyncio
import os
from dataclasses import dataclass
from datetime import timedelta

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TelegramError

from service.config import get_settings
from service.pipeline import outbox
from service.store import keys

DEFAULT_BASE_URL = "https://api.telegram.org/bot"
# Refusals that mean the player cannot be reached at all (deactivated, kicked the bot, never started it), as
# opposed to a refusal of one message (a 400 about its text or markup).
UNREACHABLE_WORDS = ("blocked", "deactivated", "kicked", "initiate")


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


_loop: dict = {}  # {"pid", "runner", "bot"} of this process


def new_bot() -> Bot:
    """A ``Bot`` for the configured token and ``TELEGRAM_API_BASE_URL`` (not yet bound to an event loop)."""
    settings = get_settings()
    if not settings.telegram_bot_token:
        raise RuntimeError("TELEGRAM_BOT_TOKEN is not set")
    return Bot(settings.telegram_bot_token, base_url=settings.telegram_api_base_url or DEFAULT_BASE_URL)


def _bot() -> tuple[asyncio.Runner, Bot]:
    if _loop.get("pid") != os.getpid():
        _loop.update(pid=os.getpid(), runner=asyncio.Runner(), bot=new_bot())
    return _loop["runner"], _loop["bot"]


def close() -> None:
    """Shut the bot's HTTP client and the event loop of this process (at worker shutdown)."""
    if _loop.get("pid") == os.getpid():
        _loop["runner"].run(_loop["bot"].shutdown())
        _loop["runner"].close()
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
    runner, bot = _bot()
    try:
        answer = runner.run(make_coroutine(bot))
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


def send_photo(chat_id: int | str, photo: str | bytes, caption: str, thread_id: int | None = None) -> Result:
    """``photo``: a ``file_id`` Telegram gave for a photo sent before, or the PNG's bytes (a multipart upload)."""
    return _call(
        lambda bot: bot.send_photo(
            chat_id,
            photo if isinstance(photo, str) else InputFile(photo, filename="board.png"),
            caption=caption,
            message_thread_id=thread_id,
        )
    )


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
    """The pipeline's ``Sender`` for Telegram. Keeps two small maps in Redis: chats that migrated
    (``tg:moved:<chat>``) and the message id of each living message (`slots_key`)."""

    def __init__(self, connection, ttl: int = 30 * 86400):
        self.redis = connection
        self.ttl = ttl

    def chat(self, chat: str) -> str:
        """Where ``chat`` lives now (a migrated group's supergroup, topic kept)."""
        moved = self.redis.get(keys.telegram_moved(chat))
        return moved.decode() if moved else chat

    def send(self, chat: str, text: str, buttons: list | None = None, slot: str | None = None) -> None:
        chat = self.chat(chat)
        chat_id, thread_id = split_chat(chat)
        field = f"{chat}|{slot}"
        living = self.redis.hget(slots_key(slot), field) if slot else None
        result = edit(chat_id, int(living), text, buttons) if living else Result("edit_target_missing")
        if result.status == "edit_target_missing":
            result = send(chat_id, text, buttons, thread_id)
        if result.status == "migrated":
            moved = f"{result.new_chat_id}/{thread_id}" if thread_id else str(result.new_chat_id)
            self.redis.set(keys.telegram_moved(chat), moved, ex=self.ttl)
            return self.send(moved, text, buttons, slot)
        if result.status == "retry_after":
            raise outbox.RetryAfter(result.retry_after)
        if result.status == "network":
            raise outbox.TransientSendError(result.detail)
        if result.status == "blocked":
            raise outbox.PermanentSendError(result.detail)
        if result.status == "failed":
            raise outbox.RejectedSendError(result.detail)
        if slot and result.message_id:
            pipe = self.redis.pipeline(transaction=False)
            pipe.hset(slots_key(slot), field, result.message_id)
            pipe.expire(slots_key(slot), self.ttl)
            pipe.execute()


def make(connection) -> TelegramSender:
    """Sender factory (ARTEMIA_SENDER=service.channels.telegram.sender:make)."""
    return TelegramSender(connection)
