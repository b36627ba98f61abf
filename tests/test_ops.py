"""/healthz, /metrics and the shared counters (service.ops.metrics) on fakeredis, with a minimal app carrying the ops
routes, and the Procfile's worker class running a whole bot game."""

import time
from datetime import UTC, datetime
from types import SimpleNamespace

import fakeredis
import pytest
from pipeline_support import make_ctx, table
from prometheus_client.parser import text_string_to_metric_families
from real_redis import wait_for
from rq import Worker
from rq.utils import utcformat
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from service.game import buildinfo
from service.ops import health, metrics
from service.ops import web as ops_web
from service.pipeline import scheduling
from service.pipeline.resolution import start_game
from workers.worker import OpsSimpleWorker, job_ids


async def webhook(request):
    return Response(status_code=int(request.query_params.get("status", "200")))


TOKEN = "ops-secret"
OPERATOR = {"Authorization": f"Bearer {TOKEN}"}


def make_app(ctx):
    app = Starlette(
        routes=[
            Route("/telegram/webhook", webhook, methods=["POST"]),
            Route("/sms/twilio", webhook, methods=["POST"]),
            *ops_web.ROUTES,
        ],
        middleware=[Middleware(ops_web.MetricsMiddleware)],
        lifespan=ops_web.write_counts,
    )
    app.state.env = SimpleNamespace(ctx=ctx)
    app.state.counts = metrics.BufferedCounts()
    return app


def samples(text: str) -> dict:
    """{(name, sorted label items): value} of a Prometheus exposition."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[s.name, tuple(sorted(s.labels.items()))] = s.value
    return out


class QuietWorker(OpsSimpleWorker):
    take_over_logging = False  # pytest owns the logging here


def make_healthy(ctx, now=None):
    """A registered worker with a fresh heartbeat, the scheduler locks, a fresh sweeper heartbeat (on the Redis of
    the context's queues: its shard's)."""
    now = now or time.time()
    connection = ctx.queue.connection
    worker = Worker(ctx.queues, connection=connection, name="w1")
    worker.register_birth()
    worker.heartbeat()
    for queue in ctx.queues:
        connection.set(health.SCHEDULER_LOCK + queue.name, "sched", ex=61)
    connection.set("artemia:heartbeat", repr(now))
    return worker


@pytest.fixture
def ctx():
    ctx = make_ctx()
    ctx.settings = ctx.settings.model_copy(update={"ops_token": TOKEN, "health_cache_seconds": 0})
    return ctx


def test_counters_and_histograms_are_shared_through_redis(ctx):
    other = fakeredis.FakeRedis(server=ctx.store.redis.connection_pool.connection_kwargs["server"])
    metrics.count(ctx.store.redis, "answers", channel="telegram")
    metrics.answer_stored(other, "telegram")  # another process, the same Redis
    metrics.autoplayed(other, 2)
    metrics.throttled(ctx.store.redis, "telegram")
    for seconds in (0.02, 0.2, 400):
        metrics.observe(ctx.store.redis, "resolution_latency_seconds", seconds, trigger="answers")
    got = samples(health.render_metrics(ctx.store.redis, ctx.settings).decode())
    assert got["artemia_answers_total", (("channel", "telegram"),)] == 2
    assert got["artemia_autoplays_total", ()] == 2
    assert got["artemia_throttled_total", (("channel", "telegram"),)] == 1
    bucket = lambda le: got["artemia_resolution_latency_seconds_bucket", (("le", le), ("trigger", "answers"))]  # noqa
    assert (bucket("0.01"), bucket("0.025"), bucket("0.25"), bucket("300.0"), bucket("+Inf")) == (0, 1, 2, 2, 3)
    assert got["artemia_resolution_latency_seconds_count", (("trigger", "answers"),)] == 3
    assert got["artemia_resolution_latency_seconds_sum", (("trigger", "answers"),)] == pytest.approx(400.22)
    assert got["artemia_outbox_depth", (("shard", "0"),)] == 0


def test_counting_never_raises_when_redis_is_down(ctx):
    ctx.store.redis.connection_pool.connection_kwargs["server"].connected = False
    metrics.count(ctx.store.redis, "answers", channel="sms")
    metrics.observe(ctx.store.redis, "job_seconds", 0.1, job="resolve")


def test_healthz_lists_every_reason_then_turns_healthy(ctx):
    client = TestClient(make_app(ctx))
    answer = client.get("/healthz", headers=OPERATOR)
    assert answer.status_code == 503
    reasons = " | ".join(answer.json()["reasons"])
    assert "0 worker(s) with a heartbeat" in reasons
    assert "the sweeper has not run" in reasons
    # no scheduler lock is a warning: a healthy worker's scheduler takes it over, and the sweeper's heartbeat
    # tells when none does
    assert "no RQ scheduler holds the lock of queue artemia" in " | ".join(answer.json()["warnings"])

    make_healthy(ctx)
    answer = client.get("/healthz", headers=OPERATOR)
    assert answer.status_code == 200, answer.json()
    assert answer.json()["ok"] is True and answer.json()["checks"]["workers"][0]["name"] == "w1"
    # which engine this process runs: `make test` builds the compiled one (tools/build_engine.py)
    assert answer.json()["checks"]["engine"] == ("compiled" if buildinfo.is_compiled() else "sources")
    assert buildinfo.running() == answer.json()["checks"]["engine"]


def test_healthz_reports_a_stale_worker_an_outbox_backlog_and_overdue_games(ctx, monkeypatch):
    now = time.time()
    make_healthy(ctx, now)
    ctx.settings = ctx.settings.model_copy(update={"health_outbox_max": 2})
    for i in range(3):
        ctx.send_queue.enqueue("workers.jobs.deliver", args=("g", f"v{i}"))
    ctx.store.redis.zadd("artemia:due", {"stuck": now - 3600})
    result = health.health(ctx.store.redis, ctx.settings, now=now + 400)
    reasons = " | ".join(result["reasons"])
    assert not result["ok"]
    assert "0 worker(s) with a heartbeat fresher than 40 s" in reasons
    assert "1 game(s) overdue" in reasons
    warnings = " | ".join(result["warnings"])  # a backlog drains at Telegram's rate: the service still works
    assert "outbox backlog: 3 deliveries queued (> 2)" in warnings
    assert "outbox backlog: the oldest delivery has waited" in warnings
    assert result["checks"]["outbox"]["queued"] == 3


def test_a_fresh_sender_does_not_stand_in_for_a_dead_worker(ctx):
    """The worker died (its last heartbeat 41 s old); the sender, fresh, takes only the send queue."""
    now = time.time()
    worker = make_healthy(ctx, now)
    beat = datetime.fromtimestamp(now - 41, UTC)
    ctx.store.redis.hset(worker.key, "last_heartbeat", utcformat(beat))  # as a killed worker leaves it
    sender = Worker([ctx.send_queue], connection=ctx.store.redis, name="sender")
    sender.register_birth()
    sender.heartbeat()
    result = health.health(ctx.store.redis, ctx.settings, now=now)
    reasons = " | ".join(result["reasons"])
    assert "1 worker(s) with a heartbeat" not in reasons  # one fresh worker was once enough
    assert "takes queue artemia |" in reasons + " |" and "takes queue artemia-refresh" in reasons
    assert "takes queue artemia-send" not in reasons


def test_healthz_is_503_when_redis_is_unreachable(ctx):
    client = TestClient(make_app(ctx))
    ctx.store.redis.connection_pool.connection_kwargs["server"].connected = False
    answer = client.get("/healthz", headers=OPERATOR)
    assert answer.status_code == 503
    assert answer.json()["reasons"][0].startswith("redis unreachable")
    assert client.get("/metrics", headers=OPERATOR).status_code == 503


def test_without_the_operators_token_healthz_says_only_ok_and_metrics_are_refused(ctx):
    make_healthy(ctx)
    client = TestClient(make_app(ctx))
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        answer = client.get("/healthz", headers=headers)
        assert (answer.status_code, answer.json()) == (200, {"ok": True})  # no worker names, no counts
        refused = client.get("/metrics", headers=headers)
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    assert "workers" in client.get("/healthz", headers=OPERATOR).json()["checks"]
    ctx.settings = ctx.settings.model_copy(update={"ops_token": None})
    assert client.get("/metrics", headers=OPERATOR).status_code == 404  # off without a token set
    assert client.get("/healthz", headers=OPERATOR).json() == {"ok": True}


def test_healthz_is_computed_once_per_interval_however_many_poll_it(ctx, monkeypatch):
    make_healthy(ctx)
    ctx.settings = ctx.settings.model_copy(update={"health_cache_seconds": 60})
    computed = []
    monkeypatch.setattr(ops_web, "health_of", lambda *args: computed.append(1) or health.health_of(*args))
    client = TestClient(make_app(ctx))
    assert all(client.get("/healthz").status_code == 200 for _ in range(50))
    assert len(computed) == 1


def test_webhook_requests_are_counted_per_channel_and_status(ctx):
    client = TestClient(make_app(ctx))
    client.post("/telegram/webhook")
    client.post("/telegram/webhook?status=403")
    client.post("/sms/twilio")
    client.get("/healthz")
    got = samples(client.get("/metrics", headers=OPERATOR).text)
    assert got["artemia_updates_total", (("channel", "telegram"), ("status", "200"))] == 1
    assert got["artemia_updates_total", (("channel", "telegram"), ("status", "403"))] == 1
    assert got["artemia_updates_total", (("channel", "sms"), ("status", "200"))] == 1
    assert not any(name == "artemia_updates_total" and ("channel", "healthz") in labels for name, labels in got)


class WatchedCounts(metrics.BufferedCounts):
    """Buffered counts that note each read of their interval: the writer task reads it as it goes to sleep."""

    def __init__(self, interval: float):
        self.slept: list[float] = []
        super().__init__(interval)

    @property
    def interval(self) -> float:
        self.slept.append(self._interval)
        return self._interval

    @interval.setter
    def interval(self, value: float) -> None:
        self._interval = value


def test_request_counts_are_written_by_the_lifespan_task_and_at_shutdown(ctx):
    app = make_app(ctx)
    app.state.counts = counts = WatchedCounts(0.05)
    field = "updates|channel=telegram,status=200"
    with TestClient(app) as client:
        client.post("/telegram/webhook")
        wait_for(lambda: ctx.store.redis.hget(metrics.COUNTERS_KEY, field), 5, "the writer task to write the count")
        assert ctx.store.redis.hget(metrics.COUNTERS_KEY, field) == b"1"
        counts.interval = 3600  # no more periodic writes: only the shutdown writes the next one
        wait_for(lambda: 3600 in counts.slept, 5, "the writer task to go to sleep for the long interval")
        client.post("/telegram/webhook")
        assert ctx.store.redis.hget(metrics.COUNTERS_KEY, field) == b"1"
    assert ctx.store.redis.hget(metrics.COUNTERS_KEY, field) == b"2"


def test_the_procfile_worker_class_counts_a_whole_bot_game(ctx):
    start_game(ctx, "opsgame", {"players": 3, "seed": 5, "side": 1, "expert": False}, table(3, humans=[]))
    scheduling.sweep(ctx, ctx.clock() + 3600)
    worker = QuietWorker(ctx.queues, connection=ctx.store.redis, serializer=ctx.queue.serializer)
    for _ in range(50):
        worker.work(burst=True)
        if ctx.store.load("opsgame").status == "over":
            break
    worker.work(burst=True)
    assert ctx.store.load("opsgame").status == "over"
    got = samples(health.render_metrics(ctx.store.redis, ctx.settings).decode())
    assert got["artemia_jobs_total", (("job", "resolve_ready"), ("outcome", "ok"))] >= 1
    assert got["artemia_windows_resolved_total", (("trigger", "answers"),)] >= 1
    assert got["artemia_resolution_latency_seconds_count", (("trigger", "answers"),)] >= 1
    assert got["artemia_deliveries_total", (("status", "sent"),)] >= 1
    assert got["artemia_job_seconds_count", (("job", "deliver"),)] >= 1
    # where the jobs' time went: each stage of a resolution and of a delivery, and the wait in the queue
    stage = lambda job, name: got.get(("artemia_job_stage_seconds_count", (("job", job), ("stage", name))), 0)  # noqa
    jobs = got["artemia_job_seconds_count", (("job", "resolve_ready"),)]
    assert stage("resolve_ready", "wait") == stage("resolve_ready", "rq") == jobs
    for name in ("read", "engine", "render", "commit", "enqueue"):  # a job that found no window waiting has none
        assert 1 <= stage("resolve_ready", name) <= jobs, name
    # a resolution sends its step's messages itself (no Telegram group here: all of them); the rest is a delivery's
    assert stage("resolve_ready", "send") >= 1 and stage("resolve_ready", "outbox") >= 1
    assert stage("deliver", "engine") == 0


def test_a_job_s_stages_add_up_to_its_laps_and_nothing_is_timed_outside_one():
    metrics.lap("engine")  # no job is being timed: nothing happens
    with metrics.timing_stages() as stages:
        time.sleep(0.01)
        metrics.lap("read")
        with metrics.stage("send", before="outbox"):
            time.sleep(0.02)
        metrics.lap("outbox")
        time.sleep(0.01)
        metrics.lap("read")
    assert set(stages.spent) == {"read", "send", "outbox"}
    assert stages.spent["read"] >= 0.02 and stages.spent["send"] >= 0.02 and stages.spent["outbox"] < 0.01
    metrics.lap("engine")
    assert "engine" not in stages.spent


def test_a_tally_writes_its_counts_and_observations_in_one_round_trip(ctx):
    trips = []
    pipeline = ctx.store.redis.pipeline

    def counted(*args, **kwargs):
        trips.append(1)
        return pipeline(*args, **kwargs)

    ctx.store.redis.pipeline = counted
    tally = (
        metrics.Tally().count("jobs", job="resolve", outcome="resolved").count("windows_resolved", trigger="answers")
    )
    tally.observe("job_stage_seconds", 0.0007, job="resolve", stage="engine").write(ctx.store.redis)
    del ctx.store.redis.pipeline
    assert len(trips) == 1
    got = samples(health.render_metrics(ctx.store.redis, ctx.settings).decode())
    assert got["artemia_windows_resolved_total", (("trigger", "answers"),)] == 1
    bucket = ("artemia_job_stage_seconds_bucket", (("job", "resolve"), ("le", "0.001"), ("stage", "engine")))
    assert got[bucket] == 1


def test_job_log_context_names_game_and_window_never_arguments():
    job = SimpleNamespace(id="resolve-g1-4", func_name="workers.jobs.resolve", args=("g1", 4))
    assert job_ids(job) == {"job": "resolve-g1-4", "game": "g1", "window": 4}
    drain = SimpleNamespace(id="drain-g2-_2d100-1900000000", func_name="workers.jobs.drain", args=("g2", "-100"))
    assert job_ids(drain) == {"job": "drain-g2-_2d100-1900000000", "game": "g2"}


def test_the_scheduler_moves_a_job_due_within_its_lookahead_and_polls_at_its_own_pace(ctx, monkeypatch):
    """A deadline due at a whole second is moved to its queue ``lookahead`` early (its job waits for the deadline,
    `upkeep.fire_deadline`), other timed jobs when due, and the poll waits ``poll_seconds``; RQ's own interval stays 0, so its locks' TTL is
    whole seconds."""
    from workers import worker as worker_module

    due = 2_000_000_010.0
    scheduling.deadline(ctx, "g1", 3, due)
    scheduling.drain(ctx, "g1", "42", due)  # held until then: not moved early (it would only reschedule itself)
    now, slept = [due - 0.5], []
    monkeypatch.setattr(worker_module, "time", SimpleNamespace(time=lambda: now[0], sleep=slept.append))
    scheduler = worker_module.BoundScheduler(
        [ctx.queue, ctx.send_queue], connection=ctx.store.redis, interval=0, serializer=ctx.queue.serializer
    )
    scheduler.poll_seconds, scheduler.lookahead_seconds = 0.2, 0.3
    scheduler.acquire_locks()
    scheduler.enqueue_scheduled_jobs()
    assert ctx.queue.count == 0  # half a second before: not yet
    now[0] = due - 0.25
    scheduler.enqueue_scheduled_jobs()
    assert ctx.queue.job_ids == [f"deadline-g1-3-{scheduling.ms(due)}"] and slept == [0.2, 0.2]
    assert ctx.send_queue.count == 0
    now[0] = due
    scheduler.enqueue_scheduled_jobs()
    assert ctx.send_queue.count == 1  # due now
    assert ctx.store.redis.ttl(scheduler.get_locking_key(ctx.queue.name)) == 60
