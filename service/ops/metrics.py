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
windows resolved, resolution latency, deadlines fired, deliveries), and the hooks below, called where no job
result shows the event: `answer_stored` (ingest), `autoplayed` (resolution), `throttled` (outbox, a channel's
429 / retry-after).

A leaf: it imports nothing of the project but the key names.
"""

import logging
import threading
from collections import Counter

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
    "deliveries": ("Outbox delivery attempts, by result.", ("status",)),
    "jobs": ("RQ jobs run, by job and outcome.", ("job", "outcome")),
}
LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
# name -> (help, label names, buckets). Exposed as artemia_<name>.
HISTOGRAMS = {
    "resolution_latency_seconds": (
        "From a window closing (last answer or deadline) to its resolution committed and followed up.",
        ("trigger",),
        LATENCY_BUCKETS,
    ),
    "job_seconds": ("Run time of RQ jobs.", ("job",), LATENCY_BUCKETS),
}


# ------------------------------------------------------------------------------------------ counting


def _field(name: str, labels: dict) -> str:
    return name + "|" + ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def parse_field(text: str) -> tuple[str, dict]:
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
        pipe.hincrby(metrics_histogram(name), f"b{index}|{labelled}", 1)
        pipe.hincrbyfloat(metrics_histogram(name), f"sum|{labelled}", max(0.0, seconds))
        pipe.hincrby(metrics_histogram(name), f"count|{labelled}", 1)
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
