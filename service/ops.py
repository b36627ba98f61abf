"""Operating the service: ``/healthz``, ``/metrics`` (Prometheus), counters shared by every process, and the
RQ worker class that the ``Procfile`` runs.

Counters live in Redis
    Web and worker processes are many, on several machines, and the forking RQ worker runs every job in a
    fresh child process. So counters are kept in Redis (``HINCRBY`` on ``artemia:metrics:c``; a histogram is
    the hash ``artemia:metrics:h:<name>`` of per-bucket counts, sum and count) and any web process renders all
    of them on ``/metrics`` with prometheus-client's exposition code. prometheus-client's own multiprocess mode
    was the alternative; it was not chosen because it aggregates only the processes of one machine (a shared
    directory), and it writes one file per process id — with a fork per job that is a new file for every job,
    growing without bound. The Redis cost is one pipelined round trip per counted event (next to ~55 Redis
    commands an RQ job already costs, TECH-NOTES §3.4); counting never raises (a failed count is logged at debug
    level and lost). Counters survive restarts; Prometheus handles a reset (a flushed Redis) as usual. Every
    web process shows the same, global numbers: scrape one of them (or aggregate with ``max``).

Where the numbers come from
    * the web's middleware (`MetricsMiddleware`): inbound updates per channel and HTTP status, added up in the
      process (`BufferedCounts`) and written once a second, not one round trip per request;
    * the worker classes (`OpsSimpleWorker`, run by the Procfile, and the forking `OpsWorker`): every job's outcome and run time, windows resolved
      (per resolution run: windows answered by bots only that the same run goes on resolving are not counted
      separately), the resolution latency (from the moment the window closed — the last answer enqueued the
      resolution, or the deadline came — to the committed result with its follow-ups scheduled), deadlines
      that fired, deliveries by result;
    * one-line hooks in the pipeline for what no job result shows: `answer_stored` (service/ingest.py, after
      the submit script stored an answer), `autoplayed` (workers/resolution.py, seats auto-played because they
      did not answer) and `throttled` (service/outbox.py, a channel's 429 / retry-after);
    * read from Redis when scraped: queue depths, scheduled and failed jobs, the outbox backlog (deliveries
      queued, oldest age, redeliveries waiting), workers and their heartbeats, the RQ scheduler lock, the
      sweeper's heartbeat, open and overdue games.

``/healthz`` answers 200 ``{"ok": true, ...}`` or 503 with the reasons: Redis unreachable, no worker with a
fresh heartbeat, no RQ scheduler holding its lock, the sweeper's heartbeat stale, an outbox backlog, games
overdue (a due time long past: the sweeper cannot handle them). Thresholds: `OpsSettings`.
"""

import asyncio
import importlib
import logging
import math
import re
import threading
import time
from collections import Counter
from datetime import datetime, timezone

import redis
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from pydantic_settings import BaseSettings, SettingsConfigDict
from rq import SimpleWorker
from rq import Worker as RQWorker
from rq.registry import FailedJobRegistry, ScheduledJobRegistry, StartedJobRegistry
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from service import logs

log = logging.getLogger(__name__)

COUNTERS_KEY = "artemia:metrics:c"
HISTOGRAM_KEY = "artemia:metrics:h:"
SCHEDULER_LOCK = "rq:scheduler-lock:"  # rq.scheduler.SCHEDULER_LOCKING_KEY_TEMPLATE
DUE, HEARTBEAT = "artemia:due", "artemia:heartbeat"  # service.store.keys (read only)

# name -> (help, label names). Exposed as artemia_<name>_total.
COUNTERS = {
    "updates": ("Inbound webhook requests, by channel and HTTP status.", ("channel", "status")),
    "answers": ("Answers stored for an open window (hook in service/ingest.py).", ("channel",)),
    "windows_resolved": ("Resolution runs that committed (trigger: answers, deadline, sweeper).", ("trigger",)),
    "deadlines_fired": ("Deadlines that closed a window still waiting for answers.", ()),
    "autoplays": ("Seats auto-played because they did not answer (hook in workers/resolution.py).", ()),
    "throttled": ("429 / retry-after answers of a channel (hook in service/outbox.py).", ("channel",)),
    "deliveries": ("Outbox delivery attempts, by result.", ("status",)),
    "jobs": ("RQ jobs run, by job and outcome.", ("job", "outcome")),
}
LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
# name -> (help, label names, buckets). Exposed as artemia_<name>.
HISTOGRAMS = {
    "resolution_latency_seconds": ("From a window closing (last answer or deadline) to its resolution committed "
                                   "and followed up.", ("trigger",), LATENCY_BUCKETS),
    "job_seconds": ("Run time of RQ jobs.", ("job",), LATENCY_BUCKETS),
}


class OpsSettings(BaseSettings):
    """Health thresholds (environment, ``ARTEMIA_`` prefix)."""

    model_config = SettingsConfigDict(env_prefix="ARTEMIA_", extra="ignore")

    # A worker whose last heartbeat is older than this is not counted (idle workers beat every worker-ttl - 15
    # seconds, busy ones every job-monitoring-interval: 15 s and 10 s with the Procfile's numbers).
    health_worker_stale_seconds: int = 60
    health_min_workers: int = 1
    # Outbox backlog: deliveries waiting in the send queue, and the age of the oldest one.
    health_outbox_max: int = 1000
    health_outbox_max_age_seconds: int = 300
    # A game whose due time (deadline, follow-up check) passed longer ago than this is overdue.
    health_overdue_seconds: int = 300


# ------------------------------------------------------------------------------------------ counting


def _field(name: str, labels: dict) -> str:
    return name + "|" + ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def _parse_field(text: str) -> tuple[str, dict]:
    name, _, rest = text.partition("|")
    return name, dict(pair.split("=", 1) for pair in rest.split(",") if pair)


def count(connection, name: str, n: int = 1, **labels) -> None:
    """Add ``n`` to counter ``name`` (one of `COUNTERS`). Never raises."""
    if not n:
        return
    try:
        connection.hincrby(COUNTERS_KEY, _field(name, {k: str(v) for k, v in labels.items()}), int(n))
    except Exception as exc:  # metrics must never break the work they count
        log.debug("metric %s not counted: %s", name, exc)


class BufferedCounts:
    """Counters a web process adds up in memory and writes with one pipeline at most every ``interval`` seconds
    (and at shutdown, and before this process renders /metrics). Writing each webhook request's count as it
    ended cost a thread hop and a Redis round trip per request, a fifth of a button answer's own work. A
    crashed process loses its last second of request counts; nothing else is counted here."""

    def __init__(self, interval: float = 1.0):
        self.interval = interval
        self.pending: Counter = Counter()
        self.lock = threading.Lock()

    def add(self, name: str, **labels) -> None:
        with self.lock:
            self.pending[_field(name, {k: str(v) for k, v in labels.items()})] += 1

    def flush(self, connection) -> None:
        """Write the pending counts. Never raises: on failure they are logged at debug level and lost."""
        with self.lock:
            pending, self.pending = self.pending, Counter()
        if not pending:
            return
        try:
            pipe = connection.pipeline(transaction=False)
            for field, n in pending.items():
                pipe.hincrby(COUNTERS_KEY, field, n)
            pipe.execute()
        except Exception as exc:  # metrics must never break the work they count
            log.debug("%d counts not written: %s", sum(pending.values()), exc)


def observe(connection, name: str, seconds: float, **labels) -> None:
    """Record one observation in histogram ``name`` (one of `HISTOGRAMS`). Never raises."""
    buckets = HISTOGRAMS[name][2]
    index = next((i for i, bound in enumerate(buckets) if seconds <= bound), len(buckets))
    labelled = _field("", {k: str(v) for k, v in labels.items()})[1:]
    try:
        pipe = connection.pipeline(transaction=False)
        pipe.hincrby(HISTOGRAM_KEY + name, f"b{index}|{labelled}", 1)
        pipe.hincrbyfloat(HISTOGRAM_KEY + name, f"sum|{labelled}", max(0.0, seconds))
        pipe.hincrby(HISTOGRAM_KEY + name, f"count|{labelled}", 1)
        pipe.execute()
    except Exception as exc:
        log.debug("metric %s not observed: %s", name, exc)


# The hooks other modules call (one line each, see the module docstring).

def answer_stored(connection, channel: str = "any") -> None:
    count(connection, "answers", channel=channel)


def autoplayed(connection, seats: int = 1) -> None:
    count(connection, "autoplays", seats)


def throttled(connection, channel: str = "any") -> None:
    count(connection, "throttled", channel=channel)


# ------------------------------------------------------------------------------------------ reading Redis


def _queue_names(settings) -> tuple[str, str]:
    return settings.queue_name, settings.send_queue_name


def _age(now: float, when: datetime | None) -> float:
    if when is None:
        return math.inf
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return now - when.timestamp()


def snapshot(connection, settings, now: float | None = None) -> dict:
    """Everything /healthz and the gauges of /metrics read, in one place (raises if Redis is unreachable)."""
    from rq import Queue

    now = time.time() if now is None else now
    main_name, send_name = _queue_names(settings)
    queues = {name: Queue(name, connection=connection) for name in (main_name, send_name)}
    out: dict = {"queues": {}}
    for name, queue in queues.items():
        out["queues"][name] = {
            "queued": queue.count,
            "started": StartedJobRegistry(queue=queue).count,
            "scheduled": ScheduledJobRegistry(queue=queue).count,
            "failed": FailedJobRegistry(queue=queue).count,
            "scheduler_lock": bool(connection.exists(SCHEDULER_LOCK + name)),
        }
    workers = {w.name: w for q in queues.values() for w in RQWorker.all(queue=q)}
    out["workers"] = [{"name": w.name, "state": w.get_state(), "heartbeat_age": round(_age(now, w.last_heartbeat), 1),
                       "queues": w.queue_names()} for w in workers.values()]
    send = queues[send_name]
    oldest = connection.lindex(send.key, 0)
    oldest_at = connection.hget(b"rq:job:" + oldest, "enqueued_at") if oldest else None
    out["outbox"] = {
        "queued": out["queues"][send_name]["queued"],
        "redeliveries_scheduled": out["queues"][send_name]["scheduled"],
        "oldest_age": round(_age(now, _parse_time(oldest_at)), 1) if oldest_at else 0.0,
    }
    beat = connection.get(HEARTBEAT)
    out["sweeper_heartbeat_age"] = round(now - float(beat), 1) if beat else math.inf
    out["games_open"] = connection.zcard(DUE)
    out["games_due"] = connection.zcount(DUE, "-inf", now)
    return out


def _parse_time(raw: bytes | None) -> datetime | None:
    if not raw:
        return None
    from rq.utils import utcparse

    try:
        return utcparse(raw.decode())
    except ValueError:
        return None


def health(connection, settings, ops: OpsSettings | None = None, now: float | None = None) -> dict:
    """-> {"ok": bool, "reasons": [...], "checks": snapshot} (see the module docstring)."""
    ops = ops or OpsSettings()
    now = time.time() if now is None else now
    try:
        connection.ping()
        checks = snapshot(connection, settings, now)
        overdue = connection.zcount(DUE, "-inf", now - ops.health_overdue_seconds)
    except redis.RedisError as exc:
        return {"ok": False, "reasons": [f"redis unreachable: {exc.__class__.__name__}: {exc}"], "checks": {}}
    reasons = []
    fresh = [w for w in checks["workers"] if w["heartbeat_age"] <= ops.health_worker_stale_seconds]
    if len(fresh) < ops.health_min_workers:
        reasons.append(f"{len(fresh)} worker(s) with a heartbeat fresher than {ops.health_worker_stale_seconds} s "
                       f"(need {ops.health_min_workers}; {len(checks['workers'])} registered)")
    for name, queue in checks["queues"].items():
        if not queue["scheduler_lock"]:
            reasons.append(f"no RQ scheduler holds the lock of queue {name}: timed jobs do not fire")
    if checks["sweeper_heartbeat_age"] > settings.downtime_threshold_seconds:
        reasons.append(f"the sweeper has not run for {checks['sweeper_heartbeat_age']} s "
                       f"(> {settings.downtime_threshold_seconds} s)")
    outbox = checks["outbox"]
    if outbox["queued"] > ops.health_outbox_max:
        reasons.append(f"outbox backlog: {outbox['queued']} deliveries queued (> {ops.health_outbox_max})")
    if outbox["oldest_age"] > ops.health_outbox_max_age_seconds:
        reasons.append(f"outbox backlog: the oldest delivery has waited {outbox['oldest_age']} s "
                       f"(> {ops.health_outbox_max_age_seconds} s)")
    if overdue:
        reasons.append(f"{overdue} game(s) overdue by more than {ops.health_overdue_seconds} s")
    checks["games_overdue"] = overdue
    return {"ok": not reasons, "reasons": reasons, "checks": checks}


# ------------------------------------------------------------------------------------------ /metrics


class RedisCollector:
    """prometheus-client collector reading the shared counters and the live gauges from Redis."""

    def __init__(self, connection, settings):
        self.connection = connection
        self.settings = settings

    def collect(self):
        r = self.connection
        counters = {name: CounterMetricFamily(f"artemia_{name}", text, labels=list(labels))
                    for name, (text, labels) in COUNTERS.items()}
        for raw, value in r.hgetall(COUNTERS_KEY).items():
            name, labels = _parse_field(raw.decode())
            family = counters.get(name)
            if family is not None:
                family.add_metric([labels.get(label, "") for label in COUNTERS[name][1]], int(value))
        yield from counters.values()
        for name, (text, labels, buckets) in HISTOGRAMS.items():
            yield self._histogram(name, text, labels, buckets)
        yield from self._gauges()

    def _histogram(self, name, text, labels, buckets):
        family = HistogramMetricFamily(f"artemia_{name}", text, labels=list(labels))
        series: dict[str, dict] = {}
        for raw, value in self.connection.hgetall(HISTOGRAM_KEY + name).items():
            kind, _, labelled = raw.decode().partition("|")
            series.setdefault(labelled, {})[kind] = float(value)
        for labelled, data in sorted(series.items()):
            _, values = _parse_field("|" + labelled)
            cumulative, points = 0, []
            for i, bound in enumerate(buckets):
                cumulative += int(data.get(f"b{i}", 0))
                points.append((_le(bound), cumulative))
            points.append(("+Inf", int(data.get("count", 0))))
            family.add_metric([values.get(label, "") for label in labels], points, sum_value=data.get("sum", 0.0))
        return family

    def _gauges(self):
        checks = snapshot(self.connection, self.settings)
        per_queue = {key: GaugeMetricFamily(f"artemia_queue_{key}", f"RQ jobs {key}, per queue.", labels=["queue"])
                     for key in ("queued", "started", "scheduled", "failed")}
        lock = GaugeMetricFamily("artemia_scheduler_lock", "1 when an RQ scheduler holds the queue's lock.",
                                 labels=["queue"])
        for name, queue in checks["queues"].items():
            for key, family in per_queue.items():
                family.add_metric([name], queue[key])
            lock.add_metric([name], 1 if queue["scheduler_lock"] else 0)
        yield from per_queue.values()
        yield lock
        yield GaugeMetricFamily("artemia_outbox_depth", "Deliveries waiting in the send queue.",
                                value=checks["outbox"]["queued"])
        yield GaugeMetricFamily("artemia_outbox_redeliveries_scheduled", "Deliveries waiting for their retry time.",
                                value=checks["outbox"]["redeliveries_scheduled"])
        yield GaugeMetricFamily("artemia_outbox_oldest_age_seconds", "Age of the oldest queued delivery.",
                                value=checks["outbox"]["oldest_age"])
        yield GaugeMetricFamily("artemia_workers", "Registered RQ workers.", value=len(checks["workers"]))
        ages = [w["heartbeat_age"] for w in checks["workers"]]
        yield GaugeMetricFamily("artemia_worker_heartbeat_age_max_seconds", "Oldest worker heartbeat.",
                                value=max(ages) if ages else math.inf)
        yield GaugeMetricFamily("artemia_sweeper_heartbeat_age_seconds", "Seconds since the sweeper last ran.",
                                value=checks["sweeper_heartbeat_age"])
        yield GaugeMetricFamily("artemia_games_open", "Games with an open window (the sweeper's due set).",
                                value=checks["games_open"])
        yield GaugeMetricFamily("artemia_games_due", "Games whose due time has passed (the sweeper's next work).",
                                value=checks["games_due"])


def _le(bound: float) -> str:
    return repr(float(bound))


def render_metrics(connection, settings) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(RedisCollector(connection, settings))
    return generate_latest(registry)


# ------------------------------------------------------------------------------------------ web


def _ops_target(app):
    """(redis connection, settings) of the app: its pipeline context's (see service.web.create_app)."""
    ctx = app.state.env.ctx
    return ctx.store.redis, ctx.settings


async def healthz(request: Request) -> Response:
    connection, settings = _ops_target(request.app)
    result = await run_in_threadpool(health, connection, settings)
    return JSONResponse(_finite(result), status_code=200 if result["ok"] else 503)


async def metrics(request: Request) -> Response:
    connection, settings = _ops_target(request.app)
    counts = getattr(request.app.state, "counts", None)
    if counts is not None:
        await run_in_threadpool(counts.flush, connection)
    try:
        body = await run_in_threadpool(render_metrics, connection, settings)
    except redis.RedisError as exc:
        return Response(f"redis unreachable: {exc}\n", status_code=503, media_type="text/plain")
    return Response(body, media_type=CONTENT_TYPE_LATEST)


def _finite(value):
    """JSON has no infinity: an absent heartbeat is reported as null."""
    if isinstance(value, float) and math.isinf(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


ROUTES = [Route("/healthz", healthz), Route("/metrics", metrics)]
CHANNELS = {"/telegram/": "telegram", "/sms/": "sms"}
web_log = logging.getLogger("service.web")


class MetricsMiddleware:
    """Counts inbound webhook requests (per channel and status) and logs one JSON line per request. The counts
    go to the app's `BufferedCounts` (``app.state.counts``), written by a task that the ASGI lifespan starts."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self._lifespan(scope, receive, send)
        path = scope.get("path", "") if scope["type"] == "http" else ""
        channel = next((name for prefix, name in CHANNELS.items() if path.startswith(prefix)), None)
        if channel is None:
            return await self.app(scope, receive, send)
        started, status = time.perf_counter(), {"code": 500}

        async def sending(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            millis = round((time.perf_counter() - started) * 1000, 1)
            code = status["code"]
            level = logging.DEBUG if code < 400 else logging.INFO if code < 500 else logging.WARNING
            web_log.log(level, "webhook %s %s", path, code, extra={"path": path, "status": code,
                                                                    "channel": channel, "duration_ms": millis})
            counts = getattr(scope["app"].state, "counts", None)
            if counts is not None:
                counts.add("updates", channel=channel, status=code)

    async def _lifespan(self, scope, receive, send):
        """Write the app's pending counts every interval while the server runs, and once more as it stops."""
        app = scope["app"]
        counts = app.state.counts

        async def write_every_interval():
            while True:
                await asyncio.sleep(counts.interval)
                await run_in_threadpool(counts.flush, _ops_target(app)[0])

        writer = asyncio.create_task(write_every_interval())
        try:
            await self.app(scope, receive, send)
        finally:
            writer.cancel()
            await run_in_threadpool(counts.flush, _ops_target(app)[0])


def install(app) -> None:
    """Register /healthz, /metrics and the webhook counting middleware on the Starlette ``app``."""
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) not in ("/healthz", "/metrics")]
    app.router.routes.extend(ROUTES)
    app.state.counts = BufferedCounts()
    app.add_middleware(MetricsMiddleware)


# ------------------------------------------------------------------------------------------ the worker


def job_ids(job) -> dict:
    """Log context of a job from its plain-id arguments (never the arguments themselves)."""
    name = job.func_name.rsplit(".", 1)[-1]
    args = list(job.args or ())
    ids = {"job": job.id}
    if job.func_name.startswith("workers.jobs.") and args:
        if name == "redeliver":
            ids["game"] = str(args[0]).split("-", 1)[0]
        elif name != "sweep":
            ids["game"] = str(args[0])
            if name in ("resolve", "deadline", "remind") and len(args) > 1:
                ids["window"] = args[1]
    return ids


def record_job(connection, job, outcome, seconds: float, now: float | None = None) -> None:
    """Count one job's outcome and what it tells: windows resolved, latency, deadlines fired, deliveries."""
    now = time.time() if now is None else now
    name = job.func_name.rsplit(".", 1)[-1]
    if isinstance(outcome, bool):
        label = "done" if outcome else "skipped"
    elif isinstance(outcome, str):
        label = outcome
    else:
        label = "ok" if outcome is not None else "none"
    count(connection, "jobs", job=name, outcome=label)
    observe(connection, "job_seconds", seconds, job=name)
    if name == "resolve" and outcome == "resolved":
        count(connection, "windows_resolved", trigger="answers")
        if job.enqueued_at:
            observe(connection, "resolution_latency_seconds", _age(now, job.enqueued_at), trigger="answers")
    elif name == "deadline" and outcome in ("resolved", "lost"):
        count(connection, "deadlines_fired")
        if outcome == "resolved":
            count(connection, "windows_resolved", trigger="deadline")
            due_ms = job.id.rsplit("-", 1)[-1]
            if due_ms.isdigit():
                observe(connection, "resolution_latency_seconds", now - int(due_ms) / 1000, trigger="deadline")
    elif name == "sweep" and isinstance(outcome, dict):
        count(connection, "windows_resolved", outcome.get("resolved", 0), trigger="sweeper")
    elif name in ("deliver", "redeliver"):
        for status in outcome if isinstance(outcome, list) else [outcome]:
            count(connection, "deliveries", status=status)


class OpsMixin:
    """What the Procfile's worker adds to RQ's: JSON logs (RQ's own handlers replaced), no job descriptions in
    the logs (an argument may be a private screen), the sweeper chain seeded at start (as ``python -m
    workers`` does), the channel senders preloaded (`preload`), job ids bound to every line a job logs, and job
    metrics (`record_job`)."""

    take_over_logging = True  # False in tests, where pytest owns the logging

    def __init__(self, *args, **kwargs):
        if self.take_over_logging:
            logs.configure("worker")
        kwargs["log_job_description"] = False
        super().__init__(*args, **kwargs)
        preload()

    def work(self, *args, **kwargs):
        try:
            seed_sweeper(self.connection)
        except Exception:
            log.exception("could not seed the sweeper (the first deadline job will)")
        return super().work(*args, **kwargs)

    def perform_job(self, job, queue):
        started = time.perf_counter()
        with logs.bind(**job_ids(job)):
            ok = super().perform_job(job, queue)
            try:
                outcome = getattr(job, "_result", None) if ok else "failed"
                record_job(self.connection, job, outcome, time.perf_counter() - started)
            except Exception as exc:
                log.debug("job metrics not recorded: %s", exc)
        return ok


class OpsWorker(OpsMixin, RQWorker):
    """``rq worker -w service.ops.OpsWorker``: the forking worker (a fresh work horse per job)."""


class OpsSimpleWorker(OpsMixin, SimpleWorker):
    """``rq worker -w service.ops.OpsSimpleWorker``: jobs in the worker process (faster; no isolation)."""


PRELOAD = ("service.channels.telegram_send", "service.channels.telegram_jobs", "service.channels.sms_sender")


def preload() -> None:
    """Import the channel senders in the worker parent, so that each forked job does not import them again
    (python-telegram-bot alone is ~0.5 s per job cold). Nothing is connected here: the senders open their
    clients lazily, per process."""
    from service.config import get_settings

    spec = get_settings().sender.partition(":")[0]
    for module in PRELOAD + ((spec,) if "." in spec else ()):
        try:
            importlib.import_module(module)
        except Exception as exc:  # a missing optional channel must not stop the worker
            log.warning("could not preload %s: %s", module, exc)


def seed_sweeper(connection) -> bool:
    """Schedule the periodic sweep now (idempotent: one sweep per slot whoever asks)."""
    from service.config import get_settings
    from workers import context, scheduling

    ctx = context.build(connection, get_settings())
    return scheduling.sweep(ctx, ctx.clock())
