"""What ``/healthz`` and ``/metrics`` read: queue depths, workers and their heartbeats, the RQ scheduler's lock, the
sweeper's heartbeat, open and overdue games, and the shared counters (`service.ops.metrics`) as Prometheus text.

``health`` answers ``{"ok": true, ...}`` or ``{"ok": false, "reasons": [...]}`` — not ok only when the service
cannot do its job: Redis unreachable, a queue without a worker with a fresh heartbeat (a sender does not stand in
for the worker), the sweeper's heartbeat stale (timed jobs do not fire), games overdue (a due time long past: the
sweeper cannot handle them). What may pass on its own is a ``warning``: no RQ scheduler holding a queue's lock (a
healthy worker takes it over within a minute after the one holding it dies; if none does, the sweeper's
heartbeat goes stale), an outbox backlog (a burst of deadlines at 20:00 meets Telegram's rate). Thresholds: the
``health_*`` settings.

With game shards (``ARTEMIA_REDIS_SHARDS``) each shard has its own queues, workers, scheduler, sweeper and due set:
`health_of` checks each shard so (and that the index Redis answers), and the gauges of /metrics add the shards up
(the oldest age of any); the counters are on the index.
"""

import math
import time
from datetime import UTC, datetime

import redis
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from rq import Queue
from rq import Worker as RQWorker
from rq.registry import FailedJobRegistry, ScheduledJobRegistry, StartedJobRegistry
from rq.utils import utcparse

from service.config import Settings
from service.game import buildinfo
from service.ops.metrics import COUNTERS, COUNTERS_KEY, HISTOGRAMS, parse_field
from service.store.keys import DUE, HEARTBEAT, READY, metrics_histogram

SCHEDULER_LOCK = "rq:scheduler-lock:"  # rq.scheduler.SCHEDULER_LOCKING_KEY_TEMPLATE

# ------------------------------------------------------------------------------------------ reading Redis


def _queue_names(settings) -> tuple[str, str, str, str]:
    return settings.queue_name, settings.send_queue_name, settings.refresh_queue_name, settings.draw_queue_name


def age(now: float, when: datetime | None) -> float:
    if when is None:
        return math.inf
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return now - when.timestamp()


def snapshot(connection, settings, now: float | None = None) -> dict:
    """Everything /healthz and the gauges of /metrics read, in one place (raises if Redis is unreachable)."""
    now = time.time() if now is None else now
    send_name = settings.send_queue_name
    queues = {name: Queue(name, connection=connection) for name in _queue_names(settings)}
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
    out["workers"] = [
        {
            "name": w.name,
            "state": w.get_state(),
            "heartbeat_age": round(age(now, w.last_heartbeat), 1),
            "queues": w.queue_names(),
        }
        for w in workers.values()
    ]
    send = queues[send_name]
    oldest = connection.lindex(send.key, 0)
    oldest_at = connection.hget(b"rq:job:" + oldest, "enqueued_at") if oldest else None
    out["outbox"] = {
        "queued": out["queues"][send_name]["queued"],
        "redeliveries_scheduled": out["queues"][send_name]["scheduled"],
        "oldest_age": round(age(now, _parse_time(oldest_at)), 1) if oldest_at else 0.0,
    }
    beat = connection.get(HEARTBEAT)
    out["sweeper_heartbeat_age"] = round(now - float(beat), 1) if beat else math.inf
    out["games_open"] = connection.zcard(DUE)
    out["games_due"] = connection.zcount(DUE, "-inf", now)
    out["windows_ready"] = connection.zcard(READY)  # closed, waiting for a resolving job
    return out


def _parse_time(raw: bytes | None) -> datetime | None:
    if not raw:
        return None
    try:
        return utcparse(raw.decode())
    except ValueError:
        return None


def health(connection, settings: Settings, now: float | None = None) -> dict:
    """-> {"ok": bool, "reasons": [...], "warnings": [...], "checks": snapshot} (see the module docstring)."""
    now = time.time() if now is None else now
    try:
        connection.ping()
        checks = snapshot(connection, settings, now)
        overdue = connection.zcount(DUE, "-inf", now - settings.health_overdue_seconds)
    except redis.RedisError as exc:
        return {"ok": False, "reasons": [f"redis unreachable: {exc.__class__.__name__}: {exc}"], "checks": {}}
    reasons: list[str] = []
    fresh = [w for w in checks["workers"] if w["heartbeat_age"] <= settings.health_worker_stale_seconds]
    if len(fresh) < settings.health_min_workers:
        reasons.append(
            f"{len(fresh)} worker(s) with a heartbeat fresher than {settings.health_worker_stale_seconds} s "
            f"(need {settings.health_min_workers}; {len(checks['workers'])} registered)"
        )
    for name in checks["queues"]:  # a sender alone does not resolve anything: every queue needs its own
        if not any(name in w["queues"] for w in fresh):
            reasons.append(
                f"no worker with a heartbeat fresher than {settings.health_worker_stale_seconds} s takes queue {name}"
            )
    warnings = [
        f"no RQ scheduler holds the lock of queue {name}: timed jobs wait until a worker's scheduler takes it"
        for name, queue in checks["queues"].items()
        if not queue["scheduler_lock"]
    ]
    if checks["sweeper_heartbeat_age"] > settings.downtime_threshold_seconds:
        reasons.append(
            f"the sweeper has not run for {checks['sweeper_heartbeat_age']} s "
            f"(> {settings.downtime_threshold_seconds} s)"
        )
    outbox = checks["outbox"]
    if outbox["queued"] > settings.health_outbox_max:
        warnings.append(f"outbox backlog: {outbox['queued']} deliveries queued (> {settings.health_outbox_max})")
    if outbox["oldest_age"] > settings.health_outbox_max_age_seconds:
        warnings.append(
            f"outbox backlog: the oldest delivery has waited {outbox['oldest_age']} s "
            f"(> {settings.health_outbox_max_age_seconds} s)"
        )
    if overdue:
        reasons.append(f"{overdue} game(s) overdue by more than {settings.health_overdue_seconds} s")
    checks["games_overdue"] = overdue
    checks["engine"] = buildinfo.running()  # this process's: "compiled" (tools/build_engine.py) or "sources"
    return {"ok": not reasons, "reasons": reasons, "warnings": warnings, "checks": checks}


def health_of(index, shards: list, settings: Settings, now: float | None = None) -> dict:
    """`health` of every game shard, its reasons named by shard (one Redis: `health` itself)."""
    if shards == [index]:
        return health(index, settings, now)
    try:
        index.ping()
    except redis.RedisError as exc:
        return {"ok": False, "reasons": [f"index redis unreachable: {exc.__class__.__name__}: {exc}"], "checks": {}}
    each = [health(shard, settings, now) for shard in shards]
    return {
        "ok": all(result["ok"] for result in each),
        "reasons": [f"shard {i}: {reason}" for i, result in enumerate(each) for reason in result["reasons"]],
        "warnings": [f"shard {i}: {said}" for i, result in enumerate(each) for said in result.get("warnings", [])],
        "checks": {"shards": [result["checks"] for result in each]},
    }


# ------------------------------------------------------------------------------------------ /metrics


class RedisCollector:
    """prometheus-client collector reading the shared counters and the live gauges from Redis."""

    def __init__(self, connection, settings, shards: list | None = None):
        self.connection = connection
        self.settings = settings
        self.shards = shards or [connection]

    def collect(self):
        r = self.connection
        counters = {
            name: CounterMetricFamily(f"artemia_{name}", text, labels=list(labels))
            for name, (text, labels) in COUNTERS.items()
        }
        for raw, value in r.hgetall(COUNTERS_KEY).items():
            name, labels = parse_field(raw.decode())
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
        for raw, value in self.connection.hgetall(metrics_histogram(name)).items():
            kind, _, labelled = raw.decode().partition("|")
            series.setdefault(labelled, {})[kind] = float(value)
        for labelled, data in sorted(series.items()):
            _, values = parse_field("|" + labelled)
            cumulative, points = 0, []
            for i, bound in enumerate(buckets):
                cumulative += int(data.get(f"b{i}", 0))
                points.append((_le(bound), cumulative))
            points.append(("+Inf", int(data.get("count", 0))))
            family.add_metric([values.get(label, "") for label in labels], points, sum_value=data.get("sum", 0.0))
        return family

    def _gauges(self):
        """The live gauges, one series per game shard (``shard`` label: its index in ``ARTEMIA_REDIS_SHARDS``, "0"
        without shards), so that a backlog or a stale sweeper shows where it is; sum them for the whole."""
        each = [snapshot(shard, self.settings) for shard in self.shards]

        def gauge(name: str, text: str, *labels: str) -> GaugeMetricFamily:
            return GaugeMetricFamily(name, text, labels=["shard", *labels])

        per_queue = {
            key: gauge(f"artemia_queue_{key}", f"RQ jobs {key}, per queue.", "queue")
            for key in ("queued", "started", "scheduled", "failed")
        }
        lock = gauge("artemia_scheduler_lock", "1 when an RQ scheduler holds the queue's lock.", "queue")
        families = {
            "outbox_depth": gauge("artemia_outbox_depth", "Deliveries waiting in the send queue."),
            "redeliveries": gauge("artemia_outbox_redeliveries_scheduled", "Deliveries waiting for their retry time."),
            "oldest": gauge("artemia_outbox_oldest_age_seconds", "Age of the oldest queued delivery."),
            "workers": gauge("artemia_workers", "Registered RQ workers."),
            "worker_age": gauge("artemia_worker_heartbeat_age_max_seconds", "Oldest worker heartbeat."),
            "sweeper_age": gauge("artemia_sweeper_heartbeat_age_seconds", "Seconds since the sweeper last ran."),
            "open": gauge("artemia_games_open", "Games with an open window (the sweeper's due set)."),
            "due": gauge("artemia_games_due", "Games whose due time has passed (the sweeper's next work)."),
            "ready": gauge("artemia_windows_ready", "Closed windows waiting for a resolving job."),
            "memory": gauge("artemia_redis_used_memory_bytes", "Memory the shard's Redis uses (INFO used_memory)."),
            "replicas": gauge("artemia_redis_connected_replicas", "Replicas connected to the shard's Redis primary."),
            "lag": gauge(
                "artemia_redis_replication_lag_bytes",
                "Bytes of the primary's replication stream its furthest-behind replica has not acknowledged "
                "(0 without replicas).",
            ),
        }
        live = gauge(
            "artemia_queue_workers",
            "Workers taking the queue whose heartbeat is fresher than ARTEMIA_HEALTH_WORKER_STALE_SECONDS.",
            "queue",
        )
        for index, checks in enumerate(each):
            shard = str(index)
            for name, queue in checks["queues"].items():
                for key, family in per_queue.items():
                    family.add_metric([shard, name], queue[key])
                lock.add_metric([shard, name], 1 if queue["scheduler_lock"] else 0)
                fresh = [
                    w
                    for w in checks["workers"]
                    if name in w["queues"] and w["heartbeat_age"] <= self.settings.health_worker_stale_seconds
                ]
                live.add_metric([shard, name], len(fresh))
            memory, replication = redis_figures(self.shards[index])
            ages = [w["heartbeat_age"] for w in checks["workers"]]
            values = {
                "outbox_depth": checks["outbox"]["queued"],
                "redeliveries": checks["outbox"]["redeliveries_scheduled"],
                "oldest": checks["outbox"]["oldest_age"],
                "workers": len(checks["workers"]),
                "worker_age": max(ages) if ages else math.inf,
                "sweeper_age": checks["sweeper_heartbeat_age"],
                "open": checks["games_open"],
                "due": checks["games_due"],
                "ready": checks["windows_ready"],
                "memory": memory,
                "replicas": replication[0],
                "lag": replication[1],
            }
            for key, family in families.items():
                family.add_metric([shard], values[key])
        yield from per_queue.values()
        yield lock
        yield live
        yield from families.values()


def redis_figures(connection) -> tuple[float, tuple[float, float]]:
    """(used memory in bytes, (connected replicas, replication lag in bytes)); NaN when INFO is refused (a managed
    Redis may rename it)."""
    try:
        memory = float(connection.info("memory").get("used_memory", math.nan))
        info = connection.info("replication")
    except redis.ResponseError:
        return math.nan, (math.nan, math.nan)
    offset = int(info.get("master_repl_offset", 0) or 0)
    replicas = [v for k, v in info.items() if k.startswith("slave") and isinstance(v, dict)]
    lag = max((offset - int(r.get("offset", 0)) for r in replicas), default=0)
    return memory, (float(info.get("connected_slaves", 0) or 0), float(max(lag, 0)))


def _le(bound: float) -> str:
    return repr(float(bound))


def render_metrics(connection, settings, shards: list | None = None) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(RedisCollector(connection, settings, shards))
    return generate_latest(registry)
