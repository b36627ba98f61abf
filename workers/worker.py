"""The RQ worker class that the ``Procfile`` runs, and what it adds to RQ's: JSON logs, job metrics, the channel
senders preloaded, the sweeper chain seeded at start, and a scheduler that dies with its worker."""

import ctypes
import importlib
import logging
import os
import signal
import sys
import time

import redis
from rq import Queue, SimpleWorker
from rq import Worker as RQWorker
from rq.job import Job
from rq.scheduler import RQScheduler

from service import wiring
from service.config import get_settings
from service.i18n import LANGS
from service.i18n.clock import when
from service.ops import logs, metrics
from service.ops.health import age
from service.ops.metrics import Stages, Tally, timing_stages
from service.pipeline import scheduling, upkeep

log = logging.getLogger(__name__)


def job_ids(job) -> dict:
    """Log context of a job from its plain-id arguments (never the arguments themselves)."""
    name = job.func_name.rsplit(".", 1)[-1]
    args = list(job.args or ())
    ids = {"job": job.id}
    if job.func_name.startswith("workers.jobs.") and args:
        if name not in ("sweep", "resolve_ready"):
            ids["game"] = str(args[0])
            if name in ("resolve", "deadline", "remind") and len(args) > 1:
                ids["window"] = args[1]
    return ids


def record_job(
    connection, job, outcome, seconds: float, now: float | None = None, stages: Stages | None = None
) -> None:
    """Count one job's outcome and what it tells — windows resolved, latency, deadlines fired, deliveries — and
    where its time went (``stages``, and its wait in the queue), in one round trip."""
    now = time.time() if now is None else now
    name = job.func_name.rsplit(".", 1)[-1]
    if isinstance(outcome, bool):
        label = "done" if outcome else "skipped"
    elif isinstance(outcome, str):
        label = outcome
    else:
        label = "ok" if outcome is not None else "none"
    tally = Tally().count("jobs", job=name, outcome=label).observe("job_seconds", seconds, job=name)
    if job.enqueued_at and job.started_at:
        waited = age(now, job.enqueued_at) - age(now, job.started_at)
        tally.observe("job_stage_seconds", waited, job=name, stage="wait")
    for stage, spent in sorted((stages.spent if stages else {}).items()):
        tally.observe("job_stage_seconds", spent, job=name, stage=stage)
    if name == "resolve" and outcome == "resolved":
        tally.count("windows_resolved", trigger="answers")
        if job.enqueued_at:
            tally.observe("resolution_latency_seconds", age(now, job.enqueued_at), trigger="answers")
    elif name == "deadline" and outcome in ("resolved", "lost"):
        tally.count("deadlines_fired")
        if outcome == "resolved":
            tally.count("windows_resolved", trigger="deadline")
            due_ms = job.id.rsplit("-", 1)[-1]
            if due_ms.isdigit():
                tally.observe("resolution_latency_seconds", now - int(due_ms) / 1000, trigger="deadline")
    elif name == "resolve_ready" and isinstance(outcome, dict):
        tally.count("windows_resolved", outcome.get("resolved", 0), trigger="answers")
    elif name == "sweep" and isinstance(outcome, dict):
        tally.count("windows_resolved", outcome.get("resolved", 0), trigger="sweeper")
    elif name in ("deliver", "drain"):
        for status in outcome if isinstance(outcome, list) else [outcome]:
            tally.count("deliveries", status=status)
    for status in stages.deliveries if stages else []:
        tally.count("deliveries", status=status)
    for seconds in stages.resolved if stages else []:
        tally.observe("resolution_latency_seconds", seconds, trigger="answers")
    tally.write(connection)


def through_outage(call, owner, *args, **kwargs):
    """``call(*args, **kwargs)``, retried with backoff (0.5 s doubling to 8 s) while Redis is unreachable or does
    not answer in time, until it answers or ``owner`` (a worker or a scheduler) is asked to stop."""
    wait = 0.5
    while True:
        try:
            return call(*args, **kwargs)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            if getattr(owner, "_stop_requested", False):
                raise
            log.warning("Redis unreachable (%s): retrying in %.1f s", exc, wait)
            time.sleep(wait)
            wait = min(wait * 2, 8.0)


PR_SET_PDEATHSIG = 1  # linux/prctl.h


# The timed jobs that may start early: a deadline job waits for its deadline itself (`upkeep.fire_deadline`). Any
# other (a drain held until a time, a reminder) would find it not yet time and schedule itself again for the same
# second, under its own id: the copy would be refused as a duplicate, and the job lost.
EARLY_JOBS = ("deadline-",)


class BoundScheduler(RQScheduler):
    """RQ's scheduler (a child process of the worker), bound to its worker: a SIGKILLed worker's scheduler once
    lived on, orphaned, renewing the scheduler lock of every queue, so no other worker's scheduler could take them
    over and /healthz saw a lock held. The kernel sends it SIGTERM when its worker dies (Linux ``prctl``), which
    stops it and releases its locks; elsewhere it notices on its next beat (every second) that its parent changed
    and does the same, without renewing the locks again."""

    worker_pid = 0
    poll_seconds = 1.0  # how often the due jobs are moved to their queues (``scheduler_interval_seconds``)
    lookahead_seconds = 0.0  # ... and how early (``scheduler_lookahead_seconds``)

    def enqueue_scheduled_jobs(self):
        """RQ's, with two changes. It moves the deadline jobs due within ``lookahead_seconds`` as well
        (`EARLY_JOBS`): a deadline job that starts early waits for its deadline (`upkeep.fire_deadline`), so the
        window closes on time instead of a poll and a dequeue later (a thousand tables due at 20:00 had their first
        question at 20:00:00.2, not 20:00:00.9). And it waits ``poll_seconds`` after each poll: RQ's own wait is
        its ``interval``, which it also adds to 60 s for its locks' TTL, where Redis takes only whole seconds, so
        the scheduler is built with an ``interval`` of 0 and waits here instead."""
        self._status = self.Status.WORKING
        if not self._scheduled_job_registries and self._acquired_locks:
            self.prepare_registries()
        for registry in self._scheduled_job_registries:
            # scores are whole seconds (`scheduling.schedule` rounds up): due when the second has begun
            now = time.time()
            due = registry.get_jobs_to_schedule(int(now))
            soon = registry.get_jobs_to_schedule(int(now + self.lookahead_seconds)) if self.lookahead_seconds else []
            moved = set(due)
            job_ids = due + [job_id for job_id in soon if job_id.startswith(EARLY_JOBS) and job_id not in moved]
            if not job_ids:
                continue
            queue = Queue(registry.name, connection=self.connection, serializer=self.serializer)
            with self.connection.pipeline() as pipeline:
                for job in Job.fetch_many(job_ids, connection=self.connection, serializer=self.serializer):
                    if job is not None:
                        queue._enqueue_job(job, pipeline=pipeline, at_front=job.should_enqueue_at_front())
                for job_id in job_ids:
                    registry.remove(job_id, pipeline=pipeline)
                pipeline.execute()
        self._status = self.Status.STARTED
        time.sleep(self.poll_seconds)

    def start(self):
        self.worker_pid = os.getpid()
        return super().start()

    def work(self):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        except (AttributeError, OSError):  # not Linux: the beat below catches it
            pass
        if self.orphaned():  # the worker died before the prctl took effect
            self.request_stop()
        # RQ's scheduler process dies on the first ConnectionError of its loop (its birth, a beat, a poll of the
        # scheduled jobs), and its worker starts it again only at its next maintenance (up to
        # --maintenance-interval later): through a failover every scheduled job (deadlines, reminders, delayed
        # drains, the sweeper chain) waited that long. It waits Redis out instead, and takes up its loop again.
        return through_outage(super().work, self)

    def orphaned(self) -> bool:
        return bool(self.worker_pid) and os.getppid() != self.worker_pid

    def heartbeat(self):
        if self.orphaned():
            self.request_stop()  # the loop stops (and releases the locks) before its next beat
            return
        super().heartbeat()


class OpsMixin:
    """What the Procfile's worker adds to RQ's: JSON logs (RQ's own handlers replaced), no job descriptions in
    the logs (an argument may be a private screen), the sweeper chain seeded at start (as ``python -m
    workers`` does), the channel senders preloaded (`preload`), job ids bound to every line a job logs, and job
    metrics (`record_job`)."""

    take_over_logging = True  # False in tests, where pytest owns the logging

    def __init__(self, *args, **kwargs):
        # A job sends its questions from threads while it resolves the next window (CPU-bound, holding the GIL);
        # a send token is taken before the call goes out, and with Python's 5 ms switch interval the calls of a
        # burst reached Telegram bunched, tens of ms after their tokens: 429s (bench/due.py). 1 ms keeps them close.
        sys.setswitchinterval(0.001)
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

    # RQ's loop waits out a lost Redis only in its dequeue; a ConnectionError anywhere else in the loop (a heartbeat,
    # the maintenance, the suspension check, the "idle" state it writes before each dequeue, a job's bookkeeping)
    # makes the worker quit, and under a process manager such as honcho its siblings with it. Through a failover or a
    # Redis restart these wait and retry instead, so the worker reaches the new primary by itself. A job cut off
    # by the outage counts as failed once Redis is back: its retry runs it again at once (every job is idempotent),
    # rather than after RQ finds it abandoned, minutes later.
    def execute_job(self, job, queue):
        try:
            return super().execute_job(job, queue)
        except redis.exceptions.ConnectionError as exc:
            log.warning("Redis lost during job %s (%s): retrying it once Redis is back", job.id, exc)
            through_outage(self.connection.ping, self)
            try:
                if job.exists(job.id, connection=self.connection):
                    self.handle_job_failure(job, queue, exc_string=f"Redis lost during the job: {exc}")
            except redis.exceptions.RedisError as again:
                log.warning("job %s is left to RQ's abandoned-job recovery: %s", job.id, again)
            return False

    def heartbeat(self, *args, **kwargs):
        return through_outage(super().heartbeat, self, *args, **kwargs)

    def set_state(self, state, pipeline=None):
        return through_outage(super().set_state, self, state, pipeline)

    def run_maintenance_tasks(self):
        through_outage(super().run_maintenance_tasks, self)
        try:
            if upkeep.revive_sweeper(wiring.of_connection(self.connection)):
                log.warning("the sweeper's heartbeat was stale: a sweep is queued now")
        except redis.exceptions.RedisError as exc:
            log.warning("could not check the sweeper chain: %s", exc)

    def check_for_suspension(self, burst):
        return through_outage(super().check_for_suspension, self, burst)

    def _start_scheduler(self, burst=False, logging_level="INFO", *args, **kwargs):
        """RQ's, with `BoundScheduler` (a burst run enqueues the due jobs in this process: RQ's own)."""
        if burst:
            return super()._start_scheduler(burst, logging_level, *args, **kwargs)
        self.scheduler = BoundScheduler(
            self.queues,
            connection=self.connection,
            interval=0,  # its loop sleeps in `BoundScheduler.enqueue_scheduled_jobs`
            logging_level=logging_level if logging_level is not None else self.log.level,
            serializer=self.serializer,
            **dict(zip(("date_format", "log_format"), args, strict=False)),
            **kwargs,
        )
        self.scheduler.poll_seconds = get_settings().scheduler_interval_seconds
        self.scheduler.lookahead_seconds = get_settings().scheduler_lookahead_seconds
        self.scheduler.acquire_locks()
        if self.scheduler.acquired_locks:
            self.scheduler.start()

    def prepare_job_execution(self, job, *args, **kwargs):
        super().prepare_job_execution(job, *args, **kwargs)
        metrics.lap("rq")  # the job's bookkeeping before its body

    def perform_job(self, job, queue):
        started = time.perf_counter()
        with logs.bind(**job_ids(job)), timing_stages() as stages:
            ok = super().perform_job(job, queue)
            try:
                stages.lap("rq")  # the job's bookkeeping after its body
                outcome = getattr(job, "_result", None) if ok else "failed"
                # the counters are global: on the index Redis (the worker's own connection reaches its shard)
                index = wiring.of_connection(self.connection).store.redis
                record_job(index, job, outcome, time.perf_counter() - started, stages=stages)
            except Exception as exc:
                log.debug("job metrics not recorded: %s", exc)
        return ok


class OpsWorker(OpsMixin, RQWorker):
    """``rq worker -w workers.worker.OpsWorker``: the forking worker (a fresh work horse per job)."""


class OpsSimpleWorker(OpsMixin, SimpleWorker):
    """``rq worker -w workers.worker.OpsSimpleWorker``: jobs in the worker process (faster; no isolation)."""


PRELOAD = ("service.channels.telegram.sender", "service.channels.sms.sender", "workers.jobs")


def preload() -> None:
    """Import the channel senders and the jobs' module at the worker's start, so that no job imports them
    (python-telegram-bot alone is ~0.5 s cold; the jobs' module and the pipeline another ~0.2 s, which the first
    of a burst of deadlines paid after it); start this process's Telegram client (`sender.warm`) and read the
    languages' calendar data: all of it a cost the first jobs of a burst paid, and bunched by."""
    spec = get_settings().sender.partition(":")[0]
    for module in PRELOAD + ((spec,) if "." in spec else ()):
        try:
            importlib.import_module(module)
        except Exception as exc:  # a missing optional channel must not stop the worker
            log.warning("could not preload %s: %s", module, exc)
    try:
        importlib.import_module("service.channels.telegram.sender").warm()
    except Exception as exc:
        log.warning("could not start the Telegram client: %s", exc)
    for lang in LANGS:
        when(time.time(), lang)  # Babel reads a language's calendar data on its first date (~15 ms each)


def seed_sweeper(connection) -> bool:
    """Schedule the periodic sweep of the worker's shard now (idempotent: one sweep per slot whoever asks)."""
    ctx = wiring.of_connection(connection)
    return scheduling.sweep(ctx, ctx.clock())
