"""Pipeline benchmarks (issue 3), each against a baseline measured in the same run on the same Redis:

1. submits/s through ``service.pipeline.ingest.submit`` vs a plain Redis SET loop;
2. window resolutions/s of one worker vs RQ's own no-op job rate, same worker class (SimpleWorker, in-process);
3. latency from the last answer of a window to its first outgoing message (the commit that writes the outbox),
   with 200 concurrent games and two real ``rq worker`` processes: all 200 at once, then a steady 40 answers/s.

Needs a redis-server: ``ARTEMIA_TEST_REDIS_URL`` (``make bench`` starts a private one) or ``REDIS_URL``; uses
database 14 of it and flushes it. Prints figures; asserts nothing.
"""

import collections
import os
import pathlib
import statistics
import subprocess
import sys
import threading
import time

import redis
from rq import SimpleWorker, Worker
from rq.serializers import JSONSerializer

from service import wiring
from service.channels.recording import RecordingSender
from service.config import Settings
from service.game import Game
from service.pipeline import context, ingest, scheduling
from service.pipeline.resolution import bot_answer, start_game
from workers import jobs  # noqa: F401  (loaded before the clock starts, as workers.rqconfig loads it in a worker)

ROOT = pathlib.Path(__file__).resolve().parents[1]
DB = 14
CONFIG = {"players": 3, "seed": 1, "side": 1, "expert": False}
UNLIMITED = {"rate_global_per_second": 1e6, "rate_private_per_second": 1e6, "rate_group_per_minute": 1e8}


def noop() -> None:
    """The baseline job."""


NOOP = "bench.bench_pipeline.noop"  # by name: run as ``python -m bench.bench_pipeline``, this module is __main__


def meta(players: int) -> dict:
    """Every Hunted is a person; the Creature is a bot."""
    return {
        "players": {str(s): {"name": f"P{s}", "chat": f"c{s}" if s else None, "user": None} for s in range(players)},
        "group": "grp",
        "deadline_seconds": 3600,
        "lang": "en",
        "bots": [0],
    }


def fresh(url: str) -> context.Context:
    connection = redis.Redis.from_url(url)
    connection.flushdb()
    ctx = wiring.build(connection, Settings(sender="recording", **UNLIMITED), sender=RecordingSender(connection))
    context.register(ctx)
    return ctx


def answer(ctx, game_id: str, seat: int) -> list[dict]:
    return bot_answer(Game.from_json(ctx.store.load(game_id).json), seat)


def bench_submits(url: str, seconds: float = 2.0) -> None:
    ctx = fresh(url)
    games = [f"s{i}" for i in range(50)]
    answers = {}
    for i, g in enumerate(games):
        start_game(ctx, g, {**CONFIG, "players": 5, "seed": i}, meta(5))
        answers[g] = {seat: answer(ctx, g, seat) for seat in (1, 2, 3)}  # never seat 4: windows stay open
    n, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        for g in games:
            for seat in (1, 2, 3):
                ingest.submit(ctx, g, seat, answers[g][seat], ctx.store.load(g).window)
                n += 1
    ingest_rate = n / (time.perf_counter() - started)
    r, payload = ctx.store.redis, b'[{"type":"play","cards":[3]}]'
    started = time.perf_counter()
    for i in range(n):
        r.set(f"bench:set:{i % 1000}", payload)
    set_rate = n / (time.perf_counter() - started)
    print(
        f"submits through ingest: {ingest_rate:8.0f}/s   plain SET loop: {set_rate:8.0f}/s   "
        f"ratio {ingest_rate / set_rate:.2f}"
    )


class TimedWorker(SimpleWorker):
    """RQ's SimpleWorker timing each job from the end of the one before it (its dequeue, RQ's bookkeeping and the
    job itself), summed per job function. Not timed: ``work()``'s start-up (the first job's interval) and its
    teardown, which waits up to a second for its pub/sub thread to stop — enough to swing a rate of 200 jobs
    fourfold."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seconds: collections.Counter = collections.Counter()
        self.jobs: collections.Counter = collections.Counter()
        self._last_end: float | None = None

    def execute_job(self, job, queue):
        super().execute_job(job, queue)
        now = time.perf_counter()
        if self._last_end is not None:
            self.seconds[job.func_name] += now - self._last_end
            self.jobs[job.func_name] += 1
        self._last_end = now


def resolution_round(ctx, ids: list[str]) -> tuple[float, float, int]:
    """A no-op job, then a resolution job of a fresh game's first window, and so on for each of ``ids``, on one
    queue and one worker, so that both kinds of job run on the same machine at the same moments (the machine is
    shared). -> (no-op jobs/s, windows resolved/s, windows resolved: chained bot windows included)."""
    for i, g in enumerate(ids):
        start_game(ctx, g, {**CONFIG, "seed": i}, meta(3))
        for seat in (1, 2):
            ctx.store.submit(g, 1, seat, answer(ctx, g, seat), None, time.time())
    for g in ids:
        ctx.queue.enqueue(NOOP)
        scheduling.resolve(ctx, g, 1)
    worker = TimedWorker([ctx.queue], connection=ctx.store.redis, serializer=JSONSerializer)
    worker.work(burst=True, logging_level="WARNING")
    windows = sum(len(ctx.store.resolution_log(g)) - 1 for g in ids)
    resolve_name = "workers.jobs.resolve"
    noop_rate = worker.jobs[NOOP] / worker.seconds[NOOP]
    return noop_rate, windows / worker.seconds[resolve_name], windows  # the first job, untimed, is a no-op


def bench_resolutions(url: str, games: int = 200, rounds: int = 3) -> None:
    """``rounds`` rounds of ``games`` no-op and ``games`` resolution jobs, alternating (`resolution_round`); the
    medians, and each round's ratio."""
    ctx = fresh(url)
    rounds_done = [resolution_round(ctx, [f"r{r}x{i}" for i in range(games)]) for r in range(rounds)]
    noops, rates, windows = (list(column) for column in zip(*rounds_done, strict=True))
    ratios = [rate / noop for noop, rate, _ in rounds_done]
    print(
        f"resolutions per SimpleWorker: {statistics.median(rates):6.0f}/s ({windows[0]} windows a round)   RQ no-op "
        f"jobs: {statistics.median(noops):6.0f}/s   ratio {statistics.median(ratios):.2f} (goal >= 0.7; the median of "
        f"{rounds} rounds, no-op and resolution jobs alternating on one worker: {', '.join(f'{x:.2f}' for x in ratios)})"
    )


def start_workers(url: str, n: int) -> list[subprocess.Popen]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "ARTEMIA_SENDER": "recording",
        **{f"ARTEMIA_{k.upper()}": str(v) for k, v in UNLIMITED.items()},
    }
    cmd = [
        sys.executable,
        "-m",
        "rq.cli",
        "worker",
        "-c",
        "workers.rqconfig",
        "-S",
        "json",
        "--with-scheduler",
        "-w",
        "rq.worker.SimpleWorker",
        "--logging_level",
        "WARNING",
        "-u",
        url,
        "artemia",
        "artemia-refresh",
        "artemia-send",
        "artemia-draw",
    ]
    procs = [subprocess.Popen(cmd, env=env, cwd=ROOT, start_new_session=True) for _ in range(n)]
    connection = redis.Redis.from_url(url)
    while len(Worker.all(connection=connection)) < n:
        time.sleep(0.05)
    return procs


def latencies(ctx, games: list[str], gap: float) -> list[float]:
    """Send the last answer of each game's first window, ``gap`` seconds apart; -> ms until each commit."""
    for g in games:
        ingest.submit(ctx, g, 1, answer(ctx, g, 1), 1)
    last = {g: answer(ctx, g, 2) for g in games}
    sent_at: dict[str, float] = {}

    def send(part):
        for g in part:
            sent_at[g] = time.time()
            ingest.submit(ctx, g, 2, last[g], 1)
            if gap:
                time.sleep(gap)

    threads = [threading.Thread(target=send, args=(games[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    while any(ctx.store.load(g).version < 2 for g in games):
        time.sleep(0.02)
    # the resolution records its commit time as the new window's opening time
    return sorted((ctx.store.load(g).opened - sent_at[g]) * 1000 for g in games)


def bench_latency(url: str, games: int = 200) -> None:
    ctx = fresh(url)
    procs = start_workers(url, 2)
    try:
        for label, gap in (("all at once", 0.0), ("steady 40/s", 0.1)):
            ids = [f"l{label[0]}{i}" for i in range(games)]
            for i, g in enumerate(ids):
                start_game(ctx, g, {**CONFIG, "seed": i}, meta(3))
            ms = latencies(ctx, ids, gap)
            p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
            print(
                f"last answer -> first outgoing message, {games} games {label:12}: "
                f"p50 {statistics.median(ms):6.1f} ms   p99 {p99:6.1f} ms (goal p99 <= 250 ms)"
            )
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait()


def main() -> None:
    url = os.environ.get("ARTEMIA_TEST_REDIS_URL") or os.environ.get("REDIS_URL")
    if not url:
        print("bench_pipeline: skipped, no ARTEMIA_TEST_REDIS_URL or REDIS_URL (run it with make bench)")
        return
    url = f"{url.rsplit('/', 1)[0]}/{DB}"
    bench_submits(url)
    bench_resolutions(url)
    bench_latency(url)


if __name__ == "__main__":
    main()
