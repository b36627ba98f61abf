"""Exactly-once and durability of the pipeline against a real redis-server and real `rq worker` processes."""

import collections
import random
import threading
import time
from datetime import timedelta

import pytest
import redis
from pipeline_support import CONFIG, table
from redis.backoff import NoBackoff
from redis.retry import Retry
from rq import Queue
from rq.registry import ScheduledJobRegistry, StartedJobRegistry
from rq.worker import WorkerStatus

from service.game import Game
from service.pipeline import ingest, scheduling
from service.pipeline.botplay import bot_answer
from service.pipeline.ingest import Status
from service.pipeline.resolution import start_game
from service.store import keys
from tests import real_redis
from tests.real_redis import wait_for
from workers.worker import OpsSimpleWorker

pytestmark = pytest.mark.integration


def answer(ctx, game_id, seat):
    return bot_answer(Game.from_json(ctx.store.load(game_id).json), seat)


def windows_resolved(ctx, game_id) -> list[int]:
    """Windows resolved, from the audit log of commits (the first entry is the game's creation)."""
    return [int(entry.split(":")[1]) for entry in ctx.store.resolution_log(game_id)[1:]]


def settled(ctx, game_ids) -> bool:
    """No window being resolved, no job queued, being taken or running, no delivery waiting. (Read in the order
    a job moves, so one moving is seen.)"""
    return (
        all(ctx.store.load(g).status != "resolving" for g in game_ids)
        and all(
            q.count == 0 and not q.intermediate_queue.get_job_ids() and StartedJobRegistry(queue=q).count == 0
            for q in ctx.queues
        )
        and ScheduledJobRegistry(queue=ctx.send_queue).count == 0
    )


def late_work_done(ctx, jobs: tuple[str, ...], since: float, ignore: tuple[str, ...] = ()) -> bool:
    """Whether nothing is left that could still act late: none of ``jobs`` (job ids, or prefixes ending in "-")
    is queued, being taken, running or scheduled (a retry), but the entries in ``ignore`` (running ones read
    "<job id>:<execution id>"), and a sweep begun after ``since`` is over (one beat since, and none runs now).
    Read in one transaction, so a job moving from one list to the next is seen in one of them."""
    pipe = ctx.store.redis.pipeline(transaction=True)
    pipe.get(keys.HEARTBEAT)
    for q in ctx.queues:
        pipe.lrange(q.key, 0, -1)
        pipe.lrange(q.intermediate_queue_key, 0, -1)
        pipe.zrange(q.started_job_registry.key, 0, -1)
        pipe.zrange(q.scheduled_job_registry.key, 0, -1)
    beat, *lists = pipe.execute()
    running = [e.decode() for i, entries in enumerate(lists) if i % 4 != 3 for e in entries]
    scheduled = [e.decode() for i, entries in enumerate(lists) if i % 4 == 3 for e in entries]
    pending = [
        e
        for e in running + scheduled
        if e not in ignore and any(e.partition(":")[0] == j or (j.endswith("-") and e.startswith(j)) for j in jobs)
    ]
    swept = beat is not None and float(beat) > since and not any(e.startswith("sweep-") for e in running)
    return swept and not pending


def outbox_total(ctx, game_ids) -> int:
    r = ctx.store.redis
    # (a message's body is field "<index>"; its mark, once done, "d<index>")
    return sum(
        ctx.store.batch_size(g, k.decode().rsplit(":", 1)[1])
        for g in game_ids
        for k in r.scan_iter(match=f"{{g:{g}}}:out:*")
    )


def test_many_threads_many_games_each_window_resolved_exactly_once(redis_url, ctx_for, workers):
    ctx = ctx_for(redis_url)
    games = [f"ex{i}" for i in range(30)]
    for i, g in enumerate(games):  # humans: every Hunted; the Creature is a bot
        start_game(ctx, g, {**CONFIG, "seed": i}, table(3, humans=[1, 2], deadline=600))
    workers.start(redis_url, n=2)
    resolves = collections.Counter()
    results = collections.Counter()
    lock = threading.Lock()
    target = 4  # windows answered by people, per game

    def player(seed):
        rnd = random.Random(seed)
        local = ctx_for(redis_url)
        while True:
            busy = False
            for g in rnd.sample(games, len(games)):
                snap = local.store.load(g)
                if snap.status != "collecting" or snap.version > target:
                    busy |= snap.status == "resolving" and snap.version <= target
                    continue
                busy = True
                missing = sorted(local.store.expected(g) - set(local.store.answers(g)))
                if not missing:
                    continue
                seat = rnd.choice(missing)
                try:
                    actions = answer(local, g, seat)
                except Exception:  # the window moved on under us: just look again
                    continue
                result = ingest.submit(local, g, seat, actions, snap.window, f"{g}-{snap.window}-{seat}")
                with lock:
                    results[result.status] += 1
                    if result.status is Status.RESOLVE:
                        resolves[(g, snap.window)] += 1
            if not busy:
                return
            time.sleep(0.01)

    threads = [threading.Thread(target=player, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    wait_for(lambda: settled(ctx, games), 60, "the games to settle")

    assert results[Status.DUP] + results[Status.ACCEPTED] > 0 and results[Status.INVALID] == 0
    assert resolves and max(resolves.values()) == 1  # one RESOLVE per window, across 8 threads
    for g in games:
        resolved = windows_resolved(ctx, g)
        assert len(resolved) == len(set(resolved)), f"{g}: a window was resolved twice: {resolved}"
        assert resolved == sorted(resolved)
        answered_by_people = {w for (game, w) in resolves if game == g}
        assert answered_by_people <= set(resolved)
        assert ctx.store.load(g).version >= target
    sent = ctx.sender.sent()
    assert len(sent) == outbox_total(ctx, games), "every stored message sent exactly once"


def test_the_same_answer_delivered_twice_is_applied_once(redis_url, ctx_for):
    ctx = ctx_for(redis_url)
    start_game(ctx, "dup", CONFIG, table(3, humans=[1, 2]))
    actions = answer(ctx, "dup", 1)
    barrier = threading.Barrier(10)
    statuses = []

    def deliver():
        local = ctx_for(redis_url)
        barrier.wait()
        statuses.append(ingest.submit(local, "dup", 1, actions, 1, "telegram-update-77").status)

    threads = [threading.Thread(target=deliver) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [Status.ACCEPTED] + [Status.DUP] * 9
    assert ctx.store.answers("dup") == {1: actions}


def test_a_deadline_racing_the_last_answer_resolves_once(redis_url, ctx_for, workers):
    ctx = ctx_for(redis_url)
    games = [f"race{i}" for i in range(12)]
    for g in games:
        start_game(ctx, g, CONFIG, table(3, humans=[1, 2], deadline=1))
        ingest.submit(ctx, g, 1, answer(ctx, g, 1), 1)
    workers.start(redis_url, n=2)
    last = {}
    rnd = random.Random(3)
    started = time.time()
    for g in games:  # the deadline fires 1-2 s after start (scheduler polling): answer around then
        time.sleep(max(0.0, started + rnd.uniform(0.7, 2.3) - time.time()))
        last[g] = ingest.submit(ctx, g, 2, answer(ctx, g, 2), 1).status
    wait_for(lambda: all(1 in windows_resolved(ctx, g) for g in games), 30, "every first window resolved")
    assert set(last.values()) <= {Status.RESOLVE, Status.CLOSED, Status.STALE, Status.ACCEPTED}
    for g in games:
        assert windows_resolved(ctx, g).count(1) == 1
    # a late duplicate would come from a deadline or resolution job of window 1 still on its way, or a sweep
    window_1 = tuple(f"deadline-{g}-1-" for g in games) + ("resolve-",)  # resolving jobs serve every game
    since = time.time()
    wait_for(
        lambda: late_work_done(ctx, window_1, since) and not ctx.store.ready_count(),
        30,
        "the jobs of window 1 and a sweep to be over, and no window waiting to be resolved",
    )
    for g in games:
        assert windows_resolved(ctx, g).count(1) == 1


def test_real_scheduler_sends_reminders_then_the_deadline_autoplays(redis_url, ctx_for, workers):
    ctx = ctx_for(redis_url)
    start_game(ctx, "late", CONFIG, table(3, humans=[1, 2], deadline=4))
    workers.start(redis_url, n=1, ARTEMIA_AUTOPLAY_BOT_AFTER="1")
    wait_for(lambda: 1 in windows_resolved(ctx, "late"), 10, "the deadline to resolve step 1")
    wait_for(lambda: any("a bot plays for them" in m["text"] for m in ctx.sender.sent()), 10, "the bot notice")
    sent = ctx.sender.sent()
    reminders = [m["chat"] for m in sent if m["text"].startswith("Reminder: step 1 ")]
    assert {"chat1", "chat2"} == set(reminders)  # to the players who had not answered, in private
    notices = [m["text"] for m in sent if "a bot plays for them" in m["text"]]
    assert any("P1" in n for n in notices) and any("P2" in n for n in notices)
    assert windows_resolved(ctx, "late").count(1) == 1


def test_a_worker_killed_mid_resolution_loses_and_doubles_nothing(redis_url, ctx_for, workers):
    ctx = ctx_for(redis_url)
    start_game(ctx, "kill", CONFIG, table(3, humans=[1, 2], deadline=600))
    scheduling.sweep(ctx, ctx.clock())  # the sweeper chain, as `python -m workers` seeds it
    # The victim holds no scheduler lock: a dead scheduler's lock blocks a successor for ~60 s (RQ's design).
    (victim,) = workers.start(redis_url, n=1, simple=True, scheduler=False, ARTEMIA_RESOLVE_PAUSE_SECONDS="3")
    for seat in (1, 2):
        result = ingest.submit(ctx, "kill", seat, answer(ctx, "kill", seat), 1)
    assert result.status is Status.RESOLVE
    started = StartedJobRegistry(queue=ctx.queue)
    wait_for(lambda: any(j.startswith("resolve-") for j in started.get_job_ids()), 10, "the resolution to start")
    time.sleep(0.5)  # aims the kill into the 3 s pause before the commit (checked below: still resolving)
    workers.kill(victim)  # SIGKILL, mid-resolution (it pauses 3 s before committing)
    assert ctx.store.load("kill").status == "resolving"
    killed = tuple(e.decode() for e in ctx.store.redis.zrange(started.key, 0, -1) if e.startswith(b"resolve-"))
    workers.start(redis_url, n=1)
    wait_for(lambda: ctx.store.load("kill").version >= 2, 30, "another worker to finish the window")
    assert windows_resolved(ctx, "kill")[0] == 1
    # (the killed job itself stays in RQ's started registry until RQ declares it abandoned and retries it)
    wait_for(
        lambda: ctx.store.load("kill").status != "resolving" and len(ctx.sender.sent()) == outbox_total(ctx, ["kill"]),
        20,
        "the game to settle",
    )
    # a late duplicate resolution or send would come from a job of this game still on its way (but the killed one,
    # left in the started registry until RQ declares it abandoned), or from a sweep
    since = time.time()
    wait_for(
        lambda: late_work_done(ctx, ("resolve-", "deliver-kill-"), since, ignore=killed),
        30,
        "the game's jobs and a sweep to be over",
    )
    assert windows_resolved(ctx, "kill").count(1) == 1
    assert len(ctx.sender.sent()) == outbox_total(ctx, ["kill"])


def test_redis_restarted_mid_game_loses_no_acknowledged_answer(ctx_for, workers, server_url):
    server = real_redis.Server().start()
    url = server.url
    try:
        ctx = ctx_for(url)
        games = [f"aof{i}" for i in range(20)]
        for g in games:
            start_game(ctx, g, CONFIG, table(3, humans=[1, 2], deadline=600))
        acked = []

        def submitter():
            local = ctx_for(url)
            for g in games:  # a steady stream of answers, each acknowledged only once stored
                try:
                    if ingest.submit(local, g, 1, answer(local, g, 1), 1).status is Status.ACCEPTED:
                        acked.append(g)
                except redis.ConnectionError:
                    return
                time.sleep(0.02)

        thread = threading.Thread(target=submitter)
        thread.start()
        wait_for(lambda: len(acked) >= 8, 10, "some acknowledged answers")
        server.kill()
        thread.join()
        server.start()
        ctx = ctx_for(url)
        assert all(1 in ctx.store.answers(g) for g in acked), "an acknowledged answer was lost"
        assert len(acked) < len(games)  # the kill really happened mid-stream
        workers.start(url, n=1)
        g = acked[0]
        assert ingest.submit(ctx, g, 2, answer(ctx, g, 2), 1).status is Status.RESOLVE
        wait_for(lambda: ctx.store.load(g).version >= 2, 20, "the game to go on after the restart")
        assert windows_resolved(ctx, g)[0] == 1
    finally:
        workers.stop_all()
        server.stop()


def test_the_scheduler_goes_on_through_a_redis_restart(workers, server_url):
    """Deadlines, reminders, delayed drains and the sweeper chain are scheduled jobs: RQ's scheduler process died
    on the first ConnectionError and came back only at its worker's next maintenance (up to 30 s in the Procfile,
    ten minutes here), so through a failover every scheduled job waited that long. It waits Redis out instead."""
    server = real_redis.Server().start()
    try:
        workers.start(server.url, n=1, worker_class="workers.worker.OpsSimpleWorker", maintenance_interval=600)
        client = redis.Redis(port=server.port)
        wait_for(lambda: client.exists("rq:scheduler-lock:artemia"), 20, "the scheduler to take its lock")
        server.kill()
        time.sleep(2)  # the scheduler's beats meet a closed port
        server.start()
        job = Queue("artemia", connection=client, serializer="json").enqueue_in(timedelta(seconds=1), "os.getpid")
        wait_for(lambda: job.get_status(refresh=True) == "finished", 30, "the job scheduled after the restart")
        assert workers.alive(), "the worker went on too"
    finally:
        workers.stop_all()
        server.stop()


class QuietWorker(OpsSimpleWorker):
    take_over_logging = False  # pytest owns the logging here


def test_a_worker_waits_redis_out_when_it_is_lost_between_two_jobs(server_url):
    """RQ writes the worker's "idle" state before each dequeue, outside the dequeue's own wait for a lost Redis:
    a failover at that moment made the worker quit (and honcho stopped the other worker with it: CI of
    678f8a6). It waits Redis out instead."""
    server = real_redis.Server().start()
    try:
        # no retries of redis-py's own (three, up to seconds apart): the outage outlasts them, as a failover can
        connection = redis.Redis(port=server.port, retry=Retry(NoBackoff(), 0))
        worker = QuietWorker(["artemia"], connection=connection, serializer="json")
        worker.register_birth()
        server.kill()
        failed = []

        def idle():
            try:
                worker.set_state(WorkerStatus.IDLE)
            except Exception as exc:
                failed.append(exc)

        thread = threading.Thread(target=idle)
        thread.start()
        time.sleep(1.5)  # its first tries meet a closed port
        server.start()
        thread.join(30)
        assert not thread.is_alive() and failed == []
        assert connection.hget(worker.key, "state") == b"idle"
    finally:
        server.stop()


def test_a_chat_gets_its_messages_in_order_across_a_429_burst(redis_url, ctx_for, workers):
    """Twelve steps' messages to one group, delivered by two real workers while the channel answers 429 (retry
    after 2 s) to the first send and to the one after the pause: they arrive in the order they were written.
    (Each waiting message once got a retry job of its own; those fired in the order of their ids, "v10" before
    "v9", or raced on two workers.)"""
    ctx = ctx_for(redis_url)
    ctx.store.redis.set("test:fail:grp", "retry_after:2")
    versions = range(1, 13)
    for v in versions:
        assert ctx.store.write_batch(
            "order", f"v{v}", [{"chat": "grp", "text": f"step {v}", "seat": None, "group": True}]
        )
        scheduling.deliveries(ctx, "order", f"v{v}")
    workers.start(redis_url, n=2)
    time.sleep(0.5)
    ctx.store.redis.set("test:fail:grp", "retry_after:1")  # a second burst, as the first pause ends

    def group_texts():
        return [m["text"] for m in ctx.sender.sent() if m["chat"] == "grp"]

    wait_for(lambda: len(group_texts()) >= len(versions), 60, "every message to the group")
    time.sleep(1.0)  # nothing sent twice either
    assert group_texts() == [f"step {v}" for v in versions]
