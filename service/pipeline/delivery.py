"""Delivering a game's stored messages: every chat a batch writes to (a delivery job), one chat's lane (a drain
job, or a lane that must wait), and a step's private messages in the resolving job itself, right after its commit.

A resolution's questions are what a table waits for, and a job of their own would wait behind every resolution
queued before it: in a burst of 200 tables answering at once, over a second. So the job that committed a step
sends its private chats' messages at once (`deliver_now`), within ``deliver_inline_seconds`` and without sleeping
through a chat's budget; whatever is left — a lane that must wait, a group's status (its picture may have to be
drawn first) — goes to a delivery job as before. A chat that refuses our messages for good costs its seat to the
bot (`unreachable`), whichever of these found it.
"""

import concurrent.futures
import contextvars
import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from service.ops import metrics
from service.pipeline import outbox, scheduling, seats, telling
from service.pipeline.chats import chat_kind, is_group
from service.pipeline.context import Context
from service.store import keys

log = logging.getLogger(__name__)
T = TypeVar("T")
INLINE_CHATS_AT_ONCE = 8  # a table's seats at most (7): every private chat of a step in flight at once
# Steps whose private messages are being sent while their resolving job goes on (`start_now`), per process.
INLINE_STEPS_AT_ONCE = 4
# A step is sent beside its resolving job only while this process's sends take longer than this: the job gains by
# going on while a send waits for Telegram (tens of ms); a send that waits for nothing (a local sender) costs the
# threads more than it saves (bench_pipeline: 0.74 -> 0.60 of a no-op job's rate).
BESIDE_ABOVE_SECONDS = 0.005
# A resolving job's sends wait this long at most for the shared send budget before leaving a message to a delivery
# job. Left (nothing was slept), a question waited on the send queue behind every resolution, then among the groups'
# status edits and the held edits: with 1,000 tables due at once, the last table's first question went 332 s after
# the deadline, behind 936 status edits (bench/due.py). Waiting here, a burst's resolutions go at the budget's pace
# and the questions before the send queue's jobs (statuses, edits that ask nothing). A step's chats wait at once (a
# thread each, a token each): 0.25 s still left 104 tables of 1,000 to the queue, 0.9 s left 4. Under a second: a
# private chat's own wait for its next message once its burst is spent (a second) stays the delivery job's, as does
# a hold or a 429.
INLINE_PATIENCE_SECONDS = 0.9


def batch_chats(ctx: Context, game_id: str, batches: list[str] | tuple[str, ...]) -> list[str]:
    """The chats the batches write to, each once, in the order of their messages."""
    return list(dict.fromkeys(chat for batch in batches for chat in ctx.store.batch_chats(game_id, batch)))


def deliver_batch(ctx: Context, game_id: str, *batches: str) -> list[str]:
    """Drain the lane of every chat the batches write to (their messages, and any queued before them there); the
    groups' lanes last: a group's status picture may have to be drawn first, and no seat's question waits for it.
    Lanes already emptied (by the resolving job, `deliver_now`) are passed over with one round trip for all."""
    chats = batch_chats(ctx, game_id, batches)
    waiting = [chat for chat, n in zip(chats, ctx.store.lane_lengths(game_id, chats)) if n]
    return [status for chat in sorted(waiting, key=is_group) for status in drain(ctx, game_id, chat)]


def deliver_now(ctx: Context, game_id: str, batches: list[str], chats: list[str] | None = None) -> bool:
    """Send the private chats' messages of ``batches`` here and now, the chats at once, each lane until it is empty
    or must wait (a wait for the shared budget of at most ``INLINE_PATIENCE_SECONDS`` is slept); a chat not begun
    within ``deliver_inline_seconds`` is left. -> True when nothing is left for a delivery job: no group among the
    chats, and every lane emptied or left with a drain job of its own (a hold, a backoff, a 429). A longer short
    wait (a chat's budget once its burst is spent: a second or less) or a lane another deliverer holds is left to
    the delivery job, which sleeps through such waits; so is everything when a send fails in a way the outbox does
    not know (a sender's bug: the job's retries deal with it). ``chats``: those the batches write to, when the
    caller knows them (else they are read)."""
    if ctx.settings.deliver_inline_seconds <= 0:
        return False
    try:
        return _deliver_now(ctx, game_id, chats if chats is not None else batch_chats(ctx, game_id, batches))
    except Exception:  # a sender's bug must not cost the step its deadline and reminders: the job sends it all
        log.exception("delivery: sending the step of %s from its resolution failed; left to a delivery job", game_id)
        return False


def start_now(
    ctx: Context, game_id: str, batches: list[str], chats: list[str] | None = None
) -> concurrent.futures.Future[tuple[bool, list[str]]] | None:
    """`deliver_now` beside the caller, which goes on (a resolving job, to its next window) while the step's
    private messages are sent: each is a round trip to Telegram, tens of milliseconds the job would otherwise
    wait. -> a future of (`deliver_now`'s result, the outcomes of the messages it sent), which the caller counts
    (`metrics.delivered`) and acts on once it is done; None when inline sends are off, or when this process's
    sends are quick (`BESIDE_ABOVE_SECONDS`): the caller then sends them itself. The sends are timed apart from
    the caller's job: its stages stay its own thread's time."""
    if ctx.settings.deliver_inline_seconds <= 0 or outbox.send_seconds() <= BESIDE_ABOVE_SECONDS:
        return None
    return _steps().submit(contextvars.copy_context().run, _send_step, ctx, game_id, batches, chats)


def _send_step(ctx: Context, game_id: str, batches: list[str], chats: list[str] | None) -> tuple[bool, list[str]]:
    with metrics.timing_stages() as own:
        done = deliver_now(ctx, game_id, batches, chats)
    return done, own.deliveries


def _deliver_now(ctx: Context, game_id: str, chats: list[str]) -> bool:
    until = ctx.clock() + ctx.settings.deliver_inline_seconds
    private = [chat for chat in chats if not is_group(chat)]
    left = len(private) < len(chats)

    def drain_inline(chat: str) -> outbox.Drained | None:
        if ctx.clock() > until:
            return None
        return outbox.drain(
            ctx.store, ctx.sender, ctx.settings, game_id, chat, ctx.clock, ctx.sleep, INLINE_PATIENCE_SECONDS, True
        )

    error: BaseException | None = None
    for chat, (drained, failed) in zip(private, _each_at_once(drain_inline, private), strict=True):
        if failed is not None:  # (raised once the others' outcomes are dealt with, as when they went first)
            error = error or failed
            continue
        if drained is None:
            left = True
            continue
        _after(ctx, game_id, drained)
        metrics.delivered([outcome.status for outcome in drained.outcomes])
        busy = any(outcome.status == "busy" for outcome in drained.outcomes)
        if drained.again is None:
            continue
        if busy or drained.again <= outbox.SHORT_WAIT:
            left = True
        else:
            scheduling.drain(ctx, game_id, chat, ctx.clock() + drained.again)
    metrics.lap("outbox")
    if error is not None:
        raise error
    return not left


def _each_at_once(fn: Callable[[str], T], chats: list[str]) -> list[tuple[T | None, BaseException | None]]:
    """(``fn`` of each chat, or the exception it raised), the chats at once: a send is a round trip to the chat's
    service (tens of ms to Telegram), and a step's chats are independent lanes, each drained by one deliverer in
    its own order. With one chat (or none), here. Every call has ended when this returns."""
    if len(chats) < 2:
        return [_outcome(fn, chat) for chat in chats]
    # Each runs in a copy of this job's context: its log ids, and its stage timer, which the threads then share (the
    # section's time is split between "outbox" and "send" by whichever thread laps; its total stays right).
    futures = [_pool().submit(contextvars.copy_context().run, _outcome, fn, chat) for chat in chats]
    concurrent.futures.wait(futures)
    return [future.result() for future in futures]


def _outcome(fn: Callable[[str], T], chat: str) -> tuple[T | None, BaseException | None]:
    try:
        return fn(chat), None
    except Exception as exc:
        return None, exc


_pools: dict = {}  # {"pid", "pool", "steps"}: a forked child makes its own


def _pool() -> ThreadPoolExecutor:
    """The threads sending a step's chats at once (`_each_at_once`)."""
    return _pools_of_this_process()["pool"]


def _steps() -> ThreadPoolExecutor:
    """The threads sending steps beside their resolving job (`start_now`); apart from `_pool`, whose calls they
    wait for."""
    return _pools_of_this_process()["steps"]


def _pools_of_this_process() -> dict:
    if _pools.get("pid") != os.getpid():
        _pools.update(
            pid=os.getpid(),
            pool=ThreadPoolExecutor(INLINE_CHATS_AT_ONCE, thread_name_prefix="deliver"),
            steps=ThreadPoolExecutor(INLINE_STEPS_AT_ONCE, thread_name_prefix="step"),
        )
    return _pools


def drain(ctx: Context, game_id: str, chat: str) -> list[str]:
    """Send a chat's lane in order (`outbox.drain`); when it must wait, a job of its own drains it again then."""
    drained = outbox.drain(ctx.store, ctx.sender, ctx.settings, game_id, chat, ctx.clock, ctx.sleep)
    metrics.lap("outbox")
    _after(ctx, game_id, drained)
    if drained.again is not None:
        scheduling.drain(ctx, game_id, chat, ctx.clock() + drained.again)
    return [outcome.status for outcome in drained.outcomes]


def _after(ctx: Context, game_id: str, drained: outbox.Drained) -> None:
    """What a drain's outcomes ask of the game: a seat whose chat refuses us goes to the bot; a message given up
    on is logged."""
    for outcome in drained.outcomes:
        if outcome.status == "unreachable" and outcome.seat is not None:
            unreachable(ctx, game_id, outcome.seat)
        elif outcome.status == "failed":
            log.warning("outbox: a message of %s failed for good: %s", game_id, outcome.detail)


def unreachable(ctx: Context, game_id: str, seat: int) -> None:
    """A seat whose chat refuses our messages for good (blocked the bot, STOP): the bot plays it from now on
    (its open question at once), nothing more is sent to it, and the table is told how to fix it (once per
    version of the game). Pressing Start (Telegram) makes it reachable again; answering takes the seat back."""
    store = ctx.store
    meta = store.meta(game_id)
    player = meta.get("players", {}).get(str(seat), {})
    if chat_kind(player.get("chat")) == "telegram" and player.get("user"):
        store.redis.set(keys.telegram_blocked(player["user"]), 1)  # /start clears it
    try:
        seats.hand_to_bot(ctx, game_id, seat, True)
    except Exception:  # the deadline's auto-play covers it anyway
        log.exception("could not bot-answer for unreachable seat %s of %s", seat, game_id)
        store.set_streak(game_id, seat, ctx.settings.autoplay_bot_after)
    snap = store.load(game_id)
    if snap is None:
        return
    batch = f"u{seat}v{snap.version}"
    outgoing = telling.unreachable_messages(ctx, meta, seat)
    if outgoing:
        store.write_batch(game_id, batch, outgoing)
        scheduling.deliveries(ctx, game_id, batch)  # also when a killed earlier run wrote it (see remind)
