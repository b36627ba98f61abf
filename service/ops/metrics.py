"""Counters and histograms shared by every process, kept in Redis, and the one-line hooks that count.

Web and worker processes are many, on several machines, and a forking RQ worker runs every job in a fresh child
process, so counters live in Redis: ``HINCRBY`` on one hash (`keys.METRICS_COUNTERS`); a histogram is a hash of
per-bucket counts, sum and count (`keys.metrics_histogram`). Any web process renders all of them on ``/metrics``
(`service.ops.health`). prometheus-client's multiprocess mode was the alternative; it was not chosen because it
aggregates only the processes of one machine (a shared directory) and writes one file per process id — with a fork
per job, a new file for every job. The cost is one pipelined round trip per counted event, next to the ~55 Redis
commands an RQ job already costs (docs/platform-notes.md). Counting never raises: a failed count is logged at
debug level and lost. Counters survive restarts; Prometheus handles a reset (a flushed Redis) as usual.

Where the numbers come from: the web's middleware (`service.ops.web`, request counts added up in the process by
`BufferedCounts` and written once a second), the worker class (`workers.worker`: job outcomes and run times,
windows resolved, resolution latency, deadlines fired, deliveries, and where each job's time went by stage, from
the `lap` calls in the pipeline; a job's metrics are one `Tally`, one round trip), and the hooks below, called
where no job result shows the event: `answer_stored` (ingest), `autoplayed` (resolution), `throttled` (outbox, a
channel's 429 / retry-after).

A leaf: it imports nothing of the project but the key names.
"""

import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from service.store.keys import METRICS_COUNTERS as COUNTERS_KEY
from service.store.keys import metrics_histogram

log = logging.getLogger(__name__)

# name -> (help, label names). Exposed as artemia_<name>_total.
COUNTERS = {
    "updates": ("Inbound webhook requests, by channel and HTTP status.", ("channel", "status")),
    "answers": ("Answers stored for an open window (hook in service/pipeline/ingest.py).", ("channel",)),
    "windows_resolved": ("Resolution runs that committed (trigger: answers, deadline, sweeper).", ("trigger",)),
    "deadlines_fired": ("Deadlines that closed a window still waiting for answers.", ()),
    "autoplays": ("Seats auto-played because they did not answer (hook in service/pipeline/resolution.py).", ()),
    "throttled": ("429 / retry-after answers of a channel (hook in service/pipeline/outbox.py).", ("channel",)),
    "replies_dropped": (
        "Webhook replies not sent: their chat's send budget was spent (a flood of commands).",
        ("chat",),
    ),
    "deliveries": ("Outbox delivery attempts, by result.", ("status",)),
    "jobs": ("RQ jobs run, by job and outcome.", ("job", "outcome")),
}
LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
STAGE_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# name -> (help, label names, buckets). Exposed as artemia_<name>.
HISTOGRAMS = {
    "resolution_latency_seconds": (
        "From a window closing (last answer or deadline) to its resolution committed and followed up.",
        ("trigger",),
        LATENCY_BUCKETS,
    ),
    "job_seconds": ("Run time of RQ jobs.", ("job",), LATENCY_BUCKETS),
    "job_stage_seconds": (
        "Where a job's time goes, per stage (see STAGES in service/ops/metrics.py).",
        ("job", "stage"),
        STAGE_BUCKETS,
    ),
}
# The stages a job's time is split into (`lap`): what the code between two laps spends its time on.
STAGES = {
    "wait": "queued: from enqueued to started (RQ's timestamps)",
    "rq": "RQ's bookkeeping of the job, before and after its body",
    "read": "a resolution's Redis reads of the closed window",
    "engine": "the engine applying the answers and opening the next window, with the bots' answers",
    "render": "writing each chat's messages of the step",
    "commit": "the commit script (and the wait for a replica, when set)",
    "enqueue": "scheduling the follow-ups: deliveries, deadline, reminders",
    "outbox": "a delivery's Redis bookkeeping: lanes, claims, marks",
    "send": "the channel's send calls",
}


# ------------------------------------------------------------------------------------------ counting


def _field(name: str, labels: dict) -> str:
    return name + "|" + ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def parse_field(text: str) -> tuple[str, dict]:
    name, _, rest = text.partition("|")
    return name, dict(pair.split("=", 1) for pair in rest.split(",") if pair)


class Tally:
    """Counts and observations gathered while one piece of work runs, written with one pipelined round trip
    (a resolution job's six used to cost four)."""

    def __init__(self) -> None:
        self.counts: Counter = Counter()
        self.observations: list[tuple[str, float, str]] = []

    def count(self, name: str, n: int = 1, **labels) -> "Tally":
        """Add ``n`` to counter ``name`` (one of `COUNTERS`)."""
        if n:
            self.counts[_field(name, {k: str(v) for k, v in labels.items()})] += int(n)
        return self

    def observe(self, name: str, seconds: float, **labels) -> "Tally":
        """One observation of histogram ``name`` (one of `HISTOGRAMS`)."""
        self.observations.append((name, seconds, _field("", {k: str(v) for k, v in labels.items()})[1:]))
        return self

    def write(self, connection) -> None:
        """Never raises: a failed write is logged at debug level and lost."""
        if not self.counts and not self.observations:
            return
        try:
            pipe = connection.pipeline(transaction=False)
            for field, n in self.counts.items():
                pipe.hincrby(COUNTERS_KEY, field, n)
            for name, seconds, labelled in self.observations:
                buckets = HISTOGRAMS[name][2]
                index = next((i for i, bound in enumerate(buckets) if seconds <= bound), len(buckets))
                pipe.hincrby(metrics_histogram(name), f"b{index}|{labelled}", 1)
                pipe.hincrbyfloat(metrics_histogram(name), f"sum|{labelled}", max(0.0, seconds))
                pipe.hincrby(metrics_histogram(name), f"count|{labelled}", 1)
            pipe.execute()
        except Exception as exc:  # metrics must never break the work they count
            log.debug("metrics not written (%d counts, %d observed): %s", len(self.counts), len(self.observations), exc)


def count(connection, name: str, n: int = 1, **labels) -> None:
    """Add ``n`` to counter ``name`` (one of `COUNTERS`). Never raises."""
    Tally().count(name, n, **labels).write(connection)


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
        tally = Tally()
        tally.counts = pending
        tally.write(connection)


def observe(connection, name: str, seconds: float, **labels) -> None:
    """Record one observation in histogram ``name`` (one of `HISTOGRAMS`). Never raises."""
    Tally().observe(name, seconds, **labels).write(connection)


# ------------------------------------------------------------------------------------------ stages of a job


class Stages:
    """The time of one job, split by stage: each `lap` charges the time since the one before to its stage; the
    outcomes of the messages it delivered besides its own result (`delivered`: a resolution sending its step); and
    the windows it resolved from the ready set (`resolved`)."""

    def __init__(self) -> None:
        self.last = time.perf_counter()
        self.spent: dict[str, float] = {}
        self.deliveries: list[str] = []
        self.resolved: list[float] = []  # seconds from each window noted ready to its resolution (`resolved`)

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.spent[stage] = self.spent.get(stage, 0.0) + now - self.last
        self.last = now


_timing: ContextVar[Stages | None] = ContextVar("artemia_stages", default=None)


@contextmanager
def timing_stages() -> Iterator[Stages]:
    """Time the stages of the work run inside (the worker wraps each job in it)."""
    stages = Stages()
    token = _timing.set(stages)
    try:
        yield stages
    finally:
        _timing.reset(token)


def lap(stage: str) -> None:
    """Charge the time since the last lap to ``stage`` (one of `STAGES`) when the running job is being timed;
    outside one (the web, tests) it does nothing."""
    stages = _timing.get()
    if stages is not None:
        stages.lap(stage)


def delivered(statuses: list[str]) -> None:
    """The outcomes of messages the running job delivered on the way (`service.pipeline.delivery.deliver_now`),
    counted in ``deliveries`` with the job's metrics; outside a timed job it does nothing, as `lap`."""
    stages = _timing.get()
    if stages is not None:
        stages.deliveries += statuses


def resolved(seconds: float) -> None:
    """A window the running job resolved, ``seconds`` after it was noted ready (`workers.jobs.resolve_ready`),
    counted in ``windows_resolved`` and ``resolution_latency_seconds`` with the job's metrics."""
    stages = _timing.get()
    if stages is not None:
        stages.resolved.append(seconds)


@contextmanager
def stage(name: str, before: str) -> Iterator[None]:
    """Charge the time until here to ``before`` and the time inside to ``name``."""
    lap(before)
    try:
        yield
    finally:
        lap(name)


# The hooks other modules call (one line each, see the module docstring).


def answer_stored(connection, channel: str = "any", counts: BufferedCounts | None = None) -> None:
    """With ``counts`` (a web process's), added to them: written within a second, no round trip of its own."""
    if counts is not None:
        counts.add("answers", channel=channel)
    else:
        count(connection, "answers", channel=channel)


def autoplayed(connection, seats: int = 1) -> None:
    count(connection, "autoplays", seats)


def throttled(connection, channel: str = "any") -> None:
    count(connection, "throttled", channel=channel)
