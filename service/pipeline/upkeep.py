"""Keeping the clock: deadlines, reminders, the periodic sweep, downtime credit, and delivery retries.

* A deadline closes its window with the same atomic flip as the last answer (only one of them wins), then
  resolves it; auto-play covers the missing seats.
* The sweeper looks at every game whose due time has passed (``artemia:due``): it redoes follow-ups that a
  crash skipped, fires overdue deadlines whose job went missing, resolves windows stuck in "resolving", and once
  per window (a grace period after it opened) drains again the chats still holding the step's messages.
* Downtime: the sweeper beats a heartbeat; when it finds the previous beat older than the threshold, the
  service was down, and every open deadline is pushed back by the time lost. A deadline job that finds the
  heartbeat stale (the sweeper has not run since a downtime, or its chain is missing) does not fire: it
  schedules a sweep now and itself again one sweep interval later, by when the downtime is credited.
"""

import logging

from service.game import Game
from service.pipeline import news, scheduling, telling
from service.pipeline.context import Context
from service.pipeline.resolution import follow_up, resolve_window
from service.store import Snapshot, batch_for_version, keys

log = logging.getLogger(__name__)

STALE_SWEEPS = 3  # a sweeper heartbeat older than this many sweep intervals: the chain has ended
QUESTIONS_AHEAD_SECONDS = 0.5  # a deadline's resolution holds back the groups' sends this long
EARLY_WAIT = 2.0  # a deadline job that starts at most this early waits for its deadline instead of rescheduling


def fire_deadline(ctx: Context, game_id: str, window: int) -> str:
    """-> "resolved" | "early" (deadline moved; rescheduled) | "deferred" (heartbeat stale: after a sweep)
    | "noop" (window already closed) | "lost"."""
    now = ctx.clock()
    if ctx.store.heartbeat_age(now, ctx.store.shard_of(game_id)) > ctx.settings.downtime_threshold_seconds:
        scheduling.sweep(ctx.at(game_id), now)
        scheduling.deadline(ctx, game_id, window, now + ctx.settings.sweep_interval_seconds)
        return "deferred"
    status, deadline = ctx.store.close_at_deadline(game_id, window, now)
    if status == "EARLY" and deadline is not None and deadline - now <= EARLY_WAIT:
        # due within moments (a job may start a little early: another machine's clock): wait, then close. A
        # job rescheduled for the same deadline would share this job's id and never be queued.
        ctx.sleep(deadline - now)
        now = max(ctx.clock(), deadline)
        status, deadline = ctx.store.close_at_deadline(game_id, window, now)
    if status == "EARLY":
        if deadline is None:
            raise RuntimeError(f"game {game_id} window {window}: the deadline moved but the store did not say to when")
        scheduling.deadline(ctx, game_id, window, deadline)
        return "early"
    if status == "NOOP":
        return "noop"
    if deadline is None:  # (not a hold's end: `Settings.may_hold_seconds`, one table's moment)
        # daily deadlines close many windows in the same second: their questions go before any status (the
        # resolution below sends them, and raises nothing itself when they find the budget free)
        ctx.store.questions_coming(ctx.clock(), QUESTIONS_AHEAD_SECONDS)
    return resolve_window(ctx, game_id, window)


def remind(ctx: Context, game_id: str, window: int, n: int) -> bool:
    """Remind the seats that have not answered; once per (window, n), and only while the window is open."""
    store = ctx.store
    snap = store.load(game_id)
    if snap is None or snap.window != window or snap.status != "collecting":
        return False
    paused = store.paused_until(game_id)
    if paused is not None and paused > ctx.clock():
        # the deadline moved by the pause: this reminder again, at its point of the longer window
        scheduling.next_reminder(ctx, game_id, window, snap.opened, snap.deadline, n)
        return False
    scheduling.next_reminder(ctx, game_id, window, snap.opened, snap.deadline, n + 1)
    missing = sorted(store.expected(game_id) - set(store.answers(game_id)))
    outgoing = telling.reminder_messages(
        ctx, game_id, store.meta(game_id), Game.from_json(snap.json), missing, window, snap.deadline
    )
    batch = f"w{window}r{n}"
    if not outgoing:
        return False
    written = store.write_reminder(game_id, window, batch, outgoing, once=f"{window}:{n}")
    # also when an earlier run of this job wrote the batch and died before queueing it (a delivery job for a
    # batch that is not stored, or already delivered, finds nothing to send)
    scheduling.deliveries(ctx, game_id, batch)
    return written


def credit_downtime(ctx: Context) -> float:
    """Beat the heartbeat of the context's shard; if it was down, push each of its open deadlines back by the time
    lost."""
    store, now = ctx.store, ctx.clock()
    gap = store.heartbeat(now, ctx.shard)
    if gap <= ctx.settings.downtime_threshold_seconds:
        return 0.0
    lost = gap - ctx.settings.sweep_interval_seconds
    for game_id in store.open_games(ctx.shard):
        snap = store.load(game_id)
        if snap is None or snap.status != "collecting":
            continue
        deadline = store.extend_deadline(game_id, snap.current_window, lost)
        if deadline is not None:
            scheduling.deadline(ctx, game_id, snap.current_window, deadline)
            store.set_due(game_id, deadline)
    return lost


def check_game(ctx: Context, game_id: str) -> str:
    """What the sweeper does for one due game. -> a word saying what it did."""
    store, now = ctx.store, ctx.clock()
    snap: Snapshot | None = store.load(game_id)
    if snap is None:
        store.drop_due(game_id)
        return "gone"
    if snap.followed < snap.version:
        follow_up(ctx, game_id)
        return "followed"
    if snap.status == "over":
        return compact(ctx, game_id)
    if snap.status == "collecting":
        if now < snap.closes_at:
            redeliver(ctx, game_id, snap)
            store.set_due(game_id, snap.closes_at)
            return "waiting"
        return fire_deadline(ctx, game_id, snap.current_window)
    stuck_since = snap.closed or snap.opened
    if now - stuck_since < ctx.settings.resolve_grace_seconds:
        store.set_due(game_id, stuck_since + ctx.settings.resolve_grace_seconds)
        return "resolving"
    return resolve_window(ctx, game_id, snap.current_window)


def compact(ctx: Context, game_id: str) -> str:
    """A finished game due for the sweeper: compacted (`Store.compact`) once ``finished_compact_after_seconds``
    have passed since it ended (else made due then: "early"), or looked at again in a minute while messages of it
    still wait to be sent. -> "compacted", "early", "waiting" or what else `Store.compact` says."""
    settings = ctx.settings
    snap = ctx.store.load(game_id)
    if snap is not None and snap.status == "over":
        # due earlier for another reason (a sweep of a window's grace that was still due): not before its time
        ended = ctx.store.cancelled_at(game_id) or snap.opened
        if ctx.clock() < ended + settings.finished_compact_after_seconds:
            ctx.store.set_due(game_id, ended + settings.finished_compact_after_seconds)
            return "early"
    done = ctx.store.compact(game_id, ctx.clock(), settings.finished_retention_days * 86400)
    if done == "waiting":
        ctx.store.set_due(game_id, ctx.clock() + 60)
    elif done != "compacted":
        ctx.store.drop_due(game_id)
    return done


def compact_stored(ctx: Context) -> dict[str, int]:
    """The migration to compacted finished games: every finished game stored before games were compacted (none
    of them is due) is compacted now, or made due for when it will be (SCAN over every shard: an operator's
    command, `python -m service.admin compact`). -> how many games got each outcome."""
    done: dict[str, int] = {}
    now, after = ctx.clock(), ctx.settings.finished_compact_after_seconds
    for shard in ctx.store.shards:
        for key in shard.scan_iter(match="{g:*}:snap", count=1000):
            game_id = key.decode()[3 : -len("}:snap")]
            status, compacted, opened, cancelled = shard.hmget(key, "status", "compacted", "opened", "cancelled")
            if status != b"over" or compacted is not None or opened is None:
                continue
            ended = float(cancelled or opened)
            if ended + after > now:
                ctx.store.set_due(game_id, ended + after)
                what = "due"
            else:
                what = compact(ctx, game_id)
            done[what] = done.get(what, 0) + 1
    return done


def redeliver(ctx: Context, game_id: str, snap: Snapshot) -> None:
    """Once per window, a grace period after it opened: a chat that still holds messages of the step that opened
    it gets a drain job now. Its delivery job may have been lost (queued on a Redis primary that died before its
    replica had it) or may have given up during an outage; a question nobody delivers would hold the table until
    its deadline. A lane being drained is left to its deliverer (the job finds it busy)."""
    batch = batch_for_version(snap.version)
    for chat in ctx.store.batch_chats(game_id, batch):
        if ctx.store.lane(game_id, chat):
            scheduling.drain(ctx, game_id, chat, ctx.clock())


def sweep(ctx: Context) -> dict[str, int]:
    """One sweep over the due games of the context's shard. The next sweep is scheduled first, and one broken game
    (an engine error) is logged and skipped, so neither can stop the chain."""
    scheduling.sweep(ctx, ctx.clock() + ctx.settings.sweep_interval_seconds)
    credit_downtime(ctx)
    done: dict[str, int] = {}
    for game_id in ctx.store.due_games(ctx.clock(), shard=ctx.shard):
        try:
            what = check_game(ctx, game_id)
        except Exception:
            log.exception("sweep: game %s failed", game_id)
            what = "failed"
        done[what] = done.get(what, 0) + 1
    return done


def revive_sweeper(ctx: Context) -> bool:
    """Start the sweeper chain of the context's shard again when its heartbeat is older than three sweep intervals.
    Each sweep schedules the next; a sweep cut off by a Redis outage (sweeps are not retried) or a next sweep lost
    in a failover (scheduled on the old primary, not yet on its replica) ends the chain, and only a deadline job
    would start it again, a day later in a daily game. The worker's maintenance calls this. -> whether a sweep
    was queued (one per sweep slot whoever asks)."""
    now = ctx.clock()
    if ctx.store.heartbeat_age(now, ctx.shard) <= STALE_SWEEPS * ctx.settings.sweep_interval_seconds:
        return False
    return scheduling.sweep(ctx, now)


def refresh(ctx: Context, game_id: str, queued_by: int) -> bool:
    """After accepted answers: the table's status shows the new ticks and each answering seat's decision message
    shows "locked in". One job covers every answer noted before it started (`Store.take_refresh`); it renders the
    open window, whichever window (``queued_by``, its job id's) queued it. Written as a batch of its own while
    that window is still open; a version that comes too late is skipped by the outbox (its ``seq`` is older than
    what the slot shows)."""
    store = ctx.store
    seats = store.take_refresh(game_id)
    snap = store.load(game_id)
    if not seats or snap is None or snap.window is None or snap.status != "collecting":
        return False
    answers, expected, _, meta = store.window_state(game_id)
    if not seats & set(answers):
        return False  # their window closed meanwhile: its step's messages show what they answered
    return _write_living(ctx, game_id, snap, (answers, expected, meta), sorted(seats), "r")


def _write_living(ctx: Context, game_id: str, snap: Snapshot, state: tuple, seats: list[int], kind: str) -> bool:
    """The living messages of the open window (the table's status, ``seats``' turn messages) as they stand, written
    as a batch of their own (named ``kind``: "r" a refresh, "d" a redraw) and queued for delivery."""
    answers, expected, meta = state
    window = snap.window
    assert window is not None  # (both callers read an open window)
    current = news.load_news(snap.news)
    drawn = [telling.refresh_messages(ctx, game_id, snap, meta, current, answers, expected, s) for s in seats]
    outgoing = news.newest_versions([m for messages in drawn for m in messages])
    if not outgoing:
        return False
    batch = f"{kind}{window}n{ctx.store.at(game_id).incr(keys.refresh_counter(game_id))}"
    if not ctx.store.write_reminder(game_id, window, batch, outgoing):
        return False
    scheduling.deliveries(ctx, game_id, batch)
    return True


def redraw(ctx: Context, game_id: str, window: int) -> bool:
    """The open window's deadline moved (a pause, its end): the table's status message and the turn message of every
    seat the window asks show the new time — its question, or its answer with until when it may change. -> whether
    anything was written (nothing when the window is no longer open)."""
    store = ctx.store
    snap = store.load(game_id)
    if snap is None or snap.window != window or snap.status != "collecting":
        return False
    answers, expected, _, meta = store.window_state(game_id)
    seats = sorted(set(expected) | set(Game.from_json(snap.json).may_answer()))
    return _write_living(ctx, game_id, snap, (answers, expected, meta), seats, "d")
