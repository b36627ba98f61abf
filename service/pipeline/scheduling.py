"""Putting jobs on the queue under deterministic ids, so that doing it twice does it once; and closed windows in
the ready set that a few resolving jobs drain (`resolve`: there a window's note is what is done once, and a lease
bounds the jobs).

RQ job ids allow only ``[A-Za-z0-9_-]``. Immediate jobs use ``enqueue(..., unique=True)``; timed jobs use
``Job.create`` + ``queue.schedule_job(job, when, unique=True)`` because ``enqueue_at`` ignores ``unique`` in
rq 2.12 (docs/platform-notes.md §4.2). A timed job's id carries its due time in milliseconds: when a deadline moves
(downtime added back), the new time gets a new job and the old one finds nothing to do when it fires.
A ``DuplicateJobError`` means the job is already waiting or running: that is success here. A game's jobs go to
the queues of its shard (`Context.at`); the sweep to the queue of the context's own. Finished jobs are
not kept, so the same id may run again later; every job is idempotent (a resolution is a compare-and-set, a
delivery is claimed per message, a reminder is written once per window and point).
"""

import math
import re
import uuid
from datetime import UTC, datetime

from rq import Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.job import Job

from service.pipeline.context import Context

# Every job but the sweep (the next sweep replaces it) retries: a worker killed mid-job leaves an abandoned job,
# and a Redis restart mid-job raises; RQ runs either again (the job is idempotent). Resolutions have the
# sweeper's recovery besides; a delivery, a refresh or a reminder has nothing else (soak: a worker SIGKILLed in
# a delivery job left the rest of its batch unsent).
RETRY = Retry(max=3, interval=[2, 10, 30])
JOB_TIMEOUT = 120
# No job's return value is read, and every job is safe to run again, so a finished job is deleted at once: kept,
# its hash and its results stream cost ~5 KB per job, more than the whole game they serve (bench/load.py).
RESULT_TTL = 0


def _options(ctx: Context, job_id: str, retry: bool) -> dict:
    return {
        "job_id": job_id,
        "failure_ttl": ctx.settings.job_failure_ttl_seconds,
        "result_ttl": RESULT_TTL,
        "job_timeout": JOB_TIMEOUT,
        "retry": RETRY if retry else None,
    }


def enqueue(
    queue: Queue, ctx: Context, func: str, args: tuple, job_id: str, retry: bool = True, at_front: bool = False
) -> bool:
    """Enqueue now (``at_front``: before the jobs already queued); False when a job with this id already exists."""
    try:
        queue.enqueue(func, args=args, unique=True, at_front=at_front, **_options(ctx, job_id, retry))
    except DuplicateJobError:
        return False
    return True


def schedule(queue: Queue, ctx: Context, at: float, func: str, args: tuple, job_id: str, retry: bool = True) -> bool:
    """Schedule at epoch ``at``; False when a job with this id already exists.

    RQ's scheduler keeps whole seconds (it truncates the time), so a job due at 12.7 s became due at 12 s and
    started up to a second early; the time is rounded up to the next whole second instead: never early, at most
    a second late (plus the scheduler's poll interval)."""
    options = _options(ctx, job_id, retry)
    job = Job.create(
        func,
        args=args,
        id=options["job_id"],
        connection=queue.connection,
        serializer=queue.serializer,
        origin=queue.name,
        failure_ttl=options["failure_ttl"],
        result_ttl=options["result_ttl"],
        timeout=options["job_timeout"],
        retry=options["retry"],
    )
    try:
        queue.schedule_job(job, datetime.fromtimestamp(math.ceil(at), UTC), unique=True)
    except DuplicateJobError:
        return False
    return True


def ms(ts: float) -> int:
    return int(ts * 1000)


# A resolving job that died holds its lease this long; the shard's other resolving jobs go on meanwhile, and the
# sweeper resolves whatever waits longer than its grace period.
RESOLVER_LEASE_MS = 30_000


def resolve(ctx: Context, game_id: str, window: int) -> bool:
    """Note the closed window as ready to resolve on its shard, and queue a resolving job when fewer than
    ``resolvers`` of the shard's are queued or running (`resolvers`). -> whether a job was queued: when not, one
    that is queued or running takes the window before it ends."""
    return resolvers(ctx.at(game_id), f"{game_id} {window}", ctx.clock())


def resolvers(ctx: Context, member: str = "", now: float | None = None) -> bool:
    """Queue a resolving job (``workers.jobs.resolve_ready``) on the context's shard if one of its leases is free
    and a window waits, after noting ``member`` ("<game> <window>") as waiting. Each job resolves the waiting
    windows one after another until none is left, so under a burst RQ's own cost of a job (its dequeue and
    bookkeeping: about a no-op job's) is paid once for many windows, not once per window; and a lease per job
    keeps every worker busy without queueing a job per window. The job goes to the front of the queue: when a
    thousand deadlines fire at once, their jobs (each only notes its window here) would otherwise all run before
    the first resolution, and every table's next question waited seconds for them."""
    token = uuid.uuid4().hex[:16]
    now = ctx.clock() if now is None else now
    lease = ctx.store.queue_ready(ctx.shard, member, now, token, ctx.settings.resolvers, RESOLVER_LEASE_MS)
    if lease < 0:
        return False
    job_id = f"resolve-{lease}-{token}"
    return enqueue(ctx.queue, ctx, "workers.jobs.resolve_ready", (lease, token), job_id, at_front=True)


def came_back(ctx: Context, game_id: str, seat: int) -> bool:
    """The seat's player answered while away (`absence.answered_while_away`): one job per answer that did so."""
    job_id = f"back-{game_id}-{seat}-{ms(ctx.clock())}"
    return enqueue(ctx.at(game_id).queue, ctx, "workers.jobs.came_back", (game_id, seat), job_id)


def deadline(ctx: Context, game_id: str, window: int, at: float) -> bool:
    return schedule(
        ctx.at(game_id).queue,
        ctx,
        at,
        "workers.jobs.deadline",
        (game_id, window),
        f"deadline-{game_id}-{window}-{ms(at)}",
    )


def next_reminder(ctx: Context, game_id: str, window: int, opened: float, deadline_at: float, n: int = 0) -> bool:
    """Schedule reminder ``n`` (or the first later one not already past). Reminders are chained, one job at a
    time: each reminder schedules the next, so a window answered early costs one timer job, not one per point."""
    points = ctx.settings.reminder_points
    for k in range(n, len(points)):
        at = _reminder_at(opened, deadline_at, points[k])
        if at > ctx.clock() + 1:
            return schedule(
                ctx.at(game_id).queue,
                ctx,
                at,
                "workers.jobs.remind",
                (game_id, window, k),
                f"remind-{game_id}-{window}-{k}-{ms(at)}",
            )
    return False


def _reminder_at(opened: float, deadline_at: float, point: float) -> float:
    return deadline_at - point * (deadline_at - opened)


def timers(
    ctx: Context, game_id: str, window: int, opened: float, deadline_at: float
) -> tuple[str, list[str], list[str]]:
    """The deadline and reminder jobs that may wait for a window, for its commit to drop once it has closed (they
    would find nothing to do, but would sit in Redis until their time, an hour or a day): (the scheduled-job
    registry's key, the jobs' ids, their hash keys). A job the scheduler has already moved to the queue runs as a
    no-op."""
    ids = [f"deadline-{game_id}-{window}-{ms(deadline_at)}"]
    ids += [
        f"remind-{game_id}-{window}-{k}-{ms(_reminder_at(opened, deadline_at, point))}"
        for k, point in enumerate(ctx.settings.reminder_points)
    ]
    return ctx.at(game_id).queue.scheduled_job_registry.key, ids, [Job.key_for(job_id) for job_id in ids]


def refresh_job(ctx: Context, game_id: str, window: int) -> tuple[str, str, str]:
    """The status refresh job an answer to ``window`` queues (`refresh`), for the commit that resolves the window
    to drop while it still waits: (its queue's key, its id, its hash key). At a burst of closing windows, each
    such job would otherwise cost a worker a job's time to find its window closed."""
    job_id = _refresh_id(game_id, window)
    return ctx.at(game_id).refresh_queue.key, job_id, Job.key_for(job_id)


def _refresh_id(game_id: str, window: int) -> str:
    return f"refresh-{game_id}-{window}"


def deliveries(ctx: Context, game_id: str, *batches: str) -> bool:
    """One job drains the lanes of the batches' chats (named after the last batch); only a lane that must wait gets
    a job of its own."""
    job_id = f"deliver-{game_id}-{batches[-1]}"
    return enqueue(ctx.at(game_id).send_queue, ctx, "workers.jobs.deliver", (game_id, *batches), job_id)


def drain(ctx: Context, game_id: str, chat: str, at: float) -> bool:
    """Drain a chat's lane again at ``at`` (a budget wait, a 429, a retry's backoff); one job per lane and second."""
    chat_id = re.sub(r"[^A-Za-z0-9]", lambda m: f"_{ord(m[0]):x}", chat)
    return schedule(
        ctx.at(game_id).send_queue,
        ctx,
        at,
        "workers.jobs.drain",
        (game_id, chat),
        f"drain-{game_id}-{chat_id}-{math.ceil(at)}",
    )


def sweep(ctx: Context, at: float) -> bool:
    """The next periodic sweep of the context's shard; one per sweep interval whoever asks."""
    slot = int(at // ctx.settings.sweep_interval_seconds)
    return schedule(ctx.queue, ctx, at, "workers.jobs.sweep", (), f"sweep-{slot}", retry=False)


def redraw(ctx: Context, game_id: str, window: int, deadline: float) -> bool:
    """After the open window's deadline moved to ``deadline``: the job that shows the new time on the living
    messages (`upkeep.redraw`), once per window and deadline."""
    job_id = f"redraw-{game_id}-{window}-{math.floor(deadline)}"
    return enqueue(ctx.at(game_id).refresh_queue, ctx, "workers.jobs.redraw", (game_id, window), job_id)


def refresh(ctx: Context, game_id: str, window: int) -> bool:
    """After an accepted answer, when no refresh of the game was pending: the job that refreshes the living
    messages (on the refresh queue, after resolutions: never more than one per game waits), under the fixed id
    ``refresh-<game>-<window>``. That id is taken while such a job is still running (it started before this
    answer's mark): then a job of its own follows a second later, one per second at most."""
    job_id = _refresh_id(game_id, window)
    queue = ctx.at(game_id).refresh_queue
    if enqueue(queue, ctx, "workers.jobs.refresh", (game_id, window), job_id):
        return True
    at = ctx.clock() + 1
    return schedule(queue, ctx, at, "workers.jobs.refresh", (game_id, window), f"{job_id}-{math.ceil(at)}")
