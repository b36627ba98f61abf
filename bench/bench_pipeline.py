"""Pipeline benchmarks (issue 3), each against a baseline measured in the same run on the same Redis:

1. submits/s through ``service.pipeline.ingest.submit`` vs a plain Redis SET loop;
2. window resolutions/s of one worker vs RQ's own no-op job rate, same worker class (SimpleWorker, in-process);
3. latency from the last answer of a window to its first outgoing message (the commit that writes the outbox),
   with 200 concurrent games and two real ``rq worker`` processes: all 200 at once, then a steady 40 answers/s.

Needs a redis-server: ``ARTEMIA_TEST_REDIS_URL`` (``make bench`` starts a private one) or ``REDIS_URL``; uses
database 14 of it and flushes it. Prints figures; asserts nothing.
"""

import os
import pathlib
import statistics
import subprocess
import sys
import threading
import time

import redis
from rq import Queue, SimpleWorker, Worker
from rq.serializers import JSONSerializer

from service import wiring
from service.channels.recording import RecordingSender
from service.config import Settings
from service.game import Game
from service.pipeline import context, ingest, scheduling
from service.pipeline.resolution import bot_answer, start_game

ROOT = pathlib.Path(__file__).resolve().parents[1]
DB = 14
CONFIG = {"players": 3, "seed": 1, "side": 1, "expert": False}
UNLIMITED = {"rate_global_per_second": 1e6, "rate_private_per_second": 1e6, "rate_group_per_minute": 1e8}


def noop() -> None:
    """The baseline job."""


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


def bench_resolutions(url: str, games: int = 200) -> None:
    ctx = fresh(url)
    q = Queue("bench-noop", connection=ctx.store.redis, serializer=JSONSerializer)
    for _ in range(games):
        q.enqueue(noop)
    started = time.perf_counter()
    SimpleWorker([q], connection=ctx.store.redis, serializer=JSONSerializer).work(burst=True, logging_level="WARNING")
    noop_rate = games / (time.perf_counter() - started)

    ids = [f"r{i}" for i in range(games)]
    for i, g in enumerate(ids):
        start_game(ctx, g, {**CONFIG, "seed": i}, meta(3))
        for seat in (1, 2):
            ctx.store.submit(g, 1, seat, answer(ctx, g, seat), None, time.time())
        scheduling.resolve(ctx, g, 1)
    started = time.perf_counter()
    SimpleWorker([ctx.queue], connection=ctx.store.redis, serializer=JSONSerializer).work(
        burst=True, logging_level="WARNING"
    )
    elapsed = time.perf_counter() - started
    resolutions = sum(len(ctx.store.resolution_log(g)) - 1 for g in ids)  # chained bot windows included
    rate = resolutions / elapsed
    print(
        f"resolutions per SimpleWorker: {rate:6.0f}/s ({resolutions} windows)   RQ no-op jobs: "
        f"{noop_rate:6.0f}/s   ratio {rate / noop_rate:.2f} (goal >= 0.7)"
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
