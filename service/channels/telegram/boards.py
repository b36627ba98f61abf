"""``/board``: the picture of a game's public state (`service.board`), sent to the group or a private chat.

Drawn once per picture, never in the webhook. A picture is named by its digest (the SHA-256 of its SVG text,
which is built from the public view only, ~0.5 ms); ``{g:G}:tg:boards`` maps each digest already uploaded to
Telegram to the ``file_id`` Telegram gave it.

* `reply` (the webhook): when Telegram has the current picture, the webhook's reply is a ``sendPhoto`` by
  ``file_id`` — no drawing, no extra call; otherwise it queues `send` on the draw queue (one job per chat and
  picture, however often /board is typed meanwhile) and replies nothing.
* `send` (a worker, ``workers.jobs.board``): draws the game's picture as it is now (its state may have moved on
  since), uploads it with ``sendPhoto`` (multipart), and remembers the ``file_id``; a picture Telegram has by now
  is sent by ``file_id``. It spends the chat's send budget like any message (`service.pipeline.outbox.budget`).

The picture and its caption are in the table's language, whoever asks: a private chat's /board shows the picture the
group sees.
"""

import logging
import math

from service import board, i18n
from service.board import Picture
from service.channels.telegram import sender as telegram_send
from service.channels.telegram.sender import CAPTION_LIMIT, TelegramSender, known_file, remember_file, split_chat
from service.pipeline import outbox, scheduling, seats
from service.pipeline.chats import budget_chat
from service.pipeline.context import Context

log = logging.getLogger(__name__)

SHORT_WAIT = 5.0  # a budget wait up to this long is slept through; a longer one reschedules the job


def picture_of(ctx: Context, game_id: str) -> tuple[Picture, str] | None:
    """The picture of the game's public state now, and its caption; None when there is no such game."""
    read = seats.read(ctx, game_id)
    snap, meta = read.snap, read.meta or {}
    if snap is None:
        return None
    view = read.game.public_view()  # the public view and nothing else is drawn
    names = {int(seat): player["name"] for seat, player in meta.get("players", {}).items()}
    lang = meta.get("lang") or "en"
    picture = board.picture(board.payload(game_id, view, names, lang, snap.version))
    return picture, caption(meta.get("code") or game_id, view, lang)


def caption(code: str, view: dict, lang: str) -> str:
    text = i18n.translator(lang).gettext("The board of game {code}, turn {n}").format(code=code, n=view["turn"])
    assert len(text.encode("utf-16-le")) // 2 <= CAPTION_LIMIT
    return text


def reply(ctx: Context, game_id: str, chat: str) -> dict | None:
    """The webhook's answer to /board in ``chat`` (``"<id>"`` or ``"<id>/<topic>"``): a ``sendPhoto`` by ``file_id``
    when Telegram has the picture, else None after queueing the job that draws and sends it."""
    found = picture_of(ctx, game_id)
    if found is None:
        return None
    picture, text = found
    known = known_file(ctx.store.at(game_id), game_id, picture.digest)
    if known is None:
        job_id = f"board-{game_id}-{chat.replace('/', '-')}-{picture.digest}"
        scheduling.enqueue(ctx.at(game_id).draw_queue, ctx, "workers.jobs.board", (game_id, chat), job_id)
        return None
    chat_id, thread_id = split_chat(chat)
    body: dict = {"method": "sendPhoto", "chat_id": chat_id, "photo": known, "caption": text}
    if thread_id:
        body["message_thread_id"] = thread_id
    return body


def send(ctx: Context, game_id: str, chat: str) -> str:
    """Draw (unless Telegram has it) and send the game's picture to ``chat``. -> what happened."""
    found = picture_of(ctx, game_id)
    if found is None:
        return "no game"
    picture, text = found
    settings = ctx.settings
    rates = outbox.budget({"group": chat.startswith("-")}, settings)
    waited = 0.0
    while wait := ctx.store.take_send_token(budget_chat(chat), ctx.clock(), *rates):
        if waited + wait > SHORT_WAIT:
            scheduling.schedule(
                ctx.at(game_id).draw_queue,
                ctx,
                ctx.clock() + wait,
                "workers.jobs.board",
                (game_id, chat),
                f"board-{game_id}-{chat.replace('/', '-')}-{picture.digest}-{math.ceil(ctx.clock() + wait)}",
            )
            return "later"
        ctx.sleep(max(wait, outbox.MIN_SLEEP))  # a wait of 1e-12 s would not move a test's clock
        waited += wait
    chat = TelegramSender(ctx.store.redis).chat(chat)  # a group that became a supergroup
    chat_id, thread_id = split_chat(chat)
    known = known_file(ctx.store.at(game_id), game_id, picture.digest)
    result = telegram_send.send_photo(chat_id, known or picture.png(), text, thread_id)
    if result.status == "retry_after":
        outbox.throttled(ctx.store, ctx.settings, chat, ctx.clock(), result.retry_after)
        raise outbox.RetryAfter(result.retry_after)  # the job's retries send it again
    if result.status == "network":
        raise outbox.TransientSendError(result.detail)
    if not result.ok:
        log.warning("board not sent", extra={"game": game_id, "status": result.status, "detail": result.detail})
        return result.status
    if result.file_id and not known:
        remember_file(ctx.store.at(game_id), game_id, picture.digest, result.file_id)
    return "sent by file_id" if known else "uploaded"
