"""A webhook's reply is a message too: it goes out within its chat's send budget — the outbox's buckets, shared by
every process (`service.pipeline.outbox.budget`) — so a group gets at most 20 messages a minute and a chat about 1
a second, whatever its members type.

A reply whose chat has a token now is the webhook's answer, as before. Otherwise it is sent later by a job
(``workers.jobs.reply``) when the chat has one; the same reply asked for again while one waits (a flood of /stats:
the same text) is that one, not another (``keys.deferred_reply``). An answer to a button press
(``answerCallbackQuery``) is not a message and needs no budget.
"""

import hashlib
import json
import math

from service.channels.telegram import sender as telegram_send
from service.ops import metrics
from service.pipeline import outbox, scheduling
from service.pipeline.chats import budget_chat, is_group
from service.pipeline.context import Context
from service.store import keys

MESSAGE_METHODS = {"sendMessage", "sendPhoto"}  # what a webhook replies with that writes to a chat
WAITING_TTL = 3600  # a reply not sent within an hour is given up


def within_budget(ctx: Context, answer: dict | None) -> dict | None:
    """``answer`` (a Bot API method call: the webhook's reply) when its chat's budget allows it now; else None,
    and it waits for the budget (`send_later`)."""
    if answer is None or answer.get("method") not in MESSAGE_METHODS:
        return answer
    chat = _chat(answer)
    wait = _take(ctx, chat)
    if 0 < wait <= 1.0 / ctx.settings.rate_global_per_second:
        # only the overall budget's next token, tens of milliseconds away (its burst is small: Telegram counts over
        # any second): worth the wait, not a job
        ctx.sleep(wait)
        wait = _take(ctx, chat)
    if wait <= 0:
        return answer
    digest = hashlib.sha256(json.dumps(answer, sort_keys=True).encode()).hexdigest()[:16]
    if ctx.store.redis.set(keys.deferred_reply(chat, digest), 1, nx=True, ex=WAITING_TTL):
        _schedule(ctx, answer, digest, ctx.clock() + wait)
    else:  # the same reply is waiting already
        metrics.count(ctx.store.redis, "replies_dropped", chat="group" if is_group(chat) else "private")
    return None


def send_later(ctx: Context, answer: dict, digest: str, attempt: int = 0) -> str:
    """The job: send the waiting reply once its chat's budget allows it (if not yet, again later: ``attempt``)."""
    chat = _chat(answer)
    wait = _take(ctx, chat)
    if wait > 0:
        _schedule(ctx, answer, digest, ctx.clock() + wait, attempt + 1)
        return "later"
    params = {key: value for key, value in answer.items() if key != "method"}
    result = telegram_send.call(answer["method"], params)
    if result.status == "retry_after":
        outbox.throttled(ctx.store, ctx.settings, chat, ctx.clock(), result.retry_after)
        _schedule(ctx, answer, digest, ctx.clock() + result.retry_after, attempt + 1)
        return "later"
    ctx.store.redis.delete(keys.deferred_reply(chat, digest))
    return result.status


def _chat(answer: dict) -> str:
    topic = answer.get("message_thread_id")
    return f"{answer['chat_id']}/{topic}" if topic else str(answer["chat_id"])


def _take(ctx: Context, chat: str) -> float:
    """A token of the chat's budget -> 0, or the seconds until it has one (nothing taken)."""
    rates = outbox.budget({"chat": chat, "group": is_group(chat)}, ctx.settings)
    return ctx.store.take_send_token(budget_chat(chat), ctx.clock(), *rates)


def _schedule(ctx: Context, answer: dict, digest: str, at: float, attempt: int = 0) -> None:
    """The job that sends the reply at ``at``; each attempt has an id of its own (the running job's is taken)."""
    job_id = f"reply-{_chat(answer).replace('/', '-')}-{digest}-{attempt}-{math.ceil(at)}"
    scheduling.schedule(ctx.send_queue, ctx, at, "workers.jobs.reply", (answer, digest, attempt), job_id)
